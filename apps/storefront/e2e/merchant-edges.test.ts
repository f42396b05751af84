/**
 * The merchant console's edges in a real Chromium: a key of only spaces is not sent, options saved
 * as typed (`Size: S,M`) follow a later "Remove all options", a keyboard merchant keeps focus on
 * the button pressed (or, when "Remove all options" takes the Variants section away, on the note
 * in its place), and numbers such as `1e3` are refused with a sentence that says so.
 * Tests share one emulator and run in order.
 */
import { type AnyClient, ApiKeyStrategy, createClient, products } from '@shopkit/sdk';
import type { Page } from 'playwright-core';
import { beforeAll, expect, it } from 'vitest';
import { newPage, setupStorefront } from './browser.ts';
import { answerConfirm, edit, openConsole } from './console.ts';

const shop = setupStorefront();
let admin: AnyClient;
beforeAll(() => {
  admin = createClient({ baseUrl: shop.emu.url, auth: ApiKeyStrategy({ apiKey: shop.emu.demo.apiKey }) });
});

const focused = (page: Page) => page.evaluate(() => document.activeElement?.textContent ?? '');

it('does not send a key of only spaces, and says what to paste', async () => {
  const { page, errors } = await newPage(shop.browser);
  await page.goto(`${shop.url}/merchant`);
  await page.getByLabel('API key').waitFor();
  // What the console sends. The shop around it (the header's cart, as the visitor) may still be
  // loading when the key field shows: its token request and its calls with the visitor's token
  // (`OauthNG.…`) are not the console's.
  const sent: string[] = [];
  page.on('request', async (r) => {
    if (!r.url().startsWith(shop.emu.url) || r.method() === 'OPTIONS' || r.url().endsWith('/oauth2/token'))
      return;
    const auth = (await r.allHeaders()).authorization ?? '';
    if (!auth.startsWith('OauthNG.')) sent.push(`${r.method()} ${r.url()}`);
  });
  await page.getByLabel('API key').fill('   ');
  await page.getByRole('button', { name: 'Open the console' }).click();
  await page.getByRole('alert').filter({ hasText: 'Paste the API key' }).waitFor();
  expect(await page.getByLabel('API key').evaluate((el) => el === document.activeElement)).toBe(true);
  expect(await page.getByLabel('API key').getAttribute('aria-invalid')).toBe('true');
  await page.waitForTimeout(300);
  expect(sent).toEqual([]);
  expect(await page.evaluate(() => Object.keys(sessionStorage))).toEqual([]);
  expect(errors).toEqual([]);
});

it('empties the options box when options saved as typed are removed, and a later save keeps them removed', async () => {
  const { page, errors } = await newPage(shop.browser);
  await products.createProduct(admin, {
    name: 'Edge Tee',
    productType: 'physical',
    priceData: { price: 10 },
  });
  await openConsole(page, shop);
  const id = await edit(page, 'Edge Tee');
  await page.getByLabel('Options').fill('Size: S,M');
  await page.getByRole('button', { name: 'Save changes' }).click();
  await page.getByText('Saved.').waitFor();
  await page.getByRole('heading', { name: 'Variants' }).waitFor();
  // What is shown is what is stored.
  await expect.poll(() => page.getByLabel('Options').inputValue()).toBe('Size: S, M');

  const asked = answerConfirm(page, true);
  await page.getByRole('button', { name: 'Remove all options' }).click();
  expect(await asked).toMatch(/2 variants/);
  await page.getByRole('heading', { name: 'Variants' }).waitFor({ state: 'detached' });
  await expect.poll(() => page.getByLabel('Options').inputValue()).toBe('');
  await page.getByLabel('Description').fill('One size.');
  await page.getByRole('button', { name: 'Save changes' }).click();
  await page.getByText('Saved.').waitFor();
  const p = (await products.getProduct(admin, id)).product;
  expect(p.description).toBe('One size.');
  expect(p.productOptions ?? []).toEqual([]);

  // Deleted from the list after a question: its row goes, and the focus goes to the count, not the page.
  await page.getByRole('link', { name: 'Products', exact: true }).click();
  const asked2 = answerConfirm(page, true);
  await page.getByRole('button', { name: 'Delete Edge Tee' }).focus();
  await page.keyboard.press('Enter');
  expect(await asked2).toMatch(/Delete “Edge Tee”/);
  await page.getByRole('rowheader', { name: 'Edge Tee' }).waitFor({ state: 'detached' });
  await expect.poll(() => focused(page)).toMatch(/^\d+ products$/);
  expect(errors).toEqual([]);
});

