/**
 * The emulator's hosted pages as a shopper or member uses them in Chromium (audit 12): the checkout
 * form refused and then placed, the login page's wrong password, e-mail code and forgotten
 * password, the reset link from the development mailbox, and the emulated identity provider's
 * page; on a 360 px phone, with the keyboard, and with a double click.
 */
import {
  ApiKeyStrategy,
  ChannelType,
  cart,
  createClient,
  identity,
  OAuthStrategy,
  op,
  redirects,
  STORES_APP_ID,
} from '@shopkit/sdk';
import type { Locator, Page } from 'playwright-core';
import { expect, it } from 'vitest';
import {
  fillHostedCheckout,
  newPage,
  ownerCall,
  sdkShop,
  setupShopOrigin,
  withSdkClient,
} from './browser.ts';

const shop = setupShopOrigin(sdkShop);
const PASSWORD = 'long enough pw';
const NEW_PASSWORD = 'another long pw';

const queryProducts = op<[query: unknown], { products: Array<{ id: string; slug: string }> }>({
  method: 'POST',
  path: '/stores-reader/v1/products/query-platformized',
  args: ['query'],
});

/** A checkout of one dinner plate, and the hosted page's URL with the shop's callbacks. */
async function checkoutUrl() {
  const { emu } = shop;
  const admin = createClient({ baseUrl: emu.url, auth: ApiKeyStrategy({ apiKey: emu.demo.apiKey }) });
  const { products } = await queryProducts(admin, { paging: { limit: 100 } });
  const client = createClient({ baseUrl: emu.url, auth: OAuthStrategy({ clientId: emu.demo.clientId }) });
  const plate = products.find((p) => p.slug === 'dinner-plate')!.id;
  await cart.addToCurrentCart(client, {
    lineItems: [{ catalogReference: { appId: STORES_APP_ID, catalogItemId: plate }, quantity: 1 }],
  });
  const { checkoutId } = await cart.createCheckoutFromCurrentCart(client, { channelType: ChannelType.WEB });
  const { redirectSession } = await redirects.createRedirectSession(client, {
    ecomCheckout: { checkoutId },
    callbacks: { thankYouPageUrl: `${shop.origin}/thanks`, cartPageUrl: `${shop.origin}/cart` },
  });
  return redirectSession.fullUrl;
}

const NEW_YORKER = {
  firstName: 'Ada',
  lastName: 'Lovelace',
  address: '1 Main St',
  city: 'New York',
  postalCode: '10001',
  region: 'US-NY',
};

/**
 * Clicks a form's button twice while its first submission is on its way, as an impatient person
 * on a slow network does: every post to `path` reaches the emulator, in order, and the answers
 * come back once both clicks are done (the browser shows the last post's, as it does for real).
 * Resolves with the posts that were sent.
 */
async function clickTwiceWhileSending(page: Page, button: Locator, path: string) {
  const posts: string[] = [];
  let release!: () => void;
  const clicked = new Promise<void>((r) => {
    release = r;
  });
  let previous: Promise<unknown> = Promise.resolve();
  await page.route(
    (url) => url.pathname === path,
    async (route) => {
      if (route.request().method() !== 'POST') return route.continue();
      posts.push(route.request().url());
      const answer = previous.then(() => route.fetch({ maxRedirects: 0 }));
      previous = answer.catch(() => undefined);
      const response = await answer;
      await clicked;
      // The browser dropped the first navigation for the second: nothing to answer.
      await route.fulfill({ response }).catch(() => undefined);
    },
  );
  const box = (await button.boundingBox())!;
  await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
  // A second click before the first post is sent only replaces it (one post): after, both go.
  await expect.poll(() => posts.length).toBe(1);
  await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
  release();
  return posts;
}

/** Waits until the page is the shop's callback (with the login's code); else fails with the page's title. */
const atCallback = (page: Page) =>
  expect
    .poll(async () => (page.url().startsWith(`${shop.origin}/callback?`) ? 'callback' : await page.title()), {
      timeout: 10_000,
    })
    .toBe('callback');

