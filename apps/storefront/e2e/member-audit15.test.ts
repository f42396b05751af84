/**
 * Findings of the fifteenth audit of the member account flows in a real Chromium: a sign-up the
 * shop owner must approve was said as a refusal (in the form's alert, in red, the form left as it
 * was to be sent again, which then said "There is already an account with this e-mail"); a code
 * that verified such an account was said the same way, left its spent state token in the tab and
 * still offered "Send a new code"; the login and sign-up forms' e-mail fields were `autocomplete=
 * "email"`, not `"username"`, the token password managers pair with `current-password` /
 * `new-password` to fill and save a login. The login page's "password changed" notice came after
 * its form, and the "session ended" banner on the login page linked to that page itself.
 */
import { mailbox } from '@shopkit/emulator/testing';
import { afterEach, describe, expect, it } from 'vitest';
import {
  endSession,
  logInOnForm,
  newPage,
  ownerCall,
  registerInNode,
  registerInPage,
  setupStorefront,
} from './browser.ts';

const shop = setupStorefront();

const settings = (s: Record<string, boolean>) => ownerCall(shop.emu, '/_api/emulator/v1/settings', s);

describe('with owner approval', () => {
  afterEach(() => settings({ ownerApprovalRequired: false, emailVerificationRequired: false }));

  it('says a sign-up awaiting approval in the status region, not as a refusal', async () => {
    await settings({ ownerApprovalRequired: true });
    const { page, errors } = await newPage(shop.browser);
    await registerInPage(page, shop.url, 'awaiting-approval@example.com');
    await page.getByRole('status').filter({ hasText: 'waiting for the shop owner’s approval' }).waitFor();
    expect(await page.locator('form [role=alert]').textContent()).toBe('');
    expect(errors).toEqual([]);
  });

  it('says a verified account awaiting approval in the status region, with the pending code dropped', async () => {
    await settings({ ownerApprovalRequired: true, emailVerificationRequired: true });
    const email = 'verified-awaiting@example.com';
    const { page, errors } = await newPage(shop.browser);
    await registerInPage(page, shop.url, email);
    await page.getByRole('heading', { name: 'Verify your e-mail' }).waitFor();
    const code = (await mailbox(shop.emu, email)).find((m) => m.code)!.code!;
    // The code is six digits: a phone shows its number pad.
    expect(await page.getByLabel('Verification code').getAttribute('inputmode')).toBe('numeric');
    await page.getByLabel('Verification code').fill(code);
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.getByRole('status').filter({ hasText: 'waiting for the shop owner’s approval' }).waitFor();
    expect(await page.locator('form [role=alert]').textContent()).toBe('');
    expect(await page.evaluate(() => sessionStorage.getItem('shopkit:verification'))).toBeNull();
    expect(await page.getByRole('button', { name: 'Send a new code' }).count()).toBe(0);
    expect(errors).toEqual([]);
  });
});

it('marks the login and sign-up e-mail fields as the username for password managers', async () => {
  const { page } = await newPage(shop.browser);
  const tokens = () =>
    page.locator('form input').evaluateAll((els) => els.map((e) => e.getAttribute('autocomplete')));
  await page.goto(`${shop.url}/login`);
  await page.getByLabel('Password').waitFor();
  expect(await tokens()).toEqual(['username', 'current-password']);
  await page.goto(`${shop.url}/register`);
  await page.getByLabel('Password').waitFor();
  expect(await tokens()).toEqual(['given-name', 'username', 'new-password']);
});

it('does not tell a member who logged in again that they are logged out, on Back to the page an offline logout left', async () => {
  const email = await registerInNode(shop, 'logged-out-here-back@example.com');
  const { page, errors } = await newPage(shop.browser);
  await page.goto(`${shop.url}/login`);
  await logInOnForm(page, email);
  await page.context().setOffline(true);
  await page.getByRole('button', { name: 'Log out' }).click();
  const banner = page.getByRole('alert').filter({ hasText: 'You are logged out in this browser' });
  await banner.waitFor();
  await page.context().setOffline(false);
  await page.getByRole('link', { name: 'Log in' }).first().click();
  await logInOnForm(page, email);
  await page.goBack();
  await expect.poll(() => new URL(page.url()).pathname).toBe('/');
  await page.getByRole('link', { name: 'Account' }).waitFor();
  expect(await banner.count()).toBe(0);
  expect(errors).toEqual([]);
});

it('says "password changed" before the login form, and the session-ended banner there links nowhere', async () => {
  const { page, errors } = await newPage(shop.browser);
  await page.goto(`${shop.url}/login?reset=1`);
  const notice = page.getByText('Your password has been changed.');
  await notice.waitFor();
  // In reading (and keyboard) order, right after the heading: it came after the form.
  expect(
    await notice.evaluate(
      (n) =>
        !!(
          n.compareDocumentPosition(document.querySelector('main form')!) & Node.DOCUMENT_POSITION_FOLLOWING
        ),
    ),
  ).toBe(true);

  const email = await registerInNode(shop, 'ended-on-login@example.com');
  await page.goto(`${shop.url}/login`);
  await logInOnForm(page, email);
  await endSession(shop, page);
  await page
    .getByRole('link', { name: 'Log out' })
    .or(page.getByRole('button', { name: 'Log out' }))
    .waitFor();
  await page.goto(`${shop.url}/products`);
  const banner = page.getByRole('alert').filter({ hasText: 'Your session has ended' });
  await banner.waitFor();
  await banner.getByRole('link', { name: 'Log in again' }).click();
  await page.getByRole('heading', { name: 'Log in' }).waitFor();
  // On the login page itself the banner says what to do, with no link to the page it is on.
  await expect
    .poll(() => banner.textContent())
    .toBe('Your session has ended. Log in again to see your account.');
  expect(await banner.getByRole('link').count()).toBe(0);
  expect(errors).toEqual([]);
});
