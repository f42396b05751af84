/**
 * The merchant console's third audit, in a real Chromium: a save stored only in part shows what is
 * stored and says which part was saved; every form of the console asks before what was typed in it
 * is left unsaved; a large product list is filtered by name and paged; the platform's refusal of
 * an image URL, a variant's price or a field the form does not show is said in the platform's words.
 * Tests share one emulator and run in order.
 */
import { type AnyClient, ApiKeyStrategy, createClient, products } from '@shopkit/sdk';
import type { Page } from 'playwright-core';
import { beforeAll, expect, it } from 'vitest';
import { focused, focusedLabel, newPage, setupStorefront } from './browser.ts';
import { answerConfirm, describedBy, edit, openConsole } from './console.ts';

const shop = setupStorefront();
let admin: AnyClient;
beforeAll(() => {
  admin = createClient({ baseUrl: shop.emu.url, auth: ApiKeyStrategy({ apiKey: shop.emu.demo.apiKey }) });
});

const product = async (name: string) => {
  const { products: found } = await products.queryProducts(
    admin,
    { filter: { name }, paging: { limit: 1 } },
    { includeHiddenProducts: true, includeVariants: true },
  );
  return found[0]!;
};

/**
 * Clicks the console tab `tab` with a question expected: the question is dismissed (the merchant
 * stays); returns its text once the page is known to have stayed, or `left without a question`.
 */
async function leaveRefused(page: Page, tab: string) {
  const url = page.url();
  const asked = answerConfirm(page, false);
  await page.getByRole('link', { name: tab, exact: true }).click();
  const text = await Promise.race([
    asked,
    page.waitForURL((u) => u.href !== url).then(() => 'left without a question'),
  ]);
  expect(page.url()).toBe(url);
  return text;
}

it('after a save stored only in part, shows what is stored and says which part was saved and which was not', async () => {
  const { page, errors } = await newPage(shop.browser);
  await openConsole(page, shop);
  const id = await edit(page, 'Linen Trousers');
  const options = (await products.getProduct(admin, id)).product.productOptions;
  expect(options?.length).toBe(1);
  // The second call (removing the options) does not get through.
  const removal = (url: URL) => url.pathname === `/stores/v1/products/${id}/options`;
  await page.route(removal, (r) =>
    r.request().method() === 'DELETE' ? r.abort('internetdisconnected') : r.continue(),
  );
  await page.getByLabel('Ribbon').fill('Half');
  await page.getByLabel('Options').fill('');
  const asked = answerConfirm(page, true);
  await page.getByRole('button', { name: 'Save changes' }).click();
  expect(await asked).toMatch(/Remove every option/);
  const alert = page.getByRole('alert').filter({ hasText: 'Partly saved' });
  await alert.waitFor();
  expect(await alert.textContent()).toMatch(/Saved: Ribbon\. Not saved: the options were not removed/);
  // As stored: the ribbon (its Remove button names it), the options still there.
  const stored = (await products.getProduct(admin, id)).product;
  expect(stored.ribbon).toBe('Half');
  expect(stored.productOptions).toEqual(options);
  await page.getByRole('button', { name: 'Remove ribbon “Half”' }).waitFor();
  expect(await page.getByText('Saved.', { exact: true }).count()).toBe(0);
  // The emptied box is still the merchant's edit: saving again, once the call gets through, removes them.
  expect(await page.getByLabel('Options').inputValue()).toBe('');
  await page.unroute(removal);
  const again = answerConfirm(page, true);
  await page.getByRole('button', { name: 'Save changes' }).click();
  await again;
  await page.getByText('Saved.', { exact: true }).waitFor();
  expect((await products.getProduct(admin, id)).product.productOptions ?? []).toEqual([]);
  expect(errors).toEqual([]);
});