let n = 0;
/** On the shop's page: the hosted login page of a new authorization request. */
async function openLogin(page: Page) {
  await page.goto(shop.origin);
  await withSdkClient(page, shop.emu);
  const authUrl = await page.evaluate(async () => {
    const client = (window as any).client;
    const data = await client.identity.generateOAuthData(`${location.origin}/callback`, location.href);
    return (await client.identity.getAuthUrl(data, { responseMode: 'query' })).authUrl as string;
  });
  await page.goto(authUrl);
  await page.getByRole('heading', { level: 1, name: 'Log in' }).waitFor();
}

/** Registers a member from Node. */
async function register(email: string) {
  const client = createClient({
    baseUrl: shop.emu.url,
    auth: OAuthStrategy({ clientId: shop.emu.demo.clientId }),
    modules: { identity },
  });
  await client.identity.register({ email, password: PASSWORD });
}

/**
 * The focused element's `name`, or its tag. Polled where read: the pages focus a field with
 * `autofocus`, which Chromium applies at the next frame, after the page has shown.
 */
const focusedName = (page: Page) =>
  page.evaluate(() => document.activeElement?.getAttribute('name') ?? document.activeElement?.tagName);

/** The text of the elements an element's `aria-describedby` names. */
const description = (page: Page, selector: string) =>
  page.locator(selector).evaluate((el) =>
    (el.getAttribute('aria-describedby') ?? '')
      .split(/\s+/)
      .filter(Boolean)
      .map((id) => document.getElementById(id)?.textContent ?? `(no #${id})`)
      .join(' '),
  );

/**
 * A page of its own (`newPage`: slowed as `SHOPKIT_E2E_SLOWDOWN` says, closed after the test),
 * `width` px wide when given.
 */
async function hostedPage(width?: number) {
  const { page } = await newPage(shop.browser);
  if (width) await page.setViewportSize({ width, height: 740 });
  return page;
}

const scrollsSideways = (page: Page) =>
  page.evaluate(() => document.documentElement.scrollWidth > document.documentElement.clientWidth);

it('at 360 px the hosted checkout and login pages do not scroll sideways', async () => {
  const page = await hostedPage(360);
  await page.goto(await checkoutUrl());
  await page.getByRole('heading', { level: 1, name: 'Checkout' }).waitFor();
  // The fields' padding and border stayed outside their 100% width: wider than the phone.
  expect(await scrollsSideways(page)).toBe(false);
  await openLogin(page);
  expect(await scrollsSideways(page)).toBe(false);
  await page.close();
});

it('a refused checkout says so in its title, marks the fields at fault, starts on the first and keeps what was typed', async () => {
  const page = await hostedPage();
  await page.goto(await checkoutUrl());
  // Both pass the browser's own checks; the page refuses them.
  await fillHostedCheckout(page, { email: 'ada@example', ...NEW_YORKER });
  await page.getByLabel('Country (two-letter code, e.g. US)').fill('USA');
  await Promise.all([
    page.waitForLoadState('load'),
    page.getByRole('button', { name: 'Place order' }).click(),
  ]);
  await page.getByRole('alert').waitFor();
  expect(await page.title()).toBe('Error: Checkout');
  await expect.poll(() => focusedName(page)).toBe('email');
  expect(await page.getByLabel('E-mail').getAttribute('aria-invalid')).toBe('true');
  expect(await description(page, '#f-email')).toBe('Enter a valid e-mail address.');
  expect(await page.locator('#f-country').getAttribute('aria-invalid')).toBe('true');
  expect(await description(page, '#f-country')).toBe('Enter the country as a two-letter code, such as US.');
  expect(await page.locator('#f-city').getAttribute('aria-invalid')).toBeNull();
  expect(await page.locator('#f-city').inputValue()).toBe('New York');

  // Fixed, the order is placed with one click and the shop's thank-you page gets it.
  await page.getByLabel('E-mail').fill('ada@example.com');
  await page.getByLabel('Country (two-letter code, e.g. US)').fill('US');
  await Promise.all([
    page.waitForURL(`${shop.origin}/thanks?**`),
    page.getByRole('button', { name: 'Place order' }).click(),
  ]);
  expect(new URL(page.url()).searchParams.get('orderId')).toBeTruthy();
  await page.close();
});

