/**
 * The third audit's storefront and console defects, in a real Chromium: a save stored whose fresh
 * copy could not be read back is said as saved (a new product as created) with an offer to load
 * it, never as failed; a bulk change's refusals say the platform's own reasons, per product.
 * Tests share one emulator and run in order.
 */
import { type AnyClient, ApiKeyStrategy, createClient, products } from '@shopkit/sdk';
import type { Page } from 'playwright-core';
import { beforeAll, expect, it } from 'vitest';
import { focusedLabel, newPage, setupStorefront } from './browser.ts';
import { describedBy, edit, newProduct, openConsole } from './console.ts';

const shop = setupStorefront();
let admin: AnyClient;
beforeAll(() => {
  admin = createClient({ baseUrl: shop.emu.url, auth: ApiKeyStrategy({ apiKey: shop.emu.demo.apiKey }) });
});

const named = async (name: string) =>
  (
    await products.queryProducts(
      admin,
      { filter: { name }, paging: { limit: 10 } },
      { includeHiddenProducts: true, includeVariants: true },
    )
  ).products;

/** Every read of a product (`getProduct`) from the page gets no answer until the returned undo. */
async function failProductReads(page: Page) {
  const read = (url: URL) => url.pathname.startsWith('/stores-reader/v1/products/');
  await page.route(read, (r) =>
    r.request().method() === 'GET' ? r.abort('internetdisconnected') : r.continue(),
  );
  return () => page.unroute(read);
}

it('says a save whose read-back failed is saved, offers to load it again, and does not say it failed', async () => {
  const { page, errors } = await newPage(shop.browser);
  await openConsole(page, shop);
  const id = await edit(page, 'Stoneware Mug');
  const undo = await failProductReads(page);
  await page.getByLabel('Ribbon').fill('Glazed');
  await page.getByRole('button', { name: 'Save changes' }).click();
  const note = page.getByText(/^Saved\. The saved product could not be loaded again/);
  await note.waitFor();
  expect((await products.getProduct(admin, id)).product.ribbon).toBe('Glazed');
  // Not a failure: no alert, and the editor (its fields) is still there.
  expect(await page.getByRole('alert').allTextContents()).toEqual(['']);
  expect(await page.getByText(/Something went wrong|not saved|could not be reached/i).count()).toBe(0);
  expect(await page.getByLabel('Ribbon').inputValue()).toBe('Glazed');
  // Once reads get through again, "Load it again" shows what is stored.
  await undo();
  await page.getByRole('button', { name: 'Load it again' }).click();
  await page.getByRole('button', { name: 'Remove ribbon “Glazed”' }).waitFor();
  await note.waitFor({ state: 'detached' });
  expect(errors).toEqual([]);
});

it('says a product created whose editor could not load it is created, and never offers to create it again', async () => {
  const { page, errors } = await newPage(shop.browser);
  await openConsole(page, shop);
  await newProduct(page);
  await page.getByLabel('Name').fill('Audit Three Vase');
  await page.getByLabel('Price (USD)').fill('30');
  const undo = await failProductReads(page);
  await page.getByRole('button', { name: 'Create product' }).click();
  await page.getByText(/^Created\. The new product could not be loaded/).waitFor();
  expect(await page.getByText(/Something went wrong/).count()).toBe(0);
  expect(await page.getByRole('button', { name: 'Create product' }).count()).toBe(0);
  const created = await named('Audit Three Vase');
  expect(created).toHaveLength(1);
  expect(page.url()).toContain(`/merchant/products/${created[0]!.id}`);
  await undo();
  await page.getByRole('button', { name: 'Load it again' }).click();
  await page.getByRole('heading', { name: 'Edit Audit Three Vase' }).waitFor();
  expect(await named('Audit Three Vase')).toHaveLength(1);
  expect(errors).toEqual([]);
});

it('says each product a bulk change failed for with the platform’s reason, and a refused value beside it', async () => {
  const { page, errors } = await newPage(shop.browser);
  await openConsole(page, shop);
  await page.getByRole('link', { name: 'Bulk edit' }).click();
  await page.getByLabel('Property').selectOption('price');
  await page.getByLabel('Change').selectOption('amount');
  await page.getByLabel('Value').fill('-30');
  await page.getByLabel('Select Stoneware Mug').check();
  await page.getByLabel('Select Beeswax Candle').check();
  await page.getByRole('button', { name: 'Apply to 2 products' }).click();
  const failed = page.getByRole('list', { name: 'Failed products' });
  await failed.waitFor();
  // The platform's words (`NEGATIVE_VALUE`'s description), each product by name, never its id.
  expect(await failed.textContent()).toBe(
    'Stoneware Mug, Beeswax Candle: The price of this product would become negative.',
  );
  // A value the platform refuses for the whole change: beside the value, in its words, with the focus.
  await page.getByLabel('Change').selectOption('set');
  await page.getByLabel('Value').fill('1000000000');
  await page.getByRole('button', { name: 'Apply to 2 products' }).click();
  await expect.poll(() => describedBy(page, 'Value')).toMatch(/^Must .*999999999\.99/);
  expect(await focusedLabel(page)).toBe('Value');
  expect(await page.getByText(/Some of the details are not valid/).count()).toBe(0);
  expect(errors).toEqual([]);
});
