/**
 * Catalog v1 collection writes (create, update, delete, add and remove products) and the bulk
 * product calls (set or adjust price, cost or weight), each item in a transaction of its own; and
 * the inventory change an order makes, in the order's transaction (`adjustInventory`).
 * @module
 */
import { randomUUID } from 'node:crypto';
import { changedFields } from '../../changes.ts';
import type { Emulator } from '../../context.ts';
import { type Sql, storageUnavailable } from '../../db/index.ts';
import { ApiError, appError, invalid, notFound } from '../../http/errors.ts';
import { FAMILY, type Router } from '../../http/router.ts';
import { float, repeated, z } from '../../http/validate.ts';
import { findCollection, type WireCollection } from './collections.ts';
import {
  COLLECTION_EVENTS,
  collectionChanged,
  collectionCreated,
  collectionDeleted,
  PRODUCT_EVENTS,
  productChanged,
  recordProductChange,
} from './events.ts';
import { MAX_MONEY, MAX_WEIGHT, SLUG } from './input.ts';
import { discounted, type ProductState } from './model.ts';
import { adjustByPercent, PERCENT_SCALE, scaled, unscaled, WEIGHT_SCALE } from './money.ts';
import { mutateProduct } from './products.ts';
import {
  ALL_PRODUCTS_COLLECTION_ID,
  loadProduct,
  lockProducts,
  saveProduct,
  slugify,
  slugSafe,
  uniqueSlug,
} from './store.ts';

const collectionInput = z
  .object({
    id: z.string().min(1).optional(),
    name: z.string().trim().min(1).max(50).optional(),
    description: z.string().max(600).optional(),
    slug: z.string().max(100).regex(SLUG, 'must be lower-case letters, digits and single hyphens').optional(),
    visible: z.boolean().optional(),
    // The main image as the readers answer it (the v2 reader, GraphQL's `Image`): an http(s) URL,
    // or a path on the emulator such as `/media/x.svg`, and whole pixel sizes. Other fields, and
    // `items` echoed back from a read, are not stored.
    media: z
      .object({
        mainMedia: z
          .object({
            image: z.object({
              url: z
                .string()
                .max(2000)
                .refine(
                  (u) => /^\/(?!\/)/.test(u) || (URL.canParse(u) && /^https?:$/.test(new URL(u).protocol)),
                  {
                    message: 'must be an absolute http:// or https:// URL, or a path such as /media/x.svg',
                  },
                ),
              width: z.number().int().min(0).max(100_000).optional(),
              height: z.number().int().min(0).max(100_000).optional(),
              altText: z.string().max(1000).optional(),
            }),
          })
          .optional(),
        items: z.array(z.unknown()).optional(),
      })
      .optional(),
  })
  .passthrough();

type MainMedia = NonNullable<NonNullable<z.output<typeof collectionInput>['media']>['mainMedia']>;

/**
 * A collection's main media as stored: an image on this emulator is kept as its path. The readers
 * answer it as an absolute URL of the emulator's (`rowToCollection`); sent back as read, it was
 * stored so, and pointed at a dead origin once the emulator served on another port or host.
 */
function storedMainMedia(emu: Emulator, media: MainMedia): MainMedia {
  const own = emu.absoluteUrl('/');
  const { url } = media.image;
  return url.startsWith(own)
    ? { ...media, image: { ...media.image, url: url.slice(own.length - 1) } }
    : media;
}

async function collectionSlug(sql: Sql, wanted: string | undefined, name: string, id: string) {
  if (wanted === undefined) return uniqueSlug(sql, 'collections', slugify(name), id);
  const taken = await sql.query('SELECT 1 FROM collections WHERE slug = $1 AND id <> $2', [wanted, id]);
  if (taken.length)
    throw invalid([
      {
        field: 'collection.slug',
        description: 'is already used by another collection',
        violatedRule: 'OTHER',
        ruleName: 'UNIQUE',
      },
    ]);
  return wanted;
}

/** A collection as the merchant reads it: what a write answers and what its changes are named against. */
const merchantView = (emu: Emulator, sql: Sql, id: string) =>
  findCollection(emu, sql, { type: 'WIX_USER', siteId: emu.siteId }, 'id', id);

