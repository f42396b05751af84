import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator, testBackends } from '../src/testing.ts';
import { merchant, receiver, usePlatformSdk, webhookApp } from './platform-sdk.ts';

let target = '';
const wix = usePlatformSdk(() => target);

describe.each(testBackends())('the platform SDK with catalog webhooks (%s)', (backend) => {
  let emu: TestEmulator;
  let hook: Awaited<ReturnType<typeof receiver>>;
  beforeAll(async () => {
    hook = await receiver();
    emu = await startTestEmulator(backend, { webhooks: [hook.url] });
    target = emu.url;
  });
  afterAll(async () => {
    await emu?.stop();
    await hook?.close();
  });

  it("dispatches product and collection events to the products module's handlers, with their data", async () => {
    const { app, seen, on, dispatch } = await webhookApp(wix(), emu, { products: wix().products });
    app.products.onProductCreated(on('created'));
    app.products.onProductChanged(on('changed'));
    app.products.onProductVariantsChanged(on('variants'));
    app.products.onProductDeleted(on('deleted'));
    app.products.onProductCollectionCreated(on('collectionCreated'));
    app.products.onProductCollectionChanged(on('collectionChanged'));
    app.products.onProductCollectionDeleted(on('collectionDeleted'));

    // Every catalog write, through the platform SDK.
    const m = merchant(wix(), emu).products;
    const { product } = await m.createProduct({
      name: `Hook Teapot ${backend}`,
      productType: 'physical',
      priceData: { price: 24.5 },
      brand: 'Kiln & Co',
      productOptions: [{ name: 'Size', choices: [{ description: 'S' }, { description: 'L' }] }],
    });
    await m.updateProduct(product._id, { description: 'Glazed.' });
    const { variants } = await m.updateProductVariants(product._id, [{ choices: { Size: 'L' }, price: 30 }]);
    const { collection } = await m.createCollection({ name: `Hook Shelf ${backend}` });
    await m.addProductsToCollection(collection._id, [product._id]);
    await m.updateCollection(collection._id, { name: `Hook Shelf 2 ${backend}` });
    await m.deleteCollection(collection._id);
    await m.deleteProduct(product._id);
    await emu.deliverWebhooks();

    const ours = await dispatch(hook.bodies);
    const ofProduct = (name: string) => (seen[name] ?? []).filter((e) => e.data.productId === product._id);
    const ofCollection = (name: string) =>
      (seen[name] ?? []).filter((e) => e.data.collection_Id === collection._id);
    const v1 = { originatedFromVersion: 'V1_CATALOG' };

    // ProductCreated: the product's main fields, its price as the SDK's floats.
    const [created] = ofProduct('created');
    expect(created.data).toEqual({
      productId: product._id,
      name: product.name,
      price: expect.objectContaining({ currency: 'USD', price: 24.5, discountedPrice: 24.5 }),
      visible: true,
      media: { items: [] },
      productPageUrl: product.productPageUrl,
      brand: 'Kiln & Co',
      slug: product.slug,
      ...v1,
    });
    // Who made the change: the merchant, through the API key (a site user).
    const merchantIdentity = {
      identityType: 'WIX_USER',
      wixUserId: expect.stringMatching(/^[0-9a-f-]{36}$/),
    };
    expect(created.metadata).toEqual({ instanceId: emu.demo.siteId, identity: merchantIdentity });

    // ProductChanged: the fields each write touched; membership of a collection is `collectionIds`.
    const [described, varied, added, removed] = ofProduct('changed').map((e) => e.data);
    expect(described).toEqual({
      productId: product._id,
      changedFields: ['description', 'lastUpdated'],
      ...v1,
    });
    expect(varied.changedFields).toEqual(expect.arrayContaining(['priceRange', 'variants']));
    expect(varied.changedFields).not.toContain('description');
    expect(added).toEqual({ productId: product._id, changedFields: ['collectionIds', 'lastUpdated'], ...v1 });
    expect(removed).toEqual({
      productId: product._id,
      changedFields: ['collectionIds', 'lastUpdated'],
      ...v1,
    });

    // VariantsChanged: the changed variant, its choices and the fields of it that changed.
    const [variantWrite] = ofProduct('variants');
    expect(variantWrite.data).toEqual({
      productId: product._id,
      variants: [
        {
          variantId: variants[0]._id,
          choices: { Size: 'L' },
          changedFields: ['convertedPriceData', 'priceData'],
        },
      ],
      ...v1,
    });

    // ProductDeleted: the id.
    expect(ofProduct('deleted').map((e) => e.data)).toEqual([{ productId: product._id, ...v1 }]);

    // Collections, with the platform's spelling `collection_Id`.
    expect(ofCollection('collectionCreated').map((e) => e.data)).toEqual([
      {
        collection_Id: collection._id,
        name: collection.name,
        media: { items: [] },
        slug: collection.slug,
        visible: true,
        ...v1,
      },
    ]);
    expect(ofCollection('collectionChanged').map((e) => e.data)).toEqual([
      { collection_Id: collection._id, changedFields: ['lastUpdated', 'numberOfProducts'], ...v1 },
      { collection_Id: collection._id, changedFields: ['lastUpdated', 'name'], ...v1 },
    ]);
    expect(ofCollection('collectionDeleted').map((e) => e.data)).toEqual([
      { collection_Id: collection._id, ...v1 },
    ]);

    // Our SDK reads the same bodies: the payload as the entity, and the event id, entity and order
    // from what the emulator adds to the envelope.
    const mine = ours.filter((e) => e.entityId === product._id);
    expect(mine.map((e) => e.type.replace('com.wix.ecommerce.catalog.api.v1.', ''))).toEqual([
      'ProductCreated',
      'ProductChanged',
      'VariantsChanged',
      'ProductChanged',
      'ProductChanged',
      'ProductChanged',
      'ProductDeleted',
    ]);
    expect(new Set(mine.map((e) => e.id)).size).toBe(mine.length);
    const sequences = mine.map((e) => e.sequence!);
    expect(sequences).toEqual([...sequences].sort((a, b) => a - b));
    expect(mine[1]).toMatchObject({ entity: described, modifiedFields: ['description', 'lastUpdated'] });
    expect(mine.map((e) => e.identity)).toEqual(mine.map(() => created.metadata.identity));
    expect(ours.filter((e) => e.entityId === collection._id).map((e) => e.entity)).toEqual(
      ofCollection('collectionCreated')
        .concat(ofCollection('collectionChanged'), ofCollection('collectionDeleted'))
        .map((e) => e.data),
    );
  });
});
