/**
 * Conformance: the platform's own published SDK (`@wix/sdk` and its generated cart, products,
 * collections and redirects modules, the versions pinned in `bench/baseline`) against the emulator
 * over HTTP. The emulator must serve any client that speaks the wire protocol, and this client is
 * the reference: it builds its requests from the platform's own generated code (the `.r` queries,
 * the `?id=` a GET repeats, the `_id` names), not from our reading of the wire document.
 *
 * `platform-sdk.ts` sends the platform SDK's requests to the emulator. The first run installs the
 * pinned SDK into `bench/baseline` (npm registry needed, as for `npm install`).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REUSE_GRACE_MS } from '../src/domains/platform/index.ts';
import { startTestEmulator, type TestEmulator, testBackends } from '../src/testing.ts';
import {
  expireAccessToken,
  hostedLogin,
  merchant as merchantOf,
  PASSWORD,
  realFetch,
  rejection,
  SHOP,
  STORES_APP_ID,
  shopper as shopperOf,
  usePlatformSdk,
} from './platform-sdk.ts';

/** Where the platform's origins go: the emulator of the suite that is running. */
let target = '';
const wix = usePlatformSdk(() => target);
const shopper = (emu: TestEmulator) => shopperOf(wix(), emu);
const merchant = (emu: TestEmulator) => merchantOf(wix(), emu);

