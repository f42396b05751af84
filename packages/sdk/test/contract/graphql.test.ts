/**
 * GraphQL through the SDK's `graphql(client, …)` against the emulator over HTTP: the same answers as
 * the REST calls (products, a product, collections, the current cart), the cart mutations, the
 * platform's error codes in `extensions.code`, the REST routes' refusals, GraphQL-over-HTTP
 * errors (200 with `errors` for syntax, validation and resolver errors; the 400 envelope for a body
 * that is not a GraphQL request), and the limits on depth and breadth.
 */
import { testBackends } from '@shopkit/emulator/testing';
import { getIntrospectionQuery } from 'graphql';
import { describe, expect, it } from 'vitest';
import {
  type AnyClient,
  ApplicationError,
  cart,
  collections,
  createClient,
  graphql,
  type Product,
  products,
  redirects,
  request,
  ShopkitError,
  ValidationError,
} from '../../src/index.ts';
import type { Collection } from '../../src/modules/collections.ts';
import { failure, merchantClient, setupCatalog, setupEmulator, visitorClient } from './setup.ts';

/** The fields a storefront listing reads, and the same fields picked from a REST product. */
const PRODUCT = `id name slug visible
  priceData { currency price discountedPrice formatted { price discountedPrice } }
  media { mainMedia { image { url } } } collectionIds createdDate lastUpdated`;
const pickProduct = (p: Product) => ({
  id: p.id,
  name: p.name,
  slug: p.slug,
  visible: p.visible,
  priceData: {
    currency: p.priceData!.currency,
    price: p.priceData!.price,
    discountedPrice: p.priceData!.discountedPrice,
    formatted: {
      price: p.priceData!.formatted!.price,
      discountedPrice: p.priceData!.formatted!.discountedPrice,
    },
  },
  media: { mainMedia: p.media?.mainMedia ? { image: { url: p.media.mainMedia.image!.url } } : null },
  collectionIds: p.collectionIds,
  createdDate: p.createdDate!.toISOString(),
  lastUpdated: p.lastUpdated!.toISOString(),
});

const COLLECTION =
  'id name slug visible description numberOfProducts media { mainMedia { image { url } } } lastUpdated';
const pickCollection = (c: Collection) => ({
  id: c.id,
  name: c.name,
  slug: c.slug,
  visible: c.visible,
  description: c.description,
  numberOfProducts: c.numberOfProducts,
  media: { mainMedia: { image: { url: c.media!.mainMedia!.image!.url } } },
  lastUpdated: c.lastUpdated!.toISOString(),
});

const CART = `id currency subtotal { amount formattedAmount } createdDate updatedDate
  lineItems { id quantity productName { original } price { amount } lineItemPrice { amount }
    catalogReference { catalogItemId options } availability { status } image { url } }`;

interface GraphqlError {
  message: string;
  path?: Array<string | number>;
  extensions: Record<string, any>;
}

/** `graphql(client, …)`, with the errors typed as the emulator sends them. */
const gql = async <D = any>(
  client: AnyClient,
  query: string,
  variables?: Record<string, unknown>,
  options?: { apiVersion?: string },
) => (await graphql<D>(client, query, variables, options)) as { data: D; errors?: GraphqlError[] };
const codes = (r: { errors?: GraphqlError[] }) => r.errors?.map((e) => e.extensions.code);

