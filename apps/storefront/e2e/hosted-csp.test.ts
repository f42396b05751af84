/**
 * The emulator's hosted pages under their strict Content-Security-Policy in a real Chromium: the
 * checkout page, the hosted login page (with its final redirect to the app after the form post),
 * the silent login's web_message answer in a hidden frame, and the app installer's consent (its
 * redirect to the app's URL) all work and the browser reports no violation. A control shows that
 * a violation on such a page is seen: Chromium logs it to the page's console ("Refused to …", or
 * in newer versions "… violates the following Content Security Policy directive").
 */
import {
  ApiKeyStrategy,
  ChannelType,
  cart,
  createClient,
  OAuthStrategy,
  op,
  redirects,
  STORES_APP_ID,
} from '@shopkit/sdk';
import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { fillHostedCheckout, ownerCall, sdkShop, setupShopOrigin, withSdkClient } from './browser.ts';

const shop = setupShopOrigin(sdkShop);
const PASSWORD = 'long enough pw';

const queryProducts = op<[query: unknown], { products: Array<{ id: string; slug: string }> }>({
  method: 'POST',
  path: '/stores-reader/v1/products/query-platformized',
  args: ['query'],
});

/** A new page and what Chromium reports of content security policies on it (any frame). */
async function watchedPage() {
  const page = await shop.browser.newPage();
  const violations: string[] = [];
  page.on('console', (m) => {
    if (/Refused to|Content Security Policy/i.test(m.text())) violations.push(m.text());
  });
  page.on('pageerror', (e) => violations.push(`page error: ${e.message}`));
  return { page, violations };
}

let n = 0;
const register = (page: Page) =>
  page.evaluate(
    async ({ email, password }) => {
      const r = await (window as any).client.identity.register({ email, password });
      return { email, sessionToken: r.data.sessionToken as string };
    },
    { email: `csp${++n}@example.test`, password: PASSWORD },
  );

it('the checkout page places an order with no policy violation; a violation there would be seen', async () => {
  const { emu } = shop;
  const admin = createClient({ baseUrl: emu.url, auth: ApiKeyStrategy({ apiKey: emu.demo.apiKey }) });
  const { products } = await queryProducts(admin, { paging: { limit: 100 } });
  const client = createClient({ baseUrl: emu.url, auth: OAuthStrategy({ clientId: emu.demo.clientId }) });
  const plate = products.find((p) => p.slug === 'dinner-plate')!.id;
  await cart.addToCurrentCart(client, {
    lineItems: [{ catalogReference: { appId: STORES_APP_ID, catalogItemId: plate }, quantity: 1 }],
  });
  const { checkoutId } = await cart.createCheckoutFromCurrentCart(client, { channelType: ChannelType.WEB });
  const postFlowUrl = `${shop.origin}/thanks`;
  const { redirectSession } = await redirects.createRedirectSession(client, {
    ecomCheckout: { checkoutId },
    callbacks: { postFlowUrl, cartPageUrl: `${shop.origin}/cart` },
  });

  const { page, violations } = await watchedPage();
  await page.goto(redirectSession.fullUrl);
  await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Checkout');
  // The page's stylesheet applies (allowed by its hash): the body is narrowed to 32rem.
  expect(await page.evaluate(() => getComputedStyle(document.body).maxWidth)).toBe('512px');
  expect(await page.getByRole('link', { name: 'Back to cart' }).getAttribute('href')).toBe(
    `${shop.origin}/cart`,
  );
  expect(violations).toEqual([]);

  // The control: an inline style and a foreign image on this page are refused, and reported.
  await page.evaluate((origin) => {
    const style = document.createElement('style');
    style.textContent = 'body{color:red}';
    document.head.append(style);
    const img = document.createElement('img');
    img.src = `${origin}/pixel.png`;
    document.body.append(img);
  }, shop.origin);
  await expect.poll(() => violations.length).toBeGreaterThanOrEqual(2);
  // Chromium words it "Refused to …" or "… violates the following Content Security Policy directive".
  expect(violations.join('\n')).toMatch(/inline style.*Content Security Policy/);
  expect(violations.join('\n')).toMatch(/the image .*pixel\.png.*Content Security Policy/);
  violations.length = 0;

  await fillHostedCheckout(page, {
    email: 'ada@example.com',
    firstName: 'Ada',
    lastName: 'Lovelace',
    address: '1 Main St',
    city: 'Albany',
    postalCode: '12207',
    // The store's own state: the page (made without an address) is priced there, so the total
    // shown is the one charged and one click places the order.
    region: 'US-NY',
  });
  // The form posts to the emulator, which redirects to the shop: form-action allows that origin.
  await Promise.all([
    page.waitForURL(postFlowUrl),
    page.getByRole('button', { name: 'Place order' }).click(),
  ]);
  expect(violations).toEqual([]);
  await page.close();
});

it('the product page shows its image with no policy violation', async () => {
  const { page, violations } = await watchedPage();
  await page.goto(`${shop.emu.url}/product-page/dinner-plate`);
  const img = page.getByRole('img');
  await expect
    .poll(() => img.evaluate((i: HTMLImageElement) => i.complete && i.naturalWidth))
    .toBeGreaterThan(0);
  expect(violations).toEqual([]);
  await page.close();
});

it('the hosted login page logs in and redirects to the app with no policy violation', async () => {
  const { page, violations } = await watchedPage();
  await page.goto(shop.origin);
  await withSdkClient(page, shop.emu);
  const who = await register(page);
  const authUrl = await page.evaluate(async () => {
    const client = (window as any).client;
    const data = await client.identity.generateOAuthData(`${location.origin}/callback`, location.href);
    return (await client.identity.getAuthUrl(data, { responseMode: 'query' })).authUrl as string;
  });
  await page.goto(authUrl);
  await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Log in');
  expect(await page.evaluate(() => getComputedStyle(document.body).maxWidth)).toBe('512px');
  await page.fill('input[name=email]', who.email);
  await page.fill('input[name=password]', PASSWORD);
  await Promise.all([page.waitForURL(`${shop.origin}/callback?**`), page.click('button[value=login]')]);
  expect(new URL(page.url()).searchParams.get('code')).toBeTruthy();
  expect(violations).toEqual([]);
  await page.close();
});

it('the silent login’s web_message answer runs its script in the hidden frame with no policy violation', async () => {
  const { page, violations } = await watchedPage();
  await page.goto(shop.origin);
  await withSdkClient(page, shop.emu);
  const { sessionToken } = await register(page);
  const role = await page.evaluate(async (t) => {
    const tokens = await (window as any).client.identity.getMemberTokensForDirectLogin(t);
    return tokens.refreshToken.role as string;
  }, sessionToken);
  expect(role).toBe('member');
  expect(violations).toEqual([]);
  await page.close();
});

it('the app installer’s consent redirects to the app with no policy violation', async () => {
  const redirectUrl = `${shop.origin}/installed`;
  const { appId } = await ownerCall(shop.emu, '/_api/emulator/v1/apps', {
    name: 'CSP app',
    redirectUrls: [redirectUrl],
  });
  const { page, violations } = await watchedPage();
  await page.goto(
    `${shop.emu.url}/installer/install?${new URLSearchParams({ appId, redirectUrl, state: 's1' })}`,
  );
  await Promise.all([
    page.waitForURL(`${redirectUrl}?**`),
    page.getByRole('button', { name: 'Add to site' }).click(),
  ]);
  expect(new URL(page.url()).searchParams.get('state')).toBe('s1');
  expect(violations).toEqual([]);
  await page.close();
});
