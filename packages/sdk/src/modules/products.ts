/**
 * Stores catalog v1 (wire §5.3): product reads (get, query, options availability, variants, store
 * variants, v1 collection by slug) and the elevated writes (products, variants, media, options,
 * collections, bulk edits). Prices, weights and ranges go through the non-finite-number transform,
 * timestamps become `Date`, store-variant media become `wix:image://` / `wix:video://` references.
 * @example
 * const client = createClient({ baseUrl, auth: OAuthStrategy({ clientId }), modules: { products } });
 * const page = await client.products.queryProducts().hasSome('collectionIds', [id]).ascending('price').find();
 * @module
 */
import type { AnyClient } from '../client.ts';
import type {
  InventoryStatus,
  MeasurementUnit,
  MediaItemType,
  OptionType,
  ProductDiscountType,
  ProductType,
} from '../enums/catalog.ts';
import { fail } from '../http/engine.ts';
import { ValidationError } from '../http/errors.ts';
import { type CallOptions, type OpSpec, op } from '../http/op.ts';
import { type CursorQuery, type PagingMetadata, QUERY_REQ, QueryBuilder } from '../query.ts';
import { date, float, image, nest, video } from '../transforms.ts';
import type { Collection } from './collections.ts';

export interface FormattedPrice {
  price?: string;
  discountedPrice?: string;
  pricePerUnit?: string;
}
/** Prices in the store currency; `discountedPrice` after the product discount. */
export interface PriceData {
  currency?: string;
  price?: number;
  discountedPrice?: number;
  pricePerUnit?: number;
  formatted?: FormattedPrice;
}
export interface CostAndProfitData {
  itemCost?: number;
  formattedItemCost?: string;
  profit?: number;
  formattedProfit?: string;
  /** Profit ÷ the discounted price, a fraction rounded to 4 places (`0.5536` for 55.36 %). */
  profitMargin?: number;
}
export interface NumericRange {
  minValue?: number;
  maxValue?: number;
}
export interface PricePerUnitData {
  totalQuantity?: number;
  totalMeasurementUnit?: MeasurementUnit;
  baseQuantity?: number;
  baseMeasurementUnit?: MeasurementUnit;
}
export interface Stock {
  trackInventory?: boolean;
  quantity?: number;
  inStock?: boolean;
  inventoryStatus?: InventoryStatus;
}
/** The unit of product and package dimensions. */
export type DimensionsUnit = 'UNKNOWN_DIMENSIONS_UNIT' | 'MM' | 'CM' | 'M' | 'IN' | 'FT' | 'YD';
/** Product or package dimensions as the platform sends them: decimal strings such as `'10.5'`. */
export interface Dimensions {
  length?: string;
  width?: string;
  height?: string;
  unit?: DimensionsUnit;
}
/** Dimensions to write: numbers or decimal strings, from 0 to 999999999 with at most 6 decimals. */
export interface DimensionsInput {
  length?: number | string;
  width?: number | string;
  height?: number | string;
  unit?: DimensionsUnit;
}
export interface MediaImage {
  url: string;
  width?: number;
  height?: number;
  format?: string;
  altText?: string;
}
/** A v1 product media item (plain objects, no `wix:image` conversion). */
export interface MediaItem {
  id?: string;
  title?: string;
  mediaType?: MediaItemType;
  image?: MediaImage;
  thumbnail?: MediaImage;
  video?: { files?: MediaImage[]; stillFrameMediaId?: string };
}
export interface Media {
  mainMedia?: MediaItem;
  items?: MediaItem[];
}
export interface Choice {
  /** The colour code of a colour choice, else the shown text. */
  value?: string;
  /** The shown text; variants name choices by it. */
  description?: string;
  media?: Media;
  inStock?: boolean;
  visible?: boolean;
}
export interface ProductOption {
  optionType?: OptionType;
  name?: string;
  choices?: Choice[];
}
export interface Discount {
  type?: ProductDiscountType;
  value?: number;
}
export interface VariantData {
  priceData?: PriceData;
  convertedPriceData?: PriceData;
  costAndProfitData?: CostAndProfitData;
  weight?: number;
  sku?: string;
  visible?: boolean;
  /** The variant's own, else the product's. */
  productDimensions?: Dimensions;
  packageDimensions?: Dimensions;
}
export interface VariantStock {
  trackQuantity?: boolean;
  quantity?: number;
  inStock?: boolean;
}
/** A product variant: its choices (option name → choice description), data and stock. */
export interface Variant {
  id: string;
  choices: Record<string, string>;
  variant?: VariantData;
  stock?: VariantStock;
}
/** A product's SEO data: the tags of its page and the SEO settings (the platform's `SeoSchema`). */
export interface SeoData {
  tags?: SeoTag[];
  settings?: {
    /** Whether visits to the page's old URL are not redirected to the new one (default `false`). */
    preventAutoRedirect?: boolean;
    /** The page's keywords, at most 5. */
    keywords?: { term?: string; isMain?: boolean; origin?: string | null }[];
  };
}

