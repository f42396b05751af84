/**
 * Real-browser helpers: Debian's Chromium driven by playwright-core, the storefront served by Vite
 * against a test emulator, or a small shop server of a test's own on another origin; and the steps
 * several journeys share (a page that collects its errors, adding a product to the cart, an
 * owner call, holding the login frame's answer).
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer as createHttpServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startTestEmulator, type TestEmulator } from '@shopkit/emulator/testing';
import { createClient, identity, OAuthStrategy } from '@shopkit/sdk';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { build, createServer, type ViteDevServer } from 'vite';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export async function launchChromium(extraArgs: string[] = []): Promise<Browser> {
  if (!existsSync(CHROMIUM))
    throw new Error(
      `Chromium not found at ${CHROMIUM}: run "node scripts/ensure-chromium.mjs" (npm test does) or set CHROMIUM_PATH.`,
    );
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      ...extraArgs,
    ],
  });
  return SLOWDOWN > 1 ? slowed(browser) : browser;
}

/**
 * `SHOPKIT_E2E_SLOWDOWN=6` runs the scripts of every page the browser opens 6 times slower
 * (Chromium's CPU throttling), as on a loaded machine: a test that races the page's renders fails
 * there first.
 */
const SLOWDOWN = Number(process.env.SHOPKIT_E2E_SLOWDOWN);

/** Throttles `page`'s CPU by {@link SLOWDOWN} before it is used. */
async function throttle(page: Page) {
  await slowCpu(page, SLOWDOWN);
  return page;
}

/**
 * Runs `page`'s scripts `rate` times slower (Chromium's CPU throttling), to reproduce a race a
 * loaded machine shows; the function it answers sets the rate back to the run's own
 * (`SHOPKIT_E2E_SLOWDOWN`'s, else none).
 */
export async function slowCpu(page: Page, rate: number) {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Emulation.setCPUThrottlingRate', { rate });
  return async () => {
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: Math.max(SLOWDOWN || 1, 1) });
  };
}

/**
 * `browser`, every page of which is slowed: its contexts' pages, and so its own `newPage`'s, which
 * Playwright opens in a context of `newContext`.
 */
function slowed(browser: Browser) {
  const newContext = browser.newContext.bind(browser);
  browser.newContext = async (options) => {
    const context: BrowserContext = await newContext(options);
    const open = context.newPage.bind(context);
    context.newPage = async () => throttle(await open());
    return context;
  };
  return browser;
}

export interface Storefront {
  url: string;
  emu: TestEmulator;
  stop(): Promise<void>;
}

/** Starts an emulator and the storefront's dev server pointed at it. */
export async function startStorefront(): Promise<Storefront> {
  const root = fileURLToPath(new URL('..', import.meta.url));
  const cacheDir = mkdtempSync(join(tmpdir(), 'shopkit-vite-'));
  // The storefront's origin must be allowed by the emulator; pick the port first.
  const vite: ViteDevServer = await createServer({
    root,
    configFile: `${root}/vite.config.ts`,
    logLevel: 'silent',
    // No watcher, no HMR and no WebSocket: nothing may reload a page under test. With the socket,
    // the dev server's client reloads every page when the server says so or the socket drops.
    server: { port: 0, host: '127.0.0.1', hmr: false, ws: false, watch: null },
    // Pre-bundled dependencies of this server's own: the shared `node_modules/.vite` was rewritten
    // mid-run by other servers (`npm start` under test has another NODE_ENV, so another hash),
    // changing the files under pages being served.
    cacheDir,
  });
  let emu: TestEmulator | undefined;
  try {
    await vite.listen();
    const url = vite.resolvedUrls!.local[0]!.replace(/\/$/, '');
    const started = await startTestEmulator('pglite', { allowedOrigins: [url] });
    emu = started;
    process.env.VITE_SHOPKIT_URL = started.url;
    process.env.VITE_SHOPKIT_CLIENT_ID = started.demo.clientId;
    // Env is read when modules are transformed; restart so the values apply.
    await vite.restart();
    return {
      url: vite.resolvedUrls!.local[0]!.replace(/\/$/, ''),
      emu: started,
      async stop() {
        await vite.close();
        await started.stop();
        rmSync(cacheDir, { recursive: true, force: true });
      },
    };
  } catch (e) {
    // A start that failed leaves nothing running or on disk.
    await vite.close();
    await emu?.stop();
    rmSync(cacheDir, { recursive: true, force: true });
    throw e;
  }
}

