/**
 * The visitor journey in a real Chromium: home → collection → listing with sort, price and stock
 * filters and paging → product with options → cart drawer → cart page (quantity, removal, coupon,
 * estimate with address and shipping option) → hosted checkout → thank-you page. Plus optimistic
 * cart changes held while offline and sent in order when the network returns.
 */
import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { addToCart, newPage, setupStorefront } from './browser.ts';

const shop = setupStorefront();

const productNames = (page: Page) =>
  page.getByRole('list', { name: 'Products' }).getByRole('heading').allTextContents();

it('browses collections and the listing with sort, price and stock filters and paging', async () => {
  const { page, errors } = await newPage(shop.browser);
  await page.goto(shop.url);
  await page.getByRole('link', { name: 'Summer Linen' }).first().click();
  await page.getByRole('heading', { level: 1, name: 'Summer Linen' }).waitFor();
  await page.getByRole('list', { name: 'Products' }).waitFor();
  expect(await productNames(page)).toContain('Linen Shirt');

  await page.goto(`${shop.url}/products`);
  await page.getByRole('list', { name: 'Products' }).waitFor();
  await page.getByLabel('Sort by').selectOption('price-asc');
  await page.waitForURL(/sort=price-asc/);
  // The previous page stays shown until the sorted one arrives.
  await page.waitForFunction(
    () => document.querySelector('[aria-label="Products"] h3')?.textContent === 'Olive Wood Spoon',
  );

  // Paging: 8 per page.
  const first = await productNames(page);
  expect(first).toHaveLength(8);
  await page.getByRole('button', { name: 'Next' }).click();
  await page.getByText(/^Page 2 of \d+$/).waitFor();
  await page.waitForFunction((names) => {
    const hs = [...document.querySelectorAll('[aria-label="Products"] h3')].map((h) => h.textContent);
    return hs.length > 0 && !hs.some((h) => names.includes(h ?? ''));
  }, first);

  // Price filter: at most $25, prices shown are all at most $25.
  await page.getByLabel('Max').fill('25');
  await page.getByRole('button', { name: 'Apply price' }).click();
  await page.waitForURL(/max=25/);
  await page
    .getByRole('list', { name: 'Products' })
    .getByRole('heading', { name: 'Linen Tea Towels' })
    .waitFor();
  const names = await productNames(page);
  expect(names).not.toContain('Linen Shirt');
  expect(names).toContain('Olive Wood Spoon');

  // In stock only removes the sold-out spoon.
  await page.getByLabel('In stock only').check();
  await page.waitForURL(/stock=in/);
  await page.waitForFunction(() => {
    const hs = [...document.querySelectorAll('[aria-label="Products"] h3')].map((h) => h.textContent);
    return hs.length > 0 && !hs.includes('Olive Wood Spoon');
  });
  expect(await productNames(page)).toContain('Linen Tea Towels (Set of 3)');
  expect(errors).toEqual([]);
});

