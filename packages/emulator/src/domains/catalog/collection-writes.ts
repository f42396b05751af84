/**
 * Catalog v1 collection writes: create, change and delete a collection, add and remove its
 * products. Each runs in a transaction of its own and records its events (`CollectionCreated`,
 * `CollectionChanged`, `CollectionDeleted`, and `ProductChanged` for products whose membership
 * changed); the routes are in `writes.ts`.
 * @module
 */
import { randomUUID } from 'node:crypto';
import { changedFields } from '../../changes.ts';
import type { Emulator } from '../../context.ts';
import type { Sql } from '../../db/index.ts';
import { appError, invalid, notFound } from '../../http/errors.ts';
import { z } from '../../http/validate.ts';
import { findCollection, type WireCollection } from './collections.ts';
import {
  COLLECTION_EVENTS,
  collectionChanged,
  collectionCreated,
  collectionDeleted,
  PRODUCT_EVENTS,
  productChanged,
} from './events.ts';
import { SLUG } from './input.ts';
import { ALL_PRODUCTS_COLLECTION_ID, entitySlug, lockProducts, slugSafe } from './store.ts';

export const collectionInput = z
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

/** A collection's fields as a create or a change sends them. */
export type CollectionInput = z.output<typeof collectionInput>;
type MainMedia = NonNullable<NonNullable<CollectionInput['media']>['mainMedia']>;

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

/** Creates a collection (a slug from its name unless given) and records `CollectionCreated`. */
export async function createCollection(emu: Emulator, c: CollectionInput): Promise<WireCollection> {
  if (c.name === undefined)
    throw invalid([{ field: 'collection.name', description: 'is required', violatedRule: 'REQUIRED_FIELD' }]);
  return slugSafe('collection.slug', 'collection', c.slug === undefined, () =>
    emu.db.tx(async (sql) => {
      const id = randomUUID();
      const slug = await entitySlug(sql, 'collection', c.slug, c.name!, id);
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
}

/**
 * Changes a collection's fields; a change that leaves it as it was stores and tells nothing.
 * All Products can be renamed and described, not hidden or moved to another slug.
 */
export async function updateCollection(
  emu: Emulator,
  c: CollectionInput & { id: string },
): Promise<WireCollection> {
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
  return slugSafe('collection.slug', 'collection', false, () =>
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
        sets.push(`slug = $${params.push(await entitySlug(sql, 'collection', c.slug, '', c.id))}`);
      await sql.query(`UPDATE collections SET ${sets.join(', ')} WHERE id = $1`, params);
      // A PATCH that leaves the collection as it was (values sent again) tells nothing and
      // keeps its time, as a member added again does.
      const after = await merchantView(emu, sql, c.id);
      if (!changedFields(before, after).length) return after;
      await sql.query('UPDATE collections SET updated_at = $2 WHERE id = $1', [c.id, emu.now()]);
      return recordCollectionChange(emu, sql, before);
    }),
  );
}

/**
 * Deletes a collection and its memberships; its products' `collectionIds` change. All Products
 * cannot be deleted.
 */
export async function deleteCollection(emu: Emulator, id: string): Promise<void> {
  if (id === ALL_PRODUCTS_COLLECTION_ID)
    throw appError(400, 'CANNOT_DELETE_ALL_PRODUCTS', 'The All Products collection cannot be deleted');
  await emu.db.tx(async (sql) => {
    await lockCollection(sql, id);
    const members = await sql.query<{ product_id: string }>(
      'SELECT product_id FROM collection_products WHERE collection_id = $1',
      [id],
    );
    // Its products are locked before the deletion takes their memberships with it: a product's
    // deletion locks the product, then its memberships, and the reverse order here deadlocked
    // with it. A product deleted meanwhile is not found, and has no membership left.
    const kept = await lockProducts(
      sql,
      members.map((m) => m.product_id),
      'NO KEY UPDATE',
    );
    await sql.query('DELETE FROM collections WHERE id = $1', [id]);
    await emu.recordEvent(sql, COLLECTION_EVENTS.deleted, id, collectionDeleted(id));
    await productsChanged(emu, sql, [...kept]);
  });
}

/** Adds products to a collection (after its last); members already there are left as they are. */
export async function addCollectionProducts(emu: Emulator, id: string, productIds: string[]): Promise<void> {
  await emu.db.tx(async (sql) => {
    await lockCollection(sql, id);
    await checkProducts(sql, productIds);
    const before = await merchantView(emu, sql, id);
    const added = await sql.query<{ product_id: string }>(
      `INSERT INTO collection_products (collection_id, product_id, position)
       SELECT $1, pid, (SELECT COALESCE(max(position), -1) FROM collection_products WHERE collection_id = $1) + ord
       FROM unnest($2::text[]) WITH ORDINALITY AS t(pid, ord)
       ON CONFLICT DO NOTHING RETURNING product_id`,
      [id, [...new Set(productIds)]],
    );
    // Products that all were members already: nothing changed, nothing to tell.
    if (!added.length) return;
    await sql.query('UPDATE collections SET updated_at = $2 WHERE id = $1', [id, emu.now()]);
    await recordCollectionChange(emu, sql, before);
    await productsChanged(
      emu,
      sql,
      added.map((a) => a.product_id),
    );
  });
}

/** Removes products from a collection; All Products keeps every product. */
export async function removeCollectionProducts(
  emu: Emulator,
  id: string,
  productIds: string[],
): Promise<void> {
  if (id === ALL_PRODUCTS_COLLECTION_ID)
    throw appError(
      400,
      'CANNOT_CHANGE_ALL_PRODUCTS',
      'Products cannot be removed from the All Products collection',
    );
  await emu.db.tx(async (sql) => {
    await lockCollection(sql, id);
    await checkProducts(sql, productIds);
    const before = await merchantView(emu, sql, id);
    const removed = await sql.query<{ product_id: string }>(
      'DELETE FROM collection_products WHERE collection_id = $1 AND product_id = ANY($2::text[]) RETURNING product_id',
      [id, productIds],
    );
    if (!removed.length) return;
    await sql.query('UPDATE collections SET updated_at = $2 WHERE id = $1', [id, emu.now()]);
    await recordCollectionChange(emu, sql, before);
    await productsChanged(
      emu,
      sql,
      removed.map((r) => r.product_id),
    );
  });
}