/** One SEO tag of a product page: `title`, `meta`, `script` or `link`. */
export interface SeoTag {
  type?: string;
  /** The tag's attributes, e.g. `{ name: 'description', content: '…' }`. */
  props?: Record<string, unknown> | null;
  /** The tag's metadata, e.g. `{ height: 300, width: 240 }`. */
  meta?: Record<string, unknown> | null;
  /** The tag's inner content: `<title>inner content</title>`. */
  children?: string;
  /** Whether the tag is one of the site's custom tags. */
  custom?: boolean;
  /** Whether the tag is left out of the page. */
  disabled?: boolean;
}

export interface Product {
  id: string;
  name: string;
  slug: string;
  visible?: boolean;
  productType?: ProductType;
  description?: string;
  sku?: string;
  weight?: number;
  weightRange?: NumericRange;
  stock?: Stock;
  price?: PriceData;
  priceData?: PriceData;
  convertedPriceData?: PriceData;
  priceRange?: NumericRange;
  /** With `includeMerchantSpecificData` (elevated callers). */
  costAndProfitData?: CostAndProfitData;
  costRange?: NumericRange;
  pricePerUnitData?: PricePerUnitData;
  productDimensions?: Dimensions;
  packageDimensions?: Dimensions;
  additionalInfoSections?: { title?: string; description?: string }[];
  ribbons?: { text?: string }[];
  media?: Media;
  customTextFields?: { title?: string; maxLength?: number; mandatory?: boolean }[];
  manageVariants?: boolean;
  productOptions?: ProductOption[];
  productPageUrl?: { base?: string; path?: string };
  numericId?: string;
  inventoryItemId?: string;
  discount?: Discount;
  collectionIds?: string[];
  variants?: Variant[];
  lastUpdated?: Date;
  createdDate?: Date;
  seoData?: SeoData;
  ribbon?: string;
  brand?: string;
}

/** What update accepts (a PATCH: every field optional); create takes a `NewProduct`. */
export interface ProductInput {
  name?: string;
  slug?: string;
  visible?: boolean;
  productType?: 'physical' | 'digital';
  description?: string;
  sku?: string;
  weight?: number;
  priceData?: { price: number };
  costAndProfitData?: { itemCost: number };
  /** `NONE`, `AMOUNT` or `PERCENT` (wire §5.3); `UNDEFINED` is only ever read. */
  discount?: { type: Exclude<ProductDiscountType, 'UNDEFINED'>; value?: number };
  ribbon?: string;
  brand?: string;
  stock?: { trackInventory?: boolean; quantity?: number; inStock?: boolean };
  manageVariants?: boolean;
  /** A price per unit: both quantities and both units (a real unit, not `UNSPECIFIED`). */
  pricePerUnitData?: {
    totalQuantity: number;
    totalMeasurementUnit: Exclude<MeasurementUnit, 'UNSPECIFIED'>;
    baseQuantity: number;
    baseMeasurementUnit: Exclude<MeasurementUnit, 'UNSPECIFIED'>;
  };
  productDimensions?: DimensionsInput;
  packageDimensions?: DimensionsInput;
  additionalInfoSections?: { title: string; description: string }[];
  customTextFields?: { title: string; maxLength?: number; mandatory?: boolean }[];
  productOptions?: {
    optionType?: OptionType;
    name: string;
    choices: { value?: string; description: string }[];
  }[];
  seoData?: SeoData;
}

