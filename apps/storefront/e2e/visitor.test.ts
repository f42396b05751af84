/**
 * The visitor journey in a real Chromium: home → collection → listing with sort, price and stock
 * filters and paging → product with options → cart drawer → cart page (quantity, removal, coupon,
 * estimate with address and shipping option) → hosted checkout → thank-you page. Plus optimistic
 * cart changes held while offline and sent in order when the network returns. Then the edges:
 * one checkout for a double click, the drawer's checkout with the cart page's address, the
 * quantity box, the most a cart line holds, a sold-out product, the gallery after a thumbnail
 * pick, a page past the last, missing products and collections, a session that cannot start, and
 * "newest" by creation.
 */
import { ApiKeyStrategy, cart, createClient, OAuthStrategy, products } from '@shopkit/sdk';
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

/**
 * Counts the page's create-checkout and redirect-session calls, and holds any navigation to the
 * emulator (the hosted checkout) so that the shop page stays alive to show a second checkout.
 */
async function watchCheckout(page: Page) {
  const calls = { checkout: 0, redirect: 0 };
  page.on('request', (r) => {
    if (r.url().endsWith('/ecom/v1/carts/current/create-checkout')) calls.checkout++;
    if (r.url().endsWith('/_api/redirects-api/v1/redirect-session')) calls.redirect++;
  });
  await page.route(`${shop.emu.url}/**`, (route) =>
    route.request().isNavigationRequest() ? route.abort('aborted') : route.continue(),
  );
  return calls;
}

it('starts one checkout for a double click on "Check out", in the drawer and on the cart page', async () => {
  const context = await shop.browser.newContext();
  const page = await context.newPage();
  await addToCart(page, `${shop.url}/products/canvas-tote`, 'Canvas Tote');
  await page.getByRole('button', { name: 'Cart, 1 item' }).waitFor();
  const calls = await watchCheckout(page);
  // Two clicks in one task: nothing can re-render the button between them.
  const doubleClick = (scope: string) =>
    page.evaluate((scope) => {
      const button = [...document.querySelectorAll<HTMLButtonElement>(`${scope} button`)].find(
        (b) => b.textContent === 'Check out',
      )!;
      button.click();
      button.click();
    }, scope);

  await page.getByRole('button', { name: 'Cart, 1 item' }).click();
  await page.getByRole('dialog', { name: 'Your cart' }).getByRole('list', { name: 'Cart items' }).waitFor();
  await doubleClick('dialog');
  await expect.poll(() => calls.redirect).toBe(1);
  await page.waitForTimeout(1000);
  expect(calls).toEqual({ checkout: 1, redirect: 1 });

  await page.goto(`${shop.url}/cart`);
  await page.getByTestId('estimated-total').filter({ hasText: /^\$\d/ }).waitFor();
  await doubleClick('.summary');
  await expect.poll(() => calls.redirect).toBe(2);
  await page.waitForTimeout(1000);
  expect(calls).toEqual({ checkout: 2, redirect: 2 });
  await context.close();
});

it('checks out from the drawer with the address and shipping option chosen on the cart page', async () => {
  const context = await shop.browser.newContext();
  const page = await context.newPage();
  await addToCart(page, `${shop.url}/products/canvas-tote`, 'Canvas Tote');
  await page.getByRole('button', { name: 'Cart, 1 item' }).waitFor();
  await page.getByRole('link', { name: 'Shop all' }).click();
  await page.getByRole('button', { name: 'Cart, 1 item' }).click();
  await page.getByRole('link', { name: 'View cart' }).click();
  await page.getByLabel('State').fill('NY');
  await page.getByLabel('City').fill('New York');
  await page.getByLabel('Postal code').fill('10001');
  await page.getByRole('button', { name: 'Estimate' }).click();
  const shipping = page.getByRole('group', { name: 'Shipping', exact: true });
  await shipping.getByRole('radio').last().check();
  const code = await shipping
    .getByRole('radio')
    .last()
    .evaluate((r) => r.id.split('-ship-').pop());

  const bodies: string[] = [];
  page.on('request', (r) => {
    if (r.url().endsWith('/create-checkout')) bodies.push(r.postData() ?? '');
  });
  await watchCheckout(page);
  await page.getByRole('button', { name: 'Cart, 1 item' }).click();
  await page.getByRole('dialog', { name: 'Your cart' }).getByRole('button', { name: 'Check out' }).click();
  await expect.poll(() => bodies.length).toBe(1);
  expect(JSON.parse(bodies[0]!)).toMatchObject({
    shippingAddress: { country: 'US', subdivision: 'NY', city: 'New York', postalCode: '10001' },
    selectedShippingOption: { code },
  });
  await context.close();
});

