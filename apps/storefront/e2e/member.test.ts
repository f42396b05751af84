/**
 * The member journey in a real Chromium: a visitor fills a cart, registers, enters the e-mail
 * verification code from the emulator's mailbox, is logged in (silent login) with the cart kept,
 * logs out, logs in again with the password, and finds the same cart.
 */
import { beforeAll, expect, it } from 'vitest';
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

  const mail = (await (
    await fetch(`${shop.emu.url}/_api/emulator/v1/mailbox?to=${encodeURIComponent(email)}`)
  ).json()) as {
    messages: { code?: string }[];
  };
  const code = mail.messages.find((m) => m.code)?.code;
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
  await page.getByLabel('E-mail').fill(email);
  await page.getByRole('button', { name: 'Send reset link' }).click();
  await page.getByRole('status').filter({ hasText: 'a link to reset the password is on its way' }).waitFor();

  const mail = (await (
    await fetch(`${shop.emu.url}/_api/emulator/v1/mailbox?to=${encodeURIComponent(email)}`)
  ).json()) as {
    messages: { subject: string; link?: string }[];
  };
  const link = mail.messages.find((m) => m.subject === 'Reset your password')?.link;
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