/**
 * What create accepts: a `ProductInput` with the fields the platform requires on create (the
 * emulator refuses a create without them as REQUIRED_FIELD: `product.name`, `product.productType`,
 * `product.priceData.price`).
 * @example createProduct(client, { name: 'Mug', productType: 'physical', priceData: { price: 12 } })
 */
export type NewProduct = ProductInput & {
  name: string;
  productType: NonNullable<ProductInput['productType']>;
  priceData: NonNullable<ProductInput['priceData']>;
};

export interface SelectedVariant {
  id: string;
  choices: Record<string, string>;
  price?: PriceData;
  convertedPriceData?: PriceData;
  weight?: number;
  sku?: string;
  visible?: boolean;
  inStock?: boolean;
  quantity?: number;
  productDimensions?: Dimensions;
  packageDimensions?: Dimensions;
}
export interface ProductOptionsAvailability {
  /** The variant the options select, or null until every option is chosen. */
  selectedVariant: SelectedVariant | null;
  media?: Media;
  productOptions?: ProductOption[];
  availableForPurchase: boolean;
}

/** A store variant: a variant with its product's names, stock, collections and media. */
export interface StoreVariant {
  /** `{productId}-{variantId}`. */
  id: string;
  variantId: string;
  productId: string;
  variantName?: string;
  productName?: string;
  managedVariant?: boolean;
  sku?: string;
  stock?: VariantStock;
  choices?: Record<string, string>;
  collectionIds?: string[];
  /** `wix:image://…` / `wix:video://…` references, or plain URLs. */
  media?: { image?: string; video?: string };
}

export interface QueryProductsOptions {
  /** Include each product's `variants`. */
  includeVariants?: boolean;
  /**
   * Include hidden products. Without it the platform answers visible products only, to merchants
   * too (it adds `visible = true` to the filter). Elevated callers only; 403 for others.
   */
  includeHiddenProducts?: boolean;
  /** Cost and profit data; elevated callers only. */
  includeMerchantSpecificData?: boolean;
}
export interface QueryProductsResponse {
  products: Product[];
  metadata: PagingMetadata;
}
export interface QueryProductVariantsOptions {
  choices?: Record<string, string>;
  variantIds?: string[];
  paging?: { limit?: number; offset?: number };
  includeMerchantSpecificData?: boolean;
}
export interface QueryProductVariantsResponse {
  variants: Variant[];
  metadata: { items?: number; offset?: number };
  totalResults: number;
}
export type { CursorQuery } from '../query.ts';
export type StoreVariantsQuery = CursorQuery;
export interface QueryStoreVariantsResponse {
  variants: StoreVariant[];
  metadata: PagingMetadata;
}
export interface VariantUpdate {
  choices?: Record<string, string>;
  variantIds?: string[];
  price?: number;
  cost?: number;
  weight?: number;
  sku?: string;
  visible?: boolean;
  productDimensions?: DimensionsInput;
  packageDimensions?: DimensionsInput;
}
/** A media item to add: a media id or a URL (exactly one, wire §5.3), optionally to a choice. */
export type MediaInput = ({ mediaId: string; url?: never } | { url: string; mediaId?: never }) & {
  choice?: { option: string; choice: string };
};
export interface ChoiceMedia {
  option: string;
  choice: string;
  mediaIds: string[];
}
/** What update accepts (create needs a `name`: {@link NewCollection}). */
export interface CollectionInput {
  name?: string;
  description?: string;
  slug?: string;
  visible?: boolean;
  /** The main image, as the readers answer it: a URL, its pixel sizes and alt text. */
  media?: {
    mainMedia?: { image: { url: string; width?: number; height?: number; altText?: string } };
  };
}
/** What create accepts: `{name, description?, slug?, visible?}` (wire §5.3), and media. */
export type NewCollection = CollectionInput & { name: string };
export interface BulkResult {
  results: {
    itemMetadata: {
      id?: string;
      originalIndex: number;
      success: boolean;
      error?: { code: string; description: string; data?: Record<string, unknown> };
    };
  }[];
  bulkActionMetadata: { totalSuccesses: number; totalFailures: number; undetailedFailures: number };
}
/** Exactly one of the fields of `T`: the others are `never` (a plain union lets both through). */
type OneOf<T> = { [K in keyof T]: Pick<T, K> & { [O in Exclude<keyof T, K>]?: never } }[keyof T];
/** One property to set on every product (wire §5.3: `set:{price | cost | weight | ribbon | brand}`). */
export type BulkSet = OneOf<{ price: number; cost: number; weight: number; ribbon: string; brand: string }>;
/** An amount to add, or a percentage (`rate` 10 for +10 %, `roundToInt` to whole currency units). */
export type Adjustment = OneOf<{ amount: number; percentage: { rate: number; roundToInt?: boolean } }>;
/** One property to adjust on every product (wire §5.3: `adjust:{price | cost | weight}`). */
export type BulkAdjust = OneOf<{ price: Adjustment; cost: Adjustment; weight: Adjustment }>;

