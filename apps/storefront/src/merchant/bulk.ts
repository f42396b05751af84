/**
 * Bulk price, cost and weight changes computed as the platform computes them: whole units (cents,
 * grams), rates with four decimals, rounding half away from zero. A row's preview is the value the
 * platform will store, the reason it will refuse, or why the product is skipped. A change is sent in
 * calls of at most `BULK_MAX` products whose answers are joined into one, and its failures are
 * grouped by reason for the merchant.
 * @module
 */
import { type BulkAdjust, type BulkResult, type BulkSet, isNetworkError, type Product } from '@shopkit/sdk';
import { humanMessage, isRefusal } from '../errors.ts';
import { few, money } from '../format.ts';
import { platformWords, refusedAt, variantName } from './draft.ts';

export type Property = 'price' | 'cost' | 'weight';
export type Mode = 'set' | 'amount' | 'percentage';
export interface Change {
  prop: Property;
  mode: Mode;
  /** The new value, the amount to add, or the percentage. */
  value: number;
  /** Percentages only: round the result to whole dollars or kilograms. */
  round: boolean;
}

/** Decimal places the platform keeps: cents for money, grams for weights in kg. */
export const PLACES: Record<Property, number> = { price: 2, cost: 2, weight: 3 };
/** Decimal places of a percentage. */
export const RATE_PLACES = 4;
/** Most products one bulk call takes. */
const BULK_MAX = 100;

/** The largest price, cost or weight the platform stores (`VALUE_TOO_LARGE` above it). */
const MAX_VALUE = 999_999_999.99;
const MAX_WORDS = '999,999,999.99';

const units = (n: number, places: number) => Math.round(n * 10 ** places);
const HUNDRED = BigInt(100 * 10 ** RATE_PLACES);

/** `a * num / den`, rounded half away from zero, exactly. */
function mulDivRound(a: bigint, num: bigint, den: bigint) {
  const p = a * num;
  const q = ((p < 0n ? -p : p) * 2n + den) / (den * 2n);
  return p < 0n ? -q : q;
}

/**
 * The value the platform stores after the change (negative when it will refuse it), or `undefined`
 * when an adjustment has no value to start from: the platform leaves a missing cost or weight as it
 * is when adjusting. Setting needs no earlier value.
 * @example changed(0.32, { prop: 'weight', mode: 'percentage', value: 10, round: false }) // 0.352
 */
export function changed(value: number | undefined, c: Change): number | undefined {
  const places = PLACES[c.prop];
  if (c.mode === 'set') return units(c.value, places) / 10 ** places;
  if (value === undefined) return undefined;
  const v = units(value, places);
  let out: number;
  if (c.mode === 'amount') out = v + units(c.value, places);
  else {
    const step = c.round ? BigInt(10 ** places) : 1n;
    const rate = HUNDRED + BigInt(units(c.value, RATE_PLACES));
    out = Number(mulDivRound(BigInt(v), rate, HUNDRED * step) * step);
  }
  return out / 10 ** places;
}

/** Why the value typed cannot be sent, or `undefined` when it can. */
export function checkValue(text: string, mode: Mode, prop: Property): string | undefined {
  const t = text.trim();
  if (t === '') return 'Enter a value.';
  // Only plain decimals: `1e3`, `0x10` or `+5` are numbers to `Number` but not amounts to type here.
  if (!/^-?(\d+\.?\d*|\.\d+)$/.test(t))
    return `Enter a number such as ${mode === 'percentage' ? '12.5' : '12.50'}.`;
  const n = Number(t);
  const places = mode === 'percentage' ? RATE_PLACES : PLACES[prop];
  if (!new RegExp(`^-?\\d*(\\.\\d{0,${places}})?$`).test(t)) return `Use at most ${places} decimal places.`;
  if (mode === 'set' && n < 0) return `A ${prop} cannot be negative.`;
  if (mode === 'percentage' && n < -100) return 'A percentage cannot take off more than 100.';
  return undefined;
}

export const current = (p: Product, prop: Property) =>
  prop === 'price' ? p.priceData?.price : prop === 'cost' ? p.costAndProfitData?.itemCost : p.weight;

/**
 * The chosen products split into those the change is sent to (ids) and those it skips (names),
 * each in the order chosen. An adjustment skips a product without the value: the platform would
 * report it updated and leave it as it is. Setting skips none. A value of 0 is a value, and is sent.
 * @example sendOrSkip([mug, giftCard], { prop: 'weight', mode: 'amount' }) // { ids: ['mug'], skipped: ['Gift Card'] }
 */
export function sendOrSkip(
  chosen: readonly Product[],
  { prop, mode }: Pick<Change, 'prop' | 'mode'>,
): { ids: string[]; skipped: string[] } {
  const ids: string[] = [];
  const skipped: string[] = [];
  for (const p of chosen)
    if (mode !== 'set' && current(p, prop) === undefined) skipped.push(p.name);
    else ids.push(p.id);
  return { ids, skipped };
}

