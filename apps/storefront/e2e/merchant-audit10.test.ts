/**
 * The merchant console's tenth audit, in a real Chromium: the product list forgot its filter and
 * page after a visit to a product (the browser's Back, or the editor's "Back to products"), and
 * the focus was not given back to the product's Edit link; an image URL or a new collection's name
 * whose add got no answer (it may be made, and the page reads it again) stayed typed, so leaving
 * asked about it; a product delete that got no answer was said as not deleted; a change beside the
 * product form (a ribbon or an image removed, an image added, a variant's price set) was said to
 * no one once stored; every console page had one title, so moving between them was not announced;
 * a product that no longer exists was said as "Something went wrong"; a problem below a row of
 * fields did not name its field; an option or a choice given twice was asked about (variants to
 * delete) before the platform refused it; a key the platform no longer accepts left every page at
 * "Try again". Tests share one emulator and run in order.
 */
import { randomUUID } from 'node:crypto';
import { type AnyClient, ApiKeyStrategy, createClient, products } from '@shopkit/sdk';
import type { Page } from 'playwright-core';
import { beforeAll, expect, it } from 'vitest';
import { focused, newPage, setupStorefront, slowCpu } from './browser.ts';
import { answerConfirm, describedBy, edit, newProduct, openConsole } from './console.ts';

const shop = setupStorefront();
let admin: AnyClient;
beforeAll(() => {
  admin = createClient({ baseUrl: shop.emu.url, auth: ApiKeyStrategy({ apiKey: shop.emu.demo.apiKey }) });
});

/** The page's requests (`method`) to `url` reach the platform, and their answers are lost on the way back. */
const loseAnswers = (page: Page, url: string, method = 'POST') =>
  page.route(url, async (route) => {
    if (route.request().method() !== method) return route.continue();
    await route.fetch();
    await route.abort('internetdisconnected');
  });

/** Accepts every question the page asks, and returns the list of their texts. */
const questions = (page: Page) => {
  const asked: string[] = [];
  page.on('dialog', (d) => {
    asked.push(d.message());
    void d.accept();
  });
  return asked;
};

it('shows the product list as it was left, filtered and on its page, on Back from a product', async () => {
  const { page, errors } = await newPage(shop.browser);
  for (let i = 0; i < 60; i += 10)
    await Promise.all(
      Array.from({ length: 10 }, (_, j) =>
        products.createProduct(admin, {
          name: `Paged ${String(i + j + 1).padStart(2, '0')}`,
          productType: 'physical',
          priceData: { price: 4 },
        }),
      ),
    );
  await openConsole(page, shop);
  const rows = page.getByRole('table').getByRole('rowheader');
  const filter = page.getByLabel('Filter by name');
  await filter.fill('paged');
  await page.getByText('Page 1 of 2', { exact: true }).waitFor();
  await page.getByRole('button', { name: 'Next' }).click();
  await page.getByText('Page 2 of 2', { exact: true }).waitFor();
  // The URL follows in a transition: a merchant's next click comes after it.
  await page.waitForURL(/[?&]q=paged&page=2/);
  expect(await rows.allTextContents()).toEqual(Array.from({ length: 10 }, (_, i) => `Paged ${51 + i}`));

  // The browser's Back.
  await page.getByRole('link', { name: 'Edit Paged 55', exact: true }).click();
  await page.getByRole('heading', { name: 'Edit Paged 55' }).waitFor();
  await page.goBack();
  await page.getByText('Page 2 of 2', { exact: true }).waitFor();
  expect(await filter.inputValue()).toBe('paged');
  expect(await rows.allTextContents()).toEqual(Array.from({ length: 10 }, (_, i) => `Paged ${51 + i}`));

  // The editor's own link back.
  await page.getByRole('link', { name: 'Edit Paged 58', exact: true }).click();
  await page.getByRole('heading', { name: 'Edit Paged 58' }).waitFor();
  await page.getByRole('link', { name: 'Back to products' }).click();
  await page.getByText('Page 2 of 2', { exact: true }).waitFor();
  expect(await filter.inputValue()).toBe('paged');
  expect(await rows.allTextContents()).toEqual(Array.from({ length: 10 }, (_, i) => `Paged ${51 + i}`));

  // A narrower filter starts from its first page, and is kept too.
  await filter.fill('paged 0');
  await page.getByText(/^9 of \d+ products match “paged 0”\.$/).waitFor();
  await page.getByRole('link', { name: 'Edit Paged 03', exact: true }).click();
  await page.getByRole('heading', { name: 'Edit Paged 03' }).waitFor();
  await page.goBack();
  await page.getByRole('rowheader', { name: 'Paged 09' }).waitFor();
  expect(await filter.inputValue()).toBe('paged 0');
  expect(await page.getByRole('button', { name: 'Next' }).count()).toBe(0);

  // The Products tab shows the whole list from its first page.
  await page.getByRole('link', { name: 'Products', exact: true }).click();
  await expect.poll(() => filter.inputValue()).toBe('');
  await page.getByText('Page 1 of 2', { exact: true }).waitFor();
  expect(errors).toEqual([]);
});

