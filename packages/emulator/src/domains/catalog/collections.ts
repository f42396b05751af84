/**
 * Collections: storage and the v2 reader (get, get by slug, query) plus the v1 get-by-slug.
 * Invisible collections are hidden from visitors and members.
 * @module
 */
import type { Emulator, Identity } from '../../context.ts';
import { compileQuery, type FieldMap } from '../../db/filter.ts';
import type { Sql } from '../../db/index.ts';
import { notFound } from '../../http/errors.ts';
import { FAMILY, type Router } from '../../http/router.ts';
import { z } from '../../http/validate.ts';
import {
  countRows,
  type PlatformQuery,
  pageMetadata,
  platformQuery,
  readPage,
  resolvePaging,
} from './paging.ts';

export const collectionMigrations = [
  {
    id: '0100_collections',
    sql: `
      CREATE TABLE collections (
        id text PRIMARY KEY,
        slug text NOT NULL UNIQUE,
        name text NOT NULL,
        visible boolean NOT NULL DEFAULT true,
        doc jsonb NOT NULL DEFAULT '{}',
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE TABLE collection_products (
        collection_id text NOT NULL REFERENCES collections(id) ON DELETE CASCADE,
        product_id text NOT NULL,
        position integer NOT NULL DEFAULT 0,
        PRIMARY KEY (collection_id, product_id)
      );
      CREATE INDEX collection_products_product ON collection_products (product_id);
    `,
  },
];

/** The wire shape of a collection. */
export interface WireCollection {
  id: string;
  name: string;
  slug: string;
  visible: boolean;
  description?: string;
  media?: unknown;
  numberOfProducts: number;
  lastUpdated: string;
}

const FIELDS: FieldMap = {
  id: { sql: 'c.id', type: 'text' },
  name: { sql: 'c.name', type: 'text' },
  slug: { sql: 'c.slug', type: 'text' },
  visible: { sql: 'c.visible', type: 'bool' },
};

/**
 * Reads collections with `numberOfProducts`: the members the caller can see, so that a visitor's
 * count is that of the products a visitor can list (hidden ones are not counted), and a merchant's
 * counts them all. What the platform counts is UNCONFIRMED; counting hidden products for a visitor
 * would tell of products the shop keeps out of sight.
 */
const columns = (who: Identity) => `
  c.id, c.name, c.slug, c.visible, c.doc, c.updated_at,
  (SELECT count(*) FROM collection_products cp JOIN products p ON p.id = cp.product_id
   WHERE cp.collection_id = c.id${seesHidden(who) ? '' : ' AND p.visible'})::int AS n`;
const select = (who: Identity) => `SELECT ${columns(who)} FROM collections c`;

export function rowToCollection(emu: Emulator, r: Record<string, any>): WireCollection {
  const doc = r.doc ?? {};
  const image = doc.media?.mainMedia?.image;
  // `media.items` is always there (the platform SDK's non-nullable paths include it), as on products.
  const media = {
    items: [],
    ...doc.media,
    ...(image
      ? { mainMedia: { ...doc.media.mainMedia, image: { ...image, url: emu.absoluteUrl(image.url) } } }
      : {}),
  };
  return {
    id: r.id,
    name: r.name,
    slug: r.slug,
    visible: r.visible,
    ...doc,
    media,
    numberOfProducts: Number(r.n ?? 0),
    lastUpdated: new Date(r.updated_at).toISOString(),
  };
}

/** Whether the caller may see invisible entities (merchants and apps). */
export const seesHidden = (who: Identity) => who.type === 'WIX_USER' || who.type === 'APP';

export async function findCollection(
  emu: Emulator,
  sql: Sql,
  who: Identity,
  by: 'id' | 'slug',
  value: string,
) {
  const rows = await sql.query(
    `${select(who)} WHERE c.${by} = $1 ${seesHidden(who) ? '' : 'AND c.visible'}`,
    [value],
  );
  if (!rows[0])
    throw notFound('COLLECTION_NOT_FOUND', `Collection with ${by} ${JSON.stringify(value)} not found`);
  return rowToCollection(emu, rows[0]);
}