it('two clicks on "Sign up" sends the form once and signs the new member in', async () => {
  const page = await hostedPage();
  await openLogin(page);
  await page.getByLabel('E-mail').fill(`double${++n}@example.test`);
  await page.getByLabel('Password').fill(PASSWORD);
  // The second submission's answer was the one shown: "already exists", with the sign-up done.
  const posts = await clickTwiceWhileSending(
    page,
    page.getByRole('button', { name: 'Sign up' }),
    '/oauth2/authorize/submit',
  );
  await atCallback(page);
  expect(new URL(page.url()).searchParams.get('code')).toBeTruthy();
  expect(posts).toHaveLength(1);
  await page.close();
});

it('a wrong password: the title says so, the e-mail is kept, the page starts on the empty password described by the error', async () => {
  const page = await hostedPage();
  await openLogin(page);
  const email = `wrong${++n}@example.test`;
  await register(email);
  await page.getByLabel('E-mail').fill(email);
  await page.getByLabel('Password').fill('not the password');
  await Promise.all([page.waitForLoadState('load'), page.getByRole('button', { name: 'Log in' }).click()]);
  await page.getByRole('alert').waitFor();
  expect(await page.title()).toBe('Error: Log in');
  expect(await page.getByLabel('E-mail').inputValue()).toBe(email);
  expect(await page.getByLabel('Password').inputValue()).toBe('');
  await expect.poll(() => focusedName(page)).toBe('password');
  expect(await description(page, 'input[name=password]')).toBe(await page.getByRole('alert').textContent());

  // Typed again from where the page starts, the login goes on to the shop.
  await page.keyboard.type(PASSWORD);
  await Promise.all([page.waitForURL(`${shop.origin}/callback?**`), page.keyboard.press('Enter')]);
  await page.close();
});

it('a sign-up with a short password says which field is at fault', async () => {
  const page = await hostedPage();
  await openLogin(page);
  await page.getByLabel('E-mail').fill(`short${++n}@example.test`);
  await page.getByLabel('Password').fill('short');
  await Promise.all([page.waitForLoadState('load'), page.getByRole('button', { name: 'Sign up' }).click()]);
  // It said "must have at least 8 characters", of nothing named.
  expect(await page.getByRole('alert').textContent()).toBe('The password must have at least 8 characters');
  await expect.poll(() => focusedName(page)).toBe('password');
  await page.close();
});

it('the e-mail code page starts on the code; a wrong code marks it; two clicks spend the right one once', async () => {
  await ownerCall(shop.emu, '/_api/emulator/v1/settings', { emailVerificationRequired: true });
  try {
    const page = await hostedPage();
    await openLogin(page);
    const email = `code${++n}@example.test`;
    await page.getByLabel('E-mail').fill(email);
    await page.getByLabel('Password').fill(PASSWORD);
    await Promise.all([page.waitForLoadState('load'), page.getByRole('button', { name: 'Sign up' }).click()]);
    await page.getByRole('heading', { level: 1, name: 'Verify your e-mail' }).waitFor();
    await expect.poll(() => focusedName(page)).toBe('code');

    await page.keyboard.type('000000');
    await Promise.all([page.waitForLoadState('load'), page.keyboard.press('Enter')]);
    await page.getByRole('alert').waitFor();
    expect(await page.title()).toBe('Error: Verify your e-mail');
    await expect.poll(() => focusedName(page)).toBe('code');
    expect(await page.getByLabel('Code from the e-mail').getAttribute('aria-invalid')).toBe('true');
    expect(await description(page, 'input[name=code]')).toBe(await page.getByRole('alert').textContent());

    // The right code, from the development mailbox, clicked twice: the second post found the
    // code spent by the first and its refusal was the page shown, the login lost.
    const mail = await shop.browser.newPage();
    await mail.goto(`${shop.emu.url}/mailbox?to=${encodeURIComponent(email)}`);
    const code = (await mail.locator('article p').nth(1).textContent())!.match(/\b\d{6}\b/)![0];
    await mail.close();
    await page.getByLabel('Code from the e-mail').fill(code);
    const posts = await clickTwiceWhileSending(
      page,
      page.getByRole('button', { name: 'Verify' }),
      '/oauth2/authorize/submit',
    );
    await atCallback(page);
    expect(new URL(page.url()).searchParams.get('code')).toBeTruthy();
    expect(posts).toHaveLength(1);
    await page.close();
  } finally {
    await ownerCall(shop.emu, '/_api/emulator/v1/settings', { emailVerificationRequired: false });
  }
});

