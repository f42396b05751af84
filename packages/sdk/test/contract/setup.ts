/**
 * Set-up shared by the contract tests: an emulator per file and backend, the demo clients
 * (visitor, merchant, a buyer joined with the API key), catalog line items by product slug, owner
 * calls, the mailbox, the hosted checkout form, and the error of a call that must fail.
 */
import { type Backend, startTestEmulator, type TestEmulator } from '@shopkit/emulator/testing';
import { afterAll, beforeAll, expect } from 'vitest';
import {
  type AnyClient,
  ApiKeyStrategy,
  type AuthStrategy,
  createClient,
  type Modules,
  OAuthStrategy,
  op,
  request,
  type ShopkitError,
  STORES_APP_ID,
  type Tokens,
} from '../../src/index.ts';
import type { RedirectSession } from '../../src/modules/redirects.ts';

type EmulatorOptions = NonNullable<Parameters<typeof startTestEmulator>[1]>;

/**
 * An emulator on `backend` for the tests of the calling `describe`: started before them, stopped
 * after. `beforeAll` fills the object in, so read its fields in hooks and tests only.
 * @example const emu = setupEmulator(backend, { allowedOrigins: [SHOP] });
 */
export function setupEmulator(backend: Backend, options?: EmulatorOptions): TestEmulator {
  const emu = {} as TestEmulator;
  beforeAll(async () => {
    Object.assign(emu, await startTestEmulator(backend, options));
  });
  afterAll(() => emu.stop?.());
  return emu;
}

/** A visitor's client (OAuth with the demo client id, or with `tokens`) with `modules` bound. */
export const visitorClient = <M extends Modules = {}>(
  emu: TestEmulator,
  modules?: M,
  options: { tokens?: Tokens; fetch?: typeof fetch } = {},
) =>
  createClient({
    baseUrl: emu.url,
    fetch: options.fetch,
    auth: OAuthStrategy({ clientId: emu.demo.clientId, tokens: options.tokens }),
    modules,
  });

/** The merchant's client: the demo API key for the demo site, with `modules` bound. */
export const merchantClient = <M extends Modules = {}>(emu: TestEmulator, modules?: M) =>
  createClient({
    baseUrl: emu.url,
    auth: ApiKeyStrategy({ apiKey: emu.demo.apiKey, siteId: emu.demo.siteId }),
    modules,
  });

/** A buyer's client elevated by the demo API key: `<token>,<apiKey>` (wire §1.6). */
export function withMerchant<M extends Modules = {}>(
  emu: TestEmulator,
  buyer: { auth: AuthStrategy },
  modules?: M,
) {
  const auth: AuthStrategy = {
    getAuthHeaders: async (t) => {
      const h = await buyer.auth.getAuthHeaders(t);
      return { Authorization: `${h.Authorization},${emu.demo.apiKey}` };
    },
  };
  return createClient({ baseUrl: emu.url, auth, modules });
}

/** Reads product ids by slug over the catalog's wire API (no catalog internals). */
const queryProducts = op<
  [query: unknown, options: { includeHiddenProducts: boolean }],
  { products: Array<{ id: string; slug: string }> }
>({
  method: 'POST',
  path: '/stores-reader/v1/products/query-platformized',
  args: ['query', 'options:'],
});

/**
 * The demo catalog's product ids by slug, read before the tests (in the merchant's view, so that
 * hidden products have ids too), and `item`, a catalog line item for a cart by product slug.
 * Call it after `setupEmulator`, whose emulator it reads.
 */
export function setupCatalog(emu: TestEmulator) {
  const ids = new Map<string, string>();
  beforeAll(async () => {
    const admin = createClient({ baseUrl: emu.url, auth: ApiKeyStrategy({ apiKey: emu.demo.apiKey }) });
    const { products } = await queryProducts(
      admin,
      { paging: { limit: 100 } },
      { includeHiddenProducts: true },
    );
    for (const p of products) ids.set(p.slug, p.id);
  });
  const item = (slug: string, quantity = 1, options?: Record<string, string>) => ({
    catalogReference: {
      appId: STORES_APP_ID,
      catalogItemId: ids.get(slug)!,
      ...(options ? { options: { options } } : {}),
    },
    quantity,
  });
  return { ids, item };
}

/** The error a call fails with; the test fails if the call succeeds. */
export async function failure(p: Promise<unknown>): Promise<ShopkitError> {
  try {
    await p;
  } catch (e) {
    return e as ShopkitError;
  }
  throw new Error('expected the call to fail');
}

/** An owner call with the demo API key; expects 200 and returns the parsed body. */
export async function ownerCall(emu: TestEmulator, method: string, path: string, body?: object) {
  const res = await fetch(emu.url + path, {
    method,
    headers: { authorization: emu.demo.apiKey, 'content-type': 'application/json' },
    body: body && JSON.stringify(body),
  });
  expect(res.status).toBe(200);
  return res.json();
}

export { CHECKOUT_FORM, mailbox } from '@shopkit/emulator/testing';

/** Posts a form to a hosted page as a browser would, without following the redirect. */
export const postForm = (url: string, body: string, headers: Record<string, string> = {}) =>
  fetch(url, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...headers },
    body,
  });

/**
 * Creates a redirect session without the SDK's own checks of callback URLs (which refuse
 * `//host`, `javascript:` …): the emulator must stay safe whatever any client sends.
 */
export const rawRedirectSession = (client: AnyClient, options: object) =>
  request<{ redirectSession: RedirectSession }>(client, 'POST', '/_api/redirects-api/v1/redirect-session', {
    body: options,
  });