describe.each(testBackends())('the platform SDK against the emulator (%s)', (backend) => {
  let emu: TestEmulator;
  let n = 0;
  const email = () => `platform-${++n}-${backend}@example.test`;
  beforeAll(async () => {
    emu = await startTestEmulator(backend, { allowedOrigins: [SHOP] });
    target = emu.url;
  });
  afterAll(() => emu?.stop());

  it('browses: the product query builder, a product, collections by slug and by query', async () => {
    const client = shopper(emu);
    const page = await client.products.queryProducts().startsWith('name', 'Linen').ascending('name').find();
    const names = page.items.map((p: any) => p.name);
    expect(names.length).toBeGreaterThan(1);
    expect(names).toEqual([...names].sort());
    expect(names.every((n: string) => n.startsWith('Linen'))).toBe(true);
    expect(page.totalCount).toBe(names.length);

    const first = page.items[0];
    const { product } = await client.products.getProduct(first._id);
    expect(product).toMatchObject({ _id: first._id, name: first.name });
    // The platform SDK turns the wire's timestamps into dates, as ours does.
    expect(product.lastUpdated).toBeInstanceOf(Date);

    const paged = await client.products.queryProducts().limit(2).find();
    expect(paged.items).toHaveLength(2);
    expect(paged.hasNext()).toBe(true);
    const next = await paged.next();
    expect(next.items.map((p: any) => p._id)).not.toContain(paged.items[0]._id);

    const { collection } = await client.collections.getCollectionBySlug('summer-linen');
    expect(collection).toMatchObject({ slug: 'summer-linen', name: 'Summer Linen' });
    const all = await client.collections.queryCollections().find();
    expect(all.items.map((c: any) => c.slug)).toContain('summer-linen');
  });

  it('fills a cart, applies a coupon and gets the same total as the cart-totals scenario; checks out', async () => {
    const client = shopper(emu);
    const none = await rejection(client.currentCart.getCurrentCart());
    expect(none.details?.applicationError?.code).toBe('OWNED_CART_NOT_FOUND');

    const { items } = await client.products.queryProducts().eq('slug', 'wool-beanie').find();
    const beanie = items[0];
    const added = await client.currentCart.addToCurrentCart({
      lineItems: [
        {
          catalogReference: {
            appId: STORES_APP_ID,
            catalogItemId: beanie._id,
            options: { options: { Color: 'Rust' } },
          },
          quantity: 2,
        },
      ],
    });
    const line = added.cart.lineItems[0];
    expect(line.quantity).toBe(2);
    // Images travel as the platform's media references, read back by the platform SDK.
    expect(line.image).toMatch(/^wix:image:\/\/v1\//);

    const updated = await client.currentCart.updateCurrentCartLineItemQuantity([
      { _id: line._id, quantity: 3 },
    ]);
    expect(updated.cart.lineItems[0].quantity).toBe(3);
    const coupon = await client.currentCart.updateCurrentCart({ couponCode: 'SAVE10' });
    expect(coupon.appliedDiscounts[0].coupon.code).toBe('SAVE10');

    const est = await client.currentCart.estimateCurrentCartTotals({
      shippingAddress: { country: 'US', subdivision: 'US-NY' },
    });
    // packages/sdk/test/contract/cart-totals.test.ts: 3 × 19.60, SAVE10, New York, shipping.
    expect(est.priceSummary.total).toMatchObject({ amount: '63.06', formattedAmount: '$63.06' });

    const removed = await client.currentCart.removeCouponFromCurrentCart();
    expect(removed.cart.appliedDiscounts ?? []).toEqual([]);

    const { checkoutId } = await client.currentCart.createCheckoutFromCurrentCart({ channelType: 'WEB' });
    expect(checkoutId).toMatch(/^[0-9a-f-]{36}$/);
    const { redirectSession } = await client.redirects.createRedirectSession({
      ecomCheckout: { checkoutId },
      callbacks: { postFlowUrl: `${SHOP}/thanks` },
    });
    expect(redirectSession.fullUrl.startsWith(`${emu.url}/`)).toBe(true);
    const hosted = await realFetch(redirectSession.fullUrl);
    expect(hosted.status).toBe(200);

    const gone = await client.currentCart.removeLineItemsFromCurrentCart([line._id]);
    expect(gone.cart.lineItems).toEqual([]);
    await client.currentCart.deleteCurrentCart();
    expect((await rejection(client.currentCart.getCurrentCart())).details?.applicationError?.code).toBe(
      'OWNED_CART_NOT_FOUND',
    );
  });

  it("refuses bad input in the platform's envelope, which the platform SDK maps to its arguments", async () => {
    const client = shopper(emu);
    const bad = await rejection(
      client.currentCart.addToCurrentCart({
        lineItems: [
          { catalogReference: { appId: STORES_APP_ID, catalogItemId: 'no-such-product' }, quantity: 1 },
        ],
      }),
    );
    // The emulator names the wire field; the platform SDK maps it to its own argument (`options`).
    expect(bad.details.validationError.fieldViolations).toEqual([
      expect.objectContaining({
        field: 'options.lineItems[0].catalogReference.catalogItemId',
        description: 'does not match a product in the store',
      }),
    ]);
    expect(bad.details.requestId).toBeTruthy();
    // Its message is a JSON dump of the error, with the platform's sentence inside.
    expect(JSON.parse(bad.message).message).toBe(
      'INVALID_ARGUMENT: "options.lineItems[0].catalogReference.catalogItemId" does not match a product in the store',
    );
  });

  it('registers and logs a member in, through the hosted page, and keeps the cart theirs', async () => {
    const client = shopper(emu);
    const who = email();
    const registered = await client.auth.register({ email: who, password: PASSWORD });
    expect(registered.loginState).toBe('SUCCESS');
    expect(registered.data.sessionToken).toBeTruthy();

    const wrong = await client.auth.login({ email: who, password: 'not the password' });
    expect(wrong).toMatchObject({ loginState: 'FAILURE', errorCode: 'invalidPassword' });
    const right = await client.auth.login({ email: who, password: PASSWORD });
    expect(right.loginState).toBe('SUCCESS');

    const tokens = await hostedLogin(client, who);
    expect(tokens.refreshToken.role).toBe('member');
    client.auth.setTokens(tokens);
    expect(client.auth.loggedIn()).toBe(true);

    const { items } = await client.products.queryProducts().eq('slug', 'linen-tea-towels').find();
    const { cart } = await client.currentCart.addToCurrentCart({
      lineItems: [{ catalogReference: { appId: STORES_APP_ID, catalogItemId: items[0]._id }, quantity: 1 }],
    });
    expect(cart.buyerInfo.memberId).toBeTruthy();

    const { logoutUrl } = await client.auth.logout(`${SHOP}/`);
    expect(logoutUrl.startsWith(`${emu.url}/`)).toBe(true);
    expect(client.auth.loggedIn()).toBe(false);
  });

  it("serves the identity module's own calls: token info answers plainly, a too-long e-mail is invalidEmail", async () => {
    const client = wix().sdk.createClient({
      auth: wix().sdk.OAuthStrategy({ clientId: emu.demo.clientId }),
      modules: { oauth: wix().identity.oauth },
    });
    const { accessToken } = await client.auth.generateVisitorTokens();
    // The module posts its raw-HTTP envelope and reads the info itself (no bytes in the answer).
    const info = await client.oauth.tokenInfo({
      body: new TextEncoder().encode(JSON.stringify({ token: accessToken.value })),
    });
    expect(info).toMatchObject({ active: true, subjectType: 'VISITOR', clientId: emu.demo.clientId });

    const long = await client.auth.register({ email: `${'x'.repeat(250)}@b.co`, password: PASSWORD });
    expect(long).toMatchObject({ loginState: 'FAILURE', errorCode: 'invalidEmail' });
  });

  it("goes straight to the identity provider getAuthUrl's idp names", async () => {
    const connection = await realFetch(`${emu.url}/_api/emulator/v1/idp-connections`, {
      method: 'POST',
      headers: { authorization: emu.demo.apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Conformance ID' }),
    });
    const { id } = (await connection.json()).idpConnection;
    const client = shopper(emu);
    const data = client.auth.generateOAuthData(`${SHOP}/callback`);
    const { authUrl } = await client.auth.getAuthUrl(data, { idp: { connectionId: id } });
    const res = await realFetch(authUrl, { redirect: 'manual' });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toContain(`/sso/login/${emu.demo.siteId}/${id}?`);
  });

  it('lets a merchant create, change, bulk-price and delete a product', async () => {
    const admin = merchant(emu);
    const created = await admin.products.createProduct({
      name: `Conformance Mug ${backend}`,
      productType: 'physical',
      priceData: { price: 12.5 },
    });
    const id = (created.product ?? created)._id;
    expect(id).toBeTruthy();
    const changed = await admin.products.updateProduct(id, { description: 'Stoneware.' });
    expect((changed.product ?? changed).description).toBe('Stoneware.');
    const bulk = await admin.products.bulkUpdateProductsProperty([id], { price: 15 });
    expect(bulk.bulkActionMetadata).toMatchObject({ totalSuccesses: 1, totalFailures: 0 });
    const { product } = await admin.products.getProduct(id);
    expect(product.priceData.price).toBe(15);
    await admin.products.deleteProduct(id);
    const gone = await rejection(admin.products.getProduct(id));
    expect(gone.details?.applicationError?.code).toBe('PRODUCT_NOT_FOUND');
  });
});

describe('the platform SDK keeps a member through renewals (pglite)', () => {
  // The platform SDK resends its first refresh token on every renewal (wire §6): rotation, the
  // emulator's default (checklist 43), spends that token at the first renewal, and the SDK falls back
  // to a visitor at the second one (once the grace window for a renewal sent twice is over, as it is
  // between renewals an access token's lifetime apart); `rotateRefreshTokens: false` serves it
  // (README, "Refresh tokens").
  for (const rotate of [true, false])
    it(`with rotateRefreshTokens: ${rotate}`, async () => {
      let clock = Date.now();
      const emu = await startTestEmulator('pglite', {
        allowedOrigins: [SHOP],
        now: () => new Date(clock),
        config: { identity: { rotateRefreshTokens: rotate } },
      });
      target = emu.url;
      try {
        const client = shopper(emu);
        const who = `renewals-${rotate}@example.test`;
        await client.auth.register({ email: who, password: PASSWORD });
        client.auth.setTokens(await hostedLogin(client, who));
        const { items } = await client.products.queryProducts().eq('slug', 'linen-tea-towels').find();
        const { cart } = await client.currentCart.addToCurrentCart({
          lineItems: [
            { catalogReference: { appId: STORES_APP_ID, catalogItemId: items[0]._id }, quantity: 1 },
          ],
        });
        const members: (string | undefined)[] = [];
        for (let i = 0; i < 3; i++) {
          clock += REUSE_GRACE_MS;
          expireAccessToken(client);
          const now = await client.currentCart.getCurrentCart().catch(() => undefined);
          members.push(now?.buyerInfo?.memberId);
        }
        const member = cart.buyerInfo.memberId;
        if (rotate) {
          // The first renewal works; the second presents the spent token and ends the family.
          expect(members).toEqual([member, undefined, undefined]);
          expect(client.auth.loggedIn()).toBe(false);
        } else {
          expect(members).toEqual([member, member, member]);
          expect(client.auth.loggedIn()).toBe(true);
        }
      } finally {
        await emu.stop();
      }
    });
});
