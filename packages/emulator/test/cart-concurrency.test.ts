/**
 * Cart writes under concurrency and at session boundaries, over raw HTTP with many calls in flight
 * on one cart (storefront tabs kept in step): every answer is 200 or a platform envelope, never a
 * 5xx; an add never answers "no cart" because another call deleted or merged the cart meanwhile;
 * the cart's limits hold exactly; a visitor cart is merged into the member's once; checkouts are
 * taken from whole changes; the last units of an item are sold once; and after each storm the
 * stored cart is consistent (one line per item, subtotal = sum of lines).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoProductId } from '../src/domains/catalog/seed.ts';
import { startTestEmulator, type TestEmulator, testBackends } from '../src/testing.ts';
import { catalogItem, jsonCalls, memberAccess, memberRegistrar, visitorToken } from './http.ts';

const CART = '/ecom/v1/carts/current';
const ALBANY = {
  country: 'US',
  subdivision: 'US-NY',
  city: 'Albany',
  postalCode: '12207',
  addressLine: '1 Main',
};

type Answer = { status: number; body: any };

/** A 200, or a 4xx in the platform's envelope (never a 5xx): the answer's code, for counting. */
function codeOf(a: Answer): string {
  if (a.status === 200) return '200';
  expect(a.status, JSON.stringify(a.body)).toBeGreaterThanOrEqual(400);
  expect(a.status, JSON.stringify(a.body)).toBeLessThan(500);
  expect(typeof a.body.message).toBe('string');
  const d = a.body.details;
  expect(d.applicationError ?? d.validationError).toBeDefined();
  return `${a.status} ${d.applicationError?.code ?? d.validationError.fieldViolations[0].violatedRule}`;
}
const codes = (answers: Answer[]) => answers.map(codeOf);
const counted = (answers: Answer[]) => {
  const out: Record<string, number> = {};
  for (const c of codes(answers)) out[c] = (out[c] ?? 0) + 1;
  return out;
};
const cents = (amount: string) => BigInt(amount.replace('.', ''));
const quantityOf = (cart: any) => cart.lineItems.reduce((n: number, l: any) => n + l.quantity, 0);

/** A cart as the platform keeps it: ids and items unique, subtotal the sum of the lines. */
function expectConsistent(cart: any) {
  const ids = cart.lineItems.map((l: any) => l.id);
  expect(new Set(ids).size).toBe(ids.length);
  const items = cart.lineItems
    .filter((l: any) => !l.customLineItem)
    .map((l: any) => `${l.catalogReference.catalogItemId}|${l.catalogReference.options?.variantId ?? ''}`);
  expect(new Set(items).size).toBe(items.length);
  const sum = cart.lineItems.reduce((t: bigint, l: any) => t + cents(l.lineItemPrice.amount), 0n);
  expect(cents(cart.subtotal.amount)).toBe(sum);
  for (const l of cart.lineItems) expect(l.quantity).toBeGreaterThan(0);
}

/** The fields a browser posts from the hosted checkout page, filled in. */
function placeOrderFields(html: string): Record<string, string> {
  const form = /<form method="post"[^>]*>([\s\S]*?)<\/form>/.exec(html)?.[1] ?? '';
  const out: Record<string, string> = {};
  for (const m of form.matchAll(/<input ([^>]*)>/g)) {
    const name = /name="([^"]*)"/.exec(m[1]!)?.[1];
    if (name) out[name] = /value="([^"]*)"/.exec(m[1]!)?.[1] ?? '';
  }
  return { ...out, firstName: 'Ada', lastName: 'Lovelace', email: 'ada@example.test', ...ALBANY };
}

