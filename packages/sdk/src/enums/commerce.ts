/**
 * The commerce enumerations of the product spec (point 3) as typed constants: each is an object
 * whose keys equal their values, and a type of the same name for its union.
 * @example
 * import { ItemAvailabilityStatus } from '@shopkit/sdk';
 * if (item.availability?.status === ItemAvailabilityStatus.PARTIALLY_AVAILABLE) …
 * @module
 */

type Enum<T extends string> = { readonly [K in T]: K };
const e = <T extends string>(...keys: T[]): Enum<T> =>
  Object.freeze(Object.fromEntries(keys.map((k) => [k, k]))) as Enum<T>;
type Of<T> = T[keyof T];

/** How a line item's description line is shown. */
export const DescriptionLineType = /* @__PURE__ */ e('UNRECOGNISED', 'PLAIN_TEXT', 'COLOR');
export type DescriptionLineType = Of<typeof DescriptionLineType>;

/** Whether a line item can be bought in the quantity asked for. */
export const ItemAvailabilityStatus = /* @__PURE__ */ e(
  'AVAILABLE',
  'NOT_FOUND',
  'NOT_AVAILABLE',
  'PARTIALLY_AVAILABLE',
);
export type ItemAvailabilityStatus = Of<typeof ItemAvailabilityStatus>;

/** The preset kind of a line item. */
export const ItemTypePreset = /* @__PURE__ */ e(
  'UNRECOGNISED',
  'PHYSICAL',
  'DIGITAL',
  'GIFT_CARD',
  'SERVICE',
);
export type ItemTypePreset = Of<typeof ItemTypePreset>;

/** How often a subscription line item renews. */
export const SubscriptionFrequency = /* @__PURE__ */ e('UNDEFINED', 'DAY', 'WEEK', 'MONTH', 'YEAR');
export type SubscriptionFrequency = Of<typeof SubscriptionFrequency>;

/** The kind of a digital file attached to a line item. */
export const FileType = /* @__PURE__ */ e(
  'UNSPECIFIED',
  'SECURE_PICTURE',
  'SECURE_VIDEO',
  'SECURE_DOCUMENT',
  'SECURE_MUSIC',
  'SECURE_ARCHIVE',
);
export type FileType = Of<typeof FileType>;

/** How a line item is paid for. */
export const PaymentOptionType = /* @__PURE__ */ e(
  'FULL_PAYMENT_ONLINE',
  'FULL_PAYMENT_OFFLINE',
  'MEMBERSHIP',
  'DEPOSIT_ONLINE',
  'MEMBERSHIP_OFFLINE',
);
export type PaymentOptionType = Of<typeof PaymentOptionType>;

/** Which address tax was calculated for. */
export const TaxableAddressType = /* @__PURE__ */ e(
  'UNKNOWN_TAXABLE_ADDRESS',
  'BUSINESS',
  'BILLING',
  'SHIPPING',
);
export type TaxableAddressType = Of<typeof TaxableAddressType>;

/** The unit of line-item weights. */
export const WeightUnit = /* @__PURE__ */ e('UNSPECIFIED_WEIGHT_UNIT', 'KG', 'LB');
export type WeightUnit = Of<typeof WeightUnit>;

/** The kind of a buyer's VAT id (Brazil). */
export const VatType = /* @__PURE__ */ e('UNSPECIFIED', 'CPF', 'CNPJ');
export type VatType = Of<typeof VatType>;

/** The level of a tax jurisdiction. */
export const JurisdictionType = /* @__PURE__ */ e(
  'UNDEFINED',
  'COUNTRY',
  'STATE',
  'COUNTY',
  'CITY',
  'SPECIAL',
);
export type JurisdictionType = Of<typeof JurisdictionType>;

/** How the tax rate was found. */
export const RateType = /* @__PURE__ */ e('NO_TAX_COLLECTED', 'MANUAL_RATE', 'AUTO_RATE', 'FALLBACK_RATE');
export type RateType = Of<typeof RateType>;

