/**
 * Catalog reads through the SDK against the emulator over HTTP: products, queries (every filter
 * operator, paging edges, `.r` and the POST fallback), options availability, variants, store
 * variants, v1 and v2 collections; each with a bad-input case.
 */
import { testBackends } from '@shopkit/emulator/testing';
import { describe, expect, it } from 'vitest';
import {
  ApplicationError,
  collections,
  InventoryStatus,
  type Product,
  products,
  type QueryBuilder,
  ValidationError,
} from '../../src/index.ts';
import { merchantClient, setupEmulator, visitorClient } from './setup.ts';

function recordingFetch() {
  const calls: { method: string; url: string; body?: string }[] = [];
  const fetchFn: typeof fetch = async (input, init) => {
    calls.push({ method: init?.method ?? 'GET', url: String(input), body: init?.body as string });
    return fetch(input, init);
  };
  return { calls, fetchFn };
}

describe.each(testBackends())('catalog reads over HTTP (%s)', (backend) => {
  const emu = setupEmulator(backend);
  const small = setupEmulator(backend, { config: { catalogCountLimit: 5 } });

  const visitor = (fetchFn?: typeof fetch, on = emu) =>
    visitorClient(on, { products, collections }, { fetch: fetchFn });
  const merchant = () => merchantClient(emu, { products, collections });
  const bySlug = async (slug: string) =>
    (await visitor().products.queryProducts().eq('slug', slug).find()).items[0]!;

  it('gets a product with computed prices, ranges, stock, options and dated fields', async () => {
    const shirt = await bySlug('linen-shirt');
    const { product } = await visitor().products.getProduct(shirt.id);
    expect(product).toMatchObject({
      name: 'Linen Shirt',
      productType: 'physical',
      brand: 'Loomwell',
      ribbon: 'New',
      ribbons: [{ text: 'New' }],
      price: { currency: 'USD', price: 68, discountedPrice: 68, formatted: { price: '$68.00' } },
      priceRange: { minValue: 68, maxValue: 72 },
      weightRange: { minValue: 0.32, maxValue: 0.32 },
      stock: { trackInventory: true, inStock: true, inventoryStatus: InventoryStatus.PARTIALLY_OUT_OF_STOCK },
      discount: { type: 'NONE', value: 0 },
    });
    expect(product.lastUpdated).toBeInstanceOf(Date);
    expect(product.createdDate).toBeInstanceOf(Date);
    expect(product.costAndProfitData).toBeUndefined();
    expect(product.variants).toHaveLength(12);
    const color = product.productOptions!.find((o) => o.name === 'Color')!;
    expect(color.optionType).toBe('color');
    expect(color.choices!.map((c) => [c.description, c.value])).toEqual([
      ['White', '#f4f1ea'],
      ['Sand', '#d8c3a5'],
      ['Sage', '#a3bcb6'],
    ]);
    expect(product.media!.mainMedia!.image!.url).toBe(`${emu.url}/media/linen-shirt.svg`);
    const img = await fetch(product.media!.mainMedia!.image!.url);
    expect(img.headers.get('content-type')).toContain('image/svg+xml');
    expect(product.collectionIds).toContain('col-summer-linen');
  });

  it('gives merchants cost and profit, and refuses them to visitors', async () => {
    const plate = await bySlug('dinner-plate');
    const { product } = await merchant().products.getProduct(plate.id, { includeMerchantSpecificData: true });
    expect(product.price).toMatchObject({ price: 32, discountedPrice: 27 });
    expect(product.costAndProfitData).toEqual({
      itemCost: 11,
      formattedItemCost: '$11.00',
      profit: 16,
      formattedProfit: '$16.00',
      profitMargin: 0.5926, // profit ÷ discounted price, a fraction to 4 places (the platform's typings)
    });
    const err = await visitor()
      .products.getProduct(plate.id, { includeMerchantSpecificData: true })
      .catch((e) => e);
    expect(err).toBeInstanceOf(ApplicationError);
    expect(err.status).toBe(403);
  });

  it('answers 404 for unknown or hidden products and a violation for an empty id', async () => {
    const pitcher = (
      await merchant()
        .products.queryProducts({ includeHiddenProducts: true })
        .eq('slug', 'enamel-pitcher')
        .find()
    ).items[0]!;
    expect(pitcher.visible).toBe(false);
    const hidden = await visitor()
      .products.getProduct(pitcher.id)
      .catch((e) => e);
    expect(hidden).toMatchObject({ status: 404, code: 'PRODUCT_NOT_FOUND' });
    const missing = await visitor()
      .products.getProduct('no-such-product')
      .catch((e) => e);
    expect(missing.code).toBe('PRODUCT_NOT_FOUND');
    const empty = await visitor()
      .products.getProduct('')
      .catch((e) => e);
    expect(empty).toBeInstanceOf(ValidationError);
    expect(empty.message).toContain('"id"');
  });

  it('computes unit prices and percentage discounts', async () => {
    const candle = await bySlug('beeswax-candle');
    expect(candle.price).toMatchObject({
      price: 22,
      pricePerUnit: 11,
      formatted: { pricePerUnit: '$11.00' },
    });
    expect(candle.pricePerUnitData).toEqual({
      totalQuantity: 200,
      totalMeasurementUnit: 'G',
      baseQuantity: 100,
      baseMeasurementUnit: 'G',
    });
    const beanie = await bySlug('wool-beanie');
    expect(beanie.discount).toEqual({ type: 'PERCENT', value: 30 });
    expect(beanie.price).toMatchObject({
      price: 28,
      discountedPrice: 19.6,
      formatted: { discountedPrice: '$19.60' },
    });
  });

  describe('queries', () => {
    const names = async (q: QueryBuilder<Product>) =>
      (await q.ascending('name').limit(100).find()).items.map((p) => p.slug).sort();

    it('supports every filter operator on the seeded catalog', async () => {
      const q = visitor().products.queryProducts();
      expect(await names(q.eq('slug', 'gift-card'))).toEqual(['gift-card']);
      expect(await names(q.eq('productType', 'digital'))).toEqual(['gift-card']);
      expect((await names(q.ne('productType', 'physical'))).length).toBe(1);
      expect(await names(q.gt('price', 84))).toEqual(['linen-dress']);
      expect(await names(q.ge('price', 84))).toEqual(['linen-dress', 'linen-trousers']);
      expect(await names(q.lt('price', 18))).toEqual(['olive-wood-spoon']);
      expect(await names(q.le('priceData.price', 18))).toEqual(['linen-tea-towels', 'olive-wood-spoon']);
      expect(await names(q.between('price', 40, 48))).toEqual(['cast-iron-skillet', 'leather-card-holder']);
      expect(await names(q.in('slug', ['wool-beanie', 'canvas-tote', 'nope']))).toEqual([
        'canvas-tote',
        'wool-beanie',
      ]);
      expect(await names(q.startsWith('name', 'linen'))).toEqual([
        'linen-dress',
        'linen-shirt',
        'linen-tea-towels',
        'linen-trousers',
      ]);
      expect(await names(q.endsWith('name', 'mug'))).toEqual(['stoneware-mug']);
      expect(await names(q.contains('description', 'olive wood'))).toEqual(['olive-wood-spoon']);
      expect(await names(q.eq('sku', 'GC-50'))).toEqual(['gift-card']);
      expect((await names(q.exists('sku'))).length).toBe(14);
      expect(await names(q.hasSome('collectionIds', ['col-sale']))).toEqual([
        'dinner-plate',
        'linen-trousers',
        'wool-beanie',
      ]);
      expect(await names(q.hasAll('collectionIds', ['col-sale', 'col-kitchen']))).toEqual(['dinner-plate']);
      expect(await names(q.hasSome('collectionIds', ['col-sale']).or(q.eq('slug', 'gift-card')))).toEqual([
        'dinner-plate',
        'gift-card',
        'linen-trousers',
        'wool-beanie',
      ]);
      expect(await names(q.hasSome('collectionIds', ['col-sale']).not(q.gt('price', 30)))).toEqual([
        'wool-beanie',
      ]);
      expect(await names(q.isEmpty('sku'))).toEqual([]);
      expect((await names(q.isNotEmpty('sku'))).length).toBe(14);
      const first = (await q.ascending('numericId').limit(1).find()).items[0]!;
      expect(await names(q.eq('numericId', Number(first.numericId)))).toEqual([first.slug]);
      expect(await names(q.eq('id', first.id))).toEqual([first.slug]);
      expect((await names(q.lt('lastUpdated', new Date(Date.now() + 60_000).toISOString()))).length).toBe(14);
      expect(await names(q.gt('createdDate', '2999-01-01T00:00:00.000Z'))).toEqual([]);
    });

    it('sorts, and leaves hidden products out unless includeHiddenProducts is set, for merchants too', async () => {
      const page = await visitor().products.queryProducts().descending('price').limit(3).find();
      expect(page.items.map((p) => p.price?.price)).toEqual([120, 84, 68]);
      expect(page.totalCount).toBe(14);
      // The platform adds `visible = true` to every filter unless the request sets includeHiddenProducts.
      const m = merchant().products;
      expect((await m.queryProducts().limit(100).find()).totalCount).toBe(14);
      expect((await m.queryProducts().eq('visible', false).find()).items).toEqual([]);
      const all = await m.queryProducts({ includeHiddenProducts: true }).limit(100).find();
      expect(all.totalCount).toBe(15);
      const hidden = await m.queryProducts({ includeHiddenProducts: true }).eq('visible', false).find();
      expect(hidden.items.map((p) => p.slug)).toEqual(['enamel-pitcher']);
    });

    it('pages products and collections by cursor: next and prev, then the cursor alone', async () => {
      const c = visitor();
      const physical = { filter: { productType: 'physical' }, sort: [{ fieldName: 'name' }] };
      const first = await c.products.queryProducts({ ...physical, cursorPaging: { limit: 5 } });
      expect(first.metadata).toMatchObject({ count: 5, offset: 0, total: 13, cursors: { prev: null } });
      const pages = [first.products];
      let { metadata } = first;
      while (metadata.cursors?.next) {
        const r = await c.products.queryProducts({
          cursorPaging: { limit: 5, cursor: metadata.cursors.next },
        });
        pages.push(r.products);
        ({ metadata } = r);
      }
      expect(pages.map((p) => p.length)).toEqual([5, 5, 3]);
      const names = pages.flat().map((p) => p.name);
      const everyOne = await c.products.queryProducts({ ...physical, paging: { limit: 100 } });
      expect(names).toEqual(everyOne.products.map((p) => p.name));
      const back = await c.products.queryProducts({
        cursorPaging: { limit: 5, cursor: metadata.cursors!.prev! },
      });
      expect(back.products.map((p) => p.name)).toEqual(names.slice(5, 10));

      const cols = await c.collections.queryCollections({
        sort: [{ fieldName: 'name', order: 'DESC', origin: { latitude: 52.37, longitude: 4.9 } }],
        cursorPaging: { limit: 3 },
      });
      const more = await c.collections.queryCollections({
        cursorPaging: { limit: 3, cursor: cols.metadata.cursors!.next! },
      });
      expect([...cols.collections, ...more.collections].map((x) => x.slug)).toEqual([
        'summer-linen',
        'sale',
        'kitchen',
        'all-products',
        'accessories',
      ]);
      expect(more.metadata.cursors).toEqual({ next: null, prev: expect.any(String) });

      const next = first.metadata.cursors!.next!;
      // A cursor stands for its query: the request carries it alone (wire §4).
      const refusals: Array<[() => Promise<unknown>, string[]]> = [
        [
          () => c.products.queryProducts({ ...physical, cursorPaging: { cursor: next } }),
          ['query.filter', 'query.sort'],
        ],
        [
          () =>
            c.collections.queryCollections({ sort: [{ fieldName: 'name' }], cursorPaging: { cursor: next } }),
          ['query.sort'],
        ],
        [
          () => c.products.queryProducts({ paging: { limit: 5 }, cursorPaging: { limit: 5 } }),
          ['query.paging'],
        ],
        [() => c.products.queryProducts({ cursorPaging: { limit: 101 } }), ['query.cursorPaging.limit']],
        [
          () => c.collections.queryCollections({ cursorPaging: { cursor: 'not-a-cursor' } }),
          ['query.cursorPaging.cursor'],
        ],
      ];
      for (const [call, fields] of refusals) {
        const e = await call().catch((x: unknown) => x);
        expect(e).toBeInstanceOf(ValidationError);
        expect((e as ValidationError).violations.map((v) => v.field)).toEqual(fields);
      }
    });

    it('pages: last page, empty page past the end, and walking every page', async () => {
      const q = visitor().products.queryProducts().ascending('name').limit(5);
      const first = await q.find();
      expect(first.totalPages).toBe(3);
      const last = await (await first.next()).next();
      expect(last.currentPage).toBe(2);
      expect(last.items).toHaveLength(4);
      expect(last.hasNext()).toBe(false);
      const empty = await q.skip(100).find();
      expect(empty.items).toEqual([]);
      expect(empty.totalCount).toBe(14);
      const seen: string[] = [];
      for await (const p of q) seen.push(p.slug);
      expect(seen).toHaveLength(14);
      expect(new Set(seen).size).toBe(14);
    });

    it('reports tooManyToCount past the count limit and still pages to the end', async () => {
      const q = visitor(undefined, small).products.queryProducts().ascending('name').limit(4);
      const page = await q.find();
      expect(page.totalCount).toBeUndefined();
      expect(page.totalPages).toBeUndefined();
      const raw = await visitor(undefined, small).products.queryProducts({ paging: { limit: 4 } });
      expect(raw.metadata).toMatchObject({ count: 4, offset: 0, tooManyToCount: true });
      const seen: string[] = [];
      for await (const p of q) seen.push(p.slug);
      expect(seen).toHaveLength(14);
    });

    it('sends .r over GET, falls back to POST above 4000 characters, and includes variants on request', async () => {
      const { calls, fetchFn } = recordingFetch();
      const client = visitor(fetchFn);
      await client.products.queryProducts().eq('slug', 'gift-card').find();
      const get = calls.at(-1)!;
      expect(get.method).toBe('GET');
      expect(new URL(get.url).pathname).toBe('/stores-reader/v1/products/query-platformized');
      expect(new URL(get.url).searchParams.get('.r')).toBeTruthy();
      const slugs = Array.from({ length: 300 }, (_, i) => `no-such-product-${i}`).concat('canvas-tote');
      const page = await client.products.queryProducts({ includeVariants: true }).in('slug', slugs).find();
      const post = calls.at(-1)!;
      expect(post.method).toBe('POST');
      expect(JSON.parse(post.body!).query.filter.slug.$in).toHaveLength(301);
      expect(page.items.map((p) => p.slug)).toEqual(['canvas-tote']);
      expect(page.items[0]!.variants).toHaveLength(3);
      const hidden = await client.products
        .queryProducts({ filter: {} }, { includeHiddenProducts: true })
        .catch((e) => e);
      expect(hidden).toMatchObject({ status: 403 });
      const one = await client.products.queryProducts({ filter: { slug: 'gift-card' } });
      expect(one.products[0]!.variants).toBeUndefined();
      expect(one.metadata).toMatchObject({ count: 1, offset: 0, total: 1 });
    });

    it('rejects unknown fields, operators and bad paging as field violations', async () => {
      const q = visitor().products.queryProducts();
      const e1 = await q
        .eq('colour', 'red')
        .find()
        .catch((e) => e);
      expect(e1).toBeInstanceOf(ValidationError);
      expect(e1.message).toContain('filter.colour');
      const e2 = await q
        .hasSome('name', ['x'])
        .find()
        .catch((e) => e);
      expect(e2).toBeInstanceOf(ValidationError);
      const e3 = await q
        .limit(500)
        .find()
        .catch((e) => e);
      expect(e3.message).toContain('paging.limit');
      const e4 = await q
        .ascending('collectionIds')
        .find()
        .catch((e) => e);
      expect(e4.message).toContain('sort[0].fieldName');
    });
  });

  it('answers options availability: selected variant, media and whether it can be bought', async () => {
    const shirt = await bySlug('linen-shirt');
    const c = visitor().products;
    const partial = await c.getProductOptionsAvailability(shirt.id, { Color: 'Sand' });
    expect(partial.selectedVariant).toBeNull();
    expect(partial.availableForPurchase).toBe(false);
    expect(partial.media!.mainMedia!.id).toBe('linen-shirt-sand.svg');
    const sizes = partial.productOptions!.find((o) => o.name === 'Size')!.choices!;
    expect(sizes.map((s) => [s.description, s.inStock])).toEqual([
      ['S', true],
      ['M', true],
      ['L', false],
      ['XL', false],
    ]);
    const ok = await c.getProductOptionsAvailability(shirt.id, { Size: 'XL', Color: 'White' });
    expect(ok.selectedVariant).toMatchObject({
      price: { price: 72, discountedPrice: 72 },
      inStock: true,
      weight: 0.32,
    });
    expect(ok.availableForPurchase).toBe(true);
    const sold = await c.getProductOptionsAvailability(shirt.id, { Size: 'L', Color: 'Sand' });
    expect(sold.selectedVariant!.inStock).toBe(false);
    expect(sold.availableForPurchase).toBe(false);
    const bad = await c.getProductOptionsAvailability(shirt.id, { Size: 'XXL' }).catch((e) => e);
    expect(bad).toBeInstanceOf(ValidationError);
    expect(bad.message).toContain('"options.Size" has no choice "XXL"');
  });

  it('queries a product variants by choices, ids and paging', async () => {
    const shirt = await bySlug('linen-shirt');
    const c = visitor().products;
    const xl = await c.queryProductVariants(shirt.id, { choices: { Size: 'XL' } });
    expect(xl.totalResults).toBe(3);
    expect(xl.variants.every((v) => v.variant!.priceData!.price === 72)).toBe(true);
    expect(xl.variants[0]!.variant!.costAndProfitData).toBeUndefined();
    const paged = await c.queryProductVariants(shirt.id, { paging: { limit: 5, offset: 10 } });
    expect(paged).toMatchObject({ totalResults: 12, metadata: { items: 2, offset: 10 } });
    const one = await c.queryProductVariants(shirt.id, { variantIds: [xl.variants[1]!.id] });
    expect(one.variants.map((v) => v.choices)).toEqual([{ Size: 'XL', Color: 'Sand' }]);
    const m = await merchant().products.queryProductVariants(shirt.id, {
      variantIds: [xl.variants[1]!.id],
      includeMerchantSpecificData: true,
    });
    expect(m.variants[0]!.variant!.costAndProfitData).toMatchObject({ itemCost: 24, profit: 48 });
    const bad = await c.queryProductVariants(shirt.id, { paging: { limit: 1000 } }).catch((e) => e);
    expect(bad).toBeInstanceOf(ValidationError);
    expect(bad.message).toContain('options.paging.limit');
    // An unknown choice is a violation of the request's `choices`, not of options availability's `options`.
    const xxl = await c.queryProductVariants(shirt.id, { choices: { Size: 'XXL' } }).catch((e) => e);
    expect(xxl.details.validationError.fieldViolations).toMatchObject([
      { field: 'options.choices.Size', description: 'has no choice "XXL"' },
    ]);
    // With variant ids, choices are not relevant (the typings), as in updateProductVariants.
    for (const choices of [{ Size: 'S' }, { Size: 'XXL' }]) {
      const byIds = await c.queryProductVariants(shirt.id, { choices, variantIds: [xl.variants[1]!.id] });
      expect(byIds.variants.map((v) => v.choices)).toEqual([{ Size: 'XL', Color: 'Sand' }]);
    }
  });

  it('queries and gets store variants with media as wix:image references', async () => {
    const c = visitor().products;
    const tote = await bySlug('canvas-tote');
    const r = await c.queryStoreVariants({
      filter: { productId: tote.id },
      sort: [{ fieldName: 'variantName' }],
    });
    expect(r.variants.map((v) => v.variantName)).toEqual(['Black', 'Natural', 'Olive']);
    expect(r.metadata).toMatchObject({ count: 3, total: 3 });
    const v = r.variants[0]!;
    expect(v).toMatchObject({ productId: tote.id, productName: 'Canvas Tote', choices: { Color: 'Black' } });
    expect(v.media!.image).toMatch(
      /^wix:image:\/\/v1\/canvas-tote-black\.svg\/.+#originWidth=800&originHeight=800$/,
    );
    const { variant } = await c.getStoreVariant(v.id);
    expect(variant).toEqual(v);
    const out = await c.queryStoreVariants({
      filter: { 'stock.inStock': false, productName: 'Linen Shirt' },
    });
    expect(out.variants).toHaveLength(4);
    const cursor1 = await c.queryStoreVariants({
      filter: { productId: tote.id },
      cursorPaging: { limit: 2 },
    });
    expect(cursor1.variants).toHaveLength(2);
    const cursor2 = await c.queryStoreVariants({
      cursorPaging: { limit: 2, cursor: cursor1.metadata.cursors!.next! },
    });
    expect(cursor2.variants.map((x) => x.variantName)).toEqual(['Black']);
    expect(cursor2.metadata.cursors!.next).toBeNull();
    const bad = await c.getStoreVariant('not-a-variant-id').catch((e) => e);
    expect(bad).toBeInstanceOf(ValidationError);
    const missing = await c
      .getStoreVariant(`${tote.id}-00000000-0000-0000-0000-00000000000f`)
      .catch((e) => e);
    expect(missing.code).toBe('VARIANT_NOT_FOUND');
    const badQ = await c.queryStoreVariants({ filter: { price: 1 } }).catch((e) => e);
    expect(badQ).toBeInstanceOf(ValidationError);
  });

  it('puts every product in All Products, hidden ones too, and counts the members the caller can see', async () => {
    const [asVisitor, asMerchant] = await Promise.all(
      [visitor(), merchant()].map((c) => c.collections.getCollectionBySlug('all-products')),
    );
    expect(asVisitor!.collection.numberOfProducts).toBe(14);
    expect(asMerchant!.collection.numberOfProducts).toBe(15);
    const pitcher = await merchant()
      .products.queryProducts({ filter: { slug: 'enamel-pitcher' } }, { includeHiddenProducts: true })
      .then((r) => r.products[0]!);
    expect(pitcher.collectionIds).toEqual(['col-all-products', 'col-archive']);
    const archive = await merchant().collections.getCollectionBySlug('archive');
    expect(archive.collection.numberOfProducts).toBe(1);
  });

  it('gets v1 collections by slug and v2 collections with numberOfProducts from membership', async () => {
    const client = visitor();
    const { collection } = await client.products.getCollectionBySlug('sale');
    expect(collection).toMatchObject({ name: 'Sale', slug: 'sale', numberOfProducts: 3 });
    expect(collection.lastUpdated).toBeInstanceOf(Date);
    const v2 = await client.collections.getCollection(collection.id);
    expect(v2.numberOfProducts).toBe(3);
    const bySlugV2 = await client.collections.getCollectionBySlug('kitchen');
    expect(bySlugV2.collection.numberOfProducts).toBe(6);
    // `media.items` is always there: the platform SDK's typings have it non-nullable.
    expect(bySlugV2.collection.media).toEqual({
      mainMedia: { image: expect.objectContaining({ url: `${emu.url}/media/collection-kitchen.svg` }) },
      items: [],
    });
    const page = await client.collections.queryCollections().ascending('name').find();
    expect(page.items.length).toBeGreaterThanOrEqual(5);
    const emptySlug = await client.collections.getCollectionBySlug('').catch((e) => e);
    expect(emptySlug).toBeInstanceOf(ValidationError);
    expect(emptySlug.message).toContain('"slug"');
    const emptyId = await client.collections.getCollection('').catch((e) => e);
    expect(emptyId).toBeInstanceOf(ValidationError);
    const hiddenV2 = await client.collections.getCollectionBySlug('archive').catch((e) => e);
    expect(hiddenV2.code).toBe('COLLECTION_NOT_FOUND');
    const missing = await client.products.getCollectionBySlug('no-such-collection').catch((e) => e);
    expect(missing.code).toBe('COLLECTION_NOT_FOUND');
    const badQ = await client.collections
      .queryCollections()
      .eq('colour', 'x')
      .find()
      .catch((e) => e);
    expect(badQ).toBeInstanceOf(ValidationError);
  });
});