/** What a storefront test file works with: Chromium, and the storefront with its emulator. */
export interface StorefrontUnderTest {
  browser: Browser;
  /** The storefront's origin. */
  url: string;
  emu: TestEmulator;
}

/**
 * Launches Chromium and starts the storefront (with its emulator) before the file's tests, and
 * closes both after them. `beforeAll` fills the object in: read its fields in hooks and tests.
 * @example const shop = setupStorefront(); … await page.goto(`${shop.url}/cart`);
 */
export function setupStorefront(): StorefrontUnderTest {
  const shop = {} as StorefrontUnderTest;
  let started: Storefront | undefined;
  closePagesAfterEach();
  beforeAll(async () => {
    [shop.browser, started] = await Promise.all([launchChromium(), startStorefront()]);
    shop.url = started.url;
    shop.emu = started.emu;
  });
  afterAll(async () => {
    await shop.browser?.close();
    await started?.stop();
  });
  return shop;
}

/** Chromium, a shop server on an origin of its own, and an emulator that allows that origin. */
export interface ShopOriginUnderTest {
  browser: Browser;
  /** The shop server's origin, `http://127.0.0.1:<port>`. */
  origin: string;
  emu: TestEmulator;
}

/**
 * Before the file's tests: serves `makeHandler()`'s answers on a fresh local origin, launches
 * Chromium and starts an emulator that allows that origin; after them, closes all three.
 * `beforeAll` fills the object in: read its fields in hooks and tests.
 */
export function setupShopOrigin(
  makeHandler: () => RequestListener | Promise<RequestListener>,
): ShopOriginUnderTest {
  const shop = {} as ShopOriginUnderTest;
  let server: Server | undefined;
  closePagesAfterEach();
  beforeAll(async () => {
    server = createHttpServer(await makeHandler());
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
    shop.origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    [shop.browser, shop.emu] = await Promise.all([
      launchChromium(),
      startTestEmulator('pglite', { allowedOrigins: [shop.origin] }),
    ]);
  });
  afterAll(async () => {
    await shop.browser?.close();
    await shop.emu?.stop();
    await new Promise((r) => server?.close(r));
  });
  return shop;
}

/** A buyer in the US, as the emulator's hosted checkout form asks for one. */
export interface HostedBuyer {
  email: string;
  firstName: string;
  lastName: string;
  address: string;
  city: string;
  postalCode: string;
  /** `US-NY`, say; optional on the form. */
  region?: string;
}

/** Fills the emulator's hosted checkout form (the page of an `ecomCheckout` redirect session). */
export async function fillHostedCheckout(page: Page, b: HostedBuyer) {
  await page.getByLabel('E-mail').fill(b.email);
  await page.getByLabel('First name').fill(b.firstName);
  await page.getByLabel('Last name').fill(b.lastName);
  await page.getByLabel('Address').fill(b.address);
  await page.getByLabel('City').fill(b.city);
  await page.getByLabel('Postal code').fill(b.postalCode);
  if (b.region) await page.getByLabel('State or region (optional, e.g. US-NY)').fill(b.region);
  await page.getByLabel('Country (two-letter code, e.g. US)').fill('US');
}

/**
 * On the hosted checkout page: a New York buyer (the store's own state, where the page prices an
 * order whose checkout has no address, so the total shown is the one charged and one click places
 * it) places the order; resolves once the page has gone back to `shopUrl`'s thank-you page.
 */
