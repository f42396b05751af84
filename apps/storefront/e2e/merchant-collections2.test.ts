/**
 * The console's collections, in a real Chromium: a collection's products are listed with their
 * count (paged when many), a product is removed from a collection with one request however often
 * it is pressed, the focus going to the next product, and the shop's collection page follows;
 * All Products says that its membership is automatic instead of offering buttons the platform
 * refuses; a collection's description is saved and shown in the shop, and a refused one is said
 * next to its field with what was typed kept. Tests share one emulator and run in order.
 */
import { type AnyClient, ApiKeyStrategy, collections, createClient, products } from '@shopkit/sdk';
import type { Page } from 'playwright-core';
import { beforeAll, expect, it } from 'vitest';
import { focused, focusedLabel, newPage, setupStorefront } from './browser.ts';
import { describedBy, openConsole } from './console.ts';

const shop = setupStorefront();
let admin: AnyClient;
beforeAll(() => {
  admin = createClient({ baseUrl: shop.emu.url, auth: ApiKeyStrategy({ apiKey: shop.emu.demo.apiKey }) });
});

/** The names of a collection's products as stored, hidden ones too, by name. */
async function members(id: string) {
  const r = await products.queryProducts(
    admin,
    { filter: { collectionIds: { $hasSome: [id] } }, paging: { limit: 100 } },
    { includeHiddenProducts: true },
  );
  return r.products.map((p) => p.name).sort();
}

/** Opens the console's Collections page and the product list of the collection `name`. */
async function openProducts(page: Page, name: string) {
  await page.getByRole('link', { name: 'Collections', exact: true }).click();
  await page.getByRole('button', { name: `Show products in ${name}`, exact: true }).click();
  return page.getByRole('list', { name: `Products in ${name}`, exact: true });
}

/** The label of the focused field. */
const names = (list: ReturnType<Page['getByRole']>) => list.getByRole('link').allTextContents();

it("lists a collection's products with their count, pages a large collection, and says All Products fills itself", async () => {
  const { page, errors } = await newPage(shop.browser);
  await openConsole(page, shop);
  const linen = await openProducts(page, 'Summer Linen');
  const stored = await members('col-summer-linen');
  await expect.poll(() => names(linen)).toEqual(stored);
  await page
    .getByRole('region', { name: 'Products in Summer Linen' })
    .getByText(`${stored.length} products`, { exact: true })
    .waitFor();
  // Each product opens its editor.
  await linen.getByRole('link', { name: 'Linen Shirt' }).click();
  await page.getByRole('heading', { name: 'Edit Linen Shirt' }).waitFor();

  // All Products: more products than a page, every one of them, and no button the platform refuses.
  const all = await openProducts(page, 'All Products');
  const region = page.getByRole('region', { name: 'Products in All Products' });
  const every = await members('col-all-products');
  expect(every.length).toBeGreaterThan(10);
  await region.getByText(`${every.length} products`, { exact: true }).waitFor();
  await region.getByText('Page 1 of 2').waitFor();
  const first = await names(all);
  expect(first).toHaveLength(10);
  await region.getByRole('button', { name: 'Next' }).click();
  await region.getByText('Page 2 of 2').waitFor();
  await expect.poll(() => names(all)).toHaveLength(every.length - 10);
  expect([...first, ...(await names(all))]).toEqual(every);
  await page.getByText(/Every product is in All Products/).waitFor();
  expect(await region.getByRole('button', { name: /^Remove/ }).count()).toBe(0);
  expect(await page.getByLabel('Add a product to All Products').count()).toBe(0);
  expect(await page.getByRole('button', { name: 'Delete All Products' }).isDisabled()).toBe(true);
  expect(errors).toEqual([]);
});

it("removes a product from a collection with one request, moves the focus to the next product, and the shop's page follows", async () => {
  const { page, errors } = await newPage(shop.browser);
  await openConsole(page, shop);
  // The shop's Summer Linen page, read once: the console's write must refresh it.
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Summer Linen' }).click();
  const shopList = page.getByRole('list', { name: 'Products' });
  await shopList.getByRole('heading', { name: 'Linen Shirt' }).waitFor();
  await page.getByRole('link', { name: 'Merchant console' }).click();

  const linen = await openProducts(page, 'Summer Linen');
  await linen.getByRole('link', { name: 'Linen Shirt' }).waitFor();
  const before = await names(linen);
  const next = before[before.indexOf('Linen Shirt') + 1]!;
  // Held until it has been pressed twice: the button says it is busy meanwhile.
  const sent: string[] = [];
  let release = () => {};
  const held = new Promise<void>((r) => {
    release = r;
  });
  await page.route('**/productIds/delete', async (route) => {
    sent.push(route.request().postData() ?? '');
    await held;
    await route.continue();
  });
  const remove = page.getByRole('button', { name: 'Remove Linen Shirt from Summer Linen', exact: true });
  await remove.dblclick();
  await expect.poll(() => sent.length).toBe(1);
  // The request leaves before React renders the pending state: wait for that render.
  await expect.poll(() => remove.getAttribute('aria-disabled')).toBe('true');
  release();
  await linen.getByRole('link', { name: 'Linen Shirt' }).waitFor({ state: 'detached' });
  await expect.poll(() => focused(page)).toBe(`BUTTON Remove ${next} from Summer Linen`);
  await page.getByRole('status').getByText('Removed Linen Shirt from Summer Linen.').waitFor();
  expect(sent).toHaveLength(1);
  expect(await members('col-summer-linen')).not.toContain('Linen Shirt');
  await page
    .getByRole('region', { name: 'Products in Summer Linen' })
    .getByText(`${before.length - 1} products`, { exact: true })
    .waitFor();

  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Summer Linen' }).click();
  await shopList.getByRole('heading', { name: next }).waitFor();
  await shopList.getByRole('heading', { name: 'Linen Shirt' }).waitFor({ state: 'detached' });

  // Undone by adding it back.
  await page.getByRole('link', { name: 'Merchant console' }).click();
  await page.getByRole('link', { name: 'Collections', exact: true }).click();
  await page.getByLabel('Add a product to Summer Linen').selectOption({ label: 'Linen Shirt' });
  await page
    .getByRole('listitem')
    .filter({ has: page.getByLabel('Add a product to Summer Linen') })
    .getByRole('button', { name: /^Add/ })
    .click();
  await expect.poll(() => members('col-summer-linen')).toContain('Linen Shirt');
  await page.getByRole('button', { name: 'Show products in Summer Linen', exact: true }).click();
  await page
    .getByRole('list', { name: 'Products in Summer Linen' })
    .getByRole('link', { name: 'Linen Shirt' })
    .waitFor();
  expect(errors).toEqual([]);
});

