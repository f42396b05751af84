/**
 * The cart as the platform shows it: line items resolved against the catalog (name, price, image,
 * url, description lines, physical properties, availability), applied discounts, and the totals
 * estimate (shipping, tax, violations), in the wire shape of §5.1.
 * @module
 */
import type { Emulator } from '../../context.ts';
import type { Sql } from '../../db/index.ts';
import { invalid } from '../../http/errors.ts';
import { lookupCatalogItem } from '../catalog/lookup.ts';
import { allocate, CURRENCY, price, sum, toCents } from './money.ts';
import {
  type Coupon,
  couponProblem,
  itemDiscounts,
  type RestAddress,
  type ShippingChoice,
  STORE_ADDRESS,
  shippingChoices,
  taxOf,
  taxRule,
} from './pricing.ts';
import type { CartDoc, CartRow, StoredLine } from './store.ts';

/** A line as priced: the wire line item plus what totals need. */
export interface ResolvedLine {
  id: string;
  wire: Record<string, any>;
  /** The unit price, in cents. */
  unit: bigint;
  quantity: number;
  /** Counts towards the subtotal (the item still exists). */
  priced: boolean;
  shippable: boolean;
  status: 'AVAILABLE' | 'NOT_FOUND' | 'NOT_AVAILABLE' | 'PARTIALLY_AVAILABLE';
  name: string;
}

const tr = (s: string) => ({ original: s, translated: s });

/** The product page of a slug, served by the emulator. */
export const productPath = (slug: string) => `/product-page/${encodeURIComponent(slug)}`;

/**
 * A line's custom text (`catalogReference.options.customTextFields`, title → text), the same
 * whatever the key order; an empty text is no text.
 */