it('takes whole quantities, lets the box be cleared while typing, and stops at the stock left', async () => {
  const { page, errors } = await newPage(shop.browser);
  await page.goto(`${shop.url}/products/linen-shirt`);
  await page.getByLabel('S', { exact: true }).check();
  await page.getByLabel('White', { exact: true }).check();
  await page.getByTestId('availability').filter({ hasText: 'Only 4 left' }).waitFor();
  const qty = page.getByLabel('Quantity', { exact: true });
  const add = page.getByRole('button', { name: 'Add to cart' });

  await qty.click();
  await qty.press('ControlOrMeta+a');
  await qty.press('Backspace');
  expect(await qty.inputValue()).toBe('');
  await qty.pressSequentially('3');
  expect(await qty.inputValue()).toBe('3');

  await qty.fill('2.5');
  await page.getByText('Enter a whole number, such as 1 or 2.').waitFor();
  expect(await add.isDisabled()).toBe(true);
  await qty.fill('9');
  await page.getByText('Only 4 left: you can add up to 4.').waitFor();
  expect(await add.isDisabled()).toBe(true);
  expect(await qty.getAttribute('aria-invalid')).toBe('true');

  await qty.fill('4');
  await add.click();
  await page.getByText('Added to your cart.').waitFor();
  await page.getByRole('button', { name: 'Cart, 4 items' }).waitFor();
  // The cart holds all four now.
  await qty.fill('1');
  await page.getByText('All 4 in stock are already in your cart.').waitFor();
  expect(await add.isDisabled()).toBe(true);
  expect(errors).toEqual([]);
});

it('says how many of an item the cart can hold when an add or a quantity change would pass it', async () => {
  const { page, errors } = await newPage(shop.browser);
  const name = 'Linen Tea Towels (Set of 3)';
  await addToCart(page, `${shop.url}/products/linen-tea-towels`, name);
  await page.getByText('Added to your cart.').waitFor();
  // The line at the platform's most, set through the SDK with this browser's visitor tokens.
  const { clientId } = shop.emu.demo;
  const tokens = await page.evaluate(
    (key) => JSON.parse(localStorage.getItem(key)!),
    `shopkit:${clientId}:tokens`,
  );
  const visitor = createClient({ baseUrl: shop.emu.url, auth: OAuthStrategy({ clientId, tokens }) });
  const line = (await cart.getCurrentCart(visitor)).lineItems[0]!;
  await cart.updateCurrentCartLineItemQuantity(visitor, [{ id: line.id, quantity: 9999 }]);

  await page.getByRole('button', { name: 'Add to cart' }).click();
  await page
    .getByRole('alert')
    .filter({ hasText: 'Could not add to the cart. Your cart can hold at most 9999 of this item.' })
    .waitFor();

  await page.goto(`${shop.url}/cart`);
  const main = page.getByRole('main');
  await main.getByRole('button', { name: `One more ${name}` }).click();
  await main
    .getByRole('alert')
    .filter({ hasText: 'The cart was not changed. Your cart can hold at most 9999 of this item.' })
    .waitFor();
  await expect.poll(() => main.getByLabel(`${name} quantity`).textContent()).toBe('9999');
  expect(errors).toEqual([]);
});

it('says "Sold out" for a product with nothing left, whatever is chosen', async () => {
  const { page } = await newPage(shop.browser);
  await page.goto(`${shop.url}/products/straw-sun-hat`);
  await page.getByRole('heading', { level: 1, name: 'Straw Sun Hat' }).waitFor();
  await page.getByTestId('availability').filter({ hasText: 'Sold out' }).waitFor();
  expect(await page.getByRole('button', { name: 'Sold out' }).isDisabled()).toBe(true);
});

it('shows the chosen colour’s image again after a thumbnail was picked', async () => {
  const { page } = await newPage(shop.browser);
  await page.goto(`${shop.url}/products/linen-shirt`);
  await page.getByLabel('Sage', { exact: true }).check();
  const main = page.locator('img.gallery-main');
  await expect.poll(() => main.getAttribute('alt')).toBe('Linen Shirt in Sage');
  await page.getByRole('list', { name: 'Product images' }).getByRole('button').first().click();
  await expect.poll(() => main.getAttribute('alt')).toBe('Linen Shirt');
  await page.getByLabel('Sand', { exact: true }).check();
  await expect.poll(() => main.getAttribute('alt')).toBe('Linen Shirt in Sand');
});