/** Records `CollectionChanged` for a write that found the collection as `before`; returns it now. */
async function recordCollectionChange(emu: Emulator, sql: Sql, before: WireCollection) {
  const after = await merchantView(emu, sql, before.id);
  await emu.recordEvent(sql, COLLECTION_EVENTS.changed, after.id, collectionChanged(before, after));
  return after;
}

/**
 * Product ids that do not exist, as violations of `productIds[i]`. The products found stay locked
 * (in id order, as for a write: their `lastUpdated` moves with their membership) until the
 * transaction ends: a concurrent delete waits for the membership change and its events, or has
 * already removed the product and it is reported missing.
 */
async function checkProducts(sql: Sql, ids: string[]) {
  const found = await lockProducts(sql, ids, 'NO KEY UPDATE');
  const bad = ids
    .map((id, i) => [id, i] as const)
    .filter(([id]) => !found.has(id))
    .map(([, i]) => ({ field: `productIds[${i}]`, description: 'is not a product of this store' }));
  if (bad.length) throw invalid(bad);
}

async function lockCollection(sql: Sql, id: string) {
  const rows = await sql.query('SELECT id, doc FROM collections WHERE id = $1 FOR UPDATE', [id]);
  if (!rows[0])
    throw notFound('COLLECTION_NOT_FOUND', `Collection with id ${JSON.stringify(id)} not found`, {
      collectionId: id,
    });
  return rows[0];
}

/**
 * Products whose collection membership (`collectionIds`) changed: their `lastUpdated` moves, and
 * `ProductChanged` is recorded for each. Locked in id order, after the collection, as every
 * membership change locks them.
 */
async function productsChanged(emu: Emulator, sql: Sql, ids: string[]) {
  const sorted = [...new Set(ids)].sort();
  await lockProducts(sql, sorted, 'NO KEY UPDATE');
  await sql.query('UPDATE products SET updated_at = $2 WHERE id = ANY($1::text[])', [sorted, emu.now()]);
  for (const id of ids)
    await emu.recordEvent(
      sql,
      PRODUCT_EVENTS.changed,
      id,
      productChanged(id, ['collectionIds', 'lastUpdated']),
    );
}

/** A change of one variant's stock by `delta` units (negative: units taken, as by an order). */
export interface InventoryChange {
  productId: string;
  /** The variant's id (`DEFAULT_VARIANT_ID` for a product without options). */
  variantId: string;
  delta: number;
}

/** A change refused because the variant tracks its stock and has too few units (or is gone). */
export interface InventoryShortage {
  productId: string;
  variantId: string;
  /** The product's name, or its id when it no longer exists. */
  name: string;
  /** Units in stock now (0 when the product or variant is gone). */
  available: number;
  /** Units the changes would take. */
  requested: number;
}

/**
 * Applies stock changes in the caller's transaction, all or nothing. The products are locked first
 * (see `lockProducts`), so the stock read is the latest and two orders cannot both take the last
 * unit. Only variants of products that track inventory change: the quantity moves by the summed
 * deltas and a variant at zero is out of stock (the product's `inStock` and `inventoryStatus`
 * follow from its variants). A product that does not track inventory (an in-stock flag only) is
 * left as it is. If some tracked variant would go below zero, nothing is written and the shortages
 * are returned; otherwise each changed product records `ProductChanged` (in product id order) and
 * the result is empty.
 */
