/**
 * The product editor's form state: what the form shows (`Draft`, text as typed), how it follows the
 * stored product without losing the merchant's edits (`rebase`), and what a save sends (`changes`):
 * only the fields that differ from what is stored, a cleared text field as an empty string (the
 * platform clears it), and never an empty or unreadable number.
 * @module
 */
import {
  type NewProduct,
  OptionType,
  type Product,
  type ProductInput,
  ValidationError,
  type Variant,
} from '@shopkit/sdk';
import { formatOptions, type OptionsInput, parseOptions } from './options.ts';

export interface Draft {
  name: string;
  description: string;
  productType: 'physical' | 'digital';
  price: string;
  cost: string;
  weight: string;
  sku: string;
  ribbon: string;
  brand: string;
  options: string;
  visible: boolean;
}
export type Field = keyof Draft;
export type Problems = Partial<Record<Field, string>>;

const FIELDS = [
  'name',
  'description',
  'productType',
  'price',
  'cost',
  'weight',
  'sku',
  'ribbon',
  'brand',
  'options',
  'visible',
] as const satisfies readonly Field[];

const text = (n?: number) => (n === undefined ? '' : String(n));

/** What the form shows for a stored product, or for a new one. */
export function toDraft(p?: Product): Draft {
  return {
    name: p?.name ?? '',
    description: p?.description ?? '',
    productType: p?.productType === 'digital' ? 'digital' : 'physical',
    price: text(p?.priceData?.price),
    cost: text(p?.costAndProfitData?.itemCost),
    weight: text(p?.weight),
    sku: p?.sku ?? '',
    ribbon: p?.ribbon ?? '',
    brand: p?.brand ?? '',
    options: formatOptions(p),
    visible: p?.visible ?? true,
  };
}

export const sameDraft = (a: Draft, b: Draft) => FIELDS.every((k) => a[k] === b[k]);

/**
 * The draft once the stored product has changed from `base` to `stored`: a field the merchant has
 * edited keeps the edit, every other field shows what is now stored.
 */
export function rebase(draft: Draft, base: Draft, stored: Draft): Draft {
  const next = { ...draft } as Record<Field, unknown>;
  for (const k of FIELDS) if (draft[k] === base[k]) next[k] = stored[k];
  return next as unknown as Draft;
}

/**
 * The draft once a save of `sent` has succeeded and the product now stored reads as `stored`: the
 * fields saved and not edited since show what is stored (the platform's form of them: `Size: S, M`
 * for `Size: S,M`, `Sale` for ` Sale `), so they are no longer edits and follow later writes (a
 * removed ribbon, removed options) instead of being sent again.
 */
export function settle(draft: Draft, sent: Draft, stored: Draft): Draft {
  const next = { ...draft } as Record<Field, unknown>;
  for (const k of FIELDS) if (draft[k] === sent[k]) next[k] = stored[k];
  return next as unknown as Draft;
}

/**
 * The fields the merchant edited (`draft` against `base`, what the form last read) that were
 * changed elsewhere since (another tab, another merchant: `now` is stored), to another value than
 * the merchant's: saving would replace that change unseen. Each with what is stored now, in the
 * form's words (`visible` as `shown`/`hidden` in the shop).
 * @example changedElsewhere(draft, base, toDraft(fresh)) // { price: '12' }
 */
export function changedElsewhere(draft: Draft, base: Draft, now: Draft): Partial<Record<Field, string>> {
  const found: Partial<Record<Field, string>> = {};
  for (const k of FIELDS)
    if (draft[k] !== base[k] && now[k] !== base[k] && now[k] !== draft[k])
      found[k] = typeof now[k] === 'boolean' ? (now[k] ? 'shown' : 'hidden') : now[k];
  return found;
}

/** A decimal with at most `places` decimals; `undefined` when empty, `null` when unreadable. */
export function decimal(value: string, places: number): number | undefined | null {
  const t = value.trim();
  if (t === '') return undefined;
  return new RegExp(`^\\d+(\\.\\d{0,${places}})?$`).test(t) ? Number(t) : null;
}

export interface Changes {
  /** What to send: every field for a new product, only the changed ones for a stored one. */
  input: ProductInput;
  /**
   * For a new product whose draft has no problems: `input` with the fields a create requires (name,
   * type, price) taken from the checked draft. `undefined` for a stored product or a draft with
   * problems (nothing is sent then).
   */
  create?: NewProduct;
  /** The options text of a product with options was emptied: remove them (their own call). */
  removeOptions: boolean;
  /** Why it cannot be saved, by field; empty when it can. */
  problems: Problems;
}

