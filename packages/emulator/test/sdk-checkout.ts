/**
 * Helpers for tests of the hosted checkout page driven through `@shopkit/sdk`: a new visitor of
 * the storefront with a demo product in the cart, the page of a checkout as first opened, its form
 * posted as the page's own browser would, and the order a checkout became.
 */
import { cart, createClient, OAuthStrategy, redirects, STORES_APP_ID } from '@shopkit/sdk';
import { expect } from 'vitest';
import { demoProductId } from '../src/domains/catalog/seed.ts';
import type { TestEmulator } from '../src/testing.ts';

/** A new visitor of the storefront with `quantity` of the demo product `slug` in the cart. */
export async function sdkShopper(emu: TestEmulator, slug = 'dinner-plate', quantity = 1) {
  const client = createClient({
    baseUrl: emu.url,
    auth: OAuthStrategy({ clientId: emu.demo.clientId }),
    modules: { cart, redirects },
  });
  await client.cart.addToCurrentCart({
    lineItems: [{ catalogReference: { appId: STORES_APP_ID, catalogItemId: demoProductId(slug) }, quantity }],
  });
  return client;
}

export type SdkShopper = Awaited<ReturnType<typeof sdkShopper>>;

/** The hosted checkout page of `checkoutId`: its URL, and its HTML as first opened. */
export async function hostedCheckout(client: SdkShopper, checkoutId: string) {
  const { redirectSession } = await client.redirects.createRedirectSession({ ecomCheckout: { checkoutId } });
  const url = redirectSession!.fullUrl!;
  return { url, html: await (await fetch(url)).text() };
}

/** Posts the checkout form (`fields`) as the page's own browser would; redirects not followed. */
export const postCheckoutForm = (url: string, fields: Record<string, string>) =>
  fetch(url, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'sec-fetch-site': 'same-origin' },
    body: new URLSearchParams(fields),
  });

/** The order placed from `checkoutId`, as stored, if any. */
export const orderOfCheckout = async (emu: TestEmulator, checkoutId: string) =>
  (await emu.emu.db.query<{ doc: any }>('SELECT doc FROM orders WHERE checkout_id = $1', [checkoutId]))[0]
    ?.doc;

/** The Albany address the checkout tests ship to, with `addressLine2` as its second line. */
export const albany = (addressLine2: string) => ({
  country: 'US',
  subdivision: 'US-NY',
  city: 'Albany',
  postalCode: '12207',
  addressLine: '1 Main St',
  addressLine2,
});

/** Expects an order to ship to `address`, for a recipient there, billed there. */
export function expectOrderAt(order: any, address: object) {
  expect(order.shippingInfo.logistics.shippingDestination.address).toEqual(address);
  expect(order.recipientInfo.address).toEqual(address);
  expect(order.billingInfo.address).toEqual(address);
}
