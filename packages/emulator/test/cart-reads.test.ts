/**
 * The cart's read and pricing paths over raw HTTP, on both storages: get-cart, estimate-totals and
 * the checkout that create-checkout makes agree on the money of one cart, and their amounts add up.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STORES_APP_ID } from '../src/domains/catalog/lookup.ts';
import { demoProductId } from '../src/domains/catalog/seed.ts';
import { startTestEmulator, type TestEmulator, testBackends } from '../src/testing.ts';
import { jsonCalls, visitorToken } from './http.ts';

const CART = '/ecom/v1/carts/current';

type Money = { amount: string; formattedAmount: string };

describe.each(testBackends())('cart reads (%s)', (backend) => {
  let emu: TestEmulator;
  beforeAll(async () => {
    emu = await startTestEmulator(backend);
  });
  afterAll(() => emu?.stop());

  const { call, owner } = jsonCalls(() => emu);
  /** A new visitor's calls. */
  const newVisitor = async () => {
    const token = await visitorToken(emu);
    return (method: string, path: string, body?: object) =>
      call(method, path, body, { authorization: token });
  };
  const line = (slug: string, quantity = 1) => ({
    catalogReference: { appId: STORES_APP_ID, catalogItemId: demoProductId(slug) },
    quantity,
  });
  const amounts = (s: Record<string, Money>) =>
    Object.fromEntries(Object.entries(s).map(([k, v]) => [k, v.amount]));

  /** The totals a checkout's hosted page shows, as amounts (`$1,234.56` → `1234.56`). */
  const checkoutPageTotal = async (as: Awaited<ReturnType<typeof newVisitor>>, checkoutId: string) => {
    const rs = await as('POST', '/_api/redirects-api/v1/redirect-session', { ecomCheckout: { checkoutId } });
    expect(rs.status).toBe(200);
    const page = await fetch(rs.body.redirectSession.fullUrl);
    expect(page.status).toBe(200);
    const html = await page.text();
    const total = /data-testid="total"><strong>([^<]*)</.exec(html)?.[1];
    return total?.replace(/[$,]/g, '');
  };
  /** The price summary the checkout was created with (as its `checkout_created` event carries it). */
  const checkoutSummary = async (checkoutId: string) => {
    const rows = await emu.emu.db.query<{ entity: any }>(
      "SELECT entity FROM events WHERE type = 'wix.ecom.v1.checkout_created' AND entity_id = $1",
      [checkoutId],
    );
    const entity = typeof rows[0]!.entity === 'string' ? JSON.parse(rows[0]!.entity) : rows[0]!.entity;
    return amounts(entity.priceSummary);
  };

  it.each([
    ['a cart address without a country', { address: { city: 'Springfield' } }, {}],
    [
      'a cart address without a country and a billing address',
      { address: { city: 'Springfield' } },
      { billingAddress: { country: 'GB', city: 'London' } },
    ],
    [
      'a cart address and a billing address in another tax region',
      { address: { country: 'US', subdivision: 'US-CA', city: 'Oakland' } },
      { billingAddress: { country: 'GB', city: 'London' } },
    ],
  ])(
    'the checkout page shows the totals the checkout was created with: %s',
    async (_, contactInfo, input) => {
      const as = await newVisitor();
      expect(
        (await as('POST', `${CART}/add-to-cart`, { lineItems: [line('linen-tea-towels', 2)] })).status,
      ).toBe(200);
      expect((await as('PATCH', CART, { cartInfo: { contactInfo } })).status).toBe(200);
      const est = await as('POST', `${CART}/estimate-totals`, input);
      expect(est.status).toBe(200);
      const created = await as('POST', `${CART}/create-checkout`, input);
      expect(created.status).toBe(200);
      const { checkoutId } = created.body;
      // The checkout is priced as the estimate for the same input …
      expect(await checkoutSummary(checkoutId)).toEqual(amounts(est.body.priceSummary));
      // … and its page shows that total.
      expect(await checkoutPageTotal(as, checkoutId)).toBe(est.body.priceSummary.total.amount);
    },
  );

  it('adds up: total is subtotal − discount + shipping + tax, in every part, each amount formatted as itself', async () => {
    const token = await visitorToken(emu);
    const as = (method: string, path: string, body?: object) =>
      call(method, path, body, { authorization: `${token},${emu.demo.apiKey}` });
    const custom = {
      id: 'C',
      quantity: 7,
      price: '0.05',
      productName: { original: 'Penny' },
      itemType: { preset: 'PHYSICAL' },
    };
    const added = await as('POST', `${CART}/add-to-cart`, {
      lineItems: [line('linen-tea-towels', 3), line('dinner-plate', 2)],
      customLineItems: [custom],
    });
    expect(added.status).toBe(200);
    const patched = await as('PATCH', CART, {
      couponCode: 'FREESHIP',
      merchantDiscounts: [{ percentage: 33.333333 }, { amount: '0.07', lineItemIds: ['C'] }],
    });
    expect(patched.status).toBe(200);
    const cents = (m: Money) => Math.round(Number(m.amount) * 100);
    const format = (m: Money) =>
      expect(m.formattedAmount).toBe(
        `$${Number(m.amount).toLocaleString('en-US', { minimumFractionDigits: 2 })}`,
      );
    for (const input of [
      {
        shippingAddress: { country: 'US', subdivision: 'US-NY' },
        selectedShippingOption: { code: 'express' },
      },
      { shippingAddress: { country: 'US', subdivision: 'US-CA' } },
      { billingAddress: { country: 'GB' } },
      { calculateShipping: false },
    ]) {
      const est = await as('POST', `${CART}/estimate-totals`, input);
      expect(est.status).toBe(200);
      const s = est.body.priceSummary;
      for (const m of Object.values(s) as Money[]) format(m);
      expect(cents(s.total)).toBe(cents(s.subtotal) - cents(s.discount) + cents(s.shipping) + cents(s.tax));
      const lines = est.body.calculatedLineItems.map((c: any) => c.pricesBreakdown);
      const ship = est.body.shippingInfo.selectedCarrierServiceOption?.cost;
      const sum = (xs: Money[]) => xs.reduce((a, m) => a + cents(m), 0);
      expect(sum(lines.map((l: any) => l.lineItemPrice))).toBe(cents(s.subtotal));
      expect(
        sum(lines.map((l: any) => l.taxDetails.totalTax)) + (ship ? cents(ship.taxDetails.totalTax) : 0),
      ).toBe(cents(s.tax));
      expect(
        sum(lines.map((l: any) => l.totalPriceAfterTax)) + (ship ? cents(ship.totalPriceAfterTax) : 0),
      ).toBe(cents(s.total));
      expect(sum(est.body.appliedDiscounts.map((d: any) => (d.coupon ?? d.merchantDiscount).amount))).toBe(
        cents(s.discount),
      );
      expect(est.body.taxSummary.totalTax.amount).toBe(s.tax.amount);
      // The cart inside the estimate is the cart as get-cart reads it.
      const got = await as('GET', CART);
      expect(got.body.cart.subtotal).toEqual(s.subtotal);
      expect(got.body.cart).toEqual(est.body.cart);
    }
  });

  it('is exact to the cent past 2^53 cents: a catalog price raised under a full cart, with coupon, tax, checkout and order', async () => {
    /** The wire price of a decimal amount, formatted by hand (no floats, no Intl). */
    const money = (amount: string) => {
      const [int, frac] = amount.split('.') as [string, string];
      const formattedAmount = `$${int.replace(/\B(?=(\d{3})+$)/g, ',')}.${frac}`;
      return { amount, convertedAmount: amount, formattedAmount, formattedConvertedAmount: formattedAmount };
    };
    const cents = (m: Money) => BigInt(m.amount.replace('.', ''));
    const sum = (xs: Money[]) => xs.reduce((a, m) => a + cents(m), 0n);
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) {
      const made = await owner('POST', '/stores/v1/products', {
        product: { name: `Dear ${backend} ${i}`, productType: 'physical', priceData: { price: 1 } },
      });
      expect(made.status).toBe(200);
      ids.push(made.body.product.id);
    }
    const as = await newVisitor();
    const lineItems = ids.map((catalogItemId) => ({
      catalogReference: { appId: STORES_APP_ID, catalogItemId },
      quantity: 9999,
    }));
    expect((await as('POST', `${CART}/add-to-cart`, { lineItems })).status).toBe(200);
    // The merchant raises every price afterwards: the subtotal's bound is on adds, not on the catalog.
    const raised = await owner('POST', '/stores/v1/bulk/products/update', {
      set: { price: 999_999_999.99 },
      ids,
    });
    expect(raised.status).toBe(200);
    // 20 × 9999 × 999 999 999.99 = 199 979 999 998 000.20: about 2.2 × 2^53 cents.
    const got = await as('GET', CART);
    expect(got.status).toBe(200);
    expect(got.body.cart.lineItems[0].lineItemPrice).toEqual(money('9998999999900.01'));
    expect(got.body.cart.subtotal).toEqual(money('199979999998000.20'));
    // A percentage coupon on it: 10 % is 19 997 999 999 800.02.
    const saved = await as('PATCH', CART, { couponCode: 'SAVE10' });
    expect(saved.status).toBe(200);
    expect(saved.body.cart.appliedDiscounts[0].coupon.amount).toEqual(money('19997999999800.02'));
    expect(saved.body.cart.subtotalAfterDiscounts).toEqual(money('179981999998200.18'));

    // New York: 8.875 % on the lines after the discount and on shipping.
    const input = {
      shippingAddress: {
        country: 'US',
        subdivision: 'US-NY',
        city: 'Albany',
        postalCode: '12207',
        addressLine: '1 Main St',
      },
    };
    const est = await as('POST', `${CART}/estimate-totals`, input);
    expect(est.status).toBe(200);
    const s = est.body.priceSummary;
    expect(s).toEqual({
      subtotal: money('199979999998000.20'),
      shipping: money('5.00'),
      tax: money('15973402499840.64'),
      discount: money('19997999999800.02'),
      total: money('195955402498045.82'),
      additionalFees: money('0.00'),
    });
    expect(est.body.taxSummary.taxableAmount).toEqual(money('179981999998205.18'));
    expect(est.body.taxSummary.totalTax).toEqual(s.tax);
    const lines = est.body.calculatedLineItems.map((c: any) => c.pricesBreakdown);
    // The discount's two spare cents go to the first two lines.
    expect(lines[0].totalPriceBeforeTax).toEqual(money('8999099999910.00'));
    expect(lines[19].totalPriceBeforeTax).toEqual(money('8999099999910.01'));
    expect(lines[19].taxDetails.totalTax).toEqual(money('798670124992.01'));
    const ship = est.body.shippingInfo.selectedCarrierServiceOption.cost;
    expect(sum(lines.map((l: any) => l.lineItemPrice))).toBe(cents(s.subtotal));
    expect(sum(lines.map((l: any) => l.totalDiscount))).toBe(cents(s.discount));
    expect(sum([...lines.map((l: any) => l.taxDetails.totalTax), ship.taxDetails.totalTax])).toBe(
      cents(s.tax),
    );
    expect(sum([...lines.map((l: any) => l.totalPriceAfterTax), ship.totalPriceAfterTax])).toBe(
      cents(s.total),
    );

    // The checkout stores those totals, its event carries them and its hosted page shows them.
    const created = await as('POST', `${CART}/create-checkout`, input);
    expect(created.status).toBe(200);
    const { checkoutId } = created.body;
    const [stored] = await emu.emu.db.query<{ doc: any }>('SELECT doc FROM checkouts WHERE id = $1', [
      checkoutId,
    ]);
    const doc = typeof stored!.doc === 'string' ? JSON.parse(stored!.doc) : stored!.doc;
    expect(doc.priceSummary).toEqual(s);
    expect(await checkoutSummary(checkoutId)).toEqual(amounts(s));
    const rs = await as('POST', '/_api/redirects-api/v1/redirect-session', { ecomCheckout: { checkoutId } });
    expect(rs.status).toBe(200);
    const html = await (await fetch(rs.body.redirectSession.fullUrl)).text();
    expect(html).toContain(`<dt>Subtotal</dt><dd>${s.subtotal.formattedAmount}</dd>`);
    expect(html).toContain(`<dt>Tax</dt><dd>${s.tax.formattedAmount}</dd>`);
    expect(html).toContain('<strong>$195,955,402,498,045.82</strong>');
    // The order placed on that page is priced the same, to the cent.
    const placed = await fetch(rs.body.redirectSession.fullUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: emu.url },
      body: new URLSearchParams({
        email: 'ada@example.com',
        firstName: 'Ada',
        lastName: 'Lovelace',
        ...input.shippingAddress,
      }).toString(),
    });
    expect(placed.status).toBe(200);
    const [order] = await emu.emu.db.query<{ doc: any }>('SELECT doc FROM orders WHERE checkout_id = $1', [
      checkoutId,
    ]);
    const orderDoc = typeof order!.doc === 'string' ? JSON.parse(order!.doc) : order!.doc;
    expect(orderDoc.priceSummary).toEqual({ ...s, totalPrice: s.total });
  });
});
