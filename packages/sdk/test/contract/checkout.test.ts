/**
 * Checkout through the SDK and the emulator's hosted pages: create a checkout from the current
 * cart, open a redirect session for it, place the order on the hosted page, land on the post-flow
 * URL with the cart emptied. Also the other intents' pages, the open-redirect guard, cross-site
 * posts, and bad input that stores nothing.
 */
import { testBackends } from '@shopkit/emulator/testing';
import { describe, expect, it } from 'vitest';
import {
  ApiKeyStrategy,
  ApplicationError,
  ChannelType,
  cart,
  createClient,
  op,
  redirects,
  ValidationError,
} from '../../src/index.ts';
import {
  failure,
  CHECKOUT_FORM as GOOD,
  postForm as post,
  rawRedirectSession,
  setupCatalog,
  setupEmulator,
  visitorClient,
} from './setup.ts';

const SHOP = 'https://shop.example';

const updateProduct = op<[id: string, product: Record<string, unknown>], unknown>({
  method: 'PATCH',
  path: '/stores/v1/products/{product.id}',
  args: ['id:product.id', 'product:product'],
});

const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();

describe.each(testBackends())('checkout and hosted pages (%s)', (backend) => {
  const emu = setupEmulator(backend, { allowedOrigins: [SHOP] });
  const { ids, item } = setupCatalog(emu);

  const visitor = () => visitorClient(emu, { cart, redirects });
  const count = async (sql: string, params: unknown[]) =>
    Number((await emu.emu.db.query<{ n: number }>(sql, params))[0]!.n);

  /** `raw`: the session goes around the SDK's URL checks, to test the emulator with any input. */
  async function checkoutFor(c: ReturnType<typeof visitor>, postFlowUrl: string, extra = {}, raw = false) {
    await c.cart.addToCurrentCart({ lineItems: [item('dinner-plate', 2), item('gift-card')] });
    const { checkoutId } = await c.cart.createCheckoutFromCurrentCart({
      channelType: ChannelType.WEB,
      email: 'ada@example.com',
      shippingAddress: {
        country: 'US',
        subdivision: 'US-NY',
        city: 'Albany',
        postalCode: '12207',
        addressLine1: '1 Main St',
      },
    });
    const options = {
      ecomCheckout: { checkoutId },
      callbacks: { postFlowUrl, cartPageUrl: `${SHOP}/cart`, ...extra },
    };
    const { redirectSession } = raw
      ? await rawRedirectSession(c, options)
      : await c.redirects.createRedirectSession(options);
    return { checkoutId, redirectSession };
  }

  it('creates a checkout from the cart and refuses bad input, storing nothing', async () => {
    const c = visitor();
    const { cart: got } = await c.cart.addToCurrentCart({ lineItems: [item('linen-tea-towels')] });
    const before = await count('SELECT count(*)::int AS n FROM checkouts', []);
    const cases: Array<[Parameters<typeof c.cart.createCheckoutFromCurrentCart>[0], string]> = [
      [{ email: 'not-an-email' }, 'options.email'],
      [{ channelType: 'FAX' as ChannelType }, 'options.channelType'],
      [{ selectedShippingOption: { code: 'teleport' } }, 'options.selectedShippingOption.code'],
      [{ shippingAddress: { country: 'USA' } }, 'options.shippingAddress.country'],
    ];
    for (const [input, field] of cases) {
      const e = await failure(c.cart.createCheckoutFromCurrentCart(input));
      expect(e, field).toBeInstanceOf(ValidationError);
      expect((e as ValidationError).violations.map((v) => v.field)).toEqual([field]);
    }
    expect(await count('SELECT count(*)::int AS n FROM checkouts', [])).toBe(before);
    expect((await c.cart.getCurrentCart()).checkoutId).toBeUndefined();

    const { checkoutId } = await c.cart.createCheckoutFromCurrentCart({
      channelType: ChannelType.WEB,
      email: 'ada@example.com',
      selectedShippingOption: { code: 'express' },
    });
    const after = await c.cart.getCurrentCart();
    expect(after.checkoutId).toBe(checkoutId);
    const [row] = await emu.emu.db.query('SELECT status, doc FROM checkouts WHERE id = $1', [checkoutId]);
    expect(row).toMatchObject({
      status: 'CREATED',
      doc: {
        cartId: got.id,
        channelType: 'WEB',
        email: 'ada@example.com',
        selectedShippingOption: { code: 'express' },
      },
    });
    // Its event carries the checkout in the platform's shape: the cart's priced lines and totals,
    // the buyer with the e-mail, the chosen shipping; nothing of the emulator's own storage.
    const events = await emu.emu.db.query<{ entity: Record<string, any> }>(
      'SELECT entity FROM events WHERE entity_id = $1 AND type = $2',
      [checkoutId, 'wix.ecom.v1.checkout_created'],
    );
    expect(events).toHaveLength(1);
    const checkout = events[0]!.entity;
    expect(checkout).toMatchObject({
      id: checkoutId,
      cartId: got.id,
      channelType: 'WEB',
      currency: 'USD',
      completed: false,
      buyerInfo: { visitorId: got.buyerInfo?.visitorId, email: 'ada@example.com' },
      lineItems: [
        {
          id: got.lineItems[0]!.id,
          quantity: 1,
          catalogReference: got.lineItems[0]!.catalogReference,
          productName: { original: 'Linen Tea Towels (Set of 3)' },
          price: { amount: '18.00' },
        },
      ],
      shippingInfo: { selectedCarrierServiceOption: { code: 'express' } },
      priceSummary: { subtotal: { amount: '18.00' } },
    });
    expect(checkout.createdDate).toMatch(/^\d{4}-\d\d-\d\dT/);
    for (const internal of [
      'email',
      'selectedShippingOption',
      'couponCode',
      'merchantDiscounts',
      'contactInfo',
    ])
      expect(checkout).not.toHaveProperty(internal);
    expect(checkout.lineItems[0]).not.toHaveProperty('catalog');

    // An empty cart has nothing to check out.
    await c.cart.removeLineItemsFromCurrentCart([after.lineItems[0]!.id]);
    const empty = await failure(c.cart.createCheckoutFromCurrentCart());
    expect(empty).toBeInstanceOf(ApplicationError);
    expect(empty).toMatchObject({ status: 400, code: 'CART_IS_EMPTY' });
  });

  it("checks out on every channel of the platform's enum, keeping the street line of both addresses", async () => {
    const c = visitor();
    await c.cart.addToCurrentCart({ lineItems: [item('linen-tea-towels')] });
    const channels: string[] = [];
    for (const channelType of Object.values(ChannelType)) {
      const { checkoutId } = await c.cart.createCheckoutFromCurrentCart({ channelType });
      const [row] = await emu.emu.db.query<{ doc: { channelType: string } }>(
        'SELECT doc FROM checkouts WHERE id = $1',
        [checkoutId],
      );
      channels.push(row!.doc.channelType);
    }
    expect(channels).toEqual(Object.values(ChannelType));
    expect(channels).toEqual(expect.arrayContaining(['WIX_INVOICES_PLATFORM', 'UCP_AGENTIC_CHECKOUT']));

    const street = { number: '1', name: 'Main St', apt: '4B', formattedAddressLine: '1 Main St, Apt 4B' };
    const { checkoutId } = await c.cart.createCheckoutFromCurrentCart({
      shippingAddress: { country: 'US', city: 'Albany', streetAddress: street },
      billingAddress: { country: 'US', city: 'Boston', streetAddress: street },
    });
    const [row] = await emu.emu.db.query('SELECT doc FROM checkouts WHERE id = $1', [checkoutId]);
    expect(row).toMatchObject({
      doc: {
        shippingAddress: { city: 'Albany', streetAddress: street },
        billingAddress: { city: 'Boston', streetAddress: street },
      },
    });
  });

  it('serves the hosted checkout page, places the order, empties the cart and returns to postFlowUrl', async () => {
    const c = visitor();
    const { checkoutId, redirectSession } = await checkoutFor(c, `${SHOP}/thanks?from=checkout`);
    expect(redirectSession.fullUrl).toBe(`${emu.url}/redirect/${redirectSession.id}`);
    const page = await fetch(redirectSession.fullUrl);
    expect(page.status).toBe(200);
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    expect(page.headers.get('content-security-policy')).toMatch(/^default-src 'none'; /);
    expect(page.headers.get('content-security-policy')).toContain(
      `; form-action 'self' ${SHOP}; frame-ancestors 'none'`,
    );
    const html = await page.text();
    expect(html).toContain('Stoneware Dinner Plate');
    expect(html).toContain('<label for="f-email">E-mail</label>');
    expect(html).toContain(`<form method="post" action="/redirect/${redirectSession.id}">`);
    expect(html).toContain('value="ada@example.com"');
    // 54.00 + 50.00, shipping 5.00; NY tax 8.875 % of 104.00 = 9.23, of shipping 0.44 → 118.67.
    expect(html).toContain('$118.67');
    expect(html).toContain(`href="${SHOP}/cart"`);

    // Bad form: the page again with the reasons, nothing placed.
    const bad = await post(redirectSession.fullUrl, form({ ...GOOD, email: 'nope', country: 'USA' }));
    expect(bad.status).toBe(400);
    const badHtml = await bad.text();
    expect(badHtml).toContain('role="alert"');
    expect(badHtml).toContain('Enter a valid e-mail address.');
    expect(badHtml).toContain('Enter the country as a two-letter code, such as US.');
    expect(await count('SELECT count(*)::int AS n FROM orders WHERE checkout_id = $1', [checkoutId])).toBe(0);
    // A post from another site is refused.
    const forged = await post(redirectSession.fullUrl, form(GOOD), { Origin: 'https://evil.example' });
    expect(forged.status).toBe(403);
    const crossSite = await post(redirectSession.fullUrl, form(GOOD), {
      'Sec-Fetch-Site': 'cross-site',
      Origin: 'null',
    });
    expect(crossSite.status).toBe(403);
    expect(await count('SELECT count(*)::int AS n FROM orders WHERE checkout_id = $1', [checkoutId])).toBe(0);
    const before = await c.cart.getCurrentCart();
    expect(before.lineItems).toHaveLength(2);

    const placed = await post(redirectSession.fullUrl, form(GOOD), { Origin: emu.url });
    expect(placed.status).toBe(303);
    expect(placed.headers.get('location')).toBe(`${SHOP}/thanks?from=checkout`);
    expect((await failure(c.cart.getCurrentCart())).code).toBe('OWNED_CART_NOT_FOUND');
    const [order] = await emu.emu.db.query('SELECT id, number, doc FROM orders WHERE checkout_id = $1', [
      checkoutId,
    ]);
    expect(order!.doc).toMatchObject({
      buyerInfo: { email: 'ada@example.com' },
      priceSummary: { total: { amount: '118.67' } },
      recipientInfo: {
        contactDetails: { firstName: 'Ada', lastName: 'Lovelace' },
        address: { city: 'Albany' },
      },
    });
    // Both events are the visitor's: the session through the API, the order on the hosted page.
    const events = await emu.emu.db.query<{ type: string; identity: unknown }>(
      'SELECT type, identity FROM events WHERE entity_id IN ($1, $2) ORDER BY seq',
      [order!.id, redirectSession.id],
    );
    const buyer = { identityType: 'ANONYMOUS_VISITOR', anonymousVisitorId: before.buyerInfo?.visitorId };
    expect(buyer.anonymousVisitorId).toMatch(/^[0-9a-f-]{36}$/);
    expect(events).toEqual([
      { type: 'wix.headless.v1.redirect_session_created', identity: buyer },
      { type: 'wix.ecom.v1.order_created', identity: buyer },
    ]);
    // Placing twice places one order; the page now says it is placed.
    const again = await post(redirectSession.fullUrl, form(GOOD));
    expect(again.status).toBe(303);
    expect(await count('SELECT count(*)::int AS n FROM orders WHERE checkout_id = $1', [checkoutId])).toBe(1);
    const done = await (await fetch(redirectSession.fullUrl)).text();
    expect(done).toContain(`Order #${order!.number} has been placed.`);
  });

  it('never redirects to a post-flow URL outside the allowed origins (no open redirect)', async () => {
    for (const target of [
      'https://evil.example/x',
      '//evil.example',
      'javascript:alert(1)',
      `${SHOP}.evil.example/x`,
    ]) {
      const c = visitor();
      const { checkoutId, redirectSession } = await checkoutFor(c, target, { cartPageUrl: undefined }, true);
      const page = await fetch(redirectSession.fullUrl);
      expect(page.headers.get('content-security-policy')).toContain(
        "; form-action 'self'; frame-ancestors 'none'",
      );
      const res = await post(redirectSession.fullUrl, form(GOOD));
      expect(res.status, target).toBe(200);
      expect(res.headers.get('location')).toBeNull();
      const html = await res.text();
      expect(html).toMatch(/Order #\d+ has been placed\./);
      expect(html).not.toContain('evil');
      expect(await count('SELECT count(*)::int AS n FROM orders WHERE checkout_id = $1', [checkoutId])).toBe(
        1,
      );
    }
    // A URL on the emulator itself is fine.
    const c = visitor();
    const own = `${emu.url}/product-page/gift-card`;
    const { redirectSession } = await checkoutFor(c, own);
    const res = await post(redirectSession.fullUrl, form(GOOD));
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(own);
  });

  it("shows a checkout only to its buyer's sessions", async () => {
    const buyer = visitor();
    const { checkoutId } = await checkoutFor(buyer, `${SHOP}/thanks`);
    const other = visitor();
    const { redirectSession } = await other.redirects.createRedirectSession({ ecomCheckout: { checkoutId } });
    const page = await fetch(redirectSession.fullUrl);
    expect(page.status).toBe(404);
    expect(await page.text()).toContain('This checkout does not exist.');
    const res = await post(redirectSession.fullUrl, form(GOOD));
    expect(res.status).toBe(404);
    expect(await count('SELECT count(*)::int AS n FROM orders WHERE checkout_id = $1', [checkoutId])).toBe(0);
  });

  it('refuses to place an order for items that sold out in the meantime', async () => {
    const c = visitor();
    await c.cart.addToCurrentCart({ lineItems: [item('dinner-plate', 3)] });
    const { checkoutId } = await c.cart.createCheckoutFromCurrentCart();
    const { redirectSession } = await c.redirects.createRedirectSession({ ecomCheckout: { checkoutId } });
    // The merchant sets the stock to 1 through the catalog's write API.
    const admin = createClient({ baseUrl: emu.url, auth: ApiKeyStrategy({ apiKey: emu.demo.apiKey }) });
    const setStock = (quantity: number) =>
      updateProduct(admin, ids.get('dinner-plate')!, { stock: { quantity } });
    await setStock(1);
    try {
      const res = await post(redirectSession.fullUrl, form(GOOD));
      expect(res.status).toBe(409);
      expect(await res.text()).toContain('Only 1 of Stoneware Dinner Plate are in stock; the cart has 3.');
      expect(await count('SELECT count(*)::int AS n FROM orders WHERE checkout_id = $1', [checkoutId])).toBe(
        0,
      );
      expect((await c.cart.getCurrentCart()).lineItems).toHaveLength(1);
    } finally {
      await setStock(40);
    }
  });

  it('serves a product page for storesProduct, and a clear page for intents the emulator lacks', async () => {
    const c = visitor();
    const { redirectSession: product } = await c.redirects.createRedirectSession({
      storesProduct: { productSlug: 'dinner-plate' },
      callbacks: { postFlowUrl: `${SHOP}/shop` },
    });
    const page = await fetch(product.fullUrl);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('<h1>Stoneware Dinner Plate</h1>');
    expect(html).toContain('$27.00 <s>$32.00</s>');
    expect(html).toContain(`<a href="${SHOP}/shop">Back to the site</a>`);
    const { redirectSession: missing } = await c.redirects.createRedirectSession({
      storesProduct: { productSlug: 'no-such-thing' },
    });
    expect((await fetch(missing.fullUrl)).status).toBe(404);
    const { redirectSession: hidden } = await c.redirects.createRedirectSession({
      storesProduct: { productSlug: 'enamel-pitcher' },
    });
    expect((await fetch(hidden.fullUrl)).status).toBe(404);

    const intents = [
      [{ bookingsCheckout: { timezone: 'UTC' } }, 'Bookings checkout'],
      [{ bookingsBook: { resourceId: 'r1' } }, 'Bookings'],
      [{ eventsCheckout: { reservationId: 'res-1', eventSlug: 'gala' } }, 'Events checkout'],
      [{ paidPlansCheckout: { planId: 'plan-1' } }, 'Paid plans checkout'],
    ] as const;
    for (const [intent, label] of intents) {
      const { redirectSession } = await c.redirects.createRedirectSession({
        ...intent,
        callbacks: { planListUrl: `${SHOP}/plans`, postFlowUrl: 'https://evil.example/' },
      } as Parameters<typeof c.redirects.createRedirectSession>[0]);
      const res = await fetch(redirectSession.fullUrl);
      expect(res.status).toBe(501);
      const body = await res.text();
      expect(body).toContain('<h1>Not available in the emulator</h1>');
      expect(body).toContain(`${label} is not available in the emulator`);
      expect(body).toContain(`<a href="${SHOP}/plans">Back to the site</a>`);
      expect(body).not.toContain('evil');
    }
    // Without any usable callback the page still has a way back.
    const { redirectSession: bare } = await c.redirects.createRedirectSession({
      bookingsBook: { resourceId: 'r2' },
    });
    const bareHtml = await (await fetch(bare.fullUrl)).text();
    expect(bareHtml).toContain('Use your browser’s Back button');
    expect(bareHtml).not.toContain('onclick');
  });
});
