/**
 * A third shopper audit, each defect reproduced in a real Chromium: the cart page calling a cart
 * lost with an ended session "empty", a product page that could not be read with no heading, a
 * page keeping the title of the page before it while its data loads, and the checkout journey
 * (cart, estimate, the hosted checkout page, the return to the shop).
 */
import type { Route } from 'playwright-core';
import { expect, it } from 'vitest';
import {
  addToCart,
  endSession,
  focused,
  holdRequests,
  logInOnForm,
  MEMBER_PASSWORD,
  newPage,
  placeNewYorkOrder,
  registerInNode,
  setupStorefront,
} from './browser.ts';

const shop = setupStorefront();
const down = (route: Route) =>
  route.fulfill({ status: 500, contentType: 'application/json', body: '{"message":"down"}' });

it('says on the cart page that the session ended, not that the cart is empty, and offers to log in', async () => {
  const email = await registerInNode(shop, 'cart-page-ended@example.com');
  const { page, errors } = await newPage(shop.browser);
  await page.goto(`${shop.url}/login`);
  await logInOnForm(page, email);
  await addToCart(page, `${shop.url}/products/beeswax-candle`, 'Beeswax Candle');
  await page.getByText('Added to your cart.').waitFor();
  await page.getByRole('link', { name: 'Account' }).click();
  await page.getByRole('button', { name: 'Cart, 1 item' }).click();
  await page.getByRole('dialog', { name: 'Your cart' }).getByRole('link', { name: 'View cart' }).click();
  const main = page.getByRole('main');
  await main.locator('.line-name', { hasText: 'Beeswax Candle' }).waitFor();
  await endSession(shop, page);
  await main.getByRole('button', { name: 'One more Beeswax Candle' }).click();
  await page.getByRole('alert').filter({ hasText: 'Your session has ended' }).waitFor();
  await main.getByText('Your session has ended.').waitFor();
  expect(await main.textContent()).not.toContain('Your cart is empty');
  expect(await main.getByRole('link', { name: 'Start shopping' }).count()).toBe(0);
  // The line and its button went: focus is on the page's heading, not the body.
  await expect.poll(() => focused(page)).toBe('H1 Your cart');
  await main.getByRole('link', { name: 'Log in again' }).click();
  await page.getByRole('heading', { name: 'Log in' }).waitFor();
  await page.getByLabel('E-mail').fill(email);
  await page.getByLabel('Password').fill(MEMBER_PASSWORD);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.getByRole('button', { name: 'Cart, 1 item' }).waitFor();
  expect(errors).toEqual([]);
  await page.close();
});

it('gives a product or collection page that could not be read a heading', async () => {
  const { page, errors } = await newPage(shop.browser);
  await page.route('**/stores-reader/v1/products/query**', down);
  await page.goto(`${shop.url}/products/stoneware-mug`);
  await page.getByRole('alert').filter({ hasText: 'Something went wrong' }).waitFor();
  expect(await page.getByRole('heading', { level: 1 }).allTextContents()).toEqual(['Something went wrong']);
  await page.unroute('**/stores-reader/v1/products/query**');
  // The emulator's collection calls, not the storefront's own page.
  await page.route(`${shop.emu.url}/**/collections/**`, down);
  await page.goto(`${shop.url}/collections/kitchen`);
  await page.getByRole('alert').filter({ hasText: 'Something went wrong' }).waitFor();
  expect(await page.getByRole('heading', { level: 1 }).allTextContents()).toEqual(['Something went wrong']);
  expect(errors).toEqual([]);
  await page.close();
});

