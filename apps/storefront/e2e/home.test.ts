import { expect, it } from 'vitest';
import { newPage, setupStorefront } from './browser.ts';

const shop = setupStorefront();

it('shows the featured collections in a real Chromium, loaded through the SDK with a visitor token', async () => {
  const { page, errors } = await newPage(shop.browser);
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
