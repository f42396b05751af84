/**
 * Helpers for emulator tests that speak raw HTTP: JSON calls as any client, as the merchant (the
 * demo API key), a fingerprint of the whole database for "nothing was written" checks, and a
 * poll and a loopback listener for tests with receivers of their own.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'vitest';
import { STORES_APP_ID } from '../src/domains/catalog/lookup.ts';
import { demoProductId } from '../src/domains/catalog/seed.ts';
import type { TestEmulator } from '../src/testing.ts';

/** The password {@link identityCalls} registers and logs in with unless given another. */
export const PASSWORD = 'the right password';

/**
 * Identity calls to `emu`, each as a new anonymous visitor (as the SDK always sends one): register
 * and log in by e-mail, and change the site's identity settings as the merchant (expecting a 200).
 */
export function identityCalls(emu: () => TestEmulator) {
  const { call, owner } = jsonCalls(emu);
  const asVisitor = async () => ({ authorization: await visitorToken(emu()) });
  return {
    settings: async (patch: Record<string, unknown>) =>
      expect((await owner('POST', '/_api/emulator/v1/settings', patch)).status).toBe(200),
    register: async (email: string, password = PASSWORD, extra: object = {}) =>
      call(
        'POST',
        '/_api/iam/authentication/v2/register',
        { loginId: { email }, password, ...extra },
        await asVisitor(),
      ),
    login: async (email: string, password = PASSWORD) =>
      call('POST', '/_api/iam/authentication/v2/login', { loginId: { email }, password }, await asVisitor()),
    /** The code of the newest mail to `email` in the dev mailbox. */
    lastCode: async (email: string) =>
      (await call('GET', `/_api/emulator/v1/mailbox?to=${encodeURIComponent(email)}`)).body.messages[0]
        .code as string,
    /** Posts a hosted login page's form (`fields`, as `formFields` reads them), redirects not followed. */
    submit: (fields: Record<string, string>) =>
      fetch(`${emu().url}/oauth2/authorize/submit`, {
        method: 'POST',
        redirect: 'manual',
        body: new URLSearchParams(fields),
      }),
  };
}

/** JSON calls to `emu`: the status, the parsed body and the headers of each answer. */
export function jsonCalls(emu: () => TestEmulator) {
  const call = async (method: string, path: string, body?: object, headers: Record<string, string> = {}) => {
    const res = await fetch(emu().url + path, {
      method,
      headers: { 'content-type': 'application/json', ...headers },
      body: body && JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as any, headers: res.headers };
  };
  /** The same, as the merchant: the demo API key. */
  const owner = (method: string, path: string, body?: object, headers: Record<string, string> = {}) =>
    call(method, path, body, { authorization: emu().demo.apiKey, ...headers });
  return { call, owner };
}

/** The PKCE S256 challenge of RFC 7636's example verifier. */
export const CHALLENGE = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';

/**
 * A plain authorization request of the demo client for a code sent to `redirectUri` (PKCE, state
 * `st`), `params` over those.
 */
export const authorizeUrl = (emu: TestEmulator, redirectUri: string, params: Record<string, string> = {}) =>
  `${emu.url}/oauth2/authorize?${new URLSearchParams({
    client_id: emu.demo.clientId,
    response_type: 'code',
    redirect_uri: redirectUri,
    state: 'st',
    code_challenge: CHALLENGE,
    code_challenge_method: 'S256',
    ...params,
  })}`;

/**
 * A new visitor's checkout of `quantity` × the demo product `slug` (`checkout` is create-checkout's
 * body), and a redirect session for it with `callbacks`. Fails on any refused step.
 */
export async function checkoutSession(
  emu: TestEmulator,
  {
    slug = 'dinner-plate',
    quantity = 1,
    checkout = { channelType: 'WEB' } as object,
    callbacks = {} as Record<string, string>,
  } = {},
) {
  const { call } = jsonCalls(() => emu);
  const auth = { authorization: await visitorToken(emu) };
  const step = async (path: string, body: object) => {
    const res = await call('POST', path, body, auth);
    if (res.status !== 200) throw new Error(`${path} answered ${res.status}: ${JSON.stringify(res.body)}`);
    return res.body;
  };
  const catalogReference = { appId: STORES_APP_ID, catalogItemId: demoProductId(slug) };
  await step('/ecom/v1/carts/current/add-to-cart', { lineItems: [{ quantity, catalogReference }] });
  const { checkoutId } = await step('/ecom/v1/carts/current/create-checkout', checkout);
  const { redirectSession } = await step('/_api/redirects-api/v1/redirect-session', {
    ecomCheckout: { checkoutId },
    callbacks,
  });
  return {
    auth,
    checkoutId: checkoutId as string,
    session: redirectSession as { id: string; fullUrl: string; shortUrl: string },
  };
}

/** A fresh anonymous visitor's access token. */
export async function visitorToken(emu: TestEmulator): Promise<string> {
  const res = await fetch(`${emu.url}/oauth2/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ clientId: emu.demo.clientId, grantType: 'anonymous' }),
  });
  const body = await res.json();
  if (!body.access_token) throw new Error(`no visitor token: ${res.status} ${JSON.stringify(body)}`);
  return body.access_token;
}

/**
 * A way to register members over HTTP (e-mail verification off): each call a new address made of
 * `prefix`, the backend and a count; answers the member's id.
 */
export function memberRegistrar(emu: () => TestEmulator, prefix: string) {
  let n = 0;
  return async () => {
    const res = await fetch(`${emu().url}/_api/iam/authentication/v2/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        loginId: { email: `${prefix}-${++n}-${emu().backend}@example.test` },
        password: 'correct horse battery',
      }),
    });
    if (res.status !== 200) throw new Error(`registration answered ${res.status}`);
    return (await res.json()).identity.id as string;
  };
}

