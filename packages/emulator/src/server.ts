/**
 * Serves the emulator over HTTP with @hono/node-server and shuts it down cleanly.
 * @module
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { createEmulator, type EmulatorInstance, type EmulatorOptions } from './app.ts';
import { startWebhooks } from './domains/webhooks/index.ts';

export interface RunningEmulator extends EmulatorInstance {
  /** `http://host:port`, with the port actually bound. */
  url: string;
  /**
   * Delivers now what the webhook worker would deliver over its next polls (every
   * `webhookPollMs`, default 250 ms): events written before the call are queued and sent, one
   * after another per entity, and it resolves when each delivery due has been answered or has
   * failed. A failed delivery's retry, scheduled for later, is not waited for; storage that fails
   * rejects it. For tests:
   *
   * @example
   * await cart.addToCurrentCart({ lineItems });
   * await emulator.deliverWebhooks();
   * expect(received).toHaveLength(1);
   */
  deliverWebhooks(): Promise<void>;
  /** Stops accepting requests, lets in-flight ones finish, closes storage. */
  stop(): Promise<void>;
}

/** Starts an emulator listening on `host:port` (port 0 = any free port). */
export async function startEmulator(
  options: EmulatorOptions & { port?: number; host?: string } = {},
): Promise<RunningEmulator> {
  const dir = typeof options.db === 'string' && isDataDir(options.db) ? options.db : undefined;
  if (dir) checkDataDir(dir);
  const instance = await createEmulator(options).catch((e: unknown) => {
    throw dir ? dataDirError(dir, e) : e;
  });
  const host = options.host ?? '127.0.0.1';
  // A port in use or an address that cannot be bound closes the storage again (a data directory
  // is left free for the next start).
  const server = await new Promise<ReturnType<typeof serve>>((resolve, reject) => {
    const s = serve({ fetch: instance.app.fetch, port: options.port ?? 0, hostname: host }, () => resolve(s));
    s.once('error', reject);
  }).catch(async (e: Error) => {
    await instance.close().catch(() => {});
    throw e;
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  instance.setPublicUrl(url);
  const webhookWorker = await startWebhooks(instance.emu, options.webhooks).catch(async (e: Error) => {
    server.close();
    await instance.close();
    throw e;
  });
  let stopping: Promise<void> | undefined;
  return {
    ...instance,
    url,
    deliverWebhooks: () => webhookWorker.flush(),
    stop() {
      stopping ??= (async () => {
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          (server as unknown as { closeIdleConnections?: () => void }).closeIdleConnections?.();
        });
        await webhookWorker.stop();
        await instance.close();
      })();
      return stopping;
    },
  };
}

/** Whether a `db` spec names a PGlite data directory (not `memory`, not a `postgres://` URL). */
const isDataDir = (db: string) => db !== 'memory' && !/^postgres(ql)?:\/\//.test(db);

/** What PGlite writes into a data directory, and the emulator's claim on it (db/index.ts). */
const CLUSTER_ENTRY =
  /^(PG_VERSION|base|global|pg_[a-z_]+|postgresql(\.auto)?\.conf|postmaster\.(pid|opts)|shopkit-emulator\.pid(\.\d+\.tmp)?)$/;

/**
 * Refuses, before anything is written, a data directory that is a file, or a directory holding
 * other files and no database (`--db .`, `--db src`): PGlite would create its 20-odd files and
 * folders among them. A directory of PGlite's own files without PG_VERSION is a first start cut
 * short, which PGlite initialises again: it is accepted.
 */
function checkDataDir(dir: string) {
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
function dataDirError(dir: string, e: unknown): unknown {
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
  if (/failed to initialize/i.test(err?.message ?? '')) {
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
