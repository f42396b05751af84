/**
 * The merchant console's twelfth audit, in a real Chromium: a product's stock could not be edited
 * (whether its units are counted, how many, in stock or not); the bulk table had no filter, so a
 * merchant with many products scrolled for the ones to change. Tests share one emulator and run
 * in order.
 */
import { type AnyClient, ApiKeyStrategy, createClient, products } from '@shopkit/sdk';
import { beforeAll, expect, it } from 'vitest';
import { axeViolations, focused, focusedLabel, newPage, setupStorefront } from './browser.ts';
import { describedBy, edit, openConsole } from './console.ts';

const shop = setupStorefront();
let admin: AnyClient;
beforeAll(() => {
  admin = createClient({ baseUrl: shop.emu.url, auth: ApiKeyStrategy({ apiKey: shop.emu.demo.apiKey }) });
});

const stockOf = async (id: string) => {
  const { product } = await products.getProduct(admin, id, { includeMerchantSpecificData: true });
  return {
    track: !!product.stock?.trackInventory,
    inStock: product.stock?.inStock,
    quantities: (product.variants ?? []).map((v) => v.stock?.quantity),
  };
};

it('edits the stock of a product without options: counted with a quantity, or in and out of stock', async () => {
  const { page, errors } = await newPage(shop.browser);
  const { product } = await products.createProduct(admin, {
    name: 'Stock Jug',
    productType: 'physical',
    priceData: { price: 8 },
  });
  await openConsole(page, shop);
  await edit(page, 'Stock Jug');
  const status = page.getByRole('status').filter({ hasText: 'Saved the stock' });

  // Counting starts with a quantity: none typed is said beside the field, nothing is sent.
  await page.getByLabel('Count the units in stock').check();
  await page.getByRole('button', { name: 'Save stock' }).click();
  expect(await describedBy(page, 'Quantity in stock')).toBe('Enter the quantity in stock, such as 12.');
  expect(await focusedLabel(page)).toBe('Quantity in stock');
  expect((await stockOf(product.id)).track).toBe(false);

  await page.getByLabel('Quantity in stock').fill('12');
  await page.getByLabel('Quantity in stock').press('Enter');
  await status.waitFor();
  expect(await status.textContent()).toBe('Saved the stock: 12 in stock.');
  expect(await stockOf(product.id)).toEqual({ track: true, inStock: true, quantities: [12] });
  expect(await page.getByLabel('Quantity in stock').inputValue()).toBe('12');

  // A quantity the platform refuses: its words beside the field.
  await page.getByLabel('Quantity in stock').fill('2000000');
  await page.getByRole('button', { name: 'Save stock' }).click();
  await expect.poll(() => describedBy(page, 'Quantity in stock')).toMatch(/1000000/);
  expect(await focusedLabel(page)).toBe('Quantity in stock');
  expect((await stockOf(product.id)).quantities).toEqual([12]);
  // The section, its error shown, is accessible.
  expect(await axeViolations(page)).toEqual([]);

  await page.getByLabel('Quantity in stock').fill('0');
  await page.getByRole('button', { name: 'Save stock' }).click();
  await page.getByRole('status').filter({ hasText: 'Saved the stock: 0 in stock.' }).waitFor();
  expect(await stockOf(product.id)).toEqual({ track: true, inStock: false, quantities: [0] });

  // Not counted: in stock or not.
  await page.getByLabel('Count the units in stock').uncheck();
  await page.getByLabel('Availability').selectOption('In stock');
  await page.getByRole('button', { name: 'Save stock' }).click();
  await page.getByRole('status').filter({ hasText: 'Saved the stock: in stock, not counted.' }).waitFor();
  expect(await stockOf(product.id)).toEqual({ track: false, inStock: true, quantities: [undefined] });
  expect(await page.getByLabel('Availability').inputValue()).toBe('in');
  expect(await page.getByLabel('Count the units in stock').isChecked()).toBe(false);
  expect(errors).toEqual([]);
});

