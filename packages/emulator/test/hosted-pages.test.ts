/**
 * The hosted pages and what leads to them, over raw HTTP: the checkout page places an order only
 * at the total the buyer was shown, follows only well-formed callback URLs, the login and reset
 * forms refuse cross-site posts like the other hosted forms, and GraphQL's cost limits count
 * fragment spreads that select nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoProductId } from '../src/domains/catalog/seed.ts';
import { startTestEmulator, type TestEmulator, testBackends } from '../src/testing.ts';
import { authorizeUrl, checkoutSession, formFields, jsonCalls, shownTotal, visitorToken } from './http.ts';

const SHOP = 'http://localhost:5173';
/** RFC 7636 Appendix B's challenge: these tests never exchange a code. */
const ALBANY = {
  country: 'US',
  subdivision: 'US-NY',
  city: 'Albany',
  postalCode: '12207',
  addressLine: '1 Main St',
};
const FORM = {
  email: 'ada@example.com',
  firstName: 'Ada',
  lastName: 'Lovelace',
  addressLine: ALBANY.addressLine,
  city: ALBANY.city,
  postalCode: ALBANY.postalCode,
  country: ALBANY.country,
  subdivision: ALBANY.subdivision,
};

/** What a buyer posts from the checkout page: its fields, with the name the checkout lacks. */
const filled = (html: string) => ({ ...formFields(html), firstName: 'Ada', lastName: 'Lovelace' });

