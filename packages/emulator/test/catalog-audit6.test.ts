/**
 * Catalog defects of the sixth audit, as a merchant over raw HTTP on each storage: a PATCH whose
 * `product` or `collection` was no object was taken as an empty change (200, and an event); a value
 * sent back as it was read was named as changed (stored keys come back in another order), with a
 * `VariantsChanged` for no changed variant; writes that changed nothing (a member added again, a
 * product removed that was no member, a reset of variants without overrides) moved `lastUpdated`
 * and sent events; a quantity sent alone that equalled the product's total was dropped; a collection
 * sent back as read stored the emulator's own origin in its image URL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator, testBackends } from '../src/testing.ts';
import { jsonCalls } from './http.ts';

const W = '/stores/v1';
const R = '/stores-reader/v1';

describe.each(testBackends())('catalog audit 6 (%s)', (backend) => {
  let emu: TestEmulator;
  beforeAll(async () => {
    emu = await startTestEmulator(backend);
  });
  afterAll(() => emu?.stop());
  const { owner } = jsonCalls(() => emu);
  const read = async (id: string) => (await owner('GET', `${R}/products/${id}`)).body.product;
  /** The events recorded for an entity, oldest first: the type's last part and the payload. */
  const events = async (id: string) =>
    (
      await emu.emu.db.query<{ type: string; entity: any }>(
        'SELECT type, entity FROM events WHERE entity_id = $1 ORDER BY seq',
        [id],
      )
    ).map((e) => ({ type: e.type.split('.').pop(), entity: e.entity }));
  async function product(name: string, extra: object = {}) {
    const created = await owner('POST', `${W}/products`, {
      product: { name, productType: 'physical', priceData: { price: 20 }, ...extra },
    });
    expect(created.status).toBe(200);
    return created.body.product.id as string;
  }

  it('refuses a PATCH whose product or collection is not an object, and records nothing', async () => {
    const id = await product('Audit6 not an object');
    const before = (await events(id)).length;
    for (const body of ['garbage', [1, 2], null]) {
      const r = await owner('PATCH', `${W}/products/${id}`, { product: body });
      expect(r.status).toBe(400);
      expect(r.body.details.validationError.fieldViolations).toEqual([
        expect.objectContaining({ field: 'product', description: 'must be an object' }),
      ]);
    }
    expect(await events(id)).toHaveLength(before);
    const c = await owner('PATCH', `${W}/collections/col-sale`, { collection: 7 });
    expect(c.status).toBe(400);
    expect(c.body.details.validationError.fieldViolations[0].field).toBe('collection');
  });

  it('names no field as changed, and sends no VariantsChanged, for values sent back as read', async () => {
    const id = await product('Audit6 echo', {
      pricePerUnitData: {
        totalQuantity: 1,
        totalMeasurementUnit: 'KG',
        baseQuantity: 100,
        baseMeasurementUnit: 'G',
      },
      productDimensions: { length: 10, width: 20, height: 30, unit: 'CM' },
    });
    const was = await read(id);
    const before = (await events(id)).length;
    const r = await owner('PATCH', `${W}/products/${id}`, {
      product: { pricePerUnitData: was.pricePerUnitData, productDimensions: was.productDimensions },
    });
    expect(r.status).toBe(200);
    // Nothing changed, so nothing is told (audit 7: no `ProductChanged` naming only `lastUpdated`).
    expect((await events(id)).slice(before)).toEqual([]);
  });

  it('sends nothing and keeps lastUpdated for a member added again or a product removed that was none', async () => {
    const member = await product('Audit6 member');
    const outsider = await product('Audit6 outsider');
    expect(
      (await owner('POST', `${W}/collections/col-sale/productIds`, { productIds: [member] })).status,
    ).toBe(200);
    const was = (await owner('GET', '/v2/collections/col-sale')).body.collection;
    const before = (await events('col-sale')).length;
    const memberEvents = (await events(member)).length;
    expect(
      (await owner('POST', `${W}/collections/col-sale/productIds`, { productIds: [member] })).status,
    ).toBe(200);
    expect(
      (await owner('POST', `${W}/collections/col-sale/productIds/delete`, { productIds: [outsider] })).status,
    ).toBe(200);
    expect(await events('col-sale')).toHaveLength(before);
    expect(await events(member)).toHaveLength(memberEvents);
    expect((await owner('GET', '/v2/collections/col-sale')).body.collection.lastUpdated).toBe(
      was.lastUpdated,
    );
  });

  it('sends no VariantsChanged for a reset of variants that have no overrides', async () => {
    const id = await product('Audit6 plain');
    const before = (await events(id)).length;
    expect((await owner('POST', `${W}/products/${id}/variants/resetToDefault`, {})).status).toBe(200);
    expect((await events(id)).slice(before).map((e) => e.type)).not.toContain('VariantsChanged');
  });

  it("sets each variant's quantity when one is sent alone, even one equal to the product's total", async () => {
    const sizes = (n: number) => ({
      productOptions: [
        { name: 'Size', choices: ['S', 'M', 'L', 'XL'].slice(0, n).map((d) => ({ description: d })) },
      ],
    });
    const id = await product('Audit6 stock', { stock: { trackInventory: true, quantity: 7 }, ...sizes(3) });
    // A fourth size comes with 0 units: 7, 7, 7 and 0, which reads 21.
    expect((await owner('PATCH', `${W}/products/${id}`, { product: sizes(4) })).status).toBe(200);
    expect((await read(id)).stock.quantity).toBe(21);
    expect(
      (await owner('PATCH', `${W}/products/${id}`, { product: { stock: { quantity: 21 } } })).status,
    ).toBe(200);
    expect((await read(id)).variants.map((v: any) => v.stock.quantity)).toEqual([21, 21, 21, 21]);
    // Sent back with the rest of the stock it was read with, the total leaves each as it is.
    const echoed = (await read(id)).stock;
    expect(
      (await owner('PATCH', `${W}/products/${id}`, { product: { name: 'Audit6 stock 2', stock: echoed } }))
        .status,
    ).toBe(200);
    expect((await read(id)).variants.map((v: any) => v.stock.quantity)).toEqual([21, 21, 21, 21]);
  });

  it("keeps a collection's own image as a path when the collection is sent back as read", async () => {
    const was = (await owner('GET', '/v2/collections/col-kitchen')).body.collection;
    expect(was.media.mainMedia.image.url).toBe(`${emu.url}/media/collection-kitchen.svg`);
    expect((await owner('PATCH', `${W}/collections/col-kitchen`, { collection: was })).status).toBe(200);
    const [row] = await emu.emu.db.query<{ doc: any }>('SELECT doc FROM collections WHERE id = $1', [
      'col-kitchen',
    ]);
    expect(row!.doc.media.mainMedia.image.url).toBe('/media/collection-kitchen.svg');
    // A URL of another site is kept as it is.
    const elsewhere = 'https://images.example.test/kitchen.png';
    const patch = { collection: { media: { mainMedia: { image: { url: elsewhere } } } } };
    expect((await owner('PATCH', `${W}/collections/col-kitchen`, patch)).status).toBe(200);
    const [after] = await emu.emu.db.query<{ doc: any }>('SELECT doc FROM collections WHERE id = $1', [
      'col-kitchen',
    ]);
    expect(after!.doc.media.mainMedia.image.url).toBe(elsewhere);
  });
});
