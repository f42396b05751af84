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
import { type AnyClient, op } from '../client.ts';
import type {
  InventoryStatus,
  MeasurementUnit,
  MediaItemType,
  OptionType,
  ProductDiscountType,
  ProductType,
} from '../enums/catalog.ts';
import type { CallOptions, OpSpec } from '../http/op.ts';
import { type PagingMetadata, type PlatformQuery, QueryBuilder } from '../query.ts';
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
  /** Profit as a percentage of the discounted price. */
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
export interface Dimensions {
  length?: number;
  width?: number;
  height?: number;
  unit?: string;
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
  seoData?: { tags?: unknown[]; settings?: Record<string, unknown> };
  ribbon?: string;
  brand?: string;
}

/** What create and update accept. */
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
  discount?: { type: ProductDiscountType; value?: number };
  ribbon?: string;
  brand?: string;
  stock?: { trackInventory?: boolean; quantity?: number; inStock?: boolean };
  manageVariants?: boolean;
  pricePerUnitData?: Required<PricePerUnitData>;
  productDimensions?: Dimensions;
  packageDimensions?: Dimensions;
  additionalInfoSections?: { title: string; description: string }[];
  customTextFields?: { title: string; maxLength?: number; mandatory?: boolean }[];
  productOptions?: {
    optionType?: OptionType;
    name: string;
    choices: { value?: string; description: string }[];
  }[];
  seoData?: { tags?: unknown[]; settings?: Record<string, unknown> };
}

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
  /** Elevated callers only (they always see hidden products); refused with 403 for others. */
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
export interface StoreVariantsQuery extends PlatformQuery {
  cursorPaging?: { limit?: number; cursor?: string };
}
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
  productDimensions?: Dimensions;
  packageDimensions?: Dimensions;
}
export interface MediaInput {
  mediaId?: string;
  url?: string;
  choice?: { option: string; choice: string };
}
export interface ChoiceMedia {
  option: string;
  choice: string;
  mediaIds: string[];
}
export interface CollectionInput {
  name?: string;
  description?: string;
  slug?: string;
  visible?: boolean;
  media?: { mainMedia?: { image: { url: string } } };
}
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
export type BulkSet =
  | { price: number }
  | { cost: number }
  | { weight: number }
  | { ribbon: string }
  | { brand: string };
export type Adjustment = { amount: number } | { percentage: { rate: number; roundToInt?: boolean } };
export type BulkAdjust = { price: Adjustment } | { cost: Adjustment } | { weight: Adjustment };

// ---- Transform paths (wire §5.3).
const at = (prefix: string, paths: string[]) => paths.map((p) => prefix + p);
const PRICE = ['price', 'discountedPrice', 'pricePerUnit'];
const COST = at('costAndProfitData.', ['itemCost', 'profit', 'profitMargin']);
const VARIANT = [...at('priceData.', PRICE), ...at('convertedPriceData.', PRICE), ...COST, 'weight'];
const PRODUCT_FLOATS = [
  'weight',
  ...at('price.', PRICE),
  ...at('priceData.', PRICE),
  ...at('convertedPriceData.', PRICE),
  ...COST,
  ...['weightRange', 'priceRange', 'costRange'].flatMap((r) => at(r + '.', ['minValue', 'maxValue'])),
  'pricePerUnitData.totalQuantity',
  'pricePerUnitData.baseQuantity',
  'discount.value',
  ...at('variants.variant.', VARIANT),
];
const DATES = ['lastUpdated', 'createdDate'];
const product = (root: string) => ({ float: at(root, PRODUCT_FLOATS), date: at(root, DATES) });
const MEDIA_DATES = at('media.', [
  'image.urlExpirationDate',
  'video.urlExpirationDate',
  'video.resolutions.urlExpirationDate',
  'video.resolutions.poster.urlExpirationDate',
  'video.posters.urlExpirationDate',
]);
const MEDIA_FLOATS = at('media.', [
  'image.focalPoint.x',
  'image.focalPoint.y',
  'video.resolutions.poster.focalPoint.x',
  'video.resolutions.poster.focalPoint.y',
  'video.posters.focalPoint.x',
  'video.posters.focalPoint.y',
]);
const storeVariant = (root: string) => ({
  date: at(root, MEDIA_DATES),
  float: at(root, MEDIA_FLOATS),
  image: [root + 'media.image'],
  video: [root + 'media.video'],
});
const collection = { date: ['collection.lastUpdated'] };

const READ = '/stores-reader/v1';
const WRITE = '/stores/v1';

/** A call that answers `{}`: resolves to nothing. */
function voidOp<A extends unknown[]>(spec: OpSpec) {
  const f = op<A, unknown>({ ...spec, elevated: true });
  return Object.assign(
    async (client: AnyClient, ...args: [...A, CallOptions?]): Promise<void> => {
      await f(client, ...args);
    },
    { spec: f.spec },
  );
}

// ---- Reads.

/** GET `/stores-reader/v1/products/{id}` → `{product}` (with variants). */
export const getProduct = op<
  [id: string, options?: { includeMerchantSpecificData?: boolean }],
  { product: Product }
