/**
 * `adjustInventory`, the stock change an order makes in its own transaction: all or nothing,
 * tracked variants only, out of stock at zero, one ProductChanged per changed product.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmulator, type EmulatorInstance } from '../../app.ts';
import { DEFAULT_VARIANT_ID, productStock } from './model.ts';
import { demoProductId } from './seed.ts';
import { loadProduct } from './store.ts';
import { adjustInventory, type InventoryChange } from './writes.ts';

describe('adjustInventory', () => {
  let inst: EmulatorInstance;
  beforeAll(async () => {
    inst = await createEmulator({ log: () => {} });
  });
  afterAll(() => inst?.close());

  const plate = demoProductId('dinner-plate'); // tracked, 40, no options
  const skillet = demoProductId('cast-iron-skillet'); // tracked, 12 / 7 / 0 by size
  const towels = demoProductId('linen-tea-towels'); // in-stock flag only
  const mug = demoProductId('stoneware-mug'); // in-stock flag only, Charcoal sold out
  const adjust = (changes: InventoryChange[]) =>
    inst.emu.db.tx((sql) => adjustInventory(inst.emu, sql, changes));
  const load = async (id: string) => (await loadProduct(inst.emu.db, id))!;
  const variant = async (id: string, size: string) =>
    (await load(id)).variants.find((v) => v.choices.Size === size)!;
  const columns = (id: string) =>
    inst.emu.db.query(
      'SELECT id, in_stock, quantity FROM product_variants WHERE product_id = $1 ORDER BY id',
      [id],
    );
  const events = async () =>
    (await inst.emu.db.query<{ n: number }>('SELECT count(*)::int AS n FROM events'))[0]!.n;

  it('writes nothing and returns the shortages when a summed change exceeds a tracked stock', async () => {
    const before = {
      plate: await load(plate),
      skillet: await load(skillet),
      plateRows: await columns(plate),
    };
    const n = await events();
    const small = (await variant(skillet, '20 cm')).id;
    const short = await adjust([
      { productId: skillet, variantId: small, delta: -2 },
      { productId: plate, variantId: DEFAULT_VARIANT_ID, delta: -25 },
      { productId: plate, variantId: DEFAULT_VARIANT_ID, delta: -25 },
      { productId: 'no-such-product', variantId: DEFAULT_VARIANT_ID, delta: -1 },
      { productId: skillet, variantId: 'no-such-variant', delta: -1 },
    ]);
    expect(short).toEqual(
      [
        {
          productId: skillet,
          variantId: 'no-such-variant',
          name: 'Cast Iron Skillet',
          available: 0,
          requested: 1,
        },
        {
          productId: plate,
          variantId: DEFAULT_VARIANT_ID,
          name: 'Stoneware Dinner Plate',
          available: 40,
          requested: 50,
        },
        {
          productId: 'no-such-product',
          variantId: DEFAULT_VARIANT_ID,
          name: 'no-such-product',
          available: 0,
          requested: 1,
        },
      ].sort((a, b) => (a.productId < b.productId ? -1 : 1)),
    );
    expect(await load(plate)).toEqual(before.plate);
    expect(await load(skillet)).toEqual(before.skillet);
    expect(await columns(plate)).toEqual(before.plateRows);
    expect(await events()).toBe(n);
  });

  it('moves tracked quantities (out of stock at zero), leaves in-stock flags alone, one change per product', async () => {
    const towelsBefore = await load(towels);
    const mugBefore = await load(mug);
    const first = (
      await inst.emu.db.query<{ seq: number }>('SELECT coalesce(max(seq), 0) AS seq FROM events')
    )[0]!.seq;
    const short = await adjust([
      { productId: plate, variantId: DEFAULT_VARIANT_ID, delta: -30 },
      { productId: plate, variantId: DEFAULT_VARIANT_ID, delta: -10 },
      { productId: skillet, variantId: (await variant(skillet, '26 cm')).id, delta: -7 },
      { productId: skillet, variantId: (await variant(skillet, '30 cm')).id, delta: 3 },
      { productId: towels, variantId: DEFAULT_VARIANT_ID, delta: -5 },
      { productId: mug, variantId: mugBefore.variants[0]!.id, delta: -1 },
    ]);
    expect(short).toEqual([]);
    const p = await load(plate);
    expect(p.variants).toMatchObject([{ id: DEFAULT_VARIANT_ID, quantity: 0, inStock: false }]);
    expect(await columns(plate)).toEqual([{ id: DEFAULT_VARIANT_ID, in_stock: false, quantity: 0 }]);
    expect(await variant(skillet, '20 cm')).toMatchObject({ quantity: 12, inStock: true });
    expect(await variant(skillet, '26 cm')).toMatchObject({ quantity: 0, inStock: false });
    expect(await variant(skillet, '30 cm')).toMatchObject({ quantity: 3, inStock: true });
    expect(await load(towels)).toEqual(towelsBefore);
    expect(await load(mug)).toEqual(mugBefore);

    const after = await inst.emu.db.query<{ type: string; entity_id: string; entity: any }>(
      'SELECT type, entity_id, entity FROM events WHERE seq > $1 ORDER BY seq',
      [first],
    );
    // Per product, its variants whose stock moved, then the product.
    expect(after.map((e) => [e.type, e.entity_id])).toEqual(
      [plate, skillet].sort().flatMap((id) => [
        ['com.wix.ecommerce.catalog.api.v1.VariantsChanged', id],
        ['com.wix.ecommerce.catalog.api.v1.ProductChanged', id],
      ]),
    );
    const moved = after
      .filter((e) => e.type.endsWith('VariantsChanged') && e.entity_id === skillet)
      .flatMap((e) => e.entity.variants.map((v: any) => [v.choices, v.changedFields]));
    expect(moved).toEqual([
      [{ Size: '26 cm' }, ['stock']],
      [{ Size: '30 cm' }, ['stock']],
    ]);
    // The products' stock follows from their variants.
    expect(productStock(await load(plate))).toEqual({
      trackInventory: true,
      quantity: 0,
      inStock: false,
      inventoryStatus: 'OUT_OF_STOCK',
    });
    expect(productStock(await load(skillet))).toEqual({
      trackInventory: true,
      quantity: 15,
      inStock: true,
      inventoryStatus: 'PARTIALLY_OUT_OF_STOCK',
    });
    // Each event names what the order changed: the stock, of the product and of its variants.
    for (const e of after.filter((e) => e.type.endsWith('ProductChanged')))
      expect(e.entity).toEqual({
        productId: e.entity_id,
        changedFields: expect.arrayContaining(['lastUpdated', 'stock', 'variants']),
        originatedFromVersion: 'V1_CATALOG',
      });
    expect(
      after.find((e) => e.entity_id === plate && e.type.endsWith('ProductChanged'))!.entity.changedFields,
    ).not.toContain('name');
  });
});