/** Collections matching a platform query, offset- or cursor-paged. */
export async function queryCollections(emu: Emulator, sql: Sql, who: Identity, query: unknown) {
  const paged = resolvePaging(query as PlatformQuery | undefined);
  const params: unknown[] = [];
  const q = compileQuery(paged.query, FIELDS, params, { ids: [{ sql: 'c.id', type: 'text' }] });
  const where = `(${q.where})${seesHidden(who) ? '' : ' AND c.visible'}`;
  const counted = await countRows(emu.config.catalogCountLimit, sql, 'FROM collections c', where, params);
  const page = await readPage(sql, paged, q, params, {
    columns: columns(who),
    from: 'FROM collections c',
    where,
  });
  const collections = page.rows.map((r) => rowToCollection(emu, r));
  return {
    collections,
    metadata: pageMetadata(page, { count: collections.length, ...counted }),
  };
}

const idMsg = z.object({ id: z.string().min(1) });
const slugMsg = z.object({ slug: z.string().min(1) });
const queryMsg = z.object({ query: platformQuery.optional() }).strict();

export function collectionRoutes(router: Router, emu: Emulator) {
  // Static paths before parameterised ones: `query` is not an id.
  for (const method of ['GET', 'POST'] as const)
    router.route({
      method,
      family: FAMILY.collectionsV2,
      path: '/v2/collections/query',
      access: 'anyone',
      schema: queryMsg,
      handler: ({ msg, identity }) => queryCollections(emu, emu.db, identity, msg.query),
    });
  router.route({
    method: 'GET',
    family: FAMILY.collectionsV2,
    path: '/v2/collections/slug/{slug}',
    access: 'anyone',
    schema: slugMsg,
    handler: async ({ msg, identity }) => ({
      collection: await findCollection(emu, emu.db, identity, 'slug', msg.slug),
    }),
  });
  router.route({
    method: 'GET',
    family: FAMILY.collectionsV2,
    path: '/v2/collections/{id}',
    access: 'anyone',
    schema: idMsg,
    handler: async ({ msg, identity }) => ({
      collection: await findCollection(emu, emu.db, identity, 'id', msg.id),
    }),
  });
  router.route({
    method: 'GET',
    family: FAMILY.catalogRead,
    path: '/v1/collections/slug/{slug}',
    access: 'anyone',
    schema: slugMsg,
    handler: async ({ msg, identity }) => ({
      collection: await findCollection(emu, emu.db, identity, 'slug', msg.slug),
    }),
  });
}

/** Demo collections (the catalog seed adds products to them). */
export const DEMO_COLLECTIONS = [
  { slug: 'all-products', name: 'All Products', description: 'Everything in the shop.' },
  { slug: 'summer-linen', name: 'Summer Linen', description: 'Light, breathable linen for warm days.' },
  { slug: 'kitchen', name: 'Kitchen & Table', description: 'Ceramics and tools for everyday cooking.' },
  { slug: 'accessories', name: 'Accessories', description: 'Bags, hats and small things.' },
  { slug: 'sale', name: 'Sale', description: 'Reduced while stock lasts.' },
  { slug: 'archive', name: 'Archive', description: 'Retired items, hidden from the shop.', visible: false },
];

/** The demo collections, or (`base`) only the All Products collection every store has. */
export async function seedCollections(sql: Sql, base = false) {
  for (const c of base ? DEMO_COLLECTIONS.filter((x) => x.slug === 'all-products') : DEMO_COLLECTIONS) {
    const media = {
      mainMedia: {
        image: { url: `/media/collection-${c.slug}.svg`, width: 800, height: 600, altText: c.name },
      },
    };
    await sql.query(
      // Neither its id nor its slug may be taken (a store first started without the demo, whose
      // merchant renamed All Products or made a collection of that slug): the merchant's stays.
      `INSERT INTO collections (id, slug, name, visible, doc) VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING`,
      [
        `col-${c.slug}`,
        c.slug,
        c.name,
        c.visible ?? true,
        JSON.stringify({ description: c.description, media }),
      ],
    );
  }
}
