/**
 * An eleventh shopper audit, each defect reproduced in a real Chromium: the thank-you page forgot
 * the cart page's address for whoever opened it (a link shared, a reload, a visitor who ordered
 * nothing), not only on the buyer's return from their checkout; /verify told a member who is
 * logged in to log in again; that an add waits for the connection, that a reset link is on its
 * way and that an account is ready (its login unfinished) were said in status regions added with
 * their words, which screen readers do not read out; Enter in the product page's quantity box did
 * nothing; two sizes of one product in the cart had controls of the same names ("One more Linen
 * Shirt" twice); "Check out" pressed with an address typed and not estimated went to checkout
 * with the address estimated before (or none); the account page said "0 items" while the cart
 * was read, and when it could not be.
 */
import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import {
  addToCart,
  fillRegistration,
  focusedLabel,
  holdRequests,
  logInOnForm,
  newPage,
  placeNewYorkOrder,
  registerInNode,
  setupStorefront,
} from './browser.ts';

const shop = setupStorefront();

/** Where the storefront keeps the cart page's checkout choices for the tab. */
const choicesKey = () => `shopkit:${shop.emu.demo.clientId}:checkout`;
const kept = (page: Page) => page.evaluate((key) => sessionStorage.getItem(key), choicesKey());

/** The cart page's estimate fields, as shown. */
const fields = (page: Page) =>
  Promise.all(['Country code', 'State', 'City', 'Postal code'].map((l) => page.getByLabel(l).inputValue()));

/** On the cart page: estimates for a New York address. */
async function estimateNewYork(page: Page) {
  await page.goto(`${shop.url}/cart`);
  await page.getByRole('list', { name: 'Cart items' }).waitFor();
  await page.getByLabel('Country code').fill('US');
  await page.getByLabel('State').fill('NY');
  await page.getByLabel('City').fill('New York');
  await page.getByLabel('Postal code').fill('10001');
  await page.getByRole('button', { name: 'Estimate' }).click();
  await expect.poll(() => kept(page)).toContain('10001');
}

/** The cart page, its estimate fields once shown. */
async function cartFields(page: Page) {
  await page.goto(`${shop.url}/cart`);
  await page.getByRole('list', { name: 'Cart items' }).waitFor();
  return fields(page);
}

it('forgets the address on the buyer’s return from their checkout only, not whenever the thank-you page is opened', async () => {
  const { page, errors } = await newPage(shop.browser);
  await addToCart(page, `${shop.url}/products/canvas-tote`, 'Canvas Tote');
  await page.getByRole('button', { name: 'Cart, 1 item' }).waitFor();
  await estimateNewYork(page);
  const thanks = page.getByRole('heading', { level: 1, name: 'Thank you for your order' });
  // A link shared (another buyer's checkout), the page's bare address: no order of this tab's.
  for (const path of ['/thank-you?checkoutId=someone-elses-checkout', '/thank-you']) {
    await page.goto(shop.url + path);
    await thanks.waitFor();
    await page.waitForTimeout(300);
    expect(await kept(page)).toContain('10001');
  }
  expect(await cartFields(page)).toEqual(['US', 'NY', 'New York', '10001']);

  // The buyer's own checkout: forgotten on the return from it.
  await Promise.all([
    page.waitForURL((u) => u.origin === shop.emu.url),
    page.getByRole('button', { name: 'Check out' }).click(),
  ]);
  await placeNewYorkOrder(page, shop.url, 'audit11-thanks@example.com');
  await thanks.waitFor();
  const returned = page.url();
  await expect.poll(() => kept(page)).toBeNull();

  // A new address for the next order, then the thank-you page again (Back to it, a reload): the
  // order it thanked for was done with, the new address is kept.
  await addToCart(page, `${shop.url}/products/canvas-tote`, 'Canvas Tote');
  await page.getByRole('button', { name: 'Cart, 1 item' }).waitFor();
  await estimateNewYork(page);
  await page.goto(returned);
  await thanks.waitFor();
  await page.reload();
  await thanks.waitFor();
  await page.waitForTimeout(300);
  expect(await kept(page)).toContain('10001');
  expect(await cartFields(page)).toEqual(['US', 'NY', 'New York', '10001']);
  expect(errors).toEqual([]);
});

