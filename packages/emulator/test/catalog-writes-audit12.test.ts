/**
 * The twelfth audit of the catalog's writes, as a merchant over raw HTTP on each storage: a
 * product's `seoData` took any number of tags of any size (bounded only by the 1 MB body); a
 * product read earlier and sent back whole set every variant's stock to the total it read, after
 * orders had taken units; a product without a description, read and sent back as it was, was
 * stored again and told as a `ProductChanged` naming only `lastUpdated`; deleting the options of a
 * product that had none turned `manageVariants` off over its variant's own price and SKU, so that
 * the product read "variants not managed" while its variant was charged at its own price.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_VARIANT_ID } from '../src/domains/catalog/model.ts';
import { adjustInventory } from '../src/domains/catalog/writes.ts';
import { startTestEmulator, type TestEmulator, testBackends } from '../src/testing.ts';
import { jsonCalls } from './http.ts';

const W = '/stores/v1';
const R = '/stores-reader/v1';

describe.each(testBackends())('catalog writes audit 12 (%s)', (backend) => {
  let emu: TestEmulator;
  beforeAll(async () => {
    emu = await startTestEmulator(backend);
  });
  afterAll(() => emu?.stop());
  const { owner } = jsonCalls(() => emu);
  /** A product as the merchant reads it, cost and variants included. */
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
  /** A moment, so that a write that stores anything stores another time. */
  const tick = () => new Promise((r) => setTimeout(r, 5));
  async function product(name: string, extra: object = {}) {
    const created = await owner('POST', `${W}/products`, {
      product: { name, productType: 'physical', priceData: { price: 20 }, ...extra },
    });
    expect(created.status).toBe(200);
    return created.body.product.id as string;
  }
  /** Units taken from a variant, as an order takes them. */
  const sell = (productId: string, variantId: string, units: number) =>
    emu.emu.db.tx((sql) => adjustInventory(emu.emu, sql, [{ productId, variantId, delta: -units }]));

  it('bounds a product’s SEO tags and the size of its seoData, and stores nothing refused', async () => {
    const tag = (i: number) => ({ type: 'meta', props: { name: `n${i}`, content: 'c' } });
    const id = await product('Audit12 seo', { seoData: { tags: [tag(0)] } });
    const before = (await events(id)).length;
    const many = await owner('PATCH', `${W}/products/${id}`, {
      product: { seoData: { tags: Array.from({ length: 51 }, (_, i) => tag(i)) } },
    });
    expect(many.status).toBe(400);
    expect(many.body.details.validationError.fieldViolations).toEqual([
      expect.objectContaining({ field: 'product.seoData.tags', violatedRule: 'MAX_SIZE', data: { max: 50 } }),
    ]);
    // One tag can be large only so far: its props and inner content count with the rest.
    const big = await owner('PATCH', `${W}/products/${id}`, {
      product: { seoData: { tags: [{ type: 'script', children: 'x'.repeat(70_000) }] } },
    });
    expect(big.status).toBe(400);
    expect(big.body.details.validationError.fieldViolations[0].field).toBe('product.seoData');
    const wide = await owner('POST', `${W}/products`, {
      product: {
        name: 'Audit12 seo wide',
        productType: 'physical',
        priceData: { price: 1 },
        seoData: { tags: [{ type: 'meta', props: { content: 'y'.repeat(70_000) } }] },
      },
    });
    expect(wide.status).toBe(400);
    // Refused whole: the stored tags and the events are as they were.
    expect((await read(id)).seoData).toEqual({ tags: [tag(0)] });
    expect(await events(id)).toHaveLength(before);
    // The bounds themselves are accepted.
    const tags = Array.from({ length: 50 }, (_, i) => tag(i));
    const ok = await owner('PATCH', `${W}/products/${id}`, { product: { seoData: { tags } } });
    expect(ok.status).toBe(200);
    expect((await read(id)).seoData.tags).toHaveLength(50);
  });

  it('a product read earlier and sent back whole leaves the stock orders took since', async () => {
    const id = await product('Audit12 stale', {
      stock: { trackInventory: true, quantity: 5 },
      productOptions: [{ name: 'Size', choices: [{ description: 'S' }, { description: 'M' }] }],
    });
    const was = await read(id);
    expect(was.stock.quantity).toBe(10);
    const [s, m] = was.variants as { id: string }[];
    expect(await sell(id, s!.id, 2)).toEqual([]);
    expect(await sell(id, m!.id, 5)).toEqual([]);
    // The whole product as read before the orders, with a new name.
    const echoed = await owner('PATCH', `${W}/products/${id}`, {
      product: { ...was, name: 'Audit12 stale 2' },
    });
    expect(echoed.status).toBe(200);
    expect(echoed.body.product.name).toBe('Audit12 stale 2');
    const now = await read(id);
    expect(now.variants.map((v: any) => v.stock.quantity)).toEqual([3, 0]);
    expect(now.stock).toMatchObject({ quantity: 3, inventoryStatus: 'PARTIALLY_OUT_OF_STOCK' });
    // A quantity changed in the echo is the caller's: it sets each variant's, as before.
    const set = await owner('PATCH', `${W}/products/${id}`, {
      product: { ...now, stock: { ...now.stock, quantity: 4 } },
    });
    expect(set.status).toBe(200);
    expect((await read(id)).variants.map((v: any) => v.stock.quantity)).toEqual([4, 4]);
    // Sent alone, the total read is set too (nothing tells it from a stocktake).
    const alone = await owner('PATCH', `${W}/products/${id}`, { product: { stock: { quantity: 8 } } });
    expect(alone.status).toBe(200);
    expect((await read(id)).variants.map((v: any) => v.stock.quantity)).toEqual([8, 8]);
  });

  it('a product without a description sent back as read changes nothing and tells nothing', async () => {
    const id = await product('Audit12 bare', { stock: { trackInventory: true, quantity: 2 } });
    const was = await read(id);
    expect(was.description).toBe('');
    const before = await events(id);
    await tick();
    const echoed = await owner('PATCH', `${W}/products/${id}`, { product: was });
    expect(echoed.status).toBe(200);
    expect(echoed.body.product.lastUpdated).toBe(was.lastUpdated);
    expect(await events(id)).toEqual(before);
    // A description given is still stored and told.
    const changed = await owner('PATCH', `${W}/products/${id}`, {
      product: { description: 'Now described' },
    });
    expect(changed.body.product.description).toBe('Now described');
    expect((await events(id)).slice(before.length)).toEqual([
      expect.objectContaining({
        type: 'ProductChanged',
        entity: expect.objectContaining({ changedFields: ['description', 'lastUpdated'] }),
      }),
    ]);
  });

  it('deleting the options of a product that has none keeps its variant’s own data and manageVariants', async () => {
    const id = await product('Audit12 plain');
    const own = await owner('PATCH', `${W}/products/${id}/variants`, {
      variants: [{ variantIds: [DEFAULT_VARIANT_ID], price: 5, sku: 'A12-OWN' }],
    });
    expect(own.status).toBe(200);
    const before = await events(id);
    await tick();
    expect((await owner('DELETE', `${W}/products/${id}/options`)).status).toBe(200);
    const p = await read(id);
    // Still managed: the variant's own price is what a cart charges, and the product says so.
    expect(p.manageVariants).toBe(true);
    expect(p.variants[0].variant).toMatchObject({ priceData: { price: 5 }, sku: 'A12-OWN' });
    expect(await events(id)).toEqual(before);
    // A product with options still loses them, its variants' own data and manageVariants with them.
    const opt = await product('Audit12 options', {
      productOptions: [{ name: 'Size', choices: [{ description: 'S' }, { description: 'M' }] }],
    });
    await owner('PATCH', `${W}/products/${opt}/variants`, {
      variants: [{ choices: { Size: 'S' }, price: 7 }],
    });
    expect((await owner('DELETE', `${W}/products/${opt}/options`)).status).toBe(200);
    const q = await read(opt);
    expect(q.productOptions).toEqual([]);
    expect(q.manageVariants).toBe(false);
    expect(q.variants.map((v: any) => v.variant.priceData.price)).toEqual([20]);
  });
});
