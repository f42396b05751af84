/**
 * The merchant console's eleventh audit, in a real Chromium: a status line kept its last message
 * after the merchant moved on (the Collections tab pressed again still said "Renamed …"); leaving a
 * page while its save was on its way asked as if its values were unsaved (the save goes on); the
 * editor of a product opened from a collection's products led "Back to products", not back to
 * that collection; a save over a field another tab had changed since the form read it replaced
 * that change unseen (a product's fields, a collection's name); a change to a product or
 * collection deleted elsewhere was said with its opaque id ("Product with id … not found."), and
 * deleting a product already deleted kept its row; a variant's price refused because another tab
 * had removed the options said only "check the details", and the stale variants stayed. Tests
 * share one emulator and run in order.
 */
import { type AnyClient, ApiKeyStrategy, collections, createClient, products } from '@shopkit/sdk';
import type { Page } from 'playwright-core';
import { beforeAll, expect, it } from 'vitest';
import { focused, focusedLabel, newPage, setupStorefront } from './browser.ts';
import { describedBy, edit, openConsole } from './console.ts';

const shop = setupStorefront();
let admin: AnyClient;
beforeAll(() => {
  admin = createClient({ baseUrl: shop.emu.url, auth: ApiKeyStrategy({ apiKey: shop.emu.demo.apiKey }) });
});

/**
 * Holds the page's requests (`method`) to `url` until the returned function is called: a write
 * stays on its way while the test looks at the page.
 */
async function hold(page: Page, url: string, method: string) {
  let release!: () => void;
  const held = new Promise<void>((r) => {
    release = r;
  });
  await page.route(url, async (route) => {
    if (route.request().method() !== method) return route.continue();
    await held;
    await route.continue();
  });
  return release;
}

/** Accepts every question the page asks, and returns the list of their texts. */
const questions = (page: Page) => {
  const asked: string[] = [];
  page.on('dialog', (d) => {
    asked.push(d.message());
    void d.accept();
  });
  return asked;
};

it('forgets a status line’s message once the merchant moves on, even to the page already shown', async () => {
  const { page, errors } = await newPage(shop.browser);
  await products.createCollection(admin, { name: 'Said Once' });
  await openConsole(page, shop);
  await page.getByRole('link', { name: 'Collections' }).click();
  const status = page.getByRole('status').filter({ hasText: 'Renamed' });
  await page.getByLabel('Name of Said Once').fill('Said Twice');
  await page.getByRole('button', { name: 'Rename Said Once' }).click();
  await status.waitFor();
  expect(await status.textContent()).toBe('Renamed Said Once to Said Twice.');

  // The Collections tab again: the page stays, the "Renamed" from before goes.
  await page.getByRole('link', { name: 'Collections' }).click();
  await expect.poll(() => status.count()).toBe(0);
  await page.getByLabel('Name of Said Twice').waitFor();
  expect(errors).toEqual([]);
});

