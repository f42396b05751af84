/**
 * Storage: one SQL dialect (PostgreSQL) on two engines. PGlite (Postgres compiled to WASM) in
 * memory or in a data directory by default; a real PostgreSQL server for `postgres://…` URLs.
 * Migrations are plain SQL, run in order, once, inside a transaction.
 * @module
 */
import { mkdirSync } from 'node:fs';

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
export async function openDb(spec: string, opts: { schema?: string } = {}): Promise<Db> {
  if (/^postgres(ql)?:\/\//.test(spec)) return openPostgres(spec, opts.schema);
  return openPglite(spec === 'memory' ? undefined : spec);
}

async function openPglite(dir?: string): Promise<Db> {
  const { PGlite } = await import('@electric-sql/pglite');
  if (dir) mkdirSync(dir, { recursive: true });
  const pg = dir ? new PGlite(dir) : new PGlite();
  await pg.waitReady;
  const wrap = (q: { query: typeof pg.query; exec: typeof pg.exec }): Sql => ({
    query: async <T>(text: string, params?: unknown[]) => (await q.query<T>(text, params as any[])).rows,
    exec: async (text: string) => void (await q.exec(text)),
  });
  return {
    kind: 'pglite',
    ...wrap(pg),
    tx: (fn) => pg.transaction((tx) => fn(wrap(tx))),
    close: () => pg.close(),
  };
}

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

/** Applies the migrations not yet applied, in order, each in its own transaction. */
export async function migrate(db: Db, migrations: Migration[]) {
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
