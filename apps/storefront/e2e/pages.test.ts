/**
 * The main pages at phone and desktop widths: no serious or critical axe-core violations, no
 * layout wider than the screen, keyboard focus visible. With SHOPKIT_SCREENSHOTS=1 it also writes
 * docs/screenshots/<page>-<width>.png (kept out of ordinary runs so tests leave the tree alone).
 */
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addToCart, axeViolations, holdRequests, setupStorefront } from './browser.ts';

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

/**
 * Elements inside `root` (a selector) that stick out of its content box: content cut off or
 * pushed sideways. Visually hidden text is left out.
 */
function overflowing(page: Page, root: string) {
  return page.evaluate((selector) => {
    const box = document.querySelector(selector)!;
    const r = box.getBoundingClientRect();
    const cs = getComputedStyle(box);
    const left = r.left + Number.parseFloat(cs.borderLeftWidth) + Number.parseFloat(cs.paddingLeft);
    const right = r.right - Number.parseFloat(cs.borderRightWidth) - Number.parseFloat(cs.paddingRight);
    const out: string[] = [];
    for (const el of box.querySelectorAll('*')) {
      if (el.closest('.visually-hidden')) continue;
      const e = el.getBoundingClientRect();
      if (e.width === 0 || e.height === 0) continue;
      if (e.left < left - 0.5 || e.right > right + 0.5)
        out.push(
          `${el.tagName.toLowerCase()}.${el.className} “${el.textContent?.slice(0, 20)}” spans ${Math.round(e.left)}–${Math.round(e.right)}, the box ${Math.round(left)}–${Math.round(right)}`,
        );
    }
    return out;
  }, root);
}

describe('the cart with a long name and a four-figure line at phone widths', () => {
  let page: Page;
  beforeAll(async () => {
    page = await shop.browser.newPage({ viewport: { width: 375, height: 812 } });
    await addToCart(page, `${shop.url}/products/linen-tea-towels`, 'Linen Tea Towels (Set of 3)');
    await page.getByText('Added to your cart.').waitFor();
    // Forty totes ($1,400.00).
    await page.goto(`${shop.url}/products/canvas-tote`);
    await page.getByLabel('Natural', { exact: true }).check();
    await page.getByTestId('availability').filter({ hasText: 'In stock' }).waitFor();
    await page.getByLabel('Quantity', { exact: true }).fill('40');
    await page.getByRole('button', { name: 'Add to cart' }).click();
    await page.getByText('Added to your cart.').waitFor();
  });
  afterAll(() => page?.close());

  it.each([375, 390])('at %i px nothing in the cart page or the drawer overflows its box', async (width) => {
    await page.setViewportSize({ width, height: 812 });
    await page.goto(`${shop.url}/cart`);
    await page.getByTestId('estimated-total').filter({ hasText: /^\$\d/ }).waitFor();
    await page.getByText('$1,400.00').first().waitFor();
    expect(await overflowing(page, 'main')).toEqual([]);
    expect(
      await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth),
    ).toBeLessThanOrEqual(0);

    await page.getByRole('button', { name: /^Cart, / }).click();
    const drawer = page.getByRole('dialog', { name: 'Your cart' });
    await drawer.getByText('$1,400.00').waitFor();
    expect(await overflowing(page, 'dialog.drawer')).toEqual([]);
    await page.keyboard.press('Escape');
  });
});

describe('accessibility details', () => {
  it('keeps the totals list well formed while the totals load', async () => {
    const page = await shop.browser.newPage();
    await addToCart(page, `${shop.url}/products/stoneware-mug`, 'Stoneware Mug');
    await page.getByText('Added to your cart.').waitFor();
    const release = await holdRequests(page, '**/carts/current/estimate-totals');
    await page.goto(`${shop.url}/cart`);
    await page.getByText('Calculating totals…').waitFor();
    const loose = await page.evaluate(
      () =>
        [...document.querySelectorAll('dl')].filter(
          (dl) => dl.querySelector(':scope > dd') && !dl.querySelector(':scope > dt'),
        ).length,
    );
    expect(loose).toBe(0);
    expect(await axeViolations(page)).toEqual([]);
    release();
    await page.getByTestId('estimated-total').filter({ hasText: /^\$\d/ }).waitFor();
    await page.close();
  });

  it('moves focus to the next line, then to the heading, when lines are removed with the keyboard', async () => {
    const page = await shop.browser.newPage();
    await addToCart(page, `${shop.url}/products/canvas-tote`, 'Canvas Tote');
    await page.getByText('Added to your cart.').waitFor();
    await addToCart(page, `${shop.url}/products/beeswax-candle`, 'Beeswax Candle');
    await page.getByText('Added to your cart.').waitFor();
    await page.goto(`${shop.url}/cart`);
    const lines = page.getByRole('list', { name: 'Cart items' });
    await lines.getByRole('listitem').nth(1).waitFor();
    const [first, second] = await lines.locator('.line-name').allTextContents();

    await page.getByRole('button', { name: `Remove ${first}` }).focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => lines.getByRole('listitem').count()).toBe(1);
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe(second);

    await page.getByRole('button', { name: `Remove ${second}` }).focus();
    await page.keyboard.press('Enter');
    await page.locator('main').getByText('Your cart is empty.').waitFor();
    expect(
      await page.evaluate(() => `${document.activeElement?.tagName} ${document.activeElement?.textContent}`),
    ).toBe('H1 Your cart');
    await page.close();
  });

  it('reads a crossed-out price as the old price, and marks a sold-out colour visibly', async () => {
    const page = await shop.browser.newPage();
    await page.goto(`${shop.url}/products/linen-trousers`);
    await page.getByLabel('S', { exact: true }).check();
    const was = page.locator('.variant-price s');
    await was.waitFor();
    expect(await was.textContent()).toMatch(/^was \$\d/);

    await page.goto(`${shop.url}/products/stoneware-mug`);
    const charcoal = page.getByLabel('Charcoal (sold out)');
    await charcoal.waitFor({ state: 'attached' });
    const mark = await page
      .locator('label', { hasText: 'Charcoal' })
      .evaluate((l) => getComputedStyle(l, '::after').backgroundImage);
    expect(mark).toContain('gradient');
    const free = await page
      .locator('label', { hasText: 'Oat' })
      .evaluate((l) => getComputedStyle(l, '::after').backgroundImage);
    expect(free).toBe('none');
    await page.close();
  });
});
