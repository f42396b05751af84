/**
 * Catalog defects of the seventh audit, as a merchant over raw HTTP on each storage: a cost or
 * weight adjusted for a product that had none was answered as a success and stored nothing; a
 * `stock.quantity` for a product that does not track inventory was dropped with a 200; a write that
 * changed nothing moved `lastUpdated` and sent a `ProductChanged` naming only it; a partial
 * `productDimensions` or `packageDimensions` replaced the whole stored object; a collection PATCH
 * that changed nothing moved its `lastUpdated` and sent a `CollectionChanged`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator, testBackends } from '../src/testing.ts';
import { jsonCalls } from './http.ts';

const W = '/stores/v1';
const R = '/stores-reader/v1';

describe.each(testBackends())('catalog audit 7 (%s)', (backend) => {
  let emu: TestEmulator;
  beforeAll(async () => {
    emu = await startTestEmulator(backend);
  });
  afterAll(() => emu?.stop());
  const { owner } = jsonCalls(() => emu);
  /** A product as the merchant reads it, cost and profit included. */
  const read = async (id: string) =>
    (await owner('GET', `${R}/products/${id}?includeMerchantSpecificData=true`)).body.product;
  /** The events recorded for an entity, oldest first: the type's last part and the payload. */
  const events = async (id: string) =>
    (
      await emu.emu.db.query<{ type: string; entity: any }>(
        'SELECT type, entity FROM events WHERE entity_id = $1 ORDER BY seq',
        [id],
      )
    ).map((e) => ({ type: e.type.split('.').pop(), entity: e.entity }));
  /** The product's stored row time: what a write that stores anything moves. */
  const updatedAt = async (id: string) =>
    String(
      (
        await emu.emu.db.query<{ t: string }>('SELECT updated_at::text AS t FROM products WHERE id = $1', [
          id,
        ])
      )[0]?.t,
    );
  /** A moment, so that a write that stores anything stores another time. */
  const tick = () => new Promise((r) => setTimeout(r, 5));
  async function product(name: string, extra: object = {}) {
    const created = await owner('POST', `${W}/products`, {
      product: { name, productType: 'physical', priceData: { price: 20 }, ...extra },
    });
    expect(created.status).toBe(200);
    return created.body.product.id as string;
  }

  it('fails the item of a product without the cost or weight adjusted, and stores nothing for it', async () => {
    const bare = await product('Audit7 bare');
    const full = await product('Audit7 full', { weight: 2, costAndProfitData: { itemCost: 4 } });
    for (const [field, adjust] of [
      ['cost', { amount: 1 }],
      ['cost', { percentage: { rate: 10 } }],
      ['weight', { amount: 0.5 }],
      ['weight', { percentage: { rate: 10, roundToInt: true } }],
    ] as const) {
      const was = await read(bare);
      const before = (await events(bare)).length;
      const stamp = await updatedAt(bare);
      await tick();
      const r = await owner('POST', `${W}/bulk/products/adjust-properties`, {
        adjust: { [field]: adjust },
        ids: [bare, full],
      });
      expect(r.status).toBe(200);
      expect(r.body.results.map((x: any) => x.itemMetadata)).toEqual([
        {
          id: bare,
          originalIndex: 0,
          success: false,
          error: {
            code: 'VALUE_NOT_SET',
            description: `Product ${bare} has no ${field} to adjust: set one first`,
            data: { productId: bare },
          },
        },
        { id: full, originalIndex: 1, success: true },
      ]);
      expect(r.body.bulkActionMetadata).toEqual({
        totalSuccesses: 1,
        totalFailures: 1,
        undetailedFailures: 0,
      });
      expect(await read(bare)).toEqual(was);
      expect(await updatedAt(bare)).toBe(stamp);
      expect(await events(bare)).toHaveLength(before);
    }
    const after = await read(full);
    expect(after.costAndProfitData.itemCost).toBe(5.5);
    expect(after.weight).toBe(3);
    // A variant's own cost is a value to adjust, though the product has none.
    const sized = await product('Audit7 sized', {
      productOptions: [{ name: 'Size', choices: [{ description: 'S' }, { description: 'M' }] }],
    });
    expect(
      (
        await owner('PATCH', `${W}/products/${sized}/variants`, {
          variants: [{ choices: { Size: 'S' }, cost: 3 }],
        })
      ).status,
    ).toBe(200);
    const r = await owner('POST', `${W}/bulk/products/adjust-properties`, {
      adjust: { cost: { amount: 1 } },
      ids: [sized],
    });
    expect(r.body.results[0].itemMetadata).toEqual({ id: sized, originalIndex: 0, success: true });
    const costs = (await read(sized)).variants.map((v: any) => v.variant.costAndProfitData?.itemCost);
    expect(costs).toEqual([4, undefined]);
  });

  it('refuses a stock quantity for a product that does not track inventory, and writes nothing', async () => {
    const violation = {
      field: 'product.stock.quantity',
      description:
        'can only be set for a product that tracks inventory: send stock.trackInventory true with it',
    };
    const c = await owner('POST', `${W}/products`, {
      product: {
        name: 'Audit7 untracked new',
        productType: 'physical',
        priceData: { price: 5 },
        stock: { quantity: 5 },
      },
    });
    expect(c.status).toBe(400);
    expect(c.body.details.validationError.fieldViolations).toEqual([expect.objectContaining(violation)]);
    expect(
      await emu.emu.db.query('SELECT 1 FROM products WHERE name = $1', ['Audit7 untracked new']),
    ).toHaveLength(0);

    const untracked = await product('Audit7 untracked');
    const tracked = await product('Audit7 tracked', { stock: { trackInventory: true, quantity: 3 } });
    for (const [id, stock] of [
      [untracked, { quantity: 5 }],
      [untracked, { trackInventory: false, quantity: 5 }],
      // Tracking turned off: the quantity would be dropped as well.
      [tracked, { trackInventory: false, quantity: 5 }],
    ] as const) {
      const was = await read(id);
      const before = (await events(id)).length;
      const r = await owner('PATCH', `${W}/products/${id}`, { product: { name: 'Audit7 renamed', stock } });
      expect(r.status).toBe(400);
      expect(r.body.details.validationError.fieldViolations).toEqual([expect.objectContaining(violation)]);
      expect(await read(id)).toEqual(was);
      expect(await events(id)).toHaveLength(before);
    }
    // With tracking turned on, the quantity is set.
    const on = await owner('PATCH', `${W}/products/${untracked}`, {
      product: { stock: { trackInventory: true, quantity: 5 } },
    });
    expect(on.status).toBe(200);
    expect(on.body.product.stock).toMatchObject({ trackInventory: true, quantity: 5 });
  });

  it('records nothing and keeps lastUpdated for a product write that changes nothing', async () => {
    const id = await product('Audit7 still', { ribbon: 'New', weight: 1 });
    const was = await read(id);
    const before = (await events(id)).length;
    await tick();
    const writes: [string, string, object][] = [
      ['PATCH', `${W}/products/${id}`, { product: { name: 'Audit7 still', ribbon: 'New' } }],
      ['PATCH', `${W}/products/${id}`, { product: { stock: was.stock, priceData: was.priceData } }],
      ['POST', `${W}/bulk/products/update`, { ids: [id], set: { weight: 1 } }],
      ['POST', `${W}/bulk/products/adjust-properties`, { ids: [id], adjust: { price: { amount: 0 } } }],
      ['POST', `${W}/products/${id}/remove-brand`, {}],
      ['DELETE', `${W}/products/${id}/options`, {}],
    ];
    for (const [method, path, body] of writes) {
      const r = await owner(method, path, body);
      expect(r.status).toBe(200);
      if (r.body.results) expect(r.body.results[0].itemMetadata.success).toBe(true);
    }
    expect(await events(id)).toHaveLength(before);
    expect((await read(id)).lastUpdated).toBe(was.lastUpdated);
    // A write that changes something is still told, with what it changed.
    const r = await owner('PATCH', `${W}/products/${id}`, { product: { ribbon: 'Sale' } });
    expect(r.body.product.lastUpdated).not.toBe(was.lastUpdated);
    const after = (await events(id)).slice(before);
    expect(after.map((e) => [e.type, e.entity.changedFields])).toEqual([
      ['ProductChanged', ['lastUpdated', 'ribbon', 'ribbons']],
    ]);
  });

  it('keeps the dimensions a PATCH does not name, as it keeps the rest of the stock', async () => {
    const dims = { length: 10, width: 20, height: 30, unit: 'CM' };
    const id = await product('Audit7 boxed', {
      productDimensions: dims,
      packageDimensions: dims,
      productOptions: [{ name: 'Size', choices: [{ description: 'S' }, { description: 'M' }] }],
    });
    const r = await owner('PATCH', `${W}/products/${id}`, {
      product: { productDimensions: { length: 5 }, packageDimensions: { unit: 'IN' } },
    });
    expect(r.status).toBe(200);
    const got = await read(id);
    expect(got.productDimensions).toEqual({ length: '5', width: '20', height: '30', unit: 'CM' });
    expect(got.packageDimensions).toEqual({ length: '10', width: '20', height: '30', unit: 'IN' });
    // A variant's partial dimensions are over its own; one without any starts them from those given.
    const v = await owner('PATCH', `${W}/products/${id}/variants`, {
      variants: [
        { choices: { Size: 'S' }, productDimensions: { length: 1, width: 2, height: 3, unit: 'MM' } },
      ],
    });
    expect(v.status).toBe(200);
    const again = await owner('PATCH', `${W}/products/${id}/variants`, {
      variants: [{ choices: { Size: 'S' }, productDimensions: { width: 7 } }],
    });
    expect(again.status).toBe(200);
    expect(again.body.variants[0].variant.productDimensions).toEqual({
      length: '1',
      width: '7',
      height: '3',
      unit: 'MM',
    });
    const fresh = await owner('PATCH', `${W}/products/${id}/variants`, {
      variants: [{ choices: { Size: 'M' }, packageDimensions: { height: 4 } }],
    });
    expect(fresh.body.variants[0].variant.packageDimensions).toEqual({
      height: '4',
      unit: 'UNKNOWN_DIMENSIONS_UNIT',
    });
    // With no dimensions before, those not given stay absent and the unit is the unknown one.
    const bare = await product('Audit7 unboxed');
    const b = await owner('PATCH', `${W}/products/${bare}`, {
      product: { productDimensions: { length: 2 } },
    });
    expect(b.body.product.productDimensions).toEqual({ length: '2', unit: 'UNKNOWN_DIMENSIONS_UNIT' });
  });

  it('records nothing and keeps lastUpdated for a collection PATCH that changes nothing', async () => {
    const made = await owner('POST', `${W}/collections`, {
      collection: { name: 'Audit7 shelf', description: 'Plates', visible: true },
    });
    expect(made.status).toBe(200);
    const was = made.body.collection;
    const before = (await events(was.id)).length;
    await tick();
    const same = await owner('PATCH', `${W}/collections/${was.id}`, {
      collection: { id: was.id, name: was.name, description: was.description, slug: was.slug, visible: true },
    });
    expect(same.status).toBe(200);
    expect(same.body.collection).toEqual(was);
    expect(await events(was.id)).toHaveLength(before);
    // A PATCH that changes something is told, with what it changed, and moves the time.
    const renamed = await owner('PATCH', `${W}/collections/${was.id}`, {
      collection: { id: was.id, name: 'Audit7 shelf 2' },
    });
    expect(renamed.body.collection.lastUpdated).not.toBe(was.lastUpdated);
    const after = (await events(was.id)).slice(before);
    expect(after.map((e) => [e.type, e.entity.changedFields])).toEqual([
      ['CollectionChanged', ['lastUpdated', 'name']],
    ]);
  });
});