export async function adjustInventory(
  emu: Emulator,
  sql: Sql,
  changes: readonly InventoryChange[],
): Promise<InventoryShortage[]> {
  const byProduct = new Map<string, Map<string, number>>();
  for (const c of changes) {
    if (!c.delta) continue;
    const variants = byProduct.get(c.productId) ?? new Map<string, number>();
    variants.set(c.variantId, (variants.get(c.variantId) ?? 0) + c.delta);
    byProduct.set(c.productId, variants);
  }
  const ids = [...byProduct.keys()].sort();
  await lockProducts(sql, ids);
  const shortages: InventoryShortage[] = [];
  const changed: { before: ProductState; next: ProductState }[] = [];
  for (const id of ids) {
    const p = await loadProduct(sql, id);
    const deltas = byProduct.get(id)!;
    if (p && !p.trackInventory) continue;
    for (const [variantId, delta] of deltas) {
      const v = p?.variants.find((x) => x.id === variantId);
      const available = Math.max(0, v?.quantity ?? 0);
      if (!p || !v || available + delta < 0)
        shortages.push({
          productId: id,
          variantId,
          name: p?.name ?? id,
          available,
          requested: Math.max(0, -delta),
        });
    }
    if (!p || shortages.length) continue;
    changed.push({
      before: p,
      next: {
        ...p,
        variants: p.variants.map((v) => {
          const delta = deltas.get(v.id);
          if (delta === undefined) return v;
          const quantity = Math.max(0, v.quantity ?? 0) + delta;
          return { ...v, quantity, inStock: quantity > 0 };
        }),
      },
    });
  }
  if (shortages.length) return shortages;
  for (const { before, next } of changed) {
    const saved = await saveProduct(sql, next, emu.now(), discounted(next.price, next.discount));
    await recordProductChange(emu, sql, before, saved);
  }
  return shortages;
}

const bulkSet = z
  .object({
    price: float(z.number().min(0).max(MAX_MONEY)).optional(),
    cost: float(z.number().min(0).max(MAX_MONEY)).optional(),
    weight: float(z.number().min(0).max(MAX_WEIGHT)).optional(),
    ribbon: z.string().trim().max(30).optional(),
    brand: z.string().trim().max(50).optional(),
  })
  .strict();
const adjustment = z
  .object({
    amount: float(z.number().min(-1e9).max(1e9)).optional(),
    percentage: z
      .object({ rate: float(z.number().min(-100).max(10_000)), roundToInt: z.boolean().optional() })
      .strict()
      .optional(),
  })
  .strict();
const bulkAdjust = z
  .object({ price: adjustment.optional(), cost: adjustment.optional(), weight: adjustment.optional() })
  .strict();
const bulkIds = z.array(z.string().min(1)).min(1).max(100);
/** Products added to or removed from a collection at once (the typings' `@maxSize 1000`). */
const collectionProductIds = z.array(z.string().min(1)).min(1).max(1000);

type Field = 'price' | 'cost' | 'weight';
const SCALE: Record<Field, number> = { price: 2, cost: 2, weight: WEIGHT_SCALE };
/** The largest value of each field, in its units (cents, thousandths): what the columns and input hold. */
const MAX: Record<Field, number> = {
  price: scaled(MAX_MONEY, 2)!,
  cost: scaled(MAX_MONEY, 2)!,
  weight: scaled(MAX_WEIGHT, WEIGHT_SCALE)!,
};

/** Exactly one key of an object, or the field violation. */
function oneKey(obj: Record<string, unknown>, field: string): string {
  const keys = Object.keys(obj).filter((k) => obj[k] !== undefined);
  if (keys.length !== 1)
    throw invalid([
      {
        field,
        description: `must set exactly one of its fields (got ${keys.length ? keys.join(', ') : 'none'})`,
        violatedRule: 'ONE_OF_ALIGNMENT',
      },
    ]);
  return keys[0]!;
}

/** Applies one numeric change to a product and its variant overrides; throws an item error. */
function changeNumber(p: ProductState, field: Field, fn: (n: number) => number): ProductState {
  // A cost or weight may be missing (a price never is). With no value of the product's nor of any
  // variant's, there is nothing to adjust: the item fails rather than answering a success that
  // stored nothing, nor is a value made up from 0 (to the merchant a missing cost is not a zero
  // one). Setting one (`/bulk/products/update`) is the call for a product without it.
  if (p[field] === undefined && p.variants.every((v) => v[field] === undefined))
    throw appError(400, 'VALUE_NOT_SET', `Product ${p.id} has no ${field} to adjust: set one first`, {
      productId: p.id,
    });
  const apply = (n: number | undefined) => {
    if (n === undefined) return undefined;
    const out = fn(n);
    if (out < 0)
      throw appError(400, 'NEGATIVE_VALUE', `The ${field} of product ${p.id} would become negative`, {
        productId: p.id,
      });
    // An adjustment may not store what the field's own input would refuse (nor overflow its column).
    if (out > MAX[field])
      throw appError(
        400,
        'VALUE_TOO_LARGE',
        `The ${field} of product ${p.id} would exceed ${unscaled(MAX[field], SCALE[field])}`,
        { productId: p.id, max: unscaled(MAX[field], SCALE[field]) },
      );
    return out;
  };
  const next = { ...p, variants: p.variants.map((v) => ({ ...v })) } as ProductState;
  if (field === 'price') next.price = apply(p.price)!;
  else next[field] = apply(p[field]);
  for (const v of next.variants) if (v[field] !== undefined) v[field] = apply(v[field]);
  return next;
}