it('does not ask about values whose save is on its way when another page is opened; the save finishes', async () => {
  const { page, errors } = await newPage(shop.browser);
  const asked = questions(page);
  const { collection } = await products.createCollection(admin, { name: 'In Flight' });
  await openConsole(page, shop);

  // The product form.
  const id = await edit(page, 'Linen Shirt');
  let release = await hold(page, `**/stores/v1/products/${id}`, 'PATCH');
  await page.getByLabel('Ribbon').fill('On its way');
  await page.getByRole('button', { name: 'Save changes' }).click();
  await page.getByRole('button', { name: 'Saving…' }).waitFor();
  await page.getByRole('link', { name: 'Collections' }).click();
  await page.getByRole('heading', { name: 'New collection' }).waitFor();
  expect(asked).toEqual([]);
  release();
  await expect.poll(async () => (await products.getProduct(admin, id)).product.ribbon).toBe('On its way');
  await page.unrouteAll();

  // A collection's description.
  release = await hold(page, `**/stores/v1/collections/${collection.id}`, 'PATCH');
  await page.getByLabel('Description of In Flight').fill('Sent, not yet answered.');
  await page.getByRole('button', { name: 'Save the description of In Flight' }).click();
  await page.getByRole('link', { name: 'Products', exact: true }).click();
  await page.getByRole('rowheader', { name: 'Linen Shirt' }).waitFor();
  expect(asked).toEqual([]);
  release();
  await expect
    .poll(async () => (await collections.getCollection(admin, collection.id)).description)
    .toBe('Sent, not yet answered.');
  await page.unrouteAll();

  // An image URL.
  await edit(page, 'Linen Shirt');
  release = await hold(page, '**/media', 'POST');
  await page.getByLabel('Image URL').fill('https://example.com/in-flight.jpg');
  await page.getByRole('button', { name: 'Add image' }).click();
  await page.getByRole('link', { name: 'Products', exact: true }).click();
  await page.getByRole('rowheader', { name: 'Linen Shirt' }).waitFor();
  expect(asked).toEqual([]);
  release();
  await expect
    .poll(async () =>
      (await products.getProduct(admin, id)).product.media?.items?.some((m) =>
        m.image?.url.includes('in-flight.jpg'),
      ),
    )
    .toBe(true);
  await page.unrouteAll();

  // A bulk change.
  const before = (await products.getProduct(admin, id)).product.weight ?? 0;
  await page.getByRole('link', { name: 'Bulk edit' }).click();
  await page.getByLabel('Select Linen Shirt').check();
  await page.getByLabel('Property').selectOption('weight');
  await page.getByLabel('Change').selectOption('set');
  await page.getByLabel('Value').fill(String(before + 1));
  release = await hold(page, '**/stores/v1/bulk/products/update', 'POST');
  await page.getByRole('button', { name: 'Apply to 1 product' }).click();
  await page.getByRole('button', { name: 'Applying…' }).waitFor();
  await page.getByRole('link', { name: 'Products', exact: true }).click();
  await page.getByRole('rowheader', { name: 'Linen Shirt' }).waitFor();
  expect(asked).toEqual([]);
  release();
  await expect.poll(async () => (await products.getProduct(admin, id)).product.weight).toBe(before + 1);
  expect(errors).toEqual([]);
});

it('still asks about what was typed after a save was pressed, and before the tab is reloaded mid-save', async () => {
  const { page, errors } = await newPage(shop.browser);
  await openConsole(page, shop);
  const id = await edit(page, 'Linen Trousers');
  const release = await hold(page, `**/stores/v1/products/${id}`, 'PATCH');
  await page.getByLabel('Ribbon').fill('First');
  await page.getByRole('button', { name: 'Save changes' }).click();
  await page.getByRole('button', { name: 'Saving…' }).waitFor();

  // Reloading would cut the save off: the browser asks; staying keeps the page.
  const unloading = new Promise<string>((resolve) =>
    page.once('dialog', (d) => {
      resolve(d.type());
      void d.dismiss();
    }),
  );
  await expect(page.goto(`${shop.url}/products`)).rejects.toThrow(/ERR_ABORTED/);
  expect(await unloading).toBe('beforeunload');

  // Typed after the press: not on its way, so leaving asks about it.
  await page.getByLabel('Brand').fill('Typed later');
  const asking = new Promise<string>((resolve) =>
    page.once('dialog', (d) => {
      resolve(d.message());
      void d.dismiss();
    }),
  );
  await page.getByRole('link', { name: 'Collections' }).click();
  expect(await asking).toMatch(/your changes to “Linen Trousers”/);
  release();
  await page.getByText('Saved.', { exact: true }).waitFor();
  expect(errors).toEqual([]);
});

it('leads a product opened from a collection back to that collection, its products shown, the focus on it', async () => {
  const { page, errors } = await newPage(shop.browser);
  const { collection } = await products.createCollection(admin, { name: 'Way Back' });
  const made = await Promise.all(
    Array.from({ length: 12 }, (_, i) =>
      products.createProduct(admin, {
        name: `Way ${String(i + 1).padStart(2, '0')}`,
        productType: 'physical',
        priceData: { price: 3 },
      }),
    ),
  );
  await products.addProductsToCollection(
    admin,
    collection.id,
    made.map((m) => m.product.id),
  );
  await openConsole(page, shop);
  await page.getByRole('link', { name: 'Collections' }).click();
  await page.getByRole('button', { name: 'Show products in Way Back' }).click();
  const members = page.getByRole('region', { name: 'Products in Way Back' });
  await members.getByRole('button', { name: 'Next' }).click();
  await members.getByText('Page 2 of 2').waitFor();
  await members.getByRole('link', { name: 'Way 12' }).click();
  await page.getByRole('heading', { name: 'Edit Way 12' }).waitFor();
  expect(await page.getByRole('link', { name: 'Back to products' }).count()).toBe(0);

  // The editor's link: back to the collection, its products shown at the page left.
  await page.getByRole('link', { name: 'Back to the collection Way Back' }).click();
  await members.getByText('Page 2 of 2').waitFor();
  await expect.poll(() => focused(page)).toBe('A Way 12');

  // The browser's Back does the same.
  await members.getByRole('link', { name: 'Way 11' }).click();
  await page.getByRole('heading', { name: 'Edit Way 11' }).waitFor();
  await page.goBack();
  await members.getByText('Page 2 of 2').waitFor();
  await expect.poll(() => focused(page)).toBe('A Way 11');

  // Opened from the product list, it still leads back to the products.
  await edit(page, 'Way 03');
  await page.getByRole('link', { name: 'Back to products' }).click();
  await page.getByRole('rowheader', { name: 'Way 03' }).waitFor();
  expect(errors).toEqual([]);
});

