/**
 * Catalog v1 products: reads (get, query, options availability, variants, store variants) and
 * writes (create, update, delete, variants, media, options, brand, ribbon). Writes need an
 * elevated caller and run in one transaction with their lifecycle events.
 * @module
 */
import { createHash, randomUUID } from 'node:crypto';
import { changedFields } from '../../changes.ts';
import type { Emulator, Identity } from '../../context.ts';
import { compileQuery, type FieldMap } from '../../db/filter.ts';
import type { Sql } from '../../db/index.ts';
import { forbidden, invalid, notFound } from '../../http/errors.ts';
import { FAMILY, type Router } from '../../http/router.ts';
import { qs, z } from '../../http/validate.ts';
import { seesHidden } from './collections.ts';
import {
  PRODUCT_EVENTS,
  productCreated,
  productDeleted,
  recordCountChanges,
  recordProductChange,
} from './events.ts';
import {
  applyProductInput,
  applyVariantUpdates,
  blankProduct,
  choiceViolations,
  MAX_MEDIA,
  mediaFrom,
  productInput,
  variantInput,
} from './input.ts';
import {
  discounted,
  generateVariants,
  type MediaItem,
  matchesChoices,
  mediaByIds,
  mediaToWire,
  type ProductState,
  priceData,
  productToWire,
  VARIANT_OVERRIDES,
  type VariantState,
  variantDimensions,
  variantInStock,
  variantName,
  variantPrice,
  variantSku,
  variantToWire,
  variantVisible,
  variantWeight,
  videoPosterId,
} from './model.ts';
import { toWeight } from './money.ts';
import {
  countRows,
  type PlatformQuery,
  pageMetadata,
  platformQuery,
  readPage,
  resolvePaging,
} from './paging.ts';
import {
  ALL_PRODUCTS_COLLECTION_ID,
  entitySlug,
  hydrate,
  loadProduct,
  PRODUCT_COLUMNS,
  saveProduct,
  slugSafe,
} from './store.ts';

const COLLECTION_IDS_SQL = `COALESCE((SELECT jsonb_agg(cp.collection_id) FROM collection_products cp WHERE cp.product_id = p.id), '[]'::jsonb)`;
/** The ids of a product's visible collections: what a visitor's `collectionIds` filter sees. */
const VISIBLE_COLLECTION_IDS_SQL = `COALESCE((SELECT jsonb_agg(cp.collection_id) FROM collection_products cp
  JOIN collections c ON c.id = cp.collection_id AND c.visible WHERE cp.product_id = p.id), '[]'::jsonb)`;

/** Queryable product fields (wire §5.3 builder fields, plus `visible`). */
export const PRODUCT_FIELDS: FieldMap = {
  id: { sql: 'p.id', type: 'text' },
  createdDate: { sql: 'p.created_at', type: 'date', sortable: false },
  lastUpdated: { sql: 'p.updated_at', type: 'date' },
  name: { sql: 'p.name', type: 'text' },
  // A product without a description reads `""`, as one whose description was cleared: alike here.
  description: { sql: "COALESCE(p.description, '')", type: 'text', sortable: false },
  sku: { sql: 'p.sku', type: 'text' },
  price: { sql: 'p.price', type: 'number' },
  'priceData.price': { sql: 'p.price', type: 'number' },
  numericId: { sql: 'p.numeric_id', type: 'number' },
  productType: { sql: 'p.product_type', type: 'text' },
  slug: { sql: 'p.slug', type: 'text' },
  visible: { sql: 'p.visible', type: 'bool' },
  collectionIds: { sql: COLLECTION_IDS_SQL, type: 'array' },
};

/** Queryable store-variant fields. */
const VARIANT_FIELDS: FieldMap = {
  id: { sql: `(p.id || '-' || v.id)`, type: 'text' },
  productId: { sql: 'p.id', type: 'text' },
  variantId: { sql: 'v.id', type: 'text' },
  productName: { sql: 'p.name', type: 'text' },
  variantName: { sql: 'v.variant_name', type: 'text' },
  sku: { sql: 'v.sku', type: 'text' },
  managedVariant: { sql: `COALESCE((p.doc->>'manageVariants')::boolean, false)`, type: 'bool' },
  visible: { sql: 'v.visible', type: 'bool' },
  'stock.inStock': { sql: 'v.in_stock', type: 'bool' },
  'stock.quantity': { sql: 'v.quantity', type: 'number' },
  'stock.trackQuantity': { sql: 'v.quantity IS NOT NULL', type: 'bool' },
  collectionIds: { sql: COLLECTION_IDS_SQL, type: 'array' },
};