it('tells a member who opens /verify that they are logged in, not to log in again', async () => {
  const { page, errors } = await newPage(shop.browser);
  const email = await registerInNode(shop, 'audit11-verify@example.com');
  await page.goto(`${shop.url}/login`);
  await logInOnForm(page, email);
  for (const arrive of [() => page.goto(`${shop.url}/verify`), () => page.reload()]) {
    await arrive();
    const main = page.getByRole('main');
    await main.getByText('You are logged in: there is no code to enter.').waitFor();
    expect(await main.textContent()).not.toMatch(/log in again/i);
    expect(await main.getByLabel('Verification code').count()).toBe(0);
  }
  await page.getByRole('link', { name: 'Go to your account' }).click();
  await page.getByRole('heading', { level: 1, name: 'Your account' }).waitFor();
  expect(errors).toEqual([]);
});

it('says in a status region that an add waits for the connection', async () => {
  const { page, errors } = await newPage(shop.browser);
  await page.goto(`${shop.url}/products/beeswax-candle`);
  await page
    .getByTestId('availability')
    .filter({ hasText: /In stock|left/ })
    .waitFor();
  const main = page.getByRole('main');
  // The region is there, empty, before it has anything to say: its words are read out when they come.
  const regions = await main.getByRole('status').count();
  await page.context().setOffline(true);
  await page.getByRole('button', { name: 'Add to cart' }).click();
  await main
    .getByRole('status')
    .filter({ hasText: 'You are offline. The item will be added once you are back online.' })
    .waitFor({ timeout: 5000 });
  expect(await main.getByRole('status').count()).toBe(regions);
  await page.context().setOffline(false);
  await page.getByText('Added to your cart.').waitFor();
  expect(await main.getByRole('status').filter({ hasText: 'You are offline' }).count()).toBe(0);
  expect(errors).toEqual([]);
});

it('adds to the cart with Enter in the quantity box, and not while the quantity cannot be added', async () => {
  const { page, errors } = await newPage(shop.browser);
  await page.goto(`${shop.url}/products/beeswax-candle`);
  await page
    .getByTestId('availability')
    .filter({ hasText: /In stock|left/ })
    .waitFor();
  const quantity = page.getByLabel('Quantity');
  await quantity.fill('0');
  await quantity.press('Enter');
  await page.getByText('Enter at least 1.').waitFor();
  await page.waitForTimeout(300);
  expect(await page.getByRole('button', { name: 'Cart, 0 items' }).count()).toBe(1);
  await quantity.fill('2');
  await quantity.press('Enter');
  await page.getByText('Added to your cart.').waitFor();
  await page.getByRole('button', { name: 'Cart, 2 items' }).waitFor();
  // The page stays: the box keeps the focus.
  expect(await focusedLabel(page)).toBe('Quantity');
  expect(errors).toEqual([]);
});

it('says in a status region there before it that a password reset link is on its way', async () => {
  const { page, errors } = await newPage(shop.browser);
  await page.goto(`${shop.url}/forgot-password`);
  const main = page.getByRole('main');
  await page.getByLabel('E-mail').fill('audit11-nobody@example.com');
  const regions = await main.getByRole('status').count();
  await page.getByRole('button', { name: 'Send reset link' }).click();
  await main
    .getByRole('status')
    .filter({
      hasText: 'If there is an account for this address, a link to reset the password is on its way.',
    })
    .waitFor();
  expect(await main.getByRole('status').count()).toBe(regions);
  expect(errors).toEqual([]);
});

