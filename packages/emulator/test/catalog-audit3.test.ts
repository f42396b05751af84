/**
 * Catalog defects of the third audit, over raw HTTP on each storage: renaming an option or a choice
 * keeps the product's variants (ids, overrides, visibility, stock, a choice's media); an empty
 * `variantIds` selects no variants; visitors see neither hidden collections' ids nor hidden
 * variants, in REST and GraphQL reads, while merchants still see everything.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_PRODUCTS_COLLECTION_ID } from '../src/domains/catalog/store.ts';
import { adjustInventory } from '../src/domains/catalog/writes.ts';
import { startTestEmulator, type TestEmulator, testBackends } from '../src/testing.ts';
import { jsonCalls, visitorToken } from './http.ts';

describe.each(testBackends())('catalog audit 3 (%s)', (backend) => {
  let emu: TestEmulator;
  let visitor: string;
  beforeAll(async () => {
    emu = await startTestEmulator(backend);
    visitor = await visitorToken(emu);
  });
  afterAll(() => emu?.stop());

  const { call, owner } = jsonCalls(() => emu);
  const asVisitor = (method: string, path: string, body?: object) =>
    call(method, path, body, { authorization: visitor });
  let n = 0;
  const create = async (fields: Record<string, unknown> = {}) => {
    const res = await owner('POST', '/stores/v1/products', {
      product: {
        name: `Audit3 product ${++n}`,
        productType: 'physical',
        priceData: { price: 10 },
        ...fields,
      },
    });
    expect(res.status).toBe(200);
    return res.body.product;
  };
  const get = async (id: string) => {
    const res = await owner('GET', `/stores-reader/v1/products/${id}`);
    expect(res.status).toBe(200);
    return res.body.product;
  };
  const patch = async (id: string, fields: Record<string, unknown>) => {
    const res = await owner('PATCH', `/stores/v1/products/${id}`, { product: { id, ...fields } });
    expect(res.status).toBe(200);
    return res.body.product;
  };
  const setVariants = async (id: string, variants: object[]) => {
    const res = await owner('PATCH', `/stores/v1/products/${id}/variants`, { variants });
    expect(res.status).toBe(200);
  };
  /** A variant of a wire product by its choices. */
  const variantOf = (p: any, choices: Record<string, string>) =>
    (p.variants as any[]).find((v) => Object.entries(choices).every(([k, c]) => v.choices[k] === c)) as any;
  /** `choices` of each variant renamed by `rename` (option → option, and choice → choice). */
  const renamed = (variants: any[], rename: (o: string, c: string) => [string, string]) =>
    variants.map((v) => ({
      ...v,
      choices: Object.fromEntries(
        Object.entries(v.choices as Record<string, string>).map(([o, c]) => rename(o, c)),
      ),
    }));

  describe('renaming options and choices', () => {
    const SIZE = (names: string[]) => ({
      name: 'Size',
      choices: names.map((description) => ({ description })),
    });
    const COLOR = (name: string, choices: [string, string][]) => ({
      name,
      optionType: 'color',
      choices: choices.map(([description, value]) => ({ description, value })),
    });
    const RED: [string, string] = ['Red', '#ff0000'];
    const BLUE: [string, string] = ['Blue', '#0000ff'];

    /** A tracked product with Size S/M/L × Color Red/Blue, its variants made different. */
    const rich = async () => {
      const p = await create({
        productOptions: [SIZE(['S', 'M', 'L']), COLOR('Color', [RED, BLUE])],
        stock: { trackInventory: true, quantity: 5 },
      });
      const sRed = variantOf(p, { Size: 'S', Color: 'Red' }).id;
      const mBlue = variantOf(p, { Size: 'M', Color: 'Blue' }).id;
      const lBlue = variantOf(p, { Size: 'L', Color: 'Blue' }).id;
      await setVariants(p.id, [
        { variantIds: [sRed], price: 12.5, sku: 'S-RED', weight: 1.25, visible: false },
        { variantIds: [mBlue], price: 15, sku: 'M-BLUE' },
      ]);
      const shortages = await emu.emu.db.tx((sql) =>
        adjustInventory(emu.emu, sql, [
          { productId: p.id, variantId: sRed, delta: -2 },
          { productId: p.id, variantId: lBlue, delta: -5 },
        ]),
      );
      expect(shortages).toEqual([]);
      const media = await owner('POST', `/stores/v1/products/${p.id}/media`, {
        media: [{ mediaId: 'audit3-red.svg', choice: { option: 'Color', choice: 'Red' } }],
      });
      expect(media.status).toBe(200);
      return get(p.id);
    };

    it('keeps every variant, with its id, price, SKU, weight, visibility and stock, when a choice is renamed', async () => {
      const before = await rich();
      expect(variantOf(before, { Size: 'S', Color: 'Red' }).stock.quantity).toBe(3);
      const answered = await patch(before.id, {
        productOptions: [SIZE(['Small', 'M', 'L']), COLOR('Color', [RED, BLUE])],
      });
      const after = await get(before.id);
      const expected = renamed(before.variants, (o, c) => [o, o === 'Size' && c === 'S' ? 'Small' : c]);
      expect(answered.variants).toEqual(expected);
      expect(after.variants).toEqual(expected);
      expect(after.stock).toEqual(before.stock);
      expect(after.priceRange).toEqual(before.priceRange);
    });

    it('keeps every variant when an option is renamed, and the choices keep their media', async () => {
      const before = await rich();
      await patch(before.id, { productOptions: [SIZE(['S', 'M', 'L']), COLOR('Colour', [RED, BLUE])] });
      const after = await get(before.id);
      expect(after.variants).toEqual(renamed(before.variants, (o, c) => [o === 'Color' ? 'Colour' : o, c]));
      const red = after.productOptions[1].choices.find((c: any) => c.description === 'Red');
      expect(red.media?.items.map((m: any) => m.id)).toEqual(['audit3-red.svg']);
    });

    it('follows a renamed colour by its colour code when the choices are also reordered', async () => {
      const before = await rich();
      await patch(before.id, {
        productOptions: [SIZE(['S', 'M', 'L']), COLOR('Color', [BLUE, ['Crimson', '#ff0000']])],
      });
      const after = await get(before.id);
      const want = renamed(before.variants, (o, c) => [o, c === 'Red' ? 'Crimson' : c]);
      // Variants follow the new choice order (Blue before Crimson); each one is the same.
      expect([...after.variants].sort((a, b) => a.id.localeCompare(b.id))).toEqual(
        [...want].sort((a, b) => a.id.localeCompare(b.id)),
      );
      const crimson = after.productOptions[1].choices.find((c: any) => c.description === 'Crimson');
      expect(crimson.media?.items.map((m: any) => m.id)).toEqual(['audit3-red.svg']);
    });

    it('removes only the variants of a removed choice and adds fresh ones for a new choice', async () => {
      const before = await rich();
      // M is removed (the list shifts, so L stays L), XL is new.
      await patch(before.id, { productOptions: [SIZE(['S', 'L', 'XL']), COLOR('Color', [RED, BLUE])] });
      const after = await get(before.id);
      for (const size of ['S', 'L'])
        for (const color of ['Red', 'Blue'])
          expect(variantOf(after, { Size: size, Color: color })).toEqual(
            variantOf(before, { Size: size, Color: color }),
          );
      expect(variantOf(after, { Size: 'M' })).toBeUndefined();
      for (const color of ['Red', 'Blue']) {
        const v = variantOf(after, { Size: 'XL', Color: color });
        expect(v.stock).toEqual({ trackQuantity: true, quantity: 0, inStock: false });
        expect(v.variant).toMatchObject({ visible: true, priceData: { price: 10 } });
        expect(v.variant.sku).toBeUndefined();
      }
      expect(after.variants).toHaveLength(6);
    });

    it("gives a choice added under a renamed choice's old name a variant id of its own", async () => {
      const p = await create({
        productOptions: [SIZE(['S', 'M'])],
        stock: { trackInventory: true, quantity: 4 },
      });
      await patch(p.id, { productOptions: [SIZE(['Small', 'M'])] });
      await patch(p.id, { productOptions: [SIZE(['Small', 'M', 'S'])] });
      const after = await get(p.id);
      const ids = after.variants.map((v: any) => v.id);
      expect(new Set(ids).size).toBe(3);
      expect(variantOf(after, { Size: 'Small' }).id).toBe(variantOf(p, { Size: 'S' }).id);
      expect(variantOf(after, { Size: 'Small' }).stock.quantity).toBe(4);
      expect(variantOf(after, { Size: 'S' }).stock.quantity).toBe(0);
    });
  });

  describe('an empty variantIds', () => {
    it('selects no variants in a product variants query, with or without choices', async () => {
      const p = await create({
        productOptions: [{ name: 'Size', choices: [{ description: 'S' }, { description: 'M' }] }],
      });
      for (const body of [{ variantIds: [] }, { variantIds: [], choices: { Size: 'S' } }]) {
        const res = await owner('POST', `/stores-reader/v1/products/${p.id}/variants/query`, body);
        expect(res.status).toBe(200);
        expect(res.body).toEqual({ variants: [], metadata: { items: 0, offset: 0 }, totalResults: 0 });
      }
      const all = await owner('POST', `/stores-reader/v1/products/${p.id}/variants/query`, {});
      expect(all.body.totalResults).toBe(2);
    });

    it('is refused in an update of variants, naming the field, and changes nothing', async () => {
      const p = await create({
        productOptions: [{ name: 'Size', choices: [{ description: 'S' }, { description: 'M' }] }],
      });
      const res = await owner('PATCH', `/stores/v1/products/${p.id}/variants`, {
        variants: [{ variantIds: [], choices: { Size: 'S' }, price: 99 }],
      });
      expect(res.status).toBe(400);
      expect(res.body.details.validationError.fieldViolations).toEqual([
        expect.objectContaining({ field: 'variants[0].variantIds', violatedRule: 'MIN_SIZE' }),
      ]);
      expect((await get(p.id)).variants).toEqual(p.variants);
    });
  });

  describe('what visitors see', () => {
    /** A product in a hidden and a visible collection, its M variant hidden and dearer. */
    const setup = async () => {
      const p = await create({
        productOptions: [{ name: 'Size', choices: [{ description: 'S' }, { description: 'M' }] }],
      });
      const hidden = await owner('POST', '/stores/v1/collections', {
        collection: { name: `Hidden ${++n}`, visible: false },
      });
      const shown = await owner('POST', '/stores/v1/collections', { collection: { name: `Shown ${++n}` } });
      const ids = { hidden: hidden.body.collection.id as string, shown: shown.body.collection.id as string };
      for (const c of Object.values(ids))
        expect(
          (await owner('POST', `/stores/v1/collections/${c}/productIds`, { productIds: [p.id] })).status,
        ).toBe(200);
      const m = variantOf(p, { Size: 'M' }).id as string;
      await setVariants(p.id, [{ variantIds: [m], visible: false, price: 99 }]);
      return { p: await get(p.id), ids, s: variantOf(p, { Size: 'S' }).id as string, m };
    };
    const visibleIds = (ids: { shown: string }) => [ALL_PRODUCTS_COLLECTION_ID, ids.shown].sort();

    it("leaves hidden collections' ids and hidden variants out of a visitor's product read", async () => {
      const { p, ids, s, m } = await setup();
      expect([...p.collectionIds].sort()).toEqual([...visibleIds(ids), ids.hidden].sort());
      expect(p.variants.map((v: any) => v.id)).toEqual([s, m]);

      const read = await asVisitor('GET', `/stores-reader/v1/products/${p.id}`);
      expect(read.status).toBe(200);
      expect([...read.body.product.collectionIds].sort()).toEqual(visibleIds(ids));
      expect(read.body.product.variants.map((v: any) => v.id)).toEqual([s]);
      // The hidden variant's price is not told through the range either.
      expect(read.body.product.priceRange).toEqual({ minValue: 10, maxValue: 10 });

      const query = await asVisitor('POST', '/stores-reader/v1/products/query-platformized', {
        query: { filter: { id: { $eq: p.id } } },
        includeVariants: true,
      });
      expect(query.status).toBe(200);
      expect([...query.body.products[0].collectionIds].sort()).toEqual(visibleIds(ids));
      expect(query.body.products[0].variants.map((v: any) => v.id)).toEqual([s]);

      const variants = await asVisitor('POST', `/stores-reader/v1/products/${p.id}/variants/query`, {
        variantIds: [s, m],
      });
      expect(variants.body.variants.map((v: any) => v.id)).toEqual([s]);

      const availability = await asVisitor(
        'POST',
        `/stores-reader/v1/products/${p.id}/productOptionsAvailability`,
        {
          options: { Size: 'M' },
        },
      );
      expect(availability.status).toBe(200);
      expect(availability.body.selectedVariant).toBeNull();
      expect(availability.body.availableForPurchase).toBe(false);
    });

    it('shows a visitor a product whose variants are all hidden as out of stock, with no variants', async () => {
      const { p, s, m } = await setup();
      await setVariants(p.id, [{ variantIds: [s, m], visible: false }]);
      const read = await asVisitor('GET', `/stores-reader/v1/products/${p.id}`);
      expect(read.status).toBe(200);
      expect(read.body.product.variants).toEqual([]);
      expect(read.body.product.stock).toEqual({
        trackInventory: false,
        inStock: false,
        inventoryStatus: 'OUT_OF_STOCK',
      });
      expect((await get(p.id)).stock).toMatchObject({ inStock: true, inventoryStatus: 'IN_STOCK' });
    });

    it("leaves hidden collections' ids out of a visitor's store variants, and keeps their members out of a visitor's filter", async () => {
      const { p, ids, s } = await setup();
      const sv = await asVisitor('POST', '/stores-reader/v1/variants/query', {
        query: { filter: { productId: { $eq: p.id } } },
      });
      expect(sv.status).toBe(200);
      expect(sv.body.variants.map((v: any) => v.variantId)).toEqual([s]);
      expect([...sv.body.variants[0].collectionIds].sort()).toEqual(visibleIds(ids));
      const one = await asVisitor('GET', `/stores-reader/v1/variants/${p.id}-${s}`);
      expect([...one.body.variant.collectionIds].sort()).toEqual(visibleIds(ids));

      const byHidden = { query: { filter: { collectionIds: { $hasSome: [ids.hidden] } } } };
      const products = await asVisitor('POST', '/stores-reader/v1/products/query-platformized', byHidden);
      expect(products.status).toBe(200);
      expect(products.body.products).toEqual([]);
      const storeVariants = await asVisitor('POST', '/stores-reader/v1/variants/query', byHidden);
      expect(storeVariants.body.variants).toEqual([]);
      // The merchant still finds them.
      const merchant = await owner('POST', '/stores-reader/v1/products/query-platformized', byHidden);
      expect(merchant.body.products.map((x: any) => x.id)).toEqual([p.id]);
      const merchantVariants = await owner('POST', '/stores-reader/v1/variants/query', byHidden);
      expect(merchantVariants.body.variants).toHaveLength(2);
      expect([...merchantVariants.body.variants[0].collectionIds].sort()).toEqual(
        [...visibleIds(ids), ids.hidden].sort(),
      );
    });

    it('answers GraphQL visitors without hidden collections or variants, merchants with them', async () => {
      const { p, ids, s, m } = await setup();
      const query = `{ product(id: "${p.id}") { collectionIds variants { id variant { visible } } } }`;
      const asVisitorGql = await asVisitor('POST', '/graphql/alpha', { query });
      expect(asVisitorGql.body.errors).toBeUndefined();
      expect([...asVisitorGql.body.data.product.collectionIds].sort()).toEqual(visibleIds(ids));
      expect(asVisitorGql.body.data.product.variants).toEqual([{ id: s, variant: { visible: true } }]);
      const list = await asVisitor('POST', '/graphql/alpha', {
        query: 'query ($f: JSON) { products(filter: $f) { products { collectionIds variants { id } } } }',
        variables: { f: { id: { $eq: p.id } } },
      });
      expect(list.body.errors).toBeUndefined();
      expect([...list.body.data.products.products[0].collectionIds].sort()).toEqual(visibleIds(ids));
      expect(list.body.data.products.products[0].variants).toEqual([{ id: s }]);

      const asMerchant = await owner('POST', '/graphql/alpha', { query });
      expect([...asMerchant.body.data.product.collectionIds].sort()).toEqual(
        [...visibleIds(ids), ids.hidden].sort(),
      );
      expect(asMerchant.body.data.product.variants).toEqual([
        { id: s, variant: { visible: true } },
        { id: m, variant: { visible: false } },
      ]);
    });
  });
});
