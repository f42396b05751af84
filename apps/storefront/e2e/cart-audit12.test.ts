/**
 * The cart page's twelfth audit, in a real Chromium: a country the platform refuses (`UK` for the
 * United Kingdom, `ZZ`) passed the form's two-letter check, so "Estimate" failed as a whole with
 * "Some of the details are not valid" and "Check out" sent it to be refused, nothing said beside
 * the field or of what to type (and no list of the codes); a refusal of an address's field (a
 * postal code) was not said beside it either; a line that went out of stock since the cart was
 * read stopped the checkout with the platform's words only, the line still shown as one that could
 * be bought, and a new estimate saying it was out of stock did not mark it either; a cart emptied
 * in another tab showed its old lines over "Calculating totals" for ever once estimated again; a
 * coupon that no longer applied (the subtotal fell below its minimum) went from the page unsaid,
 * and amounts in the platform's coupon sentences had no currency (`100.00`); the same estimated
 * total read again by the page itself (the tab shown again) was said again to screen readers.
 */
import { type AnyClient, ApiKeyStrategy, cart, createClient, OAuthStrategy, products } from '@shopkit/sdk';
import type { Page } from 'playwright-core';
import { beforeAll, expect, it } from 'vitest';
import { addToCart, axeViolations, focusedLabel, newPage, setupStorefront, tokensKey } from './browser.ts';

const shop = setupStorefront();
let admin: AnyClient;
beforeAll(() => {
  admin = createClient({ baseUrl: shop.emu.url, auth: ApiKeyStrategy({ apiKey: shop.emu.demo.apiKey }) });
});

/** A Beeswax Candle in the cart, and the cart page with its first estimate shown. */
async function candleOnCartPage(page: Page) {
  await addToCart(page, `${shop.url}/products/beeswax-candle`, 'Beeswax Candle');
  await page.getByText('Added to your cart.').waitFor();
  await page.goto(`${shop.url}/cart`);
  await page.getByRole('main').getByTestId('estimated-total').waitFor();
}

/** What is said of the field labelled `label` (its aria-describedby text), or ''. */
const saidOf = (page: Page, label: string) =>
  page.getByLabel(label, { exact: true }).evaluate((el) =>
    (el.getAttribute('aria-describedby') ?? '')
      .split(/\s+/)
      .filter(Boolean)
      .map((id) => document.getElementById(id)?.textContent ?? '')
      .join(' '),
  );

/** The estimate and checkout calls the page sends, with the country of each. */
function sentCalls(page: Page) {
  const sent: string[] = [];
  page.on('request', (r) => {
    if (r.method() !== 'POST') return;
    const country = () => JSON.parse(r.postData() ?? '{}').shippingAddress?.country ?? '';
    if (r.url().endsWith('/estimate-totals')) sent.push(`estimate ${country()}`);
    if (r.url().endsWith('/create-checkout')) sent.push(`checkout ${country()}`);
  });
  return sent;
}

it('says beside the country that UK is not a country code, and neither estimates nor checks out with it', async () => {
  const { page, errors } = await newPage(shop.browser);
  await candleOnCartPage(page);
  const sent = sentCalls(page);
  const country = page.getByLabel('Country code');
  await country.fill('UK');
  await page.getByRole('button', { name: 'Estimate' }).click();
  await expect
    .poll(() => saidOf(page, 'Country code'))
    .toBe('UK is not a country code; the United Kingdom is GB.');
  expect(await country.getAttribute('aria-invalid')).toBe('true');
  expect(await focusedLabel(page)).toBe('Country code');
  expect(await axeViolations(page)).toEqual([]);
  // "Check out" does not go ahead with it either: the shopper is taken back to the field.
  await page.getByRole('button', { name: 'Check out' }).focus();
  await page.getByRole('button', { name: 'Check out' }).click();
  await expect.poll(() => focusedLabel(page)).toBe('Country code');
  expect(await saidOf(page, 'Country code')).toBe('UK is not a country code; the United Kingdom is GB.');
  await page.waitForTimeout(300);
  expect(new URL(page.url()).pathname).toBe('/cart');
  expect(sent).toEqual([]);
  // Two letters of no country: what to do instead.
  await country.fill('ZZ');
  await page.getByRole('button', { name: 'Estimate' }).click();
  await expect
    .poll(() => saidOf(page, 'Country code'))
    .toBe('ZZ is not a country code. Choose a country from the list, such as US for the United States.');
  // The codes are offered by name; a country typed anew drops what was said, and is estimated.
  const offered = await country.evaluate((i: HTMLInputElement) =>
    [...(i.list?.options ?? [])].map((o) => `${o.value} ${o.label}`),
  );
  expect(offered).toContain('GB United Kingdom');
  expect(offered).not.toContain('UK United Kingdom');
  await country.fill('GB');
  expect(await saidOf(page, 'Country code')).toBe('');
  expect(await country.getAttribute('aria-invalid')).toBeNull();
  await page.getByRole('button', { name: 'Estimate' }).click();
  await expect.poll(() => sent).toEqual(['estimate GB']);
  await page.getByRole('main').locator('.totals[aria-busy="false"]').waitFor();
  expect(errors).toEqual([]);
});