const render = (emu: Emulator, p: ProductState, merchant: boolean, variants = true) =>
  productToWire(p, { absoluteUrl: emu.absoluteUrl, merchant, variants });

/**
 * A query's fields for the caller: a visitor's `collectionIds` filter sees visible collections
 * only, so that filtering by a hidden collection's id tells nothing of its members.
 */
const fieldsFor = (who: Identity, fields: FieldMap): FieldMap =>
  seesHidden(who) ? fields : { ...fields, collectionIds: { sql: VISIBLE_COLLECTION_IDS_SQL, type: 'array' } };

/**
 * Products as the caller may see them. Merchants and apps see everything; anyone else sees neither
 * the ids of hidden collections nor hidden variants (as hidden products and collections are kept
 * from them), so a visitor's product is priced, stocked and offered by its visible variants alone.
 */
async function forCaller(sql: Sql, who: Identity, products: ProductState[]): Promise<ProductState[]> {
  if (seesHidden(who) || !products.length) return products;
  const ids = [...new Set(products.flatMap((p) => p.collectionIds))];
  const shown = new Set(
    ids.length
      ? (
          await sql.query<{ id: string }>(
            'SELECT id FROM collections WHERE visible AND id = ANY($1::text[])',
            [ids],
          )
        ).map((r) => r.id)
      : [],
  );
  return products.map((p) => ({
    ...p,
    collectionIds: p.collectionIds.filter((id) => shown.has(id)),
    variants: p.variants.filter(variantVisible),
  }));
}

/** Merchant-only data asked for by someone who is not a merchant. */
function checkMerchantData(who: Identity, asked: boolean | undefined) {
  if (asked && !seesHidden(who))
    throw forbidden('includeMerchantSpecificData needs an elevated caller (API key, app or platform user)');
  return !!asked;
}

/** A product the caller may see, as the caller may see it (`forCaller`), or the platform's 404. */
async function visibleProduct(sql: Sql, who: Identity, id: string) {
  const p = await loadProduct(sql, id);
  if (!p || (!p.visible && !seesHidden(who)))
    throw notFound('PRODUCT_NOT_FOUND', `Product with id ${JSON.stringify(id)} not found`, { productId: id });
  return (await forCaller(sql, who, [p]))[0]!;
}

/**
 * Loads, changes and saves one product in a transaction, recording its events (`VariantsChanged`
 * for variants that changed, then `ProductChanged`). A change that leaves the product as it was
 * (a value sent again, a removal of what it lacks) stores nothing and tells nothing: its
 * `lastUpdated` stays, as a collection's does for a member added again.
 */
export async function mutateProduct(
  emu: Emulator,
  id: string,
  change: (p: ProductState, sql: Sql) => ProductState | Promise<ProductState>,
) {
  return emu.db.tx(async (sql) => {
    const p = await loadProduct(sql, id, true);
    if (!p)
      throw notFound('PRODUCT_NOT_FOUND', `Product with id ${JSON.stringify(id)} not found`, {
        productId: id,
      });
    const next = await change(p, sql);
    if (!changedFields(p, next).length) return p;
    const saved = await saveProduct(sql, next, emu.now(), discounted(next.price, next.discount));
    await recordProductChange(emu, sql, p, saved);
    return saved;
  });
}

/**
 * Products matching a platform query, offset- or cursor-paged, with paging metadata
 * (`tooManyToCount` past the count limit). Hidden products are left out unless the request sets
 * `includeHiddenProducts`, for merchants too: the platform adds `visible = true` to every filter
 * unless it is set (typings, `Product.visible`), so a console built on the emulator asks for them
 * as it must in production. Only elevated callers may set it.
 */
