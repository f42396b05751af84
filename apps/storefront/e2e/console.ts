/**
 * Steps in the merchant console shared by its browser tests: open it with the demo key, open a
 * product's editor, answer its confirmations, read a field's error.
 */
import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import type { StorefrontUnderTest } from './browser.ts';

/** Opens the console with the demo key. */
export async function openConsole(page: Page, shop: StorefrontUnderTest) {
  await page.goto(`${shop.url}/merchant`);
  await page.getByLabel('API key').fill(shop.emu.demo.apiKey);
  await page.getByRole('button', { name: 'Open the console' }).click();
  await page.getByRole('table').getByRole('rowheader', { name: 'Linen Shirt' }).waitFor();
}

/**
 * Opens the new product's editor, and waits until it shows. Route changes render as transitions:
 * until then the page before stays, and a field of it with the same label (the list's "Filter by
 * name", another product's "Name") would take what the test types next.
 */
export async function newProduct(page: Page) {
  await page.getByRole('link', { name: 'New product' }).click();
  await page.getByRole('heading', { name: 'New product' }).waitFor();
}

/**
 * From the product list, opens a product's editor; returns the product's id. The list is filtered
 * by the name first: the product may be on another page of the list.
 */
export async function edit(page: Page, name: string) {
  await page.getByRole('link', { name: 'Products', exact: true }).click();
  // The tab's list has no filter. Its link renders as a transition: until it lands, a list shown
  // before stays with its filter, and a name typed there (the same one: no change) was cleared
  // when it landed.
  const filter = page.getByLabel('Filter by name');
  await expect.poll(() => filter.inputValue()).toBe('');
  await filter.fill(name);
  await page.getByRole('link', { name: `Edit ${name}`, exact: true }).click();
  await page.getByRole('heading', { name: `Edit ${name}` }).waitFor();
  return page.url().split('/').pop()!;
}

/** Answers the next `confirm()` and returns its message. */
export function answerConfirm(page: Page, accept: boolean) {
  return new Promise<string>((resolve) =>
    page.once('dialog', (d) => {
      resolve(d.message());
      void (accept ? d.accept() : d.dismiss());
    }),
  );
}

/** The text of the elements that describe a field (its error), or '' when none does. */
export const describedBy = (page: Page, label: string) =>
  page.getByLabel(label, { exact: true }).evaluate((el) =>
    (el.getAttribute('aria-describedby') ?? '')
      .split(' ')
      .map((id) => document.getElementById(id)?.textContent ?? '')
      .join(' ')
      .trim(),
  );
