/**
 * A PGlite data directory given as `db`: refused before anything is written when it cannot be one,
 * and PGlite's failures to open it said in a sentence that names it.
 * @module
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';

/** Whether a `db` spec names a PGlite data directory (not `memory`, not a `postgres://` URL). */
export const isDataDir = (db: string) => db !== 'memory' && !/^postgres(ql)?:\/\//.test(db);

/** What PGlite writes into a data directory, and the emulator's claim on it (db/index.ts). */
const CLUSTER_ENTRY =
  /^(PG_VERSION|base|global|pg_[a-z_]+|postgresql(\.auto)?\.conf|postmaster\.(pid|opts)|shopkit-emulator\.pid(\.\d+\.tmp)?)$/;

/**
 * Refuses, before anything is written, a data directory that is a file, or a directory holding
 * other files and no database (`--db .`, `--db src`): PGlite would create its 20-odd files and
 * folders among them. A directory of PGlite's own files without PG_VERSION is a first start cut
 * short, which PGlite initialises again: it is accepted.
 */
export function checkDataDir(dir: string) {
  let entries: string[];
  try {
    if (!statSync(dir).isDirectory())
      throw new Error(`the data directory ${dir} is a file, not a directory; give the emulator a directory`);
    entries = readdirSync(dir);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return; // created on start
    if (code === 'ENOTDIR')
      throw new Error(
        `the data directory ${dir} is inside a file, not a directory; give the emulator a directory`,
      );
    throw e;
  }
  if (entries.includes('PG_VERSION')) return;
  const others = entries.filter((name) => !CLUSTER_ENTRY.test(name));
  if (others.length)
    throw new Error(
      `${dir} is not an emulator data directory: it holds other files (${others.slice(0, 3).join(', ')}${
        others.length > 3 ? ', …' : ''
      }) and no database; give the emulator a new or empty directory`,
    );
}

/**
 * A failure to open a data directory in a sentence that names it. PGlite reports a directory it
 * may not write as a bare file-system error with no message (errno 2, EACCES in its numbering),
 * and data it cannot read (written by another PostgreSQL version, or damaged) as "PGlite failed
 * to initialize properly".
 */
export function dataDirError(dir: string, e: unknown): unknown {
  const err = e as { name?: string; code?: string; errno?: number; message?: string } | undefined;
  if (
    (err?.name === 'ErrnoError' && err.errno === 2) ||
    ['EACCES', 'EPERM', 'EROFS'].includes(err?.code ?? '')
  )
    return new Error(
      `the data directory ${dir} cannot be written (permission denied); make it writable, or give the emulator another directory`,
    );
  if (err?.name === 'ErrnoError')
    return new Error(`the data directory ${dir} could not be used (file system error ${err.errno})`);
  // (a cluster without its control file makes PGlite's WebAssembly abort: `Aborted(). Build with …`)
  if (/failed to initialize|^Aborted\(/i.test(err?.message ?? '')) {
    let version = '';
    try {
      version = readFileSync(`${dir}/PG_VERSION`, 'utf8').trim();
    } catch {}
    return new Error(
      `the data directory ${dir} could not be opened: ${
        version ? `it holds PostgreSQL ${version} data that` : 'it holds data'
      } this emulator's PGlite cannot read (written by another version, or damaged); move it away and start on a new directory`,
    );
  }
  return e;
}