export async function queryProducts(
  emu: Emulator,
  sql: Sql,
  who: Identity,
  msg: {
    query?: unknown;
    includeVariants?: boolean;
    includeMerchantSpecificData?: boolean;
    includeHiddenProducts?: boolean;
  },
) {
  const merchant = checkMerchantData(who, msg.includeMerchantSpecificData);
  if (msg.includeHiddenProducts && !seesHidden(who))
    throw forbidden('includeHiddenProducts needs an elevated caller (API key, app or platform user)');
  const paged = resolvePaging(msg.query as PlatformQuery | undefined);
  const params: unknown[] = [];
  const q = compileQuery(paged.query, fieldsFor(who, PRODUCT_FIELDS), params, {
    ids: [{ sql: 'p.numeric_id', type: 'number' }],
  });
  const where = `(${q.where})${msg.includeHiddenProducts ? '' : ' AND p.visible'}`;
  const counted = await countRows(emu.config.catalogCountLimit, sql, 'FROM products p', where, params);
  const page = await readPage(sql, paged, q, params, {
    columns: PRODUCT_COLUMNS,
    from: 'FROM products p',
    where,
  });
  const products = (await forCaller(sql, who, await hydrate(sql, page.rows))).map((p) =>
    render(emu, p, merchant, !!msg.includeVariants),
  );
  return { products, metadata: pageMetadata(page, { count: products.length, ...counted }) };
}

/** What the chosen options select: the variant, its media, each choice's availability. */
export function optionsAvailability(emu: Emulator, p: ProductState, chosen: Record<string, string>) {
  const bad = choiceViolations(p, chosen, 'options');
  if (bad.length) throw invalid(bad);
  const complete = p.productOptions.every((o) => Object.hasOwn(chosen, o.name));
  const v = complete ? p.variants.find((x) => matchesChoices(x, chosen)) : undefined;
  const sellable = (x: VariantState) => variantVisible(x) && variantInStock(p, x);
  const productOptions = p.productOptions.map((o) => ({
    optionType: o.optionType,
    name: o.name,
    choices: o.choices.map((c) => {
      // Availability of this choice given the other options as chosen.
      const others = Object.fromEntries(Object.entries(chosen).filter(([k]) => k !== o.name));
      const vs = p.variants.filter((x) => x.choices[o.name] === c.description && matchesChoices(x, others));
      const media = mediaByIds(p, c.mediaIds);
      return {
        value: c.value,
        description: c.description,
        ...(media.length ? { media: mediaToWire(media, emu.absoluteUrl) } : {}),
        inStock: vs.some((x) => variantInStock(p, x)),
        visible: vs.some(variantVisible),
      };
    }),
  }));
  const chosenMedia = p.productOptions.flatMap((o) => {
    const c = o.choices.find((x) => x.description === chosen[o.name]);
    return c ? mediaByIds(p, c.mediaIds) : [];
  });
  let selectedVariant = null;
  if (v) {
    const pd = priceData(p, variantPrice(p, v));
    const w = variantWeight(p, v);
    const sku = variantSku(p, v);
    selectedVariant = {
      id: v.id,
      choices: v.choices,
      price: pd,
      convertedPriceData: pd,
      ...(w !== undefined ? { weight: toWeight(w) } : {}),
      ...(sku !== undefined ? { sku } : {}),
      visible: variantVisible(v),
      inStock: variantInStock(p, v),
      ...(p.trackInventory ? { quantity: v.quantity ?? 0 } : {}),
      ...variantDimensions(p, v),
    };
  }
  return {
    selectedVariant,
    media: mediaToWire(chosenMedia.length ? chosenMedia : p.media, emu.absoluteUrl),
    productOptions,
    availableForPurchase: !!v && p.visible && sellable(v),
  };
}

