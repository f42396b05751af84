/**
 * The current cart (wire §5.1): the one cart of the calling visitor or member, found from the
 * access token. Get, update, delete, add, remove, change quantities, remove the coupon, estimate
 * totals and create a checkout.
 * @example
 * const client = createClient({ baseUrl, auth: OAuthStrategy({ clientId }), modules: { cart } });
 * const { cart: c } = await client.cart.addToCurrentCart({
 *   lineItems: [{ catalogReference: { appId: STORES_APP_ID, catalogItemId: productId }, quantity: 1 }],
 * });
 * @module
 */
import type { AnyClient } from '../client.ts';
import type {
  ChannelType,
  ChargeType,
  DescriptionLineType,
  DiscountType,
  ItemAvailabilityStatus,
  ItemTypePreset,
  JurisdictionType,
  PaymentOptionType,
  PickupMethod,
  RateType,
  Severity,
  SuggestedFix,
  TaxableAddressType,
  WeightUnit,
} from '../enums/commerce.ts';
import { type CallOptions, op } from '../http/op.ts';
import { date, float, image } from '../transforms.ts';
import { ADDRESS, CART_FIELDS, DISCOUNTS, ITEM, LOGISTICS } from './cart-fields.ts';

/** A money amount: decimal strings, formatted in the store currency. */
export interface Price {
  amount: string;
  convertedAmount?: string;
  formattedAmount?: string;
  formattedConvertedAmount?: string;
}

export interface Translatable {
  original: string;
  translated?: string;
}

/** An address with the SDK's names (`addressLine1`, `location`, `formatted`). */
export interface Address {
  country?: string;
  subdivision?: string;
  city?: string;
  postalCode?: string;
  addressLine1?: string;
  addressLine2?: string;
  /** Directions for finding the address. */
  hint?: string;
  formatted?: string;
  location?: { latitude?: number; longitude?: number };
  streetAddress?: { name?: string; number?: string; apt?: string; formattedAddressLine?: string };
  countryFullname?: string;
  subdivisionFullname?: string;
}

export interface CatalogReference {
  /** The catalog's app id (`STORES_APP_ID` for store products). */
  appId: string;
  /** The product id. */
  catalogItemId: string;
  /** `{variantId}` or `{options: {Color: 'Blue'}}` for products with options. */
  options?: { variantId?: string; options?: Record<string, string>; [key: string]: unknown };
}

export interface DescriptionLine {
  name: Translatable;
  plainText?: Translatable;
  colorInfo?: Translatable & { code?: string };
  lineType?: DescriptionLineType;
}

export interface PhysicalProperties {
  weight?: number;
  sku?: string;
  shippable?: boolean;
}

/** A line item as the cart returns it. `image` is a `wix:image://` reference or URL, `url` a string. */
export interface LineItem {
  id: string;
  quantity: number;
  catalogReference?: CatalogReference;
  productName?: Translatable;
  url?: string;
  price?: Price;
  fullPrice?: Price;
  priceBeforeDiscounts?: Price;
  lineItemPrice?: Price;
  /** The part of the price paid now, for an item paid partly later. */
  depositAmount?: Price;
  /** The price is set later (a service priced on the day). */
  priceUndetermined?: boolean;
  /** The quantity cannot be changed in the cart. */
  fixedQuantity?: boolean;
  descriptionLines?: DescriptionLine[];
  image?: string;
  availability?: { status: ItemAvailabilityStatus; quantityAvailable?: number };
  physicalProperties?: PhysicalProperties;
  itemType?: { preset?: ItemTypePreset; custom?: string };
  paymentOption?: PaymentOptionType;
  customLineItem?: boolean;
  rootCatalogItemId?: string;
  priceDescription?: Translatable;
  serviceProperties?: { scheduledDate?: Date; endDate?: Date; numberOfParticipants?: number };
  subscriptionOptionInfo?: { subscriptionSettings?: { startDate?: Date; [key: string]: unknown } };
  catalogOverrideFields?: { image?: string; physicalProperties?: PhysicalProperties; [key: string]: unknown };
}

/** A catalog line item to add. */
export interface LineItemInput {
  catalogReference: CatalogReference;
  quantity: number;
}

