/**
 * Write input: zod schemas for the shapes, then checks zod cannot express (decimal places, colour
 * codes, unique option and choice names, discounts) as field violations, and the functions that
 * apply a validated input to a product's state.
 * @module
 */
import { MeasurementUnit } from '@shopkit/sdk';
import { invalid, type Violation } from '../../http/errors.ts';
import { float, z } from '../../http/validate.ts';
import {
  carryOverOptions,
  compatibleUnits,
  DIMENSIONS_UNITS,
  type Dimensions,
  type Discount,
  generateVariants,
  hasOverrides,
  type MediaItem,
  matchesChoices,
  type ProductOption,
  type ProductState,
  productStock,
} from './model.ts';
import { PERCENT_SCALE, scaled, unscaled, WEIGHT_SCALE } from './money.ts';

/** Most variants a product may have (the product of its options' choice counts). */
export const MAX_VARIANTS = 300;
export const MAX_OPTIONS = 6;
export const MAX_MEDIA = 100;
/** A product's SEO tags, and the size of its whole `seoData` as JSON. */
export const MAX_SEO_TAGS = 50;
export const MAX_SEO_CHARS = 64_000;

/** Prices and costs: the `numeric(14, 2)` columns and the README's 999 999 999.99. */
export const MAX_MONEY = 999_999_999.99;
const money = () => float(z.number().min(0).max(MAX_MONEY));
/** Product, variant and bulk weights: the typings' `@max 999999999.99`. */
export const MAX_WEIGHT = 999_999_999.99;
const weight = () => float(z.number().min(0).max(MAX_WEIGHT));
/**
 * A unit price's total or base quantity: the typings' `@min 0.01 @max 999999999.99`. Below it the
 * unit price would divide by a quantity rounded to 0; above it, overflow to an infinite price.
 */
const unitQuantity = () => float(z.number().min(0.01).max(999_999_999.99));
/**
 * A length, width or height. The platform's typings make it a decimal string (`@decimalValue`,
 * 0 to 999999999, at most 6 places) and the platform SDK sends it as given; a number is taken too,
 * as earlier clients of the emulator sent one. `checkDimensions` checks the value.
 */
const dimension = () =>
  z.union([z.number(), z.string()], { error: 'must be a decimal number or a decimal string' });
const dims = z
  .object({
    length: dimension().optional(),
    width: dimension().optional(),
    height: dimension().optional(),
    unit: z.enum(DIMENSIONS_UNITS).optional(),
  })
  .strict();
export type DimensionsInput = z.output<typeof dims>;
/**
 * Units a unit price may use: the spec's measurement units (the SDK's `MeasurementUnit`, spec
 * point 3) except `UNSPECIFIED`, which no price can be per.
 */
const UNITS = Object.values(MeasurementUnit).filter(
  (u): u is Exclude<MeasurementUnit, 'UNSPECIFIED'> => u !== 'UNSPECIFIED',
);

export const SLUG = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const slug = () => z.string().max(100).regex(SLUG, 'must be lower-case letters, digits and single hyphens');

const option = z
  .object({
    optionType: z.enum(['drop_down', 'color']).optional(),
    // Choices are named by option in JSON objects (`{"Size": "M"}`), where `__proto__` is no key.
    name: z
      .string()
      .trim()
      .min(1)
      .max(50)
      .refine((n) => n !== '__proto__', 'cannot be __proto__'),
    choices: z
      .array(
        z
          .object({
            value: z.string().trim().min(1).max(50).optional(),
            description: z.string().trim().min(1).max(50),
            inStock: z.boolean().optional(),
            visible: z.boolean().optional(),
            media: z.unknown().optional(),
          })
          .strict(),
      )
      .min(1)
      .max(100),
  })
  .passthrough();

