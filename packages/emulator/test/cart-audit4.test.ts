/**
 * The fourth cart audit, on each storage: an order placed on the hosted checkout page deleted every
 * cart tied to its checkout, so lines added after the checkout was made, and a member's own lines
 * merged in at a login, went without being ordered; and a member cart with a checkout of its own
 * kept the visitor's ordered lines after the visitor's checkout was placed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHECKOUT_FORM, startTestEmulator, type TestEmulator, testBackends } from '../src/testing.ts';
import { catalogItem, formFields, jsonCalls, memberAccess, memberRegistrar, visitorToken } from './http.ts';

const CART = '/ecom/v1/carts/current';

describe.each(testBackends())('cart audit 4 (%s)', (backend) => {
  let emu: TestEmulator;
  beforeAll(async () => {
    emu = await startTestEmulator(backend);
  });
  afterAll(() => emu?.stop());
  const { call } = jsonCalls(() => emu);
  const register = memberRegistrar(() => emu, 'cart-audit4');
  /** Calls as the holder of `token`, failing on anything but a 200. */
  const as = (token: string) => async (path: string, body?: object) => {
    const res = await call(body ? 'POST' : 'GET', path, body, { authorization: token });
    if (res.status !== 200) throw new Error(`${path} answered ${res.status}: ${JSON.stringify(res.body)}`);
    return res.body;
  };
  const lines = (cart: any) =>
    cart.lineItems.map((l: any) => `${l.quantity} × ${l.productName.original}`).sort();
  /** A checkout of the cart of `token` and its hosted page's redirect session. */
  async function checkout(token: string) {
    const { checkoutId } = await as(token)(`${CART}/create-checkout`, { channelType: 'WEB' });
    const { redirectSession } = await as(token)('/_api/redirects-api/v1/redirect-session', {
      ecomCheckout: { checkoutId },
    });
    return { checkoutId, session: redirectSession as { id: string; fullUrl: string } };
  }
  /** Places the order on the hosted checkout page, at the total the page shows. */
  async function place(session: { id: string; fullUrl: string }) {
    const page = await (await fetch(session.fullUrl)).text();
    const res = await fetch(`${emu.url}/redirect/${session.id}`, {
      method: 'POST',
      redirect: 'manual',
      body: new URLSearchParams({ ...formFields(page), ...CHECKOUT_FORM }),
    });
    expect(await res.text()).toMatch(/Order #\d+ has been placed/);
  }

  it('keeps the lines added after the checkout was made; deletes a cart whose lines were all ordered', async () => {
    const token = await visitorToken(emu);
    const visitor = as(token);
    await visitor(`${CART}/add-to-cart`, { lineItems: [catalogItem('dinner-plate', 2)] });
    const { session } = await checkout(token);
    // Added after the checkout: a candle, and one plate more.
    await visitor(`${CART}/add-to-cart`, {
      lineItems: [catalogItem('beeswax-candle', 2), catalogItem('dinner-plate', 1)],
    });
    await place(session);
    const after = await visitor(CART);
    expect(lines(after.cart)).toEqual(['1 × Stoneware Dinner Plate', '2 × Beeswax Candle']);
    expect(after.cart.checkoutId).toBeUndefined();
    // An order of everything in the cart empties it: the cart is gone.
    const next = await checkout(token);
    await place(next.session);
    const gone = await call('GET', CART, undefined, { authorization: token });
    expect([gone.status, gone.body.details.applicationError.code]).toEqual([404, 'OWNED_CART_NOT_FOUND']);
  });

  it('takes a visitor’s ordered lines out of the member cart they moved into, and only those', async () => {
    const memberId = await register();
    // The member's cart on one device: a skillet, and a checkout of its own.
    const first = await memberAccess(emu, memberId, await visitorToken(emu));
    await as(first)(`${CART}/add-to-cart`, {
      lineItems: [catalogItem('cast-iron-skillet', 1, { options: { Size: '20 cm' } })],
    });
    await checkout(first);
    // On another device, as a visitor: a plate, checked out, then a login (the carts merge).
    const visitor = await visitorToken(emu);
    await as(visitor)(`${CART}/add-to-cart`, { lineItems: [catalogItem('dinner-plate', 1)] });
    const { session } = await checkout(visitor);
    const second = await memberAccess(emu, memberId, visitor);
    expect(lines((await as(second)(CART)).cart)).toEqual([
      '1 × Cast Iron Skillet',
      '1 × Stoneware Dinner Plate',
    ]);
    // The visitor's checkout placed: the plate leaves the member's cart, the skillet stays.
    await place(session);
    expect(lines((await as(second)(CART)).cart)).toEqual(['1 × Cast Iron Skillet']);
  });

  it('refuses a quantity past every bound once, with the tighter bound', async () => {
    const token = await visitorToken(emu);
    for (const quantity of [1e300, 2 ** 53, 10_000]) {
      const res = await call(
        'POST',
        `${CART}/add-to-cart`,
        { lineItems: [{ ...catalogItem('dinner-plate'), quantity }] },
        {
          authorization: token,
        },
      );
      expect(res.status).toBe(400);
      expect(res.body.details.validationError.fieldViolations).toEqual([
        expect.objectContaining({ field: 'lineItems[0].quantity', violatedRule: 'MAX', data: { max: 9999 } }),
      ]);
    }
  });

  it('taxes a store pickup at the store’s address, whatever the buyer’s address', async () => {
    const visitor = as(await visitorToken(emu));
    await visitor(`${CART}/add-to-cart`, { lineItems: [catalogItem('dinner-plate', 1)] });
    const taxed = async (country: string, subdivision?: string, code = 'store-pickup') => {
      const est = await visitor(`${CART}/estimate-totals`, {
        shippingAddress: { country, subdivision, city: 'X', postalCode: '1', addressLine1: '1 Road' },
        selectedShippingOption: { code },
      });
      const line = est.calculatedLineItems[0];
      return [line.pricesBreakdown.taxDetails.taxRate, line.taxableAddress.addressType];
    };
    const store = await taxed('US', 'US-NY');
    expect(store).toEqual(['0.08875', 'BUSINESS']);
    expect(await taxed('GB')).toEqual(store);
    expect(await taxed('US', 'US-CA')).toEqual(store);
    // Delivered, the buyer's address decides.
    expect(await taxed('GB', undefined, 'standard')).toEqual(['0.2', 'SHIPPING']);
  });
});