/** A store variant (a variant with its product's names, stock, collections and one media item). */
export function storeVariant(emu: Emulator, p: ProductState, v: VariantState) {
  const choiceMedia = p.productOptions.flatMap((o) => {
    const c = o.choices.find((x) => x.description === v.choices[o.name]);
    return c ? mediaByIds(p, c.mediaIds) : [];
  });
  const m = choiceMedia[0] ?? p.media[0];
  const sku = variantSku(p, v);
  return {
    id: `${p.id}-${v.id}`,
    variantId: v.id,
    productId: p.id,
    variantName: variantName(p, v),
    productName: p.name,
    managedVariant: p.manageVariants,
    ...(sku !== undefined ? { sku } : {}),
    stock: {
      trackQuantity: p.trackInventory,
      ...(p.trackInventory ? { quantity: v.quantity ?? 0 } : {}),
      inStock: variantInStock(p, v),
    },
    choices: v.choices,
    collectionIds: p.collectionIds,
    ...(m ? { media: storeVariantMedia(emu, m) } : {}),
  };
}

/** Store-variant media: `image` or `video` objects with the fields the SDK transforms. */
function storeVariantMedia(emu: Emulator, m: MediaItem) {
  const url = emu.absoluteUrl(m.url);
  if (m.mediaType === 'video')
    return {
      video: {
        id: m.id,
        url,
        width: m.width,
        height: m.height,
        resolutions: [{ url, width: m.width, height: m.height, format: 'mp4' }],
        posters: [
          {
            id: videoPosterId(m),
            url: emu.absoluteUrl(`/media/${videoPosterId(m)}`),
            width: m.width,
            height: m.height,
          },
        ],
      },
    };
  return {
    image: {
      id: m.id,
      url,
      width: m.width,
      height: m.height,
      ...(m.altText ? { altText: m.altText } : {}),
      focalPoint: { x: 0.5, y: 0.5 },
    },
  };
}

/** Store variants across products, with offset or cursor paging. */
export async function queryStoreVariants(emu: Emulator, sql: Sql, who: Identity, query?: PlatformQuery) {
  const paged = resolvePaging(query);
  const params: unknown[] = [];
  const q = compileQuery(paged.query, fieldsFor(who, VARIANT_FIELDS), params, {
    ids: [
      { sql: 'p.numeric_id', type: 'number' },
      { sql: 'v.position', type: 'number' },
    ],
  });
  const where = `(${q.where})${seesHidden(who) ? '' : ' AND p.visible AND v.visible'}`;
  const from = 'FROM product_variants v JOIN products p ON p.id = v.product_id';
  const counted = await countRows(emu.config.catalogCountLimit, sql, from, where, params);
  const page = await readPage(sql, paged, q, params, { columns: 'v.product_id, v.id', from, where });
  const rows = page.rows;
  const ids = [...new Set(rows.map((r) => r.product_id as string))];
  const products = new Map(
    (
      await forCaller(
        sql,
        who,
        await hydrate(
          sql,
          await sql.query(`SELECT ${PRODUCT_COLUMNS} FROM products p WHERE p.id = ANY($1::text[])`, [ids]),
        ),
      )
    ).map((p) => [p.id, p]),
  );
  // The products are read again after the page: one deleted meanwhile, or a variant its options no
  // longer make, is left out (as if the page had been read a moment later), not a 500.
  const variants = rows.flatMap((r) => {
    const p = products.get(r.product_id);
    const v = p?.variants.find((x) => x.id === r.id);
    return p && v ? [storeVariant(emu, p, v)] : [];
  });
  return {
    variants,
    metadata: pageMetadata(page, { count: variants.length, ...counted }),
  };
}

const idMsg = z.object({ id: z.string().min(1) }).strict();
/**
 * A media id. The platform's ids hold a tilde: `22e53e_…~mv2.jpg`, the typings'
 * `nsplsh_…~mv2_d_4517_2992_s_4_2.jpg`. `.` and `..` are none: their URLs (`/media/..`) would be
 * the emulator's root and `/media/`.
 */
export const MEDIA_ID = /^(?!\.\.?$)[\w.~-]{1,200}$/;
const mediaRef = z
  .object({
    mediaId: z.string().regex(MEDIA_ID, 'must be a media id such as linen-shirt.svg').optional(),
    url: z
      .url({ protocol: /^https?$/ })
      .max(2000)
      .optional(),
    choice: z
      .object({ option: z.string().min(1), choice: z.string().min(1) })
      .strict()
      .optional(),
  })
  .strict();
const choiceMedia = z
  .object({
    option: z.string().min(1),
    choice: z.string().min(1),
    mediaIds: z.array(z.string().min(1)).min(1).max(MAX_MEDIA),
  })
  .strict();