it('does not replace unseen a field another tab changed since the form read it; a second save does, knowingly', async () => {
  const { product } = await products.createProduct(admin, {
    name: 'Two Tabs Lamp',
    productType: 'physical',
    priceData: { price: 10 },
  });
  const { page: a, errors } = await newPage(shop.browser);
  const { page: b } = await newPage(shop.browser);
  for (const page of [a, b]) {
    await openConsole(page, shop);
    await edit(page, 'Two Tabs Lamp');
  }
  const stored = async () => (await products.getProduct(admin, product.id)).product;

  // The other tab saves a price first.
  await b.getByLabel('Price (USD)').fill('12');
  await b.getByRole('button', { name: 'Save changes' }).click();
  await b.getByText('Saved.', { exact: true }).waitFor();

  // This tab's price: not sent over it; said beside the field, with what is stored now.
  await a.getByLabel('Price (USD)').fill('15');
  await a.getByLabel('Brand').fill('Kiln');
  await a.getByRole('button', { name: 'Save changes' }).click();
  await a.getByRole('alert').filter({ hasText: 'Not saved' }).waitFor();
  expect(await describedBy(a, 'Price (USD)')).toMatch(/^Price \(USD\): Changed elsewhere .*it is now “12”/);
  expect(await focusedLabel(a)).toBe('Price (USD)');
  expect((await stored()).priceData?.price).toBe(12);
  expect((await stored()).brand).toBeUndefined();
  expect(await a.getByLabel('Price (USD)').inputValue()).toBe('15');

  // Saved again, knowingly: it replaces it.
  await a.getByRole('button', { name: 'Save changes' }).click();
  await a.getByText('Saved.', { exact: true }).waitFor();
  expect((await stored()).priceData?.price).toBe(15);
  expect((await stored()).brand).toBe('Kiln');

  // A field the other tab did not change saves at once, and leaves the other tab's change alone.
  await b.getByLabel('Ribbon').fill('New');
  await b.getByRole('button', { name: 'Save changes' }).click();
  await b.getByRole('alert').filter({ hasText: 'Not saved' }).waitFor({ state: 'detached' });
  await b.getByText('Saved.', { exact: true }).waitFor();
  expect((await stored()).ribbon).toBe('New');
  expect((await stored()).priceData?.price).toBe(15);
  expect(errors).toEqual([]);
});