it('keeps focus on the button a keyboard merchant pressed while it is busy and after', async () => {
  const { page, errors } = await newPage(shop.browser);
  await openConsole(page, shop);
  await edit(page, 'Linen Shirt');

  await page.getByLabel('Description').fill('Washed linen.');
  await page.getByRole('button', { name: 'Save changes' }).focus();
  await page.keyboard.press('Enter');
  await page.getByText('Saved.').waitFor();
  expect(await focused(page)).toBe('Save changes');

  await page.getByLabel('Price of S / White').fill('71');
  await page.getByRole('button', { name: 'Set price of S / White' }).focus();
  await page.keyboard.press('Enter');
  await expect
    .poll(async () => (await products.getProduct(admin, page.url().split('/').pop()!)).product.variants)
    .toContainEqual(
      expect.objectContaining({
        variant: expect.objectContaining({ priceData: expect.objectContaining({ price: 71 }) }),
      }),
    );
  await page
    .getByRole('button', { name: 'Set price of S / White' })
    .and(page.locator(':not([aria-disabled])'))
    .waitFor();
  expect(await focused(page)).toBe('Set price of S / White');

  await page.getByRole('link', { name: 'Bulk edit' }).click();
  await page.getByLabel('Select Stoneware Mug').check();
  await page.getByRole('button', { name: 'Apply to 1 product' }).focus();
  await page.keyboard.press('Enter');
  await page.getByText('Updated 1 product.').waitFor();
  expect(await focused(page)).toBe('Apply to 1 product');
  expect(errors).toEqual([]);
});

it('refuses 1e3 with a sentence that asks for a number, in bulk and as a variant price', async () => {
  const { page, errors } = await newPage(shop.browser);
  await openConsole(page, shop);
  await page.getByRole('link', { name: 'Bulk edit' }).click();
  await page.getByLabel('Change').selectOption('set');
  await page.getByLabel('Value').fill('1e3');
  await page.getByText('Enter a number such as 12.50.').waitFor();
  expect(await page.getByText(/decimal places/).count()).toBe(0);

  const id = await edit(page, 'Linen Shirt');
  const patches: string[] = [];
  page.on('request', (r) => {
    if (r.method() === 'PATCH') patches.push(r.url());
  });
  const before = (await products.getProduct(admin, id)).product.variants;
  await page.getByLabel('Price of M / White').fill('1e3');
  await page.getByRole('button', { name: 'Set price of M / White' }).click();
  await page.getByText('Enter the price as an amount such as 12.50.').waitFor();
  expect(await page.getByLabel('Price of M / White').getAttribute('aria-invalid')).toBe('true');
  expect(patches).toEqual([]);
  expect((await products.getProduct(admin, id)).product.variants).toEqual(before);
  // Corrected, it is set and the message goes.
  await page.getByLabel('Price of M / White').fill('69');
  await page.getByRole('button', { name: 'Set price of M / White' }).click();
  await page.getByText('Enter the price as an amount such as 12.50.').waitFor({ state: 'detached' });
  expect(errors).toEqual([]);
});

it('does not send a collection name of only spaces, new or renamed', async () => {
  const { page, errors } = await newPage(shop.browser);
  const sent: string[] = [];
  page.on('request', (r) => {
    if (r.method() !== 'GET' && /\/collections/.test(r.url())) sent.push(`${r.method()} ${r.url()}`);
  });
  await openConsole(page, shop);
  await page.getByRole('link', { name: 'Collections' }).click();
  const name = page.getByLabel('Name', { exact: true });
  await name.fill('   ');
  await page.getByRole('button', { name: 'Create collection' }).click();
  expect(await name.evaluate((i: HTMLInputElement) => i.validity.patternMismatch)).toBe(true);
  const rename = page.getByLabel('Name of Sale', { exact: true });
  await rename.fill('  ');
  await rename.press('Enter');
  expect(await rename.evaluate((i: HTMLInputElement) => i.validity.patternMismatch)).toBe(true);
  // A real name still goes.
  await name.fill('Winter');
  await page.getByRole('button', { name: 'Create collection' }).click();
  await page.getByLabel('Name of Winter', { exact: true }).waitFor();
  expect(sent).toHaveLength(1);
  expect(errors).toEqual([]);
  await page.close();
});