/** What saving `draft` sends, compared with `base` (what is stored; none for a new product). */
export function changes(draft: Draft, base?: Draft): Changes {
  const input: ProductInput = {};
  const problems: Problems = {};
  const changed = (k: Field) => !base || draft[k] !== base[k];

  const name = draft.name.trim();
  if (!name) problems.name = 'Enter a name.';
  else if (changed('name')) input.name = name;
  const description = draft.description.trim();
  if (changed('description') && (base || description)) input.description = description;
  // The type is sent when creating, or when the merchant changes it: a save never resets it.
  if (changed('productType')) input.productType = draft.productType;
  if (changed('visible')) input.visible = draft.visible;

  const price = decimal(draft.price, 2);
  if (price === undefined) problems.price = 'Enter a price: an empty price is not $0.00.';
  else if (price === null) problems.price = 'Enter the price as an amount such as 12.50.';
  else if (changed('price')) input.priceData = { price };

  for (const [k, places, example] of [
    ['cost', 2, '12.50'],
    ['weight', 3, '0.35'],
  ] as const) {
    if (!changed(k)) continue;
    const v = decimal(draft[k], places);
    if (v === null) problems[k] = `Enter the ${k} as a number such as ${example}, or leave it empty.`;
    else if (v === undefined) {
      if (base?.[k])
        problems[k] =
          `The ${k} cannot be removed once it is set: the platform has no call that clears it. Enter 0 instead.`;
    } else if (k === 'cost') input.costAndProfitData = { itemCost: v };
    else input.weight = v;
  }

  for (const k of ['sku', 'ribbon', 'brand'] as const) {
    const v = draft[k].trim();
    // An empty string clears the field on the platform.
    if (changed(k) && (base || v)) input[k] = v;
  }

  let removeOptions = false;
  if (changed('options')) {
    const { options, error } = parseOptions(draft.options);
    if (error) problems.options = error;
    else if (options.length) {
      input.productOptions = options;
      if (!base) input.manageVariants = true;
    } else if (base?.options) removeOptions = true;
  }
  const create =
    !base && !Object.keys(problems).length && name && typeof price === 'number'
      ? { ...input, name, productType: draft.productType, priceData: { price } }
      : undefined;
  return { input, create, removeOptions, problems };
}

/** The form's field for each product field the platform may refuse (`product.priceData.price`: price). */
export const REFUSABLE: Partial<Record<keyof ProductInput, Field>> = {
  name: 'name',
  description: 'description',
  priceData: 'price',
  costAndProfitData: 'cost',
  weight: 'weight',
  sku: 'sku',
  ribbon: 'ribbon',
  brand: 'brand',
  productOptions: 'options',
};

/**
 * The platform's refusal of a save of `sent`, by the form's field, in the platform's words (`Must
 * have at most 80 characters.`; an option's as `Size: choices must have at most 100 items.`, a
 * choice's as `Size: the choice “XL” must …`), each sentence once, or `undefined` when it is not a
 * refusal of fields the form shows: then it is said as a whole.
 */
export function refusedFields(error: unknown, sent: Draft): Problems | undefined {
  if (!(error instanceof ValidationError) || !error.violations.length) return undefined;
  const found: Partial<Record<Field, string[]>> = {};
  for (const v of error.violations) {
    const m = /^product\.(\w+)(?:\[(\d+)\])?\.?(.*)$/.exec(v.field);
    const k = m && REFUSABLE[m[1] as keyof ProductInput];
    if (!k) return undefined;
    const option = k === 'options' && m[2] !== undefined && parseOptions(sent.options).options[Number(m[2])];
    // A choice by its name (`choices.description` said neither which one nor anything a merchant
    // types); a colour's code as such. Other choices send their name as their value too: its
    // refusal is the name's, said once.
    const [, j, part] = /^choices\[(\d+)\]\.(description|value)$/.exec(m[3] ?? '') ?? [];
    const choice = option && j !== undefined ? option.choices[Number(j)] : undefined;
    const code = part === 'value' && option && option.optionType === OptionType.color;
    const what = !option
      ? ''
      : choice
        ? `${option.name}: ${code ? 'the colour code of ' : ''}the choice “${choice.description}” `
        : `${option.name}: ${m[3] ? `${m[3].replace(/\[\d+\]/g, '')} ` : ''}`;
    const text = `${what}${v.description}`;
    const said = `${text.charAt(0).toUpperCase()}${text.slice(1)}.`;
    if (!found[k]?.includes(said)) found[k] = [...(found[k] ?? []), said];
  }
  // In the form's order: the first is the field the focus goes to.
  return Object.fromEntries(FIELDS.flatMap((k) => (found[k] ? [[k, found[k].join(' ')]] : [])));
}

