/**
 * A second shopper audit, each defect reproduced in a real Chromium (its two member cases, the
 * login form offered to a member and the drawer of an ended session, are in member-edges.test.ts):
 * keyboard focus dropped to the page by "Add to cart" and by the listing's pager, a failed
 * availability check leaving the product page blank about it, and a product or collection page
 * that could not be read keeping the title of the page before it.
 */
import type { Route } from 'playwright-core';
import { expect, it } from 'vitest';
import { focused, holdRequests, newPage, setupStorefront } from './browser.ts';

const shop = setupStorefront();

it('keeps keyboard focus on "Add to cart" while the item is added, and after', async () => {
  const { page, errors } = await newPage(shop.browser);
  await page.goto(`${shop.url}/products/beeswax-candle`);
  await page.getByTestId('availability').filter({ hasText: 'In stock' }).waitFor();
  const add = page.getByRole('button', { name: 'Add to cart' });
  await add.focus();
  await page.keyboard.press('Enter');
  await page.getByText('Added to your cart.').waitFor();
  await page.getByRole('button', { name: 'Cart, 1 item' }).waitFor();
  await expect.poll(() => focused(page)).toBe('BUTTON Add to cart');
  // Enter again adds one more, from where the shopper is.
  await page.keyboard.press('Enter');
  await page.getByRole('button', { name: 'Cart, 2 items' }).waitFor();
  await expect.poll(() => focused(page)).toBe('BUTTON Add to cart');

  // Pressable while busy, it still adds once per double click.
  const sent: string[] = [];
  page.on('request', (r) => {
    if (r.url().endsWith('/carts/current/add-to-cart')) sent.push(r.url());
  });
  const release = await holdRequests(page, '**/carts/current/add-to-cart');
  await add.dblclick();
  await expect.poll(() => sent.length).toBe(1);
  release();
  await page.getByRole('button', { name: 'Cart, 3 items' }).waitFor();
  await expect.poll(() => focused(page)).toBe('BUTTON Add to cart');
  // A second add sent by the double click would come before this one.
  await page.keyboard.press('Enter');
  await page.getByRole('button', { name: 'Cart, 4 items' }).waitFor();
  expect(sent).toHaveLength(2);
  expect(errors).toEqual([]);
  await page.close();
});

it('moves keyboard focus to the new page of products when the pager turns it, not to the page body', async () => {
  const { page, errors } = await newPage(shop.browser);
  await page.goto(`${shop.url}/products`);
  const results = page.getByRole('region', { name: 'All products' });
  await page.getByRole('button', { name: 'Next' }).focus();
  await page.keyboard.press('Enter');
  await page.getByText('Page 2 of 2').waitFor();
  await results.getByRole('list', { name: 'Products' }).waitFor();
  await expect
    .poll(() => page.evaluate(() => document.activeElement?.getAttribute('aria-label')))
    .toBe('All products');
  // Tab goes on into the new page's products.
  await page.keyboard.press('Tab');
  expect(await page.evaluate(() => !!document.activeElement?.closest('ul.grid'))).toBe(true);
  await page.getByRole('button', { name: 'Previous' }).focus();
  await page.keyboard.press('Enter');
  await page.getByText('Page 1 of 2').waitFor();
  await expect
    .poll(() => page.evaluate(() => document.activeElement?.getAttribute('aria-label')))
    .toBe('All products');
  expect(errors).toEqual([]);
  await page.close();
});

it('says when the chosen variant’s availability could not be checked, and checks it again on "Try again"', async () => {
  const { page, errors } = await newPage(shop.browser);
  // The platform fails the availability call (a 500, the shop's one retry failing too).
  let failing = true;
  await page.route('**/productOptionsAvailability**', (route) =>
    failing
      ? route.fulfill({ status: 500, contentType: 'application/json', body: '{"message":"down"}' })
      : route.fallback(),
  );
  await page.goto(`${shop.url}/products/linen-trousers`);
  await page.getByRole('heading', { level: 1, name: 'Linen Trousers' }).waitFor();
  await page.locator('fieldset.option label', { hasText: /^S$/ }).click();
  const alert = page.getByRole('alert').filter({ hasText: 'The availability could not be checked' });
  await alert.waitFor();
  expect(await alert.textContent()).toContain('The shop is having trouble right now');
  expect(await page.getByRole('button', { name: 'Add to cart' }).isDisabled()).toBe(true);
  failing = false;
  await alert.getByRole('button', { name: 'Try again' }).click();
  await page.getByTestId('availability').filter({ hasText: 'In stock' }).waitFor();
  await alert.waitFor({ state: 'detached' });
  expect(await page.getByRole('button', { name: 'Add to cart' }).isDisabled()).toBe(false);
  expect(errors).toEqual([]);
  await page.close();
});

it('names a product or collection page that could not be read as failed, not as the page before it', async () => {
  const { page, errors } = await newPage(shop.browser);
  const down = (route: Route) =>
    route.fulfill({ status: 500, contentType: 'application/json', body: '{"message":"down"}' });
  await page.goto(`${shop.url}/products`);
  await page.getByRole('link', { name: /Stoneware Mug/ }).waitFor();
  expect(await page.title()).toBe('All products · Loom & Kiln');
  await page.route('**/stores-reader/v1/products/query**', down);
  await page.getByRole('link', { name: /Stoneware Mug/ }).click();
  await page.getByRole('alert').filter({ hasText: 'Something went wrong' }).waitFor();
  await expect.poll(() => page.title()).toBe('Something went wrong · Loom & Kiln');
  await page.unroute('**/stores-reader/v1/products/query**');

  await page.goto(`${shop.url}/products`);
  await page.getByRole('link', { name: /Stoneware Mug/ }).waitFor();
  await page.route('**/collections/**', down);
  await page.getByRole('link', { name: 'Kitchen & Table' }).click();
  await page.getByRole('alert').filter({ hasText: 'Something went wrong' }).waitFor();
  await expect.poll(() => page.title()).toBe('Something went wrong · Loom & Kiln');
  expect(errors).toEqual([]);
  await page.close();
});
