/**
 * Edge states of the shop, each found in an audit and reproduced in a real Chromium: the listing's
 * in-stock filter flashing "no products" while its ids load, a non-whole page number in the URL,
 * the cart's totals still "calculating" after the estimate failed, and focus lost when the "−"
 * button takes a line's last item away, and a refused login dropping focus (and a double click
 * sending two logins); a coupon's removal shown busy and sent once, a coupon applied once per
 * double click, the chosen shipping option kept for a new estimate address (or replaced, saying
 * so), shipping made free by a coupon shown as free, and the cart drawer opened while the next
 * page renders closed by that page's arrival.
 */
import type { Page, Route } from 'playwright-core';
import { expect, it } from 'vitest';
import { addToCart, holdRequests, newPage, setupStorefront, slowCpu } from './browser.ts';

const shop = setupStorefront();

/** A beeswax candle in the cart, and the cart page open. */
async function candleOnCartPage(page: Page) {
  await addToCart(page, `${shop.url}/products/beeswax-candle`, 'Beeswax Candle');
  await page.getByText('Added to your cart.').waitFor();
  await page.goto(`${shop.url}/cart`);
}

/** Applies a coupon code on the cart page, and waits until the page says it applies. */
async function applyCoupon(page: Page, code: string) {
  await page.getByLabel('Coupon code').fill(code);
  await page.getByRole('button', { name: 'Apply' }).click();
  await page.getByText(`Coupon ${code} applied`).waitFor();
}

const productNames = (page: Page) =>
  page.getByRole('list', { name: 'Products' }).getByRole('heading').allTextContents();

/** The product query a request carries (POST body, or the GET form's base64url `.r`). */
function productQuery(route: Route) {
  const r = new URL(route.request().url()).searchParams.get('.r');
  return r ? Buffer.from(r, 'base64url').toString() : (route.request().postData() ?? '');
}