it('says beside its field what the platform refused of an address: a kept country, a postal code', async () => {
  const { page, errors } = await newPage(shop.browser);
  await addToCart(page, `${shop.url}/products/beeswax-candle`, 'Beeswax Candle');
  await page.getByText('Added to your cart.').waitFor();
  // An address kept for the tab from before the country was checked: the platform refuses it.
  await page.evaluate(
    (key) =>
      sessionStorage.setItem(
        key,
        JSON.stringify({
          member: false,
          choices: {
            destination: { country: 'UK', subdivision: '', city: 'London', postalCode: 'SW1A 1AA' },
          },
        }),
      ),
    tokensKey(shop).replace(/tokens$/, 'checkout'),
  );
  await page.goto(`${shop.url}/cart`);
  const main = page.getByRole('main');
  await main.getByRole('alert').filter({ hasText: 'Totals are not available' }).waitFor();
  await expect
    .poll(() => saidOf(page, 'Country code'))
    .toBe('UK is not a country code; the United Kingdom is GB.');
  // Said, not focused: the page opened starts at its top.
  expect(await focusedLabel(page)).toBe('');
  // A platform that refuses a postal code of the state: said beside the postal code, focused.
  await page.route('**/estimate-totals', async (route) => {
    const body = JSON.parse(route.request().postData() ?? '{}');
    if (route.request().method() !== 'POST' || body.shippingAddress?.postalCode !== '99999')
      return route.continue();
    return route.fulfill({
      status: 400,
      contentType: 'application/json',
      headers: { 'access-control-allow-origin': shop.url },
      body: JSON.stringify({
        message: 'INVALID_ARGUMENT',
        details: {
          validationError: {
            fieldViolations: [
              {
                field: 'shippingAddress.postalCode',
                description: 'is not a postal code of New York',
                violatedRule: 'OTHER',
              },
            ],
          },
        },
      }),
    });
  });
  await page.getByLabel('Country code').fill('US');
  await page.getByLabel('State').fill('NY');
  await page.getByLabel('City').fill('New York');
  await page.getByLabel('Postal code').fill('99999');
  await page.getByRole('button', { name: 'Estimate' }).click();
  await expect
    .poll(() => saidOf(page, 'Postal code'))
    .toBe(
      'The shop does not take this postal code: it is not a postal code of New York. Check it and try again.',
    );
  expect(await focusedLabel(page)).toBe('Postal code');
  expect(await saidOf(page, 'Country code')).toBe('');
  expect(errors).toEqual([]);
});

it('marks a line that went out of stock since, and says how to check out, when the checkout is refused for it', async () => {
  const { page, errors } = await newPage(shop.browser);
  const { product } = await products.createProduct(admin, {
    name: 'Last Lantern',
    productType: 'physical',
    priceData: { price: 12 },
    stock: { trackInventory: true, quantity: 3 },
  });
  await addToCart(page, `${shop.url}/products/${product.slug}`, 'Last Lantern');
  await page.getByText('Added to your cart.').waitFor();
  await page.goto(`${shop.url}/cart`);
  const main = page.getByRole('main');
  await main.getByTestId('estimated-total').waitFor();
  // Sold elsewhere while the page is open.
  await products.updateProduct(admin, product.id, { stock: { quantity: 0 } });
  await page.getByRole('button', { name: 'Check out' }).click();
  const refused = main.getByRole('alert').filter({ hasText: 'Checkout could not start' });
  await refused.waitFor();
  expect(await refused.textContent()).toContain(
    'Last Lantern is out of stock. Remove the items marked in your cart, or lower their quantity, then check out again.',
  );
  // The line says so, read again.
  await main
    .getByRole('list', { name: 'Cart items' })
    .getByText('Out of stock: remove it to check out.')
    .waitFor();
  expect(new URL(page.url()).pathname).toBe('/cart');
  expect(errors).toEqual([]);
});