it('clears an image URL or a new collection’s name whose add got no answer, so leaving asks nothing', async () => {
  const { page, errors } = await newPage(shop.browser);
  await openConsole(page, shop);
  const id = await edit(page, 'Linen Shirt');
  const before = (await products.getProduct(admin, id)).product.media?.items?.length ?? 0;
  const asked = questions(page);

  // An image: stored, its answer lost. The page reads the product again and shows it.
  await loseAnswers(page, '**/media');
  await page.getByLabel('Image URL').fill('https://example.com/maybe.jpg');
  await page.getByRole('button', { name: 'Add image' }).click();
  await page.getByRole('alert').filter({ hasText: 'may or may not have been made' }).waitFor();
  expect((await products.getProduct(admin, id)).product.media?.items).toHaveLength(before + 1);
  await expect
    .poll(() => page.getByRole('list', { name: 'Media' }).getByRole('listitem').count())
    .toBe(before + 1);
  expect(await page.getByLabel('Image URL').inputValue()).toBe('');
  await page.unroute('**/media');
  await page.getByRole('link', { name: 'Collections' }).click();
  await page.getByRole('heading', { name: 'New collection' }).waitFor();
  expect(asked).toEqual([]);

  // A collection: stored, its answer lost; the list read again shows it.
  await page.getByLabel('Name', { exact: true }).fill('Maybe Shelf');
  await loseAnswers(page, '**/stores/v1/collections');
  await page.getByRole('button', { name: 'Create collection' }).click();
  await page.getByRole('alert').filter({ hasText: 'may or may not have been made' }).waitFor();
  await page.getByLabel('Name of Maybe Shelf').waitFor();
  expect(await page.getByLabel('Name', { exact: true }).inputValue()).toBe('');
  await page.unroute('**/stores/v1/collections');
  await page.getByRole('link', { name: 'Products', exact: true }).click();
  await page.getByRole('rowheader', { name: 'Linen Shirt' }).waitFor();
  expect(asked).toEqual([]);
  expect(errors).toEqual([]);
});

it('says a product delete that got no answer may have been made, not that it was not deleted', async () => {
  const { page, errors } = await newPage(shop.browser);
  await products.createProduct(admin, {
    name: 'Maybe Gone',
    productType: 'physical',
    priceData: { price: 5 },
  });
  await openConsole(page, shop);
  await page.getByLabel('Filter by name').fill('Maybe Gone');
  await loseAnswers(page, '**/stores/v1/products/*', 'DELETE');
  const deleting = answerConfirm(page, true);
  await page.getByRole('button', { name: 'Delete Maybe Gone' }).click();
  await deleting;
  await page.getByRole('alert').filter({ hasText: 'may or may not have been made' }).waitFor();
  expect(await page.getByText('The product was not deleted').count()).toBe(0);
  // Read again: it is gone, and the focus is on the count, not on the page.
  await page.getByText(/^No product of the \d+ matches “Maybe Gone”\.$/).waitFor();
  expect(await focused(page)).toMatch(/^P No product of the \d+ matches “Maybe Gone”\.$/);
  expect(errors).toEqual([]);
});

it('says each change beside the product form in a status line once it is stored', async () => {
  const { page, errors } = await newPage(shop.browser);
  const status = (text: string) => page.getByRole('status').filter({ hasText: text }).waitFor();
  const trousers = await products.queryProducts(admin, {
    filter: { name: 'Linen Trousers' },
    paging: { limit: 1 },
  });
  await products.updateProduct(admin, trousers.products[0]!.id, { ribbon: 'Sale' });
  await openConsole(page, shop);
  await edit(page, 'Linen Trousers');

  await page.getByRole('button', { name: 'Remove ribbon “Sale”' }).click();
  await status('Removed the ribbon “Sale”.');

  await page.getByLabel('Image URL').fill('https://example.com/said.jpg');
  await page.getByRole('button', { name: 'Add image' }).click();
  await status('Image added.');

  const label =
    (await page
      .locator('label', { hasText: /^Price of / })
      .first()
      .textContent()) ?? '';
  const name = label.replace(/^Price of /, '');
  await page.getByLabel(label, { exact: true }).fill('14.5');
  await page.getByRole('button', { name: `Set price of ${name}`, exact: true }).click();
  await status(`Set the price of ${name} to $14.50.`);
  expect(errors).toEqual([]);
});