export function customTextOf(options: Record<string, unknown> | undefined): Array<[string, string]> {
  const fields = options?.customTextFields;
  if (!fields || typeof fields !== 'object') return [];
  return Object.entries(fields as Record<string, string>)
    .filter(([, text]) => text !== '')
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/**
 * Resolves a line. `taken`: the units of each variant that earlier lines of the cart hold (one
 * variant can be on several lines, with different custom text): they share its stock, in order.
 */
async function resolveLine(
  emu: Emulator,
  sql: Sql,
  l: StoredLine,
  currency: string,
  taken: Map<string, number>,
): Promise<ResolvedLine> {
  if (l.custom) {
    const c = l.custom;
    const unit = toCents(c.price) ?? 0n;
    const shippable = c.physicalProperties?.shippable ?? c.itemType?.preset === 'PHYSICAL';
    return {
      id: l.id,
      unit,
      quantity: l.quantity,
      priced: true,
      shippable,
      status: 'AVAILABLE',
      name: c.productName.original,
      wire: {
        id: l.id,
        quantity: l.quantity,
        ...(c.catalogReference ? { catalogReference: c.catalogReference } : {}),
        productName: { translated: c.productName.original, ...c.productName },
        ...(c.url ? { url: c.url } : {}),
        price: price(unit, currency),
        fullPrice: price(unit, currency),
        priceBeforeDiscounts: price(unit, currency),
        lineItemPrice: price(unit * BigInt(l.quantity), currency),
        descriptionLines: c.descriptionLines ?? [],
        ...(c.media ? { image: c.media } : {}),
        availability: { status: 'AVAILABLE' },
        physicalProperties: { ...c.physicalProperties, shippable },
        itemType: c.itemType ?? { preset: 'UNRECOGNISED' },
        paymentOption: 'FULL_PAYMENT_ONLINE',
        customLineItem: true,
        priceUndetermined: false,
        fixedQuantity: false,
      },
    };
  }
  const ref = l.catalog!;
  const item = await lookupCatalogItem(emu, sql, ref.catalogItemId, { variantId: ref.variantId });
  const catalogReference = {
    appId: ref.appId,
    catalogItemId: ref.catalogItemId,
    options: ref.options ?? { variantId: ref.variantId },
  };
  if (!item?.visible) {
    const unit = toCents(ref.price) ?? 0n;
    return {
      id: l.id,
      unit,
      quantity: l.quantity,
      priced: false,
      shippable: false,
      status: 'NOT_FOUND',
      name: ref.name,
      wire: {
        id: l.id,
        quantity: l.quantity,
        catalogReference,
        productName: tr(ref.name),
        price: price(unit, currency),
        fullPrice: price(unit, currency),
        priceBeforeDiscounts: price(unit, currency),
        lineItemPrice: price(0n, currency),
        descriptionLines: [],
        availability: { status: 'NOT_FOUND', quantityAvailable: 0 },
        itemType: { preset: 'UNRECOGNISED' },
        paymentOption: 'FULL_PAYMENT_ONLINE',
        customLineItem: false,
      },
    };
  }
  const unit = toCents(item.price) ?? 0n;
  const full = toCents(item.fullPrice) ?? unit;
  const variantKey = `${ref.catalogItemId}|${ref.variantId}`;
  const before = taken.get(variantKey) ?? 0;
  taken.set(variantKey, before + l.quantity);
  const qa = item.quantityAvailable === null ? null : Math.max(0, item.quantityAvailable - before);
  const status: ResolvedLine['status'] = !item.inStock
    ? 'NOT_AVAILABLE'
    : qa === null || l.quantity <= qa
      ? 'AVAILABLE'
      : qa === 0
        ? 'NOT_AVAILABLE'
        : 'PARTIALLY_AVAILABLE';
  const shippable = item.productType === 'physical';
  const url = productPath(item.slug);
  return {
    id: l.id,
    unit,
    quantity: l.quantity,
    priced: true,
    shippable,
    status,
    name: item.name,
    wire: {
      id: l.id,
      quantity: l.quantity,
      catalogReference,
      rootCatalogItemId: item.productId,
      productName: tr(item.name),
      url: { relativePath: url, url: emu.absoluteUrl(url) },
      price: price(unit, currency),
      fullPrice: price(full, currency),
      priceBeforeDiscounts: price(unit, currency),
      lineItemPrice: price(unit * BigInt(l.quantity), currency),
      descriptionLines: [
        ...item.options.map((o) =>
          o.colorCode
            ? { name: tr(o.name), colorInfo: { ...tr(o.choice), code: o.colorCode }, lineType: 'COLOR' }
            : { name: tr(o.name), plainText: tr(o.choice), lineType: 'PLAIN_TEXT' },
        ),
        ...customTextOf(ref.options).map(([title, value]) => ({
          name: tr(title),
          plainText: tr(value),
          lineType: 'PLAIN_TEXT',
        })),
      ],
      ...(item.image ? { image: item.image } : {}),
      availability: {
        status,
        ...(status === 'NOT_AVAILABLE'
          ? { quantityAvailable: 0 }
          : qa === null
            ? {}
            : { quantityAvailable: qa }),
      },
      physicalProperties: {
        ...(item.weight !== undefined ? { weight: item.weight } : {}),
        ...(item.sku ? { sku: item.sku } : {}),
        shippable,
      },
      itemType: { preset: shippable ? 'PHYSICAL' : 'DIGITAL' },
      paymentOption: 'FULL_PAYMENT_ONLINE',
      customLineItem: false,
      priceUndetermined: false,
      fixedQuantity: false,
    },
  };
}

/** Resolves every line of a cart document against the catalog. */
export async function resolveLines(emu: Emulator, sql: Sql, doc: CartDoc) {
  const out: ResolvedLine[] = [];
  const taken = new Map<string, number>();
  for (const l of doc.lineItems) out.push(await resolveLine(emu, sql, l, doc.currency, taken));
  return out;
}

/** Reads a coupon by code (codes are upper case). */
export async function findCoupon(sql: Sql, code: string): Promise<Coupon | null> {
  const rows = await sql.query<{ doc: Coupon }>('SELECT doc FROM coupons WHERE code = $1', [
    code.trim().toUpperCase(),
  ]);
  return rows[0]?.doc ?? null;
}

export interface CartState {
  row: CartRow;
  lines: ResolvedLine[];
  coupon: Coupon | null;
}

/** Loads what rendering and totals need: resolved lines and the applied coupon. */
export async function cartState(emu: Emulator, sql: Sql, row: CartRow): Promise<CartState> {
  const lines = await resolveLines(emu, sql, row.doc);
  const coupon = row.doc.couponCode ? await findCoupon(sql, row.doc.couponCode) : null;
  return { row, lines, coupon };
}

/** A line's total before discounts, in cents (none when it is not priced). */
const lineTotal = (l: ResolvedLine) => (l.priced ? l.unit * BigInt(l.quantity) : 0n);

/** The sum of the priced lines, in cents. */
export const subtotalOf = (lines: ResolvedLine[]) => sum(lines.map(lineTotal));

/** The coupon when it still applies to the lines, and the problem when not. */
function usableCoupon(coupon: Coupon | null, lines: ResolvedLine[], now: Date) {
  if (!coupon) return { coupon: null, problem: null };
  const problem = couponProblem(
    coupon,
    {
      subtotal: subtotalOf(lines),
      shippable: lines.some((l) => l.priced && l.shippable),
      lines: lines.filter((l) => l.priced).length,
    },
    now,
  );
  return { coupon: problem ? null : coupon, problem };
}

/** Validates a coupon for a cart, throwing the platform's coupon error when it does not apply. */
export function checkCoupon(coupon: Coupon | null, code: string, lines: ResolvedLine[], now: Date) {
  if (!coupon)
    return {
      code: 'ERROR_COUPON_DOES_NOT_EXIST',
      description: `There is no coupon with the code ${code}`,
    };
  return usableCoupon(coupon, lines, now).problem;
}

function discountsOf(state: CartState, now: Date) {
  const { coupon, problem } = usableCoupon(state.coupon, state.lines, now);
  const priced = state.lines
    .filter((l) => l.priced)
    .map((l) => ({ id: l.id, total: lineTotal(l), shippable: l.shippable }));
  return { coupon, problem, ...itemDiscounts(priced, coupon, state.row.doc.merchantDiscounts ?? []) };
}

function appliedDiscounts(d: ReturnType<typeof discountsOf>, currency: string, shippingDiscount?: bigint) {
  const out: Record<string, unknown>[] = [];
  for (const x of d.discounts) {
    if (x.kind === 'coupon')
      out.push({
        discountType: x.discountType,
        lineItemIds: x.lineItemIds,
        coupon: {
          id: d.coupon!.id,
          code: d.coupon!.code,
          name: d.coupon!.name,
          amount: price(x.cents, currency),
        },
      });
    else
      out.push({
        discountType: x.discountType,
        lineItemIds: x.lineItemIds,
        merchantDiscount: {
          amount: price(x.cents, currency),
          ...(x.merchant?.percentage !== undefined ? { percentage: x.merchant.percentage } : {}),
        },
      });
  }
  if (d.coupon?.kind === 'freeShipping')
    out.push({
      discountType: 'SHIPPING',
      lineItemIds: [],
      coupon: {
        id: d.coupon.id,
        code: d.coupon.code,
        name: d.coupon.name,
        amount: price(shippingDiscount ?? 0n, currency),
      },
    });
  return out;
}

/** The cart in its wire shape. */
export function renderCart(state: CartState, now: Date): Record<string, any> {
  const { row } = state;
  const doc = row.doc;
  const currency = doc.currency ?? CURRENCY;
  const d = discountsOf(state, now);
  const subtotal = subtotalOf(state.lines);
  const discount = sum(d.discounts.map((x) => x.cents));
  return {
    id: row.id,
    lineItems: state.lines.map((l) => l.wire),
    ...(doc.buyerNote !== undefined ? { buyerNote: doc.buyerNote } : {}),
    buyerInfo: row.owner_kind === 'member' ? { memberId: row.owner_id } : { visitorId: row.owner_id },
    currency,
    conversionCurrency: currency,
    paymentCurrency: currency,
    buyerLanguage: 'en',
    siteLanguage: 'en',
    taxIncludedInPrices: false,
    weightUnit: 'KG',
    subtotal: price(subtotal, currency),
    subtotalAfterDiscounts: price(subtotal - discount, currency),
    ...(doc.checkoutId ? { checkoutId: doc.checkoutId } : {}),
    appliedDiscounts: appliedDiscounts(d, currency),
    ...(doc.contactInfo ? { contactInfo: doc.contactInfo } : {}),
    ...(doc.selectedShippingOption ? { selectedShippingOption: doc.selectedShippingOption } : {}),
    ...(doc.businessLocationId ? { businessLocationId: doc.businessLocationId } : {}),
    createdDate: new Date(row.created_at).toISOString(),
    updatedDate: new Date(row.updated_at).toISOString(),
    revision: String(row.revision),
  };
}

export interface EstimateInput {
  selectedShippingOption?: { code: string; carrierId?: string };
  shippingAddress?: RestAddress;
  billingAddress?: RestAddress;
  selectedMemberships?: { memberships: Array<{ id: string; appId: string; lineItemIds?: string[] }> };
  calculateTax?: boolean;
  calculateShipping?: boolean;
}

const DAY = 86_400_000;

function slot(now: Date, [a, b]: [number, number]) {
  const start = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  return {
    from: new Date(start + a * DAY + 9 * 3_600_000).toISOString(),
    to: new Date(start + b * DAY + 18 * 3_600_000).toISOString(),
  };
}

function logistics(c: ShippingChoice, now: Date) {
  return {
    deliveryTime: c.deliveryTime,
    deliveryTimeSlot: slot(now, c.days),
    ...(c.pickup
      ? {
          instructions: 'Bring your order number to the shop counter.',
          pickupDetails: { address: STORE_ADDRESS, businessLocation: true, pickupMethod: 'STORE_PICKUP' },
        }
      : {}),
  };
}

/**
 * Estimates the totals of a cart: subtotal, item and shipping discounts, shipping (carrier options
 * with delivery slots, and store pickup), tax per line and on shipping, and the total. Throws a
 * field violation when `selectedShippingOption` names no option.
 */
export function estimate(state: CartState, input: EstimateInput, now: Date) {
  const doc = state.row.doc;
  const currency = doc.currency ?? CURRENCY;
  const p = (cents: bigint) => price(cents, currency);
  const lines = state.lines;
  const d = discountsOf(state, now);
  const subtotal = subtotalOf(lines);
  const itemDiscount = sum(d.discounts.map((x) => x.cents));

  // Shipping.
  const shipTo = input.shippingAddress ?? doc.contactInfo?.address;
  const ships = lines.some((l) => l.priced && l.shippable);
  const choices = input.calculateShipping !== false && ships ? shippingChoices(shipTo) : [];
  const wanted = input.selectedShippingOption ?? doc.selectedShippingOption;
  const matches = (c: ShippingChoice) =>
    !!wanted && c.code === wanted.code && (!wanted.carrierId || wanted.carrierId === c.carrierId);
  let chosen = choices.find(matches);
  if (!chosen && input.selectedShippingOption && choices.length) {
    // An option of that code under another carrier: the carrier is at fault, not the code (which
    // the list of codes named as available).
    const other = choices.find((c) => c.code === input.selectedShippingOption!.code);
    throw invalid([
      {
        field: `selectedShippingOption.${other ? 'carrierId' : 'code'}`,
        description: other
          ? `is not the carrier of the shipping option ${other.code}; its carrier is ${other.carrierId}`
          : `is not an available shipping option; choose one of ${choices.map((c) => c.code).join(', ')}`,
        violatedRule: 'VALIDATION',
      },
    ]);
  }
  chosen ??= choices[0];
  const shipping = chosen ? chosen.price + sum(chosen.charges.map((c) => c.cents)) : 0n;
  const shippingDiscount = d.coupon?.kind === 'freeShipping' ? shipping : 0n;

  // Tax: where the goods are handed over, the store's address for a pickup there (a buyer abroad
  // collecting in New York pays New York's tax, not their country's).
  const [taxAddress, addressType] = chosen?.pickup
    ? [STORE_ADDRESS, 'BUSINESS']
    : input.shippingAddress
      ? [input.shippingAddress, 'SHIPPING']
      : input.billingAddress
        ? [input.billingAddress, 'BILLING']
        : doc.contactInfo?.address?.country
          ? [doc.contactInfo.address, 'SHIPPING']
          : [STORE_ADDRESS, 'BUSINESS'];
  const rule = input.calculateTax === false ? undefined : taxRule(taxAddress);
  /** Tax on `net`; `share`, when given, is its part of the tax of a larger amount (so parts add up). */
  const taxDetails = (net: bigint, taxed: boolean, share?: bigint) => {
    const t = taxed ? taxOf(net, rule) : { tax: 0n, rate: '0' };
    const tax = taxed ? (share ?? t.tax) : 0n;
    const taxable = taxed ? net : 0n;
    return {
      cents: tax,
      taxable,
      wire: {
        taxableAmount: p(taxable),
        taxRate: t.rate,
        totalTax: p(tax),
        ...(rule && taxed
          ? {
              rateBreakdown: [
                { name: rule.name, rate: t.rate, tax: p(tax), jurisdictionType: rule.jurisdictionType },
              ],
            }
          : {}),
      },
    };
  };
  const calculatedLineItems = lines.map((l) => {
    const total = lineTotal(l);
    const disc = d.perLine.get(l.id) ?? 0n;
    const tax = taxDetails(total - disc, !!rule && l.priced);
    return {
      tax: tax.cents,
      taxable: tax.taxable,
      wire: {
        lineItemId: l.id,
        pricesBreakdown: {
          totalPriceAfterTax: p(total - disc + tax.cents),
          totalPriceBeforeTax: p(total - disc),
          taxDetails: tax.wire,
          totalDiscount: p(disc),
          price: l.wire.price,
          priceBeforeDiscounts: l.wire.priceBeforeDiscounts,
          lineItemPrice: p(total),
          fullPrice: l.wire.fullPrice,
        },
        paymentOption: 'FULL_PAYMENT_ONLINE',
        taxableAddress: { addressType },
      },
    };
  });
  const shippingTaxed = !!rule?.shipping && shipping > 0n;
  const shippingTax = taxDetails(shipping - shippingDiscount, shippingTaxed);
  const shippingCost = (cents: bigint, discount: bigint, tax: ReturnType<typeof taxDetails>) => ({
    totalPriceAfterTax: p(cents - discount + tax.cents),
    totalPriceBeforeTax: p(cents - discount),
    taxDetails: tax.wire,
    totalDiscount: p(discount),
    price: p(cents),
  });
  /** The chosen option's charges, each with its share of the shipping's discount and tax. */
  const chargeCosts = (c: ShippingChoice) => {
    const parts = [c.price, ...c.charges.map((x) => x.cents)];
    const discounts = allocate(shippingDiscount, parts);
    const nets = parts.map((x, i) => x - discounts[i]!);
    const taxes = allocate(shippingTax.cents, nets);
    return c.charges.map((x, i) => ({
      type: x.type,
      details: x.details,
      cost: shippingCost(x.cents, discounts[i + 1]!, taxDetails(nets[i + 1]!, shippingTaxed, taxes[i + 1])),
    }));
  };
  const tax = sum(calculatedLineItems.map((c) => c.tax)) + shippingTax.cents;
  const discount = itemDiscount + shippingDiscount;
  const total = subtotal - discount + shipping + tax;
  const summary = {
    subtotal: p(subtotal),
    shipping: p(shipping),
    tax: p(tax),
    discount: p(discount),
    total: p(total),
    additionalFees: p(0n),
  };
  const zero = p(0n);
  const option = (c: ShippingChoice) => ({
    code: c.code,
    title: c.title,
    logistics: logistics(c, now),
    cost: {
      price: p(c.price),
      otherCharges: c.charges.map((x) => ({ type: x.type, price: p(x.cents), details: x.details })),
    },
  });
  const carriers = [...new Set(choices.map((c) => c.carrierId))].map((carrierId) => ({
    carrierId,
    shippingOptions: choices.filter((c) => c.carrierId === carrierId).map(option),
  }));
  const calculationErrors: Record<string, unknown> = {};
  if (d.problem)
    calculationErrors.couponCalculationError = {
      applicationError: { code: d.problem.code, description: d.problem.description },
    };
  const violations = lines
    .filter((l) => l.status !== 'AVAILABLE')
    .map((l) => ({
      severity: 'ERROR',
      target: {
        lineItem: {
          id: l.id,
          // Where the page shows it (the platform's only place), not the product's name.
          name: 'LINE_ITEM_DEFAULT' as const,
          suggestedFix:
            l.status === 'PARTIALLY_AVAILABLE' ? 'UNKNOWN_SUGGESTED_FIX' : ('REMOVE_LINE_ITEM' as const),
        },
      },
      description:
        l.status === 'NOT_FOUND'
          ? `${l.name} is no longer in the store`
          : l.status === 'NOT_AVAILABLE'
            ? `${l.name} is out of stock`
            : `Only ${l.wire.availability.quantityAvailable} of ${l.name} are in stock; the cart has ${l.quantity}`,
    }));
  const memberships = input.selectedMemberships?.memberships ?? [];
  const wire = {
    cart: renderCart(state, now),
    calculatedLineItems: calculatedLineItems.map((c) => c.wire),
    priceSummary: summary,
    taxSummary: {
      taxableAmount: p(sum(calculatedLineItems.map((c) => c.taxable)) + shippingTax.taxable),
      totalTax: p(tax),
      calculationDetails: rule
        ? { rateType: 'MANUAL_RATE', manualRateReason: 'GLOBAL_SETTING_TO_MANUAL' }
        : { rateType: 'NO_TAX_COLLECTED' },
    },
    shippingInfo: {
      ...(shipTo?.country ? { region: { id: shipTo.country, name: shipTo.country } } : {}),
      ...(chosen
        ? {
            selectedCarrierServiceOption: {
              carrierId: chosen.carrierId,
              code: chosen.code,
              title: chosen.title,
              logistics: logistics(chosen, now),
              cost: shippingCost(shipping, shippingDiscount, shippingTax),
              otherCharges: chargeCosts(chosen),
              requestedShippingOption: matches(chosen),
            },
          }
        : {}),
      carrierServiceOptions: carriers,
    },
    appliedDiscounts: appliedDiscounts(d, currency, shippingDiscount),
    calculationErrors,
    weightUnit: 'KG',
    currency,
    payNow: summary,
    payLater: {
      subtotal: zero,
      shipping: zero,
      tax: zero,
      discount: zero,
      total: zero,
      additionalFees: zero,
    },
    membershipOptions: {
      eligibleMemberships: [],
      invalidMemberships: memberships.map((m) => ({
        membership: { id: m.id, appId: m.appId, lineItemIds: m.lineItemIds ?? [] },
        reason: 'The buyer holds no such membership in the emulator',
      })),
      validatedExistingMemberships: { memberships: [] },
    },
    additionalFees: [],
    violations,
  };
  return { wire, chosen, addressType };
}
