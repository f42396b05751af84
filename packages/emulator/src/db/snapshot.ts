/**
 * In-memory PGlite clusters from a copy instead of initdb. initdb costs about 1.5 s and a scratch
 * WASM instance of some 300 MiB (resident until V8's next full collection); loading a tar of a
 * cluster that initdb made costs about 0.3 s and no scratch instance. Tests start a cluster per
 * file, so this is most of their set-up time.
 *
 * The copy is a file in `node_modules/.cache/shopkit-emulator/` of the `node_modules` that holds
 * PGlite (so deleting `node_modules` clears it, and another PGlite install never sees it), named
 * after PGlite's version and the start parameters. It is written once, by whichever process
 * misses it first (to a temporary name, then renamed, so a reader never sees half a file). A cache
 * that cannot be read or written is skipped; a copy PGlite cannot start from is deleted and the
 * cluster made by initdb. `SHOPKIT_PGLITE_CACHE` names another directory, or `off`.
 * @module
 */
import { Blob } from 'node:buffer';
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { PGlite, PGliteOptions } from '@electric-sql/pglite';

/** Where the copy for these start parameters lives, or `undefined` when there is no cache. */
export function snapshotFile(startParams: readonly string[]): string | undefined {
  const setting = process.env.SHOPKIT_PGLITE_CACHE;
  if (setting === 'off') return undefined;
  try {
    // …/node_modules/@electric-sql/pglite/dist/index.cjs → the package and its node_modules.
    const pkgDir = dirname(dirname(createRequire(import.meta.url).resolve('@electric-sql/pglite')));
    const { version } = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8'));
    const key = createHash('sha256')
      .update(JSON.stringify([version, startParams]))
      .digest('hex');
    const dir = setting || join(pkgDir, '../../.cache/shopkit-emulator');
    return join(dir, `pglite-${version}-${key.slice(0, 16)}.tar`);
  } catch {
    return undefined;
  }
}

function read(file: string | undefined): Uint8Array<ArrayBuffer> | undefined {
  try {
    // A file's own buffer (Node pools only small reads), never a SharedArrayBuffer.
    return file ? (readFileSync(file) as Uint8Array<ArrayBuffer>) : undefined;
  } catch {
    return undefined;
  }
}

function write(file: string, bytes: Uint8Array) {
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(tmp, bytes);
    renameSync(tmp, file);
  } catch {
    try {
      rmSync(tmp, { force: true });
    } catch {}
  }
}

/**
 * Opens a new in-memory cluster: from the cached copy when there is one, else by initdb (and then
 * caches a copy of it, taken before anything else is written).
 */
export async function openMemoryCluster(
  PGliteClass: typeof PGlite,
  options: PGliteOptions & { startParams: string[] },
): Promise<{ pg: PGlite; from: 'snapshot' | 'initdb' }> {
  const file = snapshotFile(options.startParams);
  const copy = read(file);
  if (copy) {
    // Node's own Blob, whatever the global one is (jsdom's cannot be read as PGlite reads it).
    const pg = new PGliteClass({ ...options, loadDataDir: new Blob([copy]) as globalThis.Blob });
    try {
      await pg.waitReady;
      return { pg, from: 'snapshot' };
    } catch {
      await pg.close().catch(() => {});
      try {
        rmSync(file!, { force: true });
      } catch {} // a cache that cannot be changed is skipped, never a failure of the open
    }
  }
  const pg = new PGliteClass(options);
  await pg.waitReady;
  if (file)
    try {
      // PGlite makes the dump with the global Blob, which a test environment (jsdom) may replace
      // with one that cannot be read back: then there is no copy this time, and no failure.
      write(file, new Uint8Array(await (await pg.dumpDataDir('none')).arrayBuffer()));
    } catch {}
  return { pg, from: 'initdb' };
}