/** A product as create and update accept it (every field optional here; create checks `name`). */
export const productInput = z
  .object({
    id: z.string().min(1).optional(),
    name: z.string().trim().min(1).max(80).optional(),
    slug: slug().optional(),
    visible: z.boolean().optional(),
    productType: z.enum(['physical', 'digital']).optional(),
    description: z.string().max(8000).optional(),
    sku: z.string().trim().max(40).optional(),
    weight: weight().optional(),
    priceData: z.object({ price: money() }).passthrough().optional(),
    costAndProfitData: z.object({ itemCost: money() }).passthrough().optional(),
    discount: z
      // An amount off is money (a percentage is checked against 100 below).
      .object({
        type: z.enum(['NONE', 'AMOUNT', 'PERCENT']),
        // A float field as the others: "NaN" and "Infinity" refused as not finite.
        value: money().optional(),
      })
      .strict()
      .optional(),
    ribbon: z.string().trim().max(30).optional(),
    brand: z.string().trim().max(50).optional(),
    stock: z
      .object({
        trackInventory: z.boolean().optional(),
        quantity: z.number().int().min(0).max(1e6).optional(),
        inStock: z.boolean().optional(),
      })
      .passthrough()
      .optional(),
    manageVariants: z.boolean().optional(),
    pricePerUnitData: z
      .object({
        totalQuantity: unitQuantity(),
        totalMeasurementUnit: z.enum(UNITS),
        baseQuantity: unitQuantity(),
        baseMeasurementUnit: z.enum(UNITS),
      })
      .strict()
      .optional(),
    productDimensions: dims.optional(),
    packageDimensions: dims.optional(),
    additionalInfoSections: z
      .array(
        z.object({ title: z.string().trim().min(1).max(100), description: z.string().max(16_000) }).strict(),
      )
      .max(10)
      .optional(),
    customTextFields: z
      .array(
        z
          .object({
            title: z.string().trim().min(1).max(100),
            maxLength: z.number().int().min(1).max(500).optional(),
            mandatory: z.boolean().optional(),
          })
          .strict(),
      )
      .max(2)
      .optional(),
    productOptions: z.array(option).max(MAX_OPTIONS).optional(),
    // The platform's `SeoSchema` (the SDK's `SeoData`); fields beyond its typings are kept. Bounded
    // as the product's other lists are, and as a whole (a tag's props and kept fields take any
    // value): a page's head has some tens of tags, not thousands.
    seoData: z
      .object({
        tags: z
          .array(
            z
              .object({
                type: z.string().optional(),
                props: z.record(z.string(), z.unknown()).nullish(),
                meta: z.record(z.string(), z.unknown()).nullish(),
                children: z.string().optional(),
                custom: z.boolean().optional(),
                disabled: z.boolean().optional(),
              })
              .passthrough(),
          )
          .max(MAX_SEO_TAGS)
          .optional(),
        settings: z
          .object({
            preventAutoRedirect: z.boolean().optional(),
            keywords: z
              .array(
                z
                  .object({
                    term: z.string().optional(),
                    isMain: z.boolean().optional(),
                    origin: z.string().nullish(),
                  })
                  .passthrough(),
              )
              .max(5)
              .optional(),
          })
          .passthrough()
          .optional(),
      })
      .strict()
      .refine((seo) => JSON.stringify(seo).length <= MAX_SEO_CHARS, {
        message: `must be at most ${MAX_SEO_CHARS} characters as JSON`,
      })
      .optional(),
  })
  // Read-only fields a client may echo back are ignored.
  .passthrough();
export type ProductInput = z.output<typeof productInput>;

type V = Omit<Violation, 'data' | 'violatedRule'> & Partial<Violation>;

/** Decimal places: at most `scale`, reported as DECIMAL_MAX_SCALE. */
function checkScale(out: V[], field: string, value: number | string | undefined, scale: number) {
  if (value === undefined) return undefined;
  const n = scaled(value, scale);
  if (n === undefined)
    out.push({
      field,
      description: `must have at most ${scale} decimal places`,
      violatedRule: 'DECIMAL_MAX_SCALE',
      data: { maxScale: scale },
    });
  return n;
}

const HEX = /^#[0-9a-fA-F]{6}$/;

const DIMENSION_SCALE = 6;
const MAX_DIMENSION = 999_999_999;
const DECIMAL_TEXT = /^-?\d+(?:\.\d+)?$/;