it('a reset link from the mailbox, saved with two clicks on a slow network, changes the password (not "link expired")', async () => {
  const page = await hostedPage(360);
  await openLogin(page);
  const email = `reset${++n}@example.test`;
  await register(email);
  await page.getByLabel('E-mail').fill(email);
  await Promise.all([
    page.waitForLoadState('load'),
    page.getByRole('button', { name: 'Forgot password?' }).click(),
  ]);
  await page.getByRole('status').waitFor();

  await page.goto(`${shop.emu.url}/mailbox?to=${encodeURIComponent(email)}`);
  // The mail's text holds the whole link: it wraps on a phone instead of widening the page.
  expect(await scrollsSideways(page)).toBe(false);
  await Promise.all([
    page.waitForURL('**/reset-password?**'),
    page.getByRole('link', { name: 'Open the link' }).click(),
  ]);
  await expect.poll(() => focusedName(page)).toBe('password');
  await page.keyboard.type(NEW_PASSWORD);
  const posts = await clickTwiceWhileSending(
    page,
    page.getByRole('button', { name: 'Save' }),
    '/reset-password',
  );
  await expect
    .poll(() => page.getByRole('heading', { level: 1 }).textContent())
    .not.toBe('Choose a new password');
  expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Password changed');
  expect(posts).toHaveLength(1);

  // The new password logs in.
  await Promise.all([
    page.waitForLoadState('load'),
    page.getByRole('link', { name: 'Back to log in' }).click(),
  ]);
  await page.getByLabel('E-mail').fill(email);
  await page.getByLabel('Password').fill(NEW_PASSWORD);
  await Promise.all([
    page.waitForURL(`${shop.origin}/callback?**`),
    page.getByRole('button', { name: 'Log in' }).click(),
  ]);
  await page.close();
});

it('the identity provider’s page keeps the name typed and starts on the refused address', async () => {
  await ownerCall(shop.emu, '/_api/emulator/v1/idp-connections', { name: 'Audit ID' });
  const page = await hostedPage();
  await openLogin(page);
  await Promise.all([
    page.waitForURL(`${shop.emu.url}/idp/**`),
    page.getByRole('link', { name: 'Log in with Audit ID' }).click(),
  ]);
  // The browser takes it as an address; the provider does not.
  await page.getByLabel('E-mail').fill('ada@example');
  await page.getByLabel('Name').fill('Ada Lovelace');
  await Promise.all([page.waitForLoadState('load'), page.getByRole('button', { name: 'Continue' }).click()]);
  await page.getByRole('alert').waitFor();
  expect(await page.title()).toBe('Error: Sign in with Audit ID');
  await expect.poll(() => focusedName(page)).toBe('email');
  expect(await page.getByLabel('E-mail').getAttribute('aria-invalid')).toBe('true');
  expect(await page.getByLabel('Name').inputValue()).toBe('Ada Lovelace');
  await page.getByLabel('E-mail').fill('ada@example.com');
  await Promise.all([
    page.waitForURL(`${shop.origin}/callback?**`),
    page.getByRole('button', { name: 'Continue' }).click(),
  ]);
  await page.close();
});