it('says a change to a product or collection deleted elsewhere is not saved because it no longer exists, without its id', async () => {
  const { page, errors } = await newPage(shop.browser);
  page.on('dialog', (d) => void d.accept());
  const { product } = await products.createProduct(admin, {
    name: 'Gone Lamp',
    productType: 'physical',
    priceData: { price: 10 },
  });
  const { collection } = await products.createCollection(admin, { name: 'Gone Shelf' });
  const { product: twice } = await products.createProduct(admin, {
    name: 'Gone Twice',
    productType: 'physical',
    priceData: { price: 2 },
  });
  const noId = (text: string | null) => {
    expect(text).not.toContain(product.id);
    expect(text).not.toContain(collection.id);
  };
  await openConsole(page, shop);

  // The product form, and a change beside it.
  await edit(page, 'Gone Lamp');
  await products.deleteProduct(admin, product.id);
  await page.getByLabel('Ribbon').fill('Late');
  await page.getByRole('button', { name: 'Save changes' }).click();
  const formAlert = page.getByRole('alert').filter({ hasText: 'this product no longer exists' });
  await formAlert.waitFor();
  noId(await formAlert.textContent());
  await page.getByLabel('Image URL').fill('https://example.com/late.jpg');
  await page.getByRole('button', { name: 'Add image' }).click();
  // The form's alert and the one beside it.
  await expect.poll(() => formAlert.count()).toBe(2);
  for (const text of await formAlert.allTextContents()) noId(text);

  // A collection: its row goes with the list read again, the focus on the list's heading.
  await page.getByRole('link', { name: 'Collections' }).click();
  await page.getByLabel('Name of Gone Shelf').fill('Gone Shelf Two');
  await products.deleteCollection(admin, collection.id);
  await page.getByRole('button', { name: 'Rename Gone Shelf' }).click();
  const listAlert = page.getByRole('alert').filter({ hasText: 'that collection no longer exists' });
  await listAlert.waitFor();
  noId(await listAlert.textContent());
  await page.getByLabel('Name of Gone Shelf').waitFor({ state: 'detached' });
  expect(await focused(page)).toBe('H2 Collections');

  // A product deleted already: said so, and its row goes.
  await page.getByRole('link', { name: 'Products', exact: true }).click();
  await page.getByLabel('Filter by name').fill('Gone Twice');
  await page.getByRole('rowheader', { name: 'Gone Twice' }).waitFor();
  await products.deleteProduct(admin, twice.id);
  await page.getByRole('button', { name: 'Delete Gone Twice' }).click();
  await page.getByRole('status').filter({ hasText: 'That product was already deleted elsewhere' }).waitFor();
  await page.getByRole('rowheader', { name: 'Gone Twice' }).waitFor({ state: 'detached' });
  expect(await page.getByRole('alert').filter({ hasText: twice.id }).count()).toBe(0);
  expect(errors).toEqual([]);
});

it('says in the platform’s words why a variant’s price was refused after another tab removed the options, and shows what is stored', async () => {
  const { page, errors } = await newPage(shop.browser);
  const { product } = await products.createProduct(admin, {
    name: 'Options Gone Lamp',
    productType: 'physical',
    priceData: { price: 10 },
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
  await edit(page, 'Options Gone Lamp');
  await products.deleteProductOptions(admin, product.id);
  await page.getByLabel('Price of S', { exact: true }).fill('14.5');
  await page.getByLabel('Price of S', { exact: true }).press('Enter');
  const alert = page.getByRole('alert').filter({ hasText: 'The change was not saved.' });
  await alert.waitFor();
  expect(await alert.textContent()).toMatch(/The platform refused it: “.+”\./);
  expect(await alert.textContent()).not.toMatch(/Check them and try again/);
  // Read again: the variants are gone, and the page says why.
  await page.getByText('All options removed: the product has a single variant.').waitFor();
  expect(await page.getByLabel('Price of S', { exact: true }).count()).toBe(0);
  expect(errors).toEqual([]);
});

it('does not rename unseen a collection another tab renamed since the page read it; a second rename does', async () => {
  const { collection } = await products.createCollection(admin, { name: 'Tab Shelf' });
  const { page: a, errors } = await newPage(shop.browser);
  const { page: b } = await newPage(shop.browser);
  for (const page of [a, b]) {
    await openConsole(page, shop);
    await page.getByRole('link', { name: 'Collections' }).click();
    await page.getByLabel('Name of Tab Shelf').waitFor();
  }
  const stored = async () => (await collections.getCollection(admin, collection.id)).name;

  await b.getByLabel('Name of Tab Shelf').fill('Shelf of B');
  await b.getByRole('button', { name: 'Rename Tab Shelf' }).click();
  await b.getByRole('status').filter({ hasText: 'Renamed Tab Shelf to Shelf of B.' }).waitFor();

  await a.getByLabel('Name of Tab Shelf').fill('Shelf of A');
  await a.getByRole('button', { name: 'Rename Tab Shelf' }).click();
  // Read again: the field is named after what is stored now, and says it was changed elsewhere.
  const field = 'Name of Shelf of B';
  await a.getByLabel(field).waitFor();
  await expect.poll(() => describedBy(a, field)).toMatch(/^Changed elsewhere .*it is now “Shelf of B”/);
  expect(await focusedLabel(a)).toBe(field);
  expect(await a.getByLabel(field).inputValue()).toBe('Shelf of A');
  expect(await stored()).toBe('Shelf of B');

  await a.getByRole('button', { name: 'Rename Shelf of B' }).click();
  await a.getByRole('status').filter({ hasText: 'Renamed Shelf of B to Shelf of A.' }).waitFor();
  expect(await stored()).toBe('Shelf of A');
  expect(errors).toEqual([]);
});
