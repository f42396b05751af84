/**
 * Cart pricing and checkout of the third audit, over raw HTTP on both storages: every total of an
 * estimate agrees with its lines and with the others to the cent (cents in prices, mixed
 * quantities, percentage and amount discounts, a coupon); the estimate's shape is the wire's; the
 * address moves tax and shipping; odd quantities and lines whose product went away answer the
 * platform's error or a documented cart state; a checkout keeps the cart as it was; and an order
 * placed on the hosted page is charged the total the page showed, whatever address is typed there.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator, testBackends } from '../src/testing.ts';
import { catalogItem, customLine, formFields, jsonCalls, shownTotal, visitorToken } from './http.ts';

const CART = '/ecom/v1/carts/current';
const cents = (amount: string) => BigInt(amount.replace('.', ''));
const AMOUNT = /^-?\d+\.\d{2}$/;
const usd = (amount: string) =>
  new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' }).format(
    amount as Intl.StringNumericLiteral,
  );
/** `c × micros / 10^8`, rounded half up (amounts here are never negative). */
const pct = (c: bigint, micros: bigint) => (c * micros + 50_000_000n) / 100_000_000n;

const NY = {
  country: 'US',
  subdivision: 'US-NY',
  city: 'Albany',
  postalCode: '12207',
  addressLine: '1 Main St',
};
const CA = {
  country: 'US',
  subdivision: 'US-CA',
  city: 'Fresno',
  postalCode: '93650',
  addressLine: '2 Elm St',
};

/** Every wire price object in `x`, with its path. */
function prices(x: unknown, at = ''): Array<[string, any]> {
  if (!x || typeof x !== 'object') return [];
  const o = x as Record<string, unknown>;
  if (typeof o.amount === 'string' && 'formattedAmount' in o) return [[at, o]];
  return Object.entries(o).flatMap(([k, v]) => prices(v, `${at}.${k}`));
}

/** What a buyer types on the checkout page: name, e-mail and `address`. */
const typed = (address: Record<string, string | undefined>) => ({
  email: 'ada@example.com',
  firstName: 'Ada',
  lastName: 'Lovelace',
  addressLine: address.addressLine ?? '1 Main St',
  city: address.city ?? 'Town',
  postalCode: address.postalCode ?? '00000',
  country: address.country ?? '',
  subdivision: address.subdivision ?? '',
});

