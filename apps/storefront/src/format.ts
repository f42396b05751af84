/** `1 product`, `2 products`: a count with its noun (`many` for irregular plurals). */
export const count = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** A list of names, the first `max` and how many more: `a, b, c and 2 more`. */
export const few = (items: readonly string[], max = 3) =>
  items.length > max ? `${items.slice(0, max).join(', ')} and ${items.length - max} more` : items.join(', ');

/** Store-currency formatting for amounts the platform gives as numbers or decimal strings. */
export function money(amount: number | string | undefined, currency = 'USD') {
  const n = typeof amount === 'string' ? Number(amount) : (amount ?? 0);
  return new Intl.NumberFormat('en-US', { style: 'currency', currency }).format(n);
}

/**
 * A platform sentence with its amounts written as the page writes amounts: `at least 100.00` is
 * `at least $100.00`.
 */
export const amountsAsMoney = (text: string, currency?: string) =>
  text.replace(/(?<![\d.,$])\d+\.\d{2}(?!\.?\d)/g, (n) => money(n, currency));

/** A platform amount (a decimal string) in whole cents. */
export const cents = (amount: string | undefined) => Math.round(Number(amount ?? 0) * 100);

/**
 * What a shipping option offered costs in all, in cents: its price and its charges (handling,
 * insurance), which the options list apart (express: 15.00 and a 2.00 handling fee, charged 17.00).
 */
export const optionCents = (cost: {
  price: { amount: string };
  otherCharges?: { price: { amount: string } }[];
}) => cents(cost.price.amount) + (cost.otherCharges ?? []).reduce((t, c) => t + cents(c.price.amount), 0);

/** What the totals need of an estimate: its discount, and the chosen shipping option's own. */
export interface DiscountedEstimate {
  priceSummary?: { discount: { amount: string } };
  shippingInfo?: { selectedCarrierServiceOption?: { cost?: { totalDiscount?: { amount: string } } } };
}

/**
 * An estimate's discount in its two parts, in cents: the shipping's (a free-shipping coupon), shown on
 * the shipping line, and the items', shown as the discount (the platform's `discount` counts both).
 */
export function discountParts(est: DiscountedEstimate | null | undefined) {
  const shipping = cents(est?.shippingInfo?.selectedCarrierServiceOption?.cost?.totalDiscount?.amount);
  return { shipping, items: cents(est?.priceSummary?.discount.amount) - shipping };
}

/** What a listing shows of a product's price: the lowest (its cheapest variant's), and that after the product's discount. */
export interface ShownPrice {
  /** Several prices among the variants: "From". */
  from: boolean;
  price: number;
  /** Set when the discount lowers it. */
  sale?: number;
}

/**
 * The price a product card shows. With variants at several prices it is the cheapest variant's
 * (`priceRange.minValue`), not the product's own, which a cheaper variant undercuts; the product's
 * discount (an amount, or a percentage) applies to it as it does to every variant.
 */
export function shownPrice(product: {
  price?: { price?: number; discountedPrice?: number };
  priceRange?: { minValue?: number; maxValue?: number };
  discount?: { type?: string; value?: number };
}): ShownPrice {
  const own = product.price?.price ?? 0;
  const { minValue, maxValue } = product.priceRange ?? {};
  const from = minValue !== undefined && maxValue !== undefined && minValue !== maxValue;
  const price = from ? minValue : own;
  const off = product.discount?.value ?? 0;
  const type = product.discount?.type;
  const sale = !from
    ? product.price?.discountedPrice
    : type === 'AMOUNT'
      ? Math.max(0, price - off)
      : type === 'PERCENT'
        ? Math.round(price * (100 - off)) / 100
        : undefined;
  return sale !== undefined && sale < price ? { from, price, sale } : { from, price };
}