/**
 * The variants a variants query asks for: by `variantIds` when given, else by `choices`
 * (violations on `choices.<option>`, the request's field). The typings call choices "not relevant
 * when passing variant IDs", and updateProductVariants gives ids the same precedence. An empty
 * `variantIds` selects no variants: the wire protocol is silent on it, and a storefront that asks
 * for the variants of an empty list of ids expects none (as `variantId $in []` in a store-variants
 * query finds none), not every variant of the product.
 */
function askedVariants(p: ProductState, msg: { choices?: Record<string, string>; variantIds?: string[] }) {
  const { choices, variantIds } = msg;
  if (variantIds) return p.variants.filter((v) => variantIds.includes(v.id));
  if (!choices) return p.variants;
  const bad = choiceViolations(p, choices, 'choices');
  if (bad.length) throw invalid(bad);
  return p.variants.filter((v) => matchesChoices(v, choices));
}

function findChoice(p: ProductState, option: string, choice: string, at: string) {
  const o = p.productOptions.find((x) => x.name === option);
  if (!o) throw invalid([{ field: `${at}.option`, description: 'is not an option of this product' }]);
  const c = o.choices.find((x) => x.description === choice);
  if (!c) throw invalid([{ field: `${at}.choice`, description: `is not a choice of option "${option}"` }]);
  return { o, c };
}

/** Replaces one choice's media ids (immutably). */
function withChoiceMedia(p: ProductState, option: string, choice: string, ids: (old: string[]) => string[]) {
  return p.productOptions.map((o) =>
    o.name !== option
      ? o
      : {
          ...o,
          choices: o.choices.map((c) => (c.description === choice ? { ...c, mediaIds: ids(c.mediaIds) } : c)),
        },
  );
}

