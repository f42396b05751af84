/**
 * The merchant console's twelfth audit, second pass, in a real Chromium: what earlier passes did
 * not cover (collections, media, options, variant prices, bulk limits, a narrow screen). A save
 * whose options delete stocked variants did not say how many units go; the bulk preview showed a
 * value above the platform's maximum as if it would be stored; a collection could take another's
 * name, and the two were told apart nowhere; a video was a bare "Remove" named "image". Tests share
 * one emulator and run in order.
 */
import { type AnyClient, ApiKeyStrategy, collections, createClient, products } from '@shopkit/sdk';
import { beforeAll, expect, it } from 'vitest';
import { axeViolations, focusedLabel, newPage, setupStorefront } from './browser.ts';
import { answerConfirm, describedBy, edit, openConsole } from './console.ts';

const shop = setupStorefront();
let admin: AnyClient;
beforeAll(() => {
  admin = createClient({ baseUrl: shop.emu.url, auth: ApiKeyStrategy({ apiKey: shop.emu.demo.apiKey }) });
});

it('says how many units in stock go when a save’s options delete variants (it said only “and stock”)', async () => {
  const { page, errors } = await newPage(shop.browser);
  const { product } = await products.createProduct(admin, {
    name: 'Fit Tee',
    productType: 'physical',
    priceData: { price: 10 },
    stock: { trackInventory: true, quantity: 4 },
    productOptions: [
      {
        name: 'Size',
        choices: [
          { description: 'S', value: 'S' },
          { description: 'M', value: 'M' },
        ],
      },
      { name: 'Fit', choices: [{ description: 'Slim', value: 'Slim' }] },
    ],
    manageVariants: true,
  });
  await openConsole(page, shop);
  await edit(page, 'Fit Tee');
  // Removing the Fit option makes new variants of Size alone: the two stocked ones go.
  await page.getByLabel('Options').fill('Size: S, M');
  const asked = answerConfirm(page, false);
  await page.getByRole('button', { name: 'Save changes' }).click();
  expect(await asked).toBe(
    'These options delete 2 variants of the 2 of “Fit Tee” (Slim / S, Slim / M), with their own prices and stock (8 in stock). Save anyway?',
  );
  // Declined: nothing sent.
  const stored = await products.getProduct(admin, product.id, { includeMerchantSpecificData: true });
  expect(stored.product.productOptions?.map((o) => o.name)).toEqual(['Size', 'Fit']);
  expect(errors).toEqual([]);
});

it('shows a bulk value above the platform’s maximum as refused, not as a value; applying lists that product as failed', async () => {
  const { page, errors } = await newPage(shop.browser);
  const made = await Promise.all(
    [
      ['Top Small', 30],
      ['Top Huge', 999_999_990],
    ].map(([name, price]) =>
      products.createProduct(admin, {
        name: name as string,
        productType: 'physical',
        priceData: { price: price as number },
      }),
    ),
  );
  await openConsole(page, shop);
  await page.getByRole('link', { name: 'Bulk edit' }).click();
  await page.getByLabel('Filter products by name').fill('Top ');
  const table = page.getByRole('table', { name: 'Preview' });
  await expect.poll(() => table.getByRole('rowheader').allTextContents()).toEqual(['Top Huge', 'Top Small']);
  await page.getByLabel('Select all products shown').check();
  await page.getByLabel('Property').selectOption('price');
  await page.getByLabel('Change').selectOption('Adjust by an amount');
  await page.getByLabel('Value').fill('20');
  const after = (name: string) =>
    table
      .getByRole('row')
      .filter({ has: page.getByRole('rowheader', { name, exact: true }) })
      .getByRole('cell')
      .last()
      .textContent();
  await expect.poll(() => after('Top Small')).toBe('$50.00');
  expect(await after('Top Huge')).toBe('refused: the price would go above 999,999,999.99');

  await page.getByRole('button', { name: 'Apply to 2 products' }).click();
  await page.getByText('Updated 1 product; 1 failed.').waitFor();
  await page.getByText(/^Top Huge: The price of this product would exceed/).waitFor();
  const prices = await Promise.all(
    made.map(async (m) => (await products.getProduct(admin, m.product.id)).product.priceData?.price),
  );
  expect(prices).toEqual([50, 999_999_990]);
  expect(errors).toEqual([]);
});

