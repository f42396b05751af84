/**
 * The member journey in a real Chromium: a visitor fills a cart, registers, enters the e-mail
 * verification code from the emulator's mailbox, is logged in (silent login) with the cart kept,
 * logs out, logs in again with the password, and finds the same cart. Then what goes wrong:
 * verification after a reload (and a new code), /verify with nothing pending, a throttled login,
 * the password rule, a silent-login frame that fails, and a logout in another tab.
 */
import { mailbox } from '@shopkit/emulator/testing';
import { createClient, identity, OAuthStrategy } from '@shopkit/sdk';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addToCart, newPage, ownerCall, setupStorefront } from './browser.ts';

const shop = setupStorefront();
beforeAll(async () => {
  await ownerCall(shop.emu, '/_api/emulator/v1/settings', { emailVerificationRequired: true });
});

it('signs up with e-mail verification, keeps the visitor cart, logs out and back in', async () => {
  const { page, errors } = await newPage(shop.browser);
  const email = 'grace@example.com';
  const password = 'correct horse battery 9';

  await addToCart(page, `${shop.url}/products/canvas-tote`, 'Canvas Tote');
  await page.getByRole('button', { name: 'Cart, 1 item' }).waitFor();

  await page.getByRole('link', { name: 'Log in' }).click();
  await page.getByRole('link', { name: 'Create an account' }).click();
  await page.getByLabel('First name').fill('Grace');
  await page.getByLabel('E-mail').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Create account' }).click();
  await page.getByRole('heading', { name: 'Verify your e-mail' }).waitFor();

  const code = (await mailbox(shop.emu, email)).find((m) => m.code)?.code;
  expect(code).toMatch(/^\w+$/);
  await page.getByLabel('Verification code').fill('000000x');
  await page.getByRole('button', { name: 'Verify' }).click();
  await page.locator('.field-error').filter({ hasText: /\S/ }).waitFor();
  await page.getByLabel('Verification code').fill(code!);
  await page.getByRole('button', { name: 'Verify' }).click();
  await page.getByRole('heading', { name: 'Your account' }).waitFor();
  await page.getByText('Your cart has 1 item.').waitFor();
  await page.getByRole('link', { name: 'Account' }).waitFor();
  const role = await page.evaluate(
    (key) => JSON.parse(localStorage.getItem(key) ?? '{}').refreshToken?.role,
    `shopkit:${shop.emu.demo.clientId}:tokens`,
  );
  expect(role).toBe('member');

  // The session is restored from storage on reload.
  await page.reload();
  await page.getByText('Your cart has 1 item.').waitFor();

  await page.getByRole('button', { name: 'Log out' }).click();
  await page.waitForURL((u) => u.href === `${shop.url}/`);
  await page.getByRole('link', { name: 'Log in' }).waitFor();
  await page.getByRole('button', { name: 'Cart, 0 items' }).waitFor();

  await page.getByRole('link', { name: 'Log in' }).click();
  await page.getByRole('heading', { name: 'Log in' }).waitFor();
  await page.getByLabel('E-mail').fill(email);
  await page.getByLabel('Password').fill('wrong password 1');
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.locator('.field-error').filter({ hasText: /\S/ }).waitFor();
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.getByRole('heading', { name: 'Your account' }).waitFor();
  await page.getByText('Your cart has 1 item.').waitFor();
  await page.getByRole('button', { name: 'Cart, 1 item' }).waitFor();
  expect(errors).toEqual([]);
});

it('resets a forgotten password through the link in the mailbox and logs in with the new one', async () => {
  const page = await shop.browser.newPage();
  const email = 'grace@example.com';
  await page.goto(`${shop.url}/login`);
  await page.getByRole('link', { name: 'Forgot your password?' }).click();
  // The login page's E-mail stays until the new page renders: wait for it.
  await page.getByRole('heading', { name: 'Reset your password' }).waitFor();
  await page.getByLabel('E-mail').fill(email);
  await page.getByRole('button', { name: 'Send reset link' }).click();
  await page.getByRole('status').filter({ hasText: 'a link to reset the password is on its way' }).waitFor();

  const link = (await mailbox(shop.emu, email)).find((m) => m.subject === 'Reset your password')?.link;
  expect(link).toBeDefined();
  await page.goto(link!);
  await page.getByLabel('New password').fill('a brand new password 7');
  await page.getByRole('button', { name: 'Save' }).click();
  await page.getByRole('link', { name: 'Back to the site' }).click();
  await page.getByText('Your password has been changed.').waitFor();
  await page.getByLabel('E-mail').fill(email);
  await page.getByLabel('Password').fill('a brand new password 7');
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.getByRole('heading', { name: 'Your account' }).waitFor();
});

