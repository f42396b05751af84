/**
 * A fifteenth browsing audit, each defect reproduced in a real Chromium: a product whose media
 * began with a video showed no image on its card (the card took the main media's image only, and a
 * video has none), and its page dropped the video altogether (the gallery kept images only); a
 * collection with no products said "No products match these filters" with a "Clear filters" that
 * did nothing; the listing's product names (`h3`) came right under the page's `h1`; the price boxes
 * refused a price with cents (19.60: the browser's whole-number step); a choice the merchant hid
 * (its variants hidden) was offered as "(sold out)".
 */
import { ApiKeyStrategy, createClient, products } from '@shopkit/sdk';
import { expect, it } from 'vitest';
import { axeViolations, newPage, setupStorefront } from './browser.ts';

const shop = setupStorefront();

const admin = () =>
  createClient({ baseUrl: shop.emu.url, auth: ApiKeyStrategy({ apiKey: shop.emu.demo.apiKey }) });

it("shows a product's video in its gallery, and its first image on its card when the video comes first", async () => {
  const { page, errors } = await newPage(shop.browser);
  const { product } = await products.createProduct(admin(), {
    name: 'Film Lamp',
    productType: 'physical',
    priceData: { price: 30 },
  });
  await products.addProductMedia(admin(), product.id!, [
    { url: `${shop.emu.url}/media/film-lamp.mp4` },
    { url: `${shop.emu.url}/media/linen-shirt.svg` },
  ]);
  await page.goto(`${shop.url}/products?sort=newest`);
  const card = page.locator('li.card').filter({ hasText: 'Film Lamp' });
  await card.waitFor();
  // The card shows the image, not an empty frame.
  expect(await card.locator('img').getAttribute('src')).toBe(`${shop.emu.url}/media/linen-shirt.svg`);
  await card.getByRole('link').click();
  await page.getByRole('heading', { level: 1, name: 'Film Lamp' }).waitFor();
  // The video leads the gallery, as the main media, and its image is a thumbnail away.
  const thumbs = page.getByRole('list', { name: 'Product images' }).getByRole('button');
  await expect.poll(() => thumbs.count()).toBe(2);
  const video = page.locator('video.gallery-main');
  expect(await video.getAttribute('src')).toBe(`${shop.emu.url}/media/film-lamp.mp4`);
  expect(await video.getAttribute('controls')).not.toBeNull();
  expect(await thumbs.nth(0).getAttribute('aria-label')).toBe('Show the video');
  expect(await thumbs.nth(0).getAttribute('aria-pressed')).toBe('true');
  const thumb = await thumbs.nth(0).boundingBox();
  expect(Math.min(thumb!.width, thumb!.height)).toBeGreaterThanOrEqual(44);
  await thumbs.nth(1).click();
  await expect
    .poll(() => page.locator('img.gallery-main').getAttribute('src'))
    .toBe(`${shop.emu.url}/media/linen-shirt.svg`);
  expect(await video.count()).toBe(0);
  await thumbs.nth(0).click();
  await video.waitFor();
  // On a phone, the video fits the page: no sideways scroll.
  await page.setViewportSize({ width: 390, height: 844 });
  expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBe(0);
  expect(await axeViolations(page)).toEqual([]);
  expect(errors).toEqual([]);
});