describe.each(testBackends())('hosted pages (%s)', (backend) => {
  let emu: TestEmulator;
  beforeAll(async () => {
    emu = await startTestEmulator(backend, { allowedOrigins: [SHOP] });
  });
  afterAll(() => emu?.stop());
  const { call, owner } = jsonCalls(() => emu);
  const count = async (sql: string, params: unknown[] = []) =>
    Number((await emu.emu.db.query<{ n: number }>(sql, params))[0]!.n);

  /** A visitor's checkout of two of `slug`, priced for Albany, and its redirect session's URL. */
  async function checkout(slug: string, callbacks: Record<string, string> = {}) {
    const checkout = { shippingAddress: ALBANY, email: FORM.email };
    const { auth, checkoutId, session } = await checkoutSession(emu, {
      slug,
      quantity: 2,
      checkout,
      callbacks,
    });
    return { auth, checkoutId, url: session.fullUrl };
  }
  const post = (url: string, fields: Record<string, string>, headers: Record<string, string> = {}) =>
    fetch(url, { method: 'POST', redirect: 'manual', body: new URLSearchParams(fields), headers });
  const orderTotal = async (checkoutId: string) =>
    (await emu.emu.db.query<{ doc: any }>('SELECT doc FROM orders WHERE checkout_id = $1', [checkoutId]))[0]
      ?.doc.priceSummary.total.formattedAmount as string | undefined;

  describe('an order is placed only at the total the buyer was shown', () => {
    it('a price raised after the page was shown: the page again with the new total, then the order at it', async () => {
      const { auth, checkoutId, url } = await checkout('linen-tea-towels');
      const page = await (await fetch(url)).text();
      // The page shows what the API estimates for the same cart and address.
      const api = await call(
        'POST',
        '/ecom/v1/carts/current/estimate-totals',
        { shippingAddress: ALBANY },
        auth,
      );
      expect(shownTotal(page)).toBe(api.body.priceSummary.total.formattedAmount);

      const product = demoProductId('linen-tea-towels');
      const before = await owner('GET', `/stores-reader/v1/products/${product}`);
      try {
        expect(
          (await owner('PATCH', `/stores/v1/products/${product}`, { product: { priceData: { price: 500 } } }))
            .status,
        ).toBe(200);
        const stale = await post(url, { ...filled(page), ...FORM });
        expect(stale.status).toBe(409);
        const again = await stale.text();
        expect(again).toContain('The total is now');
        expect(shownTotal(again)).not.toBe(shownTotal(page));
        expect(
          await count('SELECT count(*)::int AS n FROM orders WHERE checkout_id = $1', [checkoutId]),
        ).toBe(0);

        const placed = await post(url, filled(again));
        expect(placed.status).toBe(200);
        expect(await placed.text()).toContain('has been placed');
        expect(await orderTotal(checkoutId)).toBe(shownTotal(again));
      } finally {
        await owner('PATCH', `/stores/v1/products/${product}`, {
          product: { priceData: { price: before.body.product.priceData.price } },
        });
      }
    });

    it('the unchanged page places the order at once, and only once when sent twice', async () => {
      const { checkoutId, url } = await checkout('linen-tea-towels');
      const page = await (await fetch(url)).text();
      const answers = await Promise.all([post(url, filled(page)), post(url, filled(page))]);
      expect(answers.map((a) => a.status)).toEqual([200, 200]);
      expect(await count('SELECT count(*)::int AS n FROM orders WHERE checkout_id = $1', [checkoutId])).toBe(
        1,
      );
      expect(await orderTotal(checkoutId)).toBe(shownTotal(page));
    });
  });

  it('follows a callback URL on its own origin only when it is well formed: no 500 after the order, no odd redirect', async () => {
    for (const tail of ['/thanks\r\nSet-Cookie: a=b', '/\\evil.example', '/th\tanks', '/a/../thanks']) {
      const { checkoutId, url } = await checkout('linen-tea-towels', {
        postFlowUrl: emu.url + tail,
        cartPageUrl: emu.url + tail,
      });
      const page = await fetch(url);
      const html = await page.text();
      expect(page.status, JSON.stringify(tail)).toBe(200);
      expect(html, JSON.stringify(tail)).not.toContain('Back to cart');
      expect(page.headers.get('content-security-policy')).toContain(
        "; form-action 'self'; frame-ancestors 'none'",
      );
      const placed = await post(url, filled(html));
      expect(placed.status, JSON.stringify(tail)).toBe(200);
      expect(placed.headers.get('location')).toBeNull();
      expect(await placed.text()).toContain('has been placed');
      expect(await count('SELECT count(*)::int AS n FROM orders WHERE checkout_id = $1', [checkoutId])).toBe(
        1,
      );
    }
    // A well-formed URL on the emulator itself is still followed.
    const { url } = await checkout('linen-tea-towels', { postFlowUrl: `${emu.url}/thanks?x=1` });
    const placed = await post(url, filled(await (await fetch(url)).text()));
    expect(placed.status).toBe(303);
    expect(placed.headers.get('location')).toBe(`${emu.url}/thanks?x=1`);
  });

  describe('the login and reset forms refuse cross-site posts, as the other hosted forms do', () => {
    async function loginSession() {
      const page = await fetch(authorizeUrl(emu, `${SHOP}/callback`, { response_mode: 'query' }));
      expect(page.status).toBe(200);
      return formFields(await page.text()).redirect_session_id!;
    }

    it('a cross-site sign-up or login on the hosted login page does nothing', async () => {
      const session = await loginSession();
      const members = 'SELECT count(*)::int AS n FROM members';
      const before = await count(members);
      const crossSite: Array<Record<string, string>> = [
        { 'sec-fetch-site': 'cross-site' },
        { origin: 'https://evil.example' },
      ];
      for (const headers of crossSite) {
        const res = await post(
          `${emu.url}/oauth2/authorize/submit`,
          {
            redirect_session_id: session,
            action: 'register',
            email: 'csrf@example.com',
            password: 'long enough pw',
          },
          headers,
        );
        expect(res.status).toBe(403);
        expect(res.headers.get('location')).toBeNull();
        expect(await res.text()).toContain('only be sent from its own page');
      }
      expect(await count(members)).toBe(before);
      // The page's own post still signs up.
      const own = await post(
        `${emu.url}/oauth2/authorize/submit`,
        {
          redirect_session_id: session,
          action: 'register',
          email: 'own@example.com',
          password: 'long enough pw',
        },
        { 'sec-fetch-site': 'same-origin' },
      );
      expect(own.status).toBe(302);
      expect(own.headers.get('location')).toMatch(/^http:\/\/localhost:5173\/callback\?code=/);
      expect(await count(members)).toBe(before + 1);
    });

    it('a cross-site post to the reset form is refused before the token is looked at', async () => {
      const res = await post(
        `${emu.url}/reset-password`,
        { token: 'whatever', password: 'long enough pw' },
        { 'sec-fetch-site': 'cross-site' },
      );
      expect(res.status).toBe(403);
      expect(await res.text()).toContain('only be sent from its own page');
    });
  });

  describe('GraphQL limits count spreads that select nothing', () => {
    const gql = async (query: string) => {
      const res = await call('POST', '/graphql/alpha', { query }, { authorization: await visitorToken(emu) });
      expect(res.status).toBe(200);
      return res.body as { errors?: Array<{ extensions: { code: string } }>; data?: unknown };
    };
    /** F0 spreads F1 twice, F1 spreads F2 twice, …: 2^n spreads of the last fragment. */
    const doubling = (n: number, last: string) =>
      [
        'query { ...F0 }',
        ...Array.from({ length: n }, (_, i) => `fragment F${i} on Query { ...F${i + 1} ...F${i + 1} }`),
        `fragment F${n} on Query { ${last} }`,
      ].join('\n');

    it('a doubling chain ending in an unknown fragment is refused as too complex', async () => {
      const r = await gql(doubling(20, '...Nowhere'));
      expect(r.errors?.map((e) => e.extensions.code)).toEqual(['QUERY_TOO_COMPLEX']);
    });

    it('a doubling chain ending in a cycle is refused as too complex', async () => {
      const r = await gql(doubling(20, '...F0'));
      expect(r.errors?.map((e) => e.extensions.code)).toEqual(['QUERY_TOO_COMPLEX']);
    });

    it('a long doubling chain answers at once', async () => {
      const started = Date.now();
      const r = await gql(doubling(120, '...Nowhere'));
      expect(r.errors?.map((e) => e.extensions.code)).toEqual(['QUERY_TOO_COMPLEX']);
      expect(Date.now() - started).toBeLessThan(5000);
    });
  });
});
