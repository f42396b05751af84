/**
 * The checkout and the order as their events carry them (`checkout_created`, `order_created`), in
 * the platform's shapes, built from the same estimate: the priced line items, totals, tax and
 * discounts they share, and each one's own buyer, addresses and shipping.
 * @module
 */
import type { estimate } from './model.ts';
import type { CheckoutDoc } from './orders.ts';
import type { RestAddress } from './pricing.ts';

type Wire = ReturnType<typeof estimate>['wire'];
type ContactDetails = { firstName?: string; lastName?: string };

/** An address with its contact details (`billingInfo`, `shippingDestination`, `recipientInfo`). */
const withContact = (address: RestAddress, contactDetails?: ContactDetails) => ({
  address,
  ...(contactDetails ? { contactDetails } : {}),
});

/** What a checkout and its order both carry of the estimate. */
const priced = (w: Wire) => ({
  lineItems: w.cart.lineItems,
  taxSummary: w.taxSummary,
  appliedDiscounts: w.appliedDiscounts,
  weightUnit: w.weightUnit,
});

/**
 * A new checkout: the cart's priced line items and totals, the buyer (with the e-mail given), the
 * billing and shipping addresses with the cart's contact details, the chosen shipping option.
 */
export function checkoutEntity(id: string, doc: CheckoutDoc, w: Wire, now: Date) {
  const contactDetails = doc.contactInfo?.contactDetails as ContactDetails | undefined;
  const at = now.toISOString();
  return {
    id,
    cartId: doc.cartId,
    ...priced(w),
    buyerInfo: { ...w.cart.buyerInfo, ...(doc.email ? { email: doc.email } : {}) },
    ...(doc.billingAddress ? { billingInfo: withContact(doc.billingAddress, contactDetails) } : {}),
    shippingInfo: {
      ...(doc.shippingAddress
        ? { shippingDestination: withContact(doc.shippingAddress, contactDetails) }
        : {}),
      ...(w.shippingInfo.selectedCarrierServiceOption
        ? { selectedCarrierServiceOption: w.shippingInfo.selectedCarrierServiceOption }
        : {}),
    },
    currency: doc.currency,
    conversionCurrency: doc.currency,
    priceSummary: w.priceSummary,
    channelType: doc.channelType,
    completed: false,
    createdDate: at,
    updatedDate: at,
  };
}

/**
 * A new order in the platform's order shape (`GET /ecom/v1/orders/{id}`): the buyer's name and
 * address are the recipient details and, unless the buyer picks the order up, the shipping
 * destination; the billing details are the checkout's billing address, else that address (and
 * that address when nothing ships: the page asked for the billing address);
 * `shippingInfo` is the chosen option with its cost as orders state it (`discount`, where
 * estimates say `totalDiscount`).
 */
export function orderEntity(
  id: string,
  checkout: { id: string; cart_id: string; doc: CheckoutDoc },
  w: Wire,
  buyer: { email: string } & ContactDetails,
  address: RestAddress,
  now: Date,
) {
  // The names typed on the page over the checkout's contact details: its phone, company and VAT
  // id (which `checkout_created` carried) stay the buyer's.
  const contactDetails = {
    ...(checkout.doc.contactInfo?.contactDetails as ContactDetails | undefined),
    firstName: buyer.firstName,
    lastName: buyer.lastName,
  };
  const ship = w.shippingInfo.selectedCarrierServiceOption;
  const { visitorId, memberId } = w.cart.buyerInfo as { visitorId?: string; memberId?: string };
  const at = now.toISOString();
  return {
    id,
    checkoutId: checkout.id,
    cartId: checkout.cart_id,
    status: 'APPROVED',
    paymentStatus: 'NOT_PAID',
    fulfillmentStatus: 'NOT_FULFILLED',
    archived: false,
    channelInfo: { type: checkout.doc.channelType },
    buyerInfo: { ...w.cart.buyerInfo, email: buyer.email },
    createdBy: memberId ? { memberId } : { visitorId },
    ...priced(w),
    priceSummary: { ...w.priceSummary, totalPrice: w.priceSummary.total },
    // The billing address the checkout was made with, else the address typed on the page (the
    // page asks for one address only): typed over it, the order forgot a billing address its
    // checkout (and `checkout_created`) carried. When nothing ships (no shipping option), the
    // page's address is the billing address: the one the buyer typed there is the order's.
    billingInfo: withContact((ship ? checkout.doc.billingAddress : undefined) ?? address, contactDetails),
    ...(ship
      ? {
          shippingInfo: {
            carrierId: ship.carrierId,
            code: ship.code,
            title: ship.title,
            logistics: {
              ...ship.logistics,
              ...(ship.logistics.pickupDetails
                ? {}
                : { shippingDestination: withContact(address, contactDetails) }),
            },
            cost: {
              price: ship.cost.price,
              totalPriceBeforeTax: ship.cost.totalPriceBeforeTax,
              totalPriceAfterTax: ship.cost.totalPriceAfterTax,
              taxDetails: ship.cost.taxDetails,
              discount: ship.cost.totalDiscount,
            },
            ...(w.shippingInfo.region ? { region: w.shippingInfo.region } : {}),
          },
        }
      : {}),
    recipientInfo: withContact(address, contactDetails),
    currency: w.currency,
    activities: [{ createdDate: at, type: 'ORDER_PLACED' }],
    createdDate: at,
    updatedDate: at,
  };
}