/** One length, width or height as its canonical decimal string (`'10.5'`), or a violation. */
function checkDimension(out: V[], field: string, value: number | string): string | undefined {
  if (typeof value === 'string' && !DECIMAL_TEXT.test(value)) {
    out.push({ field, description: 'must be a decimal number such as 10.5', violatedRule: 'FORMAT' });
    return undefined;
  }
  const n = Number(value);
  if (n < 0 || n > MAX_DIMENSION) {
    const low = n < 0;
    out.push({
      field,
      description: `must be ${low ? 'at least 0' : `at most ${MAX_DIMENSION}`}`,
      violatedRule: low ? 'DECIMAL_GTE' : 'DECIMAL_LTE',
      data: low ? { min: 0 } : { max: MAX_DIMENSION },
    });
    return undefined;
  }
  const scaledValue = checkScale(out, field, value, DIMENSION_SCALE);
  return scaledValue === undefined ? undefined : unscaled(scaledValue, DIMENSION_SCALE);
}

/**
 * Checks product or package dimensions as a write gives them, and returns what sets them over those
 * stored (`base`, a product's or a variant's own): the fields given replace theirs and the others
 * are kept, as a PATCH of `stock` keeps the stock fields it does not name. Stored and answered as
 * decimal strings, as the platform answers them, and with a unit always (the typings'
 * non-nullable `productDimensions.unit`).
 */
export function checkDimensions(
  out: V[],
  field: string,
  d: DimensionsInput | undefined,
): ((base: Dimensions | undefined) => Dimensions) | undefined {
  if (!d) return undefined;
  const given: Partial<Dimensions> = d.unit === undefined ? {} : { unit: d.unit };
  for (const key of ['length', 'width', 'height'] as const) {
    const value = d[key];
    const text = value === undefined ? undefined : checkDimension(out, `${field}.${key}`, value);
    if (text !== undefined) given[key] = text;
  }
  return (base) => ({ ...base, ...given, unit: given.unit ?? base?.unit ?? 'UNKNOWN_DIMENSIONS_UNIT' });
}

/**
 * Applies a validated product input to a state (a fresh one for create). Throws the platform's 400
 * with every violation found. `prefix` is where the product sits in the message (`product.`).
 */
