/**
 * Findings of a fourteenth audit of the emulator's commerce, driven through `@shopkit/sdk` on each
 * storage, with the hosted checkout page over plain HTTP: a checkout made with a billing address
 * only, from a cart with a contact address, showed its page at its own total (taxed at the billing
 * address) with the form filled in with the contact address, and the order was priced at that
 * address, so an untouched "Place order" came back 409 "the total is now …"; and the order placed
 * from a checkout made with a billing address carried the address typed on the page as its
 * billing details instead. Also: the checkout page of items sold out or gone from the store said
 * nothing of them until the filled-in form was sent, and a shipping option asked for by an
 * available code under another option's carrier was refused as a code "not available".
 */
import { STORES_APP_ID } from '@shopkit/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHECKOUT_FORM, startTestEmulator, type TestEmulator, testBackends } from '../src/testing.ts';
import { formFields, jsonCalls, shownTotal } from './http.ts';
import { hostedCheckout, orderOfCheckout, postCheckoutForm, sdkShopper } from './sdk-checkout.ts';

/** The buyer's home, in the SDK's names: New York, taxed at 8.875 %, shipping included. */
const HOME = {
  country: 'US',
  subdivision: 'US-NY',
  city: 'Albany',
  postalCode: '12207',
  addressLine1: '1 Main St',
};
/** A billing address in Britain, taxed at 20 %. */
const BILLING = { country: 'GB', city: 'London', postalCode: 'N1 9GU', addressLine1: '10 Upper St' };

