/**
 * Storage: one SQL dialect (PostgreSQL) on two engines. PGlite (Postgres compiled to WASM) in
 * memory or in a data directory by default; a real PostgreSQL server for `postgres://…` URLs.
 * Migrations are plain SQL, run in order, once, inside a transaction.
 * @module
 */
import { mkdirSync } from 'node:fs';
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

export async function openDb(spec: string, opts: { schema?: string } = {}): Promise<Db> {
  if (/^postgres(ql)?:\/\//.test(spec)) return openPostgres(spec, opts.schema);
  return openPglite(spec === 'memory' ? undefined : spec);
}

async function openPglite(dir?: string): Promise<Db> {
  const { PGlite } = await import('@electric-sql/pglite');
  if (dir) mkdirSync(dir, { recursive: true });
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
    close: () => inTurn(() => pg.close()),
  };
}

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

async function openPostgres(url: string, schema?: string): Promise<Db> {
  const { default: pg } = await import('pg');
  // bigint/numeric come back as strings unless told otherwise; counts are small.
  pg.types.setTypeParser(20, (v: string) => Number(v));
  if (schema) {
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query(`CREATE SCHEMA IF NOT EXISTS "${schema.replace(/"/g, '')}"`);
    await admin.end();
  }
  const pool = new pg.Pool({
    connectionString: url,
    max: 10,
    // Names the connections, so operators (and the fault tests) can tell which emulator they serve.
    application_name: `shopkit-emulator${schema ? `:${schema}` : ''}`,
    options: schema ? `-c search_path="${schema.replace(/"/g, '')}"` : undefined,
  });
  // A dropped connection must not crash the process; the pool reconnects on the next query.
  pool.on('error', () => {});
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
        await conn.query('ROLLBACK').catch(() => {});
        throw e;
      } finally {
        conn.off('error', onError);
        conn.release(broken);
      }
    },
    close: () => pool.end(),
  };
}

/**
 * Applies the migrations not yet applied, in order, each in its own transaction. On PostgreSQL,
 * a schema holding tables the emulator did not create (an application's own database, reached
 * through `DATABASE_URL`) is refused before anything is written to it.
 */
export async function migrate(db: Db, migrations: Migration[]) {
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