>({
  name: 'products.getProduct',
  method: 'GET',
  path: READ + '/products/{id}',
  args: ['id', 'options:'],
  res: product('product.'),
});

const queryOp = op<[query: PlatformQuery, options?: QueryProductsOptions], QueryProductsResponse>({
  name: 'products.queryProducts',
  method: 'GET',
  path: READ + '/products/query-platformized',
  args: ['query', 'options:'],
  complexQuery: true,
  fallback: true,
  req: { float: ['query.sort.origin.latitude', 'query.sort.origin.longitude'] },
  res: product('products.'),
});

const isQuery = (x: object) => ['filter', 'sort', 'paging', 'cursorPaging'].some((k) => k in x);

/**
 * Queries products. With a query (an object with `filter`, `sort` or `paging`), one call that
 * returns `{products, metadata}`; otherwise a builder, optionally with options. Builder fields: `id`,
 * `createdDate`, `lastUpdated`, `name`, `description`, `sku`, `price`, `priceData.price`,
 * `numericId`, `productType`, `slug`, `visible`, `collectionIds` (`hasSome`/`hasAll`).
 * @example for await (const p of client.products.queryProducts().ge('price', 20)) console.log(p.name);
 */
export function queryProducts(client: AnyClient, options?: QueryProductsOptions): QueryBuilder<Product>;
export function queryProducts(
  client: AnyClient,
  query: PlatformQuery,
  options?: QueryProductsOptions,
  callOptions?: CallOptions,
): Promise<QueryProductsResponse>;
export function queryProducts(
  client: AnyClient,
  query?: PlatformQuery | QueryProductsOptions,
  options?: QueryProductsOptions,
  callOptions?: CallOptions,
) {
  if (query && isQuery(query)) return queryOp(client, query as PlatformQuery, options, callOptions);
  return new QueryBuilder<Product>(async (q) => {
    const r = await queryOp(client, q, query as QueryProductsOptions | undefined);
    return { items: r.products, metadata: r.metadata };
  });
}

/** GET `/stores-reader/v1/collections/slug/{slug}` → `{collection}` (v1 shape). */
export const getCollectionBySlug = op<[slug: string], { collection: Collection }>({
  name: 'products.getCollectionBySlug',
  method: 'GET',
  path: READ + '/collections/slug/{slug}',
  args: ['slug'],
  res: collection,
});

/** Which variant the chosen options (`{optionName: choiceDescription}`) select, and whether it can be bought. */
export const getProductOptionsAvailability = op<
  [id: string, options: Record<string, string>],
  ProductOptionsAvailability
>({
  name: 'products.getProductOptionsAvailability',
  method: 'POST',
  path: READ + '/products/{id}/productOptionsAvailability',
  args: ['id', 'options'],
  idempotent: true,
  res: {
    float: [
      'selectedVariant.weight',
      ...at('selectedVariant.price.', PRICE),
      ...at('selectedVariant.convertedPriceData.', PRICE),
    ],
  },
});

/** A product's variants, by choices or ids, with offset paging. */
export const queryProductVariants = op<
  [id: string, options?: QueryProductVariantsOptions],
  QueryProductVariantsResponse
>({
  name: 'products.queryProductVariants',
  method: 'POST',
  path: READ + '/products/{id}/variants/query',
  args: ['id', 'options:'],
  idempotent: true,
  res: { float: at('variants.variant.', VARIANT) },
});

/** Variants across products (fields `productId`, `variantId`, `sku`, `productName`, `variantName`, `stock.inStock`, …). */
export const queryStoreVariants = op<[query: StoreVariantsQuery], QueryStoreVariantsResponse>({
  name: 'products.queryStoreVariants',
  method: 'POST',
  path: READ + '/variants/query',
  args: ['query'],
  idempotent: true,
  res: storeVariant('variants.'),
});

/** GET `/stores-reader/v1/variants/{productId}-{variantId}` → `{variant}`. */
export const getStoreVariant = op<[id: string], { variant: StoreVariant }>({
  name: 'products.getStoreVariant',
  method: 'GET',
  path: READ + '/variants/{id}',
  args: ['id'],
  res: storeVariant('variant.'),
});

// ---- Writes (elevated clients only).

/** Creates a product (`name`, `productType` and `priceData.price` are required). */
export const createProduct = op<[product: ProductInput], { product: Product }>({
  name: 'products.createProduct',
  method: 'POST',
  path: WRITE + '/products',
  args: ['product'],
  elevated: true,
  req: product('product.'),
  res: product('product.'),
});

/** Changes the given fields of a product (PATCH). New options regenerate the variants. */
export const updateProduct = op<[id: string, product: ProductInput], { product: Product }>({
  name: 'products.updateProduct',
  method: 'PATCH',
  path: WRITE + '/products/{product.id}',
  args: ['id:product.id', 'product'],
  elevated: true,
  req: product('product.'),
  res: product('product.'),
});

