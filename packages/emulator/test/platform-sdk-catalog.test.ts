/**
 * Conformance of the catalog: the platform's own published SDK (products and collections modules,
 * pinned in `bench/baseline`) against the emulator, on what its generated code sends and its
 * typings promise: cursor paging, hidden products, dimensions as decimal strings, the profit margin
 * as a fraction, the platform's media ids, product variants by ids or choices, the typings' limits,
 * and collections' `media.items` and `numberOfProducts`. See `platform-sdk.test.ts` for the rest.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoProductId } from '../src/domains/catalog/seed.ts';
import { startTestEmulator, type TestEmulator, testBackends } from '../src/testing.ts';
import { merchant as merchantOf, rejection, shopper as shopperOf, usePlatformSdk } from './platform-sdk.ts';

let target = '';
const wix = usePlatformSdk(() => target);

/** The fields of a platform SDK error's violations (renamed by the SDK to its argument paths). */
const fields = (e: any) => e.details.validationError.fieldViolations.map((v: { field: string }) => v.field);

describe.each(testBackends())('the platform SDK on the catalog (%s)', (backend) => {
  let emu: TestEmulator;
  const shopper = () => shopperOf(wix(), emu);
  const merchant = () => merchantOf(wix(), emu);
  const slug = async (s: string) => (await shopper().products.queryProducts().eq('slug', s).find()).items[0];
  let n = 0;
  const newProduct = async (extra: object = {}) =>
    (
      await merchant().products.createProduct({
        name: `Conformance ${backend} ${++n}`,
        productType: 'physical',
        priceData: { price: 10 },
        ...extra,
      } as any)
    ).product;

  beforeAll(async () => {
    emu = await startTestEmulator(backend);
    target = emu.url;
  });
  afterAll(() => emu?.stop());

  it('pages products and collections by cursor, and takes a distance sort on collections', async () => {
    const { products, collections } = shopper();
    const first = await products.queryProducts({
      filter: { productType: 'physical' },
      sort: [{ fieldName: 'name', order: 'ASC' }],
      cursorPaging: { limit: 5 },
    } as any);
    expect(first.products).toHaveLength(5);
    expect(first.metadata.cursors).toEqual({ next: expect.any(String), prev: null });
    // The next request carries the cursor alone (wire §4), as the typings require.
    const second = await products.queryProducts({
      cursorPaging: { cursor: first.metadata.cursors.next, limit: 5 },
    } as any);
    const names = [...first.products, ...second.products].map((p: any) => p.name);
    expect(names).toEqual([...names].sort());
    expect(new Set(names).size).toBe(10);
    const mixed = await rejection(
      products.queryProducts({
        filter: { name: 'x' },
        cursorPaging: { cursor: first.metadata.cursors.next },
      } as any),
    );
    expect(fields(mixed)).toEqual(['query.filter']);

    const cols = await collections.queryCollections({ cursorPaging: { limit: 3 } } as any);
    expect(cols.collections).toHaveLength(3);
    const rest = await collections.queryCollections({
      cursorPaging: { cursor: cols.metadata.cursors.next },
    } as any);
    expect(rest.collections).toHaveLength(2);
    expect(rest.metadata.cursors.next).toBeNull();
    const near = await collections.queryCollections({
      sort: [{ fieldName: 'name', order: 'ASC', origin: { latitude: 52.37, longitude: 4.9 } }],
    } as any);
    expect(near.collections.map((c: any) => c.name)).toEqual(
      [...near.collections.map((c: any) => c.name)].sort(),
    );
  });

  it('leaves hidden products out of a merchant query: the SDK cannot send includeHiddenProducts', async () => {
    const { products } = merchant();
    const all = await products.queryProducts().limit(100).find();
    expect(all.totalCount).toBe((await shopper().products.queryProducts().find()).totalCount);
    expect(all.items.every((p: any) => p.visible)).toBe(true);
    // "the server adds a `visible` equals `true` condition to every filter" (the typings).
    expect(
      (
        await products
          .queryProducts()
          .eq('visible' as any, false)
          .find()
      ).items,
    ).toEqual([]);
    // A hidden product is still the merchant's by id, and still in All Products.
    const { product } = await products.getProduct(demoProductId('enamel-pitcher'));
    expect(product).toMatchObject({ slug: 'enamel-pitcher', visible: false });
    expect(product.collectionIds).toContain('col-all-products');
  });

  it('takes dimensions as the decimal strings of the typings, with their unit enum, on products and variants', async () => {
    const created = await newProduct({
      productDimensions: { length: '10.5', width: '3', height: '2', unit: 'CM' },
      packageDimensions: { unit: 'UNKNOWN_DIMENSIONS_UNIT' },
      productOptions: [{ name: 'Size', choices: [{ description: 'S' }, { description: 'L' }] }],
    });
    expect(created.productDimensions).toEqual({ length: '10.5', width: '3', height: '2', unit: 'CM' });
    expect(created.packageDimensions).toEqual({ unit: 'UNKNOWN_DIMENSIONS_UNIT' });
    const { products } = merchant();
    const box = { length: '40', width: '30.25', height: '12', unit: 'MM' };
    const { variants } = await products.updateProductVariants(created._id, [
      { choices: { Size: 'L' }, packageDimensions: box },
    ]);
    expect(variants[0].variant.packageDimensions).toEqual(box);
    const queried = await shopper().products.queryProductVariants(created._id, { choices: { Size: 'L' } });
    expect(queried.variants[0].variant.packageDimensions).toEqual(box);
    const picked = await shopper().products.getProductOptionsAvailability(created._id, { Size: 'L' });
    expect(picked.selectedVariant.packageDimensions).toEqual(box);
    const { product } = await shopper().products.getProduct(created._id);
    expect(product.variants.map((v: any) => v.variant.packageDimensions?.length)).toEqual([undefined, '40']);
    const bad = await rejection(
      products.updateProduct(created._id, { productDimensions: { length: '1.1234567' } } as any),
    );
    expect(bad.details.validationError.fieldViolations[0]).toMatchObject({
      violatedRule: 'DECIMAL_MAX_SCALE',
    });
  });

  it('gives the profit margin as the fraction the typings define (profit ÷ discounted price, at most 1)', async () => {
    const trousers = await slug('linen-trousers');
    const { product } = await merchant().products.getProduct(trousers._id, {
      includeMerchantSpecificData: true,
    });
    expect(product.priceData.discountedPrice).toBe(67.2);
    expect(product.costAndProfitData).toMatchObject({ itemCost: 30, profit: 37.2, profitMargin: 0.5536 });
    const { variants } = await merchant().products.queryProductVariants(trousers._id, {
      includeMerchantSpecificData: true,
    });
    expect(variants.every((v: any) => v.variant.costAndProfitData.profitMargin <= 1)).toBe(true);
  });

  it("adds media by the platform's media ids, which hold a tilde", async () => {
    const p = await newProduct();
    const ids = [
      '22e53e_efc1552d8050407f82ea158302d0debd~mv2.jpg',
      'nsplsh_306d666a123a4a74306459~mv2_d_4517_2992_s_4_2.jpg',
    ];
    await merchant().products.addProductMedia(
      p._id,
      ids.map((mediaId) => ({ mediaId })),
    );
    const { product } = await merchant().products.getProduct(p._id);
    expect(product.media.items.map((m: any) => m._id)).toEqual(ids);
  });

  it('queries product variants: an unknown choice is the choices argument, ids win over choices', async () => {
    const shirt = await slug('linen-shirt');
    const { products } = shopper();
    const bad = await rejection(products.queryProductVariants(shirt._id, { choices: { Size: 'XXL' } }));
    // The SDK names the wire field `choices.Size` after its argument: `options.choices.Size`.
    expect(fields(bad)).toEqual(['options.choices.Size']);
    const all = (await products.queryProductVariants(shirt._id)).variants;
    const mSage = all.find((v: any) => v.choices.Size === 'M' && v.choices.Color === 'Sage');
    const r = await products.queryProductVariants(shirt._id, {
      choices: { Size: 'S' },
      variantIds: [mSage._id],
    });
    expect(r.totalResults).toBe(1);
    expect(r.variants.map((v: any) => v._id)).toEqual([mSage._id]);
  });

  it("takes the typings' limits: 1000 products a call, 16000-character sections, weights to 999999999.99", async () => {
    const { products } = merchant();
    const p = await newProduct({
      weight: 999_999_999.99,
      additionalInfoSections: [{ title: 'Care', description: 'x'.repeat(16_000) }],
    });
    expect(p.weight).toBe(999_999_999.99);
    const { collection } = await products.createCollection({ name: `Big ${backend}` });
    await products.addProductsToCollection(collection._id, Array(1000).fill(p._id));
    await products.removeProductsFromCollection(collection._id, Array(1000).fill(p._id));
    await products.bulkUpdateProductsProperty([p._id], { weight: 999_999_999.99 });
    const over = await rejection(products.addProductsToCollection(collection._id, Array(1001).fill(p._id)));
    expect(over.details.validationError.fieldViolations[0]).toMatchObject({ violatedRule: 'MAX_SIZE' });
  });

  it('answers collections with media.items and the number of products the caller can see', async () => {
    // Every product is in All Products; a visitor's count leaves the hidden Enamel Pitcher out.
    const visible = (await shopper().products.queryProducts().find()).totalCount;
    const mine = await shopper().collections.getCollection('col-all-products');
    expect(mine.media.items).toEqual([]);
    expect(mine.numberOfProducts).toBe(visible);
    const theirs = await merchant().collections.getCollection('col-all-products');
    expect(theirs.numberOfProducts).toBe(visible + 1);
    const { collection } = await merchant().products.createCollection({ name: `Bare ${backend}` });
    expect(collection.media).toEqual({ items: [] });
  });
});