it('names each cart line’s controls by its choices too, so that two sizes of one product are told apart', async () => {
  const { page, errors } = await newPage(shop.browser);
  for (const [size, count] of [
    ['M', 'Cart, 1 item'],
    ['S', 'Cart, 2 items'],
  ] as const) {
    await page.goto(`${shop.url}/products/linen-shirt`);
    await page.getByRole('heading', { level: 1, name: 'Linen Shirt' }).waitFor();
    await page.getByLabel(size, { exact: true }).check();
    await page.getByLabel('Sand', { exact: true }).check();
    await page
      .getByTestId('availability')
      .filter({ hasText: /In stock|left/ })
      .waitFor();
    await page.getByRole('button', { name: 'Add to cart' }).click();
    await page.getByRole('button', { name: count }).waitFor();
  }
  await page.goto(`${shop.url}/cart`);
  const lines = page.getByRole('main').getByRole('list', { name: 'Cart items' });
  await lines.getByRole('listitem').nth(1).waitFor();
  const names = (pattern: RegExp) =>
    lines
      .getByRole('button', { name: pattern })
      .evaluateAll((bs) => bs.map((b) => b.getAttribute('aria-label') ?? b.textContent ?? ''));
  for (const pattern of [/^One more Linen Shirt/, /^One fewer Linen Shirt/, /^Remove Linen Shirt/]) {
    const said = await names(pattern);
    expect(said).toHaveLength(2);
    expect(new Set(said).size).toBe(2);
    expect(said.some((n) => /\bM\b/.test(n) && /Sand/.test(n))).toBe(true);
  }
  // The one asked for by its size is the one changed.
  await lines.getByRole('button', { name: /^One more Linen Shirt \(.*\bS\b/ }).click();
  await page.getByRole('button', { name: 'Cart, 3 items' }).waitFor();
  expect(
    await lines.getByRole('group', { name: /Quantity of Linen Shirt \(.*\bS\b/ }).textContent(),
  ).toContain('2');
  expect(errors).toEqual([]);
});

it('says in a status region there before it that the account is ready when the login after a registration could not finish', async () => {
  const { page, errors } = await newPage(shop.browser);
  // The silent login's frame fails: the storefront's own limit ends the wait.
  await page.route('**/oauth2/authorize**', (route) => route.abort());
  await page.goto(`${shop.url}/register`);
  const main = page.getByRole('main');
  await page.getByLabel('First name').waitFor();
  const regions = await main.getByRole('status').count();
  await fillRegistration(page, 'audit11-frameless@example.com');
  await main
    .getByRole('status')
    .filter({ hasText: 'Your account is ready, but we could not log you in automatically.' })
    .waitFor({ timeout: 30_000 });
  expect(await main.getByRole('status').count()).toBe(regions);
  await main.getByRole('status').getByRole('link', { name: 'Log in' }).waitFor();
  expect(errors).toEqual([]);
});

it('checks out to the address the cart page shows, also when it was typed and not estimated', async () => {
  const { page, errors } = await newPage(shop.browser);
  await addToCart(page, `${shop.url}/products/canvas-tote`, 'Canvas Tote');
  await page.getByRole('button', { name: 'Cart, 1 item' }).waitFor();
  const sent: Array<Record<string, string> | undefined> = [];
  page.on('request', (r) => {
    if (r.url().endsWith('/create-checkout')) sent.push(JSON.parse(r.postData() ?? '{}').shippingAddress);
  });
  const checkOut = () =>
    Promise.all([
      page.waitForURL((u) => u.origin === shop.emu.url),
      page.getByRole('button', { name: 'Check out' }).click(),
    ]);
  // No address given: none sent (the form's untouched country is not one).
  await page.goto(`${shop.url}/cart`);
  await page.getByTestId('estimated-total').waitFor();
  await checkOut();
  expect(sent).toEqual([undefined]);
  await page.goBack();
  // An address estimated, then another one typed over it, and "Check out" pressed.
  await estimateNewYork(page);
  await page.getByLabel('State').fill('CA');
  await page.getByLabel('City').fill('Los Angeles');
  await page.getByLabel('Postal code').fill('90001');
  await checkOut();
  expect(sent[1]).toMatchObject({
    country: 'US',
    subdivision: 'CA',
    city: 'Los Angeles',
    postalCode: '90001',
  });
  // Back, the page shows the address the checkout was for.
  await page.goBack();
  await page.getByRole('list', { name: 'Cart items' }).waitFor();
  expect(await fields(page)).toEqual(['US', 'CA', 'Los Angeles', '90001']);
  // A country the form does not take: said by the browser, and no checkout starts.
  await page.getByLabel('Country code').fill('1!');
  await page.getByRole('button', { name: 'Check out' }).click();
  await page.waitForTimeout(500);
  expect(new URL(page.url()).pathname).toBe('/cart');
  expect(sent).toHaveLength(2);
  expect(await focusedLabel(page)).toBe('Country code');
  expect(errors).toEqual([]);
});

it('does not tell a member their cart has 0 items while it is read, or when it could not be', async () => {
  const { page, errors } = await newPage(shop.browser);
  const email = await registerInNode(shop, 'audit11-count@example.com');
  await page.goto(`${shop.url}/login`);
  await logInOnForm(page, email);
  await addToCart(page, `${shop.url}/products/beeswax-candle`, 'Beeswax Candle');
  await page.getByRole('button', { name: 'Cart, 1 item' }).waitFor();
  const main = page.getByRole('main');
  // While the cart is on its way.
  const release = await holdRequests(page, '**/carts/current');
  await page.goto(`${shop.url}/account`);
  await main.getByRole('heading', { level: 1, name: 'Your account' }).waitFor();
  await main.getByText('Your cart is loading…').waitFor();
  expect(await main.textContent()).not.toContain('0 items');
  release();
  await main.getByText('Your cart has 1 item.').waitFor();
  await page.unroute('**/carts/current');
  // When the shop could not answer.
  await page.route('**/carts/current', (r) => r.fulfill({ status: 503, body: '' }));
  await page.reload();
  await main.getByText('Your cart could not be read just now.').waitFor();
  expect(await main.textContent()).not.toContain('0 items');
  expect(errors).toEqual([]);
});