describe.each(testBackends())('cart concurrency (%s)', (backend) => {
  let emu: TestEmulator;
  beforeAll(async () => {
    emu = await startTestEmulator(backend);
  });
  afterAll(() => emu?.stop());

  const { call } = jsonCalls(() => emu);
  const item = catalogItem;
  const custom = (id: string, price = '1.00', quantity = 1) => ({
    id,
    quantity,
    price,
    productName: { original: id },
  });
  /** The cart calls of one caller (an access token, or `<token>,<apiKey>`). */
  const as = (authorization: string) => {
    const h = { authorization };
    return {
      add: (lineItems: object[]) => call('POST', `${CART}/add-to-cart`, { lineItems }, h),
      addCustom: (customLineItems: object[]) => call('POST', `${CART}/add-to-cart`, { customLineItems }, h),
      get: () => call('GET', CART, undefined, h),
      del: () => call('DELETE', CART, undefined, h),
      patch: (body: object) => call('PATCH', CART, body, h),
      quantity: (id: string, quantity: number) =>
        call('POST', `${CART}/update-line-items-quantity`, { lineItems: [{ id, quantity }] }, h),
      remove: (id: string) => call('POST', `${CART}/remove-line-items`, { lineItemIds: [id] }, h),
      removeCoupon: () => call('POST', `${CART}/remove-coupon`, {}, h),
      estimate: () => call('POST', `${CART}/estimate-totals`, { shippingAddress: ALBANY }, h),
      checkout: () =>
        call('POST', `${CART}/create-checkout`, { shippingAddress: ALBANY, email: 'ada@example.test' }, h),
    };
  };
  const events = async (since: number) =>
    emu.emu.db.query<{ type: string; entity_id: string; entity: any }>(
      'SELECT type, entity_id, entity FROM events WHERE seq > $1 ORDER BY seq',
      [since],
    );
  const lastSeq = async () =>
    Number((await emu.emu.db.query<{ s: number }>('SELECT coalesce(max(seq), 0) AS s FROM events'))[0]!.s);

  const register = memberRegistrar(() => emu, 'concurrency');
  const memberToken = (memberId: string, visitor: string) => memberAccess(emu, memberId, visitor);
  /** The hosted checkout page of the caller's cart as it now is: its URL and its form, filled. */
  const hostedCheckout = async (token: string) => {
    const co = await as(token).checkout();
    expect(co.status).toBe(200);
    const rs = await call(
      'POST',
      '/_api/redirects-api/v1/redirect-session',
      { ecomCheckout: { checkoutId: co.body.checkoutId } },
      { authorization: token },
    );
    expect(rs.status).toBe(200);
    const url = rs.body.redirectSession.fullUrl as string;
    return { url, fields: placeOrderFields(await (await fetch(url)).text()) };
  };
  const placeOrder = (page: { url: string; fields: Record<string, string> }) =>
    fetch(page.url, { method: 'POST', redirect: 'manual', body: new URLSearchParams(page.fields) });

  it('first adds from one visitor make one cart: one line, every unit, one cart_created', async () => {
    const v = as(await visitorToken(emu));
    const since = await lastSeq();
    const answers = await Promise.all(Array.from({ length: 30 }, () => v.add([item('beeswax-candle')])));
    expect(counted(answers)).toEqual({ 200: 30 });
    expect(new Set(answers.map((a) => a.body.cart.id)).size).toBe(1);
    const cart = (await v.get()).body.cart;
    expect(cart.lineItems).toHaveLength(1);
    expect(cart.lineItems[0].quantity).toBe(30);
    expectConsistent(cart);
    const types = (await events(since)).map((e) => e.type);
    expect(types.filter((t) => t === 'wix.ecom.v1.cart_created')).toHaveLength(1);
    expect(types.filter((t) => t === 'wix.ecom.v1.cart_updated')).toHaveLength(29);
  });

  it('concurrent adds hold the limits exactly: 9 999 a line, 300 lines, the subtotal', async () => {
    const line = as(await visitorToken(emu));
    expect((await line.add([item('beeswax-candle', 9990)])).status).toBe(200);
    const more = await Promise.all(Array.from({ length: 30 }, () => line.add([item('beeswax-candle')])));
    expect(counted(more)).toEqual({ 200: 9, '400 MAX': 21 });
    expect(quantityOf((await line.get()).body.cart)).toBe(9999);

    const lines = as(`${await visitorToken(emu)},${emu.demo.apiKey}`);
    const first = Array.from({ length: 295 }, (_, i) => custom(`c${i}`));
    expect((await lines.addCustom(first)).status).toBe(200);
    const extra = await Promise.all(Array.from({ length: 30 }, (_, i) => lines.addCustom([custom(`n${i}`)])));
    expect(counted(extra)).toEqual({ 200: 5, '400 MAX_SIZE': 25 });
    const full = (await lines.get()).body.cart;
    expect(full.lineItems).toHaveLength(300);
    expectConsistent(full);

    // Each add is 999 999 999 990.00: ten fit under 9 999 999 999 999.99, an eleventh does not.
    const big = as(`${await visitorToken(emu)},${emu.demo.apiKey}`);
    const dear = await Promise.all(
      Array.from({ length: 30 }, (_, i) => big.addCustom([custom(`b${i}`, '999999999.99', 1000)])),
    );
    expect(counted(dear)).toEqual({ 200: 10, '400 MAX': 20 });
    const cart = (await big.get()).body.cart;
    expect(cart.subtotal.amount).toBe('9999999999900.00');
    expectConsistent(cart);
  });

  it('quantity changes, removals, coupons and adds on the same lines at once leave a consistent cart', async () => {
    const v = as(await visitorToken(emu));
    for (let round = 0; round < 5; round++) {
      const start = (await v.add([item('dinner-plate', 5), item('olive-wood-spoon', 2)])).body.cart;
      const [plate, spoon] = start.lineItems.map((l: any) => l.id as string);
      const answers = await Promise.all(
        Array.from({ length: 30 }, (_, i) =>
          [
            () => v.quantity(plate!, i + 1),
            () => v.remove(plate!),
            () => v.patch({ couponCode: 'BIG15' }),
            () => v.removeCoupon(),
            () => v.quantity(spoon!, 0),
            () => v.add([item('dinner-plate')]),
          ][i % 6]!(),
        ),
      );
      // A line another call removed first is "not a line item of this cart"; a coupon whose
      // minimum the cart no longer meets is refused: envelopes, never a 5xx.
      for (const c of codes(answers))
        expect(['200', '400 VALIDATION', '400 ERROR_COUPON_NOT_APPLICABLE']).toContain(c);
      const cart = (await v.get()).body.cart;
      expectConsistent(cart);
      const estimate = await v.estimate();
      expect(estimate.status).toBe(200);
      expect(cents(estimate.body.priceSummary.subtotal.amount)).toBe(cents(cart.subtotal.amount));
    }
  });

  it('a checkout or an estimate racing adds is taken from whole changes', async () => {
    const token = await visitorToken(emu);
    const v = as(token);
    const unit = cents((await v.add([item('dinner-plate')])).body.cart.lineItems[0].price.amount);
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        [() => v.checkout(), () => v.estimate(), () => v.add([item('dinner-plate')])][i % 3]!(),
      ),
    );
    expect(counted(answers)).toEqual({ 200: 30 });
    // An estimate prices the cart it returns; a checkout stores the cart as one change left it.
    for (const a of answers.filter((x) => x.body.cart)) {
      expectConsistent(a.body.cart);
      if (a.body.priceSummary)
        expect(cents(a.body.priceSummary.subtotal.amount)).toBe(unit * BigInt(quantityOf(a.body.cart)));
    }
    const checkouts = await emu.emu.db.query<{ doc: any }>('SELECT doc FROM checkouts WHERE owner_id = $1', [
      (await v.get()).body.cart.buyerInfo.visitorId,
    ]);
    expect(checkouts).toHaveLength(10);
    for (const { doc } of checkouts) {
      const q = doc.lineItems.reduce((t: number, l: any) => t + l.quantity, 0);
      expect(doc.lineItems).toHaveLength(1);
      expect(cents(doc.priceSummary.subtotal.amount)).toBe(unit * BigInt(q));
    }
  });

  it('an add racing the deletion of its cart adds to a new cart, never "no cart"', async () => {
    for (let round = 0; round < 20; round++) {
      const v = as(await visitorToken(emu));
      expect((await v.add([item('beeswax-candle')])).status).toBe(200);
      const adds: Answer[] = [];
      const deletes: Answer[] = [];
      await Promise.all(
        Array.from({ length: 30 }, (_, i) =>
          i % 3 === 0
            ? v.del().then((a) => deletes.push(a))
            : v.add([item('beeswax-candle')]).then((a) => adds.push(a)),
        ),
      );
      expect(counted(adds)).toEqual({ 200: 20 });
      for (const c of codes(deletes)) expect(['200', '404 OWNED_CART_NOT_FOUND']).toContain(c);
      const left = await v.get();
      if (left.status === 200) expectConsistent(left.body.cart);
      else expect(codeOf(left)).toBe('404 OWNED_CART_NOT_FOUND');
    }
  });

  it("a login while the visitor's tab is still adding: no add refused, every unit ends in the member's cart", async () => {
    for (let round = 0; round < 8; round++) {
      const visitor = await visitorToken(emu);
      const v = as(visitor);
      expect((await v.add([item('beeswax-candle')])).status).toBe(200);
      const m = as(await memberToken(await register(), visitor));
      const adds: Answer[] = [];
      const reads: Answer[] = [];
      await Promise.all(
        Array.from({ length: 30 }, (_, i) =>
          i % 5 === 0
            ? m.get().then((a) => reads.push(a))
            : v.add([item('beeswax-candle')]).then((a) => adds.push(a)),
        ),
      );
      // An add that lands after the merge starts a new visitor cart, which the member's next cart
      // call takes over in turn: nothing is lost, and no visitor cart is left behind.
      expect(counted(adds)).toEqual({ 200: 24 });
      expect(counted(reads)).toEqual({ 200: 6 });
      const cart = (await m.get()).body.cart;
      expect(cart.lineItems).toHaveLength(1);
      expect(cart.lineItems[0].quantity).toBe(25);
      expectConsistent(cart);
      expect(codeOf(await v.get())).toBe('404 OWNED_CART_NOT_FOUND');
    }
  });

  it('two logins from one visitor racing merge its cart once', async () => {
    for (let round = 0; round < 5; round++) {
      const visitor = await visitorToken(emu);
      expect((await as(visitor).add([item('beeswax-candle', 3)])).status).toBe(200);
      const member = await register();
      const one = as(await memberToken(member, visitor));
      const two = as(await memberToken(member, visitor));
      const answers = await Promise.all(
        Array.from({ length: 10 }, (_, i) => (i % 2 ? one.get() : two.add([item('olive-wood-spoon')]))),
      );
      expect(counted(answers)).toEqual({ 200: 10 });
      const cart = (await one.get()).body.cart;
      expectConsistent(cart);
      const candle = cart.lineItems.find(
        (l: any) => l.catalogReference.catalogItemId === demoProductId('beeswax-candle'),
      );
      expect(candle.quantity).toBe(3);
      expect(quantityOf(cart)).toBe(8);
    }
  });

  it("a member's first cart call being create-checkout records the cart's creation before its checkout", async () => {
    const visitor = await visitorToken(emu);
    const visitorCart = (await as(visitor).add([item('dinner-plate')])).body.cart.id as string;
    const m = as(await memberToken(await register(), visitor));
    const since = await lastSeq();
    expect((await m.checkout()).status).toBe(200);
    const memberCart = (await m.get()).body.cart.id as string;
    expect(memberCart).not.toBe(visitorCart);
    const recorded = (await events(since)).map((e) => [e.type, e.entity_id]);
    expect(recorded.slice(0, 2)).toEqual([
      ['wix.ecom.v1.cart_created', memberCart],
      ['wix.ecom.v1.cart_deleted', visitorCart],
    ]);
    expect(recorded[2]![0]).toBe('wix.ecom.v1.checkout_created');
  });

  it('an order placed while the cart is being added to: placed once, every add answered', async () => {
    for (let round = 0; round < 5; round++) {
      const token = await visitorToken(emu);
      const v = as(token);
      expect((await v.add([item('dinner-plate')])).status).toBe(200);
      const page = await hostedCheckout(token);
      const adds: Answer[] = [];
      const placed: number[] = [];
      await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          i === 10
            ? placeOrder(page).then((r) => placed.push(r.status))
            : v.add([item('olive-wood-spoon')]).then((a) => adds.push(a)),
        ),
      );
      expect(placed).toEqual([200]);
      expect(counted(adds)).toEqual({ 200: 19 });
      const left = await v.get();
      if (left.status === 200) expectConsistent(left.body.cart);
      else expect(codeOf(left)).toBe('404 OWNED_CART_NOT_FOUND');
    }
  });

  it('buyers racing for the last units: each unit sold once, the rest refused with 409', async () => {
    const stock = async () =>
      (
        await call('GET', `/stores-reader/v1/products/${demoProductId('beeswax-candle')}`, undefined, {
          authorization: emu.demo.apiKey,
        })
      ).body.product.stock.quantity as number;
    const before = await stock();
    const buyers = await Promise.all(
      Array.from({ length: Math.floor(before / 3) + 4 }, async () => {
        const token = await visitorToken(emu);
        expect((await as(token).add([item('beeswax-candle', 3)])).status).toBe(200);
        return hostedCheckout(token);
      }),
    );
    const placed = await Promise.all(buyers.map((b) => placeOrder(b).then((r) => r.status)));
    const sold = Math.floor(before / 3);
    expect(placed.filter((s) => s === 200)).toHaveLength(sold);
    expect(placed.filter((s) => s === 409)).toHaveLength(4);
    expect(await stock()).toBe(before - 3 * sold);
  });
});