describe.each(testBackends())('GraphQL (%s)', (backend) => {
  const emu = setupEmulator(backend);
  const { ids, item } = setupCatalog(emu);
  const visitor = () => visitorClient(emu, { products, collections, cart });
  const merchant = () => merchantClient(emu, { products, collections });
  const anonymous = () => createClient({ baseUrl: emu.url, modules: { products } });

  describe('catalog', () => {
    it('answers a products query exactly as the REST query with the same filter, sort and paging', async () => {
      const query = {
        filter: { price: { $gt: 20 }, collectionIds: { $hasSome: ['col-summer-linen', 'col-kitchen'] } },
        sort: [{ fieldName: 'price', order: 'DESC' as const }],
        paging: { limit: 4, offset: 1 },
      };
      const c = visitor();
      const rest = await c.products.queryProducts(query);
      const { data, errors } = await gql<{ products: { products: unknown[]; metadata: unknown } }>(
        c,
        `query Listing($filter: JSON, $sort: [Sorting!], $paging: Paging) {
          products(filter: $filter, sort: $sort, paging: $paging) {
            products { ${PRODUCT} }
            metadata { count offset total }
          }
        }`,
        query,
      );
      expect(errors).toBeUndefined();
      expect(rest.products.length).toBeGreaterThan(1);
      expect(data.products).toEqual({
        products: rest.products.map(pickProduct),
        metadata: { count: rest.metadata.count, offset: rest.metadata.offset, total: rest.metadata.total },
      });
    });

    it('shows hidden products to the merchant only, and only when asked, as REST does', async () => {
      const q = '{ products(paging: {limit: 100}) { metadata { total } products { slug } } }';
      const qHidden =
        '{ products(paging: {limit: 100}, includeHiddenProducts: true) { metadata { total } products { slug } } }';
      const [asVisitor, asMerchant, withHidden] = await Promise.all([
        gql<any>(visitor(), q),
        gql<any>(merchant(), q),
        gql<any>(merchant(), qHidden),
      ]);
      const restVisitor = await visitor().products.queryProducts({ paging: { limit: 100 } });
      const restMerchant = await merchant().products.queryProducts(
        { paging: { limit: 100 } },
        { includeHiddenProducts: true },
      );
      expect(asVisitor.data.products.metadata.total).toBe(restVisitor.metadata.total);
      expect(asMerchant.data.products.metadata.total).toBe(restVisitor.metadata.total);
      expect(withHidden.data.products.metadata.total).toBe(restMerchant.metadata.total);
      expect(withHidden.data.products.products.map((p: Product) => p.slug)).toContain('enamel-pitcher');
      expect(asMerchant.data.products.products.map((p: Product) => p.slug)).not.toContain('enamel-pitcher');
      expect(asVisitor.data.products.products.map((p: Product) => p.slug)).not.toContain('enamel-pitcher');
    });

    it('answers a product by id as REST GET does, variants and options included', async () => {
      const c = visitor();
      const id = ids.get('linen-shirt')!;
      const rest = (await c.products.getProduct(id)).product;
      const { data, errors } = await gql<{ product: any }>(
        c,
        `query ($id: ID!) { product(id: $id) {
          ${PRODUCT} productType stock { inStock inventoryStatus }
          productOptions { name optionType choices { description value inStock } }
          variants { id choices variant { priceData { price } visible } stock { inStock } }
          costAndProfitData { itemCost }
        } }`,
        { id },
      );
      expect(errors).toBeUndefined();
      expect(data.product).toMatchObject(pickProduct(rest));
      expect(data.product.stock).toMatchObject({ inStock: rest.stock!.inStock });
      expect(data.product.productOptions).toEqual(
        rest.productOptions!.map((o) => ({
          name: o.name,
          optionType: o.optionType,
          choices: o.choices!.map((x) => ({
            description: x.description,
            value: x.value,
            inStock: x.inStock,
          })),
        })),
      );
      expect(data.product.variants).toEqual(
        rest.variants!.map((v) => ({
          id: v.id,
          choices: v.choices,
          variant: { priceData: { price: v.variant!.priceData!.price }, visible: v.variant!.visible },
          stock: { inStock: v.stock!.inStock },
        })),
      );
      expect(data.product.costAndProfitData).toBeNull();
    });

    it('gives merchant data to the merchant, and a visitor the REST refusal as extensions.code', async () => {
      const id = ids.get('dinner-plate')!;
      const q = `query ($id: ID!) { product(id: $id, includeMerchantSpecificData: true) { id costAndProfitData { itemCost } } }`;
      const asMerchant = await gql<{ product: any }>(merchant(), q, { id });
      const rest = (await merchant().products.getProduct(id, { includeMerchantSpecificData: true })).product;
      expect(asMerchant.errors).toBeUndefined();
      expect(asMerchant.data.product.costAndProfitData).toEqual({
        itemCost: rest.costAndProfitData!.itemCost,
      });
      expect(rest.costAndProfitData!.itemCost).toBe(11);

      const restRefusal = await failure(
        visitor().products.getProduct(id, { includeMerchantSpecificData: true }),
      );
      const refused = await gql(visitor(), q, { id });
      expect(refused.data).toEqual({ product: null });
      expect(refused.errors).toEqual([
        expect.objectContaining({
          path: ['product'],
          message: restRefusal.message,
          extensions: expect.objectContaining({ code: restRefusal.code, status: restRefusal.status }),
        }),
      ]);
      expect(restRefusal.code).toBe('PERMISSION_DENIED');

      const hidden = await gql(visitor(), '{ products(includeHiddenProducts: true) { metadata { total } } }');
      expect(codes(hidden)).toEqual(['PERMISSION_DENIED']);
      expect(hidden.data).toEqual({ products: null });
    });

    it('answers PRODUCT_NOT_FOUND for an unknown or hidden product, with data null there only', async () => {
      const hiddenId = (
        await merchant().products.queryProducts(
          { filter: { slug: 'enamel-pitcher' } },
          { includeHiddenProducts: true },
        )
      ).products[0]!.id;
      for (const id of ['no-such-product', hiddenId]) {
        const r = await gql<any>(
          visitor(),
          'query ($id: ID!) { product(id: $id) { id } products(paging: {limit: 1}) { metadata { count } } }',
          { id },
        );
        expect(codes(r)).toEqual(['PRODUCT_NOT_FOUND']);
        expect(r.errors![0]).toMatchObject({
          path: ['product'],
          extensions: { status: 404, data: { productId: id } },
        });
        expect(r.data).toEqual({ product: null, products: { metadata: { count: 1 } } });
      }
    });

    it('answers collections and a collection by id or slug as the REST reader does', async () => {
      const c = visitor();
      const rest = await c.collections.queryCollections({ sort: [{ fieldName: 'name', order: 'ASC' }] });
      const { data, errors } = await gql<any>(
        c,
        `{ collections(sort: [{fieldName: "name"}]) { collections { ${COLLECTION} } metadata { count offset total } }
           bySlug: collection(slug: "sale") { ${COLLECTION} }
           byId: collection(id: "col-kitchen") { ${COLLECTION} } }`,
      );
      expect(errors).toBeUndefined();
      expect(data.collections.collections).toEqual(rest.collections.map(pickCollection));
      expect(data.collections.metadata).toEqual(rest.metadata);
      expect(data.bySlug).toEqual(
        pickCollection((await c.collections.getCollectionBySlug('sale')).collection),
      );
      expect(data.byId).toEqual(pickCollection(await c.collections.getCollection('col-kitchen')));
    });

    it('hides invisible collections from visitors and refuses a collection by both id and slug', async () => {
      const hidden = await gql(visitor(), '{ collection(slug: "archive") { id } }');
      expect(codes(hidden)).toEqual(['COLLECTION_NOT_FOUND']);
      const shown = await gql<any>(merchant(), '{ collection(slug: "archive") { id visible } }');
      expect(shown.data.collection).toEqual({ id: 'col-archive', visible: false });
      const both = await gql(visitor(), '{ collection(id: "col-sale", slug: "sale") { id } }');
      expect(codes(both)).toEqual(['INVALID_ARGUMENT']);
      expect(both.errors![0]!.extensions.fieldViolations).toEqual([expect.objectContaining({ field: 'id' })]);
    });

    it('turns a bad platform query into INVALID_ARGUMENT with the REST field violations', async () => {
      const r = await gql(
        visitor(),
        '{ products(filter: {colour: "red"}, paging: {limit: 500}) { metadata { total } } }',
      );
      const rest = (await failure(
        visitor().products.queryProducts({ filter: { colour: 'red' }, paging: { limit: 500 } }),
      )) as ValidationError;
      expect(codes(r)).toEqual(['INVALID_ARGUMENT']);
      expect(r.errors![0]!.extensions.fieldViolations.map((v: { field: string }) => v.field).sort()).toEqual(
        rest.violations.map((v) => v.field).sort(),
      );
    });
  });

  describe('current cart', () => {
    it('answers OWNED_CART_NOT_FOUND before the first add, then the cart the REST add made', async () => {
      const c = visitor();
      const before = await gql(c, `{ currentCart { id } }`);
      expect(before.data).toEqual({ currentCart: null });
      expect(before.errors).toEqual([
        expect.objectContaining({
          path: ['currentCart'],
          extensions: expect.objectContaining({ code: 'OWNED_CART_NOT_FOUND', status: 404 }),
        }),
      ]);

      await c.cart.addToCurrentCart({
        lineItems: [item('linen-shirt', 2, { Size: 'M', Color: 'Sand' }), item('dinner-plate')],
      });
      const rest = await c.cart.getCurrentCart();
      const { data, errors } = await gql<{ currentCart: any }>(c, `{ currentCart { ${CART} } }`);
      expect(errors).toBeUndefined();
      expect(data.currentCart).toEqual({
        id: rest.id,
        currency: rest.currency,
        subtotal: { amount: rest.subtotal!.amount, formattedAmount: rest.subtotal!.formattedAmount },
        createdDate: rest.createdDate!.toISOString(),
        updatedDate: rest.updatedDate!.toISOString(),
        lineItems: rest.lineItems.map((l) => ({
          id: l.id,
          quantity: l.quantity,
          productName: { original: l.productName!.original },
          price: { amount: l.price!.amount },
          lineItemPrice: { amount: l.lineItemPrice!.amount },
          catalogReference: {
            catalogItemId: l.catalogReference!.catalogItemId,
            options: l.catalogReference!.options,
          },
          availability: { status: l.availability!.status },
          image: l.image ? { url: expect.any(String) } : null,
        })),
      });
      expect(data.currentCart.subtotal.amount).toMatch(/^\d+\.\d\d$/);
    });

    it('adds and removes line items with mutations, seen by the REST cart', async () => {
      const c = visitor();
      const added = await gql<{ addToCurrentCart: any }>(
        c,
        `mutation Add($lineItems: [LineItemInput!]!) { addToCurrentCart(lineItems: $lineItems) { ${CART} } }`,
        { lineItems: [item('linen-shirt', 1, { Size: 'S', Color: 'White' }), item('dinner-plate', 3)] },
      );
      expect(added.errors).toBeUndefined();
      const lines = added.data.addToCurrentCart.lineItems;
      expect(lines.map((l: { quantity: number }) => l.quantity)).toEqual([1, 3]);
      expect((await c.cart.getCurrentCart()).lineItems.map((l) => l.id)).toEqual(
        lines.map((l: { id: string }) => l.id),
      );

      const removed = await gql<{ removeLineItemsFromCurrentCart: any }>(
        c,
        'mutation ($ids: [ID!]!) { removeLineItemsFromCurrentCart(ids: $ids) { lineItems { id } } }',
        { ids: [lines[0].id] },
      );
      expect(removed.errors).toBeUndefined();
      expect(removed.data.removeLineItemsFromCurrentCart.lineItems).toEqual([{ id: lines[1].id }]);
      expect((await c.cart.getCurrentCart()).lineItems.map((l) => l.id)).toEqual([lines[1].id]);

      const updated = await gql<{ updateCurrentCartLineItemQuantity: any }>(
        c,
        'mutation ($l: [LineItemQuantityInput!]!) { updateCurrentCartLineItemQuantity(lineItems: $l) { lineItems { id quantity } } }',
        { l: [{ id: lines[1].id, quantity: 5 }] },
      );
      expect(updated.errors).toBeUndefined();
      expect(updated.data.updateCurrentCartLineItemQuantity.lineItems).toEqual([
        { id: lines[1].id, quantity: 5 },
      ]);
      expect((await c.cart.getCurrentCart()).lineItems.map((l) => l.quantity)).toEqual([5]);
      // 0 removes the line, as on REST.
      const emptied = await gql<{ updateCurrentCartLineItemQuantity: any }>(
        c,
        'mutation ($l: [LineItemQuantityInput!]!) { updateCurrentCartLineItemQuantity(lineItems: $l) { lineItems { id } } }',
        { l: [{ id: lines[1].id, quantity: 0 }] },
      );
      expect(emptied.data.updateCurrentCartLineItemQuantity.lineItems).toEqual([]);
      // A line the cart does not hold is REST's error, and changes nothing.
      await c.cart.addToCurrentCart({ lineItems: [item('dinner-plate')] });
      const before = await c.cart.getCurrentCart();
      const unknown = await gql(
        c,
        'mutation { updateCurrentCartLineItemQuantity(lineItems: [{id: "nope", quantity: 2}]) { id } }',
      );
      expect(unknown.data).toEqual({ updateCurrentCartLineItemQuantity: null });
      const rest = await c.cart
        .updateCurrentCartLineItemQuantity([{ id: 'nope', quantity: 2 }])
        .catch((e) => e);
      expect(rest).toBeInstanceOf(ShopkitError);
      expect(codes(unknown)).toEqual([rest.code]);
      expect(await c.cart.getCurrentCart()).toEqual(before);
    });

    it('estimates totals exactly as REST does, and stores nothing', async () => {
      const c = visitor();
      await c.cart.addToCurrentCart({
        lineItems: [item('linen-shirt', 2, { Size: 'S', Color: 'White' }), item('dinner-plate', 3)],
      });
      await c.cart.updateCurrentCart({ couponCode: 'SAVE10' });
      const before = await c.cart.getCurrentCart();
      const input = {
        shippingAddress: { country: 'US', subdivision: 'US-NY', city: 'Albany', postalCode: '12207' },
        selectedShippingOption: { code: 'express' },
      };
      // The REST answer on the wire (amounts as decimal strings, as GraphQL sends them).
      const rest = await request(c, 'POST', '/ecom/v1/carts/current/estimate-totals', { body: input });
      const { data, errors } = await gql<{ estimateCurrentCartTotals: any }>(
        c,
        `query ($a: AddressInput, $o: ShippingOptionInput) {
          estimateCurrentCartTotals(shippingAddress: $a, selectedShippingOption: $o) {
            currency cart { id lineItems { id quantity } }
            priceSummary { subtotal { amount formattedAmount } shipping { amount } tax { amount } discount { amount } total { amount formattedAmount } }
            shippingInfo {
              region { id name }
              selectedCarrierServiceOption { carrierId code title requestedShippingOption
                logistics { deliveryTime } cost { price { amount } totalPriceBeforeTax { amount } totalPriceAfterTax { amount } totalDiscount { amount } } }
              carrierServiceOptions { carrierId shippingOptions { code title cost { price { amount } } } }
            }
            appliedDiscounts { discountType lineItemIds coupon { code name amount { amount } } }
            violations { severity description }
          }
        }`,
        { a: input.shippingAddress, o: input.selectedShippingOption },
      );
      expect(errors).toBeUndefined();
      const t = data.estimateCurrentCartTotals;
      const amount = (x: { amount: string }) => ({ amount: x.amount });
      const s = rest.priceSummary;
      expect(t.priceSummary).toEqual({
        subtotal: { amount: s.subtotal.amount, formattedAmount: s.subtotal.formattedAmount },
        shipping: amount(s.shipping),
        tax: amount(s.tax),
        discount: amount(s.discount),
        total: { amount: s.total.amount, formattedAmount: s.total.formattedAmount },
      });
      const sel = rest.shippingInfo.selectedCarrierServiceOption;
      expect(t.shippingInfo.selectedCarrierServiceOption).toEqual({
        carrierId: sel.carrierId,
        code: 'express',
        title: sel.title,
        requestedShippingOption: true,
        logistics: { deliveryTime: sel.logistics.deliveryTime },
        cost: {
          price: amount(sel.cost.price),
          totalPriceBeforeTax: amount(sel.cost.totalPriceBeforeTax),
          totalPriceAfterTax: amount(sel.cost.totalPriceAfterTax),
          totalDiscount: amount(sel.cost.totalDiscount),
        },
      });
      expect(t.shippingInfo.region).toEqual(rest.shippingInfo.region);
      expect(t.shippingInfo.carrierServiceOptions).toEqual(
        rest.shippingInfo.carrierServiceOptions.map((c: any) => ({
          carrierId: c.carrierId,
          shippingOptions: c.shippingOptions.map((o: any) => ({
            code: o.code,
            title: o.title,
            cost: { price: amount(o.cost.price) },
          })),
        })),
      );
      expect(t.appliedDiscounts).toEqual(
        rest.appliedDiscounts.map((d: any) => ({
          discountType: d.discountType,
          lineItemIds: d.lineItemIds,
          coupon: { code: d.coupon.code, name: d.coupon.name, amount: amount(d.coupon.amount) },
        })),
      );
      expect(t.appliedDiscounts[0].coupon.code).toBe('SAVE10');
      expect(Number(t.priceSummary.tax.amount)).toBeGreaterThan(0);
      expect(t.violations).toEqual([]);
      expect(t.currency).toBe(rest.currency);
      expect(t.cart.lineItems).toEqual(before.lineItems.map((l) => ({ id: l.id, quantity: l.quantity })));
      // An option that does not exist is REST's field violation; and nothing was stored either way.
      const bad = await gql(
        c,
        '{ estimateCurrentCartTotals(selectedShippingOption: {code: "by-pigeon"}) { currency } }',
      );
      const restBad = await failure(
        c.cart.estimateCurrentCartTotals({ selectedShippingOption: { code: 'by-pigeon' } }),
      );
      expect(codes(bad)).toEqual([restBad.code]);
      expect(await c.cart.getCurrentCart()).toEqual(before);
    });

    it("creates a checkout as REST does, with REST's refusals", async () => {
      const c = visitor();
      const empty = await gql(
        c,
        'mutation { createCheckoutFromCurrentCart(channelType: "WEB") { checkoutId } }',
      );
      const restEmpty = await failure(c.cart.createCheckoutFromCurrentCart());
      expect(codes(empty)).toEqual([restEmpty.code]);
      expect(empty.errors![0]!.extensions.status).toBe(restEmpty.status);

      await c.cart.addToCurrentCart({ lineItems: [item('dinner-plate', 2)] });
      const badChannel = await gql(
        c,
        'mutation { createCheckoutFromCurrentCart(channelType: "CARRIER_PIGEON") { checkoutId } }',
      );
      expect(codes(badChannel)).toEqual(['INVALID_ARGUMENT']);
      expect(badChannel.errors![0]!.extensions.fieldViolations).toContainEqual(
        expect.objectContaining({ field: 'channelType' }),
      );

      const { data, errors } = await gql<{ createCheckoutFromCurrentCart: { checkoutId: string } }>(
        c,
        `mutation ($a: AddressInput) {
          createCheckoutFromCurrentCart(channelType: "WEB", email: "ada@example.com", shippingAddress: $a) { checkoutId }
        }`,
        { a: { country: 'US', subdivision: 'US-NY', city: 'Albany', addressLine: '1 Main St' } },
      );
      expect(errors).toBeUndefined();
      const { checkoutId } = data.createCheckoutFromCurrentCart;
      // The cart now names it, as after the REST call, and the hosted checkout takes it.
      expect((await c.cart.getCurrentCart()).checkoutId).toBe(checkoutId);
      const { redirectSession } = await redirects.createRedirectSession(c, { ecomCheckout: { checkoutId } });
      expect(redirectSession.fullUrl).toContain(redirectSession.id);
    });

    it('refuses a bad mutation with the REST violations and stores nothing', async () => {
      const c = visitor();
      await c.cart.addToCurrentCart({ lineItems: [item('dinner-plate')] });
      const before = await c.cart.getCurrentCart();
      const bad = await gql(
        c,
        `mutation { addToCurrentCart(lineItems: [{catalogReference: {appId: "not-stores", catalogItemId: "x"}, quantity: 0}]) { id } }`,
      );
      expect(bad.data).toEqual({ addToCurrentCart: null });
      expect(codes(bad)).toEqual(['INVALID_ARGUMENT']);
      expect(bad.errors![0]!.extensions.fieldViolations).toContainEqual(
        expect.objectContaining({ field: 'lineItems[0].quantity' }),
      );
      const unknownLine = await gql(c, 'mutation { removeLineItemsFromCurrentCart(ids: ["nope"]) { id } }');
      expect(unknownLine.errors![0]!.extensions).toMatchObject({
        code: 'INVALID_ARGUMENT',
        fieldViolations: [expect.objectContaining({ field: 'lineItemIds[0]' })],
      });
      expect(await c.cart.getCurrentCart()).toEqual(before);
    });

    it('refuses the current cart to the merchant, as REST does', async () => {
      const r = await gql(merchant(), '{ currentCart { id } }');
      expect(codes(r)).toEqual(['PERMISSION_DENIED']);
      expect(r.errors![0]!.extensions.status).toBe(403);
    });
  });

  describe('errors and limits', () => {
    it('refuses an anonymous call with the 401 envelope of the REST routes', async () => {
      const rest = await failure(anonymous().products.queryProducts({ paging: { limit: 1 } }));
      const e = await failure(gql(anonymous(), '{ products { metadata { total } } }'));
      expect(e).toBeInstanceOf(ApplicationError);
      expect(e).toMatchObject({ status: 401, code: 'UNAUTHENTICATED' });
      expect({ status: e.status, code: e.code }).toEqual({ status: rest.status, code: rest.code });
    });

    it('answers a syntax error and an unknown field with 200, errors and no data', async () => {
      const syntax = await gql(visitor(), '{ products { metadata { total } ');
      expect(codes(syntax)).toEqual(['GRAPHQL_PARSE_FAILED']);
      expect(syntax.errors![0]!.message).toMatch(/^Syntax Error/);
      expect(syntax.data).toEqual({});

      const unknown = await gql(visitor(), '{ products { metadata { total } } product(id: "x") { colour } }');
      expect(codes(unknown)).toEqual(['GRAPHQL_VALIDATION_FAILED']);
      expect(unknown.errors![0]!.message).toContain('colour');
      expect(unknown.data).toEqual({});

      const badVariable = await gql(visitor(), 'query ($id: ID!) { product(id: $id) { id } }', {});
      expect(codes(badVariable)).toEqual(['BAD_USER_INPUT']);
      expect(badVariable.data).toEqual({});
    });

    it('refuses a too deep query, a fragment bomb and too many root fields before running them', async () => {
      const nest = (n: number): string => (n === 0 ? 'name' : `fields { type { ${nest(n - 1)} } }`);
      const deep = await gql(visitor(), `{ __schema { types { ${nest(7)} } } }`);
      expect(codes(deep)).toEqual(['QUERY_TOO_DEEP']);
      expect(deep.errors![0]!.extensions.maxDepth).toBe(15);
      expect(deep.data).toEqual({});

      const bomb = [
        'query { products { ...F0 } }',
        'fragment F0 on ProductsPage { metadata { total } products { ...F1 } }',
        ...Array.from(
          { length: 8 },
          (_, i) =>
            `fragment F${i + 1} on Product { a: name b: name ${i < 7 ? `...F${i + 2} ...F${i + 2}` : ''} }`,
        ),
      ].join('\n');
      const bombed = await gql(visitor(), bomb);
      expect(codes(bombed)).toEqual(['QUERY_TOO_COMPLEX']);

      const roots = Array.from({ length: 11 }, (_, i) => `p${i}: products { metadata { total } }`).join(' ');
      expect(codes(await gql(visitor(), `{ ${roots} }`))).toEqual(['QUERY_TOO_COMPLEX']);

      const huge = await gql(visitor(), `{ ${Array.from({ length: 2100 }, () => '__typename').join(' ')} }`);
      expect(codes(huge)).toEqual(['GRAPHQL_PARSE_FAILED']);
    });

    it('runs the standard introspection query within the limits and serves the SDL', async () => {
      const r = await gql<{ __schema: { queryType: { name: string } } }>(visitor(), getIntrospectionQuery());
      expect(r.errors).toBeUndefined();
      expect(r.data.__schema.queryType.name).toBe('Query');
      const sdl = await fetch(`${emu.url}/graphql/alpha`);
      expect(sdl.status).toBe(200);
      const text = await sdl.text();
      expect(text).toContain('currentCart: Cart');
      expect(text).toContain('addToCurrentCart(lineItems: [LineItemInput!]!): Cart');
    });

    it('answers a body that is not a GraphQL request with the 400 envelope', async () => {
      const c = visitor();
      const notString = await failure(gql(c, 42 as unknown as string));
      expect(notString).toBeInstanceOf(ValidationError);
      expect((notString as ValidationError).violations).toEqual([
        expect.objectContaining({ field: 'query' }),
      ]);
      const extra = await failure(
        request(c, 'POST', '/graphql/alpha', {
          body: { query: '{ __typename }', variables: [1], mutation: 1 },
        }),
      );
      expect(extra).toMatchObject({ status: 400 });
      expect((extra as ValidationError).violations.map((v) => v.field).sort()).toEqual([
        'mutation',
        'variables',
      ]);
      const res = await fetch(`${emu.url}/graphql/alpha`, {
        method: 'POST',
        headers: { authorization: emu.demo.apiKey, 'content-type': 'application/json' },
        body: '{"query": ',
      });
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({
        details: { applicationError: { code: 'MALFORMED_REQUEST' } },
      });
    });

    it('answers 404 for an unknown API version', async () => {
      const e = await failure(gql(visitor(), '{ __typename }', undefined, { apiVersion: 'beta' }));
      expect(e).toMatchObject({ status: 404, code: 'NOT_FOUND' });
      expect((await gql<{ __typename: string }>(visitor(), '{ __typename }')).data).toEqual({
        __typename: 'Query',
      });
    });
  });
});
