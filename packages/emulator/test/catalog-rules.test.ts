/**
 * Rules of the catalog's writes that hold across calls, over raw HTTP: no value a bulk call stores
 * is one its field's input refuses (999 999 999.99 at most), a bulk item fails alone, each product
 * is named once in a bulk call; concurrent creates of one name get slugs of their own; a product
 * deleted while it joins or leaves a collection stays deleted, with no membership and no change
 * after its deletion.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadProduct } from '../src/domains/catalog/store.ts';
import { startTestEmulator, type TestEmulator, testBackends } from '../src/testing.ts';
import { jsonCalls } from './http.ts';

const BULK_ADJUST = '/stores/v1/bulk/products/adjust-properties';
const BULK_UPDATE = '/stores/v1/bulk/products/update';

describe.each(testBackends())('catalog rules (%s)', (backend) => {
  let emu: TestEmulator;
  beforeAll(async () => {
    emu = await startTestEmulator(backend);
  });
  afterAll(() => emu?.stop());

  const { owner } = jsonCalls(() => emu);
  let n = 0;
  /** Creates a product (a unique name unless given) and returns its id. */
  const create = async (fields: Record<string, unknown> = {}) => {
    const res = await owner('POST', '/stores/v1/products', {
      product: { name: `Rule product ${++n}`, productType: 'physical', priceData: { price: 10 }, ...fields },
    });
    expect(res.status).toBe(200);
    return res.body.product.id as string;
  };
  const load = async (id: string) => (await loadProduct(emu.emu.db, id))!;
  const failure = (body: any, i: number) => body.results[i].itemMetadata;

  describe('bulk calls', () => {
    it('refuses an adjustment above the maximum as a failed item, and writes the other items', async () => {
      const dear = await create({ priceData: { price: 999_999_999.99 } });
      const cheap = await create();
      const res = await owner('POST', BULK_ADJUST, {
        adjust: { price: { percentage: { rate: 10_000 } } },
        ids: [dear, cheap],
      });
      expect(res.status).toBe(200);
      expect(failure(res.body, 0)).toEqual({
        id: dear,
        originalIndex: 0,
        success: false,
        error: {
          code: 'VALUE_TOO_LARGE',
          description: `The price of product ${dear} would exceed 999999999.99`,
          data: { productId: dear, max: '999999999.99' },
        },
      });
      expect(failure(res.body, 1)).toEqual({ id: cheap, originalIndex: 1, success: true });
      expect(res.body.bulkActionMetadata).toEqual({
        totalSuccesses: 1,
        totalFailures: 1,
        undetailedFailures: 0,
      });
      expect((await load(dear)).price).toBe(99_999_999_999);
      expect((await load(cheap)).price).toBe(101_000);
      // Again: still a failed item (once stored, 1.01e11 overflowed the column: HTTP 500).
      const again = await owner('POST', BULK_ADJUST, {
        adjust: { price: { percentage: { rate: 10_000 } } },
        ids: [dear],
      });
      expect(again.status).toBe(200);
      expect(failure(again.body, 0).error.code).toBe('VALUE_TOO_LARGE');
    });

    it('refuses a weight or cost adjusted by an amount past the maximum; the product stays writable', async () => {
      const heavy = await create({ weight: 999_999_999.99, costAndProfitData: { itemCost: 999_999_999.99 } });
      for (const field of ['weight', 'cost']) {
        const res = await owner('POST', BULK_ADJUST, {
          adjust: { [field]: { amount: 999_999_999 } },
          ids: [heavy],
        });
        expect(res.status).toBe(200);
        expect(failure(res.body, 0)).toMatchObject({
          success: false,
          error: { code: 'VALUE_TOO_LARGE', data: { productId: heavy, max: '999999999.99' } },
        });
      }
      const p = await load(heavy);
      expect([p.weight, p.cost]).toEqual([999_999_999_990, 99_999_999_999]);
      const patched = await owner('PATCH', `/stores/v1/products/${heavy}`, {
        product: { id: heavy, weight: p.weight! / 1000, ribbon: 'Heavy' },
      });
      expect(patched.status).toBe(200);
    });

    it('takes prices and costs up to 999999999.99, as the README says and the columns hold', async () => {
      await create({ priceData: { price: 999_999_999.99 }, costAndProfitData: { itemCost: 999_999_999.99 } });
      const over = await owner('POST', '/stores/v1/products', {
        product: {
          name: 'Too dear',
          productType: 'physical',
          priceData: { price: 1_000_000_000 },
          costAndProfitData: { itemCost: 1_000_000_000 },
        },
      });
      expect(over.status).toBe(400);
      expect(over.body.details.validationError.fieldViolations).toEqual([
        expect.objectContaining({ field: 'product.priceData.price', violatedRule: 'MAX' }),
        expect.objectContaining({ field: 'product.costAndProfitData.itemCost', violatedRule: 'MAX' }),
      ]);
      const id = await create();
      const set = await owner('POST', BULK_UPDATE, { set: { price: 1_000_000_000 }, ids: [id] });
      expect(set.status).toBe(400);
      expect(set.body.details.validationError.fieldViolations[0]).toMatchObject({
        field: 'set.price',
        violatedRule: 'MAX',
        data: { max: 999_999_999.99 },
      });
    });

    it('fails one item alone on an unexpected error, writing the others', async () => {
      const [broken, fine] = [await create(), await create()];
      // A storage failure on one product only (a trigger stands in for any unforeseen error).
      await emu.emu.db.exec(`
        CREATE FUNCTION refuse_broken() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN RAISE EXCEPTION 'storage refused the row'; END $$;
        CREATE TRIGGER refuse_broken BEFORE UPDATE ON products
          FOR EACH ROW WHEN (OLD.id = '${broken}') EXECUTE FUNCTION refuse_broken();
      `);
      try {
        const res = await owner('POST', BULK_ADJUST, {
          adjust: { price: { amount: 1 } },
          ids: [broken, fine],
        });
        expect(res.status).toBe(200);
        expect(failure(res.body, 0)).toEqual({
          id: broken,
          originalIndex: 0,
          success: false,
          error: {
            code: 'INTERNAL_ERROR',
            description: `The product ${broken} could not be changed`,
            data: { productId: broken },
          },
        });
        expect(failure(res.body, 1)).toEqual({ id: fine, originalIndex: 1, success: true });
        expect((await load(broken)).price).toBe(1000);
        expect((await load(fine)).price).toBe(1100);
      } finally {
        await emu.emu.db.exec('DROP TRIGGER refuse_broken ON products; DROP FUNCTION refuse_broken();');
      }
    });

    it('refuses a product named twice, naming each repeat, and writes nothing', async () => {
      const id = await create();
      const other = await create();
      for (const [path, body] of [
        [BULK_ADJUST, { adjust: { price: { amount: 5 } } }],
        [BULK_UPDATE, { set: { price: 20 } }],
      ] as const) {
        const res = await owner('POST', path, { ...body, ids: [id, other, id, id] });
        expect(res.status).toBe(400);
        expect(res.body.details.validationError.fieldViolations).toEqual([
          { field: 'ids[2]', description: 'repeats ids[0]', violatedRule: 'VALIDATION', data: {} },
          { field: 'ids[3]', description: 'repeats ids[0]', violatedRule: 'VALIDATION', data: {} },
        ]);
      }
      expect((await load(id)).price).toBe(1000);
      expect((await load(other)).price).toBe(1000);
    });
  });

  describe('concurrent writes', () => {
    it('gives concurrent creates of one name slugs of their own: same, same-2, …', async () => {
      for (const [path, body] of [
        [
          '/stores/v1/products',
          { product: { name: 'Same', productType: 'physical', priceData: { price: 1 } } },
        ],
        ['/stores/v1/collections', { collection: { name: 'Same' } }],
      ] as const) {
        const all = await Promise.all(Array.from({ length: 6 }, () => owner('POST', path, body)));
        expect(all.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200]);
        const slugs = all.map((r) => (r.body.product ?? r.body.collection).slug).sort();
        expect(slugs).toEqual(['same', 'same-2', 'same-3', 'same-4', 'same-5', 'same-6']);
      }
      // A slug the caller gives must still be free.
      const taken = await owner('POST', '/stores/v1/collections', {
        collection: { name: 'X', slug: 'same' },
      });
      expect(taken.status).toBe(400);
      expect(taken.body.details.validationError.fieldViolations[0].field).toBe('collection.slug');
    });

    /**
     * Runs `during` while the product's deletion (DELETE /stores/v1/products/{id}) has removed the
     * product but not committed: on PostgreSQL a second connection holds a lock on one of its
     * memberships (in `held`), which the deletion must remove too. On PGlite, calls run one at a
     * time: the deletion simply runs first. Returns what `during` returns once both are done.
     */
    async function whileDeleting<T>(id: string, held: string, during: () => Promise<T>): Promise<T> {
      if (backend !== 'postgres') {
        const [, out] = await Promise.all([owner('DELETE', `/stores/v1/products/${id}`), during()]);
        return out;
      }
      const { default: pg } = await import('pg');
      const client = new pg.Client({
        connectionString: process.env.SHOPKIT_TEST_DATABASE_URL,
        options: `-c search_path="${emu.schema}"`,
      });
      await client.connect();
      /** Waits (up to 5 s) until `count` of the emulator's connections wait for a lock, or `done()`. */
      const waiting = async (count: number, done = () => false) => {
        for (let i = 0; i < 500 && !done(); i++) {
          const { rows } = await client.query(
            "SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock'",
            [`shopkit-emulator:${emu.schema}`],
          );
          if (rows[0].n >= count) return;
          await new Promise((r) => setTimeout(r, 10));
        }
      };
      try {
        await client.query('BEGIN');
        await client.query(
          'SELECT 1 FROM collection_products WHERE collection_id = $1 AND product_id = $2 FOR UPDATE',
          [held, id],
        );
        const deleted = owner('DELETE', `/stores/v1/products/${id}`);
        await waiting(1);
        let settled = false;
        const out = during().finally(() => {
          settled = true;
        });
        // The call either finishes while the deletion is pending, or waits for it.
        await waiting(2, () => settled);
        await client.query('COMMIT');
        expect((await deleted).status).toBe(200);
        return await out;
      } finally {
        await client.end();
      }
    }

    const collection = async (name: string) => {
      const res = await owner('POST', '/stores/v1/collections', { collection: { name } });
      expect(res.status).toBe(200);
      return res.body.collection.id as string;
    };
    const memberships = async (id: string) =>
      (
        await emu.emu.db.query<{ collection_id: string }>(
          'SELECT collection_id FROM collection_products WHERE product_id = $1',
          [id],
        )
      ).map((r) => r.collection_id);
    const events = async (id: string) =>
      (
        await emu.emu.db.query<{ type: string }>(
          'SELECT type FROM events WHERE entity_id = $1 ORDER BY seq',
          [id],
        )
      ).map((e) => e.type.split('.').pop());

    it('does not add a product being deleted to a collection', async () => {
      const [a, b] = [await collection(`Held ${++n}`), await collection(`Target ${++n}`)];
      const id = await create();
      expect(
        (await owner('POST', `/stores/v1/collections/${a}/productIds`, { productIds: [id] })).status,
      ).toBe(200);
      const added = await whileDeleting(id, a, () =>
        owner('POST', `/stores/v1/collections/${b}/productIds`, { productIds: [id] }),
      );
      expect(added.status).toBe(400);
      expect(added.body.details.validationError.fieldViolations[0]).toMatchObject({
        field: 'productIds[0]',
        description: 'is not a product of this store',
      });
      expect(await memberships(id)).toEqual([]);
      expect((await events(id)).at(-1)).toBe('ProductDeleted');
    });

    it('does not remove a product being deleted from a collection as if it were there', async () => {
      const [a, b] = [await collection(`Held ${++n}`), await collection(`Source ${++n}`)];
      const id = await create();
      expect(
        (await owner('POST', `/stores/v1/collections/${a}/productIds`, { productIds: [id] })).status,
      ).toBe(200);
      expect(
        (await owner('POST', `/stores/v1/collections/${b}/productIds`, { productIds: [id] })).status,
      ).toBe(200);
      const removed = await whileDeleting(id, a, () =>
        owner('POST', `/stores/v1/collections/${b}/productIds/delete`, { productIds: [id] }),
      );
      expect(removed.status).toBe(400);
      expect(await memberships(id)).toEqual([]);
      expect((await events(id)).at(-1)).toBe('ProductDeleted');
    });
  });
});