it('titles a product or collection page as loading while it loads, not as the page before it', async () => {
  const { page, errors } = await newPage(shop.browser);
  await page.goto(`${shop.url}/products`);
  await page.getByRole('link', { name: /Stoneware Mug/ }).waitFor();
  expect(await page.title()).toBe('All products · Loom & Kiln');
  let release = await holdRequests(page, '**/stores-reader/v1/products/query**');
  await page.getByRole('link', { name: /Stoneware Mug/ }).click();
  await page.getByRole('status').filter({ hasText: 'Loading the product' }).waitFor();
  await expect.poll(() => page.title()).toBe('Loading… · Loom & Kiln');
  // The loading page has its heading too.
  expect(await page.getByRole('heading', { level: 1 }).allTextContents()).toEqual(['Loading…']);
  release();
  await page.getByRole('heading', { level: 1, name: 'Stoneware Mug' }).waitFor();
  await expect.poll(() => page.title()).toBe('Stoneware Mug · Loom & Kiln');
  await page.unroute('**/stores-reader/v1/products/query**');

  release = await holdRequests(page, '**/collections/**');
  await page.getByRole('link', { name: 'Kitchen & Table' }).click();
  await page.getByRole('status').filter({ hasText: 'Loading the collection' }).waitFor();
  await expect.poll(() => page.title()).toBe('Loading… · Loom & Kiln');
  expect(await page.getByRole('heading', { level: 1 }).allTextContents()).toEqual(['Loading…']);
  release();
  await page.getByRole('heading', { level: 1, name: 'Kitchen & Table' }).waitFor();
  await expect.poll(() => page.title()).toBe('Kitchen & Table · Loom & Kiln');
  expect(errors).toEqual([]);
  await page.close();
});

it('keeps keyboard focus on "Check out" when the checkout or its redirect session fails, and starts it on the next Enter', async () => {
  const { page, errors } = await newPage(shop.browser);
  await addToCart(page, `${shop.url}/products/canvas-tote`, 'Canvas Tote');
  await page.getByRole('button', { name: 'Cart, 1 item' }).waitFor();
  await page.goto(`${shop.url}/cart`);
  await page.getByTestId('estimated-total').filter({ hasText: /^\$\d/ }).waitFor();
  const failed = page.getByRole('alert').filter({ hasText: 'Checkout could not start' });
  for (const step of ['**/carts/current/create-checkout', '**/redirects-api/v1/redirect-session']) {
    await page.route(step, down);
    await page.getByRole('button', { name: 'Check out' }).focus();
    await page.keyboard.press('Enter');
    await failed.waitFor();
    expect(await failed.textContent()).toContain('The shop is having trouble right now');
    await expect.poll(() => focused(page)).toBe('BUTTON Check out');
    await page.unroute(step);
  }
  // Enter again, from where the shopper is: the hosted checkout page.
  await Promise.all([page.waitForURL((u) => u.origin === shop.emu.url), page.keyboard.press('Enter')]);
  await page.getByRole('heading', { name: 'Order summary' }).waitFor();
  expect(errors).toEqual([]);
  await page.close();
});

it('shows the cart as empty when "Check out" finds that another tab already placed its order', async () => {
  const context = await shop.browser.newContext();
  const a = await context.newPage();
  await addToCart(a, `${shop.url}/products/canvas-tote`, 'Canvas Tote');
  await a.getByRole('button', { name: 'Cart, 1 item' }).waitFor();
  await a.goto(`${shop.url}/cart`);
  await a.getByTestId('estimated-total').filter({ hasText: /^\$\d/ }).waitFor();
  // The order is placed in tab B (which tab A does not hear of: it stays in front).
  const b = await context.newPage();
  await b.goto(`${shop.url}/cart`);
  await Promise.all([
    b.waitForURL((u) => u.origin === shop.emu.url),
    b.getByRole('button', { name: 'Check out' }).click(),
  ]);
  await placeNewYorkOrder(b, shop.url, 'two-tabs@example.com');

  await a.getByRole('button', { name: 'Check out' }).focus();
  await a.keyboard.press('Enter');
  // Not the lines of a cart that is gone with "The caller has no current cart" under them.
  const main = a.getByRole('main');
  await main.getByText('Your cart is empty.').waitFor();
  await a.getByRole('button', { name: 'Cart, 0 items' }).waitFor();
  expect(await main.getByRole('list', { name: 'Cart items' }).count()).toBe(0);
  await expect.poll(() => focused(a)).toBe('H1 Your cart');
  expect(new URL(a.url()).pathname).toBe('/cart');
  await context.close();
});
