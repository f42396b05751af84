/**
 * The merchant console's second audit, in a real Chromium: the platform's refusal of a field is
 * shown next to that field (the typed values stay, nothing is stored), edits not saved are not
 * lost to a click on another tab of the console without a question, and a keyboard merchant who
 * creates a product is told so with the focus on the new product's editor, not dropped to the page.
 * Tests share one emulator and run in order.
 */
import { type AnyClient, ApiKeyStrategy, createClient, products } from '@shopkit/sdk';
import type { Page } from 'playwright-core';
import { beforeAll, expect, it } from 'vitest';
import { focusedLabel, newPage, setupStorefront } from './browser.ts';
import { answerConfirm, edit, newProduct, openConsole } from './console.ts';

const shop = setupStorefront();
let admin: AnyClient;
beforeAll(() => {
  admin = createClient({ baseUrl: shop.emu.url, auth: ApiKeyStrategy({ apiKey: shop.emu.demo.apiKey }) });
});

/** The text of the element that describes a field (its error), or '' when none does. */
const description = (page: Page, label: string) =>
  page.getByLabel(label, { exact: true }).evaluate((el) =>
    (el.getAttribute('aria-describedby') ?? '')
      .split(' ')
      .map((id) => document.getElementById(id)?.textContent ?? '')
      .join(' '),
  );
/** How many products the store has, hidden ones too. */
const total = async () =>
  (await products.queryProducts(admin, { paging: { limit: 1 } }, { includeHiddenProducts: true })).metadata
    .total;
it("shows the platform's refusal of a field next to that field, keeps what was typed and stores nothing", async () => {
  const { page, errors } = await newPage(shop.browser);
  await openConsole(page, shop);
  const id = await edit(page, 'Linen Shirt');
  const long = `Linen Shirt ${'x'.repeat(80)}`;
  await page.getByLabel('Name', { exact: true }).fill(long);
  await page.getByLabel('Description').fill('Kept as typed.');
  await page.getByRole('button', { name: 'Save changes' }).click();
  await page.getByRole('alert').filter({ hasText: 'Not saved' }).waitFor();
  expect(await page.getByLabel('Name', { exact: true }).getAttribute('aria-invalid')).toBe('true');
  expect(await description(page, 'Name')).toMatch(/at most 80 characters/);
  expect(await focusedLabel(page)).toBe('Name');
  expect(await page.getByLabel('Name', { exact: true }).inputValue()).toBe(long);
  expect(await page.getByLabel('Description').inputValue()).toBe('Kept as typed.');
  const p = (await products.getProduct(admin, id)).product;
  expect(p.name).toBe('Linen Shirt');
  expect(p.description).not.toBe('Kept as typed.');

  // Correcting the field takes its message away; the save then goes through.
  await page.getByLabel('Name', { exact: true }).fill('Linen Shirt');
  expect(await page.getByLabel('Name', { exact: true }).getAttribute('aria-invalid')).toBe(null);
  await page.getByRole('button', { name: 'Save changes' }).click();
  await page.getByText('Saved.').waitFor();
  expect((await products.getProduct(admin, id)).product.description).toBe('Kept as typed.');

  // A new product: a price above the platform's largest is refused next to the price, and none is made.
  const before = await total();
  await newProduct(page);
  await page.getByLabel('Name', { exact: true }).fill('Too Dear');
  await page.getByLabel('Price (USD)').fill('1000000000');
  await page.getByRole('button', { name: 'Create product' }).click();
  await page.getByRole('alert').filter({ hasText: 'Not saved' }).waitFor();
  expect(await description(page, 'Price (USD)')).toMatch(/at most 999999999\.99/);
  expect(await focusedLabel(page)).toBe('Price (USD)');
  expect(await page.getByLabel('Name', { exact: true }).inputValue()).toBe('Too Dear');
  expect(await total()).toBe(before);
  expect(errors).toEqual([]);
});