/** Why tax was calculated from manual rates. */
export const ManualCalculationReason = /* @__PURE__ */ e(
  'GLOBAL_SETTING_TO_MANUAL',
  'REGION_SETTING_TO_MANUAL',
);
export type ManualCalculationReason = Of<typeof ManualCalculationReason>;

/** Why tax fell back from automatic to manual rates. */
export const FallbackReason = /* @__PURE__ */ e('AUTO_TAX_FAILED', 'AUTO_TAX_DEACTIVATED');
export type FallbackReason = Of<typeof FallbackReason>;

/** How an order is picked up. */
export const PickupMethod = /* @__PURE__ */ e('UNKNOWN_METHOD', 'STORE_PICKUP', 'PICKUP_POINT');
export type PickupMethod = Of<typeof PickupMethod>;

/** Extra charges on a shipping option. */
export const ChargeType = /* @__PURE__ */ e('HANDLING_FEE', 'INSURANCE');
export type ChargeType = Of<typeof ChargeType>;

/** What a cart discount applies to. */
export const DiscountType = /* @__PURE__ */ e('GLOBAL', 'SPECIFIC_ITEMS', 'SHIPPING');
export type DiscountType = Of<typeof DiscountType>;

/** The rule a field violation broke (wire §3.1). */
export const RuleType = /* @__PURE__ */ e(
  'VALIDATION',
  'OTHER',
  'MAX',
  'MIN',
  'MAX_LENGTH',
  'MIN_LENGTH',
  'MAX_SIZE',
  'MIN_SIZE',
  'FORMAT',
  'DECIMAL_LTE',
  'DECIMAL_GTE',
  'DECIMAL_LT',
  'DECIMAL_GT',
  'DECIMAL_MAX_SCALE',
  'INVALID_ENUM_VALUE',
  'REQUIRED_FIELD',
  'FIELD_NOT_ALLOWED',
  'ONE_OF_ALIGNMENT',
  'EXACT_LENGTH',
  'EXACT_SIZE',
);
export type RuleType = Of<typeof RuleType>;

/** How serious a checkout violation is. */
export const Severity = /* @__PURE__ */ e('WARNING', 'ERROR');
export type Severity = Of<typeof Severity>;

/** What the buyer can do about a violation. */
export const SuggestedFix = /* @__PURE__ */ e('UNKNOWN_SUGGESTED_FIX', 'REMOVE_LINE_ITEM');
export type SuggestedFix = Of<typeof SuggestedFix>;

/**
 * Where a checkout comes from: the spec's channels, then those the platform's current-cart enum adds
 * (the agentic checkouts and the invoices platform).
 */
export const ChannelType = /* @__PURE__ */ e(
  'UNSPECIFIED',
  'WEB',
  'POS',
  'EBAY',
  'AMAZON',
  'OTHER_PLATFORM',
  'WIX_APP_STORE',
  'WIX_INVOICES',
  'BACKOFFICE_MERCHANT',
  'WISH',
  'CLASS_PASS',
  'GLOBAL_E',
  'FACEBOOK',
  'ETSY',
  'TIKTOK',
  'FAIRE_COM',
  'PAYPAL_AGENTIC_CHECKOUT',
  'STRIPE_AGENTIC_CHECKOUT',
  'WIX_INVOICES_PLATFORM',
  'UCP_AGENTIC_CHECKOUT',
);
export type ChannelType = Of<typeof ChannelType>;

/** Who a caller or buyer is. */
export const IdentityType = /* @__PURE__ */ e('UNKNOWN', 'ANONYMOUS_VISITOR', 'MEMBER', 'WIX_USER', 'APP');
export type IdentityType = Of<typeof IdentityType>;

/** The app id of the stores catalog: `catalogReference.appId` of every store product in a cart. */
export const STORES_APP_ID = '215238eb-22a5-4c36-9e7b-e7c08025e04e';
