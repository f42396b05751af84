/**
 * A tenth shopper audit, each defect reproduced in a real Chromium: a coupon applied offline showed
 * "Applying…" with nothing said (and so did the other cart changes held offline: a quantity, a
 * removal, an add); the estimate's "Try again" sent the address the shop had refused again, not the
 * one the form held once corrected; a new estimate's total was not announced to screen readers;
 * a checkout started from the cart drawer that failed said so on the cart page behind it too; a
 * read made offline (a new estimate address, another listing page, a page not seen yet) was held
 * with nothing said, showing the previous address's totals or page's products as the new ones, or
 * a skeleton for as long as the network was gone; a sold-out choice's text was faded below a
 * readable contrast; a link followed in a page's content (a product card) went with that page and
 * left the focus on the page's body, the new page unsaid; arriving on the cart page put the focus
 * in the coupon code box (scrolled to it, past the cart's lines), not at the page's start; "Apply"
 * pressed with no coupon code did nothing, saying nothing; a product page's "Could not add to the
 * cart" stayed beside another size chosen since; a product card's link said the product's name
 * twice (its image's name, then its heading).
 */
import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { addToCart, axeViolations, focusedLabel, newPage, setupStorefront, tokensKey } from './browser.ts';

const shop = setupStorefront();

/**
 * How long a read made offline may take to be said as failed: not "at once", since it is tried
 * again first by design (the SDK's three attempts, a second after them TanStack Query's one retry,
 * and its three attempts: up to some 2.5 s of backoff). The page's work on top took over 5 s with
 * the CPU slowed six times (SHOPKIT_E2E_SLOWDOWN=6); a read held offline would never be said.
 */
const READ_FAILS = 15_000;

/** A Beeswax Candle in the cart, and the cart page with its first estimate shown. */
async function candleOnCartPage(page: Page) {
  await addToCart(page, `${shop.url}/products/beeswax-candle`, 'Beeswax Candle');
  await page.getByText('Added to your cart.').waitFor();
  await page.goto(`${shop.url}/cart`);
  await page.getByRole('main').getByTestId('estimated-total').waitFor();
}

it('says that a coupon or a cart change made offline waits for the connection, then sends it', async () => {
  const { page, errors } = await newPage(shop.browser);
  await candleOnCartPage(page);
  const main = page.getByRole('main');
  await page.context().setOffline(true);
  await page.getByLabel('Coupon code').fill('SAVE10');
  await page.getByRole('button', { name: 'Apply' }).click();
  // Not "Applying…" with nothing said: the shopper is told the coupon waits for the connection.
  await main
    .getByRole('alert')
    .filter({ hasText: 'You are offline. The coupon will be applied once you are back online.' })
    .waitFor({ timeout: 5000 });
  await main.getByRole('button', { name: 'One more Beeswax Candle' }).click();
  await main
    .getByRole('alert')
    .filter({ hasText: 'You are offline. Your cart changes will be sent once you are back online.' })
    .waitFor({ timeout: 5000 });
  // Back online, both are sent, and the notices go.
  await page.context().setOffline(false);
  await main.getByText('Coupon SAVE10 applied').waitFor();
  await expect.poll(() => main.getByRole('alert').filter({ hasText: 'You are offline' }).count()).toBe(0);
  await expect.poll(() => page.getByRole('button', { name: 'Cart, 2 items' }).count()).toBe(1);
  // On a product page, an add held offline says so too.
  await page.getByRole('link', { name: 'Beeswax Candle' }).first().click();
  await page.getByRole('heading', { level: 1, name: 'Beeswax Candle' }).waitFor();
  await page
    .getByTestId('availability')
    .filter({ hasText: /In stock|left/ })
    .waitFor();
  await page.context().setOffline(true);
  await page.getByRole('button', { name: 'Add to cart' }).click();
  await page
    .getByText('You are offline. The item will be added once you are back online.')
    .waitFor({ timeout: 5000 });
  await page.context().setOffline(false);
  await page.getByText('Added to your cart.').waitFor();
  expect(errors).toEqual([]);
});

