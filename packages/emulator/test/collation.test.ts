/**
 * Text sorts and comparisons read the same on every storage: embedded storage orders text by its
 * bytes (PGlite's `C` locale), and PostgreSQL did by its database's collation, so that a database
 * made with a language's collation (`en-US`: `apple`, `Äpfel`, `Banana`) listed products, paged by
 * cursor and filtered `$gt` in another order than the emulator's default storage (`Banana`, `apple`,
 * `Äpfel`). The PostgreSQL runs use a database of their own made with ICU's `en-US` collation.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator, testBackends } from '../src/testing.ts';
import { jsonCalls, visitorToken } from './http.ts';

const QUERY = '/stores-reader/v1/products/query-platformized';
const LANGUAGE_DB = 'shopkit_collation_en_us';

/**
 * The URL of a database on the test server whose collation is ICU's `en-US` (made once, kept: the
 * emulator runs in a schema of its own, dropped afterwards).
 */
async function languageDatabase(serverUrl: string) {
  const c = new pg.Client({ connectionString: serverUrl });
  await c.connect();
  try {
    const had = await c.query('SELECT 1 FROM pg_database WHERE datname = $1', [LANGUAGE_DB]);
    if (!had.rowCount)
      await c
        .query(
          `CREATE DATABASE ${LANGUAGE_DB} TEMPLATE template0 ENCODING 'UTF8'
           LOCALE_PROVIDER icu ICU_LOCALE 'en-US' LOCALE 'C.UTF-8'`,
        )
        // Another test file's run may have made it meanwhile.
        .catch((e) => {
          if (e.code !== '42P04') throw e;
        });
  } finally {
    await c.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${LANGUAGE_DB}`;
  return url.toString();
}

/** Runs on embedded storage, on the test database and on the `en-US` one. */
const runs = testBackends().flatMap((b) => (b === 'postgres' ? ['postgres', 'postgres en-US'] : [b]));

describe.each(runs)('text order (%s)', (run) => {
  let emu: TestEmulator;
  let token: string;
  beforeAll(async () => {
    if (run !== 'postgres en-US') emu = await startTestEmulator(run as 'pglite' | 'postgres');
    else {
      const db = await languageDatabase(process.env.SHOPKIT_TEST_DATABASE_URL!);
      emu = await startTestEmulator('postgres', { db });
      // The database's own order is not the bytes' (else this run would show nothing).
      const c = new pg.Client({ connectionString: db });
      await c.connect();
      const { rows } = await c.query(`SELECT 'Banana' < 'apple' AS bytes`);
      await c.end();
      expect(rows[0].bytes).toBe(false);
    }
    token = await visitorToken(emu);
  });
  afterAll(() => emu?.stop());

  const { call, owner } = jsonCalls(() => emu);
  const products = (query: object) => call('POST', QUERY, { query }, { authorization: token });
  const tag = `Coll${randomBytes(3).toString('hex')}`;
  /** In the order of their bytes (UTF-8's order is the code points'). */
  const names = ['apple', 'Banana', 'cherry', 'Äpfel', 'Zebra', 'zest'].map((n) => `${tag} ${n}`);
  const byBytes = [...names].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));

  beforeAll(async () => {
    for (const name of names) {
      const res = await owner('POST', '/stores/v1/products', {
        product: { name, productType: 'physical', priceData: { price: 10 } },
      });
      expect(res.status).toBe(200);
    }
  });
  const filter = { name: { $startsWith: tag } };
  const namesOf = (res: { status: number; body: any }) => {
    expect(res.status).toBe(200);
    return res.body.products.map((p: any) => p.name as string);
  };

  it('sorts names by their bytes, ascending and descending', async () => {
    expect(byBytes.map((n) => n.slice(tag.length + 1))).toEqual([
      'Banana',
      'Zebra',
      'apple',
      'cherry',
      'zest',
      'Äpfel',
    ]);
    const sort = (order: string) => products({ filter, sort: [{ fieldName: 'name', order }] });
    expect(namesOf(await sort('ASC'))).toEqual(byBytes);
    expect(namesOf(await sort('DESC'))).toEqual([...byBytes].reverse());
  });

  it('pages by cursor in the same order, forward and back', async () => {
    const sort = [{ fieldName: 'name', order: 'ASC' }];
    const seen: string[] = [];
    let res = await products({ filter, sort, cursorPaging: { limit: 2 } });
    let prev: string | null = null;
    for (;;) {
      seen.push(...namesOf(res));
      const next = res.body.metadata.cursors.next;
      if (!next) break;
      prev = res.body.metadata.cursors.prev;
      res = await products({ cursorPaging: { limit: 2, cursor: next } });
    }
    expect(seen).toEqual(byBytes);
    // Back from the last page: the page before it.
    const back = await products({ cursorPaging: { limit: 2, cursor: res.body.metadata.cursors.prev } });
    expect(namesOf(back)).toEqual(byBytes.slice(2, 4));
    expect(prev).not.toBeNull();
  });

  it('compares text in the same order in $gt and $lt', async () => {
    const after = await products({
      filter: { $and: [filter, { name: { $gt: `${tag} a` } }] },
      sort: [{ fieldName: 'name', order: 'ASC' }],
    });
    expect(namesOf(after)).toEqual(byBytes.filter((n) => n > `${tag} a`));
    const before = await products({
      filter: { $and: [filter, { name: { $lt: `${tag} a` } }] },
      sort: [{ fieldName: 'name', order: 'ASC' }],
    });
    expect(namesOf(before)).toEqual([`${tag} Banana`, `${tag} Zebra`]);
  });
});
