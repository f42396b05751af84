/**
 * What a cart costs: coupons (the demo set), merchant discounts, shipping options with delivery
 * slots and store pickup, and tax from a small regional rate table. Everything in exact cents.
 * @module
 */
import { allocate, min, percentOf, rateFraction, rateMicros, sum, toCents } from './money.ts';

/** A coupon as stored (table `coupons`). */
export interface Coupon {
  id: string;
  code: string;
  name: string;
  kind: 'percentage' | 'fixedAmount' | 'freeShipping';
  /** Percent off (decimal string) for `percentage`. */
  percentage?: string;
  /** Amount off (decimal string) for `fixedAmount`. */
  amount?: string;
  /** The subtotal the cart must reach (decimal string). */
  minimumSubtotal?: string;
  /** ISO date after which the coupon no longer applies. */
  expiresAt?: string;
}

/** The demo coupons. */
export const DEMO_COUPONS: Omit<Coupon, 'id'>[] = [
  { code: 'SAVE10', name: '10% off everything', kind: 'percentage', percentage: '10' },
  { code: 'TAKE5', name: '$5 off', kind: 'fixedAmount', amount: '5.00' },
  { code: 'FREESHIP', name: 'Free shipping', kind: 'freeShipping' },
  {
    code: 'SPRING2020',
    name: '20% off (spring 2020)',
    kind: 'percentage',
    percentage: '20',
    expiresAt: '2020-06-01T00:00:00.000Z',
  },
  {
    code: 'BIG15',
    name: '15% off orders of $100 or more',
    kind: 'percentage',
    percentage: '15',
    minimumSubtotal: '100.00',
  },
];

/** Why a coupon does not apply to a cart, as the platform's error code; `null` when it applies. */
export function couponProblem(
  coupon: Coupon,
  cart: { subtotal: bigint; shippable: boolean; lines: number },
  now: Date,
): { code: string; description: string } | null {
  if (coupon.expiresAt && now >= new Date(coupon.expiresAt))
    return { code: 'ERROR_COUPON_EXPIRED', description: `The coupon ${coupon.code} has expired` };
  if (cart.lines === 0)
    return { code: 'ERROR_COUPON_NOT_APPLICABLE', description: 'A coupon needs a cart with items' };
  const least = coupon.minimumSubtotal ? (toCents(coupon.minimumSubtotal) ?? 0n) : 0n;
  if (cart.subtotal < least)
    return {
      code: 'ERROR_COUPON_NOT_APPLICABLE',
      description: `The coupon ${coupon.code} needs a subtotal of at least ${coupon.minimumSubtotal}`,
    };
  if (coupon.kind === 'freeShipping' && !cart.shippable)
    return {
      code: 'ERROR_COUPON_NOT_APPLICABLE',
      description: `The coupon ${coupon.code} is for shipping and nothing in the cart ships`,
    };
  return null;
}

/** A merchant discount as stored: an amount or a percentage, on the cart or on some lines. */
export interface MerchantDiscount {
  amount?: string;
  percentage?: number;
  lineItemIds?: string[];
}

/** A priced line: its id, total before discounts (cents) and whether it ships. */
export interface PricedLine {
  id: string;
  total: bigint;
  shippable: boolean;
}

export interface ItemDiscount {
  kind: 'coupon' | 'merchant';
  discountType: 'GLOBAL' | 'SPECIFIC_ITEMS';
  lineItemIds: string[];
  cents: bigint;
  merchant?: MerchantDiscount;
}

/**
 * Item discounts of a cart: the coupon (percentage or fixed amount) and each merchant discount,
 * in that order, never taking a line below zero. Returns the discounts and each line's share.
 */
