import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { expect, it } from 'vitest';
import { DOMAINS } from '../domains/index.ts';
import { migrate, openDb } from './index.ts';

const PG = process.env.SHOPKIT_TEST_DATABASE_URL;

const NAME = 'refuses a PostgreSQL database with tables of its own, writing nothing to it';

// PostgreSQL only: a PGlite data directory is always the emulator's own. Without a server the gap
// is said out loud, as in faults.long.test.ts.
if (!PG) {
  console.warn(
    '[db] SHOPKIT_TEST_DATABASE_URL is not set: the foreign-tables test is NOT run (.ci/run sets it).',
  );
  it.todo(`${NAME} (needs SHOPKIT_TEST_DATABASE_URL)`);
} else
  it(NAME, async () => {
    const schema = `m_${randomBytes(5).toString('hex')}`;
    const admin = new pg.Client({ connectionString: PG });
    await admin.connect();
    const tables = async () =>
      (
        await admin.query<{ name: string }>(
          'SELECT table_name AS name FROM information_schema.tables WHERE table_schema = $1 ORDER BY 1',
          [schema],
        )
      ).rows.map((r) => r.name);
    try {
      // An application's database: its own `products` and `events`.
      await admin.query(`CREATE SCHEMA "${schema}"`);
      await admin.query(`CREATE TABLE "${schema}".products (id serial PRIMARY KEY, title text)`);
      await admin.query(`CREATE TABLE "${schema}".events (id serial PRIMARY KEY)`);
      const db = await openDb(PG!, { schema });
      try {
        await expect(
          migrate(
            db,
            DOMAINS.flatMap((d) => d.migrations),
          ),
        ).rejects.toThrow(
          'the database already has tables the emulator did not create (events, products); give the emulator a database of its own',
        );
      } finally {
        await db.close();
      }
      expect(await tables()).toEqual(['events', 'products']);
    } finally {
      await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await admin.end();
    }
  });
