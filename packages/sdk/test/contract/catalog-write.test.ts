/**
 * Catalog writes through the SDK against the emulator over HTTP: products, variants, media,
 * options, brand and ribbon, collections and bulk edits; elevation, field violations, nothing
 * half-written, and the lifecycle events each write records.
 */
import { testBackends } from '@shopkit/emulator/testing';
import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  ApplicationError,
  collections,
  createClient,
  ProductDiscountType,
  type ProductInput,
  products,
  type SeoData,
  ShopkitError,
  ValidationError,
} from '../../src/index.ts';
import { merchantClient, setupEmulator, visitorClient } from './setup.ts';

describe.each(testBackends())('catalog writes over HTTP (%s)', (backend) => {
  const emu = setupEmulator(backend);

  const merchant = () => merchantClient(emu, { products, collections }).products;
  const visitor = () => visitorClient(emu, { products, collections });
  const events = async (entityId: string) =>
    (
      await emu.emu.db.query<{ type: string }>(
        'SELECT type FROM events WHERE entity_id = $1 ORDER BY created_at, type',
        [entityId],
      )
    ).map((e) => e.type);
  const fail = (p: Promise<unknown>) =>
    p.then(
      () => undefined as any,
      (e) => e,
    );

  const newProduct = (name: string, extra: ProductInput = {}) =>
    merchant().createProduct({ name, productType: 'physical', priceData: { price: 20 }, ...extra });

  it('creates a product with options, generated variants, a unique slug and a created event', async () => {
    const { product } = await newProduct('Field Jacket', {
      description: 'Waxed cotton.',
      weight: 1.2,
      costAndProfitData: { itemCost: 8.5 },
      discount: { type: ProductDiscountType.PERCENT, value: 12.5 },
      stock: { trackInventory: true, quantity: 3 },
      productOptions: [
        { name: 'Size', choices: [{ description: 'M' }, { description: 'L' }] },
        { name: 'Color', optionType: 'color', choices: [{ description: 'Olive', value: '#6b7045' }] },
      ],
    });
    expect(product).toMatchObject({
      name: 'Field Jacket',
      slug: 'field-jacket',
      price: { price: 20, discountedPrice: 17.5 },
      costAndProfitData: { itemCost: 8.5, profit: 9, profitMargin: 0.5143 },
      stock: { trackInventory: true, quantity: 6, inventoryStatus: 'IN_STOCK' },
      collectionIds: ['col-all-products'],
    });
    expect(product.variants!.map((v) => v.choices)).toEqual([
      { Size: 'M', Color: 'Olive' },
      { Size: 'L', Color: 'Olive' },
    ]);
    expect(product.createdDate).toBeInstanceOf(Date);
    const again = await newProduct('Field Jacket');
    expect(again.product.slug).toBe('field-jacket-2');
    expect(await events(product.id)).toEqual(['com.wix.ecommerce.catalog.api.v1.ProductCreated']);
  });

  it('keeps SEO tags and settings as given, typed as the platform types them', async () => {
    const seoData: SeoData = {
      tags: [
        { type: 'title', children: 'Field Jacket | Shop', custom: false, disabled: false },
        { type: 'meta', props: { name: 'description', content: 'Waxed cotton.' }, meta: null },
      ],
      settings: { preventAutoRedirect: true, keywords: [{ term: 'jacket', isMain: true, origin: null }] },
    };
    const { product } = await newProduct('SEO Jacket', { seoData });
    expect(product.seoData).toEqual(seoData);
    const read = await visitor().products.getProduct(product.id);
    expect(read.product.seoData).toEqual(seoData);
    expectTypeOf(read.product.seoData!.tags![0]!.children).toEqualTypeOf<string | undefined>();
    expectTypeOf(read.product.seoData!.settings!.keywords![0]!.isMain).toEqualTypeOf<boolean | undefined>();
    // @ts-expect-error a tag's type is a string, not a number.
    const wrong: ProductInput = { seoData: { tags: [{ type: 1 }] } };
    void wrong; // checked by tsc, not at run time
  });

  it('refuses bad product input with field violations and writes nothing', async () => {
    const before = (await visitor().products.queryProducts().find()).totalCount;
    const e1 = await fail(
      merchant().createProduct({ name: '', productType: 'physical', priceData: { price: Number.NaN } }),
    );
    expect(e1).toBeInstanceOf(ValidationError);
    // NaN travels as the string "NaN" (wire §2), read as the number it names.
    expect(e1.message).toMatch(
      /^INVALID_ARGUMENT: "product.name" .*"product.priceData.price" must be a finite number/,
    );
    // Deliberately without the required price: the platform's refusal is what is tested.
    const e2 = await fail(merchant().createProduct({ name: 'X', productType: 'physical' } as never));
    expect(e2.message).toContain('"product.priceData.price" is required');
    const e3 = await fail(newProduct('Y', { priceData: { price: 1.234 } }));
    expect(e3.details.validationError.fieldViolations[0]).toMatchObject({
      field: 'product.priceData.price',
      violatedRule: 'DECIMAL_MAX_SCALE',
    });
    const e4 = await fail(
      newProduct('Z', {
        productOptions: [
          { name: 'Color', optionType: 'color', choices: [{ description: 'Red', value: 'red' }] },
        ],
      }),
    );
    expect(e4.message).toContain('"product.productOptions[0].choices[0].value" must be a colour code');
    const e5 = await fail(newProduct('W', { discount: { type: 'PERCENT', value: 120 } }));
    expect(e5.message).toContain('"product.discount.value" must be at most 100');
    const e6 = await fail(newProduct('V', { slug: 'linen-shirt' }));
    expect(e6.message).toContain('"product.slug" is already used by another product');
    expect((await visitor().products.queryProducts().find()).totalCount).toBe(before);
  });

  it('concurrent creates with one slug: one wins, the other gets the slug violation', async () => {
    const results = await Promise.allSettled(
      Array.from({ length: 4 }, (_, i) => newProduct(`Race ${i}`, { slug: 'race-slug' })),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    for (const r of results.filter((x) => x.status === 'rejected'))
      expect((r as PromiseRejectedResult).reason.message).toContain(
        '"product.slug" is already used by another product',
      );
  });

  it('needs elevation: refused locally without an elevated client, 403 for a visitor token', async () => {
    const local = await fail(
      visitor().products.createProduct({ name: 'A', productType: 'physical', priceData: { price: 1 } }),
    );
    expect(local).toBeInstanceOf(ShopkitError);
    expect(local.code).toBe('ELEVATION_REQUIRED');
    expect(local.message).toContain('products.createProduct needs an elevated client');
    const v = visitor();
    await v.products.getCollectionBySlug('sale');
    const token = (await v.auth.getTokens()).accessToken.value;
    const forged = createClient({
      baseUrl: emu.url,
      auth: { elevated: true, getAuthHeaders: async () => ({ Authorization: token }) },
      modules: { products },
    });
    const denied = await fail(
      forged.products.createProduct({ name: 'A', productType: 'physical', priceData: { price: 1 } }),
    );
    expect(denied).toBeInstanceOf(ApplicationError);
    expect(denied).toMatchObject({ status: 403, description: 'Insufficient permissions' });
  });

  it('updates a product (PATCH), regenerating variants from new options, and records changes', async () => {
    const { product } = await newProduct('Chore Coat', {
      productOptions: [{ name: 'Size', choices: [{ description: 'S' }, { description: 'M' }] }],
    });
    const sId = product.variants![0]!.id;
    const { product: updated } = await merchant().updateProduct(product.id, {
      name: 'Chore Coat II',
      ribbon: 'Limited',
      brand: 'Loomwell',
      productOptions: [{ name: 'Size', choices: [{ description: 'S' }, { description: 'L' }] }],
    });
    expect(updated).toMatchObject({
      name: 'Chore Coat II',
      slug: 'chore-coat',
      ribbon: 'Limited',
      brand: 'Loomwell',
    });
    expect(updated.variants!.map((v) => v.choices.Size)).toEqual(['S', 'L']);
    expect(updated.variants![0]!.id).toBe(sId);
    expect(await events(product.id)).toEqual([
      'com.wix.ecommerce.catalog.api.v1.ProductCreated',
      'com.wix.ecommerce.catalog.api.v1.ProductChanged',
    ]);
    const bad = await fail(merchant().updateProduct(product.id, { productType: 'service' as never }));
    expect(bad.message).toContain('"product.productType" must be one of physical, digital');
    const missing = await fail(merchant().updateProduct('nope', { name: 'x' }));
    expect(missing).toMatchObject({ status: 404, code: 'PRODUCT_NOT_FOUND' });
    await merchant().removeBrand(product.id);
    await merchant().removeRibbon(product.id);
    const { product: plain } = await merchant().getProduct(product.id);
    expect(plain.brand).toBeUndefined();
    expect(plain.ribbon).toBeUndefined();
    expect(plain.ribbons).toEqual([]);
    expect((await fail(merchant().removeBrand('nope'))).code).toBe('PRODUCT_NOT_FOUND');
    expect((await fail(merchant().removeRibbon(''))).constructor).toBe(ValidationError);
  });

  it('deletes a product with its memberships and a deleted event', async () => {
    const { product } = await newProduct('Short-lived');
    await merchant().addProductsToCollection('col-sale', [product.id]);
    await merchant().deleteProduct(product.id);
    expect((await fail(merchant().getProduct(product.id))).code).toBe('PRODUCT_NOT_FOUND');
    const { collection } = await visitor().products.getCollectionBySlug('sale');
    expect(collection.numberOfProducts).toBe(3);
    expect((await events(product.id)).at(-1)).toBe('com.wix.ecommerce.catalog.api.v1.ProductDeleted');
    expect((await fail(merchant().deleteProduct(product.id))).code).toBe('PRODUCT_NOT_FOUND');
  });

  it('overrides variant prices, costs, weights, SKUs and visibility, and resets them', async () => {
    const { product } = await newProduct('Work Shirt', {
      costAndProfitData: { itemCost: 5 },
      weight: 0.3,
      productOptions: [
        { name: 'Size', choices: [{ description: 'S' }, { description: 'M' }, { description: 'L' }] },
      ],
    });
    const L = product.variants![2]!.id;
    const { variants } = await merchant().updateProductVariants(product.id, [
      { choices: { Size: 'L' }, price: 24.5, cost: 7, weight: 0.35, sku: 'WS-L' },
      { variantIds: [product.variants![0]!.id], visible: false },
    ]);
    expect(variants.map((v) => v.choices.Size).sort()).toEqual(['L', 'S']);
    const { product: p } = await merchant().getProduct(product.id, { includeMerchantSpecificData: true });
    expect(p.manageVariants).toBe(true);
    expect(p.priceRange).toEqual({ minValue: 20, maxValue: 24.5 });
    expect(p.costRange).toEqual({ minValue: 5, maxValue: 7 });
    expect(p.weightRange).toEqual({ minValue: 0.3, maxValue: 0.35 });
    const l = p.variants!.find((v) => v.id === L)!;
    expect(l.variant).toMatchObject({
      sku: 'WS-L',
      weight: 0.35,
      costAndProfitData: { itemCost: 7, profit: 17.5 },
    });
    const vis = await visitor().products.queryProductVariants(product.id);
    expect(vis.totalResults).toBe(2);
    expect(await events(product.id)).toContain('com.wix.ecommerce.catalog.api.v1.VariantsChanged');
    const bad = await fail(
      merchant().updateProductVariants(product.id, [{ choices: { Size: 'XXL' }, price: 1 }]),
    );
    expect(bad.message).toContain('"variants[0].choices.Size" has no choice "XXL"');
    const none = await fail(merchant().updateProductVariants(product.id, [{ price: 1 }]));
    expect(none.message).toContain('"variants[0]" must name its variants by choices or variantIds');
    await merchant().resetAllProductVariantData(product.id);
    const { product: reset } = await merchant().getProduct(product.id);
    expect(reset.manageVariants).toBe(false);
    expect(reset.priceRange).toEqual({ minValue: 20, maxValue: 20 });
    expect(reset.variants!.every((v) => v.variant!.visible && v.variant!.sku === undefined)).toBe(true);
    expect((await fail(merchant().resetAllProductVariantData('nope'))).code).toBe('PRODUCT_NOT_FOUND');
  });

  it('stores product and variant dimensions as decimal strings, given as strings or numbers', async () => {
    const m = merchant();
    const { product } = await newProduct('Crate', {
      productDimensions: { length: '10.5', width: 3, height: '0.000001', unit: 'CM' },
      packageDimensions: { length: 12 },
      productOptions: [{ name: 'Size', choices: [{ description: 'S' }, { description: 'L' }] }],
    });
    // Decimal strings, as the platform's typings give them (`@decimalValue`); a unit always.
    const crate = { length: '10.5', width: '3', height: '0.000001', unit: 'CM' };
    expect(product.productDimensions).toEqual(crate);
    expect(product.packageDimensions).toEqual({ length: '12', unit: 'UNKNOWN_DIMENSIONS_UNIT' });
    const [S, L] = product.variants!.map((v) => v.id);
    const large = { length: '20', width: '8.25', unit: 'IN' };
    const box = { height: '1', unit: 'FT' } as const;
    const { variants } = await m.updateProductVariants(product.id, [
      {
        choices: { Size: 'L' },
        productDimensions: { length: 20, width: '8.25', unit: 'IN' },
        packageDimensions: box,
      },
    ]);
    expect(variants[0]!.variant).toMatchObject({ productDimensions: large, packageDimensions: box });
    // Read back every way a variant is read; S keeps the product's dimensions.
    const queried = await visitor().products.queryProductVariants(product.id);
    expect(queried.variants.map((v) => [v.id, v.variant!.productDimensions])).toEqual([
      [S, crate],
      [L, large],
    ]);
    const { selectedVariant } = await visitor().products.getProductOptionsAvailability(product.id, {
      Size: 'L',
    });
    expect(selectedVariant).toMatchObject({ productDimensions: large, packageDimensions: box });
    const { product: read } = await m.getProduct(product.id);
    expect(read.variants!.find((v) => v.id === L)!.variant).toMatchObject({ packageDimensions: box });
    const bad = await fail(
      m.updateProductVariants(product.id, [
        { variantIds: [S!], productDimensions: { length: '1.0000001', width: -1, height: '1e3' } },
      ]),
    );
    expect(
      bad.details.validationError.fieldViolations.map((v: { field: string; violatedRule: string }) => [
        v.field,
        v.violatedRule,
      ]),
    ).toEqual([
      ['variants[0].productDimensions.height', 'FORMAT'],
      ['variants[0].productDimensions.length', 'DECIMAL_MAX_SCALE'],
      ['variants[0].productDimensions.width', 'DECIMAL_GTE'],
    ]);
    const tooLong = await fail(m.updateProduct(product.id, { packageDimensions: { length: '1000000000' } }));
    expect(tooLong.message).toContain('"product.packageDimensions.length" must be at most 999999999');
    const unit = await fail(m.updateProduct(product.id, { packageDimensions: { unit: 'KM' as never } }));
    expect(unit.message).toContain(
      '"product.packageDimensions.unit" must be one of UNKNOWN_DIMENSIONS_UNIT, MM',
    );
    await m.resetAllProductVariantData(product.id);
    const reset = await visitor().products.queryProductVariants(product.id, { variantIds: [L!] });
    expect(reset.variants[0]!.variant).toMatchObject({ productDimensions: crate });
  });

  it("takes the platform's media ids, which hold a tilde", async () => {
    const { product } = await newProduct('Print');
    const ids = [
      '22e53e_efc1552d8050407f82ea158302d0debd~mv2.jpg',
      'nsplsh_306d666a123a4a74306459~mv2_d_4517_2992_s_4_2.jpg',
    ];
    await merchant().addProductMedia(
      product.id,
      ids.map((mediaId) => ({ mediaId })),
    );
    const { product: p } = await merchant().getProduct(product.id);
    expect(p.media!.items!.map((i) => [i.id, i.image!.format])).toEqual(ids.map((id) => [id, 'jpg']));
    const bad = await fail(merchant().addProductMedia(product.id, [{ mediaId: '../etc/passwd' }]));
    expect(bad.message).toContain('"media[0].mediaId" must be a media id');
  });

  it('adds and removes media and choice media; mainMedia follows the first item', async () => {
    const { product } = await newProduct('Swatch Scarf', {
      productOptions: [
        {
          name: 'Color',
          optionType: 'color',
          choices: [
            { description: 'Red', value: '#aa2200' },
            { description: 'Blue', value: '#2233aa' },
          ],
        },
      ],
    });
    const m = merchant();
    await m.addProductMedia(product.id, [
      { mediaId: 'scarf-front.svg' },
      { url: 'https://cdn.example.com/scarf.mp4' },
      { mediaId: 'scarf-red.svg', choice: { option: 'Color', choice: 'Red' } },
    ]);
    let { product: p } = await m.getProduct(product.id);
    expect(p.media!.items!.map((i) => i.mediaType)).toEqual(['image', 'video', 'image']);
    expect(p.media!.mainMedia!.image!.url).toBe(`${emu.url}/media/scarf-front.svg`);
    const red = p.productOptions![0]!.choices![0]!;
    expect(red.media!.items!.map((i) => i.id)).toEqual(['scarf-red.svg']);
    await m.addProductMediaToChoices(product.id, [
      { option: 'Color', choice: 'Blue', mediaIds: ['scarf-front.svg'] },
    ]);
    const avail = await visitor().products.getProductOptionsAvailability(product.id, { Color: 'Blue' });
    expect(avail.media!.mainMedia!.id).toBe('scarf-front.svg');
    const sv = await visitor().products.queryStoreVariants({
      filter: { productId: product.id, variantName: 'Blue' },
    });
    expect(sv.variants[0]!.media!.image).toMatch(/^wix:image:\/\/v1\/scarf-front\.svg#originWidth=800/);
    await m.removeProductMediaFromChoices(product.id, [
      { option: 'Color', choice: 'Blue', mediaIds: ['scarf-front.svg'] },
    ]);
    await m.removeProductMedia(product.id, ['scarf-front.svg']);
    ({ product: p } = await m.getProduct(product.id));
    expect(p.media!.mainMedia!.mediaType).toBe('video');
    expect(p.productOptions![0]!.choices![1]!.media).toBeUndefined();
    const both = await fail(
      m.addProductMedia(product.id, [{ mediaId: 'a.svg', url: 'https://x.example/a.png' } as never]),
    );
    expect(both.message).toContain('"media[0]" must have exactly one of mediaId and url');
    const badChoice = await fail(
      m.addProductMediaToChoices(product.id, [
        { option: 'Color', choice: 'Red', mediaIds: ['not-there.svg'] },
      ]),
    );
    expect(badChoice.message).toContain('"media[0].mediaIds[0]" is not a media item of this product');
    const badRemove = await fail(
      m.removeProductMediaFromChoices(product.id, [{ option: 'Size', choice: 'S', mediaIds: ['x'] }]),
    );
    expect(badRemove.message).toContain('"media[0].option" is not an option of this product');
    const badIds = await fail(m.removeProductMedia(product.id, ['never-added.svg']));
    expect(badIds.message).toContain('"mediaIds[0]" is not a media item of this product');
    await m.removeProductMedia(product.id, []);
    ({ product: p } = await m.getProduct(product.id));
    expect(p.media).toEqual({ items: [] });
  });

  it('deletes product options back to the default variant', async () => {
    const { product } = await newProduct('Option Test', {
      productOptions: [{ name: 'Size', choices: [{ description: 'S' }, { description: 'M' }] }],
    });
    await merchant().deleteProductOptions(product.id);
    const { product: p } = await merchant().getProduct(product.id);
    expect(p.productOptions).toEqual([]);
    expect(p.variants!.map((v) => v.id)).toEqual(['00000000-0000-0000-0000-000000000000']);
    expect((await fail(merchant().deleteProductOptions('nope'))).code).toBe('PRODUCT_NOT_FOUND');
  });

  it('creates, updates and deletes collections, keeping membership in both directions', async () => {
    const m = merchant();
    const { collection } = await m.createCollection({ name: 'Gifts & Ideas', description: 'For others.' });
    expect(collection).toMatchObject({ slug: 'gifts-and-ideas', numberOfProducts: 0, visible: true });
    expect(collection.media).toEqual({ items: [] });
    const again = await m.createCollection({ name: 'Gifts & Ideas' });
    expect(again.collection.slug).toBe('gifts-and-ideas-2');
    const ids = (
      await visitor().products.queryProducts().in('slug', ['gift-card', 'canvas-tote']).find()
    ).items.map((p) => p.id);
    await m.addProductsToCollection(collection.id, ids);
    const v2 = await visitor().collections.getCollection(collection.id);
    expect(v2.numberOfProducts).toBe(2);
    const members = await visitor().products.queryProducts().hasSome('collectionIds', [collection.id]).find();
    expect(members.items.map((p) => p.slug).sort()).toEqual(['canvas-tote', 'gift-card']);
    await m.removeProductsFromCollection(collection.id, [ids[0]!]);
    expect((await visitor().collections.getCollection(collection.id)).numberOfProducts).toBe(1);
    const { collection: renamed } = await m.updateCollection(collection.id, {
      name: 'Gift Ideas',
      visible: false,
    });
    expect(renamed).toMatchObject({ name: 'Gift Ideas', slug: 'gifts-and-ideas', visible: false });
    expect(renamed.lastUpdated).toBeInstanceOf(Date);
    expect((await fail(visitor().collections.getCollection(collection.id))).code).toBe(
      'COLLECTION_NOT_FOUND',
    );
    await m.deleteCollection(collection.id);
    expect((await fail(m.deleteCollection(collection.id))).code).toBe('COLLECTION_NOT_FOUND');
    expect(await events(collection.id)).toEqual([
      'com.wix.ecommerce.catalog.api.v1.CollectionCreated',
      'com.wix.ecommerce.catalog.api.v1.CollectionChanged',
      'com.wix.ecommerce.catalog.api.v1.CollectionChanged',
      'com.wix.ecommerce.catalog.api.v1.CollectionChanged',
      'com.wix.ecommerce.catalog.api.v1.CollectionDeleted',
    ]);
    const dupe = await fail(m.updateCollection(again.collection.id, { slug: 'sale' }));
    expect(dupe.message).toContain('"collection.slug" is already used by another collection');
    const noName = await fail(m.createCollection({ description: 'x' } as never));
    expect(noName.message).toContain('"collection.name" is required');
    const badMember = await fail(m.addProductsToCollection('col-sale', ['nope']));
    expect(badMember.message).toContain('"productIds[0]" is not a product of this store');
    const badRemove = await fail(m.removeProductsFromCollection('col-sale', []));
    expect(badRemove).toBeInstanceOf(ValidationError);
    const allProducts = await fail(m.deleteCollection('col-all-products'));
    expect(allProducts.code).toBe('CANNOT_DELETE_ALL_PRODUCTS');
  });

  it("takes up to the platform's limits: 1000 products a call, 16000-character sections, heavy weights", async () => {
    const m = merchant();
    const { collection } = await m.createCollection({ name: 'Big Drop' });
    const { product } = await newProduct('Anvil', {
      weight: 999_999_999.99,
      additionalInfoSections: [{ title: 'Care', description: 'x'.repeat(16_000) }],
      productOptions: [{ name: 'Size', choices: [{ description: 'S' }] }],
    });
    expect(product.weight).toBe(999_999_999.99);
    expect(product.additionalInfoSections![0]!.description).toHaveLength(16_000);
    await m.updateProductVariants(product.id, [{ choices: { Size: 'S' }, weight: 999_999_999.99 }]);
    await m.bulkUpdateProductsProperty([product.id], { weight: 999_999_999.99 });
    // One product named 1000 times: the count is what is checked.
    await m.addProductsToCollection(collection.id, Array(1000).fill(product.id));
    expect((await m.getProduct(product.id)).product.collectionIds).toContain(collection.id);
    await m.removeProductsFromCollection(collection.id, Array(1000).fill(product.id));
    const over = [
      await fail(m.addProductsToCollection(collection.id, Array(1001).fill(product.id))),
      await fail(m.removeProductsFromCollection(collection.id, Array(1001).fill(product.id))),
      await fail(newProduct('Too Heavy', { weight: 1e9 })),
      await fail(m.updateProductVariants(product.id, [{ choices: { Size: 'S' }, weight: 1e9 }])),
      await fail(
        m.updateProduct(product.id, {
          additionalInfoSections: [{ title: 'T', description: 'x'.repeat(16_001) }],
        }),
      ),
    ];
    expect(
      over.map((e) => {
        const v = e.details.validationError.fieldViolations[0];
        return [v.field, v.data];
      }),
    ).toEqual([
      ['productIds', { max: 1000 }],
      ['productIds', { max: 1000 }],
      ['product.weight', { max: 999_999_999.99 }],
      ['variants[0].weight', { max: 999_999_999.99 }],
      ['product.additionalInfoSections[0].description', { max: 16_000 }],
    ]);
  });

  it('bulk-updates a property with per-item results, each item atomic', async () => {
    const a = (
      await newProduct('Bulk A', {
        productOptions: [{ name: 'S', choices: [{ description: '1' }, { description: '2' }] }],
      })
    ).product;
    const b = (await newProduct('Bulk B')).product;
    await merchant().updateProductVariants(a.id, [{ choices: { S: '2' }, price: 99 }]);
    const r = await merchant().bulkUpdateProductsProperty([a.id, 'missing', b.id], { price: 12.34 });
    expect(r.bulkActionMetadata).toEqual({ totalSuccesses: 2, totalFailures: 1, undetailedFailures: 0 });
    expect(r.results.map((x) => [x.itemMetadata.originalIndex, x.itemMetadata.success])).toEqual([
      [0, true],
      [1, false],
      [2, true],
    ]);
    expect(r.results[1]!.itemMetadata.error!.code).toBe('PRODUCT_NOT_FOUND');
    const { product } = await merchant().getProduct(a.id);
    expect(product.priceRange).toEqual({ minValue: 12.34, maxValue: 12.34 });
    // A product created without a cost or a weight gets them: setting needs no earlier value.
    await merchant().bulkUpdateProductsProperty([b.id], { weight: 1.5 });
    await merchant().bulkUpdateProductsProperty([b.id], { cost: 4.2 });
    const set = (await merchant().getProduct(b.id, { includeMerchantSpecificData: true })).product;
    expect(set.weight).toBe(1.5);
    expect(set.costAndProfitData!.itemCost).toBe(4.2);
    await merchant().bulkUpdateProductsProperty([b.id], { ribbon: 'Hot' });
    expect((await merchant().getProduct(b.id)).product.ribbon).toBe('Hot');
    const two = await fail(merchant().bulkUpdateProductsProperty([a.id], { price: 1, cost: 2 } as never));
    expect(two.message).toContain('"set" must set exactly one of its fields');
    const neg = await fail(merchant().bulkUpdateProductsProperty([a.id], { price: -1 }));
    expect(neg.message).toContain('"set.price" must be at least 0');
  });

  it('bulk-adjusts by amount or percentage with exact rounding; a negative result fails that item only', async () => {
    const a = (
      await newProduct('Adjust A', { priceData: { price: 19.99 }, costAndProfitData: { itemCost: 3.33 } })
    ).product;
    const b = (await newProduct('Adjust B', { priceData: { price: 5 } })).product;
    const m = merchant();
    await m.bulkAdjustProductProperty({ price: { percentage: { rate: 15 } } }, [a.id]);
    expect((await m.getProduct(a.id)).product.price!.price).toBe(22.99); // 22.9885 → 22.99
    await m.bulkAdjustProductProperty({ price: { percentage: { rate: -10, roundToInt: true } } }, [a.id]);
    expect((await m.getProduct(a.id)).product.price!.price).toBe(21); // 20.691 → 21
    await m.bulkAdjustProductProperty({ cost: { amount: 0.67 } }, [a.id]);
    const { product } = await m.getProduct(a.id, { includeMerchantSpecificData: true });
    expect(product.costAndProfitData!.itemCost).toBe(4);
    const r = await m.bulkAdjustProductProperty({ price: { amount: -10 } }, [a.id, b.id]);
    expect(r.bulkActionMetadata).toMatchObject({ totalSuccesses: 1, totalFailures: 1 });
    expect(r.results[1]!.itemMetadata.error!.code).toBe('NEGATIVE_VALUE');
    expect((await m.getProduct(b.id)).product.price!.price).toBe(5);
    expect((await m.getProduct(a.id)).product.price!.price).toBe(11);
    const bad = await fail(
      m.bulkAdjustProductProperty({ price: { percentage: { rate: 1.000001 } } }, [a.id]),
    );
    expect(bad.message).toContain('"adjust.price.percentage.rate" must have at most 4 decimal places');
    const both = await fail(
      m.bulkAdjustProductProperty({ price: { amount: 1, percentage: { rate: 1 } } } as never, [a.id]),
    );
    expect(both.message).toContain('"adjust.price" must set exactly one of its fields');
  });
});