it('refuses a collection name another collection has, beside the field, before anything is sent', async () => {
  const { page, errors } = await newPage(shop.browser);
  await products.createCollection(admin, { name: 'Named Once' });
  await products.createCollection(admin, { name: 'Named Twice' });
  await openConsole(page, shop);
  await page.getByRole('link', { name: 'Collections' }).click();
  let sent = 0;
  page.on('request', (r) => {
    if (r.url().includes('/collections') && ['POST', 'PATCH'].includes(r.method())) sent++;
  });
  // A rename to another's name, in another case.
  await page.getByLabel('Name of Named Twice').fill('named once');
  await page.getByRole('button', { name: 'Rename Named Twice' }).click();
  await expect
    .poll(() => describedBy(page, 'Name of Named Twice'))
    .toBe('Another collection is named “Named Once”: give this one a name of its own.');
  expect(await focusedLabel(page)).toBe('Name of Named Twice');
  // A new collection with a name one has.
  await page.getByLabel('Name', { exact: true }).fill(' Named Twice ');
  await page.getByRole('button', { name: 'Create collection' }).click();
  await expect
    .poll(() => describedBy(page, 'Name'))
    .toBe('Another collection is named “Named Twice”: give this one a name of its own.');
  expect(await focusedLabel(page)).toBe('Name');
  expect(await axeViolations(page)).toEqual([]);
  expect(sent).toBe(0);
  const names = (await collections.queryCollections(admin).limit(100).find()).items.map((c) => c.name);
  expect(names.filter((n) => n.toLowerCase().startsWith('named')).sort()).toEqual([
    'Named Once',
    'Named Twice',
  ]);

  // Its own name in another case is a rename of its own.
  await page.getByLabel('Name of Named Twice').fill('Named TWICE');
  await page.getByRole('button', { name: 'Rename Named Twice' }).click();
  await page.getByRole('status').filter({ hasText: 'Renamed Named Twice to Named TWICE.' }).waitFor();
  expect(errors).toEqual([]);
});

it('names a video as a video, in sight and to a screen reader (it was a bare "Remove", said "image 2")', async () => {
  const { page, errors } = await newPage(shop.browser);
  await products.createProduct(admin, {
    name: 'Clip Lamp',
    productType: 'physical',
    priceData: { price: 7 },
  });
  await openConsole(page, shop);
  await edit(page, 'Clip Lamp');
  for (const url of ['https://example.com/lamp.jpg', 'https://example.com/lamp.mp4']) {
    await page.getByLabel('Image URL').fill(url);
    await page.getByRole('button', { name: 'Add image' }).click();
    await page.getByRole('status').filter({ hasText: 'Image added.' }).waitFor();
    await expect.poll(() => page.getByLabel('Image URL').inputValue()).toBe('');
  }
  const media = page.getByRole('list', { name: 'Media' });
  await expect
    .poll(() => media.getByRole('button').evaluateAll((bs) => bs.map((b) => b.textContent)))
    .toEqual(['Remove image 1', 'Remove video 2']);
  // Seen, where an image shows its picture.
  const seen = media.getByRole('listitem').last().locator('[aria-hidden="true"]');
  expect([await seen.isVisible(), await seen.textContent()]).toEqual([true, 'video 2']);
  // Removing the last item: said by its name, the focus on the Media heading.
  await page.getByRole('button', { name: 'Remove video 2' }).click();
  await page.getByRole('status').filter({ hasText: 'Removed video 2.' }).waitFor();
  await page.getByRole('button', { name: 'Remove image 1' }).click();
  await page.getByRole('status').filter({ hasText: 'Removed image 1.' }).waitFor();
  await expect.poll(() => media.getByRole('listitem').count()).toBe(0);
  expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Media');
  expect(await axeViolations(page)).toEqual([]);
  expect(errors).toEqual([]);
});

it('fits the collections page in a 390 px screen with a long product name (it scrolled sideways)', async () => {
  const { page, errors } = await newPage(shop.browser);
  await page.setViewportSize({ width: 390, height: 800 });
  await products.createProduct(admin, {
    name: 'Organic Cotton Crew Neck T-Shirt in Heather Grey, Long Fit',
    productType: 'physical',
    priceData: { price: 20 },
  });
  await openConsole(page, shop);
  await page.getByRole('link', { name: 'Collections' }).click();
  await page.getByRole('heading', { name: 'Collections' }).waitFor();
  // The "Add a product to …" drop-down is as wide as its longest product name.
  expect(
    await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth),
  ).toBe(0);
  expect(errors).toEqual([]);
});