it('asks before an image URL, a variant price, a collection form or a bulk change typed and not saved is left', async () => {
  const { page, errors } = await newPage(shop.browser);
  await openConsole(page, shop);
  await edit(page, 'Linen Shirt');
  await page.getByLabel('Image URL').fill('https://example.com/typed.png');
  expect(await leaveRefused(page, 'Collections')).toMatch(/not saved: the image URL/);
  expect(await page.getByLabel('Image URL').inputValue()).toBe('https://example.com/typed.png');
  await page.getByLabel('Image URL').fill('');
  await page.getByLabel('Price of S / White').fill('77');
  expect(await leaveRefused(page, 'Collections')).toMatch(/not saved: a variant’s price/);
  await page.getByRole('button', { name: 'Set price of S / White' }).click();
  await page
    .getByRole('button', { name: 'Set price of S / White' })
    .and(page.locator(':not([aria-disabled])'))
    .waitFor();

  // Saved: left without a question.
  const dialogs: string[] = [];
  const record = (d: import('playwright-core').Dialog) => {
    dialogs.push(d.message());
    void d.dismiss();
  };
  page.on('dialog', record);
  await page.getByRole('link', { name: 'Collections', exact: true }).click();
  await page.getByRole('heading', { name: 'New collection' }).waitFor();
  expect(dialogs).toEqual([]);
  page.off('dialog', record);

  await page.getByLabel('Name', { exact: true }).fill('Typed Shelf');
  expect(await leaveRefused(page, 'Products')).toMatch(/not saved: the new collection/);
  await page.getByLabel('Name', { exact: true }).fill('');
  const kitchen = page.getByLabel('Description of Kitchen');
  const said = await kitchen.inputValue();
  await kitchen.fill('Typed, not saved.');
  expect(await leaveRefused(page, 'Products')).toMatch(/not saved: your changes to “Kitchen & Table”/);
  await kitchen.fill(said);
  await page.getByLabel('Add a product to Summer Linen').selectOption({ label: 'Stoneware Mug' });
  expect(await leaveRefused(page, 'Products')).toMatch(/not saved: your changes to “Summer Linen”/);
  await page.getByRole('button', { name: 'Add to Summer Linen' }).click();
  await page.getByText('Added Stoneware Mug to Summer Linen.').waitFor();

  page.on('dialog', record);
  await page.getByRole('link', { name: 'Bulk edit', exact: true }).click();
  await page.getByLabel('Select Stoneware Mug').waitFor();
  expect(dialogs).toEqual([]);
  page.off('dialog', record);
  await page.getByLabel('Select Stoneware Mug').check();
  expect(await leaveRefused(page, 'Products')).toMatch(/not saved: the bulk change/);
  await page.getByRole('button', { name: 'Apply to 1 product' }).click();
  await page.getByText('Updated 1 product.').waitFor();
  page.on('dialog', record);
  await page.getByRole('link', { name: 'Products', exact: true }).click();
  await page.getByRole('rowheader', { name: 'Linen Shirt' }).waitFor();
  expect(dialogs).toEqual([]);
  expect(errors).toEqual([]);
});