const variantValue = (v: NonNullable<Product['variants']>[number], prop: Property) =>
  prop === 'price'
    ? v.variant?.priceData?.price
    : prop === 'cost'
      ? v.variant?.costAndProfitData?.itemCost
      : v.variant?.weight;

export const show = (prop: Property, v: number | undefined) =>
  v === undefined ? '—' : prop === 'weight' ? `${v} kg` : money(v);

export type Preview =
  | { kind: 'skip'; text: string }
  | { kind: 'refuse'; text: string }
  | { kind: 'ok'; value: number; text: string; note?: string };

/**
 * What applying the change to a product will do. The platform changes the variants' own values
 * too (setting replaces them with the product's), and refuses a product when any value would go
 * below zero.
 */
export function preview(p: Product, c: Change): Preview {
  const now = current(p, c.prop);
  const after = changed(now, c);
  if (after === undefined) return { kind: 'skip', text: `— no ${c.prop}, skipped` };
  // Variants whose value differs from the product's have their own.
  const own = (p.variants ?? []).flatMap((v) => {
    const x = variantValue(v, c.prop);
    return x !== undefined && x !== now ? [{ name: variantName(v), now: x, after: changed(x, c)! }] : [];
  });
  if (after < 0 || own.some((v) => v.after < 0))
    return { kind: 'refuse', text: `refused: the ${c.prop} would go below zero` };
  // Above the platform's maximum the item fails too: not shown as a value it would never store.
  if (after > MAX_VALUE || own.some((v) => v.after > MAX_VALUE))
    return { kind: 'refuse', text: `refused: the ${c.prop} would go above ${MAX_WORDS}` };
  const text = show(c.prop, after);
  if (!own.length) return { kind: 'ok', value: after, text };
  const note =
    c.mode === 'set'
      ? `replaces the variants’ own ${c.prop}s: ${few(own.map((v) => `${v.name} ${show(c.prop, v.now)}`))}`
      : `variants’ own ${c.prop}s too: ${few(own.map((v) => `${v.name} ${show(c.prop, v.after)}`))}`;
  return { kind: 'ok', value: after, text, note };
}

/** The platform's two bulk calls, bound to a client (`products.bulkUpdateProductsProperty`, …). */
export interface BulkCalls {
  /** Sets the property on at most `BULK_MAX` products. */
  update(ids: string[], set: BulkSet): Promise<BulkResult>;
  /** Adjusts the property of at most `BULK_MAX` products. */
  adjust(adjust: BulkAdjust, ids: string[]): Promise<BulkResult>;
}

/**
 * `items` in runs of at most `size`, in order: none for none.
 * @example chunks(ids250).map((c) => c.length) // [100, 100, 50]
 */
export function chunks<T>(items: readonly T[], size = BULK_MAX): T[][] {
  const out: T[][] = [];
  for (let at = 0; at < items.length; at += size) out.push(items.slice(at, at + size));
  return out;
}

/** The call that makes the change to a run of products. */
function changeCall(calls: BulkCalls, c: Change): (ids: string[]) => Promise<BulkResult> {
  // One property each, spelled out: the SDK's types take exactly one (no computed key).
  if (c.mode === 'set') {
    const set: BulkSet =
      c.prop === 'price' ? { price: c.value } : c.prop === 'cost' ? { cost: c.value } : { weight: c.value };
    return (ids) => calls.update(ids, set);
  }
  const by =
    c.mode === 'amount' ? { amount: c.value } : { percentage: { rate: c.value, roundToInt: c.round } };
  const adjust: BulkAdjust =
    c.prop === 'price' ? { price: by } : c.prop === 'cost' ? { cost: by } : { weight: by };
  return (ids) => calls.adjust(adjust, ids);
}

/** The item error of each product of a call that threw, its reason a phrase as `failures` shows it. */
function callError(e: unknown) {
  if (isRefusal(e)) {
    // The platform's own words when it names what it refused (as the single forms quote them).
    const words = platformWords(e);
    if (words)
      return { code: 'CALL_REFUSED', description: `not changed: the platform refused it: “${words}”` };
    const why = humanMessage(e).replace(/\.$/, '');
    return { code: 'CALL_REFUSED', description: `not changed: ${why[0]!.toLowerCase()}${why.slice(1)}` };
  }
  const what = isNetworkError(e) ? 'no answer came back' : 'the platform failed';
  return {
    code: 'CALL_NOT_ANSWERED',
    description: `${what}, so the change may or may not have been made: check before applying it again`,
  };
}

