/**
 * The merchant console's ninth audit, in a real Chromium: "Forget the key" dropped a form's values
 * not saved without asking; a create or an added image whose answer was lost (stored all the same)
 * said the shop could not be reached, "try again", and trying again made a second product, image or
 * collection; a variant price saved as `10.00` where `10` was stored stayed typed, so leaving asked
 * about it. Tests share one emulator and run in order.
 */
import { type AnyClient, ApiKeyStrategy, createClient, products } from '@shopkit/sdk';
import type { Page } from 'playwright-core';
import { beforeAll, expect, it } from 'vitest';
import { newPage, setupStorefront } from './browser.ts';
import { answerConfirm, edit, newProduct, openConsole } from './console.ts';

const shop = setupStorefront();
let admin: AnyClient;
beforeAll(() => {
  admin = createClient({ baseUrl: shop.emu.url, auth: ApiKeyStrategy({ apiKey: shop.emu.demo.apiKey }) });
});

/** The page's POSTs to `url` reach the platform, and their answers are lost on the way back. */
const loseAnswers = (page: Page, url: string) =>
  page.route(url, async (route) => {
    if (route.request().method() !== 'POST') return route.continue();
    await route.fetch();
    await route.abort('internetdisconnected');
  });

const productsNamed = async (name: string) =>
  (
    await products.queryProducts(
      admin,
      { filter: { name }, paging: { limit: 10 } },
      { includeHiddenProducts: true },
    )
  ).products;

it('asks before "Forget the key" drops values typed and not saved', async () => {
  const { page, errors } = await newPage(shop.browser);
  await openConsole(page, shop);
  await edit(page, 'Linen Shirt');
  await page.getByLabel('Description').fill('Typed, not saved.');

  // Staying keeps the console, the key and what was typed.
  let asked = answerConfirm(page, false);
  await page.getByRole('button', { name: 'Forget the key' }).click();
  expect(await asked).toMatch(/not saved: your changes to “Linen Shirt”/);
  expect(await page.getByLabel('Description').inputValue()).toBe('Typed, not saved.');
  expect(await page.evaluate(() => sessionStorage.length)).toBeGreaterThan(0);

  // Agreeing forgets the key.
  asked = answerConfirm(page, true);
  await page.getByRole('button', { name: 'Forget the key' }).click();
  await asked;
  await page.getByLabel('API key').waitFor();
  expect(errors).toEqual([]);
});

it('says a product, an image or a collection whose answer was lost may have been made, never "try again"', async () => {
  const { page, errors } = await newPage(shop.browser);
  await openConsole(page, shop);

  // A new product: stored, its answer lost. Pressing again would make a second one.
  await newProduct(page);
  await page.getByLabel('Name', { exact: true }).fill('Lost Answer');
  await page.getByLabel('Price (USD)').fill('12');
  await loseAnswers(page, '**/stores/v1/products');
  await page.getByRole('button', { name: 'Create product' }).click();
  const created = page.getByRole('alert').filter({ hasText: 'may or may not have been created' });
  await created.waitFor();
  expect(await created.textContent()).toMatch(/look for it in the product list before creating it again/);
  expect(await page.getByText(/could not be reached/).count()).toBe(0);
  expect(await productsNamed('Lost Answer')).toHaveLength(1);
  await page.unroute('**/stores/v1/products');

  // An image: stored, its answer lost. The page reads the product again and shows it. (The new
  // product's form still holds what was typed: leaving it asks.)
  const leaving = answerConfirm(page, true);
  const id = await edit(page, 'Lost Answer');
  expect(await leaving).toMatch(/not saved: the new product/);
  await loseAnswers(page, '**/media');
  await page.getByLabel('Image URL').fill('https://example.com/lost.jpg');
  await page.getByRole('button', { name: 'Add image' }).click();
  await page.getByRole('alert').filter({ hasText: 'may or may not have been made' }).waitFor();
  expect(await page.getByText('The change was not saved').count()).toBe(0);
  expect((await products.getProduct(admin, id)).product.media?.items).toHaveLength(1);
  await page.getByRole('list', { name: 'Media' }).getByRole('listitem').waitFor();
  await page.unroute('**/media');

  // A collection: stored, its answer lost; the list read again shows it. (The image URL is cleared
  // once the page shows what is stored: leaving asks nothing, merchant-audit10.)
  await page.getByRole('link', { name: 'Collections' }).click();
  await page.getByRole('heading', { name: 'New collection' }).waitFor();
  await page.getByLabel('Name', { exact: true }).fill('Lost Shelf');
  await loseAnswers(page, '**/stores/v1/collections');
  await page.getByRole('button', { name: 'Create collection' }).click();
  await page.getByRole('alert').filter({ hasText: 'may or may not have been made' }).waitFor();
  expect(await page.getByText('The change was not saved').count()).toBe(0);
  await page.getByLabel('Name of Lost Shelf').waitFor();
  expect(errors).toEqual([]);
});

it('shows a variant price saved as typed in another form as stored, not as typed and unsaved', async () => {
  const { page, errors } = await newPage(shop.browser);
  await openConsole(page, shop);
  await newProduct(page);
  await page.getByLabel('Name', { exact: true }).fill('Even Tee');
  await page.getByLabel('Price (USD)').fill('10');
  await page.getByLabel('Options').fill('Size: S, M');
  await page.getByRole('button', { name: 'Create product' }).click();
  await page.getByText('Created.').waitFor();
  const id = page.url().split('/').pop()!;

  await page.getByLabel('Price of S').fill('10.00');
  await page.getByRole('button', { name: 'Set price of S' }).click();
  await expect.poll(() => page.getByLabel('Price of S').inputValue()).toBe('10');
  const s = (await products.getProduct(admin, id)).product.variants?.find((v) => v.choices.Size === 'S');
  expect(s?.variant?.priceData?.price).toBe(10);

  // Nothing typed is left: leaving asks nothing.
  let asked = false;
  page.on('dialog', (d) => {
    asked = true;
    void d.dismiss();
  });
  await page.getByRole('link', { name: 'Collections' }).click();
  await page.getByRole('heading', { name: 'New collection' }).waitFor();
  expect(asked).toBe(false);
  expect(errors).toEqual([]);
});
