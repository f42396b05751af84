/** Storage for tests that stop an emulator and start another on the same data. */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { Backend } from '../src/testing.ts';

/** Storage that outlives one emulator: a data directory, or a PostgreSQL schema of the test's own. */
export async function lastingStore(backend: Backend) {
  if (backend === 'pglite') {
    const dir = mkdtempSync(join(tmpdir(), 'shopkit-subs-'));
    return {
      options: { db: join(dir, 'data') },
      cleanup: async () => rmSync(dir, { recursive: true, force: true }),
    };
  }
  const schema = `w_${randomBytes(5).toString('hex')}`;
  const admin = async (sql: string) => {
    const c = new pg.Client({ connectionString: process.env.SHOPKIT_TEST_DATABASE_URL });
    await c.connect();
    await c.query(sql);
    await c.end();
  };
  return { options: { schema }, cleanup: () => admin(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`) };
}
