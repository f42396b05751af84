/**
 * Collections v2 reader (wire §5.4): get, get by slug, query with offset or cursor paging.
 * @module
 */
import type { AnyClient } from '../client.ts';
import { type CallOptions, op } from '../http/op.ts';
import { type CursorQuery, type PagingMetadata, QUERY_REQ, QueryBuilder } from '../query.ts';
import { date } from '../transforms.ts';
import type { MediaItem } from './products.ts';

/** A collection's media: its main image, and media items as products have them (wire §5.3). */
export interface CollectionMedia {
  mainMedia?: { id?: string; image?: { url: string; width?: number; height?: number; altText?: string } };
  items?: MediaItem[];
}

/** A store collection. */
export interface Collection {
  id: string;
  name: string;
  slug: string;
  description?: string;
  visible?: boolean;
  numberOfProducts?: number;
  media?: CollectionMedia;
  lastUpdated?: Date;
}

export interface QueryCollectionsResponse {
  collections: Collection[];
  metadata: PagingMetadata;
}

const res = { collection: { lastUpdated: date }, collections: { lastUpdated: date } };

/** GET `/v2/collections/{id}` → the collection. */
export const getCollection = /* @__PURE__ */ op<[id: string], Collection>({
  method: 'GET',
  path: '/v2/collections/{id}',
  args: ['id'],
  res,
  unwrap: 'collection',
});

/** GET `/v2/collections/slug/{slug}` → `{collection}`. */
export const getCollectionBySlug = /* @__PURE__ */ op<[slug: string], { collection: Collection }>({
  method: 'GET',
  path: '/v2/collections/slug/{slug}',
  args: ['slug'],
  res,
});

const queryOp = /* @__PURE__ */ op<[query: CursorQuery], QueryCollectionsResponse>({
  method: 'GET',
  path: '/v2/collections/query',
  args: ['query'],
  complexQuery: true,
  fallback: true,
  req: QUERY_REQ,
  res,
});

/**
 * Queries collections. With a query (offset `paging` or `cursorPaging`), one call that returns
 * `{collections, metadata}`; without, a builder (fields `id`, `name`, `slug`).
 * @example const page = await client.collections.queryCollections().startsWith('name', 'Sum').find();
 */
export function queryCollections(client: AnyClient): QueryBuilder<Collection>;
export function queryCollections(
  client: AnyClient,
  query: CursorQuery,
  options?: CallOptions,
): Promise<QueryCollectionsResponse>;
export function queryCollections(client: AnyClient, query?: CursorQuery, options?: CallOptions) {
  if (query) return queryOp(client, query, options);
  return new QueryBuilder<Collection>(async (q, o) => {
    const r = await queryOp(client, q, o);
    return { items: r.collections, metadata: r.metadata };
  });
}