export function itemDiscounts(lines: PricedLine[], coupon: Coupon | null, merchant: MerchantDiscount[]) {
  const left = new Map(lines.map((l) => [l.id, l.total]));
  const perLine = new Map(lines.map((l) => [l.id, 0n]));
  const out: ItemDiscount[] = [];
  const take = (ids: string[], wanted: (base: bigint) => bigint) => {
    // Each line once: a repeated id must not count the line's price twice towards the base.
    const targets = [...new Set(ids)].filter((id) => left.has(id));
    const base = sum(targets.map((id) => left.get(id)!));
    const asked = wanted(base);
    const cents = min(base, asked > 0n ? asked : 0n);
    const parts = allocate(
      cents,
      targets.map((id) => left.get(id)!),
    );
    targets.forEach((id, i) => {
      left.set(id, left.get(id)! - parts[i]!);
      perLine.set(id, perLine.get(id)! + parts[i]!);
    });
    return cents;
  };
  const all = lines.map((l) => l.id);
  if (coupon && coupon.kind !== 'freeShipping') {
    const cents = take(all, (base) =>
      coupon.kind === 'percentage'
        ? percentOf(base, rateMicros(coupon.percentage ?? '0') ?? 0)
        : (toCents(coupon.amount ?? '0') ?? 0n),
    );
    out.push({ kind: 'coupon', discountType: 'GLOBAL', lineItemIds: all, cents });
  }
  for (const m of merchant) {
    const ids = m.lineItemIds?.length ? m.lineItemIds : all;
    const cents = take(ids, (base) =>
      m.percentage !== undefined
        ? percentOf(base, rateMicros(m.percentage) ?? 0)
        : (toCents(m.amount ?? '0') ?? 0n),
    );
    out.push({
      kind: 'merchant',
      discountType: m.lineItemIds?.length ? 'SPECIFIC_ITEMS' : 'GLOBAL',
      lineItemIds: [...new Set(ids)].filter((id) => left.has(id)),
      cents,
      merchant: m,
    });
  }
  return { discounts: out, perLine };
}

/** The store's own address: pickup point and the taxable address when the buyer gave none. */
export const STORE_ADDRESS = {
  country: 'US',
  subdivision: 'US-NY',
  city: 'New York',
  postalCode: '10013',
  addressLine: '120 Hudson Street',
  formattedAddress: '120 Hudson Street, New York, NY 10013, US',
  geocode: { latitude: 40.7198, longitude: -74.0089 },
};

/**
 * The ISO 3166-1 alpha-2 country codes (the 249 assigned, and `XK` for Kosovo, which carriers and
 * the platform take). Any two letters were an address: `UK` (for GB) was taxed and shipped as a
 * country of its own, without the United Kingdom's VAT.
 */
const COUNTRIES = new Set(
  `
  AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS
  BT BV BW BY BZ CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE
  EG EH ER ES ET FI FJ FK FM FO FR GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM
  HN HR HT HU ID IE IL IM IN IO IQ IR IS IT JE JM JO JP KE KG KH KI KM KN KP KR KW KY KZ LA LB LC
  LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO MP MQ MR MS MT MU MV MW MX MY MZ NA
  NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM PN PR PS PT PW PY QA RE RO RS RU RW
  SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ TC TD TF TG TH TJ TK TL TM TN TO
  TR TT TV TW TZ UA UG UM US UY UZ VA VC VE VG VI VN VU WF WS XK YE YT ZA ZM ZW`
    .trim()
    .split(/\s+/),
);

/** Whether `code` (ASCII letters, any case) is an ISO 3166-1 alpha-2 country code. */
export const isCountryCode = (code: string) =>
  /^[A-Za-z]{2}$/.test(code) && COUNTRIES.has(code.toUpperCase());

export interface RestAddress {
  country?: string;
  subdivision?: string;
  city?: string;
  postalCode?: string;
  addressLine?: string;
  addressLine2?: string;
  formattedAddress?: string;
  geocode?: { latitude?: number; longitude?: number };
  streetAddress?: { name?: string; number?: string; apt?: string; formattedAddressLine?: string };
}

export interface ShippingChoice {
  carrierId: string;
  code: string;
  title: string;
  /** The option's own price and extra charges, in cents. */
  price: bigint;
  charges: Array<{ type: 'HANDLING_FEE' | 'INSURANCE'; cents: bigint; details: string }>;
  deliveryTime: string;
  /** Days from now of the delivery window. */
  days: [number, number];
  pickup?: boolean;
}

