/**
 * The hosted checkout in a real Chromium: a visitor's cart (built through the SDK) becomes a
 * checkout, the redirect session's URL opens the emulator's checkout page, the buyer fills in the
 * form and places the order, and lands on the post-flow URL with the cart emptied.
 */
import {
  ApiKeyStrategy,
  ChannelType,
  cart,
  createClient,
  OAuthStrategy,
  op,
  redirects,
  type ShopkitError,
  STORES_APP_ID,
} from '@shopkit/sdk';
import { expect, it } from 'vitest';
import { fillHostedCheckout, newPage, setupShopOrigin } from './browser.ts';

const queryProducts = op<[query: unknown], { products: Array<{ id: string; slug: string }> }>({
  method: 'POST',
  path: '/stores-reader/v1/products/query-platformized',
  args: ['query'],
});

// The storefront's "thank you" page the buyer comes back to.
const shop = setupShopOrigin(() => (_req, res) => {
  res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
  res.end('<!doctype html><title>Shop</title><h1>Back in the shop</h1>');
});

it('places an order on the hosted checkout page and returns to the post-flow URL with the cart emptied', async () => {
  const { emu } = shop;
  const admin = createClient({ baseUrl: emu.url, auth: ApiKeyStrategy({ apiKey: emu.demo.apiKey }) });
  const { products } = await queryProducts(admin, { paging: { limit: 100 } });
  const id = (slug: string) => products.find((p) => p.slug === slug)!.id;
  // Unbound calls (`cart.x(client, …)`): the same functions, no module binding needed.
  const client = createClient({ baseUrl: emu.url, auth: OAuthStrategy({ clientId: emu.demo.clientId }) });
  await cart.addToCurrentCart(client, {
    lineItems: [
      { catalogReference: { appId: STORES_APP_ID, catalogItemId: id('dinner-plate') }, quantity: 2 },
      {
        catalogReference: {
          appId: STORES_APP_ID,
          catalogItemId: id('linen-shirt'),
          options: { options: { Size: 'M', Color: 'Sage' } },
        },
        quantity: 1,
      },
    ],
  });
  const { checkoutId } = await cart.createCheckoutFromCurrentCart(client, { channelType: ChannelType.WEB });
  const postFlowUrl = `${shop.origin}/thanks`;
  const { redirectSession } = await redirects.createRedirectSession(client, {
    ecomCheckout: { checkoutId },
    callbacks: { postFlowUrl },
  });

  const { page, errors } = await newPage(shop.browser);
  await page.goto(redirectSession.fullUrl);
  await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Checkout');
  const items = page.getByRole('table', { name: 'Items' });
  await expect(items.textContent()).resolves.toContain('Stoneware Dinner Plate');
  await expect(items.textContent()).resolves.toContain('Color: Sage');
  await fillHostedCheckout(page, {
    email: 'grace@example.com',
    firstName: 'Grace',
    lastName: 'Hopper',
    address: '1 Navy Way',
    city: 'Arlington',
    postalCode: '22201',
    region: 'US-VA',
  });
  // The page was priced at the store's address (New York: the checkout has none); Virginia taxes
  // otherwise, so the first click shows the page again with the total the order would be charged,
  // and only the second places it: never a total the buyer did not see.
  const shown = await page.getByTestId('total').textContent();
  await page.getByRole('button', { name: 'Place order' }).click();
  await page.getByText(/^The total is now \$[\d,.]+; check the order and place it again\.$/).waitFor();
  const charged = await page.getByTestId('total').textContent();
  expect(charged).not.toBe(shown);
  await Promise.all([
    page.waitForURL(postFlowUrl),
    page.getByRole('button', { name: 'Place order' }).click(),
  ]);
  await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Back in the shop');
  expect(errors).toEqual([]);

  // The cart is gone and the order holds what the buyer typed.
  const gone = await cart.getCurrentCart(client).catch((e: ShopkitError) => e);
  expect(gone).toMatchObject({ code: 'OWNED_CART_NOT_FOUND' });
  const [order] = await emu.emu.db.query('SELECT doc FROM orders WHERE checkout_id = $1', [checkoutId]);
  expect(order!.doc).toMatchObject({
    buyerInfo: { email: 'grace@example.com' },
    recipientInfo: { address: { city: 'Arlington', country: 'US', subdivision: 'US-VA' } },
    lineItems: [{ quantity: 2 }, { quantity: 1 }],
  });
});
