/**
 * Member flows and the cart drawer at their edges, in a real Chromium: "Send a new code" sent once
 * per double click and keeping keyboard focus, a cart change made in another tab shown here (and
 * the server's cart fetched again when the tab comes back into view), the browser's Back after a
 * verification or a login not landing on the spent step, focus kept in the open drawer when a
 * refused refresh ends the member's session under it, and a session ended in one tab shown as
 * ended (not as a logout) in another.
 */
import { mailbox } from '@shopkit/emulator/testing';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  addToCart,
  endSession,
  focused,
  holdRequests,
  logInOnForm,
  newPage,
  ownerCall,
  registerInPage as register,
  registerInNode,
  setupStorefront,
  tokensKey,
} from './browser.ts';

const shop = setupStorefront();

/** Registers in the page; with e-mail verification on, it lands on /verify. */
const registerInPage = (page: Page, email: string) => register(page, shop.url, email);

async function newestCode(email: string) {
  return (await mailbox(shop.emu, email)).find((m) => m.code)?.code;
}

describe('with e-mail verification', () => {
  beforeAll(async () => {
    await ownerCall(shop.emu, '/_api/emulator/v1/settings', { emailVerificationRequired: true });
  });
  afterAll(async () => {
    await ownerCall(shop.emu, '/_api/emulator/v1/settings', { emailVerificationRequired: false });
  });

  it('sends one new code per double click on "Send a new code", and keeps keyboard focus on it', async () => {
    const { page, errors } = await newPage(shop.browser);
    await registerInPage(page, 'resend-twice@example.com');
    await page.getByRole('heading', { name: 'Verify your e-mail' }).waitFor();
    const sent: string[] = [];
    page.on('request', (r) => {
      if (r.url().endsWith('/auth/resend')) sent.push(r.url());
    });
    // The platform allows three new codes: a double click must not spend two of them.
    await page.getByRole('button', { name: 'Send a new code' }).dblclick();
    await page.getByRole('status').filter({ hasText: 'A new code is on its way' }).waitFor();
    await page.waitForTimeout(300);
    expect(sent).toHaveLength(1);

    // From the keyboard: focus stays on the button while the code is on its way, and after.
    const release = await holdRequests(page, '**/auth/resend');
    await page.getByRole('button', { name: 'Send a new code' }).focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => sent.length).toBe(2);
    expect(await focused(page)).toBe('BUTTON Send a new code');
    // Busy meanwhile: Enter again sends nothing more. The first code's word is gone meanwhile, so
    // the one waited for below is this code's.
    await page.keyboard.press('Enter');
    const word = page.getByRole('status').filter({ hasText: 'A new code is on its way' });
    await expect.poll(() => word.count()).toBe(0);
    release();
    await page.getByRole('status').filter({ hasText: 'A new code is on its way' }).waitFor();
    await page.waitForTimeout(300);
    expect(sent).toHaveLength(2);
    expect(await focused(page)).toBe('BUTTON Send a new code');
    expect(errors).toEqual([]);
    await page.close();
  });

  it('does not go Back to the spent verification step once the member is logged in', async () => {
    const { page, errors } = await newPage(shop.browser);
    const email = 'back-after-verify@example.com';
    await page.goto(`${shop.url}/products`);
    await registerInPage(page, email);
    await page.getByRole('heading', { name: 'Verify your e-mail' }).waitFor();
    await page.getByLabel('Verification code').fill((await newestCode(email))!);
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.getByRole('heading', { name: 'Your account' }).waitFor();
    await page.goBack();
    await expect.poll(() => new URL(page.url()).pathname).not.toBe('/account');
    // Not "There is no e-mail verification waiting… Log in again" to a member who is logged in.
    expect(new URL(page.url()).pathname).not.toBe('/verify');
    await page.getByRole('link', { name: 'Account' }).waitFor();
    expect(await page.locator('main').textContent()).not.toContain('Log in again');
    expect(errors).toEqual([]);
    await page.close();
  });
});

it('goes Back from the account page to where the member was before logging in, not to the login form', async () => {
  const email = await registerInNode(shop, 'back-after-login@example.com');
  const { page, errors } = await newPage(shop.browser);
  await page.goto(`${shop.url}/products`);
  await page.getByRole('link', { name: 'Log in' }).click();
  await logInOnForm(page, email);
  await page.goBack();
  await expect.poll(() => page.url()).toBe(`${shop.url}/products`);
  await page.getByRole('link', { name: 'Account' }).waitFor();
  expect(errors).toEqual([]);
  await page.close();
});

