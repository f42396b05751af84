/**
 * Findings of a fifteenth audit of the emulator's commerce, driven through `@shopkit/sdk` on each
 * storage, with the hosted checkout page over plain HTTP: the order placed from an untouched
 * checkout form shipped to the fields the page shows of the checkout's address, without its second
 * line (an apartment), and carried only the names of the buyer's contact details, without the
 * phone and company the cart (and `checkout_created`) held.
 */
import { cart, createClient, OAuthStrategy, redirects, STORES_APP_ID } from '@shopkit/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoProductId } from '../src/domains/catalog/seed.ts';
import { CHECKOUT_FORM, startTestEmulator, type TestEmulator, testBackends } from '../src/testing.ts';
import { formFields } from './http.ts';

/** The buyer's home in New York, with a second line: the flat. */
const HOME = {
  country: 'US',
  subdivision: 'US-NY',
  city: 'Albany',
  postalCode: '12207',
  addressLine1: '1 Main St',
  addressLine2: 'Apt 4B',
};

describe.each(testBackends())('commerce audit 15 (%s)', (backend) => {
  let emu: TestEmulator;
  beforeAll(async () => {
    emu = await startTestEmulator(backend);
  });
  afterAll(() => emu?.stop());

  /** A new visitor of the storefront with a dinner plate in the cart. */
  async function shopper() {
    const client = createClient({
      baseUrl: emu.url,
      auth: OAuthStrategy({ clientId: emu.demo.clientId }),
      modules: { cart, redirects },
    });
    await client.cart.addToCurrentCart({
      lineItems: [
        {
          catalogReference: { appId: STORES_APP_ID, catalogItemId: demoProductId('dinner-plate') },
          quantity: 1,
        },
      ],
    });
    return client;
  }

  /**
   * Opens the hosted checkout page of `checkoutId` and sends its form as filled in, with `typed`
   * over it; answers the order placed.
   */
  async function placeUntouched(
    client: Awaited<ReturnType<typeof shopper>>,
    checkoutId: string,
    typed: Record<string, string> = {},
  ) {
    const { redirectSession } = await client.redirects.createRedirectSession({
      ecomCheckout: { checkoutId },
    });
    const url = redirectSession!.fullUrl!;
    const fields = { ...formFields(await (await fetch(url)).text()), ...typed };
    const placed = await fetch(url, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'sec-fetch-site': 'same-origin' },
      body: new URLSearchParams(fields),
    });
    expect(placed.status).toBe(200);
    return (
      await emu.emu.db.query<{ doc: any }>('SELECT doc FROM orders WHERE checkout_id = $1', [checkoutId])
    )[0]!.doc;
  }

  describe('the order placed from an untouched checkout form', () => {
    it("ships to the checkout's whole address, its second line too", async () => {
      const client = await shopper();
      const { checkoutId } = await client.cart.createCheckoutFromCurrentCart({
        shippingAddress: HOME,
        email: CHECKOUT_FORM.email,
      });
      const order = await placeUntouched(client, checkoutId!, { firstName: 'Ada', lastName: 'Lovelace' });
      const address = {
        country: 'US',
        subdivision: 'US-NY',
        city: 'Albany',
        postalCode: '12207',
        addressLine: '1 Main St',
        addressLine2: 'Apt 4B',
      };
      expect(order.shippingInfo.logistics.shippingDestination.address).toEqual(address);
      expect(order.recipientInfo.address).toEqual(address);
      expect(order.billingInfo.address).toEqual(address);
    });

    it("keeps the phone and company of the cart's contact details, with the names on the form", async () => {
      const client = await shopper();
      await client.cart.updateCurrentCart({
        cartInfo: {
          contactInfo: {
            address: HOME,
            contactDetails: {
              firstName: 'Ada',
              lastName: 'Lovelace',
              phone: '+1 518 555 0100',
              company: 'Analytical Engines',
            },
          },
        },
      });
      const { checkoutId } = await client.cart.createCheckoutFromCurrentCart({ email: CHECKOUT_FORM.email });
      const order = await placeUntouched(client, checkoutId!, { firstName: 'Augusta' });
      const contactDetails = {
        firstName: 'Augusta',
        lastName: 'Lovelace',
        phone: '+1 518 555 0100',
        company: 'Analytical Engines',
      };
      expect(order.recipientInfo.contactDetails).toEqual(contactDetails);
      expect(order.shippingInfo.logistics.shippingDestination.contactDetails).toEqual(contactDetails);
      expect(order.billingInfo.contactDetails).toEqual(contactDetails);
    });
  });
});