it('titles each console page, so that a screen reader hears where a link led', async () => {
  const { page, errors } = await newPage(shop.browser);
  const title = (t: string) => expect.poll(() => page.title()).toBe(`${t} · Merchant console · Loom & Kiln`);
  await openConsole(page, shop);
  await title('Products');
  await edit(page, 'Linen Shirt');
  await title('Edit Linen Shirt');
  await page.getByRole('link', { name: 'New product' }).click();
  await title('New product');
  await page.getByRole('link', { name: 'Collections' }).click();
  await title('Collections');
  await page.getByRole('link', { name: 'Bulk edit' }).click();
  await title('Bulk edit');
  expect(errors).toEqual([]);
});

it('says a product deleted since, or never made, no longer exists, rather than that something went wrong', async () => {
  const { page, errors } = await newPage(shop.browser);
  const { product } = await products.createProduct(admin, {
    name: 'Soon Gone',
    productType: 'physical',
    priceData: { price: 6 },
  });
  await openConsole(page, shop);
  await edit(page, 'Soon Gone');
  await products.deleteProduct(admin, product.id);
  await page.reload();
  await page.getByText('This product no longer exists.').waitFor();
  await expect.poll(() => page.title()).toBe('Product not found · Merchant console · Loom & Kiln');
  expect(await page.getByRole('button', { name: 'Try again' }).count()).toBe(0);
  await page.goto(`${shop.url}/merchant/products/${randomUUID()}`);
  await page.getByText('This product no longer exists.').waitFor();
  expect(errors).toEqual([]);
});

it('after a removal, a delete or an add that got no answer, keeps the focus on the page and chooses no product', async () => {
  const { page, errors } = await newPage(shop.browser);
  const asked = questions(page);
  const maybe = page.getByRole('alert').filter({ hasText: 'may or may not have been made' });
  await openConsole(page, shop);

  // An image removed, its answer lost: its item goes, the focus goes to the Media heading.
  const id = await edit(page, 'Linen Shirt');
  const items = page.getByRole('list', { name: 'Media' }).getByRole('listitem');
  const before = await items.count();
  expect(before).toBeGreaterThan(0);
  await loseAnswers(page, '**/media/delete');
  await items.last().getByRole('button').click();
  await maybe.waitFor();
  await expect.poll(() => items.count()).toBe(before - 1);
  expect((await products.getProduct(admin, id)).product.media?.items).toHaveLength(before - 1);
  expect(await focused(page)).toBe('H2 Media');
  await page.unroute('**/media/delete');

  // A product added to a collection, its answer lost: it is no longer offered, and no other
  // product is chosen in its place (nor said as typed when leaving).
  await products.createCollection(admin, { name: 'Lost Adds' });
  await page.getByRole('link', { name: 'Collections' }).click();
  const choice = page.getByLabel('Add a product to Lost Adds');
  await choice.selectOption({ label: 'Linen Shirt' });
  await loseAnswers(page, '**/stores/v1/collections/*/productIds');
  await page.getByRole('button', { name: 'Add to Lost Adds' }).click();
  await maybe.waitFor();
  await expect.poll(() => choice.locator('option', { hasText: 'Linen Shirt' }).count()).toBe(0);
  expect(await choice.inputValue()).toBe('');
  await page.unroute('**/stores/v1/collections/*/productIds');

  // The collection deleted, its answer lost: its row goes, the focus goes to the heading.
  await loseAnswers(page, '**/stores/v1/collections/*', 'DELETE');
  await page.getByRole('button', { name: 'Delete Lost Adds' }).click();
  await expect.poll(() => page.getByLabel('Name of Lost Adds').count()).toBe(0);
  await maybe.waitFor();
  expect(await focused(page)).toBe('H2 Collections');
  expect(asked).toEqual(['Delete the collection “Lost Adds”?']);
  await page.unroute('**/stores/v1/collections/*');
  await page.getByRole('link', { name: 'Products', exact: true }).click();
  await page.getByRole('rowheader', { name: 'Linen Shirt' }).waitFor();
  expect(asked).toHaveLength(1);
  expect(errors).toEqual([]);
});

it('names the field of each problem said below a row of fields', async () => {
  const { page, errors } = await newPage(shop.browser);
  await openConsole(page, shop);
  await newProduct(page);
  await page.getByLabel('Name', { exact: true }).fill('Named Problems');
  await page.getByLabel('Price (USD)').fill('99999999999');
  await page.getByLabel('SKU').fill('s'.repeat(100));
  await page.getByLabel('Ribbon').fill('r'.repeat(100));
  await page.getByRole('button', { name: 'Create product' }).click();
  await page.getByRole('alert').filter({ hasText: 'Not saved' }).waitFor();
  await expect
    .poll(() => describedBy(page, 'Price (USD)'))
    .toBe('Price (USD): Must be at most 999999999.99.');
  expect(await describedBy(page, 'SKU')).toMatch(/^SKU: Must have at most \d+ characters\.$/);
  expect(await describedBy(page, 'Ribbon')).toMatch(/^Ribbon: Must have at most \d+ characters\.$/);
  await page.getByText(/^SKU: Must have at most \d+ characters\.$/).waitFor();
  expect(errors).toEqual([]);
});

