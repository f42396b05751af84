/**
 * The SDK against answers no platform should send, drawn at random: any status, bodies of any JSON
 * (the expected envelope with wrong types at any place in it, other JSON, cut-off or not JSON at
 * all), odd `Retry-After` and `Content-Type` headers, token endpoints answering the same way. Every
 * call of the storefront's modules settles: it resolves, or it rejects with a `ShopkitError` (the
 * one class callers are told to catch), never a bare `TypeError` from inside the SDK, and never with
 * a token or password in what it says.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type AnyClient,
  cart,
  collections,
  createClient,
  identity,
  OAuthStrategy,
  products,
  redirects,
  ShopkitError,
  STORES_APP_ID,
  TokenRole,
} from '../src/index.ts';

const RUNS = process.env.SHOPKIT_LONG ? 5000 : 500;

const ACCESS = 'OauthNG.JWS.access-secret-1f9a';
const REFRESH = 'refresh-secret-77c2';
const PASSWORD = 'password-secret-0b3e';
const SECRETS = [ACCESS, REFRESH, PASSWORD];

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** What each call's answer should look like: the start of the hostile bodies. */
const CALLS: { name: string; ok: Json; run: (c: AnyClient) => Promise<unknown> }[] = [
  {
    name: 'getCurrentCart',
    ok: { cart: { id: 'c', lineItems: [{ id: 'l', quantity: 1, image: { id: 'i', width: 1 } }] } },
    run: (c) => cart.getCurrentCart(c),
  },
  {
    name: 'addToCurrentCart',
    ok: { cart: { id: 'c', createdDate: '2026-01-01T00:00:00.000Z', lineItems: [] } },
    run: (c) =>
      cart.addToCurrentCart(c, {
        lineItems: [{ quantity: 1, catalogReference: { appId: STORES_APP_ID, catalogItemId: 'p' } }],
      }),
  },
  {
    name: 'updateCurrentCartLineItemQuantity',
    ok: { cart: { id: 'c', lineItems: [{ id: 'l', quantity: 2 }] } },
    run: (c) => cart.updateCurrentCartLineItemQuantity(c, [{ id: 'l', quantity: 2 }]),
  },
  {
    name: 'estimateCurrentCartTotals',
    ok: { cart: { id: 'c' }, priceSummary: { total: { amount: '1' } }, appliedDiscounts: [] },
    run: (c) => cart.estimateCurrentCartTotals(c),
  },
  {
    name: 'createCheckoutFromCurrentCart',
    ok: { checkoutId: 'k' },
    run: (c) => cart.createCheckoutFromCurrentCart(c, { channelType: 'WEB' }),
  },
  {
    name: 'queryProducts (a page)',
    ok: {
      products: [{ id: 'p', lastUpdated: '2026-01-01T00:00:00.000Z', media: { items: [] } }],
      metadata: { count: 1, offset: 0, total: 3 },
      totalResults: 3,
    },
    run: async (c) => {
      const page = await products.queryProducts(c).limit(1).find();
      if (page.hasNext()) await page.next();
      return page;
    },
  },
  {
    name: 'getProduct',
    ok: { product: { id: 'p', price: { price: 1 }, variants: [{ id: 'v', variant: { priceData: {} } }] } },
    run: (c) => products.getProduct(c, 'p'),
  },
  {
    name: 'queryCollections',
    ok: { collections: [{ id: 'x', lastUpdated: '2026-01-01T00:00:00.000Z' }], metadata: { total: 1 } },
    run: (c) => collections.queryCollections(c).find(),
  },
  {
    name: 'getCollectionBySlug',
    ok: { collection: { id: 'x', slug: 's' } },
    run: (c) => collections.getCollectionBySlug(c, 's'),
  },
  {
    name: 'login',
    ok: { state: 'SUCCESS', sessionToken: 'session-secret', identity: { id: 'm' } },
    run: (c) => identity.login(c, { email: 'a@example.com', password: PASSWORD }),
  },
  {
    name: 'register',
    ok: { state: 'REQUIRE_EMAIL_VERIFICATION', stateToken: 'st', identity: { id: 'm' } },
    run: (c) => identity.register(c, { email: 'a@example.com', password: PASSWORD }),
  },
  {
    name: 'createRedirectSession',
    ok: { redirectSession: { id: 'r', fullUrl: 'https://shop.test/r' } },
    run: (c) => redirects.createRedirectSession(c, { ecomCheckout: { checkoutId: 'k' } }),
  },
];