it("moves the focus to the list's heading when the last product of a collection is removed", async () => {
  const { page, errors } = await newPage(shop.browser);
  const { collection } = await products.createCollection(admin, { name: 'One Thing' });
  const mug = (await products.queryProducts(admin).eq('name', 'Stoneware Mug').find()).items[0]!;
  await products.addProductsToCollection(admin, collection.id, [mug.id]);
  await openConsole(page, shop);
  const list = await openProducts(page, 'One Thing');
  await list.getByRole('link', { name: 'Stoneware Mug' }).waitFor();
  await page.getByRole('button', { name: 'Remove Stoneware Mug from One Thing' }).focus();
  await page.keyboard.press('Enter');
  await expect.poll(() => focused(page)).toBe('H3 Products in One Thing');
  await page
    .getByRole('region', { name: 'Products in One Thing' })
    .getByText('No products in this collection.')
    .waitFor();
  expect(await members(collection.id)).toEqual([]);
  expect(errors).toEqual([]);
});

it("saves a collection's description, which the console and the shop then show", async () => {
  const { page, errors } = await newPage(shop.browser);
  await openConsole(page, shop);
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Kitchen & Table' }).click();
  await page.getByText('Ceramics and tools for everyday cooking.').waitFor();
  await page.getByRole('link', { name: 'Merchant console' }).click();
  await page.getByRole('link', { name: 'Collections', exact: true }).click();
  const field = page.getByLabel('Description of Kitchen & Table', { exact: true });
  expect(await field.inputValue()).toBe('Ceramics and tools for everyday cooking.');
  await field.fill('Plates, mugs and the tools to cook with.');
  await page.getByRole('button', { name: 'Save the description of Kitchen & Table' }).click();
  await page.getByRole('status').getByText('Saved the description of Kitchen & Table.').waitFor();
  expect((await collections.getCollection(admin, 'col-kitchen')).description).toBe(
    'Plates, mugs and the tools to cook with.',
  );

  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Kitchen & Table' }).click();
  await page.getByText('Plates, mugs and the tools to cook with.').waitFor();
  await page.reload();
  await page.getByRole('link', { name: 'Merchant console' }).click();
  await page.getByRole('link', { name: 'Collections', exact: true }).click();
  expect(await page.getByLabel('Description of Kitchen & Table', { exact: true }).inputValue()).toBe(
    'Plates, mugs and the tools to cook with.',
  );
  expect(errors).toEqual([]);
});

it("shows the platform's refusal of a description next to it, keeps what was typed and stores nothing", async () => {
  const { page, errors } = await newPage(shop.browser);
  await openConsole(page, shop);
  await page.getByRole('link', { name: 'Collections', exact: true }).click();
  // The emulator keeps at most 600 characters.
  const long = `Reduced ${'x'.repeat(600)}`;
  const field = page.getByLabel('Description of Sale', { exact: true });
  await field.fill(long);
  await page.getByRole('button', { name: 'Save the description of Sale' }).click();
  await expect.poll(() => describedBy(page, 'Description of Sale')).toMatch(/at most 600 characters/);
  expect(await field.getAttribute('aria-invalid')).toBe('true');
  expect(await focusedLabel(page)).toBe('Description of Sale');
  expect(await field.inputValue()).toBe(long);
  expect((await collections.getCollection(admin, 'col-sale')).description).toBe('Reduced while stock lasts.');
  // Correcting it takes the message away.
  await field.fill('Reduced for the summer.');
  expect(await field.getAttribute('aria-invalid')).toBe(null);
  expect(await describedBy(page, 'Description of Sale')).toBe('');

  // A new collection's description too.
  await page.getByLabel('Name', { exact: true }).fill('Wordy');
  await page.getByLabel('Description', { exact: true }).fill(long);
  await page.getByRole('button', { name: 'Create collection' }).click();
  await expect.poll(() => describedBy(page, 'Description')).toMatch(/at most 600 characters/);
  expect(await focusedLabel(page)).toBe('Description');
  expect(await page.getByLabel('Description', { exact: true }).inputValue()).toBe(long);
  expect(await page.getByLabel('Name', { exact: true }).inputValue()).toBe('Wordy');
  expect(await page.getByLabel('Name of Wordy').count()).toBe(0);
  expect(errors).toEqual([]);
});