/** An unexpected failure of one bulk item: the gist logged, never the driver's words answered (as `onError`). */
function unexpected(emu: Emulator, id: string, e: unknown) {
  // The storage out of reach (PostgreSQL restarting, the link cut): this item may be sent again.
  if (storageUnavailable(e))
    return appError(
      503,
      'UNAVAILABLE',
      `The product ${id} could not be changed: the storage could not be reached (read it before sending the change again)`,
      {
        productId: id,
      },
    );
  emu.log(`[emulator] bulk change of product ${id} failed: ${(e as Error)?.message ?? String(e)}`);
  return appError(500, 'INTERNAL_ERROR', `The product ${id} could not be changed`, { productId: id });
}

/**
 * Changes each product in a transaction of its own. An item that fails is reported as failed and
 * the others still run: an unexpected error too, so that the answer tells which items were written
 * (a 500 after some items would leave the caller guessing, and retrying would apply them twice).
 */
async function runBulk(emu: Emulator, ids: string[], change: (p: ProductState) => ProductState) {
  // A product named twice would be changed twice (an adjustment applied once per copy).
  const twice = repeated(ids, 'ids');
  if (twice.length) throw invalid(twice);
  const results = [];
  let ok = 0;
  for (const [originalIndex, id] of ids.entries()) {
    try {
      await mutateProduct(emu, id, change);
      ok++;
      results.push({ itemMetadata: { id, originalIndex, success: true } });
    } catch (caught) {
      const e = caught instanceof ApiError ? caught : unexpected(emu, id, caught);
      const err = 'applicationError' in e.details ? e.details.applicationError : undefined;
      results.push({
        itemMetadata: {
          id,
          originalIndex,
          success: false,
          error: {
            code: err?.code ?? 'INVALID_ARGUMENT',
            description: err?.description ?? e.message,
            data: err?.data ?? {},
          },
        },
      });
    }
  }
  return {
    results,
    bulkActionMetadata: { totalSuccesses: ok, totalFailures: ids.length - ok, undetailedFailures: 0 },
  };
}