it('says a collection with no products is empty, not that filters match nothing', async () => {
  const { page, errors } = await newPage(shop.browser);
  const { collection } = await products.createCollection(admin(), { name: 'Autumn Preview' });
  await page.goto(`${shop.url}/collections/${collection.slug}`);
  await page.getByRole('heading', { level: 1, name: 'Autumn Preview' }).waitFor();
  const results = page.getByRole('region', { name: 'Autumn Preview' });
  await results.getByText('0 products').waitFor();
  // No filter is set: "No products match these filters" and a "Clear filters" that did nothing.
  await results.getByText('There are no products here yet.').waitFor();
  expect(await results.getByText('No products match these filters.').count()).toBe(0);
  expect(await results.getByRole('button', { name: 'Clear filters' }).count()).toBe(0);
  await results.getByRole('link', { name: 'Browse all products' }).waitFor();
  // With a filter set, the filters are what match nothing, and clearing them is offered.
  await page.getByLabel('In stock only').check();
  await results.getByText('No products match these filters.').waitFor();
  await results.getByRole('button', { name: 'Clear filters' }).click();
  await results.getByText('There are no products here yet.').waitFor();
  expect(new URL(page.url()).search).toBe('');
  expect(errors).toEqual([]);
});

it("keeps the listing's headings in order: the products' names under the page's heading, no level skipped", async () => {
  const { page, errors } = await newPage(shop.browser);
  const levels = () =>
    page.evaluate(() =>
      [...document.querySelectorAll('main :is(h1, h2, h3, h4, h5, h6)')].map((h) => Number(h.tagName[1])),
    );
  for (const path of ['/products', '/collections/summer-linen', '/']) {
    await page.goto(`${shop.url}${path}`);
    await page.locator('li.card').first().waitFor();
    const seen = await levels();
    expect(seen[0]).toBe(1);
    // Each heading at most one level below the one before it (h1 then h3 skipped h2).
    expect(seen.filter((l, i) => i > 0 && l > seen[i - 1]! + 1)).toEqual([]);
  }
  // The cards' names are headings still, a screen reader's way through the list.
  await page.goto(`${shop.url}/products`);
  await page.getByRole('heading', { level: 2, name: 'Products' }).waitFor();
  await page.getByRole('heading', { level: 3, name: 'Linen Shirt' }).waitFor();
  expect(errors).toEqual([]);
});

it('applies a price range in dollars and cents (the boxes took whole dollars only)', async () => {
  const { page, errors } = await newPage(shop.browser);
  await page.goto(`${shop.url}/products`);
  await page.getByRole('list', { name: 'Products' }).waitFor();
  await page.getByLabel('Min').fill('19.60');
  await page.getByLabel('Max').fill('24.50');
  await page.getByRole('button', { name: 'Apply price' }).click();
  await expect.poll(() => new URL(page.url()).searchParams.get('max')).toBe('24.50');
  expect(new URL(page.url()).searchParams.get('min')).toBe('19.60');
  const list = page.getByRole('list', { name: 'Products' });
  await expect
    .poll(() => list.getByRole('heading').allTextContents())
    .toEqual(['Stoneware Mug', 'Beeswax Candle']);
  expect(errors).toEqual([]);
});

it('offers no choice the merchant hid (its variants hidden), rather than calling it sold out', async () => {
  const { page, errors } = await newPage(shop.browser);
  const { product } = await products.createProduct(admin(), {
    name: 'Hidden Size Apron',
    productType: 'physical',
    priceData: { price: 32 },
    productOptions: [
      {
        name: 'Size',
        choices: [
          { description: 'Regular', value: 'Regular' },
          { description: 'Long', value: 'Long' },
        ],
      },
    ],
    manageVariants: true,
  });
  await products.updateProductVariants(admin(), product.id!, [{ choices: { Size: 'Long' }, visible: false }]);
  await page.goto(`${shop.url}/products/${product.slug}`);
  await page.getByRole('heading', { level: 1, name: 'Hidden Size Apron' }).waitFor();
  const size = page.getByRole('group', { name: 'Size' });
  await size.getByRole('radio', { name: 'Regular' }).waitFor();
  // "Long (sold out)" was offered: a size the shop does not sell, said to be only out of stock.
  expect(await size.getByRole('radio').count()).toBe(1);
  expect(await size.textContent()).not.toContain('Long');
  await size.getByText('Regular').click();
  await page.getByTestId('availability').filter({ hasText: 'In stock' }).waitFor();
  expect(errors).toEqual([]);
});