it('shows a cart change made in another tab, in the header and the open drawer', async () => {
  const context = await shop.browser.newContext();
  const a = await context.newPage();
  const b = await context.newPage();
  await addToCart(a, `${shop.url}/products/canvas-tote`, 'Canvas Tote');
  await a.getByRole('button', { name: 'Cart, 1 item' }).waitFor();
  await b.goto(`${shop.url}/`);
  await b.getByRole('button', { name: 'Cart, 1 item' }).click();
  const drawer = b.getByRole('dialog', { name: 'Your cart' });
  await drawer.locator('.line-name', { hasText: 'Canvas Tote' }).waitFor();

  await addToCart(a, `${shop.url}/products/beeswax-candle`, 'Beeswax Candle');
  await a.getByRole('button', { name: 'Cart, 2 items' }).waitFor();
  // Tab B follows without a reload: not the old figure, nor a checkout button for the old cart.
  await drawer.locator('.line-name', { hasText: 'Beeswax Candle' }).waitFor({ timeout: 5000 });
  expect(await b.locator('.cart-button .visually-hidden').textContent()).toBe('Cart, 2 items');

  // A change the other tab could not announce (the hosted checkout, another device): the cart is
  // asked for again when the tab comes back into view.
  await b.keyboard.press('Escape');
  await fetch(`${shop.emu.url}/ecom/v1/carts/current`, {
    method: 'DELETE',
    headers: {
      authorization: await b.evaluate(
        (key) => JSON.parse(localStorage.getItem(key)!).accessToken.value,
        tokensKey(shop),
      ),
    },
  });
  await b.evaluate(() => document.dispatchEvent(new Event('visibilitychange')));
  await b.getByRole('button', { name: 'Cart, 0 items' }).waitFor({ timeout: 5000 });
  await context.close();
});

it('keeps focus in the open drawer when a refused refresh ends the member’s session under it, says so there and offers to log in', async () => {
  const email = await registerInNode(shop, 'drawer-expiry@example.com');
  const { page, errors } = await newPage(shop.browser);
  await page.goto(`${shop.url}/login`);
  await logInOnForm(page, email);
  await addToCart(page, `${shop.url}/products/beeswax-candle`, 'Beeswax Candle');
  await page.getByText('Added to your cart.').waitFor();
  await page.getByRole('button', { name: 'Cart, 1 item' }).click();
  const drawer = page.getByRole('dialog', { name: 'Your cart' });
  await drawer.locator('.line-name', { hasText: 'Beeswax Candle' }).waitFor();
  // The platform ends the session (as a password change elsewhere would): both tokens refused.
  await endSession(shop, page);
  await drawer.getByRole('button', { name: 'One more Beeswax Candle' }).click();
  await page.getByRole('alert').filter({ hasText: 'Your session has ended' }).waitFor();
  // Said in the drawer (the page's banner is behind the modal), not that the cart is empty.
  await drawer.getByText('Your session has ended.').waitFor();
  expect(await drawer.textContent()).not.toContain('Your cart is empty');
  // The line and its button are gone: focus is on the drawer's heading, not the page's body.
  await expect.poll(() => focused(page)).toBe('H2 Your cart');
  await drawer.getByRole('link', { name: 'Log in again' }).click();
  await page.getByRole('heading', { name: 'Log in' }).waitFor();
  expect(await drawer.isVisible()).toBe(false);
  // The member's cart is theirs again after the login.
  await logInOnForm(page, email);
  await page.getByRole('button', { name: 'Cart, 1 item' }).waitFor();
  expect(errors).toEqual([]);
  await page.close();
});

it('sends a member who opens the login or registration form to the account page', async () => {
  const email = await registerInNode(shop, 'already-in@example.com');
  const { page, errors } = await newPage(shop.browser);
  await page.goto(`${shop.url}/login`);
  await logInOnForm(page, email);
  for (const path of ['/login', '/register']) {
    await page.goto(`${shop.url}/products`);
    await page.getByRole('link', { name: 'Account' }).waitFor();
    await page.goto(`${shop.url}${path}`);
    await page.getByRole('heading', { name: 'Your account' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/account');
    expect(await page.getByLabel('Password').count()).toBe(0);
    // In place of the form: Back goes to where the member was.
    await page.goBack();
    await expect.poll(() => new URL(page.url()).pathname).toBe('/products');
  }
  expect(errors).toEqual([]);
  await page.close();
});

it('shows a session that a refused refresh ended in another tab as ended, not as a logout', async () => {
  const email = await registerInNode(shop, 'two-tab-expiry@example.com');
  const context = await shop.browser.newContext();
  const a = await context.newPage();
  const b = await context.newPage();
  await a.goto(`${shop.url}/login`);
  await logInOnForm(a, email);
  await b.goto(`${shop.url}/`);
  await b.getByRole('link', { name: 'Account' }).waitFor();
  await endSession(shop, a);
  // Tab A's next call finds its tokens refused; tab B makes no call of its own.
  await a.reload();
  await a.getByRole('alert').filter({ hasText: 'Your session has ended' }).waitFor();
  await b.getByRole('alert').filter({ hasText: 'Your session has ended' }).waitFor({ timeout: 5000 });
  await b.getByRole('link', { name: 'Log in', exact: true }).waitFor();
  await context.close();
});
