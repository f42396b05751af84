/**
 * A twelfth shopper audit, each defect reproduced in a real Chromium: a logout that could not
 * reach the shop (offline) went to the home page with nothing said, though the member's session
 * was ended in this browser only; in a browser with no session, /verify and /account showed
 * "Loading" for ever when the shop could not be reached; the checkout's redirect session named
 * no `thankYouPageUrl`, so the hosted checkout's return carried no order id; a price range
 * applied from the keyboard dropped the focus to the page's body; on a slow connection, "Next"
 * showed "Page 2 of 2" over page 1's products (and a new filter the count of the one before),
 * nothing said or shown of the next page on its way.
 */
import { expect, it } from 'vitest';
import {
  addToCart,
  focused,
  focusedLabel,
  holdRequests,
  logInOnForm,
  newPage,
  placeNewYorkOrder,
  registerInNode,
  setupStorefront,
} from './browser.ts';

const shop = setupStorefront();

it('tells a member whose logout could not reach the shop that they are logged out in this browser only', async () => {
  const { page, errors } = await newPage(shop.browser);
  const email = await registerInNode(shop, 'audit12-offline-logout@example.com');
  await page.goto(`${shop.url}/login`);
  await logInOnForm(page, email);
  await page.context().setOffline(true);
  await page.getByRole('button', { name: 'Log out' }).click();
  await page.waitForURL(`${shop.url}/`);
  await page
    .getByRole('alert')
    .filter({
      hasText: 'You are logged out in this browser, but the shop could not be reached to end your session',
    })
    .waitFor();
  await page.getByRole('link', { name: 'Log in' }).waitFor();
  expect(errors).toEqual([]);
});

it('says the shop could not be reached on /verify and /account in a browser with no session, not "Loading" for ever', async () => {
  const { page, errors } = await newPage(shop.browser);
  await page.route(`${shop.emu.url}/**`, (r) => r.abort());
  const main = page.getByRole('main');
  await page.goto(`${shop.url}/verify`);
  await main.getByText('There is no e-mail verification waiting in this tab.').waitFor({ timeout: 15_000 });
  expect(await main.getByRole('status').filter({ hasText: 'Loading' }).count()).toBe(0);
  await page.goto(`${shop.url}/account`);
  const failed = main.getByRole('alert').filter({ hasText: 'The shop could not be reached.' });
  await failed.waitFor({ timeout: 15_000 });
  await main.getByRole('heading', { level: 1, name: 'Your account could not be loaded' }).waitFor();
  // Back in reach: "Try again" gets a session, a visitor's, who is sent to log in.
  await page.unroute(`${shop.emu.url}/**`);
  await failed.getByRole('button', { name: 'Try again' }).click();
  await page.waitForURL(`${shop.url}/login`);
  await page.getByRole('heading', { level: 1, name: 'Log in' }).waitFor();
  expect(errors).toEqual([]);
});

it('hands the hosted checkout the shop’s thank-you page as thankYouPageUrl, and comes back to it with the order id', async () => {
  const { page, errors } = await newPage(shop.browser);
  await addToCart(page, `${shop.url}/products/canvas-tote`, 'Canvas Tote');
  await page.getByRole('button', { name: 'Cart, 1 item' }).waitFor();
  const callbacks: Record<string, string>[] = [];
  page.on('request', (r) => {
    if (r.method() === 'POST' && r.url().includes('redirect-session'))
      callbacks.push(JSON.parse(r.postData() ?? '{}').callbacks);
  });
  await page.goto(`${shop.url}/cart`);
  await page.getByTestId('estimated-total').waitFor();
  await Promise.all([
    page.waitForURL((u) => u.origin === shop.emu.url),
    page.getByRole('button', { name: 'Check out' }).click(),
  ]);
  expect(callbacks).toHaveLength(1);
  const thanks = callbacks[0]!.thankYouPageUrl!;
  expect(thanks).toMatch(new RegExp(`^${shop.url}/thank-you\\?checkoutId=[^&]+$`));
  expect(callbacks[0]!.cartPageUrl).toBe(`${shop.url}/cart`);
  await placeNewYorkOrder(page, shop.url, 'audit12-thanks@example.com');
  const back = new URL(page.url());
  expect(back.searchParams.get('checkoutId')).toBe(new URL(thanks).searchParams.get('checkoutId'));
  expect(back.searchParams.get('orderId')).toBeTruthy();
  await page.getByRole('heading', { level: 1, name: 'Thank you for your order' }).waitFor();
  await page.getByRole('button', { name: 'Cart, 0 items' }).waitFor();
  expect(errors).toEqual([]);
});

it('keeps the focus on the price box or button a range was applied from', async () => {
  const { page, errors } = await newPage(shop.browser);
  await page.goto(`${shop.url}/products`);
  await page.getByRole('list', { name: 'Products' }).waitFor();
  const count = page.getByRole('region', { name: 'All products' }).getByRole('status');
  await page.getByLabel('Min').fill('30');
  await page.getByLabel('Min').press('Enter');
  await page.waitForURL(/min=30/);
  await count.filter({ hasText: '9 products' }).waitFor();
  expect(await focusedLabel(page)).toBe('Min');
  // On to the next box, and the button pressed with the keyboard.
  await page.keyboard.press('Tab');
  expect(await focusedLabel(page)).toBe('Max');
  await page.keyboard.type('60');
  await page.keyboard.press('Tab');
  await page.keyboard.press('Enter');
  await page.waitForURL(/max=60/);
  await page.waitForTimeout(300);
  expect(await focused(page)).toBe('BUTTON Apply price');
  expect(await page.getByLabel('Max').inputValue()).toBe('60');
  expect(errors).toEqual([]);
});

it('says the next page is loading, and fades the products still shown, while it is on its way', async () => {
  const { page, errors } = await newPage(shop.browser);
  await page.goto(`${shop.url}/products`);
  const results = page.getByRole('region', { name: 'All products' });
  const grid = results.getByRole('list', { name: 'Products' });
  await grid.waitFor();
  await results.getByRole('status').filter({ hasText: '14 products' }).waitFor();
  const opacity = () => grid.evaluate((e) => Number(getComputedStyle(e).opacity));
  expect(await opacity()).toBe(1);
  const release = await holdRequests(page, `${shop.emu.url}/**/products/query**`);
  await page.getByRole('button', { name: 'Next' }).click();
  await page.waitForURL(/page=2/);
  // Page 1's products, still shown: not as page 2's.
  await results.getByRole('status').filter({ hasText: 'Loading products…' }).waitFor();
  expect(await grid.getByRole('link', { name: 'Linen Shirt' }).count()).toBe(1);
  expect(await opacity()).toBeLessThan(1);
  release();
  await grid.getByRole('link', { name: 'Beeswax Candle' }).waitFor();
  await results.getByRole('status').filter({ hasText: '14 products' }).waitFor();
  expect(await opacity()).toBe(1);
  expect(errors).toEqual([]);
});
