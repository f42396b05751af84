/**
 * The catalog's model, as pure functions: a product's state, variants generated as the product of
 * its options' choices, and the wire shape computed from it (prices, discounts, ranges, cost and
 * profit, price per unit, stock and inventory status). Storage and routes live elsewhere.
 * @module
 */
import { createHash } from 'node:crypto';
import {
  formatMoney,
  mulDivRound,
  PERCENT_SCALE,
  percentOff,
  STORE_CURRENCY,
  toAmount,
  toWeight,
} from './money.ts';

/** The variant id of a product without options, as the platform uses it. */
export const DEFAULT_VARIANT_ID = '00000000-0000-0000-0000-000000000000';

export type ProductType = 'physical' | 'digital' | 'unspecified_product_type';
export type DiscountType = 'NONE' | 'AMOUNT' | 'PERCENT';
export type OptionType = 'drop_down' | 'color';
export type MediaType = 'image' | 'video';

/** A discount: AMOUNT in cents, PERCENT in percent × 10^4. */
export interface Discount {
  type: DiscountType;
  value: number;
}

export interface MediaItem {
  id: string;
  mediaType: MediaType;
  /** Relative (`/media/x.svg`, served here) or an absolute external URL. */
  url: string;
  width: number;
  height: number;
  title?: string;
  altText?: string;
}

export interface Choice {
  /** The colour code for colour options, the shown text for drop-downs. */
  value: string;
  /** The shown text; variants' `choices` name choices by it. */
  description: string;
  /** Ids of product media items shown for this choice. */
  mediaIds: string[];
}

export interface ProductOption {
  optionType: OptionType;
  name: string;
  choices: Choice[];
}

export interface VariantState {
  id: string;
  /** Option name → choice description. */
  choices: Record<string, string>;
  /** Overrides (cents, cents, thousandths); absent means the product's value. */
  price?: number;
  cost?: number;
  weight?: number;
  sku?: string;
  visible?: boolean;
  productDimensions?: Dimensions;
  packageDimensions?: Dimensions;
  /** Units in stock when the product tracks inventory, else null. */
  quantity: number | null;
  /** In stock when inventory is not tracked. */
  inStock: boolean;
}

/** A variant's values of its own, which `resetToDefault` clears (each absent: the product's). */
export const VARIANT_OVERRIDES = [
  'price',
  'cost',
  'weight',
  'sku',
  'visible',
  'productDimensions',
  'packageDimensions',
] as const;

/** Whether the variant has a value of its own (`VARIANT_OVERRIDES`). */
export const hasOverrides = (v: VariantState) => VARIANT_OVERRIDES.some((k) => v[k] !== undefined);

export interface PricePerUnitData {
  totalQuantity: number;
  totalMeasurementUnit: string;
  baseQuantity: number;
  baseMeasurementUnit: string;
}

/** Units of product and package dimensions (the typings' `DimensionsUnit`). */
export const DIMENSIONS_UNITS = ['UNKNOWN_DIMENSIONS_UNIT', 'MM', 'CM', 'M', 'IN', 'FT', 'YD'] as const;

/** Product or package dimensions: decimal strings (`'10.5'`), as the platform sends them. */
export interface Dimensions {
  length?: string;
  width?: string;
  height?: string;
  unit: (typeof DIMENSIONS_UNITS)[number];
}

/** Everything the catalog knows about a product. */
export interface ProductState {
  id: string;
  name: string;
  slug: string;
  visible: boolean;
  productType: ProductType;
  description?: string;
  sku?: string;
  /** Thousandths of the weight unit. */
  weight?: number;
  /** Cents. */
  price: number;
  /** Cents. */
  cost?: number;
  discount: Discount;
  ribbon?: string;
  brand?: string;
  trackInventory: boolean;
  manageVariants: boolean;
  pricePerUnitData?: PricePerUnitData;
  productDimensions?: Dimensions;
  packageDimensions?: Dimensions;
  additionalInfoSections: { title: string; description: string }[];
  customTextFields: { title: string; maxLength: number; mandatory: boolean }[];
  productOptions: ProductOption[];
  media: MediaItem[];
  seoData?: { tags?: unknown[]; settings?: Record<string, unknown> };
  variants: VariantState[];
  collectionIds: string[];
  numericId: string;
  createdDate: string;
  lastUpdated: string;
}

