/**
 * The products module's wire contract with a fake fetch: paths, methods, encodings, the float,
 * date, image and video transforms it declares, and the elevation guard.
 */
import { describe, expect, it } from 'vitest';
import { ApiKeyStrategy } from '../auth/api-key.ts';
import { createClient } from '../client.ts';
import * as products from './products.ts';

function fake(answer: unknown) {
  const calls: { method: string; url: URL; body?: any }[] = [];
  const fetchFn: typeof fetch = async (input, init) => {
    calls.push({
      method: init?.method ?? 'GET',
      url: new URL(String(input)),
      body: init?.body ? JSON.parse(init.body as string) : undefined,
    });
    return new Response(JSON.stringify(answer), { status: 200 });
  };
  const client = createClient({
    baseUrl: 'https://api.test',
    fetch: fetchFn,
    auth: ApiKeyStrategy({ apiKey: 'k' }),
    modules: { products },
  });
  return { calls, client };
}

describe('products module', () => {
  it('turns non-finite float strings and timestamps of products into numbers and Dates', async () => {
    const { client, calls } = fake({
      product: {
        id: 'p',
        name: 'P',
        slug: 'p',
        weight: 'NaN',
        price: { price: 'Infinity', discountedPrice: 3, pricePerUnit: '-Infinity' },
        priceRange: { minValue: 'NaN', maxValue: 2 },
        costAndProfitData: { profitMargin: 'Infinity' },
        discount: { type: 'PERCENT', value: 'NaN' },
        variants: [{ id: 'v', choices: {}, variant: { priceData: { price: 'NaN' }, weight: 'Infinity' } }],
        lastUpdated: '2026-01-02T03:04:05.000Z',
        createdDate: '2026-01-01T00:00:00.000Z',
        sku: 'NaN',
      },
    });
    const { product } = await client.products.getProduct('p', { includeMerchantSpecificData: true });
    expect(calls[0]!.url.pathname).toBe('/stores-reader/v1/products/p');
    expect(calls[0]!.url.searchParams.get('includeMerchantSpecificData')).toBe('true');
    expect(product.weight).toBeNaN();
    expect(product.price).toEqual({ price: Infinity, discountedPrice: 3, pricePerUnit: -Infinity });
    expect(product.priceRange!.minValue).toBeNaN();
    expect(product.costAndProfitData!.profitMargin).toBe(Infinity);
    expect(product.discount!.value).toBeNaN();
    expect(product.variants![0]!.variant!.priceData!.price).toBeNaN();
    expect(product.variants![0]!.variant!.weight).toBe(Infinity);
    expect(product.lastUpdated).toEqual(new Date('2026-01-02T03:04:05.000Z'));
    expect(product.createdDate).toBeInstanceOf(Date);
    expect(product.sku).toBe('NaN'); // not a float field
  });

  it('sends non-finite request floats as strings on create, variants, bulk update and adjust', async () => {
    const { client, calls } = fake({
      product: { id: 'p' },
      variants: [],
      results: [],
      bulkActionMetadata: {},
    });
    await client.products.createProduct({
      name: 'x',
      productType: 'physical',
      priceData: { price: Number.NaN },
    });
    await client.products.updateProduct('p', { weight: Infinity });
    await client.products.updateProductVariants('p', [{ variantIds: ['v'], price: -Infinity, cost: 1 }]);
    await client.products.bulkUpdateProductsProperty(['p'], { weight: Number.NaN });
    await client.products.bulkAdjustProductProperty({ price: { amount: Infinity } }, ['p']);
    expect(calls.map((c) => `${c.method} ${c.url.pathname}`)).toEqual([
      'POST /stores/v1/products',
      'PATCH /stores/v1/products/p',
      'PATCH /stores/v1/products/p/variants',
      'POST /stores/v1/bulk/products/update',
      'POST /stores/v1/bulk/products/adjust-properties',
    ]);
    expect(calls[0]!.body.product.priceData.price).toBe('NaN');
    expect(calls[1]!.body).toEqual({ product: { id: 'p', weight: 'Infinity' } });
    expect(calls[2]!.body).toEqual({
      id: 'p',
      variants: [{ variantIds: ['v'], price: '-Infinity', cost: 1 }],
    });
    expect(calls[3]!.body).toEqual({ ids: ['p'], set: { weight: 'NaN' } });
    expect(calls[4]!.body).toEqual({ adjust: { price: { amount: 'Infinity' } }, ids: ['p'] });
  });

  it('sends a sort origin as floats on both query calls (wire §5.3)', async () => {
    const { client, calls } = fake({ products: [], variants: [], metadata: {} });
    const sort = [{ fieldName: 'location', origin: { latitude: Number.NaN, longitude: 2.5 } }];
    await client.products.queryProducts({ sort });
    await client.products.queryStoreVariants({ sort });
    const wire = [{ fieldName: 'location', origin: { latitude: 'NaN', longitude: 2.5 } }];
    const r = calls[0]!.url.searchParams.get('.r')!;
    expect(JSON.parse(Buffer.from(r, 'base64url').toString()).query.sort).toEqual(wire);
    expect(calls[1]!.body.query.sort).toEqual(wire);
    expect(sort[0]!.origin.latitude).toBeNaN(); // the caller's object is left alone
  });

  it('converts store-variant media: dates and focal points first, then wix:image / wix:video references', async () => {
    const variant = {
      id: 'p-v',
      variantId: 'v',
      productId: 'p',
      media: {
        image: {
          id: 'img.png',
          url: 'https://media.test/img.png',
          width: 640,
          height: 480,
          altText: 'A shirt',
          urlExpirationDate: '2026-05-01T00:00:00.000Z',
          focalPoint: { x: 'NaN', y: 0.5 },
        },
      },
    };
    const video = {
      ...variant,
      media: {
        video: {
          id: 'vid.mp4',
          urlExpirationDate: '2026-05-01T00:00:00.000Z',
          resolutions: [
            {
              url: 'https://media.test/vid.mp4',
              width: 1280,
              height: 720,
              urlExpirationDate: '2026-05-01T00:00:00.000Z',
              poster: {
                id: 'p1',
                urlExpirationDate: '2026-05-01T00:00:00.000Z',
                focalPoint: { x: 'Infinity' },
              },
            },
          ],
          posters: [
            { id: 'poster-a', width: 10, height: 10 },
            { id: 'poster-b', width: 320, height: 180, urlExpirationDate: '2026-05-01T00:00:00.000Z' },
          ],
        },
      },
    };
    const one = fake({ variant });
    const got = await one.client.products.getStoreVariant('p-v');
    expect(one.calls[0]!.url.pathname).toBe('/stores-reader/v1/variants/p-v');
    expect(got.variant.media).toEqual({
      image: 'wix:image://v1/img.png/A%20shirt#originWidth=640&originHeight=480',
    });
    const many = fake({
      variants: [video, { ...variant, media: { image: { url: 'https://x.test/a.png' } } }],
      metadata: {},
    });
    const r = await many.client.products.queryStoreVariants({ filter: { productId: 'p' } });
    expect(many.calls[0]).toMatchObject({ method: 'POST', body: { query: { filter: { productId: 'p' } } } });
    expect(r.variants[0]!.media).toEqual({
      video: 'wix:video://v1/vid.mp4#posterUri=poster-b&posterWidth=320&posterHeight=180',
    });
    expect(r.variants[1]!.media).toEqual({ image: 'https://x.test/a.png' });
  });

  it('options availability and variant queries: paths, bodies and float fields', async () => {
    const { client, calls } = fake({
      selectedVariant: { id: 'v', choices: {}, price: { price: 'NaN' }, weight: 'Infinity' },
      availableForPurchase: false,
      variants: [{ id: 'v', choices: {}, variant: { costAndProfitData: { profit: '-Infinity' } } }],
      metadata: { items: 1, offset: 0 },
      totalResults: 1,
    });
    const a = await client.products.getProductOptionsAvailability('p', { Size: 'M' });
    expect(a.selectedVariant!.price!.price).toBeNaN();
    expect(a.selectedVariant!.weight).toBe(Infinity);
    const q = await client.products.queryProductVariants('p', {
      choices: { Size: 'M' },
      paging: { limit: 5 },
    });
    expect(q.variants[0]!.variant!.costAndProfitData!.profit).toBe(-Infinity);
    expect(calls.map((c) => [c.method, c.url.pathname, c.body])).toEqual([
      [
        'POST',
        '/stores-reader/v1/products/p/productOptionsAvailability',
        { id: 'p', options: { Size: 'M' } },
      ],
      [
        'POST',
        '/stores-reader/v1/products/p/variants/query',
        { id: 'p', choices: { Size: 'M' }, paging: { limit: 5 } },
      ],
    ]);
  });

  it('tells a one-shot query from builder options, and encodes queries as .r', async () => {
    const { client, calls } = fake({ products: [], metadata: { count: 0, offset: 0, total: 0 } });
    const one = await client.products.queryProducts({ filter: { slug: 'x' } }, { includeVariants: true });
    expect(one.metadata.total).toBe(0);
    const r = JSON.parse(Buffer.from(calls[0]!.url.searchParams.get('.r')!, 'base64url').toString());
    expect(r).toEqual({ query: { filter: { slug: 'x' } }, includeVariants: true });
    const page = await client.products.queryProducts({ includeHiddenProducts: true }).eq('slug', 'y').find();
    expect(page.items).toEqual([]);
    const r2 = JSON.parse(Buffer.from(calls[1]!.url.searchParams.get('.r')!, 'base64url').toString());
    expect(r2).toEqual({
      query: { filter: { slug: 'y' }, paging: { offset: 0, limit: 50 } },
      includeHiddenProducts: true,
    });
  });

  it('takes an empty query followed by options or call options as a query, as its type says', async () => {
    const { client, calls } = fake({ products: [], metadata: { count: 0, offset: 0, total: 0 } });
    const all = await products.queryProducts(client, {}, { includeVariants: true });
    expect(all.products).toEqual([]);
    expect(calls[0]!.url.pathname).toBe('/stores-reader/v1/products/query-platformized');
    expect(calls[0]!.url.searchParams.get('includeVariants')).toBe('true');
    const ctl = new AbortController();
    expect((await client.products.queryProducts({}, undefined, { signal: ctl.signal })).products).toEqual([]);
    expect(calls).toHaveLength(2);
    // Alone, `{}` is still the builder's options.
    expect(typeof (client.products.queryProducts({}) as { find?: unknown }).find).toBe('function');
  });

  it('sends a filter on null or on an empty list as .r, as the platform SDK does (wire §1.4)', async () => {
    // The platform SDK's `toURLSearchParams(msg, true)` tests the flattened keys, null-valued ones
    // included: `query.filter.ribbon` is dotted, so the message goes whole as `.r`. Dropped, the
    // filter would be lost and every product answered.
    const { client, calls } = fake({ products: [], metadata: { count: 0, offset: 0, total: 0 } });
    await client.products.queryProducts({ filter: { ribbon: null } });
    await client.products.queryProducts({ filter: { collectionIds: { $hasSome: [] } } });
    expect(calls.map((c) => c.url.search)).toEqual([
      '?.r=eyJxdWVyeSI6eyJmaWx0ZXIiOnsicmliYm9uIjpudWxsfX19',
      '?.r=eyJxdWVyeSI6eyJmaWx0ZXIiOnsiY29sbGVjdGlvbklkcyI6eyIkaGFzU29tZSI6W119fX19',
    ]);
  });

  it('reads a page whose answer leaves out an empty item list as an empty page', async () => {
    // The platform SDK's builder reads `items ?? []` (sdk-runtime query-builder.js).
    const { client } = fake({ metadata: { count: 0, offset: 0, total: 0 } });
    const page = await client.products.queryProducts().find();
    expect(page.items).toEqual([]);
    const all = [];
    for await (const p of client.products.queryProducts()) all.push(p);
    expect(all).toEqual([]);
  });

  it('builds video references as the platform SDK does: encoded file name, poster id from its URL', async () => {
    // sdk-runtime transformations/video-v2.js: `encodeURIComponent(filename)`; a poster without an
    // id takes the last segment of its URL.
    const media = {
      video: {
        id: 'vid.mp4',
        filename: 'my clip#1.mp4',
        posters: [{ url: 'https://media.test/poster.jpg', width: 320, height: 180 }],
      },
    };
    const { client } = fake({ variant: { id: 'p-v', variantId: 'v', productId: 'p', media } });
    const { variant } = await client.products.getStoreVariant('p-v');
    expect(variant.media!.video).toBe(
      'wix:video://v1/vid.mp4/my%20clip%231.mp4#posterUri=poster.jpg&posterWidth=320&posterHeight=180',
    );
  });

  it('void writes resolve to undefined and use the wire paths', async () => {
    const { client, calls } = fake({});
    const results = await Promise.all([
      client.products.deleteProduct('p'),
      client.products.resetAllProductVariantData('p'),
      client.products.addProductsToCollection('c', ['p']),
      client.products.removeProductsFromCollection('c', ['p']),
      client.products.addProductMedia('p', [{ mediaId: 'm' }]),
      client.products.removeProductMedia('p', []),
      client.products.addProductMediaToChoices('p', [{ option: 'o', choice: 'c', mediaIds: ['m'] }]),
      client.products.removeProductMediaFromChoices('p', [{ option: 'o', choice: 'c', mediaIds: ['m'] }]),
      client.products.deleteProductOptions('p'),
      client.products.removeBrand('p'),
      client.products.removeRibbon('p'),
      client.products.deleteCollection('c'),
    ]);
    expect(results.every((r) => r === undefined)).toBe(true);
    expect(calls.map((c) => `${c.method} ${c.url.pathname}`).sort()).toEqual(
      [
        'DELETE /stores/v1/products/p',
        'POST /stores/v1/products/p/variants/resetToDefault',
        'POST /stores/v1/collections/c/productIds',
        'POST /stores/v1/collections/c/productIds/delete',
        'POST /stores/v1/products/p/media',
        'POST /stores/v1/products/p/media/delete',
        'PATCH /stores/v1/products/p/choices/media',
        'POST /stores/v1/products/p/choices/media/delete',
        'DELETE /stores/v1/products/p/options',
        'POST /stores/v1/products/p/remove-brand',
        'POST /stores/v1/products/p/remove-ribbon',
        'DELETE /stores/v1/collections/c',
      ].sort(),
    );
  });

  it('refuses writes on a client without elevated auth, before any request', async () => {
    const calls: string[] = [];
    const client = createClient({
      baseUrl: 'https://api.test',
      fetch: async (u) => {
        calls.push(String(u));
        return new Response('{}');
      },
      modules: { products },
    });
    await expect(client.products.deleteProduct('p')).rejects.toThrow(
      'products.deleteProduct needs an elevated client (ApiKeyStrategy or AppStrategy); this client has none.',
    );
    await expect(client.products.createCollection({ name: 'x' })).rejects.toMatchObject({
      code: 'ELEVATION_REQUIRED',
    });
    expect(calls).toEqual([]);
  });
});