export function productRoutes(router: Router, emu: Emulator) {
  const read = FAMILY.catalogRead;
  const write = FAMILY.catalogWrite;

  // ---- Reads. Static paths before parameterised ones.
  for (const method of ['GET', 'POST'] as const)
    router.route({
      method,
      family: read,
      path: '/v1/products/query-platformized',
      access: 'anyone',
      schema: z
        .object({
          query: platformQuery.optional(),
          includeVariants: qs.bool().optional(),
          includeHiddenProducts: qs.bool().optional(),
          includeMerchantSpecificData: qs.bool().optional(),
        })
        .strict(),
      handler: ({ msg, identity }) => queryProducts(emu, emu.db, identity, msg),
    });
  router.route({
    method: 'GET',
    family: read,
    path: '/v1/products/{id}',
    access: 'anyone',
    schema: z.object({ id: z.string().min(1), includeMerchantSpecificData: qs.bool().optional() }).strict(),
    handler: async ({ msg, identity }) => {
      const merchant = checkMerchantData(identity, msg.includeMerchantSpecificData);
      return { product: render(emu, await visibleProduct(emu.db, identity, msg.id), merchant) };
    },
  });
  router.route({
    method: 'POST',
    family: read,
    path: '/v1/products/{id}/productOptionsAvailability',
    access: 'anyone',
    schema: z
      .object({ id: z.string().min(1), options: z.record(z.string(), z.string()).default({}) })
      .strict(),
    handler: async ({ msg, identity }) =>
      optionsAvailability(emu, await visibleProduct(emu.db, identity, msg.id), msg.options),
  });
  router.route({
    method: 'POST',
    family: read,
    path: '/v1/products/{id}/variants/query',
    access: 'anyone',
    schema: z
      .object({
        id: z.string().min(1),
        choices: z.record(z.string(), z.string()).optional(),
        variantIds: z.array(z.string().min(1)).max(1000).optional(),
        paging: z
          .object({
            limit: z.number().int().min(0).max(100).optional(),
            offset: z.number().int().min(0).optional(),
          })
          .strict()
          .optional(),
        includeMerchantSpecificData: z.boolean().optional(),
      })
      .strict(),
    handler: async ({ msg, identity }) => {
      const merchant = checkMerchantData(identity, msg.includeMerchantSpecificData);
      const p = await visibleProduct(emu.db, identity, msg.id);
      // A visitor's product has no hidden variants (`visibleProduct`).
      const all = askedVariants(p, msg);
      const offset = msg.paging?.offset ?? 0;
      const limit = msg.paging?.limit ?? 100;
      const page = all.slice(offset, offset + limit);
      return {
        variants: page.map((v) => variantToWire(p, v, merchant)),
        metadata: { items: page.length, offset },
        totalResults: all.length,
      };
    },
  });
  router.route({
    method: 'POST',
    family: read,
    path: '/v1/variants/query',
    access: 'anyone',
    schema: z.object({ query: platformQuery.optional() }).strict(),
    handler: ({ msg, identity }) => queryStoreVariants(emu, emu.db, identity, msg.query),
  });
  router.route({
    method: 'GET',
    family: read,
    path: '/v1/variants/{id}',
    access: 'anyone',
    schema: idMsg,
    handler: async ({ msg, identity }) => {
      const m = /^(.+)-([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/i.exec(msg.id);
      if (!m)
        throw invalid([
          { field: 'id', description: 'must be {productId}-{variantId}', violatedRule: 'FORMAT' },
        ]);
      const found = await loadProduct(emu.db, m[1]!);
      // A visitor's product has no hidden variants nor hidden collections' ids (`forCaller`).
      const p = found && (await forCaller(emu.db, identity, [found]))[0]!;
      const v = p?.variants.find((x) => x.id === m[2]);
      if (!p || !v || (!seesHidden(identity) && !p.visible))
        throw notFound('VARIANT_NOT_FOUND', `Store variant ${JSON.stringify(msg.id)} not found`, {
          id: msg.id,
        });
      return { variant: storeVariant(emu, p, v) };
    },
  });

  // ---- Writes (elevated).
  router.route({
    method: 'POST',
    family: write,
    path: '/v1/products',
    access: 'elevated',
    schema: z.object({ product: productInput }).strict(),
    handler: async ({ msg }) => {
      const input = msg.product;
      const missing = [
        ...(input.name === undefined ? ['name'] : []),
        ...(input.productType === undefined ? ['productType'] : []),
        ...(input.priceData?.price === undefined ? ['priceData.price'] : []),
      ];
      if (missing.length)
        throw invalid(
          missing.map((f) => ({
            field: `product.${f}`,
            description: 'is required',
            violatedRule: 'REQUIRED_FIELD',
          })),
        );
      const product = await slugSafe('product.slug', 'product', input.slug === undefined, () =>
        emu.db.tx(async (sql) => {
          const now = emu.now().toISOString();
          const p = applyProductInput(blankProduct(randomUUID(), input.name!, now), input);
          p.slug = await entitySlug(sql, 'product', input.slug, p.name, p.id);
          const saved = await saveProduct(sql, p, emu.now(), discounted(p.price, p.discount));
          const joined = await sql.query<{ collection_id: string }>(
            `INSERT INTO collection_products (collection_id, product_id, position)
           SELECT id, $2, (SELECT COALESCE(max(position), -1) + 1 FROM collection_products WHERE collection_id = $1)
           FROM collections WHERE id = $1 ON CONFLICT DO NOTHING RETURNING collection_id`,
            [ALL_PRODUCTS_COLLECTION_ID, saved.id],
          );
          const wire = render(emu, (await loadProduct(sql, saved.id))!, true);
          await emu.recordEvent(sql, PRODUCT_EVENTS.created, saved.id, productCreated(wire));
          await recordCountChanges(
            emu,
            sql,
            joined.map((j) => j.collection_id),
            1,
          );
          return wire;
        }),
      );
      return { product };
    },
  });
  router.route({
    method: 'PATCH',
    family: write,
    path: '/v1/products/{product.id}',
    access: 'elevated',
    schema: z.object({ product: productInput.and(z.object({ id: z.string().min(1) })) }).strict(),
    handler: async ({ msg }) => {
      const saved = await slugSafe('product.slug', 'product', false, () =>
        mutateProduct(emu, msg.product.id, async (p, sql) => {
          const next = applyProductInput(p, msg.product);
          if (msg.product.slug !== undefined && msg.product.slug !== p.slug)
            next.slug = await entitySlug(sql, 'product', msg.product.slug, next.name, p.id);
          return next;
        }),
      );
      return { product: render(emu, saved, true) };
    },
  });
  router.route({
    method: 'DELETE',
    family: write,
    path: '/v1/products/{id}',
    access: 'elevated',
    schema: idMsg,
    handler: async ({ msg }) => {
      await emu.db.tx(async (sql) => {
        // The product is locked first: a membership change (which locks the product too) then
        // waits for the deletion, so the memberships removed here are all it had.
        const found = await sql.query('SELECT id FROM products WHERE id = $1 FOR UPDATE', [msg.id]);
        if (!found.length)
          throw notFound('PRODUCT_NOT_FOUND', `Product with id ${JSON.stringify(msg.id)} not found`, {
            productId: msg.id,
          });
        const left = await sql.query<{ collection_id: string }>(
          'DELETE FROM collection_products WHERE product_id = $1 RETURNING collection_id',
          [msg.id],
        );
        await sql.query('DELETE FROM products WHERE id = $1', [msg.id]);
        await emu.recordEvent(sql, PRODUCT_EVENTS.deleted, msg.id, productDeleted(msg.id));
        await recordCountChanges(
          emu,
          sql,
          left.map((l) => l.collection_id),
          -1,
        );
      });
      return {};
    },
  });
  router.route({
    method: 'PATCH',
    family: write,
    path: '/v1/products/{id}/variants',
    access: 'elevated',
    schema: z.object({ id: z.string().min(1), variants: z.array(variantInput).min(1).max(300) }).strict(),
    handler: async ({ msg }) => {
      let changed = new Set<string>();
      const saved = await mutateProduct(emu, msg.id, (p) => {
        const r = applyVariantUpdates(p, msg.variants);
        changed = r.changed;
        return r.next;
      });
      return {
        variants: saved.variants.filter((v) => changed.has(v.id)).map((v) => variantToWire(saved, v, true)),
      };
    },
  });
  router.route({
    method: 'POST',
    family: write,
    path: '/v1/products/{id}/variants/resetToDefault',
    access: 'elevated',
    schema: idMsg,
    handler: async ({ msg }) => {
      await mutateProduct(emu, msg.id, (p) => ({
        ...p,
        manageVariants: false,
        variants: p.variants.map((v) => {
          const rest = { ...v };
          for (const k of VARIANT_OVERRIDES) delete rest[k];
          return rest;
        }),
      }));
      return {};
    },
  });
  router.route({
    method: 'POST',
    family: write,
    path: '/v1/products/{id}/media',
    access: 'elevated',
    schema: z.object({ id: z.string().min(1), media: z.array(mediaRef).min(1).max(MAX_MEDIA) }).strict(),
    handler: async ({ msg }) => {
      await mutateProduct(emu, msg.id, (p) => {
        let next = { ...p, media: [...p.media] };
        msg.media.forEach((m, i) => {
          if (!m.mediaId === !m.url)
            throw invalid([
              {
                field: `media[${i}]`,
                description: 'must have exactly one of mediaId and url',
                violatedRule: 'ONE_OF_ALIGNMENT',
              },
            ]);
          // A URL of this emulator's own (a read product's `image.url`, copied to another product)
          // is kept as its path, as a collection's own image is, and one of its media files is that
          // media item: stored whole, it pointed at a dead origin once the emulator served on another
          // port or host, and a cart line's image (`wix:image://v1/<id>`, loaded from `/media/<id>`)
          // had an `ext-` id that names no media file.
          const own = emu.absoluteUrl('/');
          const path = m.url?.startsWith(own) ? m.url.slice(own.length - 1) : m.url;
          const file = /^\/media\/([^/?#]+)$/.exec(path ?? '')?.[1];
          const item = mediaFrom(
            file && MEDIA_ID.test(file) ? { mediaId: file } : { ...m, url: path },
            (url) => `ext-${createHash('sha1').update(url).digest('hex').slice(0, 20)}`,
          );
          if (!next.media.some((x) => x.id === item.id)) next.media.push(item);
          if (m.choice) {
            findChoice(next, m.choice.option, m.choice.choice, `media[${i}].choice`);
            next = {
              ...next,
              productOptions: withChoiceMedia(next, m.choice.option, m.choice.choice, (old) =>
                old.includes(item.id) ? old : [...old, item.id],
              ),
            };
          }
        });
        if (next.media.length > MAX_MEDIA)
          throw invalid([
            {
              field: 'media',
              description: `would give the product more than ${MAX_MEDIA} media items`,
              violatedRule: 'MAX_SIZE',
            },
          ]);
        return next;
      });
      return {};
    },
  });
  router.route({
    method: 'POST',
    family: write,
    path: '/v1/products/{id}/media/delete',
    access: 'elevated',
    schema: z
      .object({ id: z.string().min(1), mediaIds: z.array(z.string().min(1)).max(MAX_MEDIA).default([]) })
      .strict(),
    handler: async ({ msg }) => {
      await mutateProduct(emu, msg.id, (p) => {
        const bad = msg.mediaIds
          .map((id, i) => [id, i] as const)
          .filter(([id]) => !p.media.some((m) => m.id === id))
          .map(([, i]) => ({ field: `mediaIds[${i}]`, description: 'is not a media item of this product' }));
        if (bad.length) throw invalid(bad);
        const drop = (id: string) => msg.mediaIds.length === 0 || msg.mediaIds.includes(id);
        return {
          ...p,
          media: p.media.filter((m) => !drop(m.id)),
          productOptions: p.productOptions.map((o) => ({
            ...o,
            choices: o.choices.map((c) => ({ ...c, mediaIds: c.mediaIds.filter((id) => !drop(id)) })),
          })),
        };
      });
      return {};
    },
  });
  for (const [method, path, add] of [
    ['PATCH', '/v1/products/{id}/choices/media', true],
    ['POST', '/v1/products/{id}/choices/media/delete', false],
  ] as const)
    router.route({
      method,
      family: write,
      path,
      access: 'elevated',
      schema: z.object({ id: z.string().min(1), media: z.array(choiceMedia).min(1).max(100) }).strict(),
      handler: async ({ msg }) => {
        await mutateProduct(emu, msg.id, (p) => {
          let next = p;
          msg.media.forEach((m, i) => {
            const { c } = findChoice(next, m.option, m.choice, `media[${i}]`);
            const bad = m.mediaIds
              .map((id, j) => [id, j] as const)
              .filter(([id]) => (add ? !p.media.some((x) => x.id === id) : !c.mediaIds.includes(id)))
              .map(([, j]) => ({
                field: `media[${i}].mediaIds[${j}]`,
                description: add
                  ? 'is not a media item of this product'
                  : 'is not a media item of this choice',
              }));
            if (bad.length) throw invalid(bad);
            next = {
              ...next,
              productOptions: withChoiceMedia(next, m.option, m.choice, (old) =>
                add
                  ? [...old, ...m.mediaIds.filter((id) => !old.includes(id))]
                  : old.filter((id) => !m.mediaIds.includes(id)),
              ),
            };
          });
          return next;
        });
        return {};
      },
    });
  router.route({
    method: 'DELETE',
    family: write,
    path: '/v1/products/{id}/options',
    access: 'elevated',
    schema: idMsg,
    handler: async ({ msg }) => {
      await mutateProduct(emu, msg.id, (p) =>
        // Without options there is nothing to delete. Its one variant's own price, SKU and the rest
        // stay, and so must `manageVariants`: turned off over them, the product read "variants not
        // managed" while its variant was charged at its own price (the PATCH refuses that state).
        p.productOptions.length
          ? {
              ...p,
              productOptions: [],
              manageVariants: false,
              variants: generateVariants(p.id, [], p.variants, p.trackInventory),
            }
          : p,
      );
      return {};
    },
  });
  for (const [path, field] of [
    ['/v1/products/{id}/remove-brand', 'brand'],
    ['/v1/products/{id}/remove-ribbon', 'ribbon'],
  ] as const)
    router.route({
      method: 'POST',
      family: write,
      path,
      access: 'elevated',
      schema: idMsg,
      handler: async ({ msg }) => {
        await mutateProduct(emu, msg.id, (p) => ({ ...p, [field]: undefined }));
        return {};
      },
    });
}
