/**
 * The catalog enumerations of the product spec (point 3) as typed constants: each is an object
 * whose keys equal their values, and a type of the same name for its union.
 * @example
 * import { InventoryStatus } from '@shopkit/sdk';
 * if (product.stock?.inventoryStatus === InventoryStatus.OUT_OF_STOCK) …
 * @module
 */

type Enum<T extends string> = { readonly [K in T]: K };
const e = <T extends string>(...keys: T[]): Enum<T> =>
  Object.freeze(Object.fromEntries(keys.map((k) => [k, k]))) as Enum<T>;
type Of<T> = T[keyof T];

/** What kind of product it is. */
export const ProductType = /* @__PURE__ */ e('unspecified_product_type', 'physical', 'digital');
export type ProductType = Of<typeof ProductType>;

/** A product's stock over its variants. */
export const InventoryStatus = /* @__PURE__ */ e('IN_STOCK', 'OUT_OF_STOCK', 'PARTIALLY_OUT_OF_STOCK');
export type InventoryStatus = Of<typeof InventoryStatus>;

/** Units of unit pricing (`pricePerUnitData`). */
export const MeasurementUnit = /* @__PURE__ */ e(
  'UNSPECIFIED',
  'ML',
  'CL',
  'L',
  'CBM',
  'MG',
  'G',
  'KG',
  'MM',
  'CM',
  'M',
  'SQM',
  'OZ',
  'LB',
  'FLOZ',
  'PT',
  'QT',
  'GAL',
  'IN',
  'FT',
  'YD',
  'SQFT',
);
export type MeasurementUnit = Of<typeof MeasurementUnit>;

/** The kind of a product media item. */
export const MediaItemType = /* @__PURE__ */ e(
  'unspecified_media_item_type',
  'image',
  'video',
  'audio',
  'document',
  'zip',
);
export type MediaItemType = Of<typeof MediaItemType>;

/** How a product option is shown: a drop-down or colour swatches. */
export const OptionType = /* @__PURE__ */ e('unspecified_option_type', 'drop_down', 'color');
export type OptionType = Of<typeof OptionType>;

/** A product's discount (catalog; the cart's discount types are `DiscountType`). */
export const ProductDiscountType = /* @__PURE__ */ e('UNDEFINED', 'NONE', 'AMOUNT', 'PERCENT');
export type ProductDiscountType = Of<typeof ProductDiscountType>;

/** Which catalog a store runs. */
export const CatalogVersion = /* @__PURE__ */ e('V1_CATALOG', 'V3_CATALOG');
export type CatalogVersion = Of<typeof CatalogVersion>;

/** Sort order of a query (the type is also exported as `SortOrder`). */
export const QuerySortOrder = /* @__PURE__ */ e('ASC', 'DESC');
export type QuerySortOrder = Of<typeof QuerySortOrder>;
