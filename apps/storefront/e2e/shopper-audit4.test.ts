/**
 * A fourth shopper audit, each defect reproduced in a real Chromium: a failed removal of the
 * cart's only line brought the line back without a word (the list that held the error had gone
 * with the line); the cart's "One more" went past the stock left, and the line did not say so;
 * "Added to your cart" stayed under another variant once chosen.
 */
import { cart, createClient, OAuthStrategy } from '@shopkit/sdk';
import { expect, it } from 'vitest';
import { addToCart, focused, newPage, setupStorefront, tokensKey } from './browser.ts';

const shop = setupStorefront();

/** The cart of the visitor whose tokens `page` holds, through the SDK from Node. */
async function visitorCart(page: import('playwright-core').Page) {
  const tokens = await page.evaluate((key) => JSON.parse(localStorage.getItem(key)!), tokensKey(shop));
  return createClient({
    baseUrl: shop.emu.url,
    auth: OAuthStrategy({ clientId: shop.emu.demo.clientId, tokens }),
  });
}

it('says why when removing the cart’s only line fails, once the line is back', async () => {
  const { page, errors } = await newPage(shop.browser);
  await addToCart(page, `${shop.url}/products/beeswax-candle`, 'Beeswax Candle');
  await page.getByText('Added to your cart.').waitFor();
  await page.goto(`${shop.url}/cart`);
  const main = page.getByRole('main');
  await main.locator('.line-name', { hasText: 'Beeswax Candle' }).waitFor();
  // Each removal answered 503; counted, and held until the page shows the removal under way, so
  // that each pass waits for its own failure: the pass before's alert and line, still on the page
  // until the removal's first render, were taken for this one's.
  let failed = 0;
  let answer = () => {};
  await page.route('**/remove-line-items**', async (route) => {
    if (route.request().method() === 'OPTIONS') return route.continue();
    failed++;
    await new Promise<void>((resolve) => {
      answer = resolve;
    });
    return route.fulfill({
      status: 503,
      contentType: 'application/json',
      headers: { 'access-control-allow-origin': shop.url },
      body: '{"message":"down"}',
    });
  });
  const failedOnce = async (where: import('playwright-core').Locator, press: string) => {
    const before = failed;
    await where.getByRole('button', { name: press }).click();
    await expect.poll(() => failed).toBe(before + 1);
    // Under way: the line gone (the cart empty until the platform answers), no alert.
    await expect.poll(() => where.locator('.line-name', { hasText: 'Beeswax Candle' }).count()).toBe(0);
    expect(await where.getByRole('alert').count()).toBe(0);
    answer();
    await where.getByRole('alert').filter({ hasText: 'The cart was not changed.' }).waitFor();
    await where.locator('.line-name', { hasText: 'Beeswax Candle' }).waitFor();
  };
  for (const press of ['Remove Beeswax Candle', 'One fewer Beeswax Candle']) {
    await failedOnce(main, press);
    expect(await main.textContent()).not.toContain('Your cart is empty');
  }
  // The drawer's list goes and comes back the same way.
  await page.getByRole('button', { name: 'Cart, 1 item' }).click();
  const drawer = page.getByRole('dialog', { name: 'Your cart' });
  await failedOnce(drawer, 'Remove Beeswax Candle');
  // Its error is said of that cart: gone with it (another tab placed its order, say), not kept
  // above the next one.
  await cart.deleteCurrentCart(await visitorCart(page));
  await page.evaluate(() => document.dispatchEvent(new Event('visibilitychange')));
  await drawer.getByText('Your cart is empty.').waitFor();
  expect(await drawer.getByRole('alert').count()).toBe(0);
  expect(errors).toEqual([]);
  await page.close();
});

it('stops "One more" at the stock left, and says so on a line above it', async () => {
  const { page, errors } = await newPage(shop.browser);
  const name = 'Cast Iron Skillet';
  await addToCart(page, `${shop.url}/products/cast-iron-skillet`, name);
  await page.getByText('Added to your cart.').waitFor();
  // The 20 cm size has 12 in stock: the line at 11 of them.
  const visitor = await visitorCart(page);
  const line = (await cart.getCurrentCart(visitor)).lineItems[0]!;
  await cart.updateCurrentCartLineItemQuantity(visitor, [{ id: line.id, quantity: 11 }]);
  await page.goto(`${shop.url}/cart`);
  const main = page.getByRole('main');
  const more = main.getByRole('button', { name: `One more ${name}` });
  await more.click();
  await expect.poll(() => main.getByLabel(`${name} quantity`).textContent()).toBe('12');
  await expect.poll(() => more.getAttribute('aria-disabled')).toBe('true');
  // Pressed again (it keeps the focus): nothing is sent, the line stays at the stock left.
  let sent = 0;
  page.on('request', (r) => {
    if (r.url().includes('/update-line-items-quantity') && r.method() === 'POST') sent++;
  });
  await more.click({ force: true }); // Playwright waits for aria-disabled to go otherwise
  await page.keyboard.press('Enter');
  expect(await focused(page)).toBe('BUTTON +');
  expect((await cart.getCurrentCart(visitor)).lineItems[0]!.quantity).toBe(12);
  expect(sent).toBe(0);
  // Above the stock (set elsewhere): the line says how many are left.
  await cart.updateCurrentCartLineItemQuantity(visitor, [{ id: line.id, quantity: 14 }]);
  await page.reload();
  await main.getByText('Only 12 in stock: lower the quantity to check out.').waitFor();
  expect(errors).toEqual([]);
  await page.close();
});

it('drops "Added to your cart" when another variant is chosen', async () => {
  const { page, errors } = await newPage(shop.browser);
  await addToCart(page, `${shop.url}/products/cast-iron-skillet`, 'Cast Iron Skillet');
  await page.getByText('Added to your cart.').waitFor();
  await page.locator('fieldset.option label', { hasText: '26 cm' }).click();
  await expect.poll(() => page.getByText('Added to your cart.').count()).toBe(0);
  expect(errors).toEqual([]);
  await page.close();
});
