/**
 * The merchant console's fourth audit, in a real Chromium: a bulk change or a deletion that was
 * stored was shown as "Something went wrong" when the list could not be read back (the tab gave
 * way to the error, the result with it, inviting an adjustment applied twice); "Load it again"
 * left the focus on the page's body; adding a product deleted elsewhere said "check the details"
 * and kept offering it. Tests share one emulator and run in order.
 */
import { type AnyClient, ApiKeyStrategy, createClient, products } from '@shopkit/sdk';
import type { Page, Route } from 'playwright-core';
import { beforeAll, expect, it } from 'vitest';
import { newPage, setupStorefront } from './browser.ts';
import { answerConfirm, edit, openConsole } from './console.ts';

const shop = setupStorefront();
let admin: AnyClient;
beforeAll(() => {
  admin = createClient({ baseUrl: shop.emu.url, auth: ApiKeyStrategy({ apiKey: shop.emu.demo.apiKey }) });
});

const down = (route: Route) =>
  route.fulfill({
    status: 503,
    contentType: 'application/json',
    headers: { 'access-control-allow-origin': shop.url },
    body: '{"message":"down"}',
  });
/** The product list's reads: answered 503 from now on, until `page.unroute`. */
const LIST = '**/stores-reader/v1/products/query**';
const focusedText = (page: Page) =>
  page.evaluate(() =>
    document.activeElement === document.body ? 'body' : document.activeElement?.textContent,
  );
const price = async (name: string) => {
  const { products: found } = await products.queryProducts(admin, { filter: { name }, paging: { limit: 1 } });
  return found[0]?.price?.price;
};

it('says a bulk change stored while the list cannot be read back is done, and keeps its result', async () => {
  const { page, errors } = await newPage(shop.browser);
  await openConsole(page, shop);
  await page.getByRole('link', { name: 'Bulk edit' }).click();
  await page.getByLabel('Select Stoneware Mug').check();
  await page.getByLabel('Change').selectOption('amount');
  await page.getByLabel('Value').fill('1');
  const before = await price('Stoneware Mug');
  await page.route(LIST, down);
  await page.getByRole('button', { name: 'Apply to 1 product' }).click();
  await page.getByText('Updated 1 product.').waitFor();
  await page.getByText('The products could not be loaded again').waitFor();
  expect(await page.getByText('Something went wrong').count()).toBe(0);
  expect(await price('Stoneware Mug')).toBe(before! + 1);
  // Back: "Load it again" brings the list, and the focus goes to the tab's heading.
  await page.unroute(LIST);
  await page.getByRole('button', { name: 'Load it again' }).click();
  await page.getByRole('button', { name: 'Load it again' }).waitFor({ state: 'detached' });
  await expect.poll(() => focusedText(page)).toBe('Bulk price, cost and weight');
  expect(errors).toEqual([]);
  await page.close();
});

it('says a deletion stored while the list cannot be read back is done', async () => {
  await products.createProduct(admin, {
    name: 'Audit4 Doomed',
    productType: 'physical',
    priceData: { price: 5 },
  });
  const { page, errors } = await newPage(shop.browser);
  await openConsole(page, shop);
  await page.getByLabel('Filter by name').fill('Audit4 Doomed');
  await page.route(LIST, down);
  const asked = answerConfirm(page, true);
  await page.getByRole('button', { name: 'Delete Audit4 Doomed' }).click();
  await asked;
  await page.getByText('The products could not be loaded again').waitFor();
  expect(await page.getByText('Something went wrong').count()).toBe(0);
  expect(await price('Audit4 Doomed')).toBeUndefined();
  await page.unroute(LIST);
  await page.getByRole('button', { name: 'Load it again' }).click();
  await page.getByText('No product of the').waitFor();
  expect(errors).toEqual([]);
  await page.close();
});

it('after "Load it again" on the collections, keeps the focus on the page', async () => {
  const { page, errors } = await newPage(shop.browser);
  await openConsole(page, shop);
  await page.getByRole('link', { name: 'Collections', exact: true }).click();
  await page.getByRole('heading', { name: 'Collections', exact: true }).waitFor();
  await page.route('**/v2/collections/query**', down);
  await page.getByLabel('Name', { exact: true }).fill('Audit4 Reload');
  await page.getByRole('button', { name: 'Create collection' }).click();
  await page.getByText('The collections could not be loaded again').waitFor();
  await page.unroute('**/v2/collections/query**');
  await page.getByRole('button', { name: 'Load it again' }).focus();
  await page.keyboard.press('Enter');
  await page.getByRole('button', { name: 'Load it again' }).waitFor({ state: 'detached' });
  await expect.poll(() => focusedText(page)).toBe('Collections');
  expect(errors).toEqual([]);
  await page.close();
});

it('after "Load it again" in the product editor, keeps the focus on the page', async () => {
  const { page, errors } = await newPage(shop.browser);
  await openConsole(page, shop);
  const id = await edit(page, 'Beeswax Candle');
  const read = (url: URL) => url.pathname === `/stores-reader/v1/products/${id}`;
  await page.route(read, down);
  await page.getByLabel('Description').fill('Hand-poured; burns for forty hours.');
  await page.getByRole('button', { name: 'Save changes' }).click();
  await page.getByText('Saved. The saved product could not be loaded again').waitFor();
  await page.unroute(read);
  await page.getByRole('button', { name: 'Load it again' }).click();
  await page.getByRole('button', { name: 'Load it again' }).waitFor({ state: 'detached' });
  await expect.poll(() => focusedText(page)).toBe('Edit Beeswax Candle');
  expect(errors).toEqual([]);
  await page.close();
});

it('says in the platform’s words why a product deleted elsewhere cannot be added, and stops offering it', async () => {
  await products.createCollection(admin, { name: 'Audit4 Shelf' });
  const { product } = await products.createProduct(admin, {
    name: 'Audit4 Vanishing',
    productType: 'physical',
    priceData: { price: 5 },
  });
  const { page, errors } = await newPage(shop.browser);
  await openConsole(page, shop);
  await page.getByRole('link', { name: 'Collections', exact: true }).click();
  const add = page.getByLabel('Add a product to Audit4 Shelf');
  await add.selectOption({ label: 'Audit4 Vanishing' });
  await products.deleteProduct(admin, product.id!);
  await page.getByRole('button', { name: 'Add to Audit4 Shelf', exact: true }).click();
  const alert = page.getByRole('alert').filter({ hasText: 'The change was not saved.' });
  await alert.waitFor();
  expect(await alert.textContent()).toContain('The platform refused it');
  await expect.poll(() => add.locator('option', { hasText: 'Audit4 Vanishing' }).count()).toBe(0);
  expect(errors).toEqual([]);
  await page.close();
});

it('names each image’s Remove button apart, by its alt text or its place', async () => {
  const { product } = await products.createProduct(admin, {
    name: 'Audit4 Gallery',
    productType: 'physical',
    priceData: { price: 5 },
  });
  await products.addProductMedia(admin, product.id!, [
    { url: 'https://example.com/one.jpg' },
    { url: 'https://example.com/two.jpg' },
  ]);
  const { page, errors } = await newPage(shop.browser);
  await openConsole(page, shop);
  await edit(page, 'Audit4 Gallery');
  const media = page.getByRole('list', { name: 'Media' });
  expect(await media.getByRole('button').allTextContents()).toEqual(['Remove image 1', 'Remove image 2']);
  expect(errors).toEqual([]);
  await page.close();
});
