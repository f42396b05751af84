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

  const { call } = jsonCalls(() => emu);
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
});