/** A line item with a price of its own (elevated callers only). `media` is an image reference or URL. */
export interface CustomLineItemInput {
  quantity: number;
  price: string;
  productName: Translatable;
  itemType?: { preset?: ItemTypePreset; custom?: string };
  descriptionLines?: DescriptionLine[];
  media?: string;
  url?: string;
  physicalProperties?: PhysicalProperties;
  catalogReference?: CatalogReference;
  id?: string;
}

export interface ContactInfo {
  address?: Address;
  contactDetails?: {
    firstName?: string;
    lastName?: string;
    phone?: string;
    company?: string;
    vatId?: { id?: string; type?: string };
  };
}

export interface AppliedDiscount {
  discountType?: DiscountType;
  lineItemIds?: string[];
  coupon?: { id: string; code: string; name?: string; amount?: Price };
  merchantDiscount?: { amount?: Price; percentage?: number };
}

export interface ShippingOptionRef {
  code: string;
  carrierId?: string;
}

/** The current cart. */
export interface Cart {
  id: string;
  lineItems: LineItem[];
  buyerNote?: string;
  buyerInfo?: { visitorId?: string; memberId?: string; userId?: string; contactId?: string; email?: string };
  currency?: string;
  /** The currency the buyer pays in. */
  paymentCurrency?: string;
  /** A checkout URL of the site's own, in place of the platform's. */
  overrideCheckoutUrl?: string;
  purchaseFlowId?: string;
  conversionCurrency?: string;
  buyerLanguage?: string;
  siteLanguage?: string;
  taxIncludedInPrices?: boolean;
  weightUnit?: WeightUnit;
  subtotal?: Price;
  checkoutId?: string;
  appliedDiscounts?: AppliedDiscount[];
  contactInfo?: ContactInfo;
  selectedShippingOption?: ShippingOptionRef;
  businessLocationId?: string;
  createdDate?: Date;
  updatedDate?: Date;
  revision?: string;
}

/** A merchant discount on the whole cart or on some line items (elevated callers only). */
export interface MerchantDiscountInput {
  /** An amount off (decimal string), or… */
  amount?: string;
  /** …a percentage off. */
  percentage?: number;
  lineItemIds?: string[];
}

export interface UpdateCurrentCartOptions {
  cartInfo?: {
    buyerNote?: string;
    contactInfo?: ContactInfo;
    selectedShippingOption?: ShippingOptionRef;
    businessLocationId?: string;
  };
  couponCode?: string;
  merchantDiscounts?: MerchantDiscountInput[];
  /** Line items to add. */
  lineItems?: LineItemInput[];
  customLineItems?: CustomLineItemInput[];
  /** The `cartInfo` fields to replace (others are kept); without it, the fields present are set. */
  cartFieldmask?: string[];
}

export interface AddToCurrentCartOptions {
  lineItems?: LineItemInput[];
  customLineItems?: CustomLineItemInput[];
  businessLocationId?: string;
}

export interface CreateCheckoutOptions {
  channelType?: ChannelType;
  shippingAddress?: Address;
  billingAddress?: Address;
  selectedShippingOption?: ShippingOptionRef;
  email?: string;
}

export interface EstimateTotalsOptions {
  selectedShippingOption?: ShippingOptionRef;
  shippingAddress?: Address;
  billingAddress?: Address;
  selectedMemberships?: { memberships: Array<{ id: string; appId: string; lineItemIds: string[] }> };
  calculateTax?: boolean;
  calculateShipping?: boolean;
  calculateAdditionalFees?: boolean;
}

export interface PriceSummary {
  subtotal: Price;
  shipping: Price;
  tax: Price;
  discount: Price;
  total: Price;
  additionalFees?: Price;
}

export interface TaxDetails {
  taxableAmount: Price;
  taxRate: string;
  totalTax: Price;
  rateBreakdown?: Array<{ name: string; rate: string; tax: Price; jurisdictionType?: JurisdictionType }>;
}

export interface CalculatedLineItem {
  lineItemId: string;
  pricesBreakdown: {
    totalPriceAfterTax: Price;
    totalPriceBeforeTax: Price;
    taxDetails?: TaxDetails;
    totalDiscount: Price;
    price: Price;
    priceBeforeDiscounts: Price;
    lineItemPrice: Price;
    fullPrice: Price;
  };
  paymentOption?: PaymentOptionType;
  taxableAddress?: { addressType: TaxableAddressType };
}

export interface DeliveryLogistics {
  deliveryTime?: string;
  instructions?: string;
  deliveryTimeSlot?: { from?: Date; to?: Date };
  pickupDetails?: { address?: Address; businessLocation?: boolean; pickupMethod?: PickupMethod };
}

