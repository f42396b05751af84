import type { Emulator } from '../../context.ts';
import { type Sql, storageUnavailable } from '../../db/index.ts';
import { ApiError, appError, invalid } from '../../http/errors.ts';
import { FAMILY, type Router } from '../../http/router.ts';
import { float, repeated, z } from '../../http/validate.ts';
import {
  addCollectionProducts,
  collectionInput,
  createCollection,
  deleteCollection,
  removeCollectionProducts,
  updateCollection,
} from './collection-writes.ts';
import { recordProductChange } from './events.ts';
import { MAX_MONEY, MAX_WEIGHT } from './input.ts';
import { discounted, type ProductState } from './model.ts';
import { adjustByPercent, PERCENT_SCALE, scaled, unscaled, WEIGHT_SCALE } from './money.ts';
import { mutateProduct } from './products.ts';
import { loadProduct, lockProducts, saveProduct } from './store.ts';

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
    handler: async ({ msg }) => ({ collection: await createCollection(emu, msg.collection) }),
  });
  router.route({
    method: 'PATCH',
    family: write,
    path: '/v1/collections/{collection.id}',
    access: 'elevated',
    schema: z.object({ collection: collectionInput.and(z.object({ id: z.string().min(1) })) }).strict(),
    handler: async ({ msg }) => ({ collection: await updateCollection(emu, msg.collection) }),
  });
  router.route({
    method: 'DELETE',
    family: write,
    path: '/v1/collections/{id}',
    access: 'elevated',
    schema: z.object({ id: z.string().min(1) }).strict(),
    handler: async ({ msg }) => {
      await deleteCollection(emu, msg.id);
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
      await addCollectionProducts(emu, msg.id, msg.productIds);
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
      await removeCollectionProducts(emu, msg.id, msg.productIds);
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
