/** Query pages against unusual answers, found by the tenth audit: each test failed before its fix. */
import { describe, expect, it } from 'vitest';
import { createClient } from './client.ts';
import * as collections from './modules/collections.ts';
import * as products from './modules/products.ts';

const clientAnswering = (body: unknown) =>
  createClient({ baseUrl: 'http://h', fetch: async () => Response.json(body) });

describe('a query answer with null in place of its list or its metadata', () => {
  // `{items = [], metadata = {}}` defaults only what is left out: a `null` (a JSON encoder that
  // writes empty fields as null) was a TypeError out of `find()` and `for await`.
  it.each([
    ['both', { products: null, metadata: null }],
    ['the metadata', { products: [], metadata: null }],
    ['the list', { products: null, metadata: { count: 0, offset: 0, total: 0 } }],
  ])('(%s null) is an empty page of products, not a TypeError', async (_, body) => {
    const page = await products.queryProducts(clientAnswering(body)).find();
    expect(page.items).toEqual([]);
    expect(page.hasNext()).toBe(false);
    const all: unknown[] = [];
    for await (const p of products.queryProducts(clientAnswering(body))) all.push(p);
    expect(all).toEqual([]);
  });

  it('of collections too', async () => {
    const page = await collections
      .queryCollections(clientAnswering({ collections: null, metadata: null }))
      .find();
    expect(page).toMatchObject({ items: [], totalCount: undefined, currentPage: 0 });
  });
});
