/**
 * A fresh look at the merchant catalog calls over HTTP: the types say what the wire takes (checked
 * by the package's typecheck in `typeContract`), bad input fails as a ValidationError naming the
 * caller's field, non-finite numbers are refused rather than sent as `null`, values survive a write
 * and a read (0, the largest prices, long and unicode names, dates, media), and a refused write or a
 * failed bulk item leaves nothing changed.
 */
import { testBackends } from '@shopkit/emulator/testing';
import { describe, expect, it } from 'vitest';
import { collections, ProductDiscountType, products, ValidationError } from '../../src/index.ts';
import type { Collection } from '../../src/modules/collections.ts';
import type { MediaItem, ProductInput } from '../../src/modules/products.ts';
import { failure, merchantClient, setupEmulator } from './setup.ts';

type Merchant = ReturnType<typeof merchantClient<{ products: typeof products }>>['products'];

/**
 * Never called: `tsc` checks it. Each `@ts-expect-error` line is a shape the platform refuses
 * (wire §5.3), which the types must refuse too; the other lines are shapes it takes.
 */
export function typeContract(m: Merchant, c: Collection) {
  // @ts-expect-error `set` holds exactly one of price, cost, weight, ribbon, brand.
  void m.bulkUpdateProductsProperty(['p'], { price: 1, cost: 2 });
  // @ts-expect-error `adjust` adjusts exactly one of price, cost, weight.
  void m.bulkAdjustProductProperty({ price: { amount: 1 }, cost: { amount: 1 } }, ['p']);
  // @ts-expect-error an adjustment is an amount or a percentage, not both.
  void m.bulkAdjustProductProperty({ price: { amount: 1, percentage: { rate: 1 } } }, ['p']);
  // @ts-expect-error a media item is a media id or a URL, not both.
  void m.addProductMedia('p', [{ mediaId: 'a.svg', url: 'https://x.example/a.png' }]);
  // @ts-expect-error nor neither.
  void m.addProductMedia('p', [{ choice: { option: 'Color', choice: 'Red' } }]);
  // @ts-expect-error a collection is created with a name (wire §5.3: `{collection:{name, …}}`).
  void m.createCollection({ description: 'x' });
  // @ts-expect-error a product's discount is NONE, AMOUNT or PERCENT (wire §5.3).
  void m.updateProduct('p', { discount: { type: 'UNDEFINED' } });
  void m.updateProduct('p', {
    pricePerUnitData: {
      totalQuantity: 1,
      // @ts-expect-error a unit price is per a unit, not UNSPECIFIED.
      totalMeasurementUnit: 'UNSPECIFIED',
      baseQuantity: 1,
      baseMeasurementUnit: 'KG',
    },
  });
  void m.bulkUpdateProductsProperty(['p'], { ribbon: 'New' });
  void m.bulkAdjustProductProperty({ weight: { percentage: { rate: 5, roundToInt: true } } }, ['p']);
  void m.addProductMedia('p', [
    { url: 'https://x.example/a.png', choice: { option: 'Color', choice: 'Red' } },
  ]);
  // A collection's main image, as read, can be written back: sizes and alt text included.
  const { url, width, height, altText } = c.media!.mainMedia!.image!;
  void m.updateCollection(c.id, { media: { mainMedia: { image: { url, width, height, altText } } } });
  // Collection media items are media items, not `unknown`.
  const items: MediaItem[] | undefined = c.media?.items;
  return items;
}

