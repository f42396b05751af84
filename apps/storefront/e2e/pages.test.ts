/**
 * The main pages at phone and desktop widths: no serious or critical axe-core violations, no
 * layout wider than the screen, keyboard focus visible. With SHOPKIT_SCREENSHOTS=1 it also writes
 * docs/screenshots/<page>-<width>.png (kept out of ordinary runs so tests leave the tree alone).
 */
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addToCart, axeViolations, setupStorefront } from './browser.ts';

const SHOTS = process.env.SHOPKIT_SCREENSHOTS === '1';
const DIR = fileURLToPath(new URL('../../../docs/screenshots/', import.meta.url));

const shop = setupStorefront();
beforeAll(() => {
  if (SHOTS) mkdirSync(DIR, { recursive: true });
});

const VIEWPORTS = [
  { name: 'phone', width: 390, height: 844 },
  { name: 'desktop', width: 1280, height: 900 },
];

/** Each page: its path, what shows it has loaded, and an optional step before the check. */
const PAGES: {
  name: string;
  path: string;
  ready: (p: Page) => Promise<unknown>;
  before?: (p: Page) => Promise<unknown>;
}[] = [
  { name: 'home', path: '/', ready: (p) => p.getByRole('list', { name: 'Collections' }).waitFor() },
  { name: 'listing', path: '/products', ready: (p) => p.getByRole('list', { name: 'Products' }).waitFor() },
  {
    name: 'collection',
    path: '/collections/summer-linen',
    ready: (p) => p.getByRole('list', { name: 'Products' }).waitFor(),
  },
  {
    name: 'product',
    path: '/products/linen-shirt',
    ready: async (p) => {
      await p.getByLabel('M', { exact: true }).check();
      await p.getByLabel('Sage', { exact: true }).check();
      await p
        .getByTestId('availability')
        .filter({ hasText: /In stock|left/ })
        .waitFor();
    },
  },
  {
    name: 'cart',
    path: '/cart',
    before: async (p) => {
      // Put something in the cart through the product page first.
      await addToCart(p, `${shop.url}/products/stoneware-mug`, 'Stoneware Mug');
      await p.getByText('Added to your cart.').waitFor();
    },
    ready: (p) => p.getByTestId('estimated-total').filter({ hasText: /^\$\d/ }).waitFor(),
  },
  {
    name: 'cart-drawer',
    path: '/products',
    ready: async (p) => {
      await p.getByRole('button', { name: /^Cart, / }).click();
      await p.getByRole('dialog', { name: 'Your cart' }).getByRole('list', { name: 'Cart items' }).waitFor();
    },
  },
  { name: 'login', path: '/login', ready: (p) => p.getByRole('heading', { name: 'Log in' }).waitFor() },
  {
    name: 'register',
    path: '/register',
    ready: (p) => p.getByRole('heading', { name: 'Create an account' }).waitFor(),
  },
  {
    name: 'merchant',
    path: '/merchant',
    ready: async (p) => {
      await p.getByLabel('API key').fill(shop.emu.demo.apiKey);
      await p.getByRole('button', { name: 'Open the console' }).click();
      await p.getByRole('table').getByRole('rowheader', { name: 'Linen Shirt' }).waitFor();
    },
  },
  {
    name: 'merchant-bulk',
    path: '/merchant/bulk',
    ready: async (p) => {
      await p.getByLabel('Select Linen Shirt').check();
      await p.getByLabel('Select Stoneware Mug').check();
    },
  },
];

describe.each(VIEWPORTS)('at $name width', (vp) => {
  let page: Page;
  beforeAll(async () => {
    page = await shop.browser.newPage({ viewport: { width: vp.width, height: vp.height } });
  });
  afterAll(() => page?.close());

  it.each(PAGES)('$name has no serious accessibility violations and fits the screen', async (pg) => {
    await pg.before?.(page);
    await page.goto(shop.url + pg.path);
    await pg.ready(page);
    expect(await axeViolations(page)).toEqual([]);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    if (SHOTS)
      await page.screenshot({ path: `${DIR}${pg.name}-${vp.name}.png`, fullPage: pg.name !== 'cart-drawer' });
    if (pg.name === 'cart-drawer') await page.keyboard.press('Escape');
  });
});

it('moves keyboard focus to visible elements: skip link first, then the header', async () => {
  const page = await shop.browser.newPage();
  await page.goto(shop.url);
  await page.getByRole('list', { name: 'Collections' }).waitFor();
  await page.keyboard.press('Tab');
  expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Skip to content');
  const outline = await page.evaluate(() => getComputedStyle(document.activeElement!).outlineStyle);
  expect(outline).not.toBe('none');
  await page.keyboard.press('Enter');
  expect(await page.evaluate(() => document.activeElement?.id)).toBe('main');
  await page.close();
});