it('does not set a quantity over one an order changed since the page read it; a second save does, knowingly', async () => {
  const { page, errors } = await newPage(shop.browser);
  const { product } = await products.createProduct(admin, {
    name: 'Sold Meanwhile',
    productType: 'physical',
    priceData: { price: 5 },
    stock: { trackInventory: true, quantity: 12 },
  });
  await openConsole(page, shop);
  await edit(page, 'Sold Meanwhile');
  expect(await page.getByLabel('Quantity in stock').inputValue()).toBe('12');
  // Two units sold elsewhere while the page stays open.
  await products.updateProduct(admin, product.id, { stock: { quantity: 10 } });

  await page.getByLabel('Quantity in stock').fill('13');
  await page.getByRole('button', { name: 'Save stock' }).click();
  await expect
    .poll(() => describedBy(page, 'Quantity in stock'))
    .toMatch(/^Changed elsewhere .*it is now 10\. Not saved; save again/);
  expect(await focusedLabel(page)).toBe('Quantity in stock');
  expect((await stockOf(product.id)).quantities).toEqual([10]);
  expect(await page.getByLabel('Quantity in stock').inputValue()).toBe('13');

  await page.getByRole('button', { name: 'Save stock' }).click();
  await page.getByRole('status').filter({ hasText: 'Saved the stock: 13 in stock.' }).waitFor();
  expect((await stockOf(product.id)).quantities).toEqual([13]);
  expect(await describedBy(page, 'Quantity in stock')).toBe('');
  expect(errors).toEqual([]);
});

it('gives every variant a quantity, keeps each one’s when left empty, and keeps some variants sold out when saved as shown', async () => {
  const { page, errors } = await newPage(shop.browser);
  const { product } = await products.createProduct(admin, {
    name: 'Stock Cap',
    productType: 'physical',
    priceData: { price: 9 },
    stock: { trackInventory: true, quantity: 3 },
    productOptions: [
      {
        name: 'Size',
        choices: [
          { description: 'S', value: 'S' },
          { description: 'M', value: 'M' },
        ],
      },
    ],
    manageVariants: true,
  });
  await openConsole(page, shop);
  await edit(page, 'Stock Cap');

  await page.getByLabel('Quantity of each variant').fill('5');
  await page.getByRole('button', { name: 'Save stock' }).click();
  await page
    .getByRole('status')
    .filter({ hasText: 'Saved the stock: 5 of each variant in stock.' })
    .waitFor();
  expect((await stockOf(product.id)).quantities).toEqual([5, 5]);
  // The variants' table shows them; the field is empty again.
  const variantsTable = page.getByRole('table', { name: 'Variants' });
  await expect
    .poll(() => variantsTable.getByRole('row', { name: /^S / }).getByRole('cell').last().textContent())
    .toBe('5');
  expect(await page.getByLabel('Quantity of each variant').inputValue()).toBe('');

  // Left empty: nothing to save; each variant keeps its own.
  await page.getByRole('button', { name: 'Save stock' }).click();
  await page.getByRole('status').filter({ hasText: 'No changes to the stock to save.' }).waitFor();

  // No longer counted: every variant sold out.
  await page.getByLabel('Count the units in stock').uncheck();
  await page.getByLabel('Availability').selectOption('Every variant sold out');
  await page.getByRole('button', { name: 'Save stock' }).click();
  await page
    .getByRole('status')
    .filter({ hasText: 'Saved the stock: sold out (every variant), not counted.' })
    .waitFor();
  expect(await stockOf(product.id)).toMatchObject({ track: false, inStock: false });

  // Some variants sold out (the seeded mug's Charcoal): said so, and saving as shown keeps it.
  const mug = await edit(page, 'Stoneware Mug');
  const before = (await products.getProduct(admin, mug)).product.variants?.map((v) => v.stock?.inStock);
  expect(before).toEqual([true, false, true]);
  expect(await page.getByLabel('Availability').inputValue()).toBe('some');
  await page.getByRole('button', { name: 'Save stock' }).click();
  await page.getByRole('status').filter({ hasText: 'No changes to the stock to save.' }).waitFor();
  expect((await products.getProduct(admin, mug)).product.variants?.map((v) => v.stock?.inStock)).toEqual(
    before,
  );
  expect(errors).toEqual([]);
});

