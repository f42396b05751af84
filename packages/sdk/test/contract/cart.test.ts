/**
 * The current cart through the SDK against the emulator over HTTP: every call, the wire transforms,
 * catalog resolution, merging, stock, coupons, merchant discounts, custom line items, the
 * platform's errors on bad input (with nothing stored), lifecycle events, the member merge, and
 * concurrent adds.
 */
import { testBackends } from '@shopkit/emulator/testing';
import { describe, expect, it } from 'vitest';
import { issueTokens } from '../../../emulator/src/domains/platform/index.ts';
import {
  ApiKeyStrategy,
  ApplicationError,
  cart,
  createClient,
  ItemAvailabilityStatus,
  STORES_APP_ID,
  type Tokens,
  ValidationError,
} from '../../src/index.ts';
import { failure, setupCatalog, setupEmulator, visitorClient } from './setup.ts';

const APP = STORES_APP_ID;

describe.each(testBackends())('current cart (%s)', (backend) => {
  const emu = setupEmulator(backend);
  const { ids, item } = setupCatalog(emu);

  const visitor = (tokens?: Tokens) => visitorClient(emu, { cart }, { tokens });
  const events = async (entityId: string) =>
    (
      await emu.emu.db.query<{ type: string }>('SELECT type FROM events WHERE entity_id = $1 ORDER BY seq', [
        entityId,
      ])
    ).map((r) => r.type);
  const stored = async (cartId: string) =>
    (
      await emu.emu.db.query<{ doc: unknown; revision: number }>(
        'SELECT doc, revision FROM carts WHERE id = $1',
        [cartId],
      )
    )[0]!;

  it('answers OWNED_CART_NOT_FOUND (404, platform envelope) before the first add', async () => {
    const c = visitor();
    const e = await failure(c.cart.getCurrentCart());
    expect(e).toBeInstanceOf(ApplicationError);
    expect(e).toMatchObject({ status: 404, code: 'OWNED_CART_NOT_FOUND' });
    expect(e.requestId).toBeTruthy();
    for (const call of [
      () => c.cart.deleteCurrentCart(),
      () => c.cart.removeCouponFromCurrentCart(),
      () => c.cart.estimateCurrentCartTotals(),
      () => c.cart.createCheckoutFromCurrentCart(),
      () => c.cart.removeLineItemsFromCurrentCart(['x']),
      () => c.cart.updateCurrentCartLineItemQuantity([{ id: 'x', quantity: 1 }]),
    ])
      expect(await failure(call())).toMatchObject({ code: 'OWNED_CART_NOT_FOUND' });
  });

  it('adds a catalog item resolved against the catalog, with the SDK shapes of wire §5.1', async () => {
    const c = visitor();
    const { cart: got } = await c.cart.addToCurrentCart({
      lineItems: [item('linen-shirt', 2, { Size: 'M', Color: 'Sand' })],
    });
    expect(got.lineItems).toHaveLength(1);
    const line = got.lineItems[0]!;
    expect(line).toMatchObject({
      quantity: 2,
      productName: { original: 'Linen Shirt' },
      price: { amount: '68.00', formattedAmount: '$68.00' },
      lineItemPrice: { amount: '136.00', formattedAmount: '$136.00' },
      availability: { status: ItemAvailabilityStatus.AVAILABLE, quantityAvailable: 5 },
      physicalProperties: { weight: 0.32, sku: 'LS-M-Sand', shippable: true },
      itemType: { preset: 'PHYSICAL' },
      catalogReference: { appId: APP, catalogItemId: ids.get('linen-shirt') },
    });
    expect(line.descriptionLines).toEqual([
      {
        name: { original: 'Size', translated: 'Size' },
        plainText: { original: 'M', translated: 'M' },
        lineType: 'PLAIN_TEXT',
      },
      {
        name: { original: 'Color', translated: 'Color' },
        colorInfo: { original: 'Sand', translated: 'Sand', code: '#d8c3a5' },
        lineType: 'COLOR',
      },
    ]);
    // Transforms: url object → string, image object → wix:image reference, dates → Date.
    expect(line.url).toBe(`${emu.url}/product-page/linen-shirt`);
    expect(line.image).toMatch(
      /^wix:image:\/\/v1\/linen-shirt-sand\.svg\/.+#originWidth=800&originHeight=800$/,
    );
    expect(got.createdDate).toBeInstanceOf(Date);
    expect(got.updatedDate).toBeInstanceOf(Date);
    expect(got.subtotal).toMatchObject({ amount: '136.00', formattedAmount: '$136.00' });
    expect(got.buyerInfo?.visitorId).toBeTruthy();
    // The product page the url points at is served.
    const page = await fetch(line.url!);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Linen Shirt');

    expect(await c.cart.getCurrentCart()).toEqual(got);
    expect(await events(got.id)).toEqual(['wix.ecom.v1.cart_created']);
  });

  it('merges the same item added again (by choices or by variant id) and keeps other variants apart', async () => {
    const c = visitor();
    const first = (
      await c.cart.addToCurrentCart({ lineItems: [item('linen-shirt', 1, { Size: 'S', Color: 'White' })] })
    ).cart;
    const variantId = (first.lineItems[0]!.catalogReference!.options as { variantId?: string }).variantId;
    expect(variantId).toBeUndefined(); // echoed as sent: choices
    const { cart: again } = await c.cart.addToCurrentCart({
      lineItems: [
        item('linen-shirt', 2, { Color: 'White', Size: 'S' }),
        item('linen-shirt', 1, { Size: 'M', Color: 'White' }),
      ],
    });
    expect(again.lineItems.map((l) => l.quantity)).toEqual([3, 1]);
    expect(again.lineItems[0]!.id).toBe(first.lineItems[0]!.id);
    const { cart: third } = await c.cart.addToCurrentCart({
      lineItems: [item('dinner-plate'), item('dinner-plate', 4)],
    });
    expect(third.lineItems.map((l) => [l.productName?.original, l.quantity])).toEqual([
      ['Linen Shirt', 3],
      ['Linen Shirt', 1],
      ['Stoneware Dinner Plate', 5],
    ]);
    expect(third.lineItems[2]).toMatchObject({
      price: { amount: '27.00' },
      fullPrice: { amount: '32.00' },
      lineItemPrice: { amount: '135.00' },
    });
    expect(third.revision).toBe('3');
  });

  it('reports stock with availability instead of truncating quantities', async () => {
    const c = visitor();
    const { cart: got } = await c.cart.addToCurrentCart({
      lineItems: [
        item('linen-shirt', 9, { Size: 'M', Color: 'White' }), // 8 in stock
        item('olive-wood-spoon', 1), // sold out
        item('gift-card', 2), // digital, not tracked
      ],
    });
    expect(got.lineItems.map((l) => [l.quantity, l.availability])).toEqual([
      [9, { status: 'PARTIALLY_AVAILABLE', quantityAvailable: 8 }],
      [1, { status: 'NOT_AVAILABLE', quantityAvailable: 0 }],
      [2, { status: 'AVAILABLE' }],
    ]);
    expect(got.lineItems[2]).toMatchObject({
      itemType: { preset: 'DIGITAL' },
      physicalProperties: { shippable: false },
    });
    const est = await c.cart.estimateCurrentCartTotals();
    // `name` is where the page shows the violation (the platform's enum), not the product's name.
    expect(est.violations).toEqual([
      {
        severity: 'ERROR',
        target: {
          lineItem: {
            id: got.lineItems[0]!.id,
            name: 'LINE_ITEM_DEFAULT',
            suggestedFix: 'UNKNOWN_SUGGESTED_FIX',
          },
        },
        description: 'Only 8 of Linen Shirt are in stock; the cart has 9',
      },
      {
        severity: 'ERROR',
        target: {
          lineItem: { id: got.lineItems[1]!.id, name: 'LINE_ITEM_DEFAULT', suggestedFix: 'REMOVE_LINE_ITEM' },
        },
        description: 'Olive Wood Spoon is out of stock',
      },
    ]);
    const e = await failure(c.cart.createCheckoutFromCurrentCart());
    expect(e).toBeInstanceOf(ApplicationError);
    expect(e.code).toBe('LINE_ITEMS_NOT_AVAILABLE');
    expect(e.data).toEqual({
      lineItems: [
        { id: got.lineItems[0]!.id, availability: { status: 'PARTIALLY_AVAILABLE', quantityAvailable: 8 } },
        { id: got.lineItems[1]!.id, availability: { status: 'NOT_AVAILABLE', quantityAvailable: 0 } },
      ],
    });
    // Fixing the quantities makes it checkout-able.
    const { cart: fixed } = await c.cart.updateCurrentCartLineItemQuantity([
      { id: got.lineItems[0]!.id, quantity: 8 },
      { id: got.lineItems[1]!.id, quantity: 0 },
    ]);
    expect(fixed.lineItems.map((l) => l.availability?.status)).toEqual(['AVAILABLE', 'AVAILABLE']);
    expect((await c.cart.createCheckoutFromCurrentCart()).checkoutId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('refuses bad line items with field violations named as the SDK arguments, storing nothing', async () => {
    const c = visitor();
    const { cart: before } = await c.cart.addToCurrentCart({ lineItems: [item('linen-tea-towels')] });
    const cases: Array<[Parameters<typeof c.cart.addToCurrentCart>[0], string, string]> = [
      [
        {
          lineItems: [
            { catalogReference: { appId: 'other-app', catalogItemId: ids.get('gift-card')! }, quantity: 1 },
          ],
        },
        'options.lineItems[0].catalogReference.appId',
        'VALIDATION',
      ],
      [
        { lineItems: [{ catalogReference: { appId: APP, catalogItemId: 'no-such-product' }, quantity: 1 }] },
        'options.lineItems[0].catalogReference.catalogItemId',
        'VALIDATION',
      ],
      [
        { lineItems: [item('enamel-pitcher')] },
        'options.lineItems[0].catalogReference.catalogItemId',
        'VALIDATION',
      ], // hidden
      [
        { lineItems: [item('linen-shirt', 1, { Size: 'XXL', Color: 'White' })] },
        'options.lineItems[0].catalogReference.options',
        'VALIDATION',
      ],
      [
        { lineItems: [item('linen-shirt')] },
        'options.lineItems[0].catalogReference.options',
        'REQUIRED_FIELD',
      ], // options missing: the product exists, its variant is not chosen
      [{ lineItems: [item('gift-card', 0)] }, 'options.lineItems[0].quantity', 'MIN'],
      [{ lineItems: [item('gift-card', 1.5)] }, 'options.lineItems[0].quantity', 'FORMAT'],
      [{ lineItems: [item('gift-card', 10_000)] }, 'options.lineItems[0].quantity', 'MAX'],
      [{ lineItems: [item('linen-tea-towels', 9999)] }, 'options.lineItems[0].quantity', 'MAX'], // 1 + 9999
      [{ lineItems: [] }, 'options.lineItems', 'MIN_SIZE'],
    ];
    for (const [input, field, rule] of cases) {
      const e = await failure(c.cart.addToCurrentCart(input));
      expect(e, field).toBeInstanceOf(ValidationError);
      expect((e as ValidationError).violations.map((v) => [v.field, v.violatedRule])).toEqual([
        [field, rule],
      ]);
      expect(e.message).toMatch(/^INVALID_ARGUMENT: "options\./);
    }
    // A product with options but no choice is named as such, not called missing.
    const unchosen = await failure(c.cart.addToCurrentCart({ lineItems: [item('linen-shirt')] }));
    expect(unchosen.message).toBe(
      'INVALID_ARGUMENT: "options.lineItems[0].catalogReference.options" must choose a variant of Linen Shirt (options Size, Color): options.variantId, or options.options with a choice of each',
    );
    expect(await c.cart.getCurrentCart()).toEqual(before);
    expect((await stored(before.id)).revision).toBe(1);
  });

  it('removes line items and updates quantities; unknown ids are field violations', async () => {
    const c = visitor();
    const { cart: got } = await c.cart.addToCurrentCart({
      lineItems: [item('linen-tea-towels', 2), item('gift-card'), item('dinner-plate', 3)],
    });
    const [a, b, d] = got.lineItems.map((l) => l.id);
    const { cart: removed } = await c.cart.removeLineItemsFromCurrentCart([b!]);
    expect(removed.lineItems.map((l) => l.id)).toEqual([a, d]);
    const { cart: updated } = await c.cart.updateCurrentCartLineItemQuantity([
      { id: a!, quantity: 5 },
      { id: d!, quantity: 0 },
    ]);
    expect(updated.lineItems.map((l) => [l.id, l.quantity])).toEqual([[a, 5]]);
    const e1 = await failure(c.cart.removeLineItemsFromCurrentCart([a!, 'nope']));
    expect((e1 as ValidationError).violations.map((v) => v.field)).toEqual(['lineItemIds[1]']);
    const e2 = await failure(c.cart.updateCurrentCartLineItemQuantity([{ id: 'nope', quantity: 1 }]));
    expect((e2 as ValidationError).violations.map((v) => v.field)).toEqual(['lineItems[0].id']);
    const e3 = await failure(c.cart.updateCurrentCartLineItemQuantity([{ id: a!, quantity: -1 }]));
    expect((e3 as ValidationError).violations.map((v) => [v.field, v.violatedRule])).toEqual([
      ['lineItems[0].quantity', 'MIN'],
    ]);
    const e4 = await failure(c.cart.removeLineItemsFromCurrentCart([]));
    expect((e4 as ValidationError).violations.map((v) => v.field)).toEqual(['lineItemIds']);
    expect((await c.cart.getCurrentCart()).lineItems.map((l) => [l.id, l.quantity])).toEqual([[a, 5]]);
  });

  it('updates cart info with SDK address names, honours cartFieldmask, and validates', async () => {
    const c = visitor();
    await c.cart.addToCurrentCart({ lineItems: [item('gift-card')] });
    const updated = await c.cart.updateCurrentCart({
      cartInfo: {
        buyerNote: 'Leave at the door',
        contactInfo: {
          address: {
            addressLine1: '1 Main St',
            city: 'Albany',
            subdivision: 'US-NY',
            country: 'US',
            postalCode: '12207',
            formatted: '1 Main St, Albany',
            location: { latitude: 42.65, longitude: -73.75 },
            streetAddress: { number: '1', name: 'Main St', apt: '4B', formattedAddressLine: '1 Main St' },
          },
          contactDetails: { firstName: 'Ada', lastName: 'Lovelace' },
        },
        selectedShippingOption: { code: 'express' },
      },
    });
    expect(updated.buyerNote).toBe('Leave at the door');
    expect(updated.contactInfo?.address).toEqual({
      addressLine1: '1 Main St',
      city: 'Albany',
      subdivision: 'US-NY',
      country: 'US',
      postalCode: '12207',
      formatted: '1 Main St, Albany',
      location: { latitude: 42.65, longitude: -73.75 },
      streetAddress: { number: '1', name: 'Main St', apt: '4B', formattedAddressLine: '1 Main St' },
    });
    expect(updated.selectedShippingOption).toEqual({ code: 'express' });
    // The mask replaces only buyerNote (cleared: absent from cartInfo); contact info stays.
    const masked = await c.cart.updateCurrentCart({ cartInfo: {}, cartFieldmask: ['buyerNote'] });
    expect(masked.buyerNote).toBeUndefined();
    expect(masked.contactInfo?.address?.city).toBe('Albany');
    // Bad input: nothing changes.
    const bad: Array<[Parameters<typeof c.cart.updateCurrentCart>[0], string]> = [
      [
        { cartInfo: { contactInfo: { address: { country: 'USA' } } } },
        'options.cartInfo.contactInfo.address.country',
      ],
      [
        { cartInfo: { contactInfo: { address: { location: { latitude: Number.NaN } } } } },
        'options.cartInfo.contactInfo.address.geocode.latitude',
      ],
      [
        { cartInfo: { contactInfo: { address: { location: { latitude: 91 } } } } },
        'options.cartInfo.contactInfo.address.geocode.latitude',
      ],
      [{ cartFieldmask: ['lineItems'] }, 'options.cartFieldmask[0]'],
      [{ cartInfo: { buyerNote: 'x'.repeat(1001) } }, 'options.cartInfo.buyerNote'],
    ];
    for (const [input, field] of bad) {
      const e = await failure(c.cart.updateCurrentCart(input));
      expect(e, field).toBeInstanceOf(ValidationError);
      expect((e as ValidationError).violations.map((v) => v.field)).toEqual([field]);
    }
    expect(await c.cart.getCurrentCart()).toEqual(masked);
  });

  it('applies and removes coupons; unknown, expired and inapplicable coupons give the platform codes', async () => {
    const c = visitor();
    await c.cart.addToCurrentCart({ lineItems: [item('linen-tea-towels', 2)] }); // 36.00
    const code = async (couponCode: string) => (await failure(c.cart.updateCurrentCart({ couponCode }))).code;
    expect(await code('NOPE')).toBe('ERROR_COUPON_DOES_NOT_EXIST');
    expect(await code('SPRING2020')).toBe('ERROR_COUPON_EXPIRED');
    expect(await code('BIG15')).toBe('ERROR_COUPON_NOT_APPLICABLE'); // needs 100.00
    const e = await failure(c.cart.updateCurrentCart({ couponCode: 'BIG15' }));
    expect(e).toBeInstanceOf(ApplicationError);
    expect(e.message).toBe('The coupon BIG15 needs a subtotal of at least 100.00');
    expect(e.data).toEqual({ couponCode: 'BIG15' });
    expect((await c.cart.getCurrentCart()).appliedDiscounts).toEqual([]);

    const withCoupon = await c.cart.updateCurrentCart({ couponCode: 'save10' });
    expect(withCoupon.appliedDiscounts).toEqual([
      {
        discountType: 'GLOBAL',
        lineItemIds: [withCoupon.lineItems[0]!.id],
        coupon: {
          id: expect.any(String),
          code: 'SAVE10',
          name: '10% off everything',
          amount: {
            amount: '3.60',
            convertedAmount: '3.60',
            formattedAmount: '$3.60',
            formattedConvertedAmount: '$3.60',
          },
        },
      },
    ]);
    expect((await c.cart.removeCouponFromCurrentCart()).cart.appliedDiscounts).toEqual([]);
    // A coupon on an empty cart does not apply.
    const empty = visitor();
    await empty.cart.addToCurrentCart({ lineItems: [item('gift-card')] });
    await empty.cart.removeLineItemsFromCurrentCart([(await empty.cart.getCurrentCart()).lineItems[0]!.id]);
    expect((await failure(empty.cart.updateCurrentCart({ couponCode: 'TAKE5' }))).code).toBe(
      'ERROR_COUPON_NOT_APPLICABLE',
    );
    // Free shipping needs something that ships.
    expect(
      (
        await failure(
          empty.cart.updateCurrentCart({ couponCode: 'FREESHIP', lineItems: [item('gift-card')] }),
        )
      ).code,
    ).toBe('ERROR_COUPON_NOT_APPLICABLE');
    expect((await empty.cart.getCurrentCart()).lineItems).toEqual([]); // the failed update added nothing
  });

  it('keeps custom line items and merchant discounts for elevated callers', async () => {
    const buyer = visitor();
    await buyer.cart.addToCurrentCart({ lineItems: [item('linen-tea-towels', 2)] }); // 36.00
    const custom = {
      quantity: 2,
      price: '9.99',
      productName: { original: 'Gift wrap' },
      itemType: { preset: 'PHYSICAL' as const },
      media: 'wix:image://v1/wrap.svg/Gift%20wrap#originWidth=100&originHeight=50',
      url: 'https://shop.example/gift-wrap',
      physicalProperties: { weight: 0.05, shippable: true },
    };
    const denied = await failure(buyer.cart.addToCurrentCart({ customLineItems: [custom] }));
    expect(denied).toMatchObject({ status: 403, code: 'PERMISSION_DENIED' });
    expect(denied.message).toMatch(/Custom line items need an elevated caller/);
    expect(
      (await failure(buyer.cart.updateCurrentCart({ merchantDiscounts: [{ amount: '1.00' }] }))).code,
    ).toBe('PERMISSION_DENIED');

    // The buyer's own cart, with the API key of a trusted server after the buyer's token.
    const key = { apiKey: emu.demo.apiKey };
    const { cart: got } = await buyer.cart.addToCurrentCart({ customLineItems: [custom] }, key);
    const wrap = got.lineItems[1]!;
    expect(wrap).toMatchObject({
      customLineItem: true,
      productName: { original: 'Gift wrap' },
      price: { amount: '9.99' },
      lineItemPrice: { amount: '19.98' },
      image: 'wix:image://v1/wrap.svg/Gift%20wrap#originWidth=100&originHeight=50',
      url: 'https://shop.example/gift-wrap',
      physicalProperties: { weight: 0.05, shippable: true },
    });
    const towels = got.lineItems[0]!.id;
    const discounted = await buyer.cart.updateCurrentCart(
      { merchantDiscounts: [{ percentage: 12.5, lineItemIds: [towels] }, { amount: '2.00' }] },
      key,
    );
    expect(discounted.appliedDiscounts).toEqual([
      {
        discountType: 'SPECIFIC_ITEMS',
        lineItemIds: [towels],
        merchantDiscount: expect.objectContaining({
          amount: expect.objectContaining({ amount: '4.50' }),
          percentage: 12.5,
        }),
      },
      {
        discountType: 'GLOBAL',
        lineItemIds: [towels, wrap.id],
        merchantDiscount: { amount: expect.objectContaining({ amount: '2.00' }) },
      },
    ]);
    const est = await buyer.cart.estimateCurrentCartTotals({ calculateTax: false, calculateShipping: false });
    expect(est.priceSummary).toMatchObject({
      subtotal: { amount: '55.98' },
      discount: { amount: '6.50' },
      total: { amount: '49.48' },
    });
    expect(est.appliedDiscounts[0]!.merchantDiscount!.percentage).toBe(12.5);
    const bad = await failure(
      buyer.cart.updateCurrentCart({ merchantDiscounts: [{ amount: '1.00', lineItemIds: ['nope'] }] }, key),
    );
    expect((bad as ValidationError).violations.map((v) => v.field)).toEqual([
      'options.merchantDiscounts[0].lineItemIds[0]',
    ]);
    const both = await failure(
      buyer.cart.updateCurrentCart({ merchantDiscounts: [{ amount: '1.00', percentage: 5 }] }, key),
    );
    expect((both as ValidationError).violations.map((v) => v.field)).toEqual([
      'options.merchantDiscounts[0]',
    ]);
    const price = await failure(
      buyer.cart.addToCurrentCart({ customLineItems: [{ ...custom, price: '1.999' }] }, key),
    );
    expect((price as ValidationError).violations.map((v) => v.field)).toEqual([
      'options.customLineItems[0].price',
    ]);
  });

  it('has no current cart for an API key alone', async () => {
    const admin = createClient({
      baseUrl: emu.url,
      auth: ApiKeyStrategy({ apiKey: emu.demo.apiKey, siteId: emu.demo.siteId }),
      modules: { cart },
    });
    const e = await failure(admin.cart.getCurrentCart());
    expect(e).toMatchObject({ status: 403, code: 'PERMISSION_DENIED' });
    expect(e.message).toMatch(/Only a visitor or a member has a current cart/);
  });

  it('deletes the cart, recording created, updated and deleted events', async () => {
    const c = visitor();
    const { cart: got } = await c.cart.addToCurrentCart({ lineItems: [item('gift-card')] });
    await c.cart.updateCurrentCart({ cartInfo: { buyerNote: 'hi' } });
    expect(await c.cart.deleteCurrentCart()).toEqual({});
    expect((await failure(c.cart.getCurrentCart())).code).toBe('OWNED_CART_NOT_FOUND');
    expect((await failure(c.cart.deleteCurrentCart())).code).toBe('OWNED_CART_NOT_FOUND');
    expect(await events(got.id)).toEqual([
      'wix.ecom.v1.cart_created',
      'wix.ecom.v1.cart_updated',
      'wix.ecom.v1.cart_deleted',
    ]);
    const entity = (
      await emu.emu.db.query(
        "SELECT entity FROM events WHERE entity_id = $1 AND type = 'wix.ecom.v1.cart_updated'",
        [got.id],
      )
    )[0]!.entity;
    expect(entity).toMatchObject({ id: got.id, buyerNote: 'hi' });
    // A new add starts a new cart.
    const { cart: next } = await c.cart.addToCurrentCart({ lineItems: [item('gift-card')] });
    expect(next.id).not.toBe(got.id);
  });

  it("takes a visitor's cart into the member's cart at login, merging quantities (nothing lost)", async () => {
    const v = visitor();
    const { cart: vc } = await v.cart.addToCurrentCart({
      lineItems: [item('linen-tea-towels', 2), item('gift-card')],
    });
    await v.cart.updateCurrentCart({ couponCode: 'SAVE10' });
    const visitorId = vc.buyerInfo!.visitorId!;
    const memberId = crypto.randomUUID();
    // A member who already has a cart with one of the same items.
    const memberTokens = async (vid: string | null) => {
      const t = await emu.emu.db.tx((sql) =>
        issueTokens(emu.emu, sql, {
          clientId: emu.demo.clientId,
          subjectType: 'MEMBER',
          visitorId: vid,
          memberId,
        }),
      );
      return {
        accessToken: { value: t.access_token, expiresAt: Math.floor(Date.now() / 1000) + t.expires_in },
        refreshToken: { value: t.refresh_token, role: 'member' as const },
      };
    };
    const earlier = visitor(await memberTokens(null));
    const { cart: mc } = await earlier.cart.addToCurrentCart({ lineItems: [item('linen-tea-towels', 1)] });
    const member = visitor(await memberTokens(visitorId));
    const merged = await member.cart.getCurrentCart();
    expect(merged.id).toBe(mc.id);
    expect(merged.buyerInfo).toEqual({ memberId });
    expect(merged.lineItems.map((l) => [l.productName?.original, l.quantity])).toEqual([
      ['Linen Tea Towels (Set of 3)', 3],
      ['Gift Card', 1],
    ]);
    expect(merged.appliedDiscounts?.[0]?.coupon?.code).toBe('SAVE10');
    expect((await failure(v.cart.getCurrentCart())).code).toBe('OWNED_CART_NOT_FOUND');
    expect(await events(vc.id)).toContain('wix.ecom.v1.cart_deleted');
    // Without a member cart, the visitor's cart simply becomes the member's.
    const v2 = visitor();
    const { cart: v2c } = await v2.cart.addToCurrentCart({ lineItems: [item('gift-card', 2)] });
    const t2 = await emu.emu.db.tx((sql) =>
      issueTokens(emu.emu, sql, {
        clientId: emu.demo.clientId,
        subjectType: 'MEMBER',
        visitorId: v2c.buyerInfo!.visitorId!,
        memberId: crypto.randomUUID(),
      }),
    );
    const m2 = visitor({
      accessToken: { value: t2.access_token, expiresAt: Math.floor(Date.now() / 1000) + t2.expires_in },
      refreshToken: { value: t2.refresh_token, role: 'member' },
    });
    const { cart: after } = await m2.cart.addToCurrentCart({ lineItems: [item('gift-card')] });
    expect(after.lineItems.map((l) => l.quantity)).toEqual([3]);
  });

  it('lands every one of 50 parallel adds across 5 carts', async () => {
    const clients = Array.from({ length: 5 }, () => visitor());
    // Each client gets its token first, so that the adds race on the cart, not on the token.
    await Promise.all(clients.map((c) => c.auth.getAuthHeaders(c.transport)));
    await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        clients[i % 5]!.cart.addToCurrentCart({
          lineItems: [item(i % 2 ? 'linen-tea-towels' : 'gift-card', 1 + (i % 3))],
        }),
      ),
    );
    for (const [k, c] of clients.entries()) {
      const got = await c.cart.getCurrentCart();
      const want = Array.from({ length: 50 }, (_, i) => i).filter((i) => i % 5 === k);
      const units = want.reduce((a, i) => a + 1 + (i % 3), 0);
      expect(got.lineItems.reduce((a, l) => a + l.quantity, 0)).toBe(units);
      expect(got.lineItems).toHaveLength(new Set(want.map((i) => i % 2)).size);
      expect(got.revision).toBe(String(want.length));
    }
  });
});
