/**
 * A fifteenth shopper audit, each defect reproduced in a real Chromium: a coupon applied to the
 * cart that stopped applying (the cart fell below its minimum subtotal) stayed on the cart, and the
 * cart page only said why, with no way to take it off; "Try again" on a page or listing that could
 * not be read dropped the keyboard focus to the page's body once it answered; a member's estimate
 * address, reloaded, showed "US" in the form over totals estimated at their kept address (their id
 * answering after the cart), and "Check out" then went to "US"; "Checkout could not start … Remove
 * the items marked" stayed after the shopper removed the line, with none marked.
 */
import { ApiKeyStrategy, createClient, products } from '@shopkit/sdk';
import { expect, it } from 'vitest';
import {
  addToCart,
  axeViolations,
  focusedLabel,
  holdRequests,
  logInOnForm,
  newPage,
  registerInNode,
  setupStorefront,
} from './browser.ts';

const shop = setupStorefront();

it('removes a coupon that no longer applies, the focus going to the code box', async () => {
  const { page, errors } = await newPage(shop.browser);
  const admin = createClient({
    baseUrl: shop.emu.url,
    auth: ApiKeyStrategy({ apiKey: shop.emu.demo.apiKey }),
  });
  const { product } = await products.createProduct(admin, {
    name: 'Copper Kettle',
    productType: 'physical',
    priceData: { price: 60 },
  });
  await addToCart(page, `${shop.url}/products/${product.slug}`, 'Copper Kettle');
  await page.getByText('Added to your cart.').waitFor();
  await page.goto(`${shop.url}/cart`);
  const main = page.getByRole('main');
  await main.getByRole('button', { name: 'One more Copper Kettle' }).click();
  await expect.poll(() => main.getByLabel('Copper Kettle quantity').textContent()).toBe('2');
  await page.getByLabel('Coupon code').fill('BIG15');
  await page.getByRole('button', { name: 'Apply' }).click();
  await main.getByText('Coupon BIG15 applied').waitFor();
  await main.getByRole('button', { name: 'One fewer Copper Kettle' }).click();
  await main.getByRole('alert').filter({ hasText: 'Your coupon no longer applies.' }).waitFor();
  expect(await axeViolations(page)).toEqual([]);
  // Taken off from the keyboard: the coupon goes, and the focus to the code box, not the page.
  await main.getByRole('button', { name: 'Remove coupon' }).focus();
  await page.keyboard.press('Enter');
  await expect.poll(() => focusedLabel(page)).toBe('Coupon code');
  expect(await main.getByRole('button', { name: 'Remove coupon' }).count()).toBe(0);
  expect(await main.getByText('Your coupon no longer applies.').count()).toBe(0);
  // Gone from the cart: back above the minimum, no discount comes back by itself.
  await main.getByRole('button', { name: 'One more Copper Kettle' }).click();
  await expect.poll(() => main.getByLabel('Copper Kettle quantity').textContent()).toBe('2');
  const totals = main.locator('dl.totals[aria-busy="false"]');
  await expect.poll(() => totals.textContent()).toContain('Subtotal$120.00');
  expect(await totals.textContent()).not.toContain('Discount');
  expect(await main.getByText('Coupon BIG15 applied').count()).toBe(0);
  expect(errors).toEqual([]);
});

it('keeps the focus on the page when "Try again" brings a product page back, not on its body', async () => {
  const { page, errors } = await newPage(shop.browser);
  let failing = true;
  await page.route('**/stores-reader/v1/products/query**', (route) =>
    failing
      ? route.fulfill({ status: 500, contentType: 'application/json', body: '{"message":"down"}' })
      : route.fallback(),
  );
  await page.goto(`${shop.url}/products/stoneware-mug`);
  const alert = page.getByRole('alert').filter({ hasText: 'Something went wrong' });
  await alert.waitFor();
  failing = false;
  await alert.getByRole('button', { name: 'Try again' }).focus();
  await page.keyboard.press('Enter');
  await page.getByRole('heading', { level: 1, name: 'Stoneware Mug' }).waitFor();
  // The page's main, as when a link brings a new page.
  await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe('main');
  expect(errors).toEqual([]);
});