it('tells a refused key from a check that could not be made', async () => {
  const { page, errors } = await newPage(shop.browser);
  await page.goto(`${shop.url}/merchant`);
  await page.getByLabel('API key').fill('not-a-key');
  await page.getByRole('button', { name: 'Open the console' }).click();
  await page
    .getByRole('alert')
    .filter({ hasText: 'The key was not accepted. Paste the whole API key that npm start printed.' })
    .waitFor();
  // Offline: the key is not to blame.
  await page.route('**/products/query**', (route) => route.abort('internetdisconnected'));
  await page.getByLabel('API key').fill(shop.emu.demo.apiKey);
  await page.getByRole('button', { name: 'Open the console' }).click();
  await page.getByRole('alert').filter({ hasText: 'The key could not be checked' }).waitFor();
  expect(await page.getByRole('alert').textContent()).not.toContain('not accepted');
  expect(errors).toEqual([]);
  await page.close();
});

it('moves focus to the section heading when a collection or an image a keyboard merchant removed goes', async () => {
  const { page, errors } = await newPage(shop.browser);
  await openConsole(page, shop);
  // A collection made and deleted from the keyboard.
  await page.getByRole('link', { name: 'Collections' }).click();
  await page.getByLabel('Name', { exact: true }).fill('Passing');
  await page.getByRole('button', { name: 'Create collection' }).click();
  await page.getByLabel('Name of Passing', { exact: true }).waitFor();
  const asked = answerConfirm(page, true);
  await page
    .getByRole('listitem')
    .filter({ has: page.getByLabel('Name of Passing', { exact: true }) })
    .getByRole('button', { name: /^Delete/ })
    .focus();
  await page.keyboard.press('Enter');
  await asked;
  await page.getByLabel('Name of Passing', { exact: true }).waitFor({ state: 'detached' });
  await expect
    .poll(() =>
      page.evaluate(() => `${document.activeElement?.tagName} ${document.activeElement?.textContent}`),
    )
    .toBe('H2 Collections');

  // An image added to a product and removed from the keyboard.
  await edit(page, 'Linen Shirt');
  const media = page.getByRole('list', { name: 'Media' });
  const before = await media.getByRole('listitem').count();
  await page.getByLabel('Image URL').fill('https://example.com/passing.png');
  await page.getByLabel('Image URL').press('Enter');
  await expect.poll(() => media.getByRole('listitem').count()).toBe(before + 1);
  await media
    .getByRole('listitem')
    .last()
    .getByRole('button', { name: /^Remove/ })
    .focus();
  await page.keyboard.press('Enter');
  await expect.poll(() => media.getByRole('listitem').count()).toBe(before);
  await expect
    .poll(() =>
      page.evaluate(() => `${document.activeElement?.tagName} ${document.activeElement?.textContent}`),
    )
    .toBe('H2 Media');
  expect(errors).toEqual([]);
  await page.close();
});

it('keeps keyboard focus on the page when the Variants section goes with "Remove all options"', async () => {
  const { page, errors } = await newPage(shop.browser);
  await products.createProduct(admin, {
    name: 'Focus Tee',
    productType: 'physical',
    priceData: { price: 12 },
  });
  await openConsole(page, shop);
  await edit(page, 'Focus Tee');
  await page.getByLabel('Options').fill('Size: S, M');
  await page.getByRole('button', { name: 'Save changes' }).click();
  await page.getByText('Saved.').waitFor();
  await page.getByRole('heading', { name: 'Variants' }).waitFor();
  const asked = answerConfirm(page, true);
  await page.getByRole('button', { name: 'Remove all options' }).focus();
  await page.keyboard.press('Enter');
  expect(await asked).toMatch(/2 variants/);
  await page.getByRole('heading', { name: 'Variants' }).waitFor({ state: 'detached' });
  // The section and the button pressed are gone: focus goes to what says so, not to the page.
  await expect
    .poll(() => page.evaluate(() => document.activeElement?.textContent ?? 'none'))
    .toMatch(/^All options removed/);
  expect(await page.evaluate(() => document.activeElement === document.body)).toBe(false);
  expect(errors).toEqual([]);
  await page.close();
});