/**
 * A member's access token, logged in from `visitor` (a trusted server's authorized_client grant):
 * the member's first cart call takes over the visitor's cart.
 */
export async function memberAccess(emu: TestEmulator, memberId: string, visitor: string) {
  const res = await fetch(`${emu.url}/oauth2/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `${visitor},${emu.demo.apiKey}` },
    body: JSON.stringify({ grant_type: 'authorized_client', scope: 'offline_access', member_id: memberId }),
  });
  if (res.status !== 200) throw new Error(`the authorized_client grant answered ${res.status}`);
  return (await res.json()).access_token as string;
}

/**
 * A new app of `emu`, installed through the installer's form with `redirectUrl`: its credentials
 * and the install code.
 */
export async function installedApp(emu: TestEmulator, redirectUrl: string) {
  const app = (await (
    await fetch(`${emu.url}/_api/emulator/v1/apps`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: emu.demo.apiKey },
      body: JSON.stringify({ name: 'Audit', redirectUrls: [redirectUrl] }),
    })
  ).json()) as { appId: string; appSecret: string };
  const res = await fetch(`${emu.url}/installer/install`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ appId: app.appId, redirectUrl }).toString(),
  });
  if (res.status !== 302) throw new Error(`the installer answered ${res.status}`);
  return { ...app, code: new URL(res.headers.get('location')!).searchParams.get('code')! };
}

/**
 * A line of the demo store's product `slug` for an add-to-cart; `options` is the catalog
 * reference's (`{ options: { Size: 'M' } }` or `{ variantId }`).
 */
export const catalogItem = (slug: string, quantity = 1, options?: Record<string, unknown>) => ({
  catalogReference: {
    appId: STORES_APP_ID,
    catalogItemId: demoProductId(slug),
    ...(options ? { options } : {}),
  },
  quantity,
});

/** A custom (merchant-priced) physical line for an add-to-cart by an elevated caller. */
export const customLine = (id: string, price: string, quantity = 1) => ({
  id,
  quantity,
  price,
  productName: { original: `Custom ${id}` },
  itemType: { preset: 'PHYSICAL' },
});

/** One query that fingerprints the database: row counts and the latest update of every table. */
export async function fingerprintQuery(emu: TestEmulator) {
  const cols = await emu.emu.db.query<{ table_name: string; has_updated: boolean }>(
    `SELECT t.table_name, bool_or(c.column_name = 'updated_at') AS has_updated
     FROM information_schema.tables t JOIN information_schema.columns c
       ON c.table_schema = t.table_schema AND c.table_name = t.table_name
     WHERE t.table_schema = current_schema() AND t.table_type = 'BASE TABLE'
     GROUP BY t.table_name ORDER BY t.table_name`,
  );
  const parts = cols.map(
    (t) =>
      `(SELECT count(*)::text${t.has_updated ? ` || '@' || coalesce(max(updated_at)::text, '')` : ''} FROM "${t.table_name}") AS "${t.table_name}"`,
  );
  return `SELECT ${parts.join(', ')}`;
}

/** Polls `check` until it answers something truthy, and answers that (a test's timeout ends it). */
export async function until<T>(
  check: () => T | undefined | false | Promise<T | undefined | false>,
  everyMs = 25,
): Promise<T> {
  for (;;) {
    const v = await check();
    if (v) return v;
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** Starts `server` on a free loopback port: its port, and a close that drops open connections. */
export async function listen(server: Server) {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** The fields a browser would post from a page's form: its inputs' current values. */
export function formFields(html: string): Record<string, string> {
  const form = /<form method="post"[^>]*>([\s\S]*?)<\/form>/.exec(html)?.[1] ?? '';
  const out: Record<string, string> = {};
  for (const m of form.matchAll(/<input ([^>]*)>/g)) {
    const name = /name="([^"]*)"/.exec(m[1]!)?.[1];
    if (name) out[name] = /value="([^"]*)"/.exec(m[1]!)?.[1] ?? '';
  }
  return out;
}

/** The total a hosted checkout page shows. */
export const shownTotal = (html: string) => /data-testid="total"><strong>([^<]+)</.exec(html)?.[1];

/**
 * Expects `text` to be the platform's error envelope: a string `message`, and `details` holding
 * exactly one of `applicationError` or `validationError`, every field violation whole. `where`
 * names the request in a failure.
 */
export function expectEnvelope(text: string, where: string) {
  let env: any;
  expect(() => {
    env = JSON.parse(text);
  }, `${where}: not JSON`).not.toThrow();
  expect(typeof env.message, where).toBe('string');
  const kinds = Object.keys(env.details ?? {});
  expect(kinds.length === 1 && ['applicationError', 'validationError'].includes(kinds[0]!), where).toBe(true);
  for (const v of env.details.validationError?.fieldViolations ?? [])
    expect(
      typeof v.field === 'string' &&
        typeof v.description === 'string' &&
        typeof v.violatedRule === 'string' &&
        typeof v.data === 'object',
      where,
    ).toBe(true);
}