it('marks a line that went out of stock since when a new estimate says so', async () => {
  const { page, errors } = await newPage(shop.browser);
  const { product } = await products.createProduct(admin, {
    name: 'Spare Lantern',
    productType: 'physical',
    priceData: { price: 14 },
    stock: { trackInventory: true, quantity: 3 },
  });
  await addToCart(page, `${shop.url}/products/${product.slug}`, 'Spare Lantern');
  await page.getByText('Added to your cart.').waitFor();
  await page.goto(`${shop.url}/cart`);
  const main = page.getByRole('main');
  await main.getByTestId('estimated-total').waitFor();
  await products.updateProduct(admin, product.id, { stock: { quantity: 0 } });
  await page.getByLabel('Country code').fill('GB');
  await page.getByRole('button', { name: 'Estimate' }).click();
  await main
    .getByRole('list', { name: 'Cart items' })
    .getByText('Out of stock: remove it to check out.')
    .waitFor();
  expect(errors).toEqual([]);
});

it('shows the cart empty when another tab emptied it, not totals calculated for ever', async () => {
  const { page, errors } = await newPage(shop.browser);
  await candleOnCartPage(page);
  const main = page.getByRole('main');
  const tokens = await page.evaluate((key) => JSON.parse(localStorage.getItem(key)!), tokensKey(shop));
  const visitor = createClient({
    baseUrl: shop.emu.url,
    auth: OAuthStrategy({ clientId: shop.emu.demo.clientId, tokens }),
  });
  await cart.deleteCurrentCart(visitor);
  await page.getByLabel('Country code').fill('GB');
  await page.getByRole('button', { name: 'Estimate' }).click();
  await main.getByText('Your cart is empty.').waitFor();
  expect(await main.getByRole('list', { name: 'Cart items' }).count()).toBe(0);
  expect(errors).toEqual([]);
});

it('says why a coupon is refused, and why it no longer applies once the cart fell below its minimum, amounts in dollars', async () => {
  const { page, errors } = await newPage(shop.browser);
  const { product } = await products.createProduct(admin, {
    name: 'Brass Lamp',
    productType: 'physical',
    priceData: { price: 60 },
  });
  await addToCart(page, `${shop.url}/products/${product.slug}`, 'Brass Lamp');
  await page.getByText('Added to your cart.').waitFor();
  await page.goto(`${shop.url}/cart`);
  const main = page.getByRole('main');
  // Refused at $60.00: its minimum said as the page writes amounts.
  await page.getByLabel('Coupon code').fill('BIG15');
  await page.getByRole('button', { name: 'Apply' }).click();
  await main
    .getByRole('alert')
    .filter({ hasText: 'The coupon BIG15 needs a subtotal of at least $100.00.' })
    .waitFor();
  await main.getByRole('button', { name: 'One more Brass Lamp' }).click();
  await expect.poll(() => main.getByLabel('Brass Lamp quantity').textContent()).toBe('2');
  await page.getByLabel('Coupon code').fill('BIG15');
  await page.getByRole('button', { name: 'Apply' }).click();
  await main.getByText('Coupon BIG15 applied').waitFor();
  await main.getByRole('button', { name: 'One fewer Brass Lamp' }).click();
  await main
    .getByRole('alert')
    .filter({
      hasText: 'Your coupon no longer applies. The coupon BIG15 needs a subtotal of at least $100.00.',
    })
    .waitFor();
  expect(await main.getByText('Coupon BIG15 applied').count()).toBe(0);
  expect(errors).toEqual([]);
});

it('says the estimated total once, not again when the page reads the same total again by itself', async () => {
  const { page, errors } = await newPage(shop.browser);
  await page.clock.install();
  await candleOnCartPage(page);
  const main = page.getByRole('main');
  const status = main.locator('.summary [role="status"]');
  await page.getByLabel('Country code').fill('GB');
  await page.getByRole('button', { name: 'Estimate' }).click();
  await expect.poll(() => status.textContent()).toMatch(/^Estimated total: \$[\d,.]+\.$/);
  // What the status region says from now on.
  await status.evaluate((el) => {
    const said: string[] = [];
    (window as unknown as { said: string[] }).said = said;
    new MutationObserver(() => {
      if (el.textContent) said.push(el.textContent);
    }).observe(el, { childList: true, subtree: true, characterData: true });
  });
  // The tab shown again once the estimate is old: the page reads it again, the same total.
  await page.clock.fastForward(60_000);
  const again = page.waitForResponse((r) => r.url().endsWith('/estimate-totals'));
  await page.evaluate(() => document.dispatchEvent(new Event('visibilitychange')));
  await again;
  await main.locator('.totals[aria-busy="false"]').waitFor();
  await page.waitForTimeout(300);
  expect(await page.evaluate(() => (window as unknown as { said: string[] }).said)).toEqual([]);
  // Asked for again by the shopper, the same total is said again.
  await page.getByRole('button', { name: 'Estimate' }).click();
  await expect.poll(() => page.evaluate(() => (window as unknown as { said: string[] }).said.length)).toBe(1);
  expect(errors).toEqual([]);
});