export const DELIVERY_CARRIER = 'c6f1d5a4-5e57-4c1e-9f0e-5ed1c0a3a001';
export const PICKUP_CARRIER = 'c6f1d5a4-5e57-4c1e-9f0e-5ed1c0a3a002';

/** The shipping options for an address (domestic when the country is the store's, or not given). */
export function shippingChoices(address: RestAddress | undefined): ShippingChoice[] {
  const domestic = !address?.country || address.country === STORE_ADDRESS.country;
  return [
    {
      carrierId: DELIVERY_CARRIER,
      code: 'standard',
      title: 'Standard delivery',
      price: domestic ? 500n : 2000n,
      charges: [],
      deliveryTime: domestic ? '3-5 business days' : '7-12 business days',
      days: domestic ? [3, 5] : [7, 12],
    },
    {
      carrierId: DELIVERY_CARRIER,
      code: 'express',
      title: 'Express delivery',
      price: domestic ? 1500n : 4500n,
      charges: [{ type: 'HANDLING_FEE', cents: 200n, details: 'Handling of an express parcel' }],
      deliveryTime: domestic ? '1-2 business days' : '2-4 business days',
      days: domestic ? [1, 2] : [2, 4],
    },
    {
      carrierId: PICKUP_CARRIER,
      code: 'store-pickup',
      title: 'Pick up in store',
      price: 0n,
      charges: [],
      deliveryTime: 'Ready the next day',
      days: [1, 1],
      pickup: true,
    },
  ];
}

export interface TaxRule {
  country: string;
  /** ISO 3166-2 code without the country, e.g. `CA` for California. */
  subdivision?: string;
  name: string;
  rate: string;
  jurisdictionType: 'COUNTRY' | 'STATE';
  /** Whether shipping is taxed too. */
  shipping: boolean;
}

/** The emulator's manual tax rates. Anything else collects no tax. */
export const TAX_RULES: TaxRule[] = [
  {
    country: 'US',
    subdivision: 'CA',
    name: 'California',
    rate: '7.25',
    jurisdictionType: 'STATE',
    shipping: false,
  },
  {
    country: 'US',
    subdivision: 'NY',
    name: 'New York',
    rate: '8.875',
    jurisdictionType: 'STATE',
    shipping: true,
  },
  {
    country: 'US',
    subdivision: 'WA',
    name: 'Washington',
    rate: '6.5',
    jurisdictionType: 'STATE',
    shipping: true,
  },
  {
    country: 'CA',
    subdivision: 'ON',
    name: 'Ontario HST',
    rate: '13',
    jurisdictionType: 'STATE',
    shipping: true,
  },
  { country: 'GB', name: 'United Kingdom VAT', rate: '20', jurisdictionType: 'COUNTRY', shipping: true },
  { country: 'DE', name: 'Germany VAT', rate: '19', jurisdictionType: 'COUNTRY', shipping: true },
  { country: 'FR', name: 'France VAT', rate: '20', jurisdictionType: 'COUNTRY', shipping: true },
  { country: 'IL', name: 'Israel VAT', rate: '18', jurisdictionType: 'COUNTRY', shipping: true },
];

/** The tax rule for an address: its subdivision's, else its country's, else none. */
export function taxRule(address: RestAddress | undefined): TaxRule | undefined {
  if (!address?.country) return undefined;
  const country = address.country.toUpperCase();
  const sub = address.subdivision?.toUpperCase().replace(`${country}-`, '');
  return (
    TAX_RULES.find((r) => r.country === country && r.subdivision && r.subdivision === sub) ??
    TAX_RULES.find((r) => r.country === country && !r.subdivision)
  );
}

/** Tax of an amount under a rule, exact, with the rate as a fraction string (`'0.08875'`). */
export function taxOf(cents: bigint, rule: TaxRule | undefined) {
  if (!rule) return { tax: 0n, rate: '0' };
  const micros = rateMicros(rule.rate) ?? 0;
  return { tax: percentOf(cents, micros), rate: rateFraction(micros) };
}
