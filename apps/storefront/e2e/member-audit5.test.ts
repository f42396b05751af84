/**
 * Findings of an audit of the member account flows in a real Chromium: offline, "Log out" did
 * nothing (the member's tokens stayed, the page said "You are logged in", the button stayed
 * disabled) and "Log in" said "Please wait…" for as long as the connection was gone; a form whose
 * new attempt its own checks stopped still showed the last refusal ("There is already an account
 * with this e-mail" for another address); after a sign-up through the login form, Back went
 * through the spent forms; a member who reset the password in this browser lost the "Your
 * password has been changed" notice to a stale "You are logged in".
 */
import { mailbox } from '@shopkit/emulator/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  fillRegistration,
  logInOnForm,
  MEMBER_PASSWORD,
  newPage,
  ownerCall,
  registerInNode,
  registerInPage,
  setupStorefront,
  tokensKey,
} from './browser.ts';

const shop = setupStorefront();

const role = (page: import('playwright-core').Page) =>
  page.evaluate(
    (key) => JSON.parse(localStorage.getItem(key) ?? '{}').refreshToken?.role ?? 'none',
    tokensKey(shop),
  );

it('logs out offline: the tokens go, the shop shows the visitor; a login offline says the shop could not be reached', async () => {
  const email = await registerInNode(shop, 'offline-logout@example.com');
  const { page } = await newPage(shop.browser);
  await page.goto(`${shop.url}/login`);
  await logInOnForm(page, email);
  expect(await role(page)).toBe('member');
  await page.context().setOffline(true);
  await page.getByRole('button', { name: 'Log out' }).click();
  await expect.poll(() => role(page)).toBe('none');
  await expect.poll(() => new URL(page.url()).pathname).toBe('/');
  await page.getByRole('link', { name: 'Log in' }).first().waitFor();
  expect(await page.locator('main').textContent()).not.toContain('You are logged in');

  await page.getByRole('link', { name: 'Log in' }).first().click();
  await page.getByLabel('E-mail').fill(email);
  await page.getByLabel('Password').fill(MEMBER_PASSWORD);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page
    .getByRole('alert')
    .filter({ hasText: 'The shop could not be reached' })
    .waitFor({ timeout: 5000 });
  expect(await page.getByRole('button', { name: 'Log in' }).isEnabled()).toBe(true);
  await page.context().setOffline(false);
  await page.close();
});

it("does not show the last refusal beside a new attempt the form's own checks stopped", async () => {
  const taken = await registerInNode(shop, 'taken-stale@example.com');
  const { page, errors } = await newPage(shop.browser);
  await registerInPage(page, shop.url, taken);
  const alert = page.locator('form [role=alert]');
  await alert.filter({ hasText: 'already an account' }).waitFor();
  await page.getByLabel('E-mail').fill('someone-else@example.com');
  await page.getByLabel('Password').fill('short');
  await page.getByRole('button', { name: 'Create account' }).click();
  await page.getByText('Use at least 8 characters.').waitFor();
  expect(await alert.textContent()).not.toContain('already an account');
  expect(errors).toEqual([]);
  await page.close();
});

describe('with e-mail verification', () => {
  beforeAll(() => ownerCall(shop.emu, '/_api/emulator/v1/settings', { emailVerificationRequired: true }));
  afterAll(() => ownerCall(shop.emu, '/_api/emulator/v1/settings', { emailVerificationRequired: false }));

  it('says a refused code beside its field, described by it and focused', async () => {
    const email = 'wrong-code@example.com';
    const { page, errors } = await newPage(shop.browser);
    await registerInPage(page, shop.url, email);
    await page.getByRole('heading', { name: 'Verify your e-mail' }).waitFor();
    const field = page.getByLabel('Verification code');
    await field.fill('000000');
    await field.press('Enter');
    await expect.poll(() => field.getAttribute('aria-invalid')).toBe('true');
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute('name'))).toBe('code');
    const described = await field.evaluate((el) =>
      (el.getAttribute('aria-describedby') ?? '')
        .split(' ')
        .map((id) => document.getElementById(id)?.textContent)
        .join(' '),
    );
    expect(described).toContain('The code is wrong or has expired');
    expect(errors).toEqual([]);
    await page.close();
  });

  it('goes Back from the account to where the member was before the login form, after a sign-up from it', async () => {
    const email = 'back-after-signup@example.com';
    const { page, errors } = await newPage(shop.browser);
    await page.goto(`${shop.url}/products`);
    await page.getByRole('link', { name: 'Log in' }).first().click();
    await page.getByRole('link', { name: 'Create an account' }).click();
    await fillRegistration(page, email);
    await page.getByRole('heading', { name: 'Verify your e-mail' }).waitFor();
    const code = (await mailbox(shop.emu, email)).find((m) => m.code)!.code!;
    await page.getByLabel('Verification code').fill(code);
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.getByRole('heading', { name: 'Your account' }).waitFor();
    await page.goBack();
    await expect.poll(() => page.url()).toBe(`${shop.url}/products`);
    expect(errors).toEqual([]);
    await page.close();
  });
});

it('keeps "Your password has been changed" for a member who reset the password in this browser', async () => {
  const email = await registerInNode(shop, 'reset-while-in@example.com');
  const { page } = await newPage(shop.browser);
  await page.goto(`${shop.url}/login`);
  await logInOnForm(page, email);
  await page.goto(`${shop.url}/forgot-password`);
  await page.getByLabel('E-mail').fill(email);
  await page.getByRole('button', { name: 'Send reset link' }).click();
  await page.getByRole('status').filter({ hasText: 'on its way' }).waitFor();
  const link = (await mailbox(shop.emu, email)).find((m) => m.subject === 'Reset your password')!.link!;
  await page.goto(link);
  await page.getByLabel('New password').fill('a brand new password 7');
  await page.getByRole('button', { name: 'Save' }).click();
  await page.getByRole('link', { name: 'Back to the site' }).click();
  await page.getByText('Your password has been changed').waitFor();
  // Still there once the ended session has been noticed, and never "You are logged in".
  await page.waitForTimeout(1500);
  expect(await page.getByText('Your password has been changed').isVisible()).toBe(true);
  expect(await page.locator('main').textContent()).not.toContain('You are logged in');
  await page.getByLabel('E-mail').fill(email);
  await page.getByLabel('Password').fill('a brand new password 7');
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.getByRole('heading', { name: 'Your account' }).waitFor();
  await page.close();
});
