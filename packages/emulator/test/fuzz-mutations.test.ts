/**
 * Mutation fuzzing: the requests of a whole storefront and merchant session (a single sign-on, an
 * installed app at work and its webhook subscription included), made by the SDK and recorded as
 * they went over the wire, replayed with one to three changes each (a value replaced by a hostile
 * or random one, a key dropped or added, an array emptied or repeated, an id in the path replaced,
 * another caller's credentials). Unlike random bodies (fuzz.test.ts), most of these get past the
 * first validation and reach the handlers, their SQL and their side effects. Every answer is below
 * 500; every API 4xx is a well-formed platform envelope; every 2xx is JSON; a rejected request
 * leaves the database unchanged. `npm run test:long` (SHOPKIT_LONG=1) runs ten times as many cases. The hosted checkout's and login page's forms get the same changes, each run on a new
 * checkout or authorization request.
 */
import {
  ApiKeyStrategy,
  AppStrategy,
  cart,
  collections,
  createClient,
  exchangeAppInstallCode,
  graphql,
  identity,
  OAuthStrategy,
  products,
  redirects,
} from '@shopkit/sdk';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STORES_APP_ID } from '../src/domains/catalog/lookup.ts';
import { demoProductId } from '../src/domains/catalog/seed.ts';
import {
  type Backend,
  CHECKOUT_FORM,
  loginOnHostedPage,
  startTestEmulator,
  type TestEmulator,
  testBackends,
} from '../src/testing.ts';
import {
  authorizeUrl,
  checkoutSession,
  expectEnvelope,
  fingerprintQuery,
  formFields,
  installedApp,
  jsonCalls,
} from './http.ts';

const SHOP = 'http://shop.test:5173';
const RUNS = process.env.SHOPKIT_LONG ? 10_000 : 1000;

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** One request as the SDK sent it, and who sent it. */
interface Recorded {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: Record<string, string>;
  body?: Json;
  who: string;
}

/** Values that break handlers more often than random ones do. */
const HOSTILE: Json[] = [
  null,
  '',
  ' ',
  0,
  -1,
  1.5,
  -0.01,
  1e308,
  -1e308,
  2 ** 53 + 1,
  99999999999,
  'NaN',
  'Infinity',
  '-Infinity',
  true,
  false,
  [],
  {},
  [null],
  ['a'],
  [{}],
  'x'.repeat(10_000),
  '\u0000',
  'a\u0000b',
  '\ud800',
  '💥',
  '../..',
  "x' OR '1'='1",
  { $ne: null },
  { $gt: '' },
  '2026-02-30T25:61:00Z',
  '00000000-0000-0000-0000-000000000000',
  'col-all-products',
  demoProductId('dinner-plate'),
  '<script>alert(1)</script>',
];

/** Every place in `v` a mutation can land: a path of keys and indexes, the root being `[]`. */
function places(v: Json, at: (string | number)[] = [], out: (string | number)[][] = []) {
  out.push(at);
  if (Array.isArray(v)) for (const [i, x] of v.entries()) places(x, [...at, i], out);
  else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) places(x, [...at, k], out);
  return out;
}

/** `v` with the value at `path` given by `change` (which answers `undefined` to drop it). */
function edit(v: Json, path: (string | number)[], change: (old: Json) => Json | undefined): Json | undefined {
  if (!path.length) return change(v);
  const [k, ...rest] = path;
  if (Array.isArray(v)) {
    const copy = [...v];
    const next = edit(copy[k as number] ?? null, rest, change);
    if (next === undefined) copy.splice(k as number, 1);
    else copy[k as number] = next;
    return copy;
  }
  const copy = { ...(v as Record<string, Json>) };
  const next = edit(copy[k as string] ?? null, rest, change);
  if (next === undefined) delete copy[k as string];
  else copy[k as string] = next;
  return copy;
}

