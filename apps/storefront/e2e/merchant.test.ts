/**
 * The merchant journey in a real Chromium: the console authenticates with the API key pasted
 * into the page (kept in sessionStorage, never in the bundle), creates a product with colour
 * options, sets a variant price, previews and applies a bulk price change, and the product then
 * appears in the shop with its swatches.
 */
import { expect, it } from 'vitest';
import { newPage, setupStorefront } from './browser.ts';

const shop = setupStorefront();

it('refuses a wrong key, then creates a product that appears in the shop', async () => {
  const { page, errors } = await newPage(shop.browser);
  await page.goto(`${shop.url}/merchant`);
  await page.getByRole('heading', { name: 'Merchant console' }).waitFor();

  await page.getByLabel('API key').fill('IST.not-a-key');
  await page.getByRole('button', { name: 'Open the console' }).click();
  await page.getByRole('alert').filter({ hasText: 'The key was not accepted' }).waitFor();
  // The wrong key is not kept; the right one is, in this tab's sessionStorage only.
  await page.getByLabel('API key').fill(shop.emu.demo.apiKey);
  await page.getByRole('button', { name: 'Open the console' }).click();
  await page.getByRole('table').getByRole('rowheader', { name: 'Linen Shirt' }).waitFor();
  expect(await page.evaluate(() => Object.keys(sessionStorage))).toEqual(['shopkit:merchant:apiKey']);
  expect(await page.evaluate(() => Object.keys(localStorage).filter((k) => k.includes('merchant')))).toEqual(
    [],
  );

  await page.getByRole('link', { name: 'New product' }).click();
  await page.getByLabel('Name').fill('Harbour Scarf');
  await page.getByLabel('Description').fill('A light merino scarf.');
  await page.getByLabel('Price (USD)').fill('39');
  await page.getByLabel('Cost (USD)').fill('12');
  await page.getByLabel('Ribbon').fill('Limited');
  await page.getByLabel('Brand').fill('Fieldbag');
  await page.getByLabel('Options').fill('Color: Navy #1f3a5f, Rust #b7472a');
  await page.getByRole('button', { name: 'Create product' }).click();
  await page.getByRole('heading', { name: 'Edit Harbour Scarf' }).waitFor();

  // Variant price, ribbon removal.
  await page.getByLabel('Price of Rust').fill('42');
  await page.getByRole('button', { name: 'Set price of Rust' }).click();
  await page.getByRole('button', { name: 'Remove ribbon “Limited”' }).click();
  await page.getByRole('button', { name: 'Remove ribbon' }).and(page.locator(':disabled')).waitFor();

  // Bulk: +10% on the new product, previewed first.
  await page.getByRole('link', { name: 'Bulk edit' }).click();
  await page.getByLabel('Select Harbour Scarf').check();
  const row = page.getByRole('row', { name: /Harbour Scarf/ });
  await row.getByText('$42.90').waitFor();
  await page.getByRole('button', { name: 'Apply to 1 product' }).click();
  await page.getByText('Updated 1 product.').waitFor();

  // The shop shows it, with the new price and its colour swatches.
  await page.goto(`${shop.url}/products?sort=newest`);
  await page
    .getByRole('list', { name: 'Products' })
    .getByRole('link', { name: /Harbour Scarf/ })
    .click();
  await page.getByRole('heading', { level: 1, name: 'Harbour Scarf' }).waitFor();
  await page.getByLabel('Navy', { exact: true }).check();
  await page.locator('.variant-price').getByText('$42.90').waitFor();
  expect(await page.getByText('Limited').count()).toBe(0);
  expect(errors).toEqual([]);
});
