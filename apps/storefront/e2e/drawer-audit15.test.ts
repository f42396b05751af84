/**
 * The cart drawer's fifteenth audit, in a real Chromium: a custom line item whose `url` leads
 * off the shop (a partner's page) was linked to `/products/<the URL's last segment>`, a product
 * of the shop's that is not the line's (or none); a line whose quantity the platform fixes
 * (`fixedQuantity`) offered "One more" and "One fewer", changes the platform refuses; clicking the
 * dimmed page beside the drawer left it open.
 */
import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { addToCart, newPage, setupStorefront } from './browser.ts';

const shop = setupStorefront();

/** The cart as read (GET) changed by `edit` on its first line, as the platform may send it. */
async function editFirstLine(page: Page, edit: (line: Record<string, unknown>) => void) {
  await page.route('**/ecom/v1/carts/current', async (route) => {
    if (route.request().method() !== 'GET') return route.continue();
    const res = await route.fetch();
    const body = await res.json();
    const line = body.cart?.lineItems?.[0];
    if (line) edit(line);
    await route.fulfill({ response: res, json: body });
  });
}

async function candleInDrawer(page: Page, edit: (line: Record<string, unknown>) => void) {
  await addToCart(page, `${shop.url}/products/beeswax-candle`, 'Beeswax Candle');
  await page.getByText('Added to your cart.').waitFor();
  await editFirstLine(page, edit);
  await page.goto(`${shop.url}/products`);
  await page.getByRole('button', { name: /^Cart, / }).click();
  const drawer = page.getByRole('dialog', { name: 'Your cart' });
  await drawer.getByRole('list', { name: 'Cart items' }).waitFor();
  return drawer;
}

it('does not link a custom line that leads off the shop to a shop product of its URL’s last segment', async () => {
  const { page, errors } = await newPage(shop.browser);
  const drawer = await candleInDrawer(page, (l) => {
    l.customLineItem = true;
    l.productName = { original: 'Engraving', translated: 'Engraving' };
    l.url = 'https://partner.example/services/beeswax-candle';
    delete l.catalogReference;
  });
  await drawer.getByText('Engraving').first().waitFor();
  // Its last segment is a product of the shop's: the link led there, to a product not the line's.
  expect(await drawer.getByRole('link', { name: 'Engraving' }).count()).toBe(0);
  expect(errors).toEqual([]);
  await page.close();
});

it('offers no quantity change for a line whose quantity the platform fixes, and says its quantity', async () => {
  const { page, errors } = await newPage(shop.browser);
  const drawer = await candleInDrawer(page, (l) => {
    l.fixedQuantity = true;
    l.quantity = 2;
  });
  await drawer.getByRole('button', { name: /^Remove Beeswax Candle/ }).waitFor();
  expect(await drawer.getByRole('button', { name: /^One (more|fewer) / }).count()).toBe(0);
  expect(await drawer.getByText('Quantity: 2').count()).toBe(1);
  expect(errors).toEqual([]);
  await page.close();
});

it('closes when the dimmed page beside it is clicked, the focus going back to the cart button', async () => {
  const { page, errors } = await newPage(shop.browser);
  await page.setViewportSize({ width: 1024, height: 768 });
  await addToCart(page, `${shop.url}/products/beeswax-candle`, 'Beeswax Candle');
  await page.getByText('Added to your cart.').waitFor();
  const cart = page.getByRole('button', { name: /^Cart, / });
  await cart.click();
  const drawer = page.getByRole('dialog', { name: 'Your cart' });
  await drawer.getByRole('list', { name: 'Cart items' }).waitFor();
  // A click inside the drawer (its padding, the dialog element itself) keeps it open.
  const box = (await drawer.boundingBox())!;
  await page.mouse.click(box.x + 4, box.y + box.height - 4);
  expect(await drawer.isVisible()).toBe(true);
  await page.mouse.click(20, 384);
  await drawer.waitFor({ state: 'hidden' });
  expect(await cart.evaluate((el) => el === document.activeElement)).toBe(true);
  expect(errors).toEqual([]);
  await page.close();
});