it('filters the bulk table by name; "Select all" takes the products shown, and those hidden are said', async () => {
  const { page, errors } = await newPage(shop.browser);
  const made = await Promise.all(
    ['Filter Vase A', 'Filter Vase B', 'Filter Bowl'].map((name) =>
      products.createProduct(admin, { name, productType: 'physical', priceData: { price: 10 } }),
    ),
  );
  await openConsole(page, shop);
  await page.getByRole('link', { name: 'Bulk edit' }).click();
  await page.getByLabel('Filter products by name').fill('filter vase');
  const table = page.getByRole('table', { name: 'Preview' });
  await expect
    .poll(() => table.getByRole('rowheader').allTextContents())
    .toEqual(['Filter Vase A', 'Filter Vase B']);
  await page.getByText('2 of ').waitFor();

  await page.getByLabel('Select all products shown').check();
  await page.getByLabel('Filter products by name').fill('Filter Bowl');
  await expect.poll(() => table.getByRole('rowheader').allTextContents()).toEqual(['Filter Bowl']);
  await page.getByText('2 chosen products not shown are changed too.').waitFor();
  expect(await axeViolations(page)).toEqual([]);
  await page.getByLabel('Select Filter Bowl').check();
  await page.getByLabel('Property').selectOption('price');
  await page.getByLabel('Change').selectOption('set');
  await page.getByLabel('Value').fill('11');
  await page.getByRole('button', { name: 'Apply to 3 products' }).click();
  await page.getByText('Updated 3 products.').waitFor();
  for (const m of made)
    expect((await products.getProduct(admin, m.product.id)).product.priceData?.price).toBe(11);

  // Unticking "Select all" leaves the products the filter hides chosen.
  await page.getByLabel('Select all products shown').uncheck();
  await page.getByRole('button', { name: 'Apply to 2 products' }).waitFor();
  expect(errors).toEqual([]);
});

it('says in the product list how many are in stock, and that some variants are sold out (it said "In stock")', async () => {
  const { page, errors } = await newPage(shop.browser);
  await products.createProduct(admin, {
    name: 'Counted Bottle',
    productType: 'physical',
    priceData: { price: 4 },
    stock: { trackInventory: true, quantity: 7 },
  });
  await openConsole(page, shop);
  const stockCell = async (name: string) => {
    await page.getByLabel('Filter by name').fill(name);
    const row = page.getByRole('row').filter({ has: page.getByRole('rowheader', { name, exact: true }) });
    await row.waitFor();
    // Name, Price, Cost, Stock: the fourth cell.
    return row.locator('td').nth(2).textContent();
  };
  expect(await stockCell('Counted Bottle')).toBe('7 in stock');
  expect(await stockCell('Stoneware Mug')).toBe('Some variants sold out');
  expect(errors).toEqual([]);
});

it('refuses "Add" to a collection with no product chosen, the focus on the list to choose from', async () => {
  const { page, errors } = await newPage(shop.browser);
  await products.createCollection(admin, { name: 'Empty Choice' });
  await openConsole(page, shop);
  await page.getByRole('link', { name: 'Collections' }).click();
  let sent = 0;
  page.on('request', (r) => {
    if (r.method() === 'POST' && r.url().includes('/productIds')) sent++;
  });
  await page.getByRole('button', { name: 'Add to Empty Choice' }).click();
  await expect.poll(() => focusedLabel(page)).toBe('Add a product to Empty Choice');
  expect(
    await page
      .getByLabel('Add a product to Empty Choice')
      .evaluate((el) => (el as HTMLSelectElement).validity.valueMissing),
  ).toBe(true);
  expect(sent).toBe(0);
  expect(errors).toEqual([]);
});

it('keeps the focus on "Open the console" while a key is checked, and there once it is refused', async () => {
  const { page, errors } = await newPage(shop.browser);
  await page.goto(`${shop.url}/merchant`);
  await page.getByLabel('API key').fill('not-the-key');
  let checks = 0;
  let release!: () => void;
  const held = new Promise<void>((r) => {
    release = r;
  });
  await page.route('**/products/query-platformized**', async (route) => {
    checks++;
    await held;
    await route.continue();
  });
  await page.getByLabel('API key').press('Tab');
  await page.keyboard.press('Enter');
  await page.getByRole('button', { name: 'Checking…' }).waitFor();
  expect(await focused(page)).toBe('BUTTON Checking…');
  // A second press while it is checked sends nothing more.
  await page.keyboard.press('Enter');
  release();
  await page.getByRole('alert').filter({ hasText: 'The key was not accepted' }).waitFor();
  expect(await focused(page)).toBe('BUTTON Open the console');
  expect(checks).toBe(1);
  expect(errors).toEqual([]);
});

it('names the table of a product’s variants (a screen reader’s list of tables said only "table")', async () => {
  const { page, errors } = await newPage(shop.browser);
  await openConsole(page, shop);
  await edit(page, 'Linen Shirt');
  const table = page.getByRole('table', { name: 'Variants' });
  await table.waitFor();
  expect(await table.getByRole('rowheader').count()).toBeGreaterThan(1);
  expect(errors).toEqual([]);
});