export async function placeNewYorkOrder(page: Page, shopUrl: string, email: string) {
  await fillHostedCheckout(page, {
    email,
    firstName: 'Ada',
    lastName: 'Lovelace',
    address: '1 Main St',
    city: 'New York',
    postalCode: '10001',
    region: 'US-NY',
  });
  await Promise.all([
    page.waitForURL((u) => u.href.startsWith(`${shopUrl}/thank-you`)),
    page.getByRole('button', { name: 'Place order' }).click(),
  ]);
}

/**
 * Waits for a page of `sdkShop` to load the SDK, then makes `window.client`: a visitor client of
 * the shop's emulator with the identity module bound.
 */
export async function withSdkClient(page: Page, emu: TestEmulator) {
  await page.waitForFunction(() => !!(window as any).sdk);
  await page.evaluate(
    ({ baseUrl, clientId }) => {
      const sdk = (window as any).sdk;
      (window as any).client = sdk.createClient({
        baseUrl,
        auth: sdk.OAuthStrategy({ clientId }),
        modules: { identity: sdk.identity },
      });
    },
    { baseUrl: emu.url, clientId: emu.demo.clientId },
  );
}

/**
 * A shop whose every page loads the SDK, bundled for the browser, as `window.sdk`: `/sdk.js` is
 * the bundle and every other path the same page, so `/callback` works as a redirect URI.
 */
export async function sdkShop(): Promise<RequestListener> {
  const entry = fileURLToPath(new URL('../../../packages/sdk/src/index.ts', import.meta.url));
  const out = (await build({
    configFile: false,
    logLevel: 'silent',
    build: { write: false, minify: false, lib: { entry, formats: ['es'], fileName: 'sdk' } },
  })) as { output: { code?: string }[] }[] | { output: { code?: string }[] };
  const sdk = (Array.isArray(out) ? out[0]! : out).output[0]!.code!;
  return (req, res) => {
    if (req.url === '/sdk.js') {
      res.writeHead(200, { 'content-type': 'text/javascript' });
      res.end(sdk);
    } else {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(
        '<!doctype html><html><body><h1>Shop</h1><script type="module">' +
          "import * as sdk from '/sdk.js'; window.sdk = sdk;</script></body></html>",
      );
    }
  };
}

/** The pages `newPage` made during the running test: closed after it, with their contexts. */
const opened = new Set<Page>();

/**
 * Closes after each test the pages it made with `newPage`: a file's earlier tests' pages (each a
 * browser context of its own, with its renderer) would otherwise run on until the file ends.
 */
function closePagesAfterEach() {
  afterEach(async () => {
    const pages = [...opened];
    opened.clear();
    await Promise.all(pages.map((p) => p.close().catch(() => {})));
  });
}

/**
 * A new page (in a context of its own) and the uncaught errors its scripts throw (a journey ends
 * expecting none). In a file with `setupStorefront` or `setupShopOrigin`, closed after the test.
 */
export async function newPage(browser: Browser) {
  // (slowed by `SHOPKIT_E2E_SLOWDOWN` when the browser is `launchChromium`'s, as every test's is)
  const page = await browser.newPage();
  opened.add(page);
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  return { page, errors };
}

/**
 * On the storefront's product page at `url` (its heading `name`): picks the first choice of every
 * option, waits until that is in stock, and presses "Add to cart".
 */
export async function addToCart(page: Page, url: string, name: string) {
  await page.goto(url);
  await page.getByRole('heading', { level: 1, name }).waitFor();
  const options = await page.locator('fieldset.option').count();
  for (let i = 0; i < options; i++)
    await page.locator('fieldset.option').nth(i).locator('label').first().click();
  await page
    .getByTestId('availability')
    .filter({ hasText: /In stock|left/ })
    .waitFor();
  await page.getByRole('button', { name: 'Add to cart' }).click();
}

