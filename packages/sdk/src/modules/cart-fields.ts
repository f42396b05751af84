/**
 * The cart's transformed fields (wire §5.1), as trees for `walk`: shared by the cart calls and by
 * `webhooks.process`, which reads a cart event's entity as the calls read a cart. Internal: not an
 * entry of the package.
 * @module
 */
import { address, date, float, image, nest, url } from '../transforms.ts';

export const ADDRESS = /* @__PURE__ */ nest(address, { geocode: { latitude: float, longitude: float } });
export const ITEM = {
  image: /* @__PURE__ */ nest(image, { urlExpirationDate: date, focalPoint: { x: float, y: float } }),
  subscriptionOptionInfo: { subscriptionSettings: { startDate: date } },
  serviceProperties: { scheduledDate: date, endDate: date },
  physicalProperties: { weight: float },
  catalogOverrideFields: { physicalProperties: { weight: float }, image },
  url,
};
export const DISCOUNTS = { merchantDiscount: { percentage: float } };
export const CART_FIELDS = {
  lineItems: ITEM,
  contactInfo: { address: ADDRESS },
  createdDate: date,
  updatedDate: date,
  appliedDiscounts: DISCOUNTS,
};
export const LOGISTICS = {
  logistics: { pickupDetails: { address: ADDRESS }, deliveryTimeSlot: { from: date, to: date } },
};
