/**
 * Storage: one SQL dialect (PostgreSQL) on two engines. PGlite (Postgres compiled to WASM) in
 * memory or in a data directory by default; a real PostgreSQL server for `postgres://…` URLs.
 * Migrations are plain SQL, run in order, once, inside a transaction.
 * @module
 */
import { linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { openMemoryCluster } from './snapshot.ts';

/** Something that runs SQL with `$1`-style parameters. */
export interface Sql {
  query<T = Record<string, any>>(text: string, params?: unknown[]): Promise<T[]>;
  /** Runs a script of several statements without parameters (migrations). */
  exec(text: string): Promise<void>;
}

export interface Db extends Sql {
  readonly kind: 'pglite' | 'postgres';
  /** Runs `fn` in one transaction; rolls back if it throws. */
  tx<T>(fn: (sql: Sql) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

export interface Migration {
  /** Unique and ordered, e.g. `0001_core`. */
  id: string;
  sql: string;
}

/**
 * Opens storage. `memory` → in-memory PGlite; `postgres://…` → node-postgres pool (optionally in
 * its own `schema`, created if missing); anything else → a PGlite data directory.
 */
/** PGlite's start parameters beyond its defaults (the memory note in `openDb` says why). */
export const PGLITE_PARAMS = ['-c', 'shared_buffers=16MB'];

export async function openDb(
  spec: string,
  opts: {
    schema?: string;
    /** PostgreSQL: how long one statement may wait for the server's answer (default 30 s). */
    queryTimeoutMs?: number;
  } = {},
): Promise<Db> {
  if (/^postgres(ql)?:\/\//.test(spec))
    return openPostgres(spec, opts.schema, opts.queryTimeoutMs ?? QUERY_TIMEOUT_MS);
  return openPglite(spec === 'memory' ? undefined : spec);
}

async function openPglite(dir?: string): Promise<Db> {
  const { PGlite } = await import('@electric-sql/pglite');
  if (dir) mkdirSync(dir, { recursive: true });
  const release = dir ? claimDataDir(dir) : () => {};
  try {
    return await startPglite(PGlite, dir, release);
  } catch (e) {
    release();
    throw e;
  }
}

async function startPglite(
  PGlite: typeof import('@electric-sql/pglite').PGlite,
  dir: string | undefined,
  release: () => void,
): Promise<Db> {
  // Memory: initdb sets shared_buffers = 128MB, and PGlite's shared memory is zero-filled WASM
  // heap, all of it resident, for a database (catalogs included) under 10 MB. 16MB holds it with
  // room to grow; pages beyond are read back from data files that are in memory or the OS cache.
  // Not ours to tune: the WASM heap starts at the module's minimum of 128 MiB. When initdb runs
  // (a new data directory, or a memory cluster without the cached copy of snapshot.ts), its
  // scratch instance (about 300 MiB: its heap and a copy of it) stays resident after startup
  // until V8's next full collection. A library cannot well force one on its host; the CLI, whose
  // process is its own, does once the emulator is ready (cli.ts). Memory clusters start from the
  // copy of a fresh one when there is one: no initdb, no scratch instance.
  const options = { startParams: [...PGlite.defaultStartParams, ...PGLITE_PARAMS] };
  const pg = dir ? new PGlite(dir, options) : (await openMemoryCluster(PGlite, options)).pg;
  await pg.waitReady;
  const wrap = (q: { query: typeof pg.query; exec: typeof pg.exec }): Sql => ({
    query: async <T>(text: string, params?: unknown[]) => (await q.query<T>(text, params as any[])).rows,
    exec: async (text: string) => void (await q.exec(text)),
  });
  const inTurn = takeTurns();
  return {
    kind: 'pglite',
    query: (text, params) => inTurn(() => pg.query(text, params as any[]).then((r) => r.rows as any[])),
    exec: (text) => inTurn(async () => void (await pg.exec(text))),
    // The transaction's own statements run inside its turn (PGlite serialises them itself).
    tx: (fn) => inTurn(() => pg.transaction((tx) => fn(wrap(tx)))),
    close: () => inTurn(() => pg.close()).finally(release),
  };
}

/** The file in a PGlite data directory that names the process using it. */
export const DATA_DIR_LOCK = 'shopkit-emulator.pid';
const claimed = new Set<string>();

/**
 * Claims a PGlite data directory for this process, or throws if another one holds it. Two PGlite
 * instances on one directory (`npm start` twice, two emulators given one `--db`) each keep their
 * own pages in memory and overwrite each other's files: writes one of them acknowledged were
 * lost. The claim is a file holding the owner's pid, made whole and then linked into place (so it
 * is never seen half-written, and of two claims at once one fails). A claim whose process is gone
 * (killed with SIGKILL) is taken over. Returns the release.
 */
function claimDataDir(dir: string): () => void {
  const key = resolve(dir);
  const file = join(dir, DATA_DIR_LOCK);
  if (claimed.has(key)) throw new Error(`the data directory ${dir} is already open in this process`);
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, `${process.pid}\n`);
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        linkSync(tmp, file);
        break;
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 2) throw e;
      }
      let owner = Number.NaN;
      try {
        owner = Number(readFileSync(file, 'utf8').trim());
      } catch {} // released meanwhile: try again
      // Our own pid on a claim this process does not hold: a previous life of a restarted container.
      if (Number.isInteger(owner) && owner > 0 && owner !== process.pid && alive(owner))
        throw new Error(
          `the data directory ${dir} is in use by another emulator (pid ${owner}); stop it, or give this one another --db (if no emulator runs, delete ${file})`,
        );
      rmSync(file, { force: true });
    }
  } finally {
    rmSync(tmp, { force: true });
  }
  claimed.add(key);
  return () => {
    if (!claimed.delete(key)) return;
    try {
      if (readFileSync(file, 'utf8').trim() === String(process.pid)) rmSync(file);
    } catch {}
  };
}