/** An owner call with the API key, from Node; expects 200 and returns the parsed body. */
export async function ownerCall(emu: TestEmulator, path: string, body: object) {
  const res = await fetch(emu.url + path, {
    method: 'POST',
    headers: { authorization: emu.demo.apiKey, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(res.status).toBe(200);
  return res.json();
}

/**
 * Holds the page's requests to `url` (a Playwright route pattern) until the returned function is
 * called, so that a test can look at the page while they are in flight.
 */
export async function holdRequests(page: Page, url: string): Promise<() => void> {
  let release!: () => void;
  const held = new Promise<void>((r) => {
    release = r;
  });
  await page.route(url, async (route) => {
    await held;
    await route.continue();
  });
  return release;
}

/** Holds the page's authorize requests (the login frame's answer): a login stays in flight. */
export const holdAuthorize = (page: Page) => holdRequests(page, '**/oauth2/authorize**');

/** Runs axe-core in the page; returns the serious and critical violations (id, help, targets). */
export async function axeViolations(page: import('playwright-core').Page) {
  const { createRequire } = await import('node:module');
  const { readFileSync } = await import('node:fs');
  const source = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
  await page.addScriptTag({ content: source });
  const result = await page.evaluate(async () => {
    const axe = (
      globalThis as unknown as { axe: { run(o?: unknown): Promise<{ violations: AxeViolation[] }> } }
    ).axe;
    return axe.run({ resultTypes: ['violations'] });
  });
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => ({ id: v.id, help: v.help, targets: v.nodes.map((n) => n.target.join(' ')) }));
}

interface AxeViolation {
  id: string;
  impact?: string;
  help: string;
  nodes: { target: string[] }[];
}

/** The focused element as its tag and trimmed text (`BUTTON Add to cart`), or `body`. */
export const focused = (page: Page) =>
  page.evaluate(() => {
    const a = document.activeElement;
    return !a || a === document.body ? 'body' : `${a.tagName} ${a.textContent?.trim()}`;
  });

/** The label of the focused field, or '' when it has none. */
export const focusedLabel = (page: Page) =>
  page.evaluate(() => (document.activeElement as HTMLInputElement | null)?.labels?.[0]?.textContent ?? '');

/** The password of the members the e2e tests register from Node. */
export const MEMBER_PASSWORD = 'correct horse battery 9';

/** Registers a member of `shop` from Node (e-mail verification off); answers the address. */
export async function registerInNode(shop: StorefrontUnderTest, email: string) {
  const client = createClient({
    baseUrl: shop.emu.url,
    auth: OAuthStrategy({ clientId: shop.emu.demo.clientId }),
  });
  const r = await identity.register(client, { email, password: MEMBER_PASSWORD });
  expect(r.loginState).toBe('SUCCESS');
  return email;
}

/** Registers on the shop's form at `shopUrl`; with e-mail verification on, it lands on /verify. */
export async function registerInPage(page: Page, shopUrl: string, email: string) {
  await page.goto(`${shopUrl}/register`);
  await fillRegistration(page, email);
}

/** Fills and sends the registration form the page shows (first name Ada, `MEMBER_PASSWORD`). */
export async function fillRegistration(page: Page, email: string) {
  await page.getByLabel('First name').fill('Ada');
  await page.getByLabel('E-mail').fill(email);
  await page.getByLabel('Password').fill(MEMBER_PASSWORD);
  await page.getByRole('button', { name: 'Create account' }).click();
}

/** Logs in on the login form the page shows, and waits for the account page. */
export async function logInOnForm(page: Page, email: string) {
  await page.getByLabel('E-mail').fill(email);
  await page.getByLabel('Password').fill(MEMBER_PASSWORD);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.getByRole('heading', { name: 'Your account' }).waitFor();
}

/** Where the storefront keeps its tokens (`webStorage`). */
export const tokensKey = (shop: StorefrontUnderTest) => `shopkit:${shop.emu.demo.clientId}:tokens`;

/**
 * The platform ends the session of the member logged in on `page` (as a password change elsewhere
 * would): both its tokens are revoked, so its next call is refused.
 */
export async function endSession(shop: StorefrontUnderTest, page: Page) {
  const tokens = await page.evaluate((key) => JSON.parse(localStorage.getItem(key)!), tokensKey(shop));
  for (const token of [tokens.refreshToken.value, tokens.accessToken.value])
    await fetch(`${shop.emu.url}/oauth2/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token }),
    });
}