export function applyProductInput(p: ProductState, input: ProductInput, prefix = 'product.'): ProductState {
  const bad: V[] = [];
  const f = (name: string) => prefix + name;
  const next: ProductState = { ...p };
  if (input.name !== undefined) next.name = input.name;
  if (input.visible !== undefined) next.visible = input.visible;
  if (input.productType !== undefined) next.productType = input.productType;
  // A product without a description reads `""`: that sent back (a read product echoed) is no change.
  if (input.description !== undefined && input.description !== (p.description ?? ''))
    next.description = input.description;
  if (input.sku !== undefined) next.sku = input.sku || undefined;
  if (input.ribbon !== undefined) next.ribbon = input.ribbon || undefined;
  if (input.brand !== undefined) next.brand = input.brand || undefined;
  if (input.manageVariants !== undefined) next.manageVariants = input.manageVariants;
  // Variants' own prices and the rest apply while they are kept: turning the flag off alone would
  // leave a product reading "variants not managed" that charges per-variant prices.
  // Every option removed in the same write drops those variants (one fresh variant is left).
  const dropsVariants = input.productOptions?.length === 0 && p.productOptions.length > 0;
  if (input.manageVariants === false && p.manageVariants && !dropsVariants && p.variants.some(hasOverrides))
    bad.push({
      field: f('manageVariants'),
      description:
        'cannot be false while variants have a price, cost, weight, SKU, visibility or dimensions of their own: reset them first (POST /v1/products/{id}/variants/resetToDefault)',
    });
  const productDimensions = checkDimensions(bad, f('productDimensions'), input.productDimensions);
  if (productDimensions) next.productDimensions = productDimensions(p.productDimensions);
  const packageDimensions = checkDimensions(bad, f('packageDimensions'), input.packageDimensions);
  if (packageDimensions) next.packageDimensions = packageDimensions(p.packageDimensions);
  if (input.additionalInfoSections) next.additionalInfoSections = input.additionalInfoSections;
  if (input.customTextFields)
    next.customTextFields = input.customTextFields.map((c) => ({
      title: c.title,
      maxLength: c.maxLength ?? 500,
      mandatory: c.mandatory ?? false,
    }));
  if (input.seoData) next.seoData = input.seoData;
  const w = checkScale(bad, f('weight'), input.weight, WEIGHT_SCALE);
  if (w !== undefined) next.weight = w;
  const price = checkScale(bad, f('priceData.price'), input.priceData?.price, 2);
  if (price !== undefined) next.price = price;
  const cost = checkScale(bad, f('costAndProfitData.itemCost'), input.costAndProfitData?.itemCost, 2);
  if (cost !== undefined) next.cost = cost;
  if (input.pricePerUnitData) {
    const u = input.pricePerUnitData;
    if (!compatibleUnits(u.totalMeasurementUnit, u.baseMeasurementUnit))
      bad.push({
        field: f('pricePerUnitData.baseMeasurementUnit'),
        description: `cannot be compared with ${u.totalMeasurementUnit}`,
      });
    next.pricePerUnitData = u;
  }
  if (input.discount) {
    const { type, value = 0 } = input.discount;
    let d: Discount | undefined = { type, value: 0 };
    if (type === 'AMOUNT') {
      const v = checkScale(bad, f('discount.value'), value, 2);
      d = v === undefined ? undefined : { type, value: v };
    } else if (type === 'PERCENT') {
      const v = checkScale(bad, f('discount.value'), value, PERCENT_SCALE);
      if (v !== undefined && value > 100)
        bad.push({
          field: f('discount.value'),
          description: 'must be at most 100 for a percentage',
          violatedRule: 'MAX',
          data: { max: 100 },
        });
      d = v === undefined ? undefined : { type, value: v };
    }
    if (d) next.discount = d;
  }
  if (input.productOptions) {
    const names = new Set<string>();
    const options: ProductOption[] = input.productOptions.map((o, i) => {
      const at = f(`productOptions[${i}]`);
      const type = o.optionType ?? 'drop_down';
      if (names.has(o.name.toLowerCase()))
        bad.push({ field: `${at}.name`, description: `repeats the option name "${o.name}"` });
      names.add(o.name.toLowerCase());
      const seen = new Set<string>();
      const choices = o.choices.map((c, j) => {
        const cat = `${at}.choices[${j}]`;
        if (seen.has(c.description.toLowerCase()))
          bad.push({ field: `${cat}.description`, description: `repeats the choice "${c.description}"` });
        seen.add(c.description.toLowerCase());
        const value = c.value ?? c.description;
        if (type === 'color' && !HEX.test(value))
          bad.push({
            field: `${cat}.value`,
            description: 'must be a colour code such as #1a2b3c for a colour option',
            violatedRule: 'FORMAT',
          });
        return { value, description: c.description, mediaIds: [] as string[] };
      });
      return { optionType: type, name: o.name, choices };
    });
    const count = options.reduce((n, o) => n * o.choices.length, 1);
    if (count > MAX_VARIANTS)
      bad.push({
        field: f('productOptions'),
        description: `would make ${count} variants; at most ${MAX_VARIANTS} are allowed`,
        violatedRule: 'MAX_SIZE',
        data: { max: MAX_VARIANTS },
      });
    next.productOptions = options;
  }
  // Units are counted only while inventory is tracked: a quantity for a product that will not track
  // it would be dropped, and the write answered as if it had been stored.
  if (input.stock?.quantity !== undefined && !(input.stock.trackInventory ?? p.trackInventory))
    bad.push({
      field: f('stock.quantity'),
      description:
        'can only be set for a product that tracks inventory: send stock.trackInventory true with it',
    });
  if (bad.length) throw invalid(bad);
  if (input.productOptions) {
    // Renamed options and choices keep their variants and media (`carryOverOptions`).
    const carried = carryOverOptions(p.productOptions, next.productOptions, p.variants);
    next.productOptions = carried.options;
    next.variants = generateVariants(next.id, carried.options, carried.variants, p.trackInventory);
    // Every option removed leaves one fresh variant, as `DELETE …/options` does, and so does the flag
    // it turns off: PATCH left `manageVariants` true over it, the same product reading otherwise.
    if (dropsVariants && input.manageVariants === undefined) next.manageVariants = false;
  }
  if (input.stock) {
    const s = input.stock;
    if (s.trackInventory !== undefined) next.trackInventory = s.trackInventory;
    // A quantity sets each variant's. The product reads the sum over its variants, so that sum sent
    // back with the rest of the stock it was read with (a read product echoed with a change
    // elsewhere) leaves them as they are: given to each, it would multiply the stock by the number
    // of variants at every save. A quantity sent alone is always set, the sum too.
    const reads = p.trackInventory ? p.variants.reduce((n, v) => n + (v.quantity ?? 0), 0) : undefined;
    // A product read earlier and sent back whole also carries the variants it was read with: a
    // quantity that is their sum was not changed by the caller, only read before orders took
    // units. Set again, it gave every variant that old total (stock that was sold, sold again).
    const echo =
      (s.quantity === reads && Object.keys(s).some((k) => k !== 'quantity')) ||
      (s.quantity !== undefined && s.quantity === echoedQuantity(input));
    const quantity = echo ? undefined : s.quantity;
    // Likewise `inStock`, which reads true while any variant is in stock: sent back with the
    // `inventoryStatus` it was read with, it leaves each variant's as it is (given to each, it put
    // the sold-out ones of a PARTIALLY_OUT_OF_STOCK product back on sale). Sent alone, it sets each.
    const read = productStock(p);
    const echoed =
      next.trackInventory === p.trackInventory &&
      s.inStock === read.inStock &&
      (s as { inventoryStatus?: unknown }).inventoryStatus === read.inventoryStatus;
    const inStock = echoed ? undefined : s.inStock;
    next.variants = next.variants.map((v) => {
      const units = quantity ?? v.quantity ?? 0;
      // A tracked variant is in stock while it has units (`variantInStock`): an `inStock` sent for
      // it is not stored. Stored, it read as no change but moved `lastUpdated` with a
      // `ProductChanged`, and came back when tracking was turned off (a product with units, out of stock).
      return next.trackInventory
        ? { ...v, quantity: units, inStock: units > 0 }
        : { ...v, quantity: null, inStock: inStock ?? v.inStock };
    });
  }
  return next;
}