it('says a page past the last one does not exist and links to the last page', async () => {
  const { page } = await newPage(shop.browser);
  await page.goto(`${shop.url}/products?page=99`);
  await page.getByText('This page does not exist.').waitFor();
  expect(await page.getByText('No products match these filters.').count()).toBe(0);
  expect(await page.getByRole('navigation', { name: 'Pages' }).count()).toBe(0);
  await page.getByRole('link', { name: /^Go to the last page \(\d+\)$/ }).click();
  await page.getByText(/^Page (\d+) of \1$/).waitFor();
  await page.getByRole('list', { name: 'Products' }).waitFor();
});

it('titles a missing product and a missing collection', async () => {
  const { page } = await newPage(shop.browser);
  await page.goto(`${shop.url}/products/linen-shirt`);
  await page.getByRole('heading', { level: 1, name: 'Linen Shirt' }).waitFor();
  // In-app navigation keeps the document, and so the previous title unless the page sets one.
  const go = (path: string) =>
    page.evaluate((path) => {
      history.pushState(null, '', path);
      dispatchEvent(new PopStateEvent('popstate'));
    }, path);
  await go('/products/no-such-product');
  await page.getByRole('heading', { name: 'Product not found' }).waitFor();
  await expect.poll(() => page.title()).toBe('Product not found · Loom & Kiln');
  await go('/collections/summer-linen');
  await page.getByRole('heading', { level: 1, name: 'Summer Linen' }).waitFor();
  await go('/collections/no-such-collection');
  await page.getByRole('heading', { name: 'Collection not found' }).waitFor();
  await expect.poll(() => page.title()).toBe('Collection not found · Loom & Kiln');
});

it('asks for a missing collection once: a 404 is an answer, not a failure to retry', async () => {
  const { page } = await newPage(shop.browser);
  let asked = 0;
  page.on('request', (r) => {
    if (r.url().startsWith(shop.emu.url) && r.url().includes('no-such-collection')) asked++;
  });
  await page.goto(`${shop.url}/collections/no-such-collection`);
  await page.getByRole('heading', { name: 'Collection not found' }).waitFor();
  // A retry would come a second after the first answer.
  await page.waitForTimeout(1500);
  expect(asked).toBe(1);
});

it('tells the shopper in words when the shop cannot start a session', async () => {
  const context = await shop.browser.newContext();
  const page = await context.newPage();
  await page.route('**/oauth2/token', (route) =>
    route.fulfill({ status: 500, contentType: 'application/json', body: '{}' }),
  );
  await page.goto(shop.url);
  const alert = page.getByRole('alert').filter({ hasText: /\S/ }).first();
  await alert.waitFor();
  const text = await alert.textContent();
  expect(text).toContain('The shop is having trouble right now. Please try again in a moment.');
  expect(text).not.toContain('something went wrong');
  await context.close();
});

// Last: it adds a product to the shop.
it('lists the newest products by creation, not by their last edit', async () => {
  const admin = createClient({
    baseUrl: shop.emu.url,
    auth: ApiKeyStrategy({ apiKey: shop.emu.demo.apiKey }),
  });
  await products.createProduct(admin, {
    name: 'Woven Basket',
    productType: 'physical',
    priceData: { price: 99 },
  });
  // An edit of an old product must not make it "new".
  const shirt = (await products.queryProducts(admin, { filter: { slug: { $eq: 'linen-shirt' } } }))
    .products[0]!;
  await products.updateProduct(admin, shirt.id, { description: 'Edited just now.' });

  const { page } = await newPage(shop.browser);
  await page.goto(shop.url);
  const fresh = page.getByRole('list', { name: 'New products' }).getByRole('heading');
  await fresh.first().waitFor();
  expect((await fresh.allTextContents())[0]).toBe('Woven Basket');
  expect(await fresh.allTextContents()).not.toContain('Linen Shirt');

  await page.goto(`${shop.url}/products?sort=newest`);
  await page.getByRole('list', { name: 'Products' }).waitFor();
  expect((await productNames(page))[0]).toBe('Woven Basket');
});
