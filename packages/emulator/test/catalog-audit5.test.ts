/**
 * Catalog defects of the fifth audit, as a merchant over raw HTTP on each storage: a read product
 * saved back put its sold-out variants back on sale (`inStock` given to each); an option named
 * `__proto__`, whose choices no JSON object can name, selected the wrong variant; `manageVariants`
 * turned off left the variants' own prices in force; All Products could be hidden or moved to
 * another slug; media ids `.` and `..`, and SEO data of any shape, were stored.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoProductId } from '../src/domains/catalog/seed.ts';
import { startTestEmulator, type TestEmulator, testBackends } from '../src/testing.ts';
import { jsonCalls } from './http.ts';

const W = '/stores/v1';
const R = '/stores-reader/v1';

describe.each(testBackends())('catalog audit 5 (%s)', (backend) => {
  let emu: TestEmulator;
  beforeAll(async () => {
    emu = await startTestEmulator(backend);
  });
  afterAll(() => emu?.stop());
  const { owner } = jsonCalls(() => emu);
  const read = async (id: string) => (await owner('GET', `${R}/products/${id}`)).body.product;
  const inStock = (p: any) => p.variants.map((v: any) => [v.choices, v.stock.inStock]);

  /** A product of sizes S, M and L, M priced on its own (so its variants are managed). */
  async function sized(name: string) {
    const created = await owner('POST', `${W}/products`, {
      product: {
        name,
        productType: 'physical',
        priceData: { price: 10 },
        productOptions: [
          { name: 'Size', choices: [{ description: 'S' }, { description: 'M' }, { description: 'L' }] },
        ],
      },
    });
    expect(created.status).toBe(200);
    const id = created.body.product.id as string;
    const mid = created.body.product.variants[1].id;
    const marked = await owner('PATCH', `${W}/products/${id}/variants`, {
      variants: [{ variantIds: [mid], price: 10 }],
    });
    expect(marked.status).toBe(200);
    expect((await read(id)).manageVariants).toBe(true);
    return { id, mid };
  }

  it('a product read and saved back with another name keeps its sold-out variants sold out', async () => {
    // The demo's Stoneware Mug does not track inventory; its Charcoal is sold out.
    const id = demoProductId('stoneware-mug');
    const before = await read(id);
    expect(before.stock).toMatchObject({
      trackInventory: false,
      inStock: true,
      inventoryStatus: 'PARTIALLY_OUT_OF_STOCK',
    });
    expect(inStock(before)).toEqual([
      [{ Color: 'Oat' }, true],
      [{ Color: 'Charcoal' }, false],
      [{ Color: 'Moss' }, true],
    ]);
    const saved = await owner('PATCH', `${W}/products/${id}`, {
      product: { ...before, name: 'Stoneware Mug 2' },
    });
    expect(saved.status).toBe(200);
    const after = await read(id);
    expect([after.name, after.stock.inventoryStatus, inStock(after)]).toEqual([
      'Stoneware Mug 2',
      'PARTIALLY_OUT_OF_STOCK',
      inStock(before),
    ]);
    // `inStock` sent alone still sets every variant's.
    const all = await owner('PATCH', `${W}/products/${id}`, {
      product: { name: 'Stoneware Mug', stock: { inStock: true } },
    });
    expect(all.status).toBe(200);
    expect((await read(id)).stock.inventoryStatus).toBe('IN_STOCK');
  });

  it('refuses an option named __proto__, and a choice named by an inherited property selects nothing', async () => {
    const proto = await owner('POST', `${W}/products`, {
      product: {
        name: 'Audit5 proto',
        productType: 'physical',
        priceData: { price: 10 },
        productOptions: [{ name: '__proto__', choices: [{ description: 'S' }, { description: 'M' }] }],
      },
    });
    expect(proto.status).toBe(400);
    expect(proto.body.details.validationError.fieldViolations).toEqual([
      expect.objectContaining({
        field: 'product.productOptions[0].name',
        description: 'cannot be __proto__',
      }),
    ]);
    // An option named after a property every object inherits: left unchosen, no variant is selected.
    const made = await owner('POST', `${W}/products`, {
      product: {
        name: 'Audit5 constructor',
        productType: 'physical',
        priceData: { price: 10 },
        productOptions: [
          { name: 'constructor', choices: [{ description: 'S' }, { description: 'M' }] },
          { name: 'Colour', choices: [{ description: 'Red' }] },
        ],
      },
    });
    expect(made.status).toBe(200);
    const id = made.body.product.id;
    const chosen = await owner('POST', `${R}/products/${id}/productOptionsAvailability`, {
      options: { Colour: 'Red' },
    });
    expect(chosen.status).toBe(200);
    expect(chosen.body.selectedVariant).toBeNull();
    const both = await owner('POST', `${R}/products/${id}/productOptionsAvailability`, {
      options: { Colour: 'Red', constructor: 'M' },
    });
    expect(both.body.selectedVariant.choices).toEqual({ constructor: 'M', Colour: 'Red' });
  });

  it('refuses manageVariants false while variants have prices of their own, and takes it after a reset', async () => {
    const { id, mid } = await sized('Audit5 managed');
    expect(
      (await owner('PATCH', `${W}/products/${id}/variants`, { variants: [{ variantIds: [mid], price: 50 }] }))
        .status,
    ).toBe(200);
    const off = await owner('PATCH', `${W}/products/${id}`, { product: { manageVariants: false } });
    expect(off.status).toBe(400);
    expect(off.body.details.validationError.fieldViolations[0]).toMatchObject({
      field: 'product.manageVariants',
    });
    expect(off.body.message).toContain('resetToDefault');
    const still = await read(id);
    expect([still.manageVariants, still.priceRange]).toEqual([true, { minValue: 10, maxValue: 50 }]);
    // Saved back as read, the flag (true) is no change.
    expect(
      (await owner('PATCH', `${W}/products/${id}`, { product: { ...still, name: 'Audit5 managed 2' } }))
        .status,
    ).toBe(200);
    expect((await owner('POST', `${W}/products/${id}/variants/resetToDefault`, { id })).status).toBe(200);
    const reset = await read(id);
    expect([reset.manageVariants, reset.priceRange]).toEqual([false, { minValue: 10, maxValue: 10 }]);
    // A product whose variants have nothing of their own may turn it off and on.
    expect((await owner('PATCH', `${W}/products/${id}`, { product: { manageVariants: true } })).status).toBe(
      200,
    );
    expect((await owner('PATCH', `${W}/products/${id}`, { product: { manageVariants: false } })).status).toBe(
      200,
    );
  });

  it('keeps All Products visible at its slug; its name and description may change', async () => {
    const all = 'col-all-products';
    for (const change of [{ visible: false }, { slug: 'everything' }]) {
      const refused = await owner('PATCH', `${W}/collections/${all}`, { collection: { id: all, ...change } });
      expect(refused.status).toBe(400);
      expect(refused.body.details.validationError.fieldViolations[0].field).toBe(
        `collection.${Object.keys(change)[0]}`,
      );
    }
    const renamed = await owner('PATCH', `${W}/collections/${all}`, {
      collection: {
        id: all,
        name: 'Everything',
        slug: 'all-products',
        visible: true,
        description: 'All of it',
      },
    });
    expect(renamed.status).toBe(200);
    const seen = await owner('GET', '/v2/collections/slug/all-products');
    expect([seen.status, seen.body.collection.name]).toEqual([200, 'Everything']);
    expect(
      (await owner('PATCH', `${W}/collections/${all}`, { collection: { id: all, name: 'All Products' } }))
        .status,
    ).toBe(200);
  });

  it('refuses the media ids . and .., and SEO data not of the SeoSchema shape', async () => {
    const { id } = await sized('Audit5 media');
    for (const mediaId of ['.', '..']) {
      const added = await owner('POST', `${W}/products/${id}/media`, { media: [{ mediaId }] });
      expect(added.status).toBe(400);
      expect(added.body.details.validationError.fieldViolations[0].field).toBe('media[0].mediaId');
    }
    expect(
      (await owner('POST', `${W}/products/${id}/media`, { media: [{ mediaId: '.hidden~mv2.jpg' }] })).status,
    ).toBe(200);
    for (const seoData of [
      { tags: [1, 'x', null] },
      { tags: [{ type: 'meta', props: 'name' }] },
      { settings: { keywords: 'not-a-list' } },
      {
        settings: {
          keywords: [
            { term: 'a' },
            { term: 'b' },
            { term: 'c' },
            { term: 'd' },
            { term: 'e' },
            { term: 'f' },
          ],
        },
      },
      { settings: { preventAutoRedirect: 'yes' } },
    ]) {
      const refused = await owner('PATCH', `${W}/products/${id}`, { product: { seoData } });
      expect(refused.status, JSON.stringify(seoData)).toBe(400);
    }
    const seoData = {
      tags: [
        {
          type: 'meta',
          props: { name: 'description', content: 'Plates' },
          children: '',
          custom: false,
          disabled: false,
        },
      ],
      settings: { preventAutoRedirect: true, keywords: [{ term: 'plate', isMain: true, origin: null }] },
    };
    expect((await owner('PATCH', `${W}/products/${id}`, { product: { seoData } })).status).toBe(200);
    expect((await read(id)).seoData).toEqual(seoData);
  });
});
