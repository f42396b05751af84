/**
 * Findings of a fifteenth audit of the hosted checkout page, driven through `@shopkit/sdk` on each
 * storage with the page's form over plain HTTP: the form had no field for an address's second
 * line (an apartment, a suite), so a buyer typing an address could not give one and an apartment
 * changed on the page was dropped; an address given as its street parts only (`streetAddress`)
 * showed an empty Address field; and a checkout of items that do not ship (a gift card) asked for
 * a shipping address, filled in with nothing of its billing address, and the order kept the
 * checkout's billing address over the one the buyer typed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHECKOUT_FORM, startTestEmulator, type TestEmulator, testBackends } from '../src/testing.ts';
import { formFields, shownTotal } from './http.ts';
import {
  albany,
  expectOrderAt,
  hostedCheckout,
  orderOfCheckout,
  postCheckoutForm,
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
/** A billing address in Britain, taxed at 20 %. */
const BILLING = { country: 'GB', city: 'London', postalCode: 'N1 9GU', addressLine1: '10 Upper St' };

describe.each(testBackends())('checkout audit 15 (%s)', (backend) => {
  let emu: TestEmulator;
  beforeAll(async () => {
    emu = await startTestEmulator(backend);
  });
  afterAll(() => emu?.stop());

  const shopper = (slug?: string) => sdkShopper(emu, slug);
  const checkoutPage = hostedCheckout;
  const place = postCheckoutForm;
  const orderOf = (checkoutId: string) => orderOfCheckout(emu, checkoutId);

  /** The `<input>` of the form field `name`, as the page renders it. */
  const inputOf = (html: string, name: string) => new RegExp(`<input id="f-${name}"[^>]*>`).exec(html)?.[0];

  describe("the form's second address line", () => {
    it('is a labelled, optional field, filled in with the checkout’s second line', async () => {
      const client = await shopper();
      const { checkoutId } = await client.cart.createCheckoutFromCurrentCart({ shippingAddress: HOME });
      const { html } = await checkoutPage(client, checkoutId!);
      expect(html).toContain('<label for="f-addressLine2">Apartment, suite, etc. (optional)</label>');
      const input = inputOf(html, 'addressLine2');
      expect(input).toContain('name="addressLine2"');
      expect(input).toContain('autocomplete="address-line2"');
      expect(input).toContain('value="Apt 4B"');
      expect(input).not.toContain('required');
      expect(html).toContain('<legend>Shipping address</legend>');
    });

    it('carries a typed apartment into the shipping destination, the recipient and the billing', async () => {
      const client = await shopper();
      const { checkoutId } = await client.cart.createCheckoutFromCurrentCart({});
      const { url, html } = await checkoutPage(client, checkoutId!);
      const typed = { ...formFields(html), ...CHECKOUT_FORM, addressLine2: 'Suite 9' };
      expect((await place(url, typed)).status).toBe(200);
      const order = await orderOf(checkoutId!);
      expectOrderAt(order, albany('Suite 9'));
    });

    it('changed alone makes the form typed: the order ships to the new apartment', async () => {
      const client = await shopper();
      const { checkoutId } = await client.cart.createCheckoutFromCurrentCart({
        shippingAddress: HOME,
        email: CHECKOUT_FORM.email,
      });
      const { url, html } = await checkoutPage(client, checkoutId!);
      const fields = { ...formFields(html), firstName: 'Ada', lastName: 'Lovelace', addressLine2: 'Apt 5C' };
      expect((await place(url, fields)).status).toBe(200);
      const order = await orderOf(checkoutId!);
      expect(order.shippingInfo.logistics.shippingDestination.address).toEqual({
        country: 'US',
        subdivision: 'US-NY',
        city: 'Albany',
        postalCode: '12207',
        addressLine: '1 Main St',
        addressLine2: 'Apt 5C',
      });
    });

    it('is kept on a refused post, and refused past the length of any other field', async () => {
      const client = await shopper();
      const { checkoutId } = await client.cart.createCheckoutFromCurrentCart({ shippingAddress: HOME });
      const { url, html } = await checkoutPage(client, checkoutId!);
      const kept = await place(url, {
        ...formFields(html),
        ...CHECKOUT_FORM,
        email: 'not-an-address',
        addressLine2: 'Unit 7',
      });
      expect(kept.status).toBe(400);
      expect(inputOf(await kept.text(), 'addressLine2')).toContain('value="Unit 7"');

      const long = await place(url, { ...formFields(html), ...CHECKOUT_FORM, addressLine2: 'x'.repeat(201) });
      expect(long.status).toBe(400);
      const page = await long.text();
      expect(page).toContain('Apartment, suite, etc. must be at most 200 characters.');
      expect(inputOf(page, 'addressLine2')).toContain('aria-invalid="true"');
      expect(await orderOf(checkoutId!)).toBeUndefined();
    });
  });

  describe('an address given as its street parts only', () => {
    it('fills in the Address field and the second line; untouched, the order ships there', async () => {
      const client = await shopper();
      const street = { number: '12', name: 'Elm Street', apt: 'Flat 3' };
      const { checkoutId } = await client.cart.createCheckoutFromCurrentCart({
        shippingAddress: {
          country: 'US',
          subdivision: 'US-NY',
          city: 'Albany',
          postalCode: '12207',
          streetAddress: street,
        },
        email: CHECKOUT_FORM.email,
      });
      const { url, html } = await checkoutPage(client, checkoutId!);
      expect(inputOf(html, 'addressLine')).toContain('value="12 Elm Street"');
      expect(inputOf(html, 'addressLine2')).toContain('value="Flat 3"');
      const shown = shownTotal(html);
      const placed = await place(url, { ...formFields(html), firstName: 'Ada', lastName: 'Lovelace' });
      expect(placed.status).toBe(200);
      const order = await orderOf(checkoutId!);
      // The checkout's own address, whole, at the total the page showed.
      expect(order.shippingInfo.logistics.shippingDestination.address).toEqual({
        country: 'US',
        subdivision: 'US-NY',
        city: 'Albany',
        postalCode: '12207',
        streetAddress: street,
      });
      expect(order.priceSummary.total.formattedAmount).toBe(shown);
    });
  });

  describe('the checkout page of items that do not ship (a gift card)', () => {
    /** A visitor's checkout of a gift card with a billing address in Britain, and its page. */
    async function giftCardCheckout() {
      const client = await shopper('gift-card');
      const { checkoutId } = await client.cart.createCheckoutFromCurrentCart({
        billingAddress: BILLING,
        email: CHECKOUT_FORM.email,
      });
      return { checkoutId: checkoutId!, ...(await checkoutPage(client, checkoutId!)) };
    }

    it('asks for the billing address, filled in with the checkout’s; the order ships nowhere', async () => {
      const { checkoutId, url, html } = await giftCardCheckout();
      expect(html).toContain('<legend>Billing address</legend>');
      expect(html).not.toContain('Shipping address');
      expect(inputOf(html, 'addressLine')).toContain('value="10 Upper St"');
      expect(inputOf(html, 'country')).toContain('value="GB"');
      // Taxed at the billing address: $50 and 20 % VAT.
      expect(shownTotal(html)).toBe('$60.00');
      const placed = await place(url, { ...formFields(html), firstName: 'Ada', lastName: 'Lovelace' });
      expect(placed.status).toBe(200);
      const order = await orderOf(checkoutId!);
      expect(order.priceSummary.total.amount).toBe('60.00');
      expect(order.billingInfo.address).toEqual({
        country: 'GB',
        city: 'London',
        postalCode: 'N1 9GU',
        addressLine: '10 Upper St',
      });
      expect(order.shippingInfo).toBeUndefined();
    });

    it('takes the billing address typed there as the order’s', async () => {
      const { checkoutId, url, html } = await giftCardCheckout();
      const typed = { ...formFields(html), ...CHECKOUT_FORM, addressLine2: 'Apt 4B' };
      const refused = await place(url, typed);
      // New York's tax, not Britain's VAT: the page again at the total the order is charged.
      expect(refused.status).toBe(409);
      const again = await refused.text();
      expect(shownTotal(again)).toBe('$54.44');
      expect((await place(url, formFields(again))).status).toBe(200);
      const order = await orderOf(checkoutId!);
      expect(order.billingInfo.address).toEqual({
        country: 'US',
        subdivision: 'US-NY',
        city: 'Albany',
        postalCode: '12207',
        addressLine: '1 Main St',
        addressLine2: 'Apt 4B',
      });
      expect(order.shippingInfo).toBeUndefined();
    });
  });
});