/** A change to a JSON value, drawn by fast-check and applied deterministically (so it shrinks). */
type Mutation = { place: number; kind: number; value: Json; key: string; text: string; number: number };

const mutation = fc.record({
  place: fc.nat(),
  kind: fc.nat(9),
  value: fc.oneof(fc.constantFrom(...HOSTILE), fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<Json>),
  key: fc.constantFrom('id', 'name', 'quantity', 'filter', 'paging', 'options', 'extra', '$or', '__proto__'),
  text: fc.oneof(
    fc.constantFrom(...HOSTILE.filter((v): v is string => typeof v === 'string')),
    fc.string({ maxLength: 20 }),
    fc.string({ unit: 'binary', maxLength: 8 }),
  ),
  number: fc.oneof(
    fc.constantFrom(...HOSTILE.filter((v): v is number => typeof v === 'number'), 2, 3, 100, 1000, 10_001),
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
  ),
});

function mutate(v: Json, m: Mutation): Json {
  // The whole body only gains a key: a body that is not an object at all is refused first thing.
  const all = places(v).filter((p) => p.length || m.kind === 1);
  if (!all.length) return v;
  const path = all[m.place % all.length]!;
  const changed = edit(v, path, (x) => {
    switch (m.kind) {
      case 0:
        return path.length ? undefined : m.value; // drop the key or element
      case 1: // add a key to an object, an element to an array
        if (Array.isArray(x)) return [...x, m.value];
        if (x && typeof x === 'object') return { ...x, [m.key]: m.value };
        return m.value;
      case 2: // an array emptied, or a value put in one
        return Array.isArray(x) ? [] : [x];
      case 3: // an array repeated many times over
        return Array.isArray(x) && x.length
          ? Array.from({ length: 200 }, (_, i) => x[i % x.length]!)
          : m.value;
      case 4: // a string or number of another type
        return typeof x === 'string' ? Number(x) || x.length : typeof x === 'number' ? String(x) : m.value;
      case 5:
      case 6:
      case 7: // another value of the same type: what gets past a schema to the handler
        if (typeof x === 'string') return m.text;
        if (typeof x === 'number') return m.number;
        if (typeof x === 'boolean') return !x;
        if (Array.isArray(x) && x.length) return [x[x.length - 1]!, ...x.slice(0, -1), ...x];
        return m.value;
      default:
        return m.value;
    }
  });
  return changed === undefined ? v : changed;
}

/** A path segment for `s`; one with a lone surrogate goes as the bytes of invalid UTF-8 for one. */
const pathSegment = (s: string) => {
  try {
    return encodeURIComponent(s);
  } catch {
    return '%ED%A0%80';
  }
};

/**
 * Refusals that write by design, and the tables each may change: a wrong password counts towards
 * locking the address (security checklist 51); an app's install code used twice revokes the
 * tokens it gave (RFC 6749 §4.1.2).
 */
const RECORDS_REFUSAL: Record<string, string[]> = {
  '/_api/iam/authentication/v2/login': ['login_throttles'],
  '/oauth/access': ['app_refresh_tokens', 'access_tokens'],
};
const without = (row: Record<string, unknown>, tables: string[] = []) =>
  Object.fromEntries(Object.entries(row).filter(([k]) => !tables.includes(k)));

/** A form from a JSON object: arrays as repeated fields, other values but strings as JSON. */
function formOf(v: Json) {
  const form = new URLSearchParams();
  const entries =
    v && typeof v === 'object' && !Array.isArray(v) ? Object.entries(v) : [['value', v] as const];
  for (const [k, x] of entries)
    for (const one of Array.isArray(x) ? x : [x])
      form.append(k, typeof one === 'string' ? one : JSON.stringify(one));
  return form.toString();
}

const toR = (v: Json) => Buffer.from(JSON.stringify(v)).toString('base64url');
const fromR = (s: string): Json => JSON.parse(Buffer.from(s, 'base64url').toString());