describe.each(testBackends())('commerce audit 14 (%s)', (backend) => {
  let emu: TestEmulator;
  beforeAll(async () => {
    emu = await startTestEmulator(backend);
  });
  afterAll(() => emu?.stop());
  const { owner } = jsonCalls(() => emu);

  const shopper = (quantity = 2) => sdkShopper(emu, 'dinner-plate', quantity);
  const checkoutPage = hostedCheckout;
  const place = postCheckoutForm;
  const orderOf = (checkoutId: string) => orderOfCheckout(emu, checkoutId);

  describe('the hosted checkout page', () => {
    it('places an untouched form at the total it shows, for a checkout taxed at its billing address', async () => {
      const client = await shopper();
      await client.cart.updateCurrentCart({
        cartInfo: {
          contactInfo: { address: HOME, contactDetails: { firstName: 'Ada', lastName: 'Lovelace' } },
        },
      });
      // The storefront sends the billing address it has: the checkout is taxed there (no shipping
      // address given) and ships to the cart's address, which fills in the page's form.
      const input = { billingAddress: BILLING };
      const estimate = await client.cart.estimateCurrentCartTotals(input);
      const { checkoutId } = await client.cart.createCheckoutFromCurrentCart({
        ...input,
        email: CHECKOUT_FORM.email,
      });
      const page = await checkoutPage(client, checkoutId!);
      const fields = formFields(page.html);
      expect(fields).toMatchObject({ country: 'US', subdivision: 'US-NY', addressLine: '1 Main St' });
      // 2 × $27.00 + $5.00 shipping, with British VAT on both: the checkout's total.
      expect(fields.total).toBe(estimate.priceSummary!.total!.amount);
      expect(shownTotal(page.html)).toBe('$70.80');

      const placed = await place(page.url, fields);
      expect(placed.status).toBe(200);
      expect(await placed.text()).toContain('has been placed');
      expect((await orderOf(checkoutId!)).priceSummary.total.amount).toBe('70.80');
    });

    it('still shows the total at an address typed over it before placing the order there', async () => {
      const client = await shopper();
      await client.cart.updateCurrentCart({ cartInfo: { contactInfo: { address: HOME } } });
      const { checkoutId } = await client.cart.createCheckoutFromCurrentCart({ billingAddress: BILLING });
      const page = await checkoutPage(client, checkoutId!);
      const typed = { ...formFields(page.html), ...CHECKOUT_FORM, city: ' Albany ', subdivision: 'us-ny' };
      // The same address, written otherwise: untouched.
      const same = await place(page.url, typed);
      expect(same.status).toBe(200);

      const other = await shopper();
      await other.cart.updateCurrentCart({ cartInfo: { contactInfo: { address: HOME } } });
      const second = await other.cart.createCheckoutFromCurrentCart({ billingAddress: BILLING });
      const page2 = await checkoutPage(other, second.checkoutId!);
      const moved = { ...formFields(page2.html), ...CHECKOUT_FORM, postalCode: '12208' };
      const refused = await place(page2.url, moved);
      expect(refused.status).toBe(409);
      const again = await refused.text();
      // Typed over, the address is where the order is taxed: New York's tax, $64.23.
      expect(shownTotal(again)).toBe('$64.23');
      expect((await place(page2.url, formFields(again))).status).toBe(200);
      expect((await orderOf(second.checkoutId!)).priceSummary.total.amount).toBe('64.23');
    });
  });

  describe('the hosted checkout page of items that cannot be ordered as they are', () => {
    it('says so when it opens, not only once the form is filled in and sent', async () => {
      const created = await owner('POST', '/stores/v1/products', {
        product: {
          name: `Audit14 lantern ${backend}`,
          productType: 'physical',
          priceData: { price: 12 },
          stock: { trackInventory: true, quantity: 3 },
        },
      });
      expect(created.status).toBe(200);
      const lantern = created.body.product.id as string;
      const client = await shopper(1);
      await client.cart.addToCurrentCart({
        lineItems: [{ catalogReference: { appId: STORES_APP_ID, catalogItemId: lantern }, quantity: 2 }],
      });
      const { checkoutId } = await client.cart.createCheckoutFromCurrentCart({ shippingAddress: HOME });
      const page = await checkoutPage(client, checkoutId!);
      expect(page.html).not.toContain('role="alert"');

      // Sold down to one, then gone from the store.
      const fewer = await owner('PATCH', `/stores/v1/products/${lantern}`, {
        product: { id: lantern, stock: { trackInventory: true, quantity: 1 } },
      });
      expect(fewer.status).toBe(200);
      const short = await (await fetch(page.url)).text();
      expect(short).toContain('This order cannot be placed as it is:');
      expect(short).toContain(`Only 1 of Audit14 lantern ${backend} are in stock; the cart has 2.`);
      const hidden = await owner('PATCH', `/stores/v1/products/${lantern}`, {
        product: { id: lantern, visible: false },
      });
      expect(hidden.status).toBe(200);
      const gone = await (await fetch(page.url)).text();
      expect(gone).toContain(`Audit14 lantern ${backend} is no longer in the store.`);
      // The form still posts, and still refuses: the page again, nothing placed.
      const refused = await place(page.url, { ...formFields(gone), ...CHECKOUT_FORM });
      expect(refused.status).toBe(409);
      expect(await orderOf(checkoutId!)).toBeUndefined();
    });
  });

  describe('a shipping option chosen by code and carrier', () => {
    it('with the carrier of another option is refused on the carrier, not on a code that is available', async () => {
      const client = await shopper(1);
      const { shippingInfo } = await client.cart.estimateCurrentCartTotals({ shippingAddress: HOME });
      const carrierOf = (code: string) =>
        shippingInfo!.carrierServiceOptions!.find((c) => c.shippingOptions!.some((o) => o.code === code))!
          .carrierId!;
      const [delivery, pickup] = [carrierOf('standard'), carrierOf('store-pickup')];
      expect(delivery).not.toBe(pickup);
      const asked = { code: 'standard', carrierId: pickup };
      for (const call of [
        () => client.cart.estimateCurrentCartTotals({ shippingAddress: HOME, selectedShippingOption: asked }),
        () =>
          client.cart.createCheckoutFromCurrentCart({ shippingAddress: HOME, selectedShippingOption: asked }),
      ]) {
        const refused = await call().then(
          () => undefined,
          (e: unknown) => e as { status: number; message: string },
        );
        expect(refused?.status).toBe(400);
        expect(refused?.message).toBe(
          `INVALID_ARGUMENT: "options.selectedShippingOption.carrierId" is not the carrier of the shipping option standard; its carrier is ${delivery}`,
        );
      }
      // The right pair is taken; a code of no option is still refused on the code.
      const est = await client.cart.estimateCurrentCartTotals({
        shippingAddress: HOME,
        selectedShippingOption: { code: 'standard', carrierId: delivery },
      });
      expect(est.shippingInfo!.selectedCarrierServiceOption).toMatchObject({ code: 'standard' });
      await expect(
        client.cart.estimateCurrentCartTotals({ selectedShippingOption: { code: 'overnight' } }),
      ).rejects.toThrow('"options.selectedShippingOption.code" is not an available shipping option');
    });
  });

  describe('the order placed', () => {
    it("keeps the checkout's billing address as its billing details; the typed address is the recipient's", async () => {
      const client = await shopper(1);
      const { checkoutId } = await client.cart.createCheckoutFromCurrentCart({
        shippingAddress: HOME,
        billingAddress: BILLING,
        email: CHECKOUT_FORM.email,
      });
      const page = await checkoutPage(client, checkoutId!);
      const fields = { ...formFields(page.html), firstName: 'Ada', lastName: 'Lovelace' };
      expect((await place(page.url, fields)).status).toBe(200);
      const order = await orderOf(checkoutId!);
      const names = { firstName: 'Ada', lastName: 'Lovelace' };
      expect(order.billingInfo).toEqual({
        address: { country: 'GB', city: 'London', postalCode: 'N1 9GU', addressLine: '10 Upper St' },
        contactDetails: names,
      });
      expect(order.recipientInfo).toEqual({
        address: {
          country: 'US',
          subdivision: 'US-NY',
          city: 'Albany',
          postalCode: '12207',
          addressLine: '1 Main St',
        },
        contactDetails: names,
      });
      expect(order.shippingInfo.logistics.shippingDestination).toEqual(order.recipientInfo);
    });
  });
});
