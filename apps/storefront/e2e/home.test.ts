import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { launchChromium, type Storefront, startStorefront } from './browser.ts';

let browser: Browser;
let shop: Storefront;
beforeAll(async () => {
  [browser, shop] = await Promise.all([launchChromium(), startStorefront()]);
});
afterAll(async () => {
  await browser?.close();
  await shop?.stop();
});

it('shows the featured collections in a real Chromium, loaded through the SDK with a visitor token', async () => {
  const page = await browser.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(shop.url);
  const list = page.getByRole('list', { name: 'Collections' });
  await list.waitFor();
  const names = await list.getByRole('heading').allTextContents();
  expect(names).toEqual(['Accessories', 'Kitchen & Table', 'Sale', 'Summer Linen']);
  // Tokens persist in localStorage under a key namespaced by the client id.
  const keys = await page.evaluate(() => Object.keys(localStorage));
  expect(keys).toEqual([`shopkit:${shop.emu.demo.clientId}:tokens`]);
  expect(errors).toEqual([]);
});