it('estimates at the corrected address on "Try again", not at the one the shop refused', async () => {
  const { page, errors } = await newPage(shop.browser);
  await addToCart(page, `${shop.url}/products/beeswax-candle`, 'Beeswax Candle');
  await page.getByText('Added to your cart.').waitFor();
  const sent: string[] = [];
  page.on('request', (r) => {
    if (r.url().endsWith('/estimate-totals') && r.method() === 'POST')
      sent.push(JSON.parse(r.postData() ?? '{}').shippingAddress?.country ?? '');
  });
  // An address the shop refuses (as kept for the tab: a country that is not two letters).
  await page.evaluate(
    (key) =>
      sessionStorage.setItem(
        key,
        JSON.stringify({
          member: false,
          choices: { destination: { country: 'U1', subdivision: '', city: '', postalCode: '' } },
        }),
      ),
    tokensKey(shop).replace(/tokens$/, 'checkout'),
  );
  await page.goto(`${shop.url}/cart`);
  const main = page.getByRole('main');
  const failure = main.getByRole('alert').filter({ hasText: 'Totals are not available' });
  await failure.waitFor();
  expect(sent).toEqual(['U1']);
  // Pressed as it is, "Try again" does not send the refused address again: the shopper is taken
  // to the country to correct it.
  await failure.getByRole('button', { name: 'Try again' }).click();
  await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute('name'))).toBe('country');
  expect(sent).toEqual(['U1']);
  // Corrected, "Try again" estimates at the address the form holds now.
  await page.getByLabel('Country code').fill('GB');
  await failure.getByRole('button', { name: 'Try again' }).click();
  await main.locator('.totals[aria-busy="false"]').waitFor();
  expect(await failure.count()).toBe(0);
  expect(sent).toEqual(['U1', 'GB']);
  // A country typed that is not two letters is not sent: the browser says what the field takes.
  await page.getByLabel('Country code').fill('1!');
  await page.getByRole('button', { name: 'Estimate' }).click();
  expect(await page.getByLabel('Country code').evaluate((i: HTMLInputElement) => i.validity.valid)).toBe(
    false,
  );
  await page.waitForTimeout(300);
  expect(sent).toEqual(['U1', 'GB']);
  expect(errors).toEqual([]);
});

it('announces a new estimate’s total in the page’s status region', async () => {
  const { page, errors } = await newPage(shop.browser);
  await candleOnCartPage(page);
  const main = page.getByRole('main');
  const totals = main.locator('.totals[aria-busy="false"]');
  await totals.waitFor();
  const status = main.locator('.summary [role="status"]');
  await page.getByLabel('Country code').fill('GB');
  await page.getByRole('button', { name: 'Estimate' }).click();
  // The total to Great Britain (its shipping and VAT), said once it shows.
  await expect.poll(() => status.textContent()).toMatch(/Estimated total: \$[\d,.]+\./);
  await totals.waitFor();
  const total = await main.getByTestId('estimated-total').textContent();
  expect(await status.textContent()).toContain(`Estimated total: ${total}.`);
  // Said once a page shows the estimate it had: not on arriving (nothing new), only after a change.
  await page.reload();
  await totals.waitFor();
  await page.waitForTimeout(300);
  expect(await status.textContent()).toBe('');
  expect(errors).toEqual([]);
});

it('says a checkout failed from the drawer in the drawer only, not on the cart page behind it', async () => {
  const { page, errors } = await newPage(shop.browser);
  await candleOnCartPage(page);
  const main = page.getByRole('main');
  await page.getByRole('button', { name: 'Cart, 1 item' }).click();
  const drawer = page.getByRole('dialog', { name: 'Your cart' });
  await page.context().setOffline(true);
  await drawer.getByRole('button', { name: 'Check out' }).click();
  await drawer.getByRole('alert').filter({ hasText: 'Checkout could not start' }).waitFor();
  await page.context().setOffline(false);
  const onPage = main.getByRole('alert').filter({ hasText: 'Checkout could not start' });
  expect(await onPage.count()).toBe(0);
  await page.keyboard.press('Escape');
  await expect.poll(() => drawer.isVisible()).toBe(false);
  expect(await onPage.count()).toBe(0);
  // Opened again, the drawer does not say it again either: the failure was said when it happened.
  // Not even as it opens: the drawer was shown with the old alert, taken away a render later (a
  // check made in between, on a loaded machine, found it), so every change of the open drawer is
  // watched for one.
  await page.evaluate(() => {
    const d = document.querySelector<HTMLDialogElement>('dialog.drawer')!;
    const w = window as { alertShown?: boolean };
    w.alertShown = false;
    new MutationObserver(() => {
      if (d.open && d.querySelector('[role="alert"]')) w.alertShown = true;
    }).observe(d, { attributes: true, childList: true, subtree: true });
  });
  await page.getByRole('button', { name: 'Cart, 1 item' }).click();
  await drawer.getByRole('button', { name: 'Check out' }).waitFor();
  expect(await drawer.getByRole('alert').count()).toBe(0);
  expect(await page.evaluate(() => (window as { alertShown?: boolean }).alertShown)).toBe(false);
  expect(errors).toEqual([]);
});