/** The newest verification code mailed to `email`, and how many codes were mailed. */
async function codes(email: string) {
  const all = (await mailbox(shop.emu, email)).filter((m) => m.code).map((m) => m.code!);
  return { newest: all[0], count: all.length };
}

/** A Node client of the shop's site, as a visitor. */
const nodeClient = () =>
  createClient({ baseUrl: shop.emu.url, auth: OAuthStrategy({ clientId: shop.emu.demo.clientId }) });

/** Registers a member from Node (no browser session); returns the address. */
async function registerInNode(email: string, password: string) {
  const r = await identity.register(nodeClient(), { email, password });
  expect(r.loginState).not.toBe('FAILURE');
  return email;
}

async function registerInPage(page: Page, email: string, password: string) {
  await page.goto(`${shop.url}/register`);
  await page.getByLabel('First name').fill('Ada');
  await page.getByLabel('E-mail').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Create account' }).click();
}

it('finishes e-mail verification after a reload, with a new code asked for from the page', async () => {
  const { page, errors } = await newPage(shop.browser);
  const email = 'reload@example.com';
  await registerInPage(page, email, 'correct horse battery 9');
  await page.getByRole('heading', { name: 'Verify your e-mail' }).waitFor();
  // The state token stays out of the address bar.
  expect(page.url()).toBe(`${shop.url}/verify`);

  await page.reload();
  await page.getByLabel('Verification code').waitFor();
  await page.getByRole('button', { name: 'Send a new code' }).click();
  await page.getByRole('status').filter({ hasText: 'A new code is on its way' }).waitFor();
  const { newest, count } = await codes(email);
  expect(count).toBe(2);

  await page.reload();
  await page.getByLabel('Verification code').fill(newest!);
  await page.getByRole('button', { name: 'Verify' }).click();
  await page.getByRole('heading', { name: 'Your account' }).waitFor();
  await page.getByRole('link', { name: 'Account' }).waitFor();
  // Used up: the pending verification is gone from the tab.
  expect(await page.evaluate(() => sessionStorage.getItem('shopkit:verification'))).toBeNull();
  expect(errors).toEqual([]);
});

it('says plainly to log in again when /verify is opened with no verification pending', async () => {
  const { page, errors } = await newPage(shop.browser);
  await page.goto(`${shop.url}/verify`);
  await page.getByRole('heading', { name: 'Verify your e-mail' }).waitFor();
  expect(await page.getByLabel('Verification code').count()).toBe(0);
  expect(await page.locator('main').textContent()).not.toContain('_state');
  await page.getByRole('link', { name: 'Log in again to get a new code' }).click();
  await page.getByRole('heading', { name: 'Log in' }).waitFor();
  expect(errors).toEqual([]);
});

it('shows the server’s throttling message after too many wrong passwords', async () => {
  const email = await registerInNode('throttled@example.com', 'correct horse battery 9');
  // The form is filled first, so that the click follows the last failure at once: a loaded
  // machine took longer than the lock to open the page, and the lock was over by the click.
  const { page } = await newPage(shop.browser);
  await page.goto(`${shop.url}/login`);
  await page.getByLabel('E-mail').fill(email);
  await page.getByLabel('Password').fill('wrong password 1');
  // Five failures lock the address for 1 s, each one more doubles it: fail until the lock is 4 s.
  const client = nodeClient();
  for (let failures = 0; failures < 7; ) {
    const r = await identity.login(client, { email, password: 'wrong password 1' });
    const wait = /try again in (\d+) s/.exec(r.error ?? '');
    if (wait) await new Promise((ok) => setTimeout(ok, Number(wait[1]) * 1000));
    else failures++;
  }
  await page.getByRole('button', { name: 'Log in' }).click();
  await page
    .getByRole('alert')
    .filter({ hasText: /^Too many failed logins; try again in \d+ s\.$/ })
    .waitFor();
});