it('asks before edits not saved are left for another page of the console, or the page is left', async () => {
  const { page, errors } = await newPage(shop.browser);
  await openConsole(page, shop);
  const id = await edit(page, 'Linen Shirt');
  await page.getByLabel('Description').fill('Typed, not saved.');

  // Staying keeps the page and what was typed.
  let asked = answerConfirm(page, false);
  await page.getByRole('link', { name: 'Collections' }).click();
  expect(await asked).toMatch(/not saved/);
  expect(page.url()).toBe(`${shop.url}/merchant/products/${id}`);
  expect(await page.getByLabel('Description').inputValue()).toBe('Typed, not saved.');

  // Leaving the page itself asks too (the browser's own question); staying keeps it.
  const unloading = new Promise<string>((resolve) =>
    page.once('dialog', (d) => {
      resolve(d.type());
      void d.dismiss();
    }),
  );
  await expect(page.goto(`${shop.url}/products`)).rejects.toThrow(/ERR_ABORTED/);
  expect(await unloading).toBe('beforeunload');
  expect(await page.getByLabel('Description').inputValue()).toBe('Typed, not saved.');

  // Leaving, when the merchant says so, goes.
  asked = answerConfirm(page, true);
  await page.getByRole('link', { name: 'Collections' }).click();
  await asked;
  await page.getByRole('heading', { name: 'New collection' }).waitFor();

  // Saved edits, and a new product once created, are left without a question.
  const dialogs: string[] = [];
  page.on('dialog', (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  await edit(page, 'Linen Shirt');
  await page.getByLabel('Ribbon').fill('Audit');
  await page.getByRole('button', { name: 'Save changes' }).click();
  await page.getByText('Saved.').waitFor();
  await newProduct(page);
  await page.getByLabel('Name', { exact: true }).fill('Leaving Tee');
  await page.getByLabel('Price (USD)').fill('12');
  await page.getByRole('button', { name: 'Create product' }).click();
  await page.getByRole('heading', { name: 'Edit Leaving Tee' }).waitFor();
  await page.getByRole('link', { name: 'Products', exact: true }).click();
  await page.getByRole('rowheader', { name: 'Leaving Tee' }).waitFor();
  expect(dialogs).toEqual([]);
  expect(errors).toEqual([]);
});

it('says a product was created and puts the focus on its editor, not on the page', async () => {
  const { page, errors } = await newPage(shop.browser);
  await openConsole(page, shop);
  await newProduct(page);
  await page.getByLabel('Name', { exact: true }).fill('Keyboard Tee');
  await page.getByLabel('Price (USD)').fill('15');
  await page.getByRole('button', { name: 'Create product' }).focus();
  await page.keyboard.press('Enter');
  await page.getByRole('heading', { name: 'Edit Keyboard Tee' }).waitFor();
  await page.getByText('Created.').waitFor();
  expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Edit Keyboard Tee');
  // Said once: opening the product again does not say it was just created.
  await page.reload();
  await page.getByRole('heading', { name: 'Edit Keyboard Tee' }).waitFor();
  expect(await page.getByText('Created.').count()).toBe(0);
  expect(errors).toEqual([]);
});

it("shows the platform's refusal of a collection's name next to that name, and keeps what was typed", async () => {
  const { page, errors } = await newPage(shop.browser);
  await products.createCollection(admin, { name: 'Audit Shelf' });
  await openConsole(page, shop);
  await page.getByRole('link', { name: 'Collections' }).click();
  const long = `Summer ${'x'.repeat(50)}`;
  await page.getByLabel('Name', { exact: true }).fill(long);
  await page.getByRole('button', { name: 'Create collection' }).click();
  await expect.poll(() => description(page, 'Name')).toMatch(/at most 50 characters/);
  expect(await page.getByLabel('Name', { exact: true }).getAttribute('aria-invalid')).toBe('true');
  expect(await focusedLabel(page)).toBe('Name');
  expect(await page.getByLabel('Name', { exact: true }).inputValue()).toBe(long);

  // A refused rename says so next to the collection's name field, which keeps what was typed.
  const field = page.getByLabel('Name of Audit Shelf');
  await field.fill(long);
  await page.getByRole('button', { name: 'Rename Audit Shelf' }).click();
  await expect.poll(() => description(page, 'Name of Audit Shelf')).toMatch(/at most 50 characters/);
  expect(await focusedLabel(page)).toBe('Name of Audit Shelf');
  expect(await field.inputValue()).toBe(long);
  expect(errors).toEqual([]);
});