it('refuses an option or a choice given twice beside the box, before asking about variants to delete', async () => {
  const { page, errors } = await newPage(shop.browser);
  await openConsole(page, shop);
  const id = await edit(page, 'Linen Shirt');
  const before = (await products.getProduct(admin, id)).product.productOptions;
  const asked = questions(page);
  const sent: string[] = [];
  page.on('request', (r) => {
    if (r.method() === 'PATCH') sent.push(r.url());
  });
  const options = await page.getByLabel('Options').inputValue();
  await page.getByLabel('Options').fill(`${options}\nSize: XXL`);
  await page.getByRole('button', { name: 'Save changes' }).click();
  await expect
    .poll(() => describedBy(page, 'Options'))
    .toMatch(/^Size is given twice: put all its choices on one line\./);
  await page.getByLabel('Options').fill('Size: S, S, M');
  await page.getByRole('button', { name: 'Save changes' }).click();
  await expect.poll(() => describedBy(page, 'Options')).toMatch(/^Size: the choice “S” is given twice\./);
  expect(asked).toEqual([]);
  expect(sent).toEqual([]);
  expect((await products.getProduct(admin, id)).product.productOptions).toEqual(before);
  expect(errors).toEqual([]);
});

it('says when the key this tab holds is no longer accepted, and how to replace it', async () => {
  const { page, errors } = await newPage(shop.browser);
  await openConsole(page, shop);
  expect(await page.getByText('does not accept the key').count()).toBe(0);
  // The key kept in this tab is not the shop's any more (npm start made a new one).
  await page.evaluate(() => {
    for (const k of Object.keys(sessionStorage)) sessionStorage.setItem(k, 'replaced-key-0000');
  });
  await page.reload();
  const said = page.getByRole('alert').filter({ hasText: 'does not accept the key' });
  await said.waitFor();
  expect(await said.textContent()).toMatch(
    /Press “Forget the key”, then paste the API key that npm start printed/,
  );
  await page.getByRole('button', { name: 'Forget the key' }).click();
  await page.getByLabel('API key').fill(shop.emu.demo.apiKey);
  await page.getByRole('button', { name: 'Open the console' }).click();
  await page.getByRole('rowheader', { name: 'Linen Shirt' }).waitFor();
  expect(await said.count()).toBe(0);
  expect(errors).toEqual([]);
});

it('gives the focus back to the Edit link of the product left, on Back from its editor', async () => {
  const { page, errors } = await newPage(shop.browser);
  await openConsole(page, shop);
  // On a slow device (the CPU slowed 6 times): the filter's URL, which follows the field in a
  // transition, landed after Enter on the Edit link, and the list took that for an arrival: the
  // product to focus on Back was forgotten, and the focus went to the page's main part.
  const restore = await slowCpu(page, 6);
  await page.getByLabel('Filter by name').fill('linen');
  await page.waitForURL(/[?&]q=linen/);
  await page.getByRole('link', { name: 'Edit Linen Trousers', exact: true }).focus();
  await page.keyboard.press('Enter');
  await page.getByRole('heading', { name: 'Edit Linen Trousers' }).waitFor();
  await page.goBack();
  await expect.poll(() => focused(page)).toBe('A Edit Linen Trousers');
  await restore();

  await page.getByRole('link', { name: 'Edit Linen Shirt', exact: true }).focus();
  await page.keyboard.press('Enter');
  await page.getByRole('heading', { name: 'Edit Linen Shirt' }).waitFor();
  await page.getByRole('link', { name: 'Back to products' }).focus();
  await page.keyboard.press('Enter');
  await expect.poll(() => focused(page)).toBe('A Edit Linen Shirt');
  expect(await page.getByLabel('Filter by name').inputValue()).toBe('linen');

  // The Products tab is no Back: the focus stays on the tab.
  await page.getByRole('link', { name: 'Edit Linen Shirt', exact: true }).click();
  await page.getByRole('heading', { name: 'Edit Linen Shirt' }).waitFor();
  await page.getByRole('link', { name: 'Products', exact: true }).focus();
  await page.keyboard.press('Enter');
  await page.getByText(/^\d+ products$/).waitFor();
  expect(await focused(page)).toBe('A Products');
  expect(errors).toEqual([]);
});
