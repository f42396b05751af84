/**
 * The catalog as other domains see it (the cart, checkout): one call that resolves a product and
 * one of its variants to a priced, stocked catalog item.
 * @module
 */
import type { Emulator } from '../../context.ts';
import type { Sql } from '../../db/index.ts';
import {
  discounted,
  matchesChoices,
  mediaByIds,
  type ProductState,
  type VariantState,
  variantInStock,
  variantPrice,
  variantSku,
  variantVisible,
  variantWeight,
} from './model.ts';
import { STORE_CURRENCY, toDecimalString, toWeight } from './money.ts';
import { loadProduct } from './store.ts';

export { DEFAULT_VARIANT_ID } from './model.ts';
export { STORE_CURRENCY } from './money.ts';

/** The app id of the stores catalog, as line items' `catalogReference.appId` name it. */
export const STORES_APP_ID = '215238eb-22a5-4c36-9e7b-e7c08025e04e';

export interface CatalogItem {
  productId: string;
  /** The variant's id; `00000000-0000-0000-0000-000000000000` for a product without options. */
  variantId: string;
  name: string;
  slug: string;
  /** The product is visible and so is the variant. */
  visible: boolean;
  productType: 'physical' | 'digital';
  /** Decimal strings in the store currency: the price after the product discount, and before. */
  price: string;
  fullPrice: string;
  currency: string;
  sku?: string;
  /** In the store's weight unit. */
  weight?: number;
  /** The variant's first choice image, else the product's main image. `url` is absolute. */
  image?: { id: string; url: string; width: number; height: number; altText?: string };
  /** The chosen options, for description lines. */
  options: Array<{ name: string; choice: string; colorCode?: string }>;
  inStock: boolean;
  /** Units available; null when inventory is not tracked. */
  quantityAvailable: number | null;
}

function pickVariant(
  p: ProductState,
  opts?: { variantId?: string; choices?: Record<string, string> },
): VariantState | undefined {
  if (opts?.variantId) return p.variants.find((v) => v.id === opts.variantId);
  const choices = opts?.choices ?? {};
  const names = Object.keys(choices);
  // The choices must name every option and nothing else, so that they select exactly one variant.
  if (names.length !== p.productOptions.length) return undefined;
  if (!names.every((n) => p.productOptions.some((o) => o.name === n))) return undefined;
  return p.variants.find((v) => matchesChoices(v, choices));
}

/** The catalog item a state and variant describe. */
export function catalogItemOf(emu: Emulator, p: ProductState, v: VariantState): CatalogItem {
  const full = variantPrice(p, v);
  const weight = variantWeight(p, v);
  const sku = variantSku(p, v);
  const options = p.productOptions.flatMap((o) => {
    const description = v.choices[o.name];
    const choice = o.choices.find((c) => c.description === description);
    if (!choice) return [];
    return [
      {
        name: o.name,
        choice: choice.description,
        ...(o.optionType === 'color' ? { colorCode: choice.value } : {}),
      },
    ];
  });
  const choiceMedia = p.productOptions.flatMap((o) => {
    const c = o.choices.find((x) => x.description === v.choices[o.name]);
    return c ? mediaByIds(p, c.mediaIds) : [];
  });
  const img = [...choiceMedia, ...p.media].find((m) => m.mediaType === 'image');
  return {
    productId: p.id,
    variantId: v.id,
    name: p.name,
    slug: p.slug,
    visible: p.visible && variantVisible(v),
    productType: p.productType === 'digital' ? 'digital' : 'physical',
    price: toDecimalString(discounted(full, p.discount)),
    fullPrice: toDecimalString(full),
    currency: STORE_CURRENCY,
    ...(sku !== undefined ? { sku } : {}),
    ...(weight !== undefined ? { weight: toWeight(weight) } : {}),
    ...(img
      ? {
          image: {
            id: img.id,
            url: emu.absoluteUrl(img.url),
            width: img.width,
            height: img.height,
            ...(img.altText ? { altText: img.altText } : {}),
          },
        }
      : {}),
    options,
    inStock: variantInStock(p, v),
    quantityAvailable: p.trackInventory ? Math.max(0, v.quantity ?? 0) : null,
  };
}

/**
 * Resolves a product and one of its variants (by id, or by choices naming every option) to a
 * catalog item. A product without options needs neither (its default variant is used). Returns
 * null when the product or variant does not exist or the choices select nothing.
 */
export async function lookupCatalogItem(
  emu: Emulator,
  sql: Sql,
  productId: string,
  opts?: { variantId?: string; choices?: Record<string, string> },
): Promise<CatalogItem | null> {
  if (typeof productId !== 'string' || !productId) return null;
  const p = await loadProduct(sql, productId);
  if (!p) return null;
  const v = pickVariant(p, opts);
  return v ? catalogItemOf(emu, p, v) : null;
}