export interface ShippingOption {
  code: string;
  title: string;
  logistics?: DeliveryLogistics;
  cost?: {
    price: Price;
    /**
     * Handling, insurance: listed apart from `price` in the options offered (the option costs both);
     * the chosen option's `cost.price` (`selectedCarrierServiceOption`) has them in it.
     */
    otherCharges?: Array<{ type: ChargeType; price: Price; details?: string }>;
  };
}

/** What shipping, or one charge of it, costs: before and after discount and tax. */
export interface ShippingCost {
  totalPriceAfterTax: Price;
  totalPriceBeforeTax: Price;
  taxDetails?: TaxDetails;
  totalDiscount: Price;
  price: Price;
}

export interface SelectedShippingOption {
  carrierId?: string;
  code: string;
  title: string;
  logistics?: DeliveryLogistics;
  /** The whole shipping, its `otherCharges` included. */
  cost: ShippingCost;
  /** Whether this is the option asked for (else the first one was taken). */
  requestedShippingOption?: boolean;
  /** Handling, insurance: each with its share of `cost`. */
  otherCharges?: Array<{ type: ChargeType; details?: string; cost: ShippingCost }>;
}

export interface Membership {
  id: string;
  appId: string;
  name?: Translatable;
  lineItemIds?: string[];
  expirationDate?: Date;
}

export interface Violation {
  severity: Severity;
  /** Where a page shows it: `name` is a place on the page, not the product's name. */
  target?: {
    other?: { name?: 'OTHER_DEFAULT' };
    lineItem?: { id: string; name?: 'LINE_ITEM_DEFAULT'; suggestedFix?: SuggestedFix };
  };
  description: string;
}

/** The answer of {@link estimateCurrentCartTotals} (spec 3, "Estimate response"). */
export interface EstimateTotalsResponse {
  cart: Cart;
  calculatedLineItems: CalculatedLineItem[];
  priceSummary: PriceSummary;
  /** A gift card applied to the estimate (wire §5.1 lists it; the emulator applies none). */
  giftCard?: { id?: string; obfuscatedCode?: string; amount?: Price; appId?: string; externalId?: string };
  taxSummary?: {
    taxableAmount: Price;
    totalTax: Price;
    calculationDetails?: {
      rateType: RateType;
      manualRateReason?: 'GLOBAL_SETTING_TO_MANUAL' | 'REGION_SETTING_TO_MANUAL';
      autoTaxFallbackDetails?: { fallbackReason: 'AUTO_TAX_FAILED' | 'AUTO_TAX_DEACTIVATED' };
    };
  };
  shippingInfo?: {
    region?: { id: string; name: string };
    selectedCarrierServiceOption?: SelectedShippingOption;
    carrierServiceOptions: Array<{ carrierId: string; shippingOptions: ShippingOption[] }>;
  };
  appliedDiscounts: AppliedDiscount[];
  calculationErrors?: Record<string, unknown>;
  weightUnit: WeightUnit;
  currency: string;
  payNow: PriceSummary;
  payLater: PriceSummary;
  membershipOptions: {
    eligibleMemberships: Membership[];
    invalidMemberships: Array<{ membership: Membership; reason: string }>;
    /** Memberships the buyer already holds, checked against the cart (wire §5.1). */
    validatedExistingMemberships?: { memberships: Array<{ membership: Membership }> };
  };
  additionalFees: unknown[];
  violations: Violation[];
}

// Transformed fields (wire §5.1): the cart's own in cart-fields.ts.
const RES = { cart: CART_FIELDS };
const CUSTOM_ITEM = { ...ITEM, media: image };
const INPUTS = { lineItems: ITEM, customLineItems: CUSTOM_ITEM };
const MEMBERSHIP = { expirationDate: date };
const ADDRESSES = { shippingAddress: ADDRESS, billingAddress: ADDRESS };

/** The stores catalog app id, also here as `cart.STORES_APP_ID` (the same as the top-level export). */
export { STORES_APP_ID } from '../enums/commerce.ts';

/** GET the current cart. Fails with `OWNED_CART_NOT_FOUND` (an `ApplicationError`) when there is none. */
export const getCurrentCart = /* @__PURE__ */ op<[], Cart>({
  method: 'GET',
  path: '/ecom/v1/carts/current',
  res: RES,
  unwrap: 'cart',
});

