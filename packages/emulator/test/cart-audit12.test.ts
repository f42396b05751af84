/**
 * The twelfth cart audit, over raw HTTP on each storage: a cart call that changes nothing (the
 * coupon removed from a cart with none, a quantity set to what it is, a PATCH of what the cart
 * already holds) saved the cart again, bumped its revision and `updatedDate`, and recorded a
 * `cart_updated` event (and its webhook) for a change that never happened; and an address's country
 * was any two letters, so `UK` (for GB) was estimated, checked out and ordered as a country of its
 * own, without the United Kingdom's VAT. Guards beside them: an amount discount larger than the
 * subtotal takes every line and the summary to zero, never below, and tax taken line by line adds
 * up in the summary, the tax summary and the placed order alike.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHECKOUT_FORM, startTestEmulator, type TestEmulator, testBackends } from '../src/testing.ts';
import { catalogItem, checkoutSession, customLine, formFields, jsonCalls, visitorToken } from './http.ts';

const CART = '/ecom/v1/carts/current';
const cents = (amount: string) => BigInt(amount.replace('.', ''));
const NY = {
  country: 'US',
  subdivision: 'US-NY',
  city: 'Albany',
  postalCode: '12207',
  addressLine: '1 Main St',
};

describe.each(testBackends())('cart audit 12 (%s)', (backend) => {
  let emu: TestEmulator;
  beforeAll(async () => {
    emu = await startTestEmulator(backend);
  });
  afterAll(() => emu?.stop());
  const { call } = jsonCalls(() => emu);

  /** The cart's events (any `wix.ecom.v1.cart_*`) recorded after `since`. */
  const cartEvents = async (cartId: string, since: number) =>
    emu.emu.db.query<{ type: string }>(
      'SELECT type FROM events WHERE seq > $1 AND entity_id = $2 ORDER BY seq',
      [since, cartId],
    );
  const lastSeq = async () =>
    Number((await emu.emu.db.query<{ s: number }>('SELECT coalesce(max(seq), 0) AS s FROM events'))[0]!.s);

  describe('a call that changes nothing writes nothing and records nothing', () => {
    it('remove-coupon without a coupon, a quantity set to itself, a PATCH of what is there', async () => {
      const h = { authorization: `${await visitorToken(emu)},${emu.demo.apiKey}` };
      const added = await call(
        'POST',
        `${CART}/add-to-cart`,
        { lineItems: [catalogItem('dinner-plate', 2)] },
        h,
      );
      expect(added.status).toBe(200);
      const patched = await call(
        'PATCH',
        CART,
        { cartInfo: { buyerNote: 'Leave at the door' }, merchantDiscounts: [{ percentage: 5 }] },
        h,
      );
      expect(patched.status).toBe(200);
      const cart = patched.body.cart;
      const line = cart.lineItems[0];
      const since = await lastSeq();
      const noOps: Array<[string, string, object]> = [
        ['POST', `${CART}/remove-coupon`, {}],
        ['POST', `${CART}/update-line-items-quantity`, { lineItems: [{ id: line.id, quantity: 2 }] }],
        ['PATCH', CART, { cartInfo: { buyerNote: 'Leave at the door' } }],
        ['PATCH', CART, { couponCode: '' }],
        ['PATCH', CART, { merchantDiscounts: [{ percentage: 5 }] }],
        ['PATCH', CART, { cartFieldmask: ['contactInfo'] }],
        ['PATCH', CART, {}],
      ];
      for (const [method, path, body] of noOps) {
        const res = await call(method, path, body, h);
        expect(res.status, `${method} ${path} ${JSON.stringify(body)}`).toBe(200);
        // The cart as it was: the same revision and updatedDate.
        expect(res.body.cart, `${method} ${path} ${JSON.stringify(body)}`).toEqual(cart);
      }
      expect(await cartEvents(cart.id, since)).toEqual([]);
      expect((await call('GET', CART, undefined, h)).body.cart).toEqual(cart);

      // A coupon applied twice is one change; removed twice, one change.
      expect((await call('PATCH', CART, { couponCode: 'SAVE10' }, h)).status).toBe(200);
      expect((await call('PATCH', CART, { couponCode: 'save10' }, h)).status).toBe(200);
      expect((await call('POST', `${CART}/remove-coupon`, {}, h)).status).toBe(200);
      const last = await call('POST', `${CART}/remove-coupon`, {}, h);
      expect(last.body.cart.revision).toBe(String(Number(cart.revision) + 2));
      expect((await cartEvents(cart.id, since)).map((e) => e.type)).toEqual([
        'wix.ecom.v1.cart_updated',
        'wix.ecom.v1.cart_updated',
      ]);
    });
  });

  describe('a country is an ISO 3166 code, not any two letters', () => {
    it('estimate, checkout and the cart refuse UK, ZZ and QQ with a field violation; gb is Great Britain', async () => {
      const h = { authorization: await visitorToken(emu) };
      const added = await call(
        'POST',
        `${CART}/add-to-cart`,
        { lineItems: [catalogItem('dinner-plate')] },
        h,
      );
      expect(added.status).toBe(200);
      for (const country of ['UK', 'ZZ', 'qq']) {
        const where = (path: string) => `${path} ${country}`;
        for (const [path, body, field] of [
          [`${CART}/estimate-totals`, { shippingAddress: { country } }, 'shippingAddress.country'],
          [`${CART}/estimate-totals`, { billingAddress: { country } }, 'billingAddress.country'],
          [`${CART}/create-checkout`, { shippingAddress: { country } }, 'shippingAddress.country'],
        ] as const) {
          const res = await call('POST', path, body, h);
          expect(res.status, where(path)).toBe(400);
          expect(res.body.details.validationError.fieldViolations[0].field, where(path)).toBe(field);
        }
        const patched = await call('PATCH', CART, { cartInfo: { contactInfo: { address: { country } } } }, h);
        expect(patched.status, where('PATCH')).toBe(400);
        expect(patched.body.details.validationError.fieldViolations[0].field).toBe(
          'cartInfo.contactInfo.address.country',
        );
      }
      const cart = (await call('GET', CART, undefined, h)).body.cart;
      expect(cart.contactInfo).toBeUndefined();
      expect(cart.checkoutId).toBeUndefined();
      // A real code in any case is taken, and taxed as its country.
      const gb = await call('POST', `${CART}/estimate-totals`, { shippingAddress: { country: 'gb' } }, h);
      expect(gb.status).toBe(200);
      expect(gb.body.taxSummary.calculationDetails.rateType).toBe('MANUAL_RATE');
    });

    it('the hosted checkout form: UK gets the page again with what is wrong, and no order', async () => {
      const { checkoutId, session } = await checkoutSession(emu);
      const html = await (await fetch(session.fullUrl)).text();
      const posted = await fetch(session.fullUrl, {
        method: 'POST',
        redirect: 'manual',
        body: new URLSearchParams({ ...formFields(html), ...CHECKOUT_FORM, country: 'UK', subdivision: '' }),
      });
      expect(posted.status).toBe(400);
      expect(await posted.text()).toContain('Enter the country as a two-letter code, such as US.');
      expect(await emu.emu.db.query('SELECT 1 FROM orders WHERE checkout_id = $1', [checkoutId])).toEqual([]);
    });
  });

  describe('guards', () => {
    it('an amount discount past the subtotal: every line and the summary at zero, never below', async () => {
      const h = { authorization: `${await visitorToken(emu)},${emu.demo.apiKey}` };
      await call(
        'POST',
        `${CART}/add-to-cart`,
        { lineItems: [catalogItem('dinner-plate', 3)], customLineItems: [customLine('c1', '0.07', 3)] },
        h,
      );
      const res = await call(
        'PATCH',
        CART,
        { couponCode: 'TAKE5', merchantDiscounts: [{ amount: '100000.00' }] },
        h,
      );
      expect(res.status).toBe(200);
      expect(res.body.cart.subtotalAfterDiscounts.amount).toBe('0.00');
      const est = await call('POST', `${CART}/estimate-totals`, { shippingAddress: NY }, h);
      expect(est.status).toBe(200);
      const s = est.body.priceSummary;
      expect(s.discount.amount).toBe(s.subtotal.amount);
      for (const l of est.body.calculatedLineItems) {
        const b = l.pricesBreakdown;
        expect(b.totalPriceBeforeTax.amount).toBe('0.00');
        expect(b.totalDiscount.amount).toBe(b.lineItemPrice.amount);
        expect(b.taxDetails.totalTax.amount).toBe('0.00');
      }
      const lineDiscounts = est.body.calculatedLineItems.reduce(
        (t: bigint, l: any) => t + cents(l.pricesBreakdown.totalDiscount.amount),
        0n,
      );
      expect(lineDiscounts).toBe(cents(s.discount.amount));
      const applied = est.body.appliedDiscounts.reduce(
        (t: bigint, d: any) => t + cents((d.coupon ?? d.merchantDiscount).amount.amount),
        0n,
      );
      expect(applied).toBe(cents(s.discount.amount));
      // Only shipping (and its tax) is left to pay.
      const ship = est.body.shippingInfo.selectedCarrierServiceOption.cost;
      expect(cents(s.total.amount)).toBe(cents(ship.totalPriceAfterTax.amount));
      expect(cents(s.total.amount)).toBeGreaterThanOrEqual(0n);
    });

    it('tax taken line by line adds up in the summary, the tax summary and the order', async () => {
      const h = { authorization: `${await visitorToken(emu)},${emu.demo.apiKey}` };
      // Three lines of 0.05 at New York's 8.875 %: 0 cents each, where the total's tax would be 1.
      await call(
        'POST',
        `${CART}/add-to-cart`,
        { customLineItems: ['a', 'b', 'c'].map((id) => customLine(id, '0.05')) },
        h,
      );
      const est = await call(
        'POST',
        `${CART}/estimate-totals`,
        { shippingAddress: NY, selectedShippingOption: { code: 'store-pickup' } },
        h,
      );
      expect(est.status).toBe(200);
      const lineTax = est.body.calculatedLineItems.reduce(
        (t: bigint, l: any) => t + cents(l.pricesBreakdown.taxDetails.totalTax.amount),
        0n,
      );
      const shipTax = cents(
        est.body.shippingInfo.selectedCarrierServiceOption.cost.taxDetails.totalTax.amount,
      );
      expect(cents(est.body.priceSummary.tax.amount)).toBe(lineTax + shipTax);
      expect(est.body.taxSummary.totalTax.amount).toBe(est.body.priceSummary.tax.amount);
      const co = await call(
        'POST',
        `${CART}/create-checkout`,
        { shippingAddress: NY, selectedShippingOption: { code: 'store-pickup' } },
        h,
      );
      expect(co.status).toBe(200);
      const rs = await call(
        'POST',
        '/_api/redirects-api/v1/redirect-session',
        {
          ecomCheckout: { checkoutId: co.body.checkoutId },
        },
        h,
      );
      const url = rs.body.redirectSession.fullUrl as string;
      const page = await (await fetch(url)).text();
      const placed = await fetch(url, {
        method: 'POST',
        redirect: 'manual',
        body: new URLSearchParams({ ...formFields(page), ...CHECKOUT_FORM }),
      });
      expect(placed.status).toBe(200);
      const [order] = await emu.emu.db.query<{ doc: any }>('SELECT doc FROM orders WHERE checkout_id = $1', [
        co.body.checkoutId,
      ]);
      expect(order!.doc.priceSummary.tax).toEqual(est.body.priceSummary.tax);
      expect(order!.doc.priceSummary.total).toEqual(est.body.priceSummary.total);
    });
  });
});