/** Every place in `v`, the root being `[]`. */
function places(v: Json, at: (string | number)[] = [], out: (string | number)[][] = []) {
  out.push(at);
  if (Array.isArray(v)) for (const [i, x] of v.entries()) places(x, [...at, i], out);
  else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) places(x, [...at, k], out);
  return out;
}

/** `v` with `value` at `path`. */
function put(v: Json, path: (string | number)[], value: Json): Json {
  if (!path.length) return value;
  const [k, ...rest] = path;
  const copy: any = Array.isArray(v) ? [...v] : { ...(v as object) };
  copy[k!] = put(copy[k!] ?? null, rest, value);
  return copy;
}

const odd: fc.Arbitrary<Json> = fc.oneof(
  fc.constantFrom<Json>(null, '', 'x', 0, -1, 1e308, true, [], {}, [null], 'NaN', '2026-13-45', { $date: 1 }),
  fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<Json>,
);

/** An answer: status, headers and a body made from the expected one. */
const answer = (ok: Json) =>
  fc.record({
    status: fc.oneof(
      fc.constantFrom(200, 200, 200, 201, 204, 400, 401, 403, 404, 409, 429, 500, 503),
      fc.integer({ min: 200, max: 599 }),
    ),
    body: fc.oneof(
      fc.tuple(fc.nat(), fc.array(odd, { minLength: 1, maxLength: 3 })).map(([at, values]) => {
        const all = places(ok);
        return JSON.stringify(values.reduce((b, v, i) => put(b, all[(at + i * 7) % all.length]!, v), ok));
      }),
      odd.map((v) => JSON.stringify(v)),
      fc.constantFrom(
        '',
        '{"cart":',
        '<html>Bad gateway</html>',
        '{"message":1,"details":{"validationError":{"fieldViolations":"x"}}}',
        '{"message":"m","details":{"applicationError":null}}',
        `{"message":"echo ${ACCESS}"}`,
      ),
    ),
    retryAfter: fc.constantFrom(undefined, '0', '-5', 'soon', '1', 'Wed, 21 Oct 2015 07:28:00 GMT', '1e9'),
    type: fc.constantFrom('application/json', 'text/html', undefined),
  });

const TOKEN_OK: Json = { access_token: ACCESS, refresh_token: REFRESH, expires_in: 14_400 };

describe('the SDK against hostile answers', () => {
  it.each(CALLS.map((c) => [c.name, c] as const))(
    '%s settles with a value or a ShopkitError that names no secret',
    async (_, call) => {
      await fc.assert(
        fc.asyncProperty(answer(call.ok), answer(TOKEN_OK), fc.boolean(), async (api, token, member) => {
          const send = (a: typeof api) =>
            new Response(a.status === 204 ? null : a.body, {
              status: a.status,
              headers: {
                ...(a.type ? { 'content-type': a.type } : {}),
                ...(a.retryAfter ? { 'retry-after': a.retryAfter } : {}),
              },
            });
          const f: typeof fetch = async (input) =>
            send(new URL(String(input)).pathname === '/oauth2/token' ? token : api);
          const client = createClient({
            baseUrl: 'https://api.shop.test',
            fetch: f,
            retry: { attempts: 2, baseDelayMs: 0, maxDelayMs: 1 },
            auth: OAuthStrategy({
              clientId: 'hostile',
              // Half the runs start with a member's expired token: the first call refreshes.
              tokens: member
                ? {
                    accessToken: { value: ACCESS, expiresAt: 0 },
                    refreshToken: { value: REFRESH, role: TokenRole.MEMBER },
                  }
                : undefined,
            }),
          });
          let error: unknown;
          await call.run(client).catch((e: unknown) => {
            error = e;
          });
          if (error === undefined) return;
          const said = `${call.name} ← ${api.status} ${api.body.slice(0, 120)} (token ${token.status} ${token.body.slice(0, 60)}): ${String(error)}`;
          expect(error, said).toBeInstanceOf(ShopkitError);
          const text = `${String(error)} ${JSON.stringify(error)} ${(error as Error).stack}`;
          for (const s of SECRETS) expect(text.includes(s), `${said}: names a secret`).toBe(false);
        }),
        { numRuns: RUNS },
      );
    },
  );
});
