/**
 * Catalog defects of the fourth audit, through the SDK as a merchant on each storage: writes that
 * change a product's variants without going through the variants call (a bulk edit, the product's
 * stock or options) recorded no `VariantsChanged`, so a subscriber to it missed them; and a
 * product whose collections changed (added, removed, the collection deleted) kept its
 * `lastUpdated`, while its `ProductChanged` said it had changed; a product saved back with the
 * stock it read (the sum over its variants) gave that sum to each variant.
 */
import { ApiKeyStrategy, createClient, products } from '@shopkit/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PRODUCT_EVENTS } from '../src/domains/catalog/events.ts';
import { startTestEmulator, type TestEmulator, testBackends } from '../src/testing.ts';

describe.each(testBackends())('catalog audit 4 (%s)', (backend) => {
  let emu: TestEmulator;
  /** The emulator's clock, moved on by each `tick()`. */
  let time = Date.parse('2026-03-01T10:00:00Z');
  const tick = () => {
    time += 60_000;
  };
  beforeAll(async () => {
    emu = await startTestEmulator(backend, { now: () => new Date(time) });
  });
  afterAll(() => emu?.stop());
  const merchant = () =>
    createClient({
      baseUrl: emu.url,
      auth: ApiKeyStrategy({ apiKey: emu.demo.apiKey }),
      modules: { products },
    }).products;

  /** The events `write` records, as `[type, entity id, entity]`. */
  async function eventsOf(write: () => Promise<unknown>) {
    const [{ seq }] = (await emu.emu.db.query<{ seq: number }>(
      'SELECT coalesce(max(seq), 0)::int AS seq FROM events',
    )) as [{ seq: number }];
    await write();
    return emu.emu.db.query<{ type: string; entity_id: string; entity: any }>(
      'SELECT type, entity_id, entity FROM events WHERE seq > $1 ORDER BY seq',
      [seq],
    );
  }

  /** A product with sizes S and M, S priced apart. */
  async function sized() {
    const p = merchant();
    const { product } = await p.createProduct({
      name: 'Audit4 shirt',
      productType: 'physical',
      priceData: { price: 10 },
      productOptions: [{ name: 'Size', choices: [{ description: 'S' }, { description: 'M' }] }],
    });
    await p.updateProductVariants(product.id!, [{ choices: { Size: 'S' }, price: 20 }]);
    return product.id!;
  }

  it.each([
    [
      'a bulk price adjustment',
      (id: string) => merchant().bulkAdjustProductProperty({ price: { amount: 5 } }, [id]),
    ],
    ['a bulk price update', (id: string) => merchant().bulkUpdateProductsProperty([id], { price: 7 })],
    [
      "the product's stock",
      (id: string) => merchant().updateProduct(id, { stock: { trackInventory: true, quantity: 3 } }),
    ],
    [
      "the product's options (a size more)",
      (id: string) =>
        merchant().updateProduct(id, {
          productOptions: [
            { name: 'Size', choices: [{ description: 'S' }, { description: 'M' }, { description: 'L' }] },
          ],
        }),
    ],
  ])('records VariantsChanged for the variants %s changes, before ProductChanged', async (_, write) => {
    const id = await sized();
    const before = (await merchant().getProduct(id)).product.variants!;
    const events = (await eventsOf(() => write(id))).filter((e) => e.entity_id === id);
    expect(events.map((e) => e.type)).toEqual([PRODUCT_EVENTS.variantsChanged, PRODUCT_EVENTS.changed]);
    const after = (await merchant().getProduct(id)).product.variants!;
    // Exactly the variants that differ now (or are new), each with its choices.
    const differ = after.filter(
      (v) => JSON.stringify(v) !== JSON.stringify(before.find((b) => b.id === v.id)),
    );
    expect(differ.length).toBeGreaterThan(0);
    expect(events[0]!.entity.variants.map((v: any) => [v.variantId, v.choices])).toEqual(
      differ.map((v) => [v.id, v.choices]),
    );
  });

  it('records no VariantsChanged for a write that leaves the variants as they were', async () => {
    const id = await sized();
    const events = await eventsOf(() => merchant().updateProduct(id, { description: 'Linen.' }));
    expect(events.map((e) => e.type)).toEqual([PRODUCT_EVENTS.changed]);
  });

  it("keeps each variant's stock when a product is saved back with the stock it read", async () => {
    // The product reads the sum over its variants; written back, that sum was given to each variant,
    // so every read-and-save multiplied the stock (5 each, read 15, saved: 15 each, read 45).
    const p = merchant();
    const { product } = await p.createProduct({
      name: 'Audit4 socks',
      productType: 'physical',
      priceData: { price: 6 },
      productOptions: [
        { name: 'Size', choices: [{ description: 'S' }, { description: 'M' }, { description: 'L' }] },
      ],
      stock: { trackInventory: true, quantity: 5 },
    });
    const read = async () => (await p.getProduct(product.id!)).product;
    const units = async (r?: Awaited<ReturnType<typeof read>>) => {
      const got = r ?? (await read());
      return { total: got.stock?.quantity, each: got.variants!.map((v) => v.stock?.quantity) };
    };
    const before = await read();
    expect(await units(before)).toEqual({ total: 15, each: [5, 5, 5] });
    await p.updateProduct(product.id!, {
      name: 'Audit4 warm socks',
      stock: { trackInventory: before.stock!.trackInventory, quantity: before.stock!.quantity },
    });
    expect(await units()).toEqual({ total: 15, each: [5, 5, 5] });
    // Another quantity still sets each variant's.
    await p.updateProduct(product.id!, { stock: { quantity: 4 } });
    expect(await units()).toEqual({ total: 12, each: [4, 4, 4] });
  });

  it("moves a product's lastUpdated when its collections change, as its ProductChanged says", async () => {
    const p = merchant();
    const { product } = await p.createProduct({
      name: 'Audit4 mug',
      productType: 'physical',
      priceData: { price: 4 },
    });
    const { collection } = await p.createCollection({ name: 'Audit4 picks' });
    const lastUpdated = async () => (await p.getProduct(product.id!)).product.lastUpdated!.getTime();
    for (const write of [
      () => p.addProductsToCollection(collection.id!, [product.id!]),
      () => p.removeProductsFromCollection(collection.id!, [product.id!]),
      () => p.addProductsToCollection(collection.id!, [product.id!]),
      () => p.deleteCollection(collection.id!),
    ]) {
      tick();
      const events = await eventsOf(write);
      expect(await lastUpdated()).toBe(time);
      expect(events.find((e) => e.entity_id === product.id)?.entity.changedFields).toEqual([
        'collectionIds',
        'lastUpdated',
      ]);
    }
  });
});