// ---- Transformed fields (wire §5.3).
const PRICE = { price: float, discountedPrice: float, pricePerUnit: float };
const RANGE = { minValue: float, maxValue: float };
const COST = { itemCost: float, profit: float, profitMargin: float };
const VARIANT = { priceData: PRICE, convertedPriceData: PRICE, costAndProfitData: COST, weight: float };
const PRODUCT = {
  weight: float,
  price: PRICE,
  priceData: PRICE,
  convertedPriceData: PRICE,
  costAndProfitData: COST,
  weightRange: RANGE,
  priceRange: RANGE,
  costRange: RANGE,
  pricePerUnitData: { totalQuantity: float, baseQuantity: float },
  discount: { value: float },
  variants: { variant: VARIANT },
  lastUpdated: date,
  createdDate: date,
};
const POSTER = { urlExpirationDate: date, focalPoint: { x: float, y: float } };
const STORE_VARIANT = {
  media: {
    image: /* @__PURE__ */ nest(image, POSTER),
    video: /* @__PURE__ */ nest(video, {
      urlExpirationDate: date,
      resolutions: { urlExpirationDate: date, poster: POSTER },
      posters: POSTER,
    }),
  },
};
const collection = { collection: { lastUpdated: date } };
const ADJUST = { amount: float, percentage: { rate: float } };

/** A call that answers `{}`: resolves to nothing. */
/* @__NO_SIDE_EFFECTS__ */
function voidOp<A extends unknown[]>(spec: OpSpec) {
  const f = /* @__PURE__ */ op<A, unknown>({ ...spec, elevated: true });
  return Object.assign(
    async (client: AnyClient, ...args: [...A, CallOptions?]): Promise<void> => {
      await f(client, ...args);
    },
    { spec: f.spec },
  );
}

/**
 * A call whose argument number `at` must pass `ok` before its message is built, else a violation of
 * that argument: for values the message would lose without a word (a patch that is no object is
 * replaced by `{id}`; media ids left out read as "every media item"). The elevation check comes
 * first, as in every call: an unelevated client is told that, whatever its arguments.
 */
/* @__NO_SIDE_EFFECTS__ */
function guarded<A extends unknown[], R>(
  f: ((client: AnyClient, ...args: [...A, CallOptions?]) => Promise<R>) & { spec: OpSpec },
  at: number,
  ok: (value: unknown) => boolean,
  description: string,
) {
  const { spec } = f;
  return Object.assign(
    async (client: AnyClient, ...args: [...A, CallOptions?]): Promise<R> => {
      if (client.auth?.elevated && !ok(args[at]))
        fail(
          client,
          new ValidationError([{ field: spec.args![at]!.split(':')[0]!, description }]),
          spec.method,
          spec.path,
        );
      return f(client, ...args);
    },
    { spec },
  );
}
/** A patch: an object, or nothing (an empty patch). */
const isPatch = (v: unknown) => v == null || (typeof v === 'object' && !Array.isArray(v));

