/**
 * The catalog's lifecycle events, sent as the platform sends catalog v1 events: under its legacy
 * names (`com.wix.ecommerce.catalog.api.v1.ProductCreated`, …) and as plain events, whose data is
 * the payload itself, not a domain event around the entity. The payloads have the shapes of the
 * platform SDK's typings (`ProductCreated`, `ProductChanged`, `VariantsChanged`, `CollectionCreated`,
 * …, with its spelling `collection_Id`); a change names the top-level fields it touched
 * (`changedFields`), from the entity as the write found it and as it left it.
 * @module
 */
import { changedFields } from '../../changes.ts';
import type { Emulator } from '../../context.ts';
import type { Sql } from '../../db/index.ts';
import { findCollection, type WireCollection } from './collections.ts';
import { type ProductState, productToWire } from './model.ts';

/** Product event types. */
export const PRODUCT_EVENTS = {
  created: 'com.wix.ecommerce.catalog.api.v1.ProductCreated',
  changed: 'com.wix.ecommerce.catalog.api.v1.ProductChanged',
  deleted: 'com.wix.ecommerce.catalog.api.v1.ProductDeleted',
  variantsChanged: 'com.wix.ecommerce.catalog.api.v1.VariantsChanged',
} as const;

/** Collection event types. */
export const COLLECTION_EVENTS = {
  created: 'com.wix.ecommerce.catalog.api.v1.CollectionCreated',
  changed: 'com.wix.ecommerce.catalog.api.v1.CollectionChanged',
  deleted: 'com.wix.ecommerce.catalog.api.v1.CollectionDeleted',
} as const;

/** Every catalog event type: all of them plain events. */
export const CATALOG_EVENTS = [...Object.values(PRODUCT_EVENTS), ...Object.values(COLLECTION_EVENTS)];

/** Which catalog a payload comes from: the emulator serves catalog v1. */
const V1 = { originatedFromVersion: 'V1_CATALOG' } as const;

type WireProduct = ReturnType<typeof productToWire>;
type WireVariant = NonNullable<WireProduct['variants']>[number];

/** A product as the merchant reads it, with its variants: what changes are named against. */
const merchantView = (emu: Emulator, p: ProductState) =>
  productToWire(p, { absoluteUrl: emu.absoluteUrl, merchant: true, variants: true });

/** `ProductCreated`: the new product's main fields (those it has). */
export const productCreated = (p: WireProduct) => ({
  productId: p.id,
  name: p.name,
  price: p.price,
  visible: p.visible,
  media: p.media,
  sku: p.sku,
  productPageUrl: p.productPageUrl,
  brand: p.brand,
  costAndProfitData: p.costAndProfitData,
  slug: p.slug,
  ...V1,
});

/** `ProductChanged`: the product and the top-level fields of it that changed. */
export const productChanged = (productId: string, fields: string[]) => ({
  productId,
  changedFields: fields,
  ...V1,
});

/** `ProductDeleted`. */
export const productDeleted = (productId: string) => ({ productId, ...V1 });

/** A variant's fields as its changes name them: those of its data (`priceData`, `sku`, …) and `stock`. */
const variantFields = (v: WireVariant) => ({ ...v.variant, stock: v.stock });

/**
 * `VariantsChanged`: each variant whose fields differ from before the write (all of them for a new
 * variant), with its choices and the names of those fields. A variant the write removed is not in it.
 */
export function variantsChanged(before: WireProduct, after: WireProduct) {
  const was = new Map((before.variants ?? []).map((v) => [v.id, variantFields(v)]));
  const variants = (after.variants ?? []).flatMap((v) => {
    const fields = changedFields(was.get(v.id) ?? {}, variantFields(v));
    return fields.length ? [{ variantId: v.id, choices: v.choices, changedFields: fields }] : [];
  });
  return { productId: after.id, variants, ...V1 };
}

/**
 * Records the events of a write to one product, in its transaction: `VariantsChanged` first when it
 * changed any of its variants (a write to them, or a product's price, stock or options, a bulk edit:
 * each reaches its variants), then `ProductChanged` naming the product's fields that differ.
 */
export async function recordProductChange(
  emu: Emulator,
  sql: Sql,
  before: ProductState,
  after: ProductState,
) {
  const was = merchantView(emu, before);
  const now = merchantView(emu, after);
  const variants = variantsChanged(was, now);
  // Only for variants that changed: a write to them that changed none (a reset of a product without
  // overrides, options deleted from a product without any) tells nothing.
  if (variants.variants.length)
    await emu.recordEvent(sql, PRODUCT_EVENTS.variantsChanged, after.id, variants);
  await emu.recordEvent(
    sql,
    PRODUCT_EVENTS.changed,
    after.id,
    productChanged(after.id, changedFields(was, now)),
  );
}

/** `CollectionCreated`. */
export const collectionCreated = (c: WireCollection) => ({
  collection_Id: c.id,
  name: c.name,
  media: c.media,
  slug: c.slug,
  visible: c.visible,
  ...V1,
});

/** `CollectionChanged`: the collection and the top-level fields of it that differ. */
export const collectionChanged = (before: WireCollection, after: WireCollection) => ({
  collection_Id: after.id,
  changedFields: changedFields(before, after),
  ...V1,
});

/**
 * Records `CollectionChanged` for collections whose count a product's creation or deletion changed
 * by `delta` (+1, −1), in id order. Such a write locks no collection (a deletion holds the product,
 * which a membership change waits for), so the count is named as changed against the collection as
 * it is now: concurrent membership changes of other products record events of their own.
 */
export async function recordCountChanges(emu: Emulator, sql: Sql, collectionIds: string[], delta: number) {
  for (const id of [...new Set(collectionIds)].sort()) {
    const after = await findCollection(emu, sql, { type: 'WIX_USER', siteId: emu.siteId }, 'id', id);
    const before = { ...after, numberOfProducts: after.numberOfProducts - delta };
    await emu.recordEvent(sql, COLLECTION_EVENTS.changed, id, collectionChanged(before, after));
  }
}

/** `CollectionDeleted`. */
export const collectionDeleted = (id: string) => ({ collection_Id: id, ...V1 });