it('explains the password rule in words, before sending, instead of the platform’s field path', async () => {
  const { page, errors } = await newPage(shop.browser);
  const sent: string[] = [];
  page.on('request', (r) => {
    if (r.url().includes('/authentication/v2/register')) sent.push(r.url());
  });
  await page.goto(`${shop.url}/register`);
  // The rule is shown with the field and read with it.
  const password = page.getByLabel('Password');
  expect(await password.getAttribute('aria-describedby')).toBeTruthy();
  await page.getByText('At least 8 characters.').waitFor();
  await registerInPage(page, 'short@example.com', 'short');
  await page.getByText('Use at least 8 characters.').waitFor();
  expect(await password.getAttribute('aria-invalid')).toBe('true');
  expect(await page.evaluate(() => document.activeElement?.getAttribute('name'))).toBe('password');
  expect(await page.locator('main').textContent()).not.toMatch(/INVALID_ARGUMENT|options\./);
  await page.getByLabel('E-mail').fill('not an address');
  await page.getByRole('button', { name: 'Create account' }).click();
  await page.getByText('Enter an e-mail address such as name@example.com.').waitFor();
  expect(sent).toEqual([]);

  // A password the browser lets through (long enough) but the platform refuses (over its 256).
  await registerInPage(page, 'long-password@example.com', 'x'.repeat(257));
  await page.getByText('Use at most 256 characters.').waitFor();
  expect(sent).toHaveLength(1);
  expect(await password.getAttribute('aria-invalid')).toBe('true');
  expect(await page.locator('main').textContent()).not.toMatch(/INVALID_ARGUMENT|options\./);
  expect(errors).toEqual([]);
});

describe('without e-mail verification', () => {
  beforeAll(async () => {
    await ownerCall(shop.emu, '/_api/emulator/v1/settings', { emailVerificationRequired: false });
  });
  afterAll(async () => {
    await ownerCall(shop.emu, '/_api/emulator/v1/settings', { emailVerificationRequired: true });
  });

  it('says the account is ready and offers to log in when the silent-login frame fails', async () => {
    const { page, errors } = await newPage(shop.browser);
    const email = 'frameless@example.com';
    const password = 'correct horse battery 9';
    await page.route('**/oauth2/authorize**', (route) => route.abort());
    const started = Date.now();
    await registerInPage(page, email, password);
    await page.getByText('Your account is ready').waitFor({ timeout: 30_000 });
    // The storefront's own limit, not the SDK's two minutes.
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(await page.getByRole('button', { name: 'Please wait…' }).count()).toBe(0);
    expect(await page.locator('main').textContent()).not.toContain('OAuth flow timed out');

    await page.unroute('**/oauth2/authorize**');
    await page.getByRole('link', { name: 'Log in', exact: true }).last().click();
    await page.getByRole('heading', { name: 'Log in' }).waitFor();
    await page.getByLabel('E-mail').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByRole('heading', { name: 'Your account' }).waitFor();
    expect(errors).toEqual([]);
  });

  it('shows a logout made in another tab', async () => {
    const email = await registerInNode('two-tabs@example.com', 'correct horse battery 9');
    const context = await shop.browser.newContext();
    const a = await context.newPage();
    await a.goto(`${shop.url}/login`);
    await a.getByLabel('E-mail').fill(email);
    await a.getByLabel('Password').fill('correct horse battery 9');
    await a.getByRole('button', { name: 'Log in' }).click();
    await a.getByRole('heading', { name: 'Your account' }).waitFor();

    const b = await context.newPage();
    await b.goto(`${shop.url}/account`);
    await b.getByRole('heading', { name: 'Your account' }).waitFor();
    await b.getByRole('link', { name: 'Account' }).waitFor();

    await a.getByRole('button', { name: 'Log out' }).click();
    await a.waitForURL(`${shop.url}/`);
    // Tab B follows without a reload: the header offers a login and the account page is left.
    await b.getByRole('link', { name: 'Log in' }).waitFor();
    await b.waitForURL(`${shop.url}/login`);
    await context.close();
  });
});