function alive(pid: number) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** How long a first connection to PostgreSQL may take before start-up gives up. */
const CONNECT_TIMEOUT_MS = 10_000;

/**
 * How long a statement on an open PostgreSQL connection may wait for the server's answer. A server
 * that stops answering (a stalled host, packets dropped rather than refused) held every request
 * on a pooled connection until the operating system gave the socket up, many minutes later. The
 * emulator's statements take milliseconds; this is far beyond any of them.
 */
const QUERY_TIMEOUT_MS = 30_000;

/** node-postgres's words for a statement that outlived `query_timeout`. */
const isQueryTimeout = (e: unknown) => e instanceof Error && e.message === 'Query read timeout';

/**
 * A queue for the one PGlite connection: jobs (a statement, a script, a whole transaction) run
 * one at a time, in the order they were queued, and each starts in a turn of the event loop of
 * its own. PGlite is WASM executing synchronously behind promises, so without the turns a queue
 * of jobs would run back to back in microtasks: Node would read no socket and accept no
 * connection until the queue was empty, and libuv accepts a single connection per turn. Under
 * load, requests on established connections kept the queue full while a new connection waited
 * in the kernel's accept queue for seconds. With a turn per job, a request that has arrived is
 * read after at most one job (a new connection accepted after one job per connection ahead of it)
 * and served first come, first served.
 */