it('keeps the focus in the listing when "Try again" brings its products back', async () => {
  const { page, errors } = await newPage(shop.browser);
  let failing = true;
  await page.route('**/stores-reader/v1/products/query**', (route) =>
    failing
      ? route.fulfill({ status: 500, contentType: 'application/json', body: '{"message":"down"}' })
      : route.fallback(),
  );
  await page.goto(`${shop.url}/products`);
  const alert = page.getByRole('alert').filter({ hasText: 'Something went wrong' });
  await alert.waitFor({ timeout: 20_000 });
  failing = false;
  await alert.getByRole('button', { name: 'Try again' }).focus();
  await page.keyboard.press('Enter');
  await page.getByRole('list', { name: 'Products' }).waitFor();
  // The results, as when "Next" brings the next page.
  await expect
    .poll(() => page.evaluate(() => document.activeElement?.getAttribute('aria-label')))
    .toBe('All products');
  expect(errors).toEqual([]);
});

it('shows a member the address they estimated at after a reload, when their id comes after the cart', async () => {
  const { page, errors } = await newPage(shop.browser);
  const email = await registerInNode(shop, 'audit15-reload-address@example.com');
  await page.goto(`${shop.url}/login`);
  await logInOnForm(page, email);
  await addToCart(page, `${shop.url}/products/beeswax-candle`, 'Beeswax Candle');
  await page.getByText('Added to your cart.').waitFor();
  await page.goto(`${shop.url}/cart`);
  const main = page.getByRole('main');
  await main.getByTestId('estimated-total').waitFor();
  await page.getByLabel('Country code').fill('GB');
  await page.getByLabel('City').fill('London');
  await page.getByRole('button', { name: 'Estimate' }).click();
  await expect.poll(() => main.locator('.totals[aria-busy="false"]').count()).toBe(1);
  // Reloaded, the member's id answers after the cart has been shown.
  const release = await holdRequests(page, '**/oauth2/user-info**');
  await page.reload();
  await main.getByTestId('estimated-total').waitFor();
  release();
  await expect.poll(() => page.getByLabel('City').inputValue()).toBe('London');
  expect(await page.getByLabel('Country code').inputValue()).toBe('GB');
  expect(errors).toEqual([]);
});

it('drops "Checkout could not start" for an out-of-stock line once the shopper removed it', async () => {
  const { page, errors } = await newPage(shop.browser);
  const admin = createClient({
    baseUrl: shop.emu.url,
    auth: ApiKeyStrategy({ apiKey: shop.emu.demo.apiKey }),
  });
  const { product } = await products.createProduct(admin, {
    name: 'Pewter Lantern',
    productType: 'physical',
    priceData: { price: 12 },
    stock: { trackInventory: true, quantity: 3 },
  });
  await addToCart(page, `${shop.url}/products/beeswax-candle`, 'Beeswax Candle');
  await page.getByText('Added to your cart.').waitFor();
  await addToCart(page, `${shop.url}/products/${product.slug}`, 'Pewter Lantern');
  await page.getByText('Added to your cart.').waitFor();
  await page.goto(`${shop.url}/cart`);
  const main = page.getByRole('main');
  await main.getByTestId('estimated-total').waitFor();
  // Sold elsewhere while the page is open: the checkout is refused for it.
  await products.updateProduct(admin, product.id, { stock: { quantity: 0 } });
  await page.getByRole('button', { name: 'Check out' }).click();
  const refused = main.getByRole('alert').filter({ hasText: 'Checkout could not start' });
  await refused.waitFor();
  await main.getByText('Out of stock: remove it to check out.').waitFor();
  // Removed as it says: no "Remove the items marked" left over with none marked.
  await main.getByRole('button', { name: 'Remove Pewter Lantern' }).click();
  await main
    .getByRole('list', { name: 'Cart items' })
    .getByText('Pewter Lantern')
    .waitFor({ state: 'detached' });
  await expect.poll(() => main.locator('.totals[aria-busy="false"]').count()).toBe(1);
  expect(await refused.count()).toBe(0);
  expect(errors).toEqual([]);
});