// ---- Reads.

/** GET `/stores-reader/v1/products/{id}` → `{product}` (with variants). */
export const getProduct = /* @__PURE__ */ op<
  [id: string, options?: { includeMerchantSpecificData?: boolean }],
  { product: Product }
>({
  method: 'GET',
  path: '/stores-reader/v1/products/{id}',
  args: ['id', 'options:'],
  res: { product: PRODUCT },
});

const queryOp = /* @__PURE__ */ op<
  [query: CursorQuery, options?: QueryProductsOptions],
  QueryProductsResponse
>({
  method: 'GET',
  path: '/stores-reader/v1/products/query-platformized',
  args: ['query', 'options:'],
  complexQuery: true,
  fallback: true,
  req: QUERY_REQ,
  res: { products: PRODUCT },
});

/**
 * Queries products. With a query (an object with `filter`, `sort`, `paging` or `cursorPaging`, or
 * any object followed by options or call options), one call that returns `{products, metadata}`;
 * otherwise a builder, optionally with options. Hidden
 * products only with `includeHiddenProducts`. Builder fields: `id`,
 * `createdDate`, `lastUpdated`, `name`, `description`, `sku`, `price`, `priceData.price`,
 * `numericId`, `productType`, `slug`, `visible`, `collectionIds` (`hasSome`/`hasAll`).
 * @example for await (const p of client.products.queryProducts().ge('price', 20)) console.log(p.name);
 */
export function queryProducts(client: AnyClient, options?: QueryProductsOptions): QueryBuilder<Product>;
export function queryProducts(
  client: AnyClient,
  query: CursorQuery,
  options?: QueryProductsOptions,
  callOptions?: CallOptions,
): Promise<QueryProductsResponse>;
export function queryProducts(
  client: AnyClient,
  ...args: [
    query?: CursorQuery | QueryProductsOptions,
    options?: QueryProductsOptions,
    callOptions?: CallOptions,
  ]
) {
  const [query, options, callOptions] = args;
  // A query (even `{}`, which has none of the query's keys) once options or call options follow it.
  // A value that is no object is a query too: sent, for the platform to refuse as it refuses
  // queryCollections' (`in` on it threw a TypeError at once, past `onError`).
  if (
    query &&
    (typeof query !== 'object' ||
      ['filter', 'sort', 'paging', 'cursorPaging'].some((k) => k in query) ||
      args.length > 1)
  )
    return queryOp(client, query as CursorQuery, options, callOptions);
  return new QueryBuilder<Product>(async (q, o) => {
    const r = await queryOp(client, q, query as QueryProductsOptions | undefined, o);
    return { items: r.products, metadata: r.metadata };
  });
}

/** GET `/stores-reader/v1/collections/slug/{slug}` → `{collection}` (v1 shape). */
export const getCollectionBySlug = /* @__PURE__ */ op<[slug: string], { collection: Collection }>({
  method: 'GET',
  path: '/stores-reader/v1/collections/slug/{slug}',
  args: ['slug'],
  res: collection,
});

/** Which variant the chosen options (`{optionName: choiceDescription}`) select, and whether it can be bought. */
export const getProductOptionsAvailability = /* @__PURE__ */ op<
  [id: string, options: Record<string, string>],
  ProductOptionsAvailability
>({
  method: 'POST',
  path: '/stores-reader/v1/products/{id}/productOptionsAvailability',
  args: ['id', 'options'],
  idempotent: true,
  res: { selectedVariant: { weight: float, price: PRICE, convertedPriceData: PRICE } },
});

/** A product's variants, by ids or else by choices (ignored when ids are given), offset-paged. */
export const queryProductVariants = /* @__PURE__ */ op<
  [id: string, options?: QueryProductVariantsOptions],
  QueryProductVariantsResponse