it('says a read made offline could not be made, not showing the previous one as its answer', async () => {
  const { page, errors } = await newPage(shop.browser);
  await candleOnCartPage(page);
  const main = page.getByRole('main');
  const usTotal = await main.getByTestId('estimated-total').textContent();
  await page.context().setOffline(true);
  await page.getByLabel('Country code').fill('GB');
  await page.getByRole('button', { name: 'Estimate' }).click();
  // Not the US total shown as Great Britain's, with nothing said.
  const failure = main
    .getByRole('alert')
    .filter({ hasText: 'Totals are not available. The shop could not be reached.' });
  await failure.waitFor({ timeout: READ_FAILS });
  expect(await main.getByTestId('estimated-total').count()).toBe(0);
  // Back online, the estimate is made again on its own.
  await page.context().setOffline(false);
  await expect.poll(() => main.getByTestId('estimated-total').textContent()).not.toBe(usTotal);
  expect(await failure.count()).toBe(0);
  expect(await main.locator('.totals').getAttribute('aria-busy')).toBe('false');

  // Another page of the listing: not page 1's products under "Page 2".
  await page.goto(`${shop.url}/products`);
  const list = main.getByRole('list', { name: 'Products' });
  await list.waitFor();
  await page.context().setOffline(true);
  await main.getByRole('button', { name: 'Next' }).click();
  await main
    .getByRole('alert')
    .filter({ hasText: 'The shop could not be reached.' })
    .waitFor({ timeout: READ_FAILS });
  expect(await list.count()).toBe(0);
  // A page not seen yet: said, not its skeleton for as long as the network is gone. Its own page
  // says so (the listing's alert above stays on screen until the new page commits: not its answer).
  await page.getByRole('link', { name: 'Kitchen & Table' }).click();
  await main
    .getByRole('heading', { level: 1, name: 'Something went wrong' })
    .waitFor({ timeout: READ_FAILS });
  await main.getByRole('alert').filter({ hasText: 'The shop could not be reached.' }).waitFor();
  await page.context().setOffline(false);
  await main.getByRole('list', { name: 'Products' }).waitFor();
  expect(errors).toEqual([]);
});

it('shows a sold-out choice in text a shopper can read', async () => {
  const { page, errors } = await newPage(shop.browser);
  await page.goto(`${shop.url}/products/cast-iron-skillet`);
  await page.locator('fieldset.option label.unavailable', { hasText: '30 cm' }).waitFor();
  expect(await axeViolations(page)).toEqual([]);
  expect(errors).toEqual([]);
});

it('takes the focus to the new page’s content when the link followed went with the page before', async () => {
  const { page, errors } = await newPage(shop.browser);
  const onMain = () => page.evaluate(() => document.activeElement?.id === 'main');
  await page.goto(`${shop.url}/products`);
  const card = page.getByRole('list', { name: 'Products' }).getByRole('link').first();
  await card.waitFor();
  // Arriving, the page starts at the top.
  expect(await onMain()).toBe(false);
  const name = (await card.getByRole('heading').textContent()) ?? '';
  await card.focus();
  await page.keyboard.press('Enter');
  await page.getByRole('heading', { level: 1, name }).waitFor();
  await expect.poll(onMain).toBe(true);
  await page.keyboard.press('Tab');
  // The next stop is in the product page's content, not the header.
  expect(await page.evaluate(() => !!document.activeElement?.closest('main'))).toBe(true);
  // A header link stays where it is, focused.
  await page.getByRole('link', { name: 'Kitchen & Table' }).focus();
  await page.keyboard.press('Enter');
  await page.getByRole('heading', { level: 1, name: 'Kitchen & Table' }).waitFor();
  await page.waitForTimeout(300);
  expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Kitchen & Table');
  expect(errors).toEqual([]);
});