describe.each(testBackends())('mutation fuzzing of a recorded session (%s)', (backend: Backend) => {
  let emu: TestEmulator;
  let fingerprint: string;
  const corpus: Recorded[] = [];
  const credentials: Record<string, string> = {};
  let memberEmail = '';
  /** Calls the setup and properties make as the merchant, outside the recorded corpus. */
  const { owner } = jsonCalls(() => emu);

  beforeAll(async () => {
    // The webhook worker sleeps through the run (it polls once, at the start): between a request and
    // the storage check after it, a delivery it queued or attempted would read as the request's write.
    emu = await startTestEmulator(backend, {
      allowedOrigins: [SHOP],
      config: { webhookPollMs: 2 ** 31 - 1 },
    });
    fingerprint = await fingerprintQuery(emu);
    /** A fetch that keeps every request it sent that the emulator took (status below 400). */
    const recording =
      (who: string): typeof fetch =>
      async (input, init = {}) => {
        const res = await fetch(input, init);
        const url = new URL(String(input));
        const headers = Object.fromEntries(new Headers(init.headers).entries());
        if (headers.authorization) credentials[who] = headers.authorization;
        if (res.status < 400 && url.pathname !== '/oauth2/token')
          corpus.push({
            method: init.method ?? 'GET',
            path: url.pathname,
            query: url.searchParams,
            headers,
            body: typeof init.body === 'string' ? JSON.parse(init.body) : undefined,
            who,
          });
        return res;
      };
    const modules = { cart, collections, identity, products, redirects };
    const visitor = createClient({
      baseUrl: emu.url,
      fetch: recording('visitor'),
      auth: OAuthStrategy({ clientId: emu.demo.clientId }),
      modules,
    });
    const shopper = createClient({
      baseUrl: emu.url,
      fetch: recording('member'),
      auth: OAuthStrategy({ clientId: emu.demo.clientId }),
      modules,
    });
    const merchant = createClient({
      baseUrl: emu.url,
      fetch: recording('merchant'),
      auth: ApiKeyStrategy({ apiKey: emu.demo.apiKey }),
      modules,
    });

    // The storefront: browse, fill a cart, estimate, check out, go to the hosted checkout.
    await visitor.products.queryProducts().hasSome('collectionIds', ['col-all-products']).limit(5).find();
    await visitor.products.queryProducts({
      filter: { price: { $gt: 5 }, name: { $startsWith: 'L' } },
      sort: [{ fieldName: 'price', order: 'DESC' }],
      paging: { limit: 3, offset: 1 },
    });
    const plate = demoProductId('dinner-plate');
    await visitor.products.getProduct(plate);
    const shirt = demoProductId('linen-shirt');
    const { product: shirtProduct } = await visitor.products.getProduct(shirt);
    await visitor.products.getProductOptionsAvailability(
      shirt,
      Object.fromEntries(
        (shirtProduct.productOptions ?? []).map((o) => [o.name!, o.choices![0]!.description!]),
      ),
    );
    await visitor.products.queryProductVariants(shirt, { paging: { limit: 2 } });
    await visitor.collections.queryCollections().limit(3).find();
    await visitor.collections.getCollectionBySlug('kitchen');
    const catalogReference = { appId: STORES_APP_ID, catalogItemId: plate };
    const added = await visitor.cart.addToCurrentCart({ lineItems: [{ quantity: 2, catalogReference }] });
    const line = added.cart!.lineItems![0]!.id!;
    await visitor.cart.updateCurrentCartLineItemQuantity([{ id: line, quantity: 3 }]);
    await visitor.cart.updateCurrentCart({ cartInfo: { buyerNote: 'Ring twice' } });
    await visitor.cart.estimateCurrentCartTotals({
      shippingAddress: { country: 'US', subdivision: 'US-NY', city: 'New York', postalCode: '10001' },
    });
    await visitor.cart.getCurrentCart();
    const { checkoutId } = await visitor.cart.createCheckoutFromCurrentCart({ channelType: 'WEB' });
    await visitor.redirects.createRedirectSession({
      ecomCheckout: { checkoutId: checkoutId! },
      callbacks: { postFlowUrl: 'https://shop.example/thanks' },
    });
    await graphql(
      visitor,
      'query ($f: JSON, $p: Paging) { products(filter: $f, paging: $p) { products { id name } } }',
      { f: { price: { $lt: 100 } }, p: { limit: 2 } },
    );
    await graphql(
      visitor,
      'mutation ($l: [LineItemInput!]!) { addToCurrentCart(lineItems: $l) { lineItems { id quantity } } }',
      { l: [{ quantity: 1, catalogReference }] },
    );
    const second = (await visitor.cart.getCurrentCart()).lineItems!.map((l) => l.id!);
    await visitor.cart.removeLineItemsFromCurrentCart(second.slice(-1));

    // A member: registers, logs in through the hosted page, keeps a cart, asks for a reset.
    const password = 'long enough pw';
    /** Registers `email` with `client` and logs it in through the hosted page's code flow. */
    const member = async (client: typeof visitor, email: string) => {
      await client.identity.register({ email, password });
      await client.identity.login({ email, password });
      const data = await client.identity.generateOAuthData(`${SHOP}/callback`, `${SHOP}/account`);
      const { authUrl } = await client.identity.getAuthUrl(data, { responseMode: 'query' });
      const { answer } = await loginOnHostedPage(authUrl, { email, password });
      const back = client.identity.parseFromUrl(answer.headers.get('location')!, 'query');
      client.auth.setTokens(await client.identity.getMemberTokens(back.code!, back.state!, data));
      return client;
    };
    const email = `fuzz-${Date.now()}@example.com`;
    memberEmail = email;
    await member(shopper, email);
    await shopper.cart.addToCurrentCart({ lineItems: [{ quantity: 1, catalogReference }] });
    await shopper.cart.updateCurrentCart({ couponCode: 'SAVE10' }).catch(() => {});
    await shopper.cart.removeCouponFromCurrentCart().catch(() => {});
    await shopper.identity.sendPasswordResetEmail(email);
    await shopper.identity.sendActivationEmail(email);
    const send = async (who: string, method: string, path: string, body?: object) => {
      // `trusted`: a storefront's server, acting for its visitor with the API key (`<token>,<key>`).
      const auth =
        who === 'merchant'
          ? emu.demo.apiKey
          : who === 'trusted'
            ? `${credentials.visitor},${emu.demo.apiKey}`
            : credentials[who];
      const res = await recording(who)(`${emu.url}${path}`, {
        method,
        headers: { authorization: auth!, ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body && JSON.stringify(body),
      });
      // The corpus is of requests the emulator took: one it refused here is a mistake in this setup.
      if (res.status >= 400)
        throw new Error(`${method} ${path} as ${who}: ${res.status} ${await res.text()}`);
      return res.json();
    };
    await send('member', 'GET', '/oauth2/user-info');
    await send('member', 'POST', '/oauth2/token-info', { token: credentials.member });
    await send('visitor', 'POST', '/_api/iam/authentication/v2/validate-email', { email });
    const { sub: identityId } = await (
      await fetch(`${emu.url}/oauth2/user-info`, { headers: { authorization: credentials.member! } })
    ).json();
    await send('merchant', 'POST', '/_api/iam/verification/v1/start', { identityId });
    await send('merchant', 'POST', '/_api/emulator/v1/settings', { anonymousTokensPerMinute: 300 });
    await send('merchant', 'GET', '/_api/emulator/v1/settings');
    await send('merchant', 'POST', '/_api/emulator/v1/idp-connections', { name: 'Fuzz ID' });
    await send('merchant', 'POST', '/_api/emulator/v1/apps', { name: 'Fuzz app', redirectUrls: [SHOP] });
    await send('merchant', 'POST', '/_api/emulator/v1/oauth-clients', {
      name: 'Fuzz shop',
      allowedOrigins: [SHOP],
    });
    await send('merchant', 'POST', '/_api/emulator/v1/webhooks/subscriptions', {
      url: 'https://hooks.example/fuzz',
      eventTypes: ['com.wix.ecommerce.catalog.api.v1.ProductCreated'],
    });
    await send('merchant', 'GET', '/_api/emulator/v1/webhooks/subscriptions');
    await send('merchant', 'GET', '/_api/emulator/v1/webhooks/deliveries');
    await send('merchant', 'GET', `/_api/emulator/v1/mailbox?to=${encodeURIComponent(email)}`);
    await send('trusted', 'POST', '/_api/iam/authentication/v2/sign-on', {
      loginId: { email: `sso-${email}` },
    });
    // Single sign-on: the provider's token for a person, exchanged by the storefront for a session.
    const idp = await owner('POST', '/_api/emulator/v1/idp-connections', { name: 'Fuzz SSO' });
    expect(idp.status).toBe(200);
    const idpId = idp.body.idpConnection.id as string;
    await send('merchant', 'GET', '/_api/emulator/v1/idp-connections');
    for (let i = 0; i < 2; i++) {
      // Twice: the second sign-on is of a member who is there already.
      const minted = await owner('POST', `/_api/emulator/v1/idp-connections/${idpId}/id-tokens`, {
        email: `idp-${email}`,
        name: 'Ida Pe',
      });
      expect(minted.status).toBe(200);
      const signed = await visitor.identity.loginWithTokenParams(idpId, { id_token: minted.body.idToken });
      expect(signed.loginState).toBe('SUCCESS');
    }
    await send('merchant', 'POST', `/_api/emulator/v1/idp-connections/${idpId}/id-tokens`, {
      email: `idp-${email}`,
    });
    // An app: installed by the owner, its code and refresh token exchanged, then at work with its token.
    // The code exchange is recorded from an installation of its own: its code replayed (used twice)
    // revokes what the code gave, and the app's calls go on with the other's tokens.
    const first = await installedApp(emu, SHOP);
    await exchangeAppInstallCode(createClient({ baseUrl: emu.url, fetch: recording('app') }), {
      appId: first.appId,
      appSecret: first.appSecret,
      code: first.code,
    });
    const app = await installedApp(emu, SHOP);
    const { refreshToken } = await exchangeAppInstallCode(createClient({ baseUrl: emu.url }), {
      appId: app.appId,
      appSecret: app.appSecret,
      code: app.code,
    });
    const installed = createClient({
      baseUrl: emu.url,
      fetch: recording('app'),
      auth: AppStrategy({ appId: app.appId, appSecret: app.appSecret, refreshToken }),
      modules,
    });
    await installed.products.queryProducts().limit(2).find();
    await installed.products.updateProduct(demoProductId('dinner-plate'), { ribbon: 'Installed' });
    // Its webhook subscription, whose failed deliveries are sent again, and then dropped.
    await send('app', 'POST', '/_api/emulator/v1/webhooks/subscriptions', {
      url: 'https://hooks.example/app',
      eventTypes: ['com.wix.ecommerce.catalog.api.v1.ProductChanged'],
    });
    const { subscriptions } = await send('app', 'GET', '/_api/emulator/v1/webhooks/subscriptions');
    const hook = subscriptions[0].id;
    await send('app', 'GET', `/_api/emulator/v1/webhooks/deliveries?subscriptionId=${hook}&state=DEAD`);
    await send('app', 'POST', '/_api/emulator/v1/webhooks/deliveries/redeliver', { subscriptionId: hook });
    await send('merchant', 'POST', '/_api/emulator/v1/webhooks/deliveries/redeliver', {
      subscriptionId: hook,
    });
    await send('app', 'DELETE', `/_api/emulator/v1/webhooks/subscriptions/${hook}`);
    // A second member changes the password: replayed, that ends its logins, not the first one's.
    const changer = createClient({
      baseUrl: emu.url,
      fetch: recording('changer'),
      auth: OAuthStrategy({ clientId: emu.demo.clientId }),
      modules,
    });
    await member(changer, `changer-${email}`);
    credentials.changer = (await changer.auth.getTokens()).accessToken.value;
    await send('changer', 'POST', '/_api/iam/authentication/v2/change-password', {
      newPassword: 'another long pw',
    });

    // The merchant: products, variants, media, collections, bulk edits.
    const { product } = await merchant.products.createProduct({
      name: 'Fuzz Jacket',
      productType: 'physical',
      priceData: { price: 20 },
      stock: { trackInventory: true, quantity: 4 },
      productOptions: [{ name: 'Size', choices: [{ description: 'M' }, { description: 'L' }] }],
    });
    await merchant.products.updateProduct(product.id!, { description: 'Waxed.', ribbon: 'New' });
    await merchant.products.updateProductVariants(product.id!, [{ choices: { Size: 'M' }, price: 15 }]);
    await merchant.products.addProductMedia(product.id!, [{ url: 'https://static.example/a.jpg' }]);
    const media = (await merchant.products.getProduct(product.id!)).product.media?.items ?? [];
    await merchant.products.addProductMediaToChoices(product.id!, [
      { option: 'Size', choice: 'M', mediaIds: media.map((m) => m.id!) },
    ]);
    await merchant.products.removeProductMediaFromChoices(product.id!, [
      { option: 'Size', choice: 'M', mediaIds: media.map((m) => m.id!) },
    ]);
    await merchant.products.updateProduct(product.id!, { brand: 'Fuzzco' });
    await merchant.products.removeBrand(product.id!);
    await merchant.products.removeProductMedia(
      product.id!,
      media.map((m) => m.id!),
    );
    const { collection } = await merchant.products.createCollection({ name: 'Fuzz Picks' });
    await merchant.products.addProductsToCollection(collection.id!, [product.id!]);
    await merchant.products.updateCollection(collection.id!, { description: 'Picked.' });
    await merchant.products.bulkUpdateProductsProperty([product.id!], { price: 25 });
    await merchant.products.bulkAdjustProductProperty({ price: { amount: 2 } }, [product.id!]);
    await merchant.products.queryStoreVariants({ paging: { limit: 2 } });
    await merchant.products.removeRibbon(product.id!);
    await merchant.products.removeProductsFromCollection(collection.id!, [product.id!]);
    await merchant.products.deleteProductOptions(product.id!);
    await merchant.products.resetAllProductVariantData(product.id!);
    const spare = await merchant.products.createProduct({
      name: 'Fuzz Spare',
      productType: 'digital',
      priceData: { price: 3 },
    });
    await merchant.products.deleteProduct(spare.product.id!);
    const { collection: spareCollection } = await merchant.products.createCollection({ name: 'Fuzz Spare' });
    await merchant.products.deleteCollection(spareCollection.id!);
    await visitor.cart.deleteCurrentCart();
  }, 120_000);
  afterAll(() => emu?.stop());

  it('recorded a session that touches every kind of route', () => {
    const kinds = new Set(corpus.map((r) => r.path.split('/')[1]));
    expect([...kinds].sort()).toEqual([
      '_api',
      'ecom',
      'graphql',
      'oauth',
      'oauth2',
      'stores',
      'stores-reader',
      'v2',
    ]);
    expect(corpus.length).toBeGreaterThan(60);
    expect(corpus.filter((r) => r.who === 'member').length).toBeGreaterThan(5);
    expect(Object.keys(credentials).sort()).toEqual([
      'app',
      'changer',
      'member',
      'merchant',
      'trusted',
      'visitor',
    ]);
    expect(corpus.map((r) => r.path)).toEqual(
      expect.arrayContaining([
        '/_api/iam/authentication/v2/change-password',
        '/_api/iam/verification/v1/start',
        '/oauth2/user-info',
        '/_api/iam/authentication/v1/sso/login-with-token-params',
        '/oauth/access',
        '/_api/emulator/v1/webhooks/deliveries/redeliver',
      ]),
    );
    // Each SSO sign-on, app grant and redelivery was taken (the recording keeps only those).
    expect(
      corpus.filter((r) => r.path === '/_api/iam/authentication/v1/sso/login-with-token-params'),
    ).toHaveLength(2);
    expect(corpus.filter((r) => r.path === '/oauth/access')).toHaveLength(2);
    expect(corpus.filter((r) => r.path.endsWith('/redeliver')).map((r) => r.who)).toEqual([
      'app',
      'merchant',
    ]);
    expect(corpus.filter((r) => r.who === 'app').map((r) => `${r.method} ${r.path}`)).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^PATCH \/stores\/v1\/products\//),
        expect.stringMatching(/^DELETE \/_api\/emulator\/v1\/webhooks\/subscriptions\/[^/]+$/),
      ]),
    );
  });

  it('answers changed requests with <500, the envelope on 4xx, JSON on 2xx, and no change when rejected', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.nat(),
        fc.array(mutation, { minLength: 1, maxLength: 3 }),
        fc.nat(5),
        fc.constantFrom('visitor', 'member', 'merchant', 'app', 'none'),
        async (pick, mutations, where, as) => {
          const r = corpus[pick % corpus.length]!;
          let path = r.path;
          const query = new URLSearchParams(r.query);
          let body = r.body;
          const headers = { ...r.headers };
          // Where the changes land: the body (most often), the `.r` query, a path segment, the caller.
          if (where === 0) {
            const segs = path.split('/');
            const i = 1 + (mutations[0]!.place % (segs.length - 1));
            const v = mutations[0]!.value;
            segs[i] = pathSegment(typeof v === 'string' ? v : JSON.stringify(v));
            path = segs.join('/');
          } else if (where === 1 && query.has('.r')) {
            query.set('.r', toR(mutations.reduce(mutate, fromR(query.get('.r')!))));
          } else if (where === 2) {
            if (as === 'none') delete headers.authorization;
            else headers.authorization = credentials[as]!;
            if (body !== undefined) body = mutations.reduce(mutate, body);
          } else if (body !== undefined) {
            body = mutations.reduce(mutate, body);
          } else {
            const params = Object.fromEntries(query);
            for (const [k, v] of Object.entries(mutations.reduce(mutate, params as Json) ?? {}))
              query.set(k, typeof v === 'string' ? v : JSON.stringify(v));
          }
          const qs = query.toString();
          const [before] = await emu.emu.db.query(fingerprint);
          const res = await fetch(`${emu.url}${path}${qs ? `?${qs}` : ''}`, {
            method: r.method,
            headers,
            body: body === undefined ? undefined : JSON.stringify(body),
          });
          const text = await res.text();
          const said = `${r.method} ${path}?${qs.slice(0, 200)} (${r.who} as ${where === 2 ? as : r.who}) ${JSON.stringify(body)?.slice(0, 300)} → ${res.status}: ${text.slice(0, 300)}`;
          expect(res.status, said).toBeLessThan(500);
          if (res.status < 400) expect(() => JSON.parse(text), `${said}: not JSON`).not.toThrow();
          else {
            expectEnvelope(text, said);
            const [after] = await emu.emu.db.query(fingerprint);
            const tables = RECORDS_REFUSAL[path];
            expect(without(after!, tables), `${said}: storage changed`).toEqual(without(before!, tables));
          }
        },
      ),
      { numRuns: RUNS },
    );
  }, 600_000);

  it('places an order from a changed checkout form once, or refuses it with <500 and nothing written', async () => {
    // The hosted checkout's "Place order" (an HTML form, so no envelope): a new checkout each run,
    // its form posted with one to three changes, from the page itself or from another site (of a
    // product whose stock is not counted, so that the orders placed leave the next run some).
    const orders = async (id: string) =>
      (
        await emu.emu.db.query<{ n: number }>(
          'SELECT count(*)::int AS n FROM orders WHERE checkout_id = $1',
          [id],
        )
      )[0]!.n;
    // A visitor token per run: more than the 300 a minute the emulator gives by default (and the
    // changed requests above may have set any number).
    const settings = await owner('POST', '/_api/emulator/v1/settings', {
      anonymousTokensPerMinute: 1_000_000,
    });
    expect(settings.status).toBe(200);
    await fc.assert(
      fc.asyncProperty(
        fc.array(mutation, { minLength: 1, maxLength: 3 }),
        fc.constantFrom('same-origin', 'same-origin', 'same-origin', 'none', 'cross-site'),
        async (mutations, from) => {
          const { checkoutId, session } = await checkoutSession(emu, { slug: 'linen-tea-towels' });
          const page = await (await fetch(session.fullUrl)).text();
          const body = formOf(mutations.reduce(mutate, { ...formFields(page), ...CHECKOUT_FORM } as Json));
          const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
          if (from === 'same-origin') headers.origin = emu.url;
          if (from === 'cross-site')
            Object.assign(headers, { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' });
          const [before] = await emu.emu.db.query(fingerprint);
          const res = await fetch(session.fullUrl, { method: 'POST', redirect: 'manual', headers, body });
          const said = `${from} ${body.slice(0, 300)} → ${res.status}: ${(await res.text()).slice(0, 300)}`;
          expect(res.status, said).toBeLessThan(500);
          // Placed: the thank-you page (this session has no post-flow URL to send the buyer to).
          const placed = await orders(checkoutId);
          expect(placed, said).toBe(res.status === 200 ? 1 : 0);
          if (!placed) {
            expect(res.status, said).toBeGreaterThanOrEqual(400);
            const [after] = await emu.emu.db.query(fingerprint);
            expect(after, `${said}: storage changed`).toEqual(before);
          }
        },
      ),
      { numRuns: RUNS / 5 },
    );
  }, 600_000);

  it('answers a changed hosted login form below 500, with nothing written when it refuses', async () => {
    // The hosted login page's form (HTML, so no envelope): a new authorization request each run, its
    // form posted with one to three changes. A refused password is counted (RECORDS_REFUSAL).
    await fc.assert(
      fc.asyncProperty(fc.array(mutation, { minLength: 1, maxLength: 3 }), async (mutations) => {
        const page = await (await fetch(authorizeUrl(emu, `${SHOP}/callback`))).text();
        const form = formFields(page);
        expect(form.redirect_session_id, page.slice(0, 300)).toBeTruthy();
        // The page's fields, and the button pressed.
        const fields = { ...form, action: 'login', email: memberEmail, password: 'long enough pw' };
        const body = formOf(mutations.reduce(mutate, fields as Json));
        const [before] = await emu.emu.db.query(fingerprint);
        const res = await fetch(`${emu.url}/oauth2/authorize/submit`, {
          method: 'POST',
          redirect: 'manual',
          headers: { 'content-type': 'application/x-www-form-urlencoded', origin: emu.url },
          body,
        });
        const said = `${body.slice(0, 300)} → ${res.status}: ${(await res.text()).slice(0, 300)}`;
        expect(res.status, said).toBeLessThan(500);
        if (res.status >= 400) {
          const [after] = await emu.emu.db.query(fingerprint);
          expect(without(after!, ['login_throttles']), `${said}: storage changed`).toEqual(
            without(before!, ['login_throttles']),
          );
        }
      }),
      { numRuns: RUNS / 5 },
    );
  }, 600_000);
});