>({
  method: 'POST',
  path: '/stores-reader/v1/products/{id}/variants/query',
  args: ['id', 'options:'],
  idempotent: true,
  res: { variants: { variant: VARIANT } },
});

/**
 * Variants across products (fields `productId`, `variantId`, `sku`, `productName`, `variantName`,
 * `stock.inStock`, …), offset- or cursor-paged.
 */
export const queryStoreVariants = /* @__PURE__ */ op<[query: StoreVariantsQuery], QueryStoreVariantsResponse>(
  {
    method: 'POST',
    path: '/stores-reader/v1/variants/query',
    args: ['query'],
    idempotent: true,
    req: QUERY_REQ,
    res: { variants: STORE_VARIANT },
  },
);

/** GET `/stores-reader/v1/variants/{productId}-{variantId}` → `{variant}`. */
export const getStoreVariant = /* @__PURE__ */ op<[id: string], { variant: StoreVariant }>({
  method: 'GET',
  path: '/stores-reader/v1/variants/{id}',
  args: ['id'],
  res: { variant: STORE_VARIANT },
});

// ---- Writes (elevated clients only).

/** Creates a product (`name`, `productType` and `priceData.price` are required). */
export const createProduct = /* @__PURE__ */ op<[product: NewProduct], { product: Product }>({
  name: 'products.createProduct',
  method: 'POST',
  path: '/stores/v1/products',
  args: ['product'],
  elevated: true,
  req: { product: PRODUCT },
  res: { product: PRODUCT },
});

/** Changes the given fields of a product (PATCH). New options regenerate the variants. */
export const updateProduct = /* @__PURE__ */ guarded(
  /* @__PURE__ */ op<[id: string, product: ProductInput], { product: Product }>({
    name: 'products.updateProduct',
    method: 'PATCH',
    path: '/stores/v1/products/{product.id}',
    args: ['id:product.id', 'product'],
    elevated: true,
    req: { product: PRODUCT },
    res: { product: PRODUCT },
  }),
  1,
  isPatch,
  'must be an object',
);

export const deleteProduct = /* @__PURE__ */ voidOp<[id: string]>({
  name: 'products.deleteProduct',
  method: 'DELETE',
  path: '/stores/v1/products/{id}',
  args: ['id'],
});

/**
 * Overrides price, cost, weight, SKU, visibility or dimensions of the variants each entry selects
 * (by `variantIds`, else by `choices`).
 */
export const updateProductVariants = /* @__PURE__ */ op<
  [id: string, variants: VariantUpdate[]],
  { variants: Variant[] }
>({
  name: 'products.updateProductVariants',
  method: 'PATCH',
  path: '/stores/v1/products/{id}/variants',
  args: ['id', 'variants'],
  elevated: true,
  req: { variants: { price: float, cost: float, weight: float } },
  res: { variants: { variant: VARIANT } },
});

/** Drops every variant override: variants take the product's values again. */
export const resetAllProductVariantData = /* @__PURE__ */ voidOp<[id: string]>({
  name: 'products.resetAllProductVariantData',
  method: 'POST',
  path: '/stores/v1/products/{id}/variants/resetToDefault',
  args: ['id'],
});

export const addProductsToCollection = /* @__PURE__ */ voidOp<[id: string, productIds: string[]]>({
  name: 'products.addProductsToCollection',
  method: 'POST',
  path: '/stores/v1/collections/{id}/productIds',
  args: ['id', 'productIds'],
});

export const removeProductsFromCollection = /* @__PURE__ */ voidOp<[id: string, productIds: string[]]>({
  name: 'products.removeProductsFromCollection',
  method: 'POST',
  path: '/stores/v1/collections/{id}/productIds/delete',
  args: ['id', 'productIds'],
});

/** Adds media by media id or URL, optionally to a choice. */
export const addProductMedia = /* @__PURE__ */ voidOp<[id: string, media: MediaInput[]]>({
  name: 'products.addProductMedia',
  method: 'POST',
  path: '/stores/v1/products/{id}/media',
  args: ['id', 'media'],
});

/**
 * Removes media items; an empty list removes them all. The list is required: left out, the
 * platform would read it as empty and remove every item, so the SDK refuses that instead.
 */