/**
 * Makes the change to `ids` in calls of at most `BULK_MAX` products, one after the other, and joins
 * their answers in the order of `ids`. A call that throws counts each of its products as failed,
 * with a reason: refused (nothing changed), or, without an answer (network, timeout, a 5xx), not
 * known to be applied or not. Only when the first call is refused does this throw, the platform's
 * refusal for the whole change: nothing was changed, and the other calls are not sent.
 */
export async function applyChange(calls: BulkCalls, ids: string[], c: Change): Promise<BulkResult> {
  const call = changeCall(calls, c);
  const out: BulkResult = {
    results: [],
    bulkActionMetadata: { totalSuccesses: 0, totalFailures: 0, undetailedFailures: 0 },
  };
  let at = 0;
  for (const chunk of chunks(ids)) {
    let r: BulkResult;
    try {
      r = await call(chunk);
    } catch (e) {
      if (at === 0 && isRefusal(e)) throw e;
      const error = callError(e);
      r = {
        results: chunk.map((id, i) => ({ itemMetadata: { id, originalIndex: i, success: false, error } })),
        bulkActionMetadata: { totalSuccesses: 0, totalFailures: chunk.length, undetailedFailures: 0 },
      };
    }
    for (const { itemMetadata: m } of r.results)
      out.results.push({
        itemMetadata: { ...m, id: m.id ?? chunk[m.originalIndex], originalIndex: m.originalIndex + at },
      });
    out.bulkActionMetadata.totalSuccesses += r.bulkActionMetadata.totalSuccesses;
    out.bulkActionMetadata.totalFailures += r.bulkActionMetadata.totalFailures;
    out.bulkActionMetadata.undetailedFailures += r.bulkActionMetadata.undetailedFailures;
    at += chunk.length;
  }
  return out;
}

/** The console's own phrase for a failed item the platform gave no words for. */
function ownReason(prop: Property, error?: { code: string }) {
  if (!error) return 'no reason given';
  if (error.code === 'NEGATIVE_VALUE') return `the ${prop} would go below zero`;
  if (error.code === 'VALUE_TOO_LARGE') return `the ${prop} would go above ${MAX_WORDS}`;
  if (error.code === 'PRODUCT_NOT_FOUND') return 'the product no longer exists';
  return 'no reason given';
}

/**
 * A failed item's reason: the platform's own words (its `description`, as the single forms show a
 * refused field's), with the product's id, which means nothing to the merchant beside its name,
 * said as `this product`; the console's phrase when the platform gave none, or said only that the
 * product (its id) was not found.
 * @example reason('price', 'm1', { code: 'NEGATIVE_VALUE', description: 'The price of product m1 would become negative' }) // 'The price of this product would become negative'
 */
function reason(prop: Property, id: string | undefined, error?: { code: string; description?: string }) {
  const words = error?.description?.trim().replace(/\.$/, '');
  // A product deleted since it was ticked: the platform's words (`Product with id "5f0c…" not
  // found`) said nothing but its id, garbled (`Product with id this product not found`).
  if (!words || error?.code === 'PRODUCT_NOT_FOUND') return ownReason(prop, error);
  if (!id) return words;
  // The id as a word of its own (`product 5f0c…`, `The product 5f0c…`, `“5f0c…”`), never a part of
  // another word; `This product` where the sentence starts with it.
  const quoted = id.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return words.replace(
    new RegExp(`(?:\\b(?:the )?product (?:with id )?)?(?<![\\w-])["“]?${quoted}["”]?(?![\\w-])`, 'gi'),
    (said) => (/^[A-Z]/.test(said) ? 'This product' : 'this product'),
  );
}

/** The failed items of a bulk answer, grouped by reason (the platform's words), with product names. */
export function failures(r: BulkResult, prop: Property, name: (id: string) => string) {
  const groups = new Map<string, string[]>();
  for (const { itemMetadata: m } of r.results) {
    if (m.success) continue;
    const why = reason(prop, m.id, m.error);
    groups.set(why, [...(groups.get(why) ?? []), m.id ? name(m.id) : `item ${m.originalIndex + 1}`]);
  }
  return [...groups].map(([why, names]) => ({ why, names }));
}

/** The platform's refusal of the value typed (`set.price`, `adjust.weight.amount`, a rate). */
const VALUE_FIELD = /^(set|adjust)\.(price|cost|weight)\b/;

/**
 * What to say when the platform refused a whole change (nothing was changed): a refusal of the
 * value typed beside that field, in the platform's words (`value`); any other in a sentence
 * (`text`) that quotes the platform when it names what it refused.
 */
export function whyRefused(e: unknown): { value: string } | { text: string } {
  const value = refusedAt(e, VALUE_FIELD);
  if (value) return { value };
  const words = platformWords(e);
  return { text: `Nothing was changed: ${words ? `the platform refused it: “${words}”.` : humanMessage(e)}` };
}