it('filters the product list by name and pages it, with a count, keeping the focus on the pager', async () => {
  const { page, errors } = await newPage(shop.browser);
  for (let i = 0; i < 60; i += 10)
    await Promise.all(
      Array.from({ length: 10 }, (_, j) =>
        products.createProduct(admin, {
          name: `Paged ${String(i + j + 1).padStart(2, '0')}`,
          productType: 'physical',
          priceData: { price: 3 },
        }),
      ),
    );
  const total =
    (await products.queryProducts(admin, { paging: { limit: 1 } }, { includeHiddenProducts: true })).metadata
      .total ?? 0;
  expect(total).toBeGreaterThan(50);
  if (total === undefined) throw new Error('no total');
  expect(total).toBeLessThanOrEqual(100);
  await openConsole(page, shop);
  const rows = page.getByRole('table').getByRole('rowheader');
  await page.getByText(`${total} products`, { exact: true }).waitFor();
  await page.getByText('Page 1 of 2', { exact: true }).waitFor();
  expect(await rows.count()).toBe(50);
  const first = await rows.allTextContents();
  await page.getByRole('button', { name: 'Next' }).focus();
  await page.keyboard.press('Enter');
  await page.getByText('Page 2 of 2', { exact: true }).waitFor();
  expect(await rows.count()).toBe(total - 50);
  const second = await rows.allTextContents();
  expect([...first, ...second]).toEqual([...first, ...second].sort((a, b) => a.localeCompare(b)));
  expect(new Set([...first, ...second]).size).toBe(total);
  // The last page: Next does nothing and keeps the focus.
  expect(await focused(page)).toBe('BUTTON Next');
  expect(await page.getByRole('button', { name: 'Next' }).getAttribute('aria-disabled')).toBe('true');
  await page.keyboard.press('Enter');
  await page.getByText('Page 2 of 2', { exact: true }).waitFor();

  // Deleting the only product of the last page shows the page before, the focus on the count.
  const stored = (
    await products.queryProducts(admin, { paging: { limit: 100 } }, { includeHiddenProducts: true })
  ).products;
  for (const name of second.slice(1))
    await products.deleteProduct(admin, stored.find((p) => p.name === name)!.id);
  // The page is kept in the URL (merchant-audit10): the reload shows page 2 again.
  await page.reload();
  await page.getByText('51 products', { exact: true }).waitFor();
  await page.getByText('Page 2 of 2', { exact: true }).waitFor();
  expect(await rows.allTextContents()).toEqual([second[0]]);
  const deleting = answerConfirm(page, true);
  await page.getByRole('button', { name: `Delete ${second[0]}` }).click();
  await deleting;
  await page.getByText('50 products', { exact: true }).waitFor();
  await expect.poll(() => rows.count()).toBe(50);
  expect(await page.getByRole('button', { name: 'Next' }).count()).toBe(0);
  expect(await focused(page)).toBe('P 50 products');

  // A filter shows its matches from the first page, with their count.
  await page.getByLabel('Filter by name').fill('paged 0');
  await page.getByText('9 of 50 products match “paged 0”.', { exact: true }).waitFor();
  expect(await rows.allTextContents()).toEqual(Array.from({ length: 9 }, (_, i) => `Paged 0${i + 1}`));
  expect(await page.getByRole('button', { name: 'Next' }).count()).toBe(0);
  expect(await focusedLabel(page)).toBe('Filter by name');
  await page.getByLabel('Filter by name').fill('no such thing');
  await page.getByText('No product of the 50 matches “no such thing”.').waitFor();
  expect(await rows.count()).toBe(0);
  expect(errors).toEqual([]);
});

it("says the platform's refusal of an image URL or a variant's price next to it, and of a field the form does not show in the alert", async () => {
  const { page, errors } = await newPage(shop.browser);
  await openConsole(page, shop);
  const id = await edit(page, 'Linen Shirt');
  const before = await product('Linen Shirt');

  // The browser takes ftp:// as a URL; the platform does not.
  await page.getByLabel('Image URL').fill('ftp://example.com/a.png');
  await page.getByRole('button', { name: 'Add image' }).click();
  await expect.poll(() => describedBy(page, 'Image URL')).toBe('Must be a valid url.');
  expect(await page.getByLabel('Image URL').getAttribute('aria-invalid')).toBe('true');
  expect(await focusedLabel(page)).toBe('Image URL');
  expect(await page.getByLabel('Image URL').inputValue()).toBe('ftp://example.com/a.png');
  await page.getByLabel('Image URL').fill('https://example.com/a.png');
  expect(await describedBy(page, 'Image URL')).toBe('');

  await page.getByLabel('Price of S / White').fill('1000000000');
  await page.getByRole('button', { name: 'Set price of S / White' }).click();
  await expect.poll(() => describedBy(page, 'Price of S / White')).toBe('Must be at most 999999999.99.');
  expect(await focusedLabel(page)).toBe('Price of S / White');
  expect((await product('Linen Shirt')).variants).toEqual(before.variants);

  // A refusal of a field the form does not show: the alert quotes it.
  await page.route(`**/products/${id}`, (r) =>
    r.request().method() === 'PATCH'
      ? r.fulfill({
          status: 400,
          contentType: 'application/json',
          body: JSON.stringify({
            message: 'INVALID_ARGUMENT: "product.seoData.tags" must have at most 20 items',
            details: {
              validationError: {
                fieldViolations: [
                  {
                    field: 'product.seoData.tags',
                    description: 'must have at most 20 items',
                    violatedRule: 'MAX_SIZE',
                    data: { max: 20 },
                  },
                ],
              },
            },
          }),
        })
      : r.continue(),
  );
  await page.getByLabel('Brand').fill('Quoted');
  await page.getByRole('button', { name: 'Save changes' }).click();
  await page
    .getByRole('alert')
    .filter({
      hasText: 'Not saved: the platform refused it: “product.seoData.tags must have at most 20 items”.',
    })
    .waitFor();
  expect(errors).toEqual([]);
});