/**
 * A UUID derived from a product id and a variant's choices, so regenerated variants keep their ids.
 * `attempt` > 0 derives another one, for choices whose first id a kept (renamed) variant holds.
 */
export function variantId(productId: string, choices: Record<string, string>, attempt = 0): string {
  const h = createHash('sha1')
    .update(`${productId}\n${JSON.stringify(Object.entries(choices))}${attempt ? `\n${attempt}` : ''}`)
    .digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** Every combination of the options' choices, in option order (the first option varies slowest). */
export function choiceCombinations(options: ProductOption[]): Record<string, string>[] {
  let out: Record<string, string>[] = [{}];
  for (const o of options)
    out = out.flatMap((combo) => o.choices.map((c) => ({ ...combo, [o.name]: c.description })));
  return out;
}

const sameChoices = (a: Record<string, string>, b: Record<string, string>) => {
  const ka = Object.keys(a);
  return ka.length === Object.keys(b).length && ka.every((k) => a[k] === b[k]);
};

/**
 * The variants of a product: one per combination of choices, or the one default variant when it has
 * no options. A variant whose choices existed before keeps its id, overrides and stock. A new one
 * has no units when the product tracks inventory (copying another variant's would make units out of
 * nothing), else the product's in-stock flag, which its untracked variants share. A new variant's
 * id is never one a kept variant holds (a renamed variant keeps the id its old choices gave it).
 */
export function generateVariants(
  productId: string,
  options: ProductOption[],
  previous: VariantState[],
  trackInventory = false,
): VariantState[] {
  const fresh = (choices: Record<string, string>, id: string): VariantState => ({
    id,
    choices,
    quantity: trackInventory ? 0 : null,
    inStock: !trackInventory && (previous[0]?.inStock ?? true),
  });
  if (options.length === 0) {
    const kept = previous.find((v) => Object.keys(v.choices).length === 0);
    return [kept ?? fresh({}, DEFAULT_VARIANT_ID)];
  }
  const combos = choiceCombinations(options);
  const kept = combos.map((choices) => previous.find((v) => sameChoices(v.choices, choices)));
  const taken = new Set(kept.flatMap((v) => (v ? [v.id] : [])));
  return combos.map((choices, i) => {
    if (kept[i]) return kept[i];
    let id = variantId(productId, choices);
    for (let attempt = 1; taken.has(id); attempt++) id = variantId(productId, choices, attempt);
    taken.add(id);
    return fresh(choices, id);
  });
}

/**
 * Which old item each new one continues (its index in `old`, or undefined when it is new): the old
 * item of the same key, trying `keys` in turn, else (when `byPlace`) the old item at the same place
 * when no new item took it. Each old item is continued at most once.
 */
function pairItems<T>(old: readonly T[], next: readonly T[], keys: ((x: T) => string)[], byPlace: boolean) {
  const pairs: (number | undefined)[] = next.map(() => undefined);
  const used = new Set<number>();
  for (const key of keys)
    next.forEach((item, i) => {
      if (pairs[i] !== undefined) return;
      const j = old.findIndex((o, k) => !used.has(k) && key(o) === key(item));
      if (j < 0) return;
      pairs[i] = j;
      used.add(j);
    });
  next.forEach((_, i) => {
    if (byPlace && pairs[i] === undefined && i < old.length && !used.has(i)) {
      pairs[i] = i;
      used.add(i);
    }
  });
  return pairs;
}

/**
 * Carries a product over to new options, the whole list as an update sends it. The wire gives
 * options and choices no ids, so a rename is recognised as an entry edited in place. A new option
 * continues the old option of the same name, else (when the number of options stays the same:
 * adding or removing one makes every combination new anyway) the old option at the same place
 * that no other took. A new choice continues the old choice of the same description, else of the
 * same value (a colour keeps its code when renamed), else at the same place. A removed entry
 * shifts the ones after it, which keep their names and so their variants. What the platform does
 * is UNCONFIRMED; a merchant renaming a size expects its prices and stock to stay.
 *
 * Answers the options with each continued choice's media, and the previous variants with their
 * choices renamed to the new names: `generateVariants` then keeps every variant whose choices are
 * still there (id, overrides, visibility, stock), drops those of removed choices and makes fresh
 * ones for new combinations only.
 */
export function carryOverOptions(
  old: ProductOption[],
  next: ProductOption[],
  variants: VariantState[],
): { options: ProductOption[]; variants: VariantState[] } {
  const optionPairs = pairItems(old, next, [(o) => o.name], old.length === next.length);
  /** Old option name → its new name and old choice description → new description. */
  const renames = new Map<string, { name: string; choices: Map<string, string> }>();
  const options = next.map((o, i) => {
    const was = optionPairs[i] === undefined ? undefined : old[optionPairs[i]!]!;
    if (!was) return o;
    const choicePairs = pairItems(was.choices, o.choices, [(c) => c.description, (c) => c.value], true);
    const choices = new Map<string, string>();
    renames.set(was.name, { name: o.name, choices });
    return {
      ...o,
      choices: o.choices.map((c, j) => {
        const before = choicePairs[j] === undefined ? undefined : was.choices[choicePairs[j]!]!;
        if (!before) return c;
        choices.set(before.description, c.description);
        return { ...c, mediaIds: before.mediaIds };
      }),
    };
  });
  const carried = variants.map((v) => {
    const out: Record<string, string> = {};
    const gone: [string, string][] = [];
    for (const [name, choice] of Object.entries(v.choices)) {
      const r = renames.get(name);
      const to = r?.choices.get(choice);
      // A choice (or option) not continued keeps its old name: no new combination matches it.
      if (r && to !== undefined) out[r.name] = to;
      else gone.push([name, choice]);
    }
    // In the new options' order, as new variants name their choices.
    const ordered = Object.fromEntries([
      ...options.flatMap((o) => (o.name in out ? [[o.name, out[o.name]!] as const] : [])),
      ...gone,
    ]);
    return { ...v, choices: ordered };
  });
  return { options, variants: carried };
}

/** Whether the variant's choices include every given option → choice pair. */
export const matchesChoices = (v: VariantState, wanted: Record<string, string>) =>
  Object.entries(wanted).every(([k, c]) => v.choices[k] === c);

/** The discount applied to a price in cents. */
export function discounted(cents: number, d: Discount): number {
  if (d.type === 'AMOUNT') return Math.max(0, cents - d.value);
  if (d.type === 'PERCENT') return percentOff(cents, d.value);
  return cents;
}

/** Grams, millilitres, millimetres or square metres per unit, within each unit family. */
const UNIT: Record<string, [family: string, factor: number]> = {
  MG: ['w', 0.001],
  G: ['w', 1],
  KG: ['w', 1000],
  OZ: ['w', 28.349523125],
  LB: ['w', 453.59237],
  ML: ['v', 1],
  CL: ['v', 10],
  L: ['v', 1000],
  CBM: ['v', 1_000_000],
  FLOZ: ['v', 29.5735295625],
  PT: ['v', 473.176473],
  QT: ['v', 946.352946],
  GAL: ['v', 3785.411784],
  MM: ['l', 1],
  CM: ['l', 10],
  M: ['l', 1000],
  IN: ['l', 25.4],
  FT: ['l', 304.8],
  YD: ['l', 914.4],
  SQM: ['a', 1],
  SQFT: ['a', 0.09290304],
};

/** Whether two measurement units can be converted into each other. */
export const compatibleUnits = (a: string, b: string) =>
  a === b || (!!UNIT[a] && !!UNIT[b] && UNIT[a]![0] === UNIT[b]![0]);

/** The price of `baseQuantity baseUnit` when `totalQuantity totalUnit` cost `cents`, in cents. */
export function pricePerUnit(cents: number, d: PricePerUnitData): number | undefined {
  if (!(d.totalQuantity > 0) || !(d.baseQuantity > 0)) return undefined;
  if (d.totalMeasurementUnit === d.baseMeasurementUnit) {
    // Both quantities as thousandths, so the ratio is exact.
    const t = BigInt(Math.round(d.totalQuantity * 1000));
    const b = BigInt(Math.round(d.baseQuantity * 1000));
    return mulDivRound(cents, b, t);
  }
  const t = UNIT[d.totalMeasurementUnit];
  const b = UNIT[d.baseMeasurementUnit];
  if (!t || !b || t[0] !== b[0]) return undefined;
  return Math.round((cents * d.baseQuantity * b[1]) / (d.totalQuantity * t[1]));
}

/** The wire price data of a price in cents, with the product's discount and unit pricing. */
export function priceData(p: Pick<ProductState, 'discount' | 'pricePerUnitData'>, cents: number) {
  const disc = discounted(cents, p.discount);
  const ppu = p.pricePerUnitData ? pricePerUnit(disc, p.pricePerUnitData) : undefined;
  return {
    currency: STORE_CURRENCY,
    price: toAmount(cents),
    discountedPrice: toAmount(disc),
    ...(ppu === undefined ? {} : { pricePerUnit: toAmount(ppu) }),
    formatted: {
      price: formatMoney(cents),
      discountedPrice: formatMoney(disc),
      ...(ppu === undefined ? {} : { pricePerUnit: formatMoney(ppu) }),
    },
  };
}

/** Decimal places of a profit margin (the typings: "rounded to 4 decimal places"). */
const MARGIN_SCALE = 10_000n;

/**
 * Cost, profit (discounted price − cost) and margin: profit ÷ that price as a fraction rounded to
 * 4 places (0.5536, not 55.36 %), as the typings define `profitMargin` (`@max 1`).
 */
export function costAndProfit(p: Pick<ProductState, 'discount'>, priceCents: number, costCents: number) {
  const sell = discounted(priceCents, p.discount);
  const profit = sell - costCents;
  return {
    itemCost: toAmount(costCents),
    formattedItemCost: formatMoney(costCents),
    profit: toAmount(profit),
    formattedProfit: formatMoney(profit),
    profitMargin: sell === 0 ? 0 : mulDivRound(profit, MARGIN_SCALE, BigInt(sell)) / Number(MARGIN_SCALE),
  };
}

/** Effective values of a variant. */
export const variantPrice = (p: ProductState, v: VariantState) => v.price ?? p.price;
export const variantCost = (p: ProductState, v: VariantState) => v.cost ?? p.cost;
export const variantWeight = (p: ProductState, v: VariantState) => v.weight ?? p.weight;
export const variantSku = (p: ProductState, v: VariantState) => v.sku ?? p.sku;
/** A variant's own product and package dimensions, else the product's. */
export const variantDimensions = (p: ProductState, v: VariantState) => {
  const productDimensions = v.productDimensions ?? p.productDimensions;
  const packageDimensions = v.packageDimensions ?? p.packageDimensions;
  return {
    ...(productDimensions ? { productDimensions } : {}),
    ...(packageDimensions ? { packageDimensions } : {}),
  };
};
/** A variant's name: its choices in option order, `S | White`; empty for the default variant. */
export const variantName = (p: ProductState, v: VariantState) =>
  p.productOptions
    .map((o) => v.choices[o.name])
    .filter((c) => c !== undefined)
    .join(' | ');
export const variantVisible = (v: VariantState) => v.visible ?? true;
export const variantInStock = (p: ProductState, v: VariantState) =>
  p.trackInventory ? (v.quantity ?? 0) > 0 : v.inStock;

function range(values: (number | undefined)[], toWire: (n: number) => number) {
  const xs = values.filter((x): x is number => x !== undefined);
  if (!xs.length) return undefined;
  return { minValue: toWire(Math.min(...xs)), maxValue: toWire(Math.max(...xs)) };
}

export type InventoryStatus = 'IN_STOCK' | 'OUT_OF_STOCK' | 'PARTIALLY_OUT_OF_STOCK';

/** The product's stock over its variants. */
export function productStock(p: ProductState) {
  const inStock = p.variants.map((v) => variantInStock(p, v));
  const some = inStock.some(Boolean);
  // No variants at all (a visitor's view of a product whose variants are all hidden) is out of stock.
  const all = some && inStock.every(Boolean);
  const inventoryStatus: InventoryStatus = all
    ? 'IN_STOCK'
    : some
      ? 'PARTIALLY_OUT_OF_STOCK'
      : 'OUT_OF_STOCK';
  return {
    trackInventory: p.trackInventory,
    ...(p.trackInventory ? { quantity: p.variants.reduce((n, v) => n + (v.quantity ?? 0), 0) } : {}),
    inStock: some,
    inventoryStatus,
  };
}

/** The price, cost and weight ranges over the variants. */
export function ranges(p: ProductState) {
  return {
    priceRange: range(
      p.variants.map((v) => variantPrice(p, v)),
      toAmount,
    ) ?? { minValue: toAmount(p.price), maxValue: toAmount(p.price) },
    costRange: range(
      p.variants.map((v) => variantCost(p, v)),
      toAmount,
    ),
    weightRange: range(
      p.variants.map((v) => variantWeight(p, v)),
      toWeight,
    ),
  };
}

export interface RenderOptions {
  /** Makes `/media/…` paths absolute. */
  absoluteUrl: (path: string) => string;
  /** Include cost and profit (merchants only). */
  merchant: boolean;
  /** Include the variants array. */
  variants: boolean;
}

/**
 * A video's poster: the media id of an image that `/media` draws from its name, as the platform's
 * still frame is an image of its own. A video's thumbnail and posters name it: the `.mp4` itself
 * was no image a storefront could show. At most 200 characters, as every media id.
 */
export const videoPosterId = (m: MediaItem) => `${m.id.replace(/\.[^.]*$/, '').slice(0, 189)}-poster.svg`;

/** One media item as the v1 catalog sends it (plain objects, no `wix:image` conversion). */
export function mediaItemToWire(m: MediaItem, abs: (p: string) => string) {
  const url = abs(m.url);
  const format =
    /\.([a-z0-9]+)(?:$|\?)/i.exec(m.url)?.[1]?.toLowerCase() ?? (m.mediaType === 'video' ? 'mp4' : 'svg');
  const base = { id: m.id, mediaType: m.mediaType, ...(m.title ? { title: m.title } : {}) };
  if (m.mediaType === 'video') {
    const poster = videoPosterId(m);
    return {
      ...base,
      video: { files: [{ url, width: m.width, height: m.height, format }], stillFrameMediaId: poster },
      thumbnail: { url: abs(`/media/${poster}`), width: 50, height: 50, format: 'svg' },
    };
  }
  return {
    ...base,
    image: { url, width: m.width, height: m.height, format, ...(m.altText ? { altText: m.altText } : {}) },
    thumbnail: { url, width: 50, height: 50, format },
  };
}

/** `{mainMedia, items}` of a list of media items; `mainMedia` is the first. */
export function mediaToWire(items: MediaItem[], abs: (p: string) => string) {
  const wire = items.map((m) => mediaItemToWire(m, abs));
  return wire.length ? { mainMedia: wire[0], items: wire } : { items: [] };
}

/** The media items of the given ids, in product order. */
export const mediaByIds = (p: ProductState, ids: string[]) => p.media.filter((m) => ids.includes(m.id));

/** The wire form of one variant (catalog v1 `variants[]`). */
export function variantToWire(p: ProductState, v: VariantState, merchant: boolean) {
  const price = variantPrice(p, v);
  const cost = variantCost(p, v);
  const weight = variantWeight(p, v);
  const sku = variantSku(p, v);
  const pd = priceData(p, price);
  return {
    id: v.id,
    choices: v.choices,
    variant: {
      priceData: pd,
      convertedPriceData: pd,
      ...(merchant && cost !== undefined ? { costAndProfitData: costAndProfit(p, price, cost) } : {}),
      ...(weight !== undefined ? { weight: toWeight(weight) } : {}),
      ...(sku !== undefined ? { sku } : {}),
      visible: variantVisible(v),
      ...variantDimensions(p, v),
    },
    stock: {
      trackQuantity: p.trackInventory,
      ...(p.trackInventory ? { quantity: v.quantity ?? 0 } : {}),
      inStock: variantInStock(p, v),
    },
  };
}

/** The wire form of a product (catalog v1). */
export function productToWire(p: ProductState, o: RenderOptions) {
  const pd = priceData(p, p.price);
  const { priceRange, costRange, weightRange } = ranges(p);
  const cost = p.cost;
  const options = p.productOptions.map((opt) => ({
    optionType: opt.optionType,
    name: opt.name,
    choices: opt.choices.map((c) => {
      const vs = p.variants.filter((v) => v.choices[opt.name] === c.description);
      const media = mediaByIds(p, c.mediaIds);
      return {
        value: c.value,
        description: c.description,
        ...(media.length ? { media: mediaToWire(media, o.absoluteUrl) } : {}),
        inStock: vs.some((v) => variantInStock(p, v)),
        visible: vs.some(variantVisible),
      };
    }),
  }));
  return {
    id: p.id,
    name: p.name,
    slug: p.slug,
    visible: p.visible,
    productType: p.productType,
    description: p.description ?? '',
    ...(p.sku !== undefined ? { sku: p.sku } : {}),
    ...(p.weight !== undefined ? { weight: toWeight(p.weight) } : {}),
    ...(weightRange ? { weightRange } : {}),
    stock: productStock(p),
    price: pd,
    priceData: pd,
    convertedPriceData: pd,
    priceRange,
    ...(o.merchant && cost !== undefined ? { costAndProfitData: costAndProfit(p, p.price, cost) } : {}),
    ...(o.merchant && costRange ? { costRange } : {}),
    ...(p.pricePerUnitData ? { pricePerUnitData: p.pricePerUnitData } : {}),
    ...(p.productDimensions ? { productDimensions: p.productDimensions } : {}),
    ...(p.packageDimensions ? { packageDimensions: p.packageDimensions } : {}),
    additionalInfoSections: p.additionalInfoSections,
    ribbons: p.ribbon ? [{ text: p.ribbon }] : [],
    media: mediaToWire(p.media, o.absoluteUrl),
    customTextFields: p.customTextFields,
    manageVariants: p.manageVariants,
    productOptions: options,
    productPageUrl: { base: o.absoluteUrl('/'), path: `/product-page/${p.slug}` },
    numericId: p.numericId,
    inventoryItemId: variantId(p.id, { inventory: 'item' }),
    discount: discountToWire(p.discount),
    collectionIds: p.collectionIds,
    ...(o.variants ? { variants: p.variants.map((v) => variantToWire(p, v, o.merchant)) } : {}),
    lastUpdated: p.lastUpdated,
    createdDate: p.createdDate,
    ...(p.seoData ? { seoData: p.seoData } : {}),
    ...(p.ribbon ? { ribbon: p.ribbon } : {}),
    ...(p.brand ? { brand: p.brand } : {}),
  };
}

export function discountToWire(d: Discount) {
  return {
    type: d.type,
    value: d.type === 'AMOUNT' ? toAmount(d.value) : d.type === 'PERCENT' ? d.value / 10 ** PERCENT_SCALE : 0,
  };
}