/**
 * The stock a product's echoed `variants` (a read product sent back whole) add up to: what its
 * `stock.quantity` read then. Undefined unless each echoed variant has an id and a quantity.
 */
function echoedQuantity(input: ProductInput): number | undefined {
  const variants = (input as { variants?: unknown }).variants;
  if (!Array.isArray(variants) || !variants.length) return undefined;
  let sum = 0;
  for (const v of variants) {
    const quantity = (v as { stock?: { quantity?: unknown } } | null)?.stock?.quantity;
    if (typeof (v as { id?: unknown }).id !== 'string' || typeof quantity !== 'number') return undefined;
    sum += quantity;
  }
  return sum;
}

/** A new product's state before input is applied. */
export function blankProduct(id: string, name: string, now: string): ProductState {
  return {
    id,
    name,
    slug: '',
    visible: true,
    productType: 'physical',
    price: 0,
    discount: { type: 'NONE', value: 0 },
    trackInventory: false,
    manageVariants: false,
    additionalInfoSections: [],
    customTextFields: [],
    productOptions: [],
    media: [],
    variants: generateVariants(id, [], []),
    collectionIds: [],
    numericId: '0',
    createdDate: now,
    lastUpdated: now,
  };
}

/** A variant update: which variants (by choices or ids) and what to change. */
export const variantInput = z
  .object({
    choices: z.record(z.string(), z.string()).optional(),
    // An empty list names no variant: refused, not read as "absent" (which would fall back to
    // `choices` and change variants the caller did not name).
    variantIds: z.array(z.string().min(1)).min(1).max(MAX_VARIANTS).optional(),
    price: money().optional(),
    cost: money().optional(),
    weight: weight().optional(),
    sku: z.string().trim().max(40).optional(),
    visible: z.boolean().optional(),
    productDimensions: dims.optional(),
    packageDimensions: dims.optional(),
  })
  .strict();

/**
 * Violations of chosen options (`{optionName: choiceDescription}`) that name no option of the
 * product or no choice of it, on `field.<optionName>` (the request's field that holds them).
 * Names and choices are matched exactly, as everywhere in the catalog and the cart (the wire
 * protocol says nothing of letter case): one that differs only in case is refused with the
 * spelling that matches (unique: a product's names and choices differ in more than case).
 */