it('starts the cart page at its top, not in the coupon code box', async () => {
  const { page, errors } = await newPage(shop.browser);
  await page.setViewportSize({ width: 400, height: 700 });
  await addToCart(page, `${shop.url}/products/beeswax-candle`, 'Beeswax Candle');
  // By the product page's "View cart" link, and by a load of the page.
  await page.getByRole('link', { name: 'View cart' }).click();
  await page.getByRole('main').getByTestId('estimated-total').waitFor();
  await page.waitForTimeout(300);
  expect(await focusedLabel(page)).not.toBe('Coupon code');
  await page.reload();
  await page.getByRole('main').getByTestId('estimated-total').waitFor();
  await page.waitForTimeout(300);
  expect(await focusedLabel(page)).not.toBe('Coupon code');
  expect(await page.evaluate(() => scrollY)).toBe(0);
  // A coupon applied and removed still takes the focus between the code box and its line.
  await page.getByLabel('Coupon code').fill('SAVE10');
  await page.getByRole('button', { name: 'Apply' }).click();
  await page.getByText('Coupon SAVE10 applied').waitFor();
  await page.getByRole('button', { name: 'Remove coupon' }).click();
  await expect.poll(() => focusedLabel(page)).toBe('Coupon code');
  expect(errors).toEqual([]);
});

it('says a coupon code is needed when "Apply" is pressed with none', async () => {
  const { page, errors } = await newPage(shop.browser);
  await candleOnCartPage(page);
  const main = page.getByRole('main');
  await page.getByLabel('Coupon code').fill('   ');
  await page.getByRole('button', { name: 'Apply' }).click();
  await main.getByRole('alert').filter({ hasText: 'Enter a coupon code.' }).waitFor({ timeout: 5000 });
  expect(await focusedLabel(page)).toBe('Coupon code');
  expect(await page.getByLabel('Coupon code').getAttribute('aria-invalid')).toBe('true');
  // A code then applies, and the words go with the form.
  await page.getByLabel('Coupon code').fill('SAVE10');
  await page.getByRole('button', { name: 'Apply' }).click();
  await main.getByText('Coupon SAVE10 applied').waitFor();
  expect(await main.getByRole('alert').filter({ hasText: 'Enter a coupon code.' }).count()).toBe(0);
  expect(errors).toEqual([]);
});

it('stops saying an add failed once another choice is made', async () => {
  const { page, errors } = await newPage(shop.browser);
  await page.goto(`${shop.url}/products/cast-iron-skillet`);
  await page.getByRole('heading', { level: 1, name: 'Cast Iron Skillet' }).waitFor();
  const size = (s: string) => page.locator('fieldset.option label', { hasText: s }).click();
  const status = page.getByTestId('availability');
  await size('20 cm');
  await status.filter({ hasText: /In stock|left/ }).waitFor();
  await page.route('**/add-to-cart**', (route) =>
    route.request().method() === 'OPTIONS' ? route.continue() : route.abort('internetdisconnected'),
  );
  await page.getByRole('button', { name: 'Add to cart' }).click();
  const failure = page.getByRole('alert').filter({ hasText: 'Could not add to the cart' });
  await failure.waitFor();
  await size('26 cm');
  await status.filter({ hasText: /In stock|left/ }).waitFor();
  expect(await failure.count()).toBe(0);
  expect(errors).toEqual([]);
});

it('names a product card’s link once, by its heading', async () => {
  const { page, errors } = await newPage(shop.browser);
  await page.goto(`${shop.url}/products`);
  const list = page.getByRole('list', { name: 'Products' });
  await list.getByRole('link').first().waitFor();
  expect(await list.getByRole('link').count()).toBeGreaterThan(0);
  // "New Linen Shirt Linen Shirt" (ribbon, image, heading): the name said again.
  expect(await list.getByRole('link', { name: /(^|\s)(.+) \2$/ }).count()).toBe(0);
  expect(errors).toEqual([]);
});