function takeTurns() {
  let last: Promise<unknown> = Promise.resolve();
  return <T>(job: () => Promise<T>): Promise<T> => {
    const result = last.then(nextTurn).then(job);
    last = result.catch(() => {});
    return result;
  };
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

async function openPostgres(url: string, schema: string | undefined, queryTimeoutMs: number): Promise<Db> {
  const { default: pg } = await import('pg');
  // bigint/numeric come back as strings unless told otherwise; counts are small.
  pg.types.setTypeParser(20, (v: string) => Number(v));
  // One connection first, with a time limit: a server that is down, or a host that swallows
  // packets, is reported at start-up in a sentence that names the server (never the password)
  // instead of a start that hangs.
  if (!URL.canParse(url))
    throw new Error(
      'the PostgreSQL URL is not a valid URL (characters such as @ : / # ? or a space in the password must be percent-encoded)',
    );
  const where = serverOf(url);
  let first: InstanceType<typeof pg.Client> | undefined;
  try {
    first = new pg.Client({ connectionString: url, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
    first.on('error', () => {});
    await first.connect();
  } catch (e) {
    await first?.end().catch(() => {});
    // The server's words name the user (`role "x" does not exist`, `password authentication
    // failed for user "x"`): said without it, as the URL is shown without it.
    const message = String((e as Error)?.message ?? e).replace(
      /\b(role|user) "[^"]*"/g,
      "$1 (the URL's user)",
    );
    throw new Error(
      /timeout/i.test(message)
        ? `PostgreSQL at ${where} did not answer within ${CONNECT_TIMEOUT_MS / 1000} s`
        : `PostgreSQL at ${where}: ${message}`,
    );
  }
  try {
    if (schema) await first.query(`CREATE SCHEMA IF NOT EXISTS "${schema.replace(/"/g, '')}"`);
  } finally {
    await first.end().catch(() => {});
  }
  const pool = new pg.Pool({
    connectionString: url,
    max: 10,
    // A server that stops answering (a cut link, a stalled host) fails a new connection in this
    // time, answered 503 (`storageUnavailable`), not a request held until it answers again.
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    // And a statement on an open connection in this time (`QUERY_TIMEOUT_MS`), also 503. The pool
    // discards the connection (`pool.query` gives it back with the error; `tx` below does too).
    query_timeout: queryTimeoutMs,
    // Names the connections, so operators (and the fault tests) can tell which emulator they serve.
    application_name: `shopkit-emulator${schema ? `:${schema}` : ''}`,
    options: schema ? `-c search_path="${schema.replace(/"/g, '')}"` : undefined,
  });
  // A dropped connection must not crash the process; the pool reconnects on the next query.
  pool.on('error', () => {});
  // Nor one dropped while the pool hands it over (the pool no longer listens, `tx` not yet; or
  // within `pool.query`): under load, terminated backends ended the process ("Unhandled 'error'
  // event"). Every connection listens from the moment it is made, and keeps the error, so that
  // a transaction that then fails on it gives it back as broken.
  const dropped = new WeakMap<object, Error>();
  pool.on('connect', (client) => client.on('error', (e: Error) => dropped.set(client, e)));
  return {
    kind: 'postgres',
    query: async (text, params) => (await pool.query(text, params as any[])).rows,
    exec: async (text) => void (await pool.query(text)),
    async tx(fn) {
      const conn = await pool.connect();
      // The pool only listens for errors on idle connections. A checked-out one that PostgreSQL
      // drops between two queries (a restart, a terminated backend) emits `error`, which would
      // crash the process without a listener; the next query of the transaction fails instead,
      // and the broken connection is discarded on release.
      let broken: Error | undefined;
      const onError = (e: Error) => {
        broken ??= e;
      };
      conn.on('error', onError);
      try {
        await conn.query('BEGIN');
        const out = await fn({
          query: async (text, params) => (await conn.query(text, params as any[])).rows,
          exec: async (text) => void (await conn.query(text)),
        });
        await conn.query('COMMIT');
        return out;
      } catch (e) {
        // A statement that got no answer in time leaves the connection waiting for it: not rolled
        // back on it (that would wait as long again) but discarded, which ends the transaction.
        if (isQueryTimeout(e)) broken ??= e as Error;
        else await conn.query('ROLLBACK').catch(() => {});
        throw e;
      } finally {
        conn.off('error', onError);
        conn.release(broken ?? dropped.get(conn));
      }
    },
    close: () => pool.end(),
  };
}

/** Connection-level failures of the storage (PostgreSQL down, restarting, or the link cut). */
export function storageUnavailable(error: unknown) {
  const e = error as { code?: unknown; message?: unknown } | null;
  const code = typeof e?.code === 'string' ? e.code : '';
  return (
    ['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', '57P01', '57P02', '57P03'].includes(code) ||
    // (not 08P01, a protocol violation: a statement the database could never take)
    (code.startsWith('08') && code !== '08P01') ||
    /Connection terminated|connection timeout|timeout exceeded when trying to connect|Client has encountered a connection error|Query read timeout/i.test(
      String(e?.message ?? ''),
    )
  );
}

/**
 * PostgreSQL's deadlock and serialization failures: the transaction was rolled back, nothing
 * written, and the same request can be sent again.
 */
export const transactionConflict = (error: unknown) =>
  ['40P01', '40001'].includes(String((error as { code?: unknown } | null)?.code));

/** `host:port` of a postgres:// URL, for messages: no user, password, database or query. */
function serverOf(url: string) {
  const u = new URL(url);
  return `${u.hostname || 'localhost'}:${u.port || 5432}`;
}

/**
 * Applies the migrations not yet applied, in order, each in its own transaction. On PostgreSQL,
 * a schema holding tables the emulator did not create (an application's own database, reached
 * through `DATABASE_URL`) is refused before anything is written to it. Answers the ids of applied
 * migrations that `migrations` does not know: data a newer emulator wrote (the caller warns).
 */
export async function migrate(db: Db, migrations: Migration[]): Promise<string[]> {
  if (db.kind === 'postgres') await refuseForeignTables(db);
  await db.query(
    'CREATE TABLE IF NOT EXISTS _migrations (id text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())',
  );
  const done = new Set((await db.query<{ id: string }>('SELECT id FROM _migrations')).map((r) => r.id));
  for (const m of [...migrations].sort((a, b) => (a.id < b.id ? -1 : 1))) {
    if (done.has(m.id)) continue;
    await db.tx(async (sql) => {
      // Two emulators starting on one database must not both apply the same migration.
      if (db.kind === 'postgres') await sql.query('SELECT pg_advisory_xact_lock(4242)');
      const again = await sql.query('SELECT 1 FROM _migrations WHERE id = $1', [m.id]);
      if (again.length) return;
      await sql.exec(m.sql);
      await sql.query('INSERT INTO _migrations (id) VALUES ($1)', [m.id]);
    });
  }
  const known = new Set(migrations.map((m) => m.id));
  return [...done].filter((id) => !known.has(id)).sort();
}

/**
 * Throws unless the current schema is empty or the emulator's: it has `emulator_meta` (made by the
 * first migration), or nothing but `_migrations` (a first start cut short).
 */
async function refuseForeignTables(db: Db) {
  const names = (
    await db.query<{ name: string }>(
      'SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() ORDER BY 1',
    )
  ).map((r) => r.name);
  if (names.includes('emulator_meta') || names.every((n) => n === '_migrations')) return;
  const shown = names.slice(0, 5).join(', ') + (names.length > 5 ? ', …' : '');
  throw new Error(
    `the database already has tables the emulator did not create (${shown}); give the emulator a database of its own`,
  );
}
