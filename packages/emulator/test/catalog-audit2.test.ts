/**
 * Catalog leftovers of the audits, over raw HTTP on each storage: a product's creation or deletion
 * changes the counts of its collections and records `CollectionChanged` for each, as adding or
 * removing products does; a variant a new choice makes starts with no tracked units (it does not
 * copy another variant's), and an untracked product's new variant follows the product's in-stock
 * flag.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_PRODUCTS_COLLECTION_ID } from '../src/domains/catalog/store.ts';
import { startTestEmulator, type TestEmulator, testBackends } from '../src/testing.ts';
import { jsonCalls } from './http.ts';

const CHANGED = 'com.wix.ecommerce.catalog.api.v1.CollectionChanged';

describe.each(testBackends())('catalog audit 2 (%s)', (backend) => {
  let emu: TestEmulator;
  beforeAll(async () => {
    emu = await startTestEmulator(backend);
  });
  afterAll(() => emu?.stop());

  const { owner } = jsonCalls(() => emu);
  let n = 0;
  const create = async (fields: Record<string, unknown> = {}) => {
    const res = await owner('POST', '/stores/v1/products', {
      product: { name: `Audit product ${++n}`, productType: 'physical', priceData: { price: 10 }, ...fields },
    });
    expect(res.status).toBe(200);
    return res.body.product;
  };
  const collection = async () => {
    const res = await owner('POST', '/stores/v1/collections', { collection: { name: `Audit ${++n}` } });
    expect(res.status).toBe(200);
    return res.body.collection.id as string;
  };
  const count = async (id: string) =>
    (await owner('GET', `/v2/collections/${id}`)).body.collection.numberOfProducts as number;
  const lastSeq = async () =>
    Number((await emu.emu.db.query<{ s: string }>('SELECT coalesce(max(seq), 0) AS s FROM events'))[0]!.s);
  /** The events recorded after `seq`, in order: type's last part, entity id and payload. */
  const eventsAfter = async (seq: number) =>
    (
      await emu.emu.db.query<{ type: string; entity_id: string; entity: any }>(
        'SELECT type, entity_id, entity FROM events WHERE seq > $1 ORDER BY seq',
        [seq],
      )
    ).map((e) => ({ type: e.type.split('.').pop(), id: e.entity_id, entity: e.entity }));

  describe('collection counts', () => {
    it("records CollectionChanged for All Products when a product's creation adds to its count", async () => {
      const before = await count(ALL_PRODUCTS_COLLECTION_ID);
      const seq = await lastSeq();
      const product = await create();
      expect(await count(ALL_PRODUCTS_COLLECTION_ID)).toBe(before + 1);
      const events = await eventsAfter(seq);
      expect(events.map((e) => [e.type, e.id])).toEqual([
        ['ProductCreated', product.id],
        ['CollectionChanged', ALL_PRODUCTS_COLLECTION_ID],
      ]);
      expect(events[1]!.entity).toEqual({
        collection_Id: ALL_PRODUCTS_COLLECTION_ID,
        changedFields: ['numberOfProducts'],
        originatedFromVersion: 'V1_CATALOG',
      });
    });

    it("records CollectionChanged for each of a deleted product's collections", async () => {
      const [a, b] = [await collection(), await collection()];
      const product = await create();
      for (const c of [a, b])
        expect(
          (await owner('POST', `/stores/v1/collections/${c}/productIds`, { productIds: [product.id] }))
            .status,
        ).toBe(200);
      const counts = [await count(a), await count(b), await count(ALL_PRODUCTS_COLLECTION_ID)];
      const seq = await lastSeq();
      expect((await owner('DELETE', `/stores/v1/products/${product.id}`)).status).toBe(200);
      expect([await count(a), await count(b), await count(ALL_PRODUCTS_COLLECTION_ID)]).toEqual(
        counts.map((c) => c - 1),
      );
      const events = await eventsAfter(seq);
      expect(events[0]).toMatchObject({ type: 'ProductDeleted', id: product.id });
      const changed = events.filter((e) => e.type === 'CollectionChanged');
      expect(changed.map((e) => e.id).sort()).toEqual([a, b, ALL_PRODUCTS_COLLECTION_ID].sort());
      for (const e of changed)
        expect(e.entity).toEqual({
          collection_Id: e.id,
          changedFields: ['numberOfProducts'],
          originatedFromVersion: 'V1_CATALOG',
        });
      expect(events).toHaveLength(4);
    });

    it('records no CollectionChanged for a product write that leaves every count as it was', async () => {
      const product = await create();
      const seq = await lastSeq();
      const res = await owner('PATCH', `/stores/v1/products/${product.id}`, {
        product: { id: product.id, visible: false },
      });
      expect(res.status).toBe(200);
      expect((await eventsAfter(seq)).map((e) => e.type)).not.toContain(CHANGED.split('.').pop());
    });
  });

  describe('new choices', () => {
    const variants = async (id: string) =>
      (await owner('POST', `/stores-reader/v1/products/${id}/variants/query`, {})).body.variants as any[];
    const size = (choices: string[]) => ({
      productOptions: [{ name: 'Size', choices: choices.map((description) => ({ description })) }],
    });

    it('gives the variants of a new choice no units of a tracked product', async () => {
      const product = await create({
        ...size(['S', 'M']),
        stock: { trackInventory: true, quantity: 5 },
      });
      const res = await owner('PATCH', `/stores/v1/products/${product.id}`, {
        product: { id: product.id, ...size(['S', 'M', 'L']) },
      });
      expect(res.status).toBe(200);
      expect(res.body.product.stock).toEqual({
        trackInventory: true,
        quantity: 10,
        inStock: true,
        inventoryStatus: 'PARTIALLY_OUT_OF_STOCK',
      });
      const stock = Object.fromEntries((await variants(product.id)).map((v) => [v.choices.Size, v.stock]));
      expect(stock).toEqual({
        S: { trackQuantity: true, quantity: 5, inStock: true },
        M: { trackQuantity: true, quantity: 5, inStock: true },
        L: { trackQuantity: true, quantity: 0, inStock: false },
      });
    });

    it("gives the variants of a new choice an untracked product's in-stock flag", async () => {
      for (const inStock of [true, false]) {
        const product = await create({ ...size(['S']), stock: { trackInventory: false, inStock } });
        const res = await owner('PATCH', `/stores/v1/products/${product.id}`, {
          product: { id: product.id, ...size(['S', 'M']) },
        });
        expect(res.status).toBe(200);
        for (const v of await variants(product.id))
          expect(v.stock).toEqual({ trackQuantity: false, inStock });
      }
    });
  });
});