it('buys a product: options, cart drawer, cart page, coupon, estimate, hosted checkout, thank-you', async () => {
  const { page, errors } = await newPage(shop.browser);
  await page.goto(`${shop.url}/products/linen-shirt`);
  await page.getByRole('heading', { level: 1, name: 'Linen Shirt' }).waitFor();
  const add = page.getByRole('button', { name: 'Add to cart' });
  expect(await add.isDisabled()).toBe(true);
  expect(await page.getByTestId('availability').textContent()).toBe('Choose size and color');

  // XL has its own price; colour swatches are radios named by the colour; XL in Sand is sold out.
  await page.getByLabel('XL', { exact: true }).check();
  await page.getByLabel('Sand', { exact: true }).check();
  await page.getByTestId('availability').filter({ hasText: 'Out of stock' }).waitFor();
  await page.locator('.variant-price').getByText('$72.00').waitFor();
  expect(await add.isDisabled()).toBe(true);
  await page.getByLabel('M', { exact: true }).check();
  await page
    .getByTestId('availability')
    .filter({ hasText: /In stock|left/ })
    .waitFor();
  await page.locator('.variant-price').getByText('$68.00').waitFor();
  expect(await page.getByRole('img', { name: 'Linen Shirt in Sand' }).count()).toBe(1);
  await page.getByLabel('Quantity').fill('2');
  await add.click();
  await page.getByText('Added to your cart.').waitFor();
  await page.getByRole('button', { name: 'Cart, 2 items' }).waitFor();

  // A second product, then the drawer.
  await addToCart(page, `${shop.url}/products/stoneware-mug`, 'Stoneware Mug');
  await page.getByRole('button', { name: 'Cart, 3 items' }).click();
  const drawer = page.getByRole('dialog', { name: 'Your cart' });
  await drawer.getByRole('list', { name: 'Cart items' }).waitFor();
  expect(await drawer.getByRole('listitem').count()).toBe(2);
  await page.keyboard.press('Escape');
  await drawer.waitFor({ state: 'hidden' });

  // Cart page: quantity, removal, coupon, estimate.
  await page.goto(`${shop.url}/cart`);
  const lines = page.getByRole('list', { name: 'Cart items' });
  await lines.waitFor();
  await page.getByRole('button', { name: 'One more Linen Shirt' }).click();
  await page.getByRole('button', { name: 'Cart, 4 items' }).waitFor();
  await page.getByRole('button', { name: 'Remove Stoneware Mug' }).click();
  await page.getByRole('button', { name: 'Cart, 3 items' }).waitFor();
  await lines.getByRole('link', { name: 'Linen Shirt' }).waitFor();
  expect(await lines.getByRole('listitem').count()).toBe(1);
  await page.getByTestId('estimated-total').filter({ hasText: /^\$\d/ }).waitFor();

  await page.getByLabel('Coupon code').fill('NOPE');
  await page.getByRole('button', { name: 'Apply' }).click();
  await page
    .getByRole('alert')
    .filter({ hasText: /coupon/i })
    .waitFor();
  await page.getByLabel('Coupon code').fill('SAVE10');
  await page.getByRole('button', { name: 'Apply' }).click();
  await page.getByText('Coupon SAVE10 applied').waitFor();
  await page.locator('.totals').getByText('Discount').waitFor();

  await page.getByLabel('Country code').fill('US');
  await page.getByLabel('State').fill('NY');
  await page.getByLabel('City').fill('New York');
  await page.getByLabel('Postal code').fill('10001');
  await page.getByRole('button', { name: 'Estimate' }).click();
  const shipping = page.getByRole('group', { name: 'Shipping', exact: true });
  await shipping.getByRole('radio').first().waitFor();
  const before = await page.getByTestId('estimated-total').textContent();
  await shipping.getByRole('radio').last().check();
  await page.waitForFunction(
    (t) => document.querySelector('[data-testid="estimated-total"]')?.textContent !== t,
    before,
  );

  // Checkout on the hosted page, back to the thank-you page.
  await page.getByRole('button', { name: 'Check out' }).click();
  await page.waitForURL((u) => u.origin === shop.emu.url);
  await page.getByRole('heading', { name: 'Order summary' }).waitFor();
  await page.fill('#f-email', 'buyer@example.com');
  await page.fill('#f-firstName', 'Ada');
  await page.fill('#f-lastName', 'Lovelace');
  await page.fill('#f-addressLine', '1 Main St');
  await page.fill('#f-city', 'New York');
  await page.fill('#f-postalCode', '10001');
  await page.fill('#f-country', 'US');
  await page.getByRole('button', { name: 'Place order' }).click();
  await page.waitForURL((u) => u.href.startsWith(`${shop.url}/thank-you?checkoutId=`));
  await page.getByRole('heading', { name: 'Thank you for your order' }).waitFor();
  await page.getByRole('button', { name: 'Cart, 0 items' }).waitFor();
  expect(errors).toEqual([]);
});

it('shows cart changes at once while offline and sends them in order when the network returns', async () => {
  const context = await shop.browser.newContext();
  const page = await context.newPage();
  await addToCart(page, `${shop.url}/products/canvas-tote`, 'Canvas Tote');
  await page.getByRole('button', { name: 'Cart, 1 item' }).waitFor();
  await page.goto(`${shop.url}/cart`);
  await page.getByRole('list', { name: 'Cart items' }).waitFor();

  const sent: string[] = [];
  page.on('request', (r) => {
    if (r.url().includes('/carts/current/update-line-items-quantity')) sent.push(r.postData() ?? '');
  });
  await context.setOffline(true);
  const more = page.getByRole('button', { name: 'One more Canvas Tote' });
  await more.click();
  await page.getByRole('button', { name: 'Cart, 2 items' }).waitFor();
  await more.click();
  await page.getByRole('button', { name: 'Cart, 3 items' }).waitFor();
  expect(sent).toEqual([]);

  await context.setOffline(false);
  await page.waitForFunction(() => true);
  await expect.poll(() => sent.length).toBe(2);
  expect(sent.map((b) => JSON.parse(b).lineItems[0].quantity)).toEqual([2, 3]);
  // The server agrees after a reload.
  await page.reload();
  await page.getByRole('button', { name: 'Cart, 3 items' }).waitFor();
  await context.close();
});