const updateOp = /* @__PURE__ */ op<
  [options?: Omit<UpdateCurrentCartOptions, 'cartFieldmask'> & { cartFieldmask?: string }],
  Cart
>({
  method: 'PATCH',
  path: '/ecom/v1/carts/current',
  args: ['options:'],
  // Names only, no spread or member access: either may run a getter, so a bundler would keep this
  // declaration in bundles that never update the cart.
  req: {
    lineItems: ITEM,
    customLineItems: CUSTOM_ITEM,
    cartInfo: { lineItems: ITEM, contactInfo: { address: ADDRESS } },
    merchantDiscounts: { percentage: float },
  },
  res: RES,
  unwrap: 'cart',
});

/**
 * Updates the current cart: contact info, buyer note, shipping option (`cartInfo`, limited by
 * `cartFieldmask`), applies a coupon, adds line items. Coupon failures are `ApplicationError`s
 * with code `ERROR_COUPON_DOES_NOT_EXIST`, `ERROR_COUPON_EXPIRED` or `ERROR_COUPON_NOT_APPLICABLE`.
 */
export function updateCurrentCart(client: AnyClient, options?: UpdateCurrentCartOptions, call?: CallOptions) {
  const { cartFieldmask: mask, ...rest } = options ?? {};
  // The field mask travels as one comma-joined string (wire §2).
  // (a string, as the wire has it, is taken too: `join` on it threw a TypeError past `onError`)
  const fieldmask = Array.isArray(mask) ? mask.join(',') : mask;
  return updateOp(client, options && (mask ? { ...rest, cartFieldmask: fieldmask } : rest), call);
}

/** Deletes the current cart. */
export const deleteCurrentCart = /* @__PURE__ */ op<[], Record<string, never>>({
  method: 'DELETE',
  path: '/ecom/v1/carts/current',
});

/** Adds line items; the same catalog item again adds to its quantity. Creates the cart when needed. */
export const addToCurrentCart = /* @__PURE__ */ op<[options: AddToCurrentCartOptions], { cart: Cart }>({
  method: 'POST',
  path: '/ecom/v1/carts/current/add-to-cart',
  args: ['options:'],
  req: INPUTS,
  res: RES,
});

/** Removes line items by id. */
export const removeLineItemsFromCurrentCart = /* @__PURE__ */ op<[lineItemIds: string[]], { cart: Cart }>({
  method: 'POST',
  path: '/ecom/v1/carts/current/remove-line-items',
  args: ['lineItemIds'],
  res: RES,
});

/** Sets line-item quantities (`0` removes the line). */
export const updateCurrentCartLineItemQuantity = /* @__PURE__ */ op<
  [lineItems: Array<{ id: string; quantity: number }>],
  { cart: Cart }
>({
  method: 'POST',
  path: '/ecom/v1/carts/current/update-line-items-quantity',
  args: ['lineItems'],
  res: RES,
});

/** Removes the applied coupon. */
export const removeCouponFromCurrentCart = /* @__PURE__ */ op<[], { cart: Cart }>({
  method: 'POST',
  path: '/ecom/v1/carts/current/remove-coupon',
  res: RES,
});

/** Creates a checkout from the current cart; send the buyer there with a redirect session. */
export const createCheckoutFromCurrentCart = /* @__PURE__ */ op<
  [options?: CreateCheckoutOptions],
  { checkoutId: string }
>({
  method: 'POST',
  path: '/ecom/v1/carts/current/create-checkout',
  args: ['options:'],
  req: ADDRESSES,
});

/** Estimates subtotal, discounts, shipping, tax and total of the current cart. */
export const estimateCurrentCartTotals = /* @__PURE__ */ op<
  [options?: EstimateTotalsOptions],
  EstimateTotalsResponse
>({
  method: 'POST',
  path: '/ecom/v1/carts/current/estimate-totals',
  args: ['options:'],
  idempotent: true,
  req: ADDRESSES,
  res: {
    cart: CART_FIELDS,
    shippingInfo: {
      selectedCarrierServiceOption: LOGISTICS,
      carrierServiceOptions: { shippingOptions: LOGISTICS },
    },
    membershipOptions: {
      eligibleMemberships: MEMBERSHIP,
      invalidMemberships: { membership: MEMBERSHIP },
      validatedExistingMemberships: { memberships: { membership: MEMBERSHIP } },
    },
    appliedDiscounts: DISCOUNTS,
  },
});
