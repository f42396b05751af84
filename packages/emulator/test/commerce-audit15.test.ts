/**
 * Findings of a fifteenth audit of the emulator's commerce, driven through `@shopkit/sdk` on each
 * storage, with the hosted checkout page over plain HTTP: the order placed from an untouched
 * checkout form shipped to the fields the page shows of the checkout's address, without its second
 * line (an apartment), and carried only the names of the buyer's contact details, without the
 * phone and company the cart (and `checkout_created`) held.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHECKOUT_FORM, startTestEmulator, type TestEmulator, testBackends } from '../src/testing.ts';
import { formFields } from './http.ts';
import {
  albany,
  expectOrderAt,
  hostedCheckout,
  orderOfCheckout,
  postCheckoutForm,
  type SdkShopper,
  sdkShopper,
} from './sdk-checkout.ts';

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

  /**
   * Opens the hosted checkout page of `checkoutId` and sends its form as filled in, with `typed`
   * over it; answers the order placed.
   */
  async function placeUntouched(client: SdkShopper, checkoutId: string, typed: Record<string, string> = {}) {
    const { url, html } = await hostedCheckout(client, checkoutId);
    expect((await postCheckoutForm(url, { ...formFields(html), ...typed })).status).toBe(200);
    return orderOfCheckout(emu, checkoutId);
  }

  describe('the order placed from an untouched checkout form', () => {
    it("ships to the checkout's whole address, its second line too", async () => {
      const client = await sdkShopper(emu);
      const { checkoutId } = await client.cart.createCheckoutFromCurrentCart({
        shippingAddress: HOME,
        email: CHECKOUT_FORM.email,
      });
      const order = await placeUntouched(client, checkoutId!, { firstName: 'Ada', lastName: 'Lovelace' });
      expectOrderAt(order, albany('Apt 4B'));
    });

    it("keeps the phone and company of the cart's contact details, with the names on the form", async () => {
      const client = await sdkShopper(emu);
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
