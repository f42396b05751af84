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
import { qs, queryFields, z } from '../../http/validate.ts';

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

const SELECT = `
  SELECT c.id, c.name, c.slug, c.visible, c.doc, c.updated_at,
         (SELECT count(*) FROM collection_products cp WHERE cp.collection_id = c.id)::int AS n
  FROM collections c`;

export function rowToCollection(emu: Emulator, r: Record<string, any>): WireCollection {
  const doc = r.doc ?? {};
  const image = doc.media?.mainMedia?.image;
  const media = image
    ? {
        ...doc.media,
        mainMedia: { ...doc.media.mainMedia, image: { ...image, url: emu.absoluteUrl(image.url) } },
      }
    : doc.media;
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
  const rows = await sql.query(`${SELECT} WHERE c.${by} = $1 ${seesHidden(who) ? '' : 'AND c.visible'}`, [
    value,
  ]);
  if (!rows[0])
    throw notFound('COLLECTION_NOT_FOUND', `Collection with ${by} ${JSON.stringify(value)} not found`);
  return rowToCollection(emu, rows[0]);
}

export async function queryCollections(emu: Emulator, sql: Sql, who: Identity, query: unknown) {
  const params: unknown[] = [];
  const q = compileQuery(query as never, FIELDS, params, { idSql: 'c.id' });
  const where = `(${q.where})${seesHidden(who) ? '' : ' AND c.visible'}`;
  const total = await sql.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM collections c WHERE ${where}`,
    params,
  );
  const rows = await sql.query(
    `${SELECT} WHERE ${where} ORDER BY ${q.orderBy} LIMIT ${q.limit} OFFSET ${q.offset}`,
    params,
  );
  const collections = rows.map((r) => rowToCollection(emu, r));
  return {
    collections,
    metadata: { count: collections.length, offset: q.offset, total: Number(total[0]?.n ?? 0) },
  };
}

const idMsg = z.object({ id: z.string().min(1) });
const slugMsg = z.object({ slug: z.string().min(1) });
const queryMsg = z
  .object({
    query: z
      .object({
        filter: z.record(z.string(), z.unknown()).optional(),
        sort: z
          .array(z.object({ fieldName: z.string(), order: z.enum(['ASC', 'DESC']).optional() }).strict())
          .optional(),
        // Plain dotted query parameters arrive as strings (wire §8.3), as on the products query.
        paging: z.object({ limit: qs.int().optional(), offset: qs.int().optional() }).strict().optional(),
        fields: queryFields(),
      })
      .strict()
      .optional(),
  })
  .strict();

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

export async function seedCollections(sql: Sql) {
  for (const c of DEMO_COLLECTIONS) {
    const media = {
      mainMedia: {
        image: { url: `/media/collection-${c.slug}.svg`, width: 800, height: 600, altText: c.name },
      },
    };
    await sql.query(
      `INSERT INTO collections (id, slug, name, visible, doc) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (slug) DO NOTHING`,
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
