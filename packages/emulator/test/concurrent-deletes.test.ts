/**
 * Deletions that meet: a collection and one of its products deleted at once both succeed (on
 * PostgreSQL they took their locks in opposite orders and one of them died in a deadlock, a 500);
 * and a transaction that PostgreSQL ends for a deadlock all the same (one made here on purpose,
 * with a second connection) is a retryable 503 in the platform's envelope, nothing written.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator, testBackends } from '../src/testing.ts';
import { jsonCalls } from './http.ts';

describe.each(testBackends())('deletions at once (%s)', (backend) => {
  let emu: TestEmulator;
  beforeAll(async () => {
    emu = await startTestEmulator(backend);
  });
  afterAll(() => emu?.stop());
  const { owner } = jsonCalls(() => emu);

  let n = 0;
  /** A product in a collection of its own: their ids. */
  const productInCollection = async () => {
    const product = await owner('POST', '/stores/v1/products', {
      product: { name: `Meeting ${++n}`, productType: 'physical', priceData: { price: 3 } },
    });
    const collection = await owner('POST', '/stores/v1/collections', {
      collection: { name: `Meeting ${n}` },
    });
    expect([product.status, collection.status]).toEqual([200, 200]);
    const ids = {
      product: product.body.product.id as string,
      collection: collection.body.collection.id as string,
    };
    const added = await owner('POST', `/stores/v1/collections/${ids.collection}/productIds`, {
      productIds: [ids.product],
    });
    expect(added.status).toBe(200);
    return ids;
  };

  it('deletes a collection and its product at once, both', async () => {
    for (let round = 0; round < 12; round++) {
      const ids = await productInCollection();
      const answers = await Promise.all([
        owner('DELETE', `/stores/v1/collections/${ids.collection}`),
        owner('DELETE', `/stores/v1/products/${ids.product}`),
      ]);
      expect(
        answers.map((a) => a.status),
        JSON.stringify(answers.map((a) => a.body)),
      ).toEqual([200, 200]);
      expect((await owner('GET', `/stores-reader/v1/products/${ids.product}`)).status).toBe(404);
      expect((await owner('GET', `/v2/collections/${ids.collection}`)).status).toBe(404);
    }
  });

  if (backend === 'postgres')
    it('answers a transaction ended by a deadlock with a retryable 503, nothing written', async () => {
      const ids = await productInCollection();
      const other = new pg.Client({ connectionString: process.env.SHOPKIT_TEST_DATABASE_URL });
      await other.connect();
      try {
        await other.query(`SET search_path = "${emu.schema}"`);
        // This session never looks for the deadlock itself: the emulator's transaction is the one ended.
        await other.query(`SET deadlock_timeout = '60s'`);
        await other.query('BEGIN');
        await other.query('SELECT id FROM products WHERE id = $1 FOR UPDATE', [ids.product]);
        // The collection's deletion locks the collection, then waits for its product.
        const deletion = owner('DELETE', `/stores/v1/collections/${ids.collection}`);
        for (let waiting = false; !waiting; ) {
          await new Promise((r) => setTimeout(r, 20));
          const rows = await other.query(
            `SELECT 1 FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock'`,
            [`shopkit-emulator:${emu.schema}`],
          );
          waiting = rows.rowCount! > 0;
        }
        // And now this session waits for the collection: a cycle, which PostgreSQL ends.
        await other.query('SELECT id FROM collections WHERE id = $1 FOR UPDATE', [ids.collection]);
        const res = await deletion;
        await other.query('ROLLBACK');
        expect(res.status).toBe(503);
        expect(res.headers.get('retry-after')).toBe('1');
        expect(res.body).toMatchObject({
          message: 'Service unavailable',
          details: {
            applicationError: { code: 'UNAVAILABLE', description: expect.stringMatching(/sent again/) },
          },
        });
        expect(JSON.stringify(res.body)).not.toMatch(/deadlock|40P01/);
        // Nothing written: the collection and the membership are there, and the deletion goes through again.
        const kept = await owner('GET', `/stores-reader/v1/products/${ids.product}`);
        expect(kept.body.product.collectionIds).toContain(ids.collection);
        expect((await owner('DELETE', `/stores/v1/collections/${ids.collection}`)).status).toBe(200);
      } finally {
        await other.end();
      }
    });
});