/**
 * The platform's refusal as its own sentences (`Must be a valid url.`) when every field it refuses
 * matches `at` (`/^media\[0\]/`), or `undefined` when it is not such a refusal.
 */
export function refusedAt(error: unknown, at: RegExp): string | undefined {
  if (!(error instanceof ValidationError) || !error.violations.length) return undefined;
  if (!error.violations.every((v) => at.test(v.field))) return undefined;
  return error.violations
    .map((v) => `${v.description.charAt(0).toUpperCase()}${v.description.slice(1)}.`)
    .join(' ');
}

/** Every field the platform refused with its words (`product.seoData.tags must have at most 20 items`). */
export const platformWords = (error: unknown) =>
  error instanceof ValidationError && error.violations.length
    ? error.violations.map((v) => `${v.field} ${v.description}`).join('; ')
    : undefined;

/** A variant's name: its choices, such as `M / Sand`. */
export const variantName = (v: Variant) => Object.values(v.choices).join(' / ');

/** The variants made of option choices (not the single default variant of a product without options). */
export const optionVariants = (p: Product) =>
  (p.variants ?? []).filter((v) => Object.keys(v.choices).length > 0);

/**
 * The stock of the variants that track it, added up, or `undefined` when none does: untracked
 * stock has no quantity to add. A tracked variant without a quantity has none left.
 * @example variantStock(optionVariants(shirt)) // 14
 */
export function variantStock(variants: readonly Variant[]): number | undefined {
  const tracked = variants.filter((v) => v.stock?.trackQuantity);
  return tracked.length ? tracked.reduce((n, v) => n + (v.stock?.quantity ?? 0), 0) : undefined;
}

/**
 * Which old item each new one continues (its index in `old`): the old item of the same key, trying
 * `keys` in turn, else (with `byPlace`) the old item at the same place that no other took.
 */
function pairItems<T, U>(
  old: readonly T[],
  next: readonly U[],
  keys: [(x: T) => unknown, (x: U) => unknown][],
  byPlace: boolean,
) {
  const pairs = next.map((): number | undefined => undefined);
  const used = new Set<number>();
  for (const [oldKey, newKey] of keys)
    next.forEach((item, i) => {
      if (pairs[i] !== undefined) return;
      const j = old.findIndex((o, k) => !used.has(k) && oldKey(o) === newKey(item));
      if (j < 0) return;
      pairs[i] = j;
      used.add(j);
    });
  if (byPlace)
    next.forEach((_, i) => {
      if (pairs[i] !== undefined || i >= old.length || used.has(i)) return;
      pairs[i] = i;
      used.add(i);
    });
  return pairs;
}

/**
 * The stored variants that new options would delete (with their own prices and stock). A renamed
 * option or choice keeps its variants, as the platform emulator does (`carryOverOptions` in its
 * catalog model): an option continues the old one of the same name, else the one at the same place
 * when the number of options stays; a choice the old one of the same description, else of the same
 * value (a colour's code), else at the same place. Variants of removed choices go, and so does
 * every variant when an option is added or removed (each combination is then a new one).
 * @example droppedVariants(shirt, parseOptions('Size: S, M, XL').options) // the L variants: renamed to XL, none
 */
export function droppedVariants(p: Product, options: OptionsInput): Variant[] {
  const before = p.productOptions ?? [];
  const optionPairs = pairItems(
    before,
    options,
    [[(o) => o.name, (o) => o.name]],
    before.length === options.length,
  );
  /** Old option name → the old choice descriptions that continue in the new options. */
  const continued = new Map<string | undefined, Set<string | undefined>>();
  options.forEach((o, i) => {
    const was = optionPairs[i] === undefined ? undefined : before[optionPairs[i]!];
    if (!was) return;
    const old = was.choices ?? [];
    const pairs = pairItems(
      old,
      o.choices,
      [
        [(c) => c.description, (c) => c.description],
        [(c) => c.value, (c) => c.value ?? c.description],
      ],
      true,
    );
    continued.set(was.name, new Set(pairs.flatMap((j) => (j === undefined ? [] : [old[j]!.description]))));
  });
  const kept = (v: Variant) => {
    const names = Object.keys(v.choices);
    return names.length === options.length && names.every((n) => continued.get(n)?.has(v.choices[n]));
  };
  return optionVariants(p).filter((v) => !kept(v));
}