describe.each(testBackends())('merchant catalog calls, audit 3 (%s)', (backend) => {
  const emu = setupEmulator(backend);
  const merchant = (): Merchant => merchantClient(emu, { products, collections }).products;
  let made = 0;
  const newProduct = async (name: string, extra: ProductInput = {}) =>
    (
      await merchant().createProduct({
        name: `${name} ${++made}`,
        productType: 'physical',
        priceData: { price: 20 },
        ...extra,
      })
    ).product;
  const violations = (e: { details: { validationError?: { fieldViolations: object[] } } }) =>
    e.details.validationError!.fieldViolations.map((v) => {
      const { field, description } = v as { field: string; description: string };
      return `${field} ${description}`;
    });

  it('refuses shapes the types refuse, so the types say what the wire takes', async () => {
    const m = merchant();
    const p = await newProduct('Typed');
    const refused = [
      await failure(m.bulkUpdateProductsProperty([p.id], { price: 1, cost: 2 } as never)),
      await failure(
        m.bulkAdjustProductProperty({ price: { amount: 1 }, cost: { amount: 1 } } as never, [p.id]),
      ),
      await failure(m.addProductMedia(p.id, [{ mediaId: 'a.svg', url: 'https://x.example/a.png' } as never])),
      await failure(m.addProductMedia(p.id, [{} as never])),
      await failure(m.createCollection({ description: 'x' } as never)),
      await failure(m.updateProduct(p.id, { discount: { type: 'UNDEFINED' as never } })),
    ];
    for (const e of refused) expect(e).toBeInstanceOf(ValidationError);
    expect(refused.map((e) => violations(e)[0]!.split(' ')[0])).toEqual([
      'set',
      'adjust',
      'media[0]',
      'media[0]',
      'collection.name',
      'product.discount.type',
    ]);
    const { product } = await m.getProduct(p.id);
    expect(product.media).toEqual({ items: [] });
    expect(product.discount).toEqual({ type: ProductDiscountType.NONE, value: 0 });
  });

  it('refuses a non-finite percentage as not finite, not as missing, and changes nothing', async () => {
    const m = merchant();
    const p = await newProduct('Rate');
    for (const rate of [Number.NaN, Infinity, -Infinity]) {
      const e = await failure(m.bulkAdjustProductProperty({ price: { percentage: { rate } } }, [p.id]));
      expect(e).toBeInstanceOf(ValidationError);
      // JSON.stringify would send `null`: "is required", about a value the caller did give.
      expect(violations(e)).toEqual(['adjust.price.percentage.rate must be a finite number']);
    }
    expect((await m.getProduct(p.id)).product.price!.price).toBe(20);
  });

  it('refuses a patch that is not an object, naming it, instead of sending an empty patch', async () => {
    const m = merchant();
    const p = await newProduct('Patch');
    const { collection } = await m.createCollection({ name: `Patch ${++made}` });
    for (const bad of ['{"name":"New"}', ['name'], 5, true]) {
      const e1 = await failure(m.updateProduct(p.id, bad as never));
      expect(e1).toBeInstanceOf(ValidationError);
      expect(violations(e1)).toEqual(['product must be an object']);
      const e2 = await failure(m.updateCollection(collection.id, bad as never));
      expect(e2).toBeInstanceOf(ValidationError);
      expect(violations(e2)).toEqual(['collection must be an object']);
    }
    // Nothing was written: no change, not even the time of the last change.
    expect((await m.getProduct(p.id)).product.lastUpdated).toEqual(p.lastUpdated);
    const again = await emu.emu.db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM events WHERE entity_id = $1 AND type LIKE '%Changed'",
      [collection.id],
    );
    expect(again[0]!.n).toBe(0);
  });

  it('refuses to remove media without a list: only [] removes every item', async () => {
    const m = merchant();
    const p = await newProduct('Gallery');
    await m.addProductMedia(p.id, [{ mediaId: 'front.svg' }, { mediaId: 'back.svg' }]);
    for (const missing of [undefined, null, 'front.svg']) {
      const e = await failure(m.removeProductMedia(p.id, missing as never));
      expect(e).toBeInstanceOf(ValidationError);
      expect(violations(e)[0]).toMatch(/^mediaIds must be a list of media ids/);
    }
    const kept = (await m.getProduct(p.id)).product.media!.items!.map((i) => i.id);
    expect(kept).toEqual(['front.svg', 'back.svg']);
    await m.removeProductMedia(p.id, []);
    expect((await m.getProduct(p.id)).product.media).toEqual({ items: [] });
  });

  it("names the caller's own field in every merchant call's violations, never a TypeError", async () => {
    const m = merchant();
    const p = await newProduct('Fields', {
      productOptions: [{ name: 'Size', choices: [{ description: 'S' }] }],
    });
    const { collection } = await m.createCollection({ name: `Fields ${++made}` });
    const cases: [() => Promise<unknown>, string][] = [
      [
        () => m.createProduct({ name: 'x'.repeat(81), productType: 'physical', priceData: { price: 1 } }),
        'product.name',
      ],
      [() => m.updateProduct('', { name: 'x' }), 'id'],
      [() => m.updateProduct(p.id, { slug: 'Not A Slug' }), 'product.slug'],
      [() => m.deleteProduct(''), 'id'],
      [
        () => m.updateProductVariants(p.id, [{ variantIds: ['nope'], price: 1 }]),
        'variants[0].variantIds[0]',
      ],
      [() => m.updateProductVariants(p.id, [{ choices: { Size: 'S' }, cost: -1 }]), 'variants[0].cost'],
      [() => m.resetAllProductVariantData('..'), 'id'],
      [() => m.addProductsToCollection(collection.id, []), 'productIds'],
      [() => m.removeProductsFromCollection(collection.id, ['nope']), 'productIds[0]'],
      [() => m.addProductMedia(p.id, [{ url: 'ftp://x.example/a.png' }]), 'media[0].url'],
      [() => m.removeProductMedia(p.id, ['nope']), 'mediaIds[0]'],
      [
        () => m.addProductMediaToChoices(p.id, [{ option: 'Size', choice: 'XL', mediaIds: ['a'] }]),
        'media[0].choice',
      ],
      [
        () => m.removeProductMediaFromChoices(p.id, [{ option: 'Hue', choice: 'S', mediaIds: ['a'] }]),
        'media[0].option',
      ],
      [() => m.deleteProductOptions(''), 'id'],
      [() => m.removeBrand(''), 'id'],
      [() => m.removeRibbon(''), 'id'],
      [() => m.createCollection({ name: 'x'.repeat(51) }), 'collection.name'],
      [() => m.updateCollection(collection.id, { slug: 'Bad Slug' }), 'collection.slug'],
      [() => m.updateCollection('', { name: 'x' }), 'id'],
      [() => m.deleteCollection(''), 'id'],
      [() => m.bulkUpdateProductsProperty([p.id, p.id], { price: 1 }), 'ids[1]'],
      [() => m.bulkUpdateProductsProperty([p.id], { brand: 'b'.repeat(51) }), 'set.brand'],
      [() => m.bulkAdjustProductProperty({ cost: { amount: 0.001 } }, [p.id]), 'adjust.cost.amount'],
      [() => m.bulkAdjustProductProperty({ price: { amount: 1 } }, []), 'ids'],
    ];
    const got = [];
    for (const [call] of cases) {
      const e = await failure(call());
      got.push([e instanceof ValidationError, violations(e)[0]!.split(' ')[0]]);
    }
    expect(got).toEqual(cases.map(([, field]) => [true, field]));
  });

  it('round-trips edge values: 0, the largest amounts, long unicode text, dates', async () => {
    const m = merchant();
    const name = `Ünïcødé 🎉 ${'ß'.repeat(60)}`.slice(0, 80);
    const zero = await newProduct('Zero', {
      priceData: { price: 0 },
      costAndProfitData: { itemCost: 0 },
      weight: 0,
      description: '日本語の説明 — émoji 🎉 <b>bold</b>',
      sku: 'SKU-ß-🎉',
      ribbon: 'Neu ✨',
      brand: 'Bränd™',
      productOptions: [{ name: 'Größe', choices: [{ description: 'klein 🐜' }] }],
    });
    const big = await newProduct('Big', {
      priceData: { price: 999_999_999.99 },
      costAndProfitData: { itemCost: 999_999_999.99 },
      weight: 999_999_999.99,
      discount: { type: 'AMOUNT', value: 0.01 },
    });
    const { product: named } = await m.updateProduct(zero.id, { name });
    expect(named.name).toBe(name);
    const read = async (id: string) =>
      (await m.getProduct(id, { includeMerchantSpecificData: true })).product;
    const z = await read(zero.id);
    expect(z).toMatchObject({
      name,
      description: '日本語の説明 — émoji 🎉 <b>bold</b>',
      sku: 'SKU-ß-🎉',
      ribbon: 'Neu ✨',
      brand: 'Bränd™',
      weight: 0,
      price: { price: 0, discountedPrice: 0 },
      costAndProfitData: { itemCost: 0, profit: 0 },
    });
    expect(z.variants![0]!.choices).toEqual({ Größe: 'klein 🐜' });
    // Dates: the write's answer and a later read name the same instants, as Dates.
    expect(z.createdDate).toBeInstanceOf(Date);
    expect(z.createdDate).toEqual(zero.createdDate);
    expect(z.lastUpdated).toEqual(named.lastUpdated);
    const b = await read(big.id);
    expect(b).toMatchObject({
      weight: 999_999_999.99,
      price: { price: 999_999_999.99, discountedPrice: 999_999_999.98 },
      costAndProfitData: { itemCost: 999_999_999.99 },
      discount: { type: 'AMOUNT', value: 0.01 },
    });
    // Variant values of 0 and the largest amounts.
    const v = zero.variants![0]!.id;
    const { variants } = await m.updateProductVariants(zero.id, [
      { variantIds: [v], price: 999_999_999.99, cost: 0, weight: 999_999_999.99 },
    ]);
    const after = (await read(zero.id)).variants![0]!.variant!;
    expect(after).toEqual(variants[0]!.variant);
    expect(after).toMatchObject({
      priceData: { price: 999_999_999.99 },
      costAndProfitData: { itemCost: 0 },
      weight: 999_999_999.99,
    });
    await m.bulkUpdateProductsProperty([big.id], { price: 0 });
    expect((await read(big.id)).price).toMatchObject({ price: 0, discountedPrice: 0 });
  });

  it('round-trips media: product media by id and URL, collection images with their sizes', async () => {
    const m = merchant();
    const p = await newProduct('Media', {
      productOptions: [
        { name: 'Color', optionType: 'color', choices: [{ description: 'Red', value: '#aa0000' }] },
      ],
    });
    const urls = ['https://cdn.example.com/a b/ünï.png?x=1&y=ü', 'https://cdn.example.com/%E2%9C%93.mp4'];
    await m.addProductMedia(p.id, [
      { mediaId: '22e53e_efc1552d~mv2.jpg' },
      { url: urls[0]! },
      { url: urls[1]!, choice: { option: 'Color', choice: 'Red' } },
    ]);
    const { product } = await m.getProduct(p.id);
    const items = product.media!.items!;
    expect(items.map((i) => i.mediaType)).toEqual(['image', 'image', 'video']);
    expect(items[0]!.id).toBe('22e53e_efc1552d~mv2.jpg');
    expect(items[1]!.image!.url).toBe(urls[0]);
    expect(items[2]!.video!.files![0]!.url).toBe(urls[1]);
    expect(product.productOptions![0]!.choices![0]!.media!.items!.map((i) => i.id)).toEqual([items[2]!.id]);

    const image = {
      url: 'https://cdn.example.com/Ñandú 🎉.png',
      width: 1200,
      height: 0,
      altText: 'Ñandú 🎉',
    };
    const { collection } = await m.createCollection({
      name: `Ñandú 🎉 ${++made}`,
      description: 'ü'.repeat(600),
      media: { mainMedia: { image } },
    });
    expect(collection.media!.mainMedia!.image).toEqual(image);
    const v1 = (await m.getCollectionBySlug(collection.slug)).collection;
    const v2 = await merchantClient(emu, { collections }).collections.getCollection(collection.id);
    for (const c of [v1, v2]) {
      expect(c).toMatchObject({ name: collection.name, description: 'ü'.repeat(600) });
      expect(c.media!.mainMedia!.image).toEqual(image);
      expect(c.lastUpdated).toEqual(collection.lastUpdated);
    }
    // What was read is written back as it is.
    const { collection: same } = await m.updateCollection(collection.id, {
      media: { mainMedia: { image: v2.media!.mainMedia!.image! } },
    });
    expect(same.media!.mainMedia!.image).toEqual(image);
  });

  it('leaves nothing half-written when a write is refused', async () => {
    const m = merchant();
    const p = await newProduct('Whole', {
      productOptions: [{ name: 'Size', choices: [{ description: 'S' }, { description: 'M' }] }],
    });
    const taken = await newProduct('Taken');
    const read = async () => (await m.getProduct(p.id, { includeMerchantSpecificData: true })).product;
    const before = await read();
    const refused = [
      () => m.updateProduct(p.id, { name: 'Renamed', discount: { type: 'PERCENT', value: 101 } }),
      () => m.updateProduct(p.id, { name: 'Renamed', slug: taken.slug }),
      () =>
        m.updateProductVariants(p.id, [
          { choices: { Size: 'S' }, price: 5 },
          { choices: { Size: 'XL' }, price: 6 },
        ]),
      () => m.addProductMedia(p.id, [{ mediaId: 'ok.svg' }, { mediaId: 'bad/../id' }]),
      () =>
        m.addProductMediaToChoices(p.id, [
          { option: 'Size', choice: 'S', mediaIds: ['none.svg'] },
          { option: 'Nope', choice: 'S', mediaIds: ['none.svg'] },
        ]),
      () => m.bulkUpdateProductsProperty([p.id, taken.id], { price: 1.005 }),
    ];
    for (const call of refused) expect(await failure(call())).toBeInstanceOf(ValidationError);
    const after = await read();
    expect({ ...after, lastUpdated: undefined }).toEqual({ ...before, lastUpdated: undefined });
    expect(after.lastUpdated).toEqual(before.lastUpdated);
    expect((await m.getProduct(taken.id)).product.price!.price).toBe(20);

    const { collection } = await m.createCollection({ name: `Whole ${++made}` });
    expect(await failure(m.addProductsToCollection(collection.id, [p.id, 'missing']))).toBeInstanceOf(
      ValidationError,
    );
    expect((await m.getProduct(p.id)).product.collectionIds).not.toContain(collection.id);
  });

  it('reports every bulk item; a failed item is left whole, variant overrides included', async () => {
    const m = merchant();
    const a = await newProduct('Bulk A', {
      productOptions: [{ name: 'Size', choices: [{ description: 'S' }, { description: 'M' }] }],
    });
    const b = await newProduct('Bulk B', { priceData: { price: 50 } });
    // A's S variant is 5: an adjustment of -10 takes it below 0 though the product's 20 would not.
    await m.updateProductVariants(a.id, [{ choices: { Size: 'S' }, price: 5 }]);
    const before = (await m.getProduct(a.id)).product;
    const r = await m.bulkAdjustProductProperty({ price: { amount: -10 } }, [a.id, 'missing', b.id]);
    expect(r.results).toHaveLength(3);
    expect(r.results.map(({ itemMetadata: i }) => [i.originalIndex, i.id, i.success, i.error?.code])).toEqual(
      [
        [0, a.id, false, 'NEGATIVE_VALUE'],
        [1, 'missing', false, 'PRODUCT_NOT_FOUND'],
        [2, b.id, true, undefined],
      ],
    );
    expect(r.bulkActionMetadata).toEqual({ totalSuccesses: 1, totalFailures: 2, undetailedFailures: 0 });
    const after = (await m.getProduct(a.id)).product;
    expect(after.price!.price).toBe(20);
    expect(after.variants!.map((v) => v.variant!.priceData!.price)).toEqual([5, 20]);
    expect(after.lastUpdated).toEqual(before.lastUpdated);
    expect((await m.getProduct(b.id)).product.price!.price).toBe(40);
  });
});
