/**
 * Driving the platform's own published SDK (`@wix/sdk` and its generated modules, pinned in
 * `bench/baseline`) against the emulator, for the conformance tests (`platform-sdk*.test.ts`).
 * The platform SDK always addresses `www.wixapis.com` (and `edge.wixapis.com` for cached reads):
 * {@link usePlatformSdk} installs, for the calling test file, a fetch that sends those origins to the
 * emulator the file points it at, and touches nothing else.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { text } from 'node:stream/consumers';
import { webhooks } from '@shopkit/sdk';
import { afterAll, beforeAll, expect } from 'vitest';
import { importPlatformSdk } from '../../../bench/platform-sdk.ts';
import { loginOnHostedPage, type TestEmulator } from '../src/testing.ts';

export const STORES_APP_ID = '215238eb-22a5-4c36-9e7b-e7c08025e04e';
/** An origin the test emulators allow (`allowedOrigins`) for redirects. */
export const SHOP = 'http://shop.test';
export const PASSWORD = 'long enough pw';
/** The fetch of this process before {@link usePlatformSdk} replaced it: goes where it is told. */
export const realFetch = globalThis.fetch;

type PlatformSdk = Awaited<ReturnType<typeof importPlatformSdk>>;

/**
 * Loads the platform SDK (installing it on first use) before the file's tests, and sends its
 * requests to the emulator `target()` names at the time of each request. Returns a getter for the
 * loaded SDK.
 * @example const wix = usePlatformSdk(() => emu.url); … wix().sdk.createClient(…)
 */
export function usePlatformSdk(target: () => string): () => PlatformSdk {
  let wix: PlatformSdk | undefined;
  beforeAll(async () => {
    wix = await importPlatformSdk();
    globalThis.fetch = ((input: RequestInfo | URL, init?: RequestInit) => {
      const url = input instanceof Request ? input.url : String(input);
      const to = url.replace(/^https:\/\/(www|edge)\.wixapis\.com(?=\/)/, target());
      if (to === url) return realFetch(input, init);
      return realFetch(input instanceof Request ? new Request(to, input) : to, init);
    }) as typeof fetch;
  }, 180_000);
  afterAll(() => {
    globalThis.fetch = realFetch;
  });
  return () => {
    if (!wix) throw new Error('the platform SDK is loaded in beforeAll: use it inside a test');
    return wix;
  };
}

/** The platform SDK's visitor/member client with the modules a storefront uses. */
export const shopper = (wix: PlatformSdk, emu: TestEmulator) =>
  wix.sdk.createClient({
    auth: wix.sdk.OAuthStrategy({ clientId: emu.demo.clientId }),
    modules: {
      currentCart: wix.currentCart,
      products: wix.products,
      collections: wix.collections,
      redirects: wix.redirects,
    },
  });

/** The platform SDK's merchant client: the demo API key and site. */
export const merchant = (wix: PlatformSdk, emu: TestEmulator) =>
  wix.sdk.createClient({
    auth: wix.sdk.ApiKeyStrategy({ apiKey: emu.demo.apiKey, siteId: emu.demo.siteId }),
    modules: { products: wix.products, collections: wix.collections },
  });

/** The rejection of a platform SDK call; the test fails if it resolves. */
export async function rejection(p: Promise<unknown>): Promise<any> {
  try {
    await p;
  } catch (e) {
    return e;
  }
  throw new Error('expected the call to fail');
}

/**
 * A member through the hosted login page, as a browser would go: the platform SDK's authorize URL,
 * the page's form, the redirect back with a code, and the SDK's code exchange. Returns the tokens.
 */
export async function hostedLogin(client: any, email: string) {
  const data = client.auth.generateOAuthData(`${SHOP}/callback`, `${SHOP}/account`);
  const { authUrl } = await client.auth.getAuthUrl(data, { responseMode: 'query' });
  const { answer: res } = await loginOnHostedPage(authUrl, { email, password: PASSWORD }, realFetch);
  expect(res.status).toBe(302);
  const { code, state } = client.auth.parseFromUrl(res.headers.get('location'), 'query');
  return client.auth.getMemberTokens(code, state, data);
}

/** Makes the stored access token look expired, so that the next call renews it. */
export function expireAccessToken(client: any) {
  const t = client.auth.getTokens();
  client.auth.setTokens({ ...t, accessToken: { ...t.accessToken, expiresAt: 0 } });
}

/** A webhook receiver that keeps every body it is sent. */
export async function receiver() {
  const bodies: string[] = [];
  const server: Server = createServer((req, res) => {
    text(req).then(
      (body) => {
        bodies.push(body);
        res.writeHead(200).end();
      },
      () => {},
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    bodies,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** The event type of a webhook body, read without verifying it (to pick the bodies a client handles). */
export const eventType = (jwt: string): string =>
  JSON.parse(JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString()).data).eventType;

/**
 * The platform SDK as a webhook receiver for `modules`: an app client that verifies the emulator's
 * signature with its public key, `on(name)`, a handler that keeps each event under `name` in `seen`,
 * and `dispatch(bodies)`, which hands the bodies to it and to our SDK.
 * @example const { app, seen, on } = await webhookApp(wix(), emu, { products: wix().products });
 */
export async function webhookApp(wix: PlatformSdk, emu: TestEmulator, modules: Record<string, unknown>) {
  const { pem } = await (await realFetch(`${emu.url}/_api/emulator/v1/webhooks/public-key`)).json();
  const app = wix.sdk.createClient({
    auth: wix.sdk.AppStrategy({ appId: 'conformance-app', publicKey: pem }),
    modules,
  });
  const seen: Record<string, any[]> = {};
  const on = (name: string) => (e: any) => {
    seen[name] ??= [];
    seen[name].push(e);
  };
  /**
   * Runs every body through our SDK's `process` and, where the app has a handler for its type,
   * through the platform SDK's (which refuses a type it has no handler for); returns our events.
   */
  const dispatch = async (bodies: string[]) => {
    const handled = app.webhooks.getRegisteredEvents();
    const ours: webhooks.WebhookEvent[] = [];
    for (const body of bodies) {
      ours.push(await webhooks.process(body, { publicKey: pem }));
      if (handled.has(eventType(body))) await app.webhooks.process(body);
    }
    return ours;
  };
  return { app, seen, on, dispatch };
}