export function writeRoutes(router: Router, emu: Emulator) {
  const write = FAMILY.catalogWrite;
  router.route({
    method: 'POST',
    family: write,
    path: '/v1/collections',
    access: 'elevated',
    schema: z.object({ collection: collectionInput }).strict(),
    handler: async ({ msg }) => {
      const c = msg.collection;
      if (c.name === undefined)
        throw invalid([
          { field: 'collection.name', description: 'is required', violatedRule: 'REQUIRED_FIELD' },
        ]);
      const collection = await slugSafe('collection.slug', 'collection', c.slug === undefined, () =>
        emu.db.tx(async (sql) => {
          const id = randomUUID();
          const slug = await collectionSlug(sql, c.slug, c.name!, id);
          const doc = {
            ...(c.description !== undefined ? { description: c.description } : {}),
            ...(c.media?.mainMedia ? { media: { mainMedia: storedMainMedia(emu, c.media.mainMedia) } } : {}),
          };
          await sql.query(
            'INSERT INTO collections (id, slug, name, visible, doc, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $6)',
            [id, slug, c.name, c.visible ?? true, JSON.stringify(doc), emu.now()],
          );
          const created = await merchantView(emu, sql, id);
          await emu.recordEvent(sql, COLLECTION_EVENTS.created, id, collectionCreated(created));
          return created;
        }),
      );
      return { collection };
    },
  });
  router.route({
    method: 'PATCH',
    family: write,
    path: '/v1/collections/{collection.id}',
    access: 'elevated',
    schema: z.object({ collection: collectionInput.and(z.object({ id: z.string().min(1) })) }).strict(),
    handler: async ({ msg }) => {
      const c = msg.collection;
      // All Products is always there (it cannot be deleted or left): neither hidden nor moved to
      // another slug, where visitors and storefronts would no longer find it. A name, a description
      // and media of the merchant's own are fine.
      if (c.id === ALL_PRODUCTS_COLLECTION_ID) {
        const bad = [];
        if (c.visible === false)
          bad.push({ field: 'collection.visible', description: 'cannot be false for All Products' });
        if (c.slug !== undefined && c.slug !== ALL_PRODUCTS_COLLECTION_ID.slice(4))
          bad.push({ field: 'collection.slug', description: 'cannot be changed for All Products' });
        if (bad.length) throw invalid(bad);
      }
      const collection = await slugSafe('collection.slug', 'collection', false, () =>
        emu.db.tx(async (sql) => {
          const row = await lockCollection(sql, c.id);
          const before = await merchantView(emu, sql, c.id);
          const doc = { ...row.doc };
          if (c.description !== undefined) doc.description = c.description;
          if (c.media)
            doc.media = c.media.mainMedia ? { mainMedia: storedMainMedia(emu, c.media.mainMedia) } : {};
          const sets: string[] = ['doc = $2'];
          const params: unknown[] = [c.id, JSON.stringify(doc)];
          if (c.name !== undefined) sets.push(`name = $${params.push(c.name)}`);
          if (c.visible !== undefined) sets.push(`visible = $${params.push(c.visible)}`);
          if (c.slug !== undefined)
            sets.push(`slug = $${params.push(await collectionSlug(sql, c.slug, '', c.id))}`);
          await sql.query(`UPDATE collections SET ${sets.join(', ')} WHERE id = $1`, params);
          // A PATCH that leaves the collection as it was (values sent again) tells nothing and
          // keeps its time, as a member added again does.
          const after = await merchantView(emu, sql, c.id);
          if (!changedFields(before, after).length) return after;
          await sql.query('UPDATE collections SET updated_at = $2 WHERE id = $1', [c.id, emu.now()]);
          return recordCollectionChange(emu, sql, before);
        }),
      );
      return { collection };
    },
  });
  router.route({
    method: 'DELETE',
    family: write,
    path: '/v1/collections/{id}',
    access: 'elevated',
    schema: z.object({ id: z.string().min(1) }).strict(),
    handler: async ({ msg }) => {
      if (msg.id === ALL_PRODUCTS_COLLECTION_ID)
        throw appError(400, 'CANNOT_DELETE_ALL_PRODUCTS', 'The All Products collection cannot be deleted');
      await emu.db.tx(async (sql) => {
        await lockCollection(sql, msg.id);
        const members = await sql.query<{ product_id: string }>(
          'SELECT product_id FROM collection_products WHERE collection_id = $1',
          [msg.id],
        );
        // Its products are locked before the deletion takes their memberships with it: a product's
        // deletion locks the product, then its memberships, and the reverse order here deadlocked
        // with it. A product deleted meanwhile is not found, and has no membership left.
        const kept = await lockProducts(
          sql,
          members.map((m) => m.product_id),
          'NO KEY UPDATE',
        );
        await sql.query('DELETE FROM collections WHERE id = $1', [msg.id]);
        await emu.recordEvent(sql, COLLECTION_EVENTS.deleted, msg.id, collectionDeleted(msg.id));
        await productsChanged(emu, sql, [...kept]);
      });
      return {};
    },
  });
  router.route({
    method: 'POST',
    family: write,
    path: '/v1/collections/{id}/productIds',
    access: 'elevated',
    schema: z.object({ id: z.string().min(1), productIds: collectionProductIds }).strict(),
    handler: async ({ msg }) => {
      await emu.db.tx(async (sql) => {
        await lockCollection(sql, msg.id);
        await checkProducts(sql, msg.productIds);
        const before = await merchantView(emu, sql, msg.id);
        const added = await sql.query<{ product_id: string }>(
          `INSERT INTO collection_products (collection_id, product_id, position)
           SELECT $1, pid, (SELECT COALESCE(max(position), -1) FROM collection_products WHERE collection_id = $1) + ord
           FROM unnest($2::text[]) WITH ORDINALITY AS t(pid, ord)
           ON CONFLICT DO NOTHING RETURNING product_id`,
          [msg.id, [...new Set(msg.productIds)]],
        );
        // Products that all were members already: nothing changed, nothing to tell.
        if (!added.length) return;
        await sql.query('UPDATE collections SET updated_at = $2 WHERE id = $1', [msg.id, emu.now()]);
        await recordCollectionChange(emu, sql, before);
        await productsChanged(
          emu,
          sql,
          added.map((a) => a.product_id),
        );
      });
      return {};
    },
  });
  router.route({
    method: 'POST',
    family: write,
    path: '/v1/collections/{id}/productIds/delete',
    access: 'elevated',
    schema: z.object({ id: z.string().min(1), productIds: collectionProductIds }).strict(),
    handler: async ({ msg }) => {
      if (msg.id === ALL_PRODUCTS_COLLECTION_ID)
        throw appError(
          400,
          'CANNOT_CHANGE_ALL_PRODUCTS',
          'Products cannot be removed from the All Products collection',
        );
      await emu.db.tx(async (sql) => {
        await lockCollection(sql, msg.id);
        await checkProducts(sql, msg.productIds);
        const before = await merchantView(emu, sql, msg.id);
        const removed = await sql.query<{ product_id: string }>(
          'DELETE FROM collection_products WHERE collection_id = $1 AND product_id = ANY($2::text[]) RETURNING product_id',
          [msg.id, msg.productIds],
        );
        if (!removed.length) return;
        await sql.query('UPDATE collections SET updated_at = $2 WHERE id = $1', [msg.id, emu.now()]);
        await recordCollectionChange(emu, sql, before);
        await productsChanged(
          emu,
          sql,
          removed.map((r) => r.product_id),
        );
      });
      return {};
    },
  });

  router.route({
    method: 'POST',
    family: write,
    path: '/v1/bulk/products/update',
    access: 'elevated',
    schema: z.object({ ids: bulkIds, set: bulkSet }).strict(),
    handler: async ({ msg }) => {
      const key = oneKey(msg.set, 'set') as keyof typeof msg.set;
      if (key === 'ribbon' || key === 'brand') {
        const text = msg.set[key] || undefined;
        return runBulk(emu, msg.ids, (p) => ({ ...p, [key]: text }));
      }
      const value = scaled(msg.set[key] as number, SCALE[key]);
      if (value === undefined)
        throw invalid([
          {
            field: `set.${key}`,
            description: `must have at most ${SCALE[key]} decimal places`,
            violatedRule: 'DECIMAL_MAX_SCALE',
          },
        ]);
      // Setting a value makes it the product's value, whether it had one or not (a cost or weight
      // may be missing): variant overrides of that field are cleared.
      return runBulk(emu, msg.ids, (p) => ({
        ...p,
        [key]: value,
        variants: p.variants.map(({ [key]: _, ...v }) => v),
      }));
    },
  });
  router.route({
    method: 'POST',
    family: write,
    path: '/v1/bulk/products/adjust-properties',
    access: 'elevated',
    schema: z.object({ adjust: bulkAdjust, ids: bulkIds }).strict(),
    handler: async ({ msg }) => {
      const key = oneKey(msg.adjust, 'adjust') as Field;
      const adj = msg.adjust[key]!;
      const kind = oneKey(adj, `adjust.${key}`);
      let fn: (n: number) => number;
      if (kind === 'amount') {
        const delta = scaled(adj.amount!, SCALE[key]);
        if (delta === undefined)
          throw invalid([
            {
              field: `adjust.${key}.amount`,
              description: `must have at most ${SCALE[key]} decimal places`,
              violatedRule: 'DECIMAL_MAX_SCALE',
            },
          ]);
        fn = (n) => n + delta;
      } else {
        const { rate, roundToInt } = adj.percentage!;
        const r = scaled(rate, PERCENT_SCALE);
        if (r === undefined)
          throw invalid([
            {
              field: `adjust.${key}.percentage.rate`,
              description: `must have at most ${PERCENT_SCALE} decimal places`,
              violatedRule: 'DECIMAL_MAX_SCALE',
            },
          ]);
        const unit = roundToInt ? 10 ** SCALE[key] : 1;
        fn = (n) => adjustByPercent(n, r, unit);
      }
      return runBulk(emu, msg.ids, (p) => changeNumber(p, key, fn));
    },
  });
}