export const deleteProduct = voidOp<[id: string]>({
  name: 'products.deleteProduct',
  method: 'DELETE',
  path: WRITE + '/products/{id}',
  args: ['id'],
});

/** Overrides price, cost, weight, SKU or visibility of the variants each entry selects. */
export const updateProductVariants = op<[id: string, variants: VariantUpdate[]], { variants: Variant[] }>({
  name: 'products.updateProductVariants',
  method: 'PATCH',
  path: WRITE + '/products/{id}/variants',
  args: ['id', 'variants'],
  elevated: true,
  req: { float: at('variants.', ['price', 'cost', 'weight']) },
  res: { float: at('variants.variant.', VARIANT) },
});

/** Drops every variant override: variants take the product's values again. */
export const resetAllProductVariantData = voidOp<[id: string]>({
  name: 'products.resetAllProductVariantData',
  method: 'POST',
  path: WRITE + '/products/{id}/variants/resetToDefault',
  args: ['id'],
});

export const addProductsToCollection = voidOp<[id: string, productIds: string[]]>({
  name: 'products.addProductsToCollection',
  method: 'POST',
  path: WRITE + '/collections/{id}/productIds',
  args: ['id', 'productIds'],
});

export const removeProductsFromCollection = voidOp<[id: string, productIds: string[]]>({
  name: 'products.removeProductsFromCollection',
  method: 'POST',
  path: WRITE + '/collections/{id}/productIds/delete',
  args: ['id', 'productIds'],
});

/** Adds media by media id or URL, optionally to a choice. */
export const addProductMedia = voidOp<[id: string, media: MediaInput[]]>({
  name: 'products.addProductMedia',
  method: 'POST',
  path: WRITE + '/products/{id}/media',
  args: ['id', 'media'],
});

/** Removes media items; an empty list removes them all. */
export const removeProductMedia = voidOp<[id: string, mediaIds: string[]]>({
  name: 'products.removeProductMedia',
  method: 'POST',
  path: WRITE + '/products/{id}/media/delete',
  args: ['id', 'mediaIds'],
});

export const addProductMediaToChoices = voidOp<[id: string, media: ChoiceMedia[]]>({
  name: 'products.addProductMediaToChoices',
  method: 'PATCH',
  path: WRITE + '/products/{id}/choices/media',
  args: ['id', 'media'],
});

export const removeProductMediaFromChoices = voidOp<[id: string, media: ChoiceMedia[]]>({
  name: 'products.removeProductMediaFromChoices',
  method: 'POST',
  path: WRITE + '/products/{id}/choices/media/delete',
  args: ['id', 'media'],
});

/** Removes every option: the product is back to its one default variant. */
export const deleteProductOptions = voidOp<[id: string]>({
  name: 'products.deleteProductOptions',
  method: 'DELETE',
  path: WRITE + '/products/{id}/options',
  args: ['id'],
});

export const removeBrand = voidOp<[id: string]>({
  name: 'products.removeBrand',
  method: 'POST',
  path: WRITE + '/products/{id}/remove-brand',
  args: ['id'],
});

export const removeRibbon = voidOp<[id: string]>({
  name: 'products.removeRibbon',
  method: 'POST',
  path: WRITE + '/products/{id}/remove-ribbon',
  args: ['id'],
});

/** Creates a collection; its slug is made from the name unless given. */
export const createCollection = op<[collection: CollectionInput], { collection: Collection }>({
  name: 'products.createCollection',
  method: 'POST',
  path: WRITE + '/collections',
  args: ['collection'],
  elevated: true,
  req: collection,
  res: collection,
});

export const updateCollection = op<[id: string, collection: CollectionInput], { collection: Collection }>({
  name: 'products.updateCollection',
  method: 'PATCH',
  path: WRITE + '/collections/{collection.id}',
  args: ['id:collection.id', 'collection'],
  elevated: true,
  req: collection,
  res: collection,
});

export const deleteCollection = voidOp<[id: string]>({
  name: 'products.deleteCollection',
  method: 'DELETE',
  path: WRITE + '/collections/{id}',
  args: ['id'],
});

/** Sets one property (price, cost, weight, ribbon or brand) on many products; per-item results. */
export const bulkUpdateProductsProperty = op<[ids: string[], set: BulkSet], BulkResult>({
  name: 'products.bulkUpdateProductsProperty',
  method: 'POST',
  path: WRITE + '/bulk/products/update',
  args: ['ids', 'set'],
  elevated: true,
  req: { float: at('set.', ['price', 'cost', 'weight']) },
});

/** Adjusts price, cost or weight of many products by an amount or a percentage; per-item results. */
export const bulkAdjustProductProperty = op<[adjust: BulkAdjust, ids: string[]], BulkResult>({
  name: 'products.bulkAdjustProductProperty',
  method: 'POST',
  path: WRITE + '/bulk/products/adjust-properties',
  args: ['adjust', 'ids'],
  elevated: true,
  req: { float: at('adjust.', ['price.amount', 'cost.amount', 'weight.amount']) },
});
