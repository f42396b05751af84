import { describe, expect, it } from 'vitest';
import { createClient } from '../client.ts';
import * as cart from './cart.ts';

/** A client whose fetch records requests and answers with a canned wire body. */
function fake(body: unknown) {
  const sent: Array<{ method: string; url: string; body?: any }> = [];
  const client = createClient({
    baseUrl: 'https://api.test',
    fetch: async (url, init) => {
      sent.push({
        method: init!.method!,
        url: String(url),
        body: init?.body ? JSON.parse(String(init.body)) : undefined,
      });
      return new Response(JSON.stringify(body), { status: 200 });
    },
  });
  return { client, sent };
}

const wireCart = {
  id: 'c1',
  createdDate: '2025-01-02T03:04:05.000Z',
  lineItems: [
    {
      id: 'l1',
      quantity: 1,
      url: { relativePath: '/product-page/x', url: 'https://shop.test/product-page/x' },
      image: { id: 'x.png', url: 'https://img.test/x.png', width: 10, height: 20, altText: 'X y' },
      physicalProperties: { weight: 'NaN' },
      serviceProperties: { scheduledDate: '2025-02-01T00:00:00.000Z' },
    },
  ],
  contactInfo: {
    address: {
      addressLine: '1 Main',
      formattedAddress: '1 Main, Town',
      geocode: { latitude: 'Infinity', longitude: 2 },
    },
  },
};

describe('cart module transforms (wire §5.1)', () => {
  it('turns the wire cart into SDK shapes and unwraps get/update', async () => {
    const { client, sent } = fake({ cart: wireCart });
    const got = await cart.getCurrentCart(client);
    expect(sent[0]).toMatchObject({ method: 'GET', url: 'https://api.test/ecom/v1/carts/current' });
    expect(got.createdDate).toEqual(new Date('2025-01-02T03:04:05.000Z'));
    const line = got.lineItems[0]!;
    expect(line.url).toBe('https://shop.test/product-page/x');
    expect(line.image).toBe('wix:image://v1/x.png/X%20y#originWidth=10&originHeight=20');
    expect(line.physicalProperties!.weight).toBeNaN();
    expect(line.serviceProperties!.scheduledDate).toEqual(new Date('2025-02-01T00:00:00.000Z'));
    expect(got.contactInfo!.address).toEqual({
      addressLine1: '1 Main',
      formatted: '1 Main, Town',
      location: { latitude: Infinity, longitude: 2 },
    });
  });

  it('sends SDK inputs in wire shapes', async () => {
    const { client, sent } = fake({ cart: wireCart });
    await cart.updateCurrentCart(client, {
      cartInfo: { contactInfo: { address: { addressLine1: 'a', location: { latitude: Number.NaN } } } },
      cartFieldmask: ['buyerNote', 'contactInfo'],
      merchantDiscounts: [{ percentage: Number.POSITIVE_INFINITY }],
      customLineItems: [
        {
          quantity: 1,
          price: '1.00',
          productName: { original: 'x' },
          media: 'wix:image://v1/m.png#originWidth=1&originHeight=2',
          url: 'https://shop.test/p/x?y=1',
        },
      ],
    });
    expect(sent[0]!.method).toBe('PATCH');
    expect(sent[0]!.body).toEqual({
      cartInfo: { contactInfo: { address: { addressLine: 'a', geocode: { latitude: 'NaN' } } } },
      cartFieldmask: 'buyerNote,contactInfo',
      merchantDiscounts: [{ percentage: 'Infinity' }],
      customLineItems: [
        {
          quantity: 1,
          price: '1.00',
          productName: { original: 'x' },
          media: { id: 'm.png', width: 1, height: 2 },
          url: { relativePath: '/p/x', url: 'https://shop.test/p/x?y=1' },
        },
      ],
    });
    await cart.estimateCurrentCartTotals(client, {
      shippingAddress: { formatted: 'f', location: { latitude: 1 } },
    });
    expect(sent[1]).toMatchObject({
      url: 'https://api.test/ecom/v1/carts/current/estimate-totals',
      body: { shippingAddress: { formattedAddress: 'f', geocode: { latitude: 1 } } },
    });
    await cart.removeCouponFromCurrentCart(client);
    expect(sent[2]).toMatchObject({ url: 'https://api.test/ecom/v1/carts/current/remove-coupon', body: {} });
    await cart.updateCurrentCartLineItemQuantity(client, [{ id: 'l1', quantity: 2 }]);
    expect(sent[3]!.body).toEqual({ lineItems: [{ id: 'l1', quantity: 2 }] });
  });

  it('reads estimate-only dates, floats and pickup addresses', async () => {
    const option = {
      logistics: {
        deliveryTimeSlot: { from: '2025-03-01T09:00:00.000Z', to: '2025-03-02T18:00:00.000Z' },
        pickupDetails: { address: { addressLine: 'shop', geocode: { latitude: 'NaN' } } },
      },
    };
    const { client } = fake({
      cart: wireCart,
      shippingInfo: {
        selectedCarrierServiceOption: option,
        carrierServiceOptions: [{ shippingOptions: [option] }],
      },
      membershipOptions: {
        eligibleMemberships: [{ id: 'm', expirationDate: '2026-01-01T00:00:00.000Z' }],
        invalidMemberships: [{ membership: { id: 'i', expirationDate: '2026-02-01T00:00:00.000Z' } }],
        validatedExistingMemberships: {
          memberships: [{ membership: { id: 'v', expirationDate: '2026-03-01T00:00:00.000Z' } }],
        },
      },
      appliedDiscounts: [{ merchantDiscount: { percentage: 'NaN' } }],
    });
    const est = await cart.estimateCurrentCartTotals(client);
    const sel = est.shippingInfo!.selectedCarrierServiceOption!;
    expect(sel.logistics!.deliveryTimeSlot!.from).toEqual(new Date('2025-03-01T09:00:00.000Z'));
    expect(sel.logistics!.pickupDetails!.address).toEqual({
      addressLine1: 'shop',
      location: { latitude: Number.NaN },
    });
    const listed = est.shippingInfo!.carrierServiceOptions[0]!.shippingOptions[0]!;
    expect(listed.logistics!.deliveryTimeSlot!.to).toEqual(new Date('2025-03-02T18:00:00.000Z'));
    const { eligibleMemberships, invalidMemberships, validatedExistingMemberships } = est.membershipOptions;
    expect(eligibleMemberships[0]!.expirationDate).toEqual(new Date('2026-01-01T00:00:00.000Z'));
    expect(invalidMemberships[0]!.membership.expirationDate).toEqual(new Date('2026-02-01T00:00:00.000Z'));
    expect(validatedExistingMemberships!.memberships[0]!.membership.expirationDate).toEqual(
      new Date('2026-03-01T00:00:00.000Z'),
    );
    expect(est.appliedDiscounts[0]!.merchantDiscount!.percentage).toBeNaN();
    expect(est.cart.lineItems[0]!.url).toBe('https://shop.test/product-page/x');
  });
});