export const removeProductMedia = /* @__PURE__ */ guarded(
  /* @__PURE__ */ voidOp<[id: string, mediaIds: string[]]>({
    name: 'products.removeProductMedia',
    method: 'POST',
    path: '/stores/v1/products/{id}/media/delete',
    args: ['id', 'mediaIds'],
  }),
  1,
  Array.isArray,
  'must be a list of media ids ([] removes every media item)',
);

export const addProductMediaToChoices = /* @__PURE__ */ voidOp<[id: string, media: ChoiceMedia[]]>({
  name: 'products.addProductMediaToChoices',
  method: 'PATCH',
  path: '/stores/v1/products/{id}/choices/media',
  args: ['id', 'media'],
});

export const removeProductMediaFromChoices = /* @__PURE__ */ voidOp<[id: string, media: ChoiceMedia[]]>({
  name: 'products.removeProductMediaFromChoices',
  method: 'POST',
  path: '/stores/v1/products/{id}/choices/media/delete',
  args: ['id', 'media'],
});

/** Removes every option: the product is back to its one default variant. */
export const deleteProductOptions = /* @__PURE__ */ voidOp<[id: string]>({
  name: 'products.deleteProductOptions',
  method: 'DELETE',
  path: '/stores/v1/products/{id}/options',
  args: ['id'],
});

export const removeBrand = /* @__PURE__ */ voidOp<[id: string]>({
  name: 'products.removeBrand',
  method: 'POST',
  path: '/stores/v1/products/{id}/remove-brand',
  args: ['id'],
});

export const removeRibbon = /* @__PURE__ */ voidOp<[id: string]>({
  name: 'products.removeRibbon',
  method: 'POST',
  path: '/stores/v1/products/{id}/remove-ribbon',
  args: ['id'],
});

/** Creates a collection; its slug is made from the name unless given. */
export const createCollection = /* @__PURE__ */ op<[collection: NewCollection], { collection: Collection }>({
  name: 'products.createCollection',
  method: 'POST',
  path: '/stores/v1/collections',
  args: ['collection'],
  elevated: true,
  req: collection,
  res: collection,
});

/** Changes the given fields of a collection (PATCH). */
export const updateCollection = /* @__PURE__ */ guarded(
  /* @__PURE__ */ op<[id: string, collection: CollectionInput], { collection: Collection }>({
    name: 'products.updateCollection',
    method: 'PATCH',
    path: '/stores/v1/collections/{collection.id}',
    args: ['id:collection.id', 'collection'],
    elevated: true,
    req: collection,
    res: collection,
  }),
  1,
  isPatch,
  'must be an object',
);

export const deleteCollection = /* @__PURE__ */ voidOp<[id: string]>({
  name: 'products.deleteCollection',
  method: 'DELETE',
  path: '/stores/v1/collections/{id}',
  args: ['id'],
});

/** Sets one property (price, cost, weight, ribbon or brand) on many products; per-item results. */
export const bulkUpdateProductsProperty = /* @__PURE__ */ op<[ids: string[], set: BulkSet], BulkResult>({
  name: 'products.bulkUpdateProductsProperty',
  method: 'POST',
  path: '/stores/v1/bulk/products/update',
  args: ['ids', 'set'],
  elevated: true,
  req: { set: { price: float, cost: float, weight: float } },
});

/** Adjusts price, cost or weight of many products by an amount or a percentage; per-item results. */
export const bulkAdjustProductProperty = /* @__PURE__ */ op<[adjust: BulkAdjust, ids: string[]], BulkResult>({
  name: 'products.bulkAdjustProductProperty',
  method: 'POST',
  path: '/stores/v1/bulk/products/adjust-properties',
  args: ['adjust', 'ids'],
  elevated: true,
  // The percentage's rate too (the platform SDK sends only amounts as floats): a NaN rate would
  // go as `null` and be refused as missing, or read as 0 % and change nothing while it "succeeds".
  req: { adjust: { price: ADJUST, cost: ADJUST, weight: ADJUST } },
});