it('shows no "No products match" while the in-stock filter is loading its products', async () => {
  const { page, errors } = await newPage(shop.browser);
  // Hold the product query that filters by the in-stock ids until the page has been looked at.
  let release!: () => void;
  const held = new Promise<void>((r) => {
    release = r;
  });
  let arrived!: () => void;
  const filtered = new Promise<void>((r) => {
    arrived = r;
  });
  await page.route('**/products/query-platformized**', async (route) => {
    if (/"\$in":\["/.test(productQuery(route))) {
      arrived();
      await held;
    }
    await route.continue();
  });
  await page.goto(`${shop.url}/products`);
  await page.getByRole('list', { name: 'Products' }).waitFor();
  // Record any moment at which the listing says nothing matches.
  await page.evaluate(() => {
    const w = window as unknown as { sawEmpty: boolean };
    w.sawEmpty = false;
    const check = () => {
      const t = document.querySelector('.results')?.textContent ?? '';
      if (t.includes('No products match') || /(^|\D)0 products/.test(t)) w.sawEmpty = true;
    };
    new MutationObserver(check).observe(document.body, {
      subtree: true,
      childList: true,
      characterData: true,
    });
  });
  await page.getByLabel('In stock only').check();
  await page.waitForURL(/stock=in/);
  await filtered;
  expect(await page.locator('.results').textContent()).not.toContain('No products match');
  release();
  await page.waitForFunction(() => {
    const hs = [...document.querySelectorAll('[aria-label="Products"] h3')].map((h) => h.textContent);
    return hs.length > 0 && !hs.includes('Olive Wood Spoon');
  });
  await page.locator('.results[aria-busy="false"]').waitFor();
  expect(await page.evaluate(() => (window as unknown as { sawEmpty: boolean }).sawEmpty)).toBe(false);
  expect(errors).toEqual([]);
  await page.close();
});

it('reads a page number that is not whole in the URL as a whole page', async () => {
  const { page, errors } = await newPage(shop.browser);
  await page.goto(`${shop.url}/products`);
  await page.getByText(/^Page 1 of \d+$/).waitFor();
  const first = await productNames(page);
  await page.goto(`${shop.url}/products?page=1.5`);
  await page.getByRole('list', { name: 'Products' }).waitFor();
  await page.locator('.results[aria-busy="false"]').waitFor();
  expect(await page.locator('.pager [aria-current="page"]').textContent()).toMatch(/^Page 1 of \d+$/);
  expect(await productNames(page)).toEqual(first);
  expect(errors).toEqual([]);
  await page.close();
});

it('stops "calculating" the totals when the estimate fails, and offers to try again', async () => {
  const { page, errors } = await newPage(shop.browser);
  await addToCart(page, `${shop.url}/products/beeswax-candle`, 'Beeswax Candle');
  await page.getByText('Added to your cart.').waitFor();
  let failing = true;
  await page.route('**/carts/current/estimate-totals', (route) =>
    failing ? route.fulfill({ status: 503, contentType: 'application/json', body: '{}' }) : route.continue(),
  );
  await page.goto(`${shop.url}/cart`);
  await page.getByText('Totals are not available').waitFor();
  const summary = page.getByRole('region', { name: 'Order summary' });
  expect(await summary.textContent()).not.toContain('Calculating totals');
  expect(await summary.locator('[aria-busy="true"]').count()).toBe(0);
  failing = false;
  await summary.getByRole('button', { name: 'Try again' }).click();
  await page.getByTestId('estimated-total').filter({ hasText: /^\$\d/ }).waitFor();
  expect(errors).toEqual([]);
  await page.close();
});

it('keeps focus in the cart when "One fewer" takes the last item of a line away', async () => {
  const { page, errors } = await newPage(shop.browser);
  await addToCart(page, `${shop.url}/products/canvas-tote`, 'Canvas Tote');
  await page.getByText('Added to your cart.').waitFor();
  await addToCart(page, `${shop.url}/products/linen-tea-towels`, 'Linen Tea Towels (Set of 3)');
  await page.getByText('Added to your cart.').waitFor();

  // In the drawer: the line goes, focus moves to the next line's name.
  await page.getByRole('button', { name: /^Cart, 2 items$/ }).click();
  const drawer = page.getByRole('dialog', { name: 'Your cart' });
  const drawerLines = drawer.getByRole('list', { name: 'Cart items' });
  await drawerLines.getByRole('listitem').nth(1).waitFor();
  const [first, second] = await drawerLines.locator('.line-name').allTextContents();
  await drawer.getByRole('button', { name: `One fewer ${first}` }).focus();
  await page.keyboard.press('Enter');
  await expect.poll(() => drawerLines.getByRole('listitem').count()).toBe(1);
  expect(await page.evaluate(() => document.activeElement?.textContent)).toBe(second);
  await page.keyboard.press('Escape');
  await drawer.waitFor({ state: 'hidden' });

  // On the cart page: the last line goes, focus moves to the heading.
  await page.goto(`${shop.url}/cart`);
  const lines = page.getByRole('main').getByRole('list', { name: 'Cart items' });
  await lines.getByRole('listitem').first().waitFor();
  await page
    .getByRole('main')
    .getByRole('button', { name: `One fewer ${second}` })
    .focus();
  await page.keyboard.press('Enter');
  await page.locator('main').getByText('Your cart is empty.').waitFor();
  expect(
    await page.evaluate(() => `${document.activeElement?.tagName} ${document.activeElement?.textContent}`),
  ).toBe('H1 Your cart');
  expect(errors).toEqual([]);
  await page.close();
});

it('keeps keyboard focus on the form when a login is refused, and sends one login per double click', async () => {
  const { page, errors } = await newPage(shop.browser);
  await page.goto(`${shop.url}/login`);
  await page.getByLabel('E-mail').fill('nobody-here@example.com');
  await page.getByLabel('Password').fill('not the password 1');
  await page.getByRole('button', { name: 'Log in' }).focus();
  await page.keyboard.press('Enter');
  await page.getByRole('alert').filter({ hasText: /\w/ }).waitFor();
  await page.getByRole('button', { name: 'Log in' }).waitFor();
  // Still in the form, where the shopper can correct and send again, not back at the page's top.
  expect(await page.evaluate(() => document.activeElement?.closest('form') !== null)).toBe(true);
  // Still one login per double click.
  const sent: string[] = [];
  page.on('request', (r) => {
    if (/\/v2\/login$/.test(new URL(r.url()).pathname)) sent.push(r.url());
  });
  // The login held until the form shows it under way: the first refusal's alert, and the button
  // before the double click, would otherwise have been taken for this login's.
  const release = await holdRequests(page, '**/v2/login');
  await page.getByRole('button', { name: 'Log in' }).dblclick();
  await page.getByRole('button', { name: 'Please wait…' }).waitFor();
  expect(await page.getByRole('alert').filter({ hasText: /\w/ }).count()).toBe(0);
  release();
  await page.getByRole('button', { name: 'Please wait…' }).waitFor({ state: 'detached' });
  await page.getByRole('alert').filter({ hasText: /\w/ }).waitFor();
  expect(sent).toHaveLength(1);
  expect(errors).toEqual([]);
  await page.close();
});

it('shows the drawer subtotal as updating while a quantity change is on its way, then the new one', async () => {
  const { page, errors } = await newPage(shop.browser);
  await addToCart(page, `${shop.url}/products/beeswax-candle`, 'Beeswax Candle');
  await page.getByText('Added to your cart.').waitFor();
  await page.getByRole('button', { name: /^Cart, 1 item$/ }).click();
  const drawer = page.getByRole('dialog', { name: 'Your cart' });
  const subtotal = drawer.locator('p.subtotal');
  await subtotal.filter({ hasText: /\$\d/ }).waitFor();
  expect(await subtotal.getAttribute('aria-busy')).toBe('false');
  const before = await subtotal.locator('strong').textContent();
  // The change is held on its way: the quantity shows it at once, the amount is the old one.
  const release = await holdRequests(page, '**/update-line-items-quantity');
  await drawer.getByRole('button', { name: /^One more / }).click();
  await drawer.getByRole('list', { name: 'Cart items' }).getByText('2', { exact: true }).waitFor();
  expect(await subtotal.getAttribute('aria-busy')).toBe('true');
  expect(await subtotal.locator('strong').getAttribute('class')).toBe('updating');
  release();
  await drawer.locator('p.subtotal[aria-busy="false"]').waitFor();
  expect(await subtotal.locator('strong').textContent()).not.toBe(before);
  expect(errors).toEqual([]);
  await page.close();
});

it('says why a coupon that could not be removed is still applied', async () => {
  const { page, errors } = await newPage(shop.browser);
  await candleOnCartPage(page);
  await applyCoupon(page, 'SAVE10');
  await page.route('**/remove-coupon', (route) =>
    route.fulfill({
      status: 503,
      contentType: 'application/json',
      body: '{"message":"unavailable","details":{}}',
    }),
  );
  await page.getByRole('button', { name: 'Remove coupon' }).click();
  // The coupon was never dropped (the removal waits for the server): it stays, with the reason.
  await page.getByRole('alert').filter({ hasText: 'The coupon was not removed' }).waitFor();
  await page.getByText('Coupon SAVE10 applied').waitFor();
  expect(errors).toEqual([]);
  await page.close();
});

it('shows the account page loading, not blank, while no session is known yet', async () => {
  const { page, errors } = await newPage(shop.browser);
  // A new visitor whose first token is held: no session is known.
  const release = await holdRequests(page, '**/oauth2/token');
  await page.goto(`${shop.url}/account`);
  await page.getByRole('status').filter({ hasText: 'Loading your account' }).waitFor();
  release();
  // Then a visitor: the page sends them to log in.
  await page.waitForURL(/\/login$/);
  expect(errors).toEqual([]);
  await page.close();
});

it('shows "Remove coupon" busy while the removal is on its way, sends it once, and keeps the coupon until it answers', async () => {
  const { page, errors } = await newPage(shop.browser);
  await candleOnCartPage(page);
  await applyCoupon(page, 'SAVE10');
  let sent = 0;
  page.on('request', (r) => {
    if (r.url().endsWith('/remove-coupon')) sent++;
  });
  const release = await holdRequests(page, '**/remove-coupon');
  // Two presses before the page has re-rendered (the tightest double click).
  await page.getByRole('button', { name: 'Remove coupon' }).evaluate((b: HTMLElement) => {
    b.click();
    b.click();
  });
  // Not gone before the server says so: the coupon stays, its button says it is being removed.
  const busy = page.getByRole('button', { name: 'Removing coupon…' });
  await busy.waitFor();
  expect(await busy.getAttribute('aria-disabled')).toBe('true');
  expect(await page.getByText('Coupon SAVE10 applied').count()).toBe(1);
  expect(await page.getByLabel('Coupon code').count()).toBe(0);
  // Playwright waits for an aria-disabled button to be usable: press it as a shopper would.
  await busy.focus();
  await page.keyboard.press('Enter');
  await page.waitForTimeout(300);
  expect(sent).toBe(1);
  release();
  await page.getByLabel('Coupon code').waitFor();
  // The button pressed went with the coupon: focus goes to the code box, not to the page.
  await expect.poll(() => page.evaluate(() => document.activeElement?.tagName)).toBe('INPUT');
  await page.locator('.totals[aria-busy="false"]').waitFor();
  expect(await page.locator('.totals').textContent()).not.toContain('Discount');
  expect(sent).toBe(1);
  expect(errors).toEqual([]);
  await page.close();
});

it('keeps the chosen shipping option for a new estimate address, and says so when the address does not offer it', async () => {
  const { page, errors } = await newPage(shop.browser);
  await candleOnCartPage(page);
  const shipping = page.getByRole('group', { name: 'Shipping', exact: true });
  const totals = page.locator('.totals[aria-busy="false"]');
  await totals.waitFor();
  // Offered at what it is charged: its price and its handling fee (15.00 + 2.00).
  await shipping.getByLabel(/^Express delivery · \$17\.00/).check();
  await totals.getByText('$17.00').waitFor();

  // Another address that offers Express: it stays chosen, at that address's price.
  await page.getByLabel('Country code').fill('GB');
  await page.getByRole('button', { name: 'Estimate' }).click();
  await shipping.getByLabel(/^Express delivery · \$47\.00/).waitFor();
  await totals.getByText('$47.00').waitFor();
  expect(await shipping.getByLabel(/^Express delivery/).isChecked()).toBe(true);

  // An address that does not offer it (the platform refuses the option): the default, and a note.
  await page.route('**/carts/current/estimate-totals', (route) => {
    const body = JSON.parse(route.request().postData() ?? '{}');
    if (body.shippingAddress?.country === 'FR' && body.selectedShippingOption?.code === 'express')
      body.selectedShippingOption.code = 'express-not-to-fr';
    return route.continue({ postData: JSON.stringify(body) });
  });
  await page.getByLabel('Country code').fill('FR');
  await page.getByRole('button', { name: 'Estimate' }).click();
  await page
    .getByRole('status')
    .filter({ hasText: 'Express delivery is not offered to this address' })
    .waitFor();
  await totals.getByText('$20.00').waitFor();
  expect(await shipping.getByLabel(/^Standard delivery/).isChecked()).toBe(true);
  await page
    .getByRole('status')
    .filter({
      hasText: 'Express delivery is not offered to this address: Standard delivery is selected instead.',
    })
    .waitFor();
  expect(await page.getByText('Totals are not available').count()).toBe(0);

  // A platform that answers with its default instead of refusing: the same.
  await page.getByLabel('Country code').fill('GB');
  await page.getByRole('button', { name: 'Estimate' }).click();
  await page.getByRole('status').filter({ hasText: 'not offered' }).waitFor({ state: 'detached' });
  await shipping.getByLabel(/^Express delivery · \$47\.00/).check();
  await totals.getByText('$47.00').waitFor();
  await page.route('**/carts/current/estimate-totals', async (route) => {
    const body = JSON.parse(route.request().postData() ?? '{}');
    if (body.shippingAddress?.country !== 'DE') return route.fallback();
    delete body.selectedShippingOption;
    const res = await route.fetch({ postData: JSON.stringify(body) });
    const json = await res.json();
    for (const c of json.shippingInfo.carrierServiceOptions)
      c.shippingOptions = c.shippingOptions.filter((o: { code: string }) => o.code !== 'express');
    return route.fulfill({ response: res, json });
  });
  await page.getByLabel('Country code').fill('DE');
  await page.getByRole('button', { name: 'Estimate' }).click();
  await page
    .getByRole('status')
    .filter({
      hasText: 'Express delivery is not offered to this address: Standard delivery is selected instead.',
    })
    .waitFor();
  expect(await shipping.getByLabel(/^Standard delivery/).isChecked()).toBe(true);
  expect(errors).toEqual([]);
  await page.close();
});

it('shows shipping made free by a coupon as free, not as a charge taken off again as a discount', async () => {
  const { page, errors } = await newPage(shop.browser);
  await candleOnCartPage(page);
  const totals = page.locator('.totals[aria-busy="false"]');
  await totals.getByText('$5.00').waitFor();
  const total = await page.getByTestId('estimated-total').textContent();
  await applyCoupon(page, 'FREESHIP');
  // Shipping is free (the $5.00 it would cost struck through); the discount line is the items' only.
  const shippingLine = totals.locator('dt:text-is("Shipping") + dd');
  await shippingLine.filter({ hasText: /^Free/ }).waitFor();
  expect(await shippingLine.textContent()).toBe('Free was $5.00');
  expect(await totals.locator('dt').allTextContents()).not.toContain('Discount');
  // An option that costs nothing says so the same way.
  await page
    .getByRole('group', { name: 'Shipping', exact: true })
    .getByLabel(/^Pick up in store · Free/)
    .check();
  await shippingLine.filter({ hasText: /^Free$/ }).waitFor();
  // Tax on the shipping it no longer costs is gone, and the total is what is paid.
  expect(await page.getByTestId('estimated-total').textContent()).not.toBe(total);
  // With a coupon that also takes money off the items, the two stay apart.
  await page.getByRole('button', { name: 'Remove coupon' }).click();
  await applyCoupon(page, 'SAVE10');
  await page
    .getByRole('group', { name: 'Shipping', exact: true })
    .getByLabel(/^Standard delivery/)
    .check();
  await shippingLine.filter({ hasText: /^\$5\.00$/ }).waitFor();
  await totals.locator('dt:text-is("Discount") + dd').filter({ hasText: '−$2.20' }).waitFor();
  expect(errors).toEqual([]);
  await page.close();
});

it('applies a coupon once per double click', async () => {
  const { page, errors } = await newPage(shop.browser);
  await candleOnCartPage(page);
  await page.getByTestId('estimated-total').filter({ hasText: /^\$\d/ }).waitFor();
  const sent: string[] = [];
  page.on('request', (r) => {
    if (r.method() === 'PATCH' && r.url().endsWith('/carts/current')) sent.push(r.url());
  });
  await page.getByLabel('Coupon code').fill('SAVE10');
  await page.getByRole('button', { name: 'Apply' }).dblclick();
  await page.getByText('Coupon SAVE10 applied').waitFor();
  await page.waitForTimeout(300);
  expect(sent).toHaveLength(1);
  expect(errors).toEqual([]);
  await page.close();
});

it('keeps the drawer opened while the page a link leads to renders open when that page arrives', async () => {
  // A route change renders as a transition: the page before stays until the new one commits, and
  // arriving closed the drawer opened meanwhile. The CPU slowed down thirty times makes that time
  // long enough to open the drawer in.
  const { page, errors } = await newPage(shop.browser);
  await page.goto(`${shop.url}/products`);
  await page.getByRole('heading', { name: 'All products' }).waitFor();
  const restore = await slowCpu(page, 30);
  await page.getByRole('link', { name: 'Kitchen & Table' }).click();
  await page.getByRole('button', { name: /^Cart, / }).click();
  await restore();
  await page.getByRole('heading', { name: 'Kitchen & Table' }).waitFor();
  // The arrival's effects have run by the second frame after it.
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  expect(await page.getByRole('dialog', { name: 'Your cart' }).isVisible()).toBe(true);
  expect(errors).toEqual([]);
  await page.close();
});