export function choiceViolations(p: ProductState, chosen: Record<string, string>, field: string): V[] {
  const other = (a: string, b: string) => a !== b && a.toLowerCase() === b.toLowerCase();
  return Object.entries(chosen).flatMap(([name, choice]) => {
    const o = p.productOptions.find((x) => x.name === name);
    if (!o) {
      const near = p.productOptions.find((x) => other(x.name, name));
      return [
        {
          field: `${field}.${name}`,
          description: near
            ? `is not an option of this product: option names are matched exactly, and its option is "${near.name}"`
            : 'is not an option of this product',
        },
      ];
    }
    if (!o.choices.some((c) => c.description === choice)) {
      const near = o.choices.find((c) => other(c.description, choice));
      return [
        {
          field: `${field}.${name}`,
          description: near
            ? `has no choice "${choice}": choices are matched exactly, and its choice is "${near.description}"`
            : `has no choice "${choice}"`,
        },
      ];
    }
    return [];
  });
}

/** Applies variant updates; returns the ids of the variants changed. */
export function applyVariantUpdates(
  p: ProductState,
  updates: z.output<typeof variantInput>[],
): { next: ProductState; changed: Set<string> } {
  const bad: V[] = [];
  const changed = new Set<string>();
  const variants = p.variants.map((v) => ({ ...v }));
  updates.forEach((u, i) => {
    const at = `variants[${i}]`;
    const price = checkScale(bad, `${at}.price`, u.price, 2);
    const cost = checkScale(bad, `${at}.cost`, u.cost, 2);
    const w = checkScale(bad, `${at}.weight`, u.weight, WEIGHT_SCALE);
    const productDimensions = checkDimensions(bad, `${at}.productDimensions`, u.productDimensions);
    const packageDimensions = checkDimensions(bad, `${at}.packageDimensions`, u.packageDimensions);
    let targets: typeof variants = [];
    if (u.variantIds?.length) {
      for (const [j, id] of u.variantIds.entries()) {
        const v = variants.find((x) => x.id === id);
        if (v) targets.push(v);
        else bad.push({ field: `${at}.variantIds[${j}]`, description: 'is not a variant of this product' });
      }
    } else if (u.choices && Object.keys(u.choices).length) {
      bad.push(...choiceViolations(p, u.choices, `${at}.choices`));
      targets = variants.filter((v) => matchesChoices(v, u.choices!));
    } else
      bad.push({
        field: at,
        description: 'must name its variants by choices or variantIds',
        violatedRule: 'REQUIRED_FIELD',
      });
    for (const v of targets) {
      if (price !== undefined) v.price = price;
      if (cost !== undefined) v.cost = cost;
      if (w !== undefined) v.weight = w;
      if (u.sku !== undefined) v.sku = u.sku || undefined;
      if (u.visible !== undefined) v.visible = u.visible;
      // Over the variant's own: a variant without any starts its own from what is given, not from
      // the product's (whose unit may not be the one given).
      if (productDimensions) v.productDimensions = productDimensions(v.productDimensions);
      if (packageDimensions) v.packageDimensions = packageDimensions(v.packageDimensions);
      changed.add(v.id);
    }
  });
  if (bad.length) throw invalid(bad);
  return { next: { ...p, variants, manageVariants: true }, changed };
}

/** A media item from a media id (generated here) or an external URL. */
export function mediaFrom(
  input: { mediaId?: string; url?: string },
  idFromUrl: (url: string) => string,
): MediaItem {
  if (input.mediaId) {
    const file = input.mediaId.includes('.') ? input.mediaId : `${input.mediaId}.svg`;
    return {
      id: input.mediaId,
      mediaType: /\.(mp4|webm|mov)$/i.test(file) ? 'video' : 'image',
      url: `/media/${file}`,
      width: 800,
      height: 800,
    };
  }
  const url = input.url!;
  const video = /\.(mp4|webm|mov)(?:$|\?)/i.test(url);
  return {
    id: idFromUrl(url),
    mediaType: video ? 'video' : 'image',
    url,
    width: video ? 1280 : 800,
    height: video ? 720 : 800,
  };
}