describe.each(testBackends())('cart audit 3 (%s)', (backend) => {
  let emu: TestEmulator;
  beforeAll(async () => {
    emu = await startTestEmulator(backend);
  });
  afterAll(() => emu?.stop());

  const { call, owner } = jsonCalls(() => emu);
  /** A new visitor's cart calls; `<token>,<apiKey>` so that custom lines and merchant discounts pass. */
  const buyer = async () => {
    const token = await visitorToken(emu);
    const h = { authorization: `${token},${emu.demo.apiKey}` };
    const ok = async (res: { status: number; body: any }) => {
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body;
    };
    return {
      token,
      raw: (method: string, path: string, body?: object) => call(method, `${CART}${path}`, body, h),
      add: (body: object) => call('POST', `${CART}/add-to-cart`, body, h).then(ok),
      patch: (body: object) => call('PATCH', CART, body, h).then(ok),
      get: () => call('GET', CART, undefined, h).then(ok),
      estimate: (body: object = {}) => call('POST', `${CART}/estimate-totals`, body, h).then(ok),
      checkout: (body: object = {}) => call('POST', `${CART}/create-checkout`, body, h),
      quantity: (lineItems: object[]) => call('POST', `${CART}/update-line-items-quantity`, { lineItems }, h),
    };
  };
  let n = 0;
  const createProduct = async (fields: Record<string, unknown> = {}) => {
    const res = await owner('POST', '/stores/v1/products', {
      product: { name: `Audit3 cart ${++n}`, productType: 'physical', priceData: { price: 10.5 }, ...fields },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.product;
  };
  const productLine = (id: string, quantity = 1, variantId?: string) => ({
    catalogReference: {
      appId: catalogItem('dinner-plate').catalogReference.appId,
      catalogItemId: id,
      ...(variantId ? { options: { variantId } } : {}),
    },
    quantity,
  });
  const checkoutDoc = async (id: string) =>
    (await emu.emu.db.query<{ doc: any }>('SELECT doc FROM checkouts WHERE id = $1', [id]))[0]!.doc;

  /** The relations every estimate must keep, to the cent. */
  function expectConsistent(est: any) {
    for (const [at, p] of prices(est)) {
      expect(p.amount, at).toMatch(AMOUNT);
      expect(p.formattedAmount, at).toBe(usd(p.amount));
    }
    expect(est.currency).toBe('USD');
    const s = est.priceSummary;
    const lines = est.calculatedLineItems.map((c: any) => c.pricesBreakdown);
    const cartLines = est.cart.lineItems;
    // Lines: unit × quantity, then discount, then tax.
    est.calculatedLineItems.forEach((c: any, i: number) => {
      const b = c.pricesBreakdown;
      const line = cartLines[i];
      expect(c.lineItemId).toBe(line.id);
      if (line.availability.status !== 'NOT_FOUND') {
        expect(cents(b.lineItemPrice.amount)).toBe(cents(line.price.amount) * BigInt(line.quantity));
        expect(b.lineItemPrice.amount).toBe(line.lineItemPrice.amount);
      }
      expect(cents(b.totalPriceBeforeTax.amount)).toBe(
        cents(b.lineItemPrice.amount) - cents(b.totalDiscount.amount),
      );
      expect(cents(b.totalPriceAfterTax.amount)).toBe(
        cents(b.totalPriceBeforeTax.amount) + cents(b.taxDetails.totalTax.amount),
      );
    });
    const sum = (xs: string[]) => xs.reduce((t, a) => t + cents(a), 0n);
    expect(cents(s.subtotal.amount)).toBe(sum(lines.map((b: any) => b.lineItemPrice.amount)));
    expect(s.subtotal.amount).toBe(est.cart.subtotal.amount);
    const ship = est.shippingInfo.selectedCarrierServiceOption;
    const lineDiscount = sum(lines.map((b: any) => b.totalDiscount.amount));
    const shipDiscount = ship ? cents(ship.cost.totalDiscount.amount) : 0n;
    expect(cents(s.discount.amount)).toBe(lineDiscount + shipDiscount);
    expect(cents(est.cart.subtotalAfterDiscounts.amount)).toBe(cents(s.subtotal.amount) - lineDiscount);
    // Applied discounts add up to the discount.
    expect(sum(est.appliedDiscounts.map((a: any) => (a.coupon ?? a.merchantDiscount).amount.amount))).toBe(
      cents(s.discount.amount),
    );
    // Shipping: the option's price and charges; tax: the lines' and the shipping's.
    if (ship) {
      const charges = sum(ship.otherCharges.map((o: any) => o.cost.price.amount));
      expect(cents(s.shipping.amount)).toBe(cents(ship.cost.price.amount));
      const option = est.shippingInfo.carrierServiceOptions
        .flatMap((c: any) => c.shippingOptions.map((o: any) => ({ ...o, carrierId: c.carrierId })))
        .find((o: any) => o.code === ship.code && o.carrierId === ship.carrierId);
      expect(cents(option.cost.price.amount) + charges).toBe(cents(s.shipping.amount));
    } else expect(s.shipping.amount).toBe('0.00');
    const shipTax = ship ? cents(ship.cost.taxDetails.totalTax.amount) : 0n;
    expect(cents(s.tax.amount)).toBe(sum(lines.map((b: any) => b.taxDetails.totalTax.amount)) + shipTax);
    expect(est.taxSummary.totalTax.amount).toBe(s.tax.amount);
    expect(cents(s.total.amount)).toBe(
      cents(s.subtotal.amount) - cents(s.discount.amount) + cents(s.shipping.amount) + cents(s.tax.amount),
    );
    expect(est.payNow).toEqual(s);
  }

  describe('estimate totals', () => {
    it('agree with the lines and with each other to the cent: cents, mixed quantities, discounts and a coupon', async () => {
      const b = await buyer();
      await b.add({
        lineItems: [catalogItem('dinner-plate', 3), catalogItem('olive-wood-spoon', 7)],
        customLineItems: [customLine('A', '19.99', 3), customLine('B', '0.33', 7), customLine('C', '1.01')],
      });
      await b.patch({
        couponCode: 'SAVE10',
        merchantDiscounts: [
          { percentage: 12.5, lineItemIds: ['A'] },
          { amount: '0.99', lineItemIds: ['B', 'C'] },
          { percentage: 3.333 },
        ],
      });
      for (const address of [NY, CA, { country: 'FR', city: 'Paris', postalCode: '75001' }]) {
        for (const code of ['standard', 'express', 'store-pickup']) {
          const est = await b.estimate({ shippingAddress: address, selectedShippingOption: { code } });
          expectConsistent(est);
          // 3 × 27 (the plate's sale price) + 98 + 59.97 + 2.31 + 1.01 = 242.29; the coupon is 10 %
          // of it, rounded once.
          expect(est.priceSummary.subtotal.amount).toBe('242.29');
          const coupon = est.appliedDiscounts.find((a: any) => a.coupon);
          expect(coupon.coupon.amount.amount).toBe('24.23');
          // Tax is per line on its net, rounded per line, and the rate each line names (a pickup's,
          // the store's in New York).
          const at = code === 'store-pickup' ? NY : address;
          const rate = at === NY ? 8_875_000n : at === CA ? 7_250_000n : 20_000_000n;
          for (const c of est.calculatedLineItems)
            expect(cents(c.pricesBreakdown.taxDetails.totalTax.amount)).toBe(
              pct(cents(c.pricesBreakdown.totalPriceBeforeTax.amount), rate),
            );
        }
      }
    });

    it("a free-shipping coupon takes the whole shipping, its charges and the shipping's tax", async () => {
      const b = await buyer();
      await b.add({ customLineItems: [customLine('A', '10.01', 3)] });
      await b.patch({ couponCode: 'FREESHIP' });
      const est = await b.estimate({ shippingAddress: NY, selectedShippingOption: { code: 'express' } });
      expectConsistent(est);
      expect(est.priceSummary.shipping.amount).toBe('17.00');
      expect(est.priceSummary.discount.amount).toBe('17.00');
      expect(est.shippingInfo.selectedCarrierServiceOption.cost.taxDetails.totalTax.amount).toBe('0.00');
      expect(est.appliedDiscounts).toEqual([
        expect.objectContaining({
          discountType: 'SHIPPING',
          coupon: expect.objectContaining({ code: 'FREESHIP' }),
        }),
      ]);
    });
    it('discounts larger than the lines, a coupon the cart fell below, and the largest amounts still add up', async () => {
      const b = await buyer();
      const { cart } = await b.add({
        customLineItems: [customLine('A', '60.00', 2), customLine('B', '0.01', 3)],
      });
      await b.patch({ couponCode: 'BIG15', merchantDiscounts: [{ amount: '1000.00', lineItemIds: ['B'] }] });
      let est = await b.estimate({ shippingAddress: NY });
      expectConsistent(est);
      expect(est.calculatedLineItems[1].pricesBreakdown.totalPriceBeforeTax.amount).toBe('0.00');
      expect(est.appliedDiscounts.map((a: any) => (a.coupon ?? a.merchantDiscount).amount.amount)).toEqual([
        '18.00',
        '0.03',
      ]);
      // Below the coupon's least subtotal: it stays on the cart, applies nothing and says why.
      const res = await b.quantity([{ id: cart.lineItems[0].id, quantity: 1 }]);
      expect(res.status).toBe(200);
      est = await b.estimate({ shippingAddress: NY });
      expectConsistent(est);
      expect(est.appliedDiscounts.some((a: any) => a.coupon)).toBe(false);
      expect(est.calculationErrors.couponCalculationError.applicationError.code).toBe(
        'ERROR_COUPON_NOT_APPLICABLE',
      );
      // The dearest line at the most quantity: past 2^53 cents once taxed, still exact.
      const big = await buyer();
      await big.add({ customLineItems: [customLine('X', '999999999.99', 9999), customLine('Y', '0.07', 3)] });
      await big.patch({ merchantDiscounts: [{ percentage: 33.333333 }] });
      est = await big.estimate({ shippingAddress: NY, selectedShippingOption: { code: 'express' } });
      expectConsistent(est);
      expect(est.priceSummary.subtotal.amount).toBe('9998999999900.22');
    });
  });

  describe("the estimate's shape", () => {
    it('names the wire fields, with decimal strings and formatted amounts', async () => {
      const b = await buyer();
      await b.add({ customLineItems: [customLine('A', '12.34', 2)] });
      await b.patch({ merchantDiscounts: [{ percentage: 12.5 }] });
      const est = await b.estimate({
        shippingAddress: NY,
        selectedMemberships: { memberships: [{ id: 'm1', appId: 'app1', lineItemIds: ['A'] }] },
      });
      expect(Object.keys(est).sort()).toEqual(
        [
          'additionalFees',
          'appliedDiscounts',
          'calculatedLineItems',
          'calculationErrors',
          'cart',
          'currency',
          'membershipOptions',
          'payLater',
          'payNow',
          'priceSummary',
          'shippingInfo',
          'taxSummary',
          'violations',
          'weightUnit',
        ].sort(),
      );
      expect(est.appliedDiscounts).toEqual([
        {
          discountType: 'GLOBAL',
          lineItemIds: ['A'],
          merchantDiscount: { amount: expect.objectContaining({ amount: '3.09' }), percentage: 12.5 },
        },
      ]);
      expect(est.membershipOptions).toEqual({
        eligibleMemberships: [],
        invalidMemberships: [
          { membership: { id: 'm1', appId: 'app1', lineItemIds: ['A'] }, reason: expect.any(String) },
        ],
        validatedExistingMemberships: { memberships: [] },
      });
      const info = est.shippingInfo;
      expect(info.region).toEqual({ id: 'US', name: 'US' });
      expect(info.selectedCarrierServiceOption).toMatchObject({
        code: 'standard',
        requestedShippingOption: false,
        logistics: { deliveryTimeSlot: { from: expect.any(String), to: expect.any(String) } },
      });
      const pickup = info.carrierServiceOptions
        .flatMap((c: any) => c.shippingOptions)
        .find((o: any) => o.code === 'store-pickup');
      expect(pickup.logistics.pickupDetails.address).toMatchObject({
        country: 'US',
        geocode: expect.any(Object),
      });
      expect(
        Number.isNaN(Date.parse(info.selectedCarrierServiceOption.logistics.deliveryTimeSlot.from)),
      ).toBe(false);
      expect(est.taxSummary.calculationDetails).toEqual({
        rateType: 'MANUAL_RATE',
        manualRateReason: 'GLOBAL_SETTING_TO_MANUAL',
      });
      expect(est.violations).toEqual([]);
      expect(est.calculationErrors).toEqual({});
    });

    it('with calculateTax and calculateShipping false: no tax, no shipping, totals still add up', async () => {
      const b = await buyer();
      await b.add({ customLineItems: [customLine('A', '12.34', 2)] });
      await b.patch({ couponCode: 'FREESHIP' });
      const est = await b.estimate({ shippingAddress: NY, calculateTax: false, calculateShipping: false });
      expectConsistent(est);
      expect(est.priceSummary).toMatchObject({
        tax: { amount: '0.00' },
        shipping: { amount: '0.00' },
        discount: { amount: '0.00' },
        total: { amount: '24.68' },
      });
      expect(est.taxSummary.calculationDetails).toEqual({ rateType: 'NO_TAX_COLLECTED' });
      expect(est.shippingInfo.carrierServiceOptions).toEqual([]);
      expect(est.shippingInfo.selectedCarrierServiceOption).toBeUndefined();
      expect(est.calculatedLineItems[0].pricesBreakdown.taxDetails.rateBreakdown).toBeUndefined();
      // A shipping option asked for when shipping is not calculated is not an error.
      const again = await b.estimate({
        calculateShipping: false,
        selectedShippingOption: { code: 'express' },
      });
      expect(again.priceSummary.shipping.amount).toBe('0.00');
    });
  });

  describe('the address moves tax and shipping', () => {
    it('by country and subdivision, and refuses a malformed country with a field violation', async () => {
      const b = await buyer();
      await b.add({ customLineItems: [customLine('A', '100.00')] });
      const at = async (shippingAddress: object) =>
        (await b.estimate({ shippingAddress })).priceSummary as Record<string, { amount: string }>;
      const pick = (s: Record<string, { amount: string }>) => [s.shipping!.amount, s.tax!.amount];
      // NY taxes shipping, CA does not; abroad ships dearer; a region with no rule collects none.
      expect(pick(await at(NY))).toEqual(['5.00', '9.32']);
      expect(pick(await at(CA))).toEqual(['5.00', '7.25']);
      expect(pick(await at({ country: 'US', subdivision: 'CA' }))).toEqual(['5.00', '7.25']);
      expect(pick(await at({ country: 'US', subdivision: 'US-OR' }))).toEqual(['5.00', '0.00']);
      expect(pick(await at({ country: 'US' }))).toEqual(['5.00', '0.00']);
      expect(pick(await at({ country: 'de' }))).toEqual(['20.00', '22.80']);
      expect(pick(await at({ country: 'JP' }))).toEqual(['20.00', '0.00']);
      for (const country of ['USA', '1A', '']) {
        const res = await b.raw('POST', '/estimate-totals', { shippingAddress: { country } });
        expect(res.status, country).toBe(400);
        expect(res.body.details.validationError.fieldViolations).toEqual([
          expect.objectContaining({ field: 'shippingAddress.country' }),
        ]);
      }
    });
  });

  describe('quantities at the limits and lines whose item changed', () => {
    it('refuses 0, negative, fractional, huge and non-numeric quantities with field violations', async () => {
      const b = await buyer();
      const { cart } = await b.add({ lineItems: [catalogItem('dinner-plate', 2)] });
      const id = cart.lineItems[0].id;
      // (A null is an unset field, proto3's way, so it takes the default of 1.)
      for (const quantity of [0, -1, 1.5, 10_000, 1e300, '2']) {
        const res = await b.raw('POST', '/add-to-cart', {
          lineItems: [{ ...catalogItem('dinner-plate'), quantity }],
        });
        expect(res.status, String(quantity)).toBe(400);
        expect(res.body.details.validationError.fieldViolations[0].field, String(quantity)).toBe(
          'lineItems[0].quantity',
        );
      }
      for (const quantity of [-1, 1.5, 10_000, '2']) {
        const res = await b.quantity([{ id, quantity }]);
        expect(res.status, String(quantity)).toBe(400);
        expect(res.body.details.validationError.fieldViolations[0].field).toBe('lineItems[0].quantity');
      }
      // Adding up past a line's most is refused too, and nothing changed.
      const over = await b.raw('POST', '/add-to-cart', { lineItems: [catalogItem('dinner-plate', 9998)] });
      expect(over.status).toBe(400);
      expect((await b.get()).cart.lineItems[0].quantity).toBe(2);
      // Zero removes the line.
      const zero = await b.quantity([{ id, quantity: 0 }]);
      expect(zero.status).toBe(200);
      expect(zero.body.cart.lineItems).toEqual([]);
    });

    it('above the stock: partially available in the cart, a violation in the estimate, no checkout', async () => {
      const p = await createProduct({ stock: { trackInventory: true, quantity: 3 } });
      const b = await buyer();
      const { cart } = await b.add({ lineItems: [productLine(p.id, 5)] });
      expect(cart.lineItems[0].availability).toEqual({ status: 'PARTIALLY_AVAILABLE', quantityAvailable: 3 });
      const est = await b.estimate({ shippingAddress: NY });
      expectConsistent(est);
      expect(est.violations).toEqual([
        expect.objectContaining({
          severity: 'ERROR',
          target: { lineItem: expect.objectContaining({ id: cart.lineItems[0].id }) },
        }),
      ]);
      const co = await b.checkout();
      expect(co.status).toBe(400);
      expect(co.body.details.applicationError.code).toBe('LINE_ITEMS_NOT_AVAILABLE');
    });

    it('a product hidden or deleted after it was added: not found, out of the totals, no checkout', async () => {
      for (const gone of ['hidden', 'deleted'] as const) {
        const p = await createProduct();
        const b = await buyer();
        await b.add({ lineItems: [productLine(p.id, 2), catalogItem('dinner-plate')] });
        const res =
          gone === 'hidden'
            ? await owner('PATCH', `/stores/v1/products/${p.id}`, { product: { id: p.id, visible: false } })
            : await owner('DELETE', `/stores/v1/products/${p.id}`);
        expect(res.status).toBe(200);
        const { cart } = await b.get();
        expect(cart.lineItems[0].availability.status, gone).toBe('NOT_FOUND');
        expect(cart.lineItems[0].lineItemPrice.amount).toBe('0.00');
        expect(cart.subtotal.amount).toBe('27.00');
        const est = await b.estimate({ shippingAddress: NY });
        expectConsistent(est);
        expect(est.priceSummary.subtotal.amount).toBe('27.00');
        expect(est.violations).toHaveLength(1);
        expect(est.violations[0].target.lineItem.suggestedFix).toBe('REMOVE_LINE_ITEM');
        const co = await b.checkout();
        expect(co.status).toBe(400);
        expect(co.body.details.applicationError.code).toBe('LINE_ITEMS_NOT_AVAILABLE');
      }
    });

    it('a variant whose price changed: the cart, the estimate and a new checkout take the new price', async () => {
      const p = await createProduct({
        productOptions: [{ name: 'Size', choices: [{ description: 'S' }, { description: 'M' }] }],
      });
      const m = p.variants.find((v: any) => v.choices.Size === 'M').id;
      const b = await buyer();
      await b.add({ lineItems: [productLine(p.id, 3, m)] });
      expect(
        (
          await owner('PATCH', `/stores/v1/products/${p.id}/variants`, {
            variants: [{ variantIds: [m], price: 12.34 }],
          })
        ).status,
      ).toBe(200);
      const { cart } = await b.get();
      expect(cart.lineItems[0].price.amount).toBe('12.34');
      expect(cart.subtotal.amount).toBe('37.02');
      const est = await b.estimate({ shippingAddress: NY });
      expectConsistent(est);
      expect(est.priceSummary.subtotal.amount).toBe('37.02');
    });
  });
  describe('create-checkout', () => {
    it('from no cart or an empty cart: the platform errors, no checkout', async () => {
      const b = await buyer();
      const none = await b.checkout();
      expect(none.status).toBe(404);
      expect(none.body.details.applicationError.code).toBe('OWNED_CART_NOT_FOUND');
      const { cart } = await b.add({ lineItems: [catalogItem('dinner-plate')] });
      await b.raw('POST', '/remove-line-items', { lineItemIds: [cart.lineItems[0].id] });
      const empty = await b.checkout();
      expect(empty.status).toBe(400);
      expect(empty.body.details.applicationError.code).toBe('CART_IS_EMPTY');
    });

    it('twice in a row, and after the cart changed: each checkout keeps the cart of its moment', async () => {
      const b = await buyer();
      await b.add({ customLineItems: [customLine('A', '19.99', 3)] });
      await b.patch({ couponCode: 'SAVE10', merchantDiscounts: [{ amount: '0.99' }] });
      const est = await b.estimate({ shippingAddress: NY });
      const one = await b.checkout({ shippingAddress: NY });
      const two = await b.checkout({ shippingAddress: NY });
      expect(one.status).toBe(200);
      expect(two.status).toBe(200);
      expect(one.body.checkoutId).not.toBe(two.body.checkoutId);
      expect((await b.get()).cart.checkoutId).toBe(two.body.checkoutId);
      for (const co of [one, two])
        expect((await checkoutDoc(co.body.checkoutId)).priceSummary).toEqual(est.priceSummary);
      // The cart changes: a new checkout takes it, the first one stays as it was.
      await b.add({ customLineItems: [customLine('B', '0.33', 7)] });
      await b.patch({ couponCode: '' });
      const three = await b.checkout({ shippingAddress: NY });
      const later = await b.estimate({ shippingAddress: NY });
      expect((await checkoutDoc(three.body.checkoutId)).priceSummary).toEqual(later.priceSummary);
      expect(later.priceSummary.total.amount).not.toBe(est.priceSummary.total.amount);
      const first = await checkoutDoc(one.body.checkoutId);
      expect(first.lineItems.map((l: any) => [l.id, l.quantity])).toEqual([['A', 3]]);
      expect(first.couponCode).toBe('SAVE10');
      const session = await call(
        'POST',
        '/_api/redirects-api/v1/redirect-session',
        { ecomCheckout: { checkoutId: one.body.checkoutId } },
        { authorization: b.token },
      );
      const page = await (await fetch(session.body.redirectSession.fullUrl)).text();
      expect(shownTotal(page)).toBe(est.priceSummary.total.formattedAmount);
    });
  });

  describe('an order placed on the hosted page is charged the total the page showed', () => {
    /** A checkout of `b`'s cart (`body` for create-checkout) and its hosted page. */
    const hosted = async (b: Awaited<ReturnType<typeof buyer>>, body: object) => {
      const co = await b.checkout(body);
      expect(co.status, JSON.stringify(co.body)).toBe(200);
      const session = await call(
        'POST',
        '/_api/redirects-api/v1/redirect-session',
        { ecomCheckout: { checkoutId: co.body.checkoutId } },
        { authorization: b.token },
      );
      const url = session.body.redirectSession.fullUrl as string;
      return { checkoutId: co.body.checkoutId as string, url, html: await (await fetch(url)).text() };
    };
    const post = (url: string, fields: Record<string, string>) =>
      fetch(url, { method: 'POST', redirect: 'manual', body: new URLSearchParams(fields) });
    const order = async (checkoutId: string) =>
      (await emu.emu.db.query<{ doc: any }>('SELECT doc FROM orders WHERE checkout_id = $1', [checkoutId]))[0]
        ?.doc;

    it('at the address the checkout was priced for: the order is the estimate, to the cent', async () => {
      const b = await buyer();
      await b.add({
        lineItems: [catalogItem('dinner-plate', 3)],
        customLineItems: [customLine('A', '19.99', 3), customLine('B', '0.33', 7)],
      });
      await b.patch({ couponCode: 'SAVE10', merchantDiscounts: [{ percentage: 12.5, lineItemIds: ['A'] }] });
      const est = await b.estimate({ shippingAddress: NY });
      const { checkoutId, url, html } = await hosted(b, { shippingAddress: NY });
      expect(shownTotal(html)).toBe(est.priceSummary.total.formattedAmount);
      const placed = await post(url, { ...formFields(html), ...typed(NY) });
      expect(placed.status).toBe(200);
      const o = await order(checkoutId);
      expect(o.priceSummary).toEqual({ ...est.priceSummary, totalPrice: est.priceSummary.total });
      expect(o.taxSummary).toEqual(est.taxSummary);
      expect(o.appliedDiscounts).toEqual(est.appliedDiscounts);
    });

    it('at another address typed on the page: shown the total there first, then charged it', async () => {
      // Priced at the store's address (New York tax) with none given; the buyer types others.
      for (const address of [CA, { country: 'US' }, { country: 'FR', city: 'Paris' }]) {
        const b = await buyer();
        await b.add({ customLineItems: [customLine('A', '100.00')] });
        const { checkoutId, url, html } = await hosted(b, {});
        const there = await b.estimate({ shippingAddress: { ...typed(address), ...address } });
        const first = await post(url, { ...formFields(html), ...typed(address) });
        const label = JSON.stringify(address);
        // Never an order at a total the page did not show.
        expect(await order(checkoutId), label).toBeUndefined();
        expect(first.status, label).toBe(409);
        const again = await first.text();
        expect(again).toContain('The total is now');
        expect(shownTotal(again), label).toBe(there.priceSummary.total.formattedAmount);
        const placed = await post(url, formFields(again));
        expect(placed.status, label).toBe(200);
        const o = await order(checkoutId);
        expect(o.priceSummary.total.formattedAmount, label).toBe(shownTotal(again));
      }
    });
    it('a page shown again for a form error is priced at the typed address, and places at that total', async () => {
      const b = await buyer();
      await b.add({ customLineItems: [customLine('A', '100.00')] });
      const { checkoutId, url, html } = await hosted(b, { shippingAddress: NY });
      const there = await b.estimate({ shippingAddress: CA });
      const missing = await post(url, { ...formFields(html), ...typed(CA), lastName: '' });
      expect(missing.status).toBe(400);
      const again = await missing.text();
      expect(again).toContain('Enter your first and last name.');
      expect(shownTotal(again)).toBe(there.priceSummary.total.formattedAmount);
      const placed = await post(url, { ...formFields(again), lastName: 'Lovelace' });
      expect(placed.status).toBe(200);
      expect((await order(checkoutId)).priceSummary.total.formattedAmount).toBe(shownTotal(again));
    });
  });
});
