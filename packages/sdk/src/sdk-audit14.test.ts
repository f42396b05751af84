/**
 * Wire compatibility of queries and catalog answers, found by the fourteenth audit (the wire
 * protocol's §1.4, §2 and §4 against what the SDK sends and reads): each test failed before its fix.
 */
import { describe, expect, it } from 'vitest';
import { createClient } from './client.ts';
import * as collections from './modules/collections.ts';
import * as products from './modules/products.ts';

/** A client whose fetch answers each request with `answer(url)` and records the URLs. */
function shop(answer: (url: URL) => unknown) {
  const urls: URL[] = [];
  const client = createClient({
    baseUrl: 'http://h',
    fetch: async (input) => {
      const url = new URL(String(input));
      urls.push(url);
      return Response.json(answer(url));
    },
    modules: { products, collections },
  });
  return { client, urls };
}

/** The offset of a query sent as `.r`. */
const offsetOf = (url: URL) =>
  JSON.parse(Buffer.from(url.searchParams.get('.r')!, 'base64url').toString()).query.paging.offset as number;

describe('paging metadata whose total is null', () => {
  // The typings declare `total?: number | null`: a server may say `null` for "not counted". Read
  // as 0, it made a full first page the last one: `hasNext()` false, `next()` refused and
  // `pages()` / `for await` stopped after the first page.
  it('is an unknown total: the pages are walked while they are full', async () => {
    const { client, urls } = shop((url) => {
      const offset = offsetOf(url);
      const ids = ['a', 'b', 'c', 'd', 'e'].slice(offset, offset + 2);
      const items = ids.map((id) => ({ id }));
      return { products: items, collections: items, metadata: { count: ids.length, offset, total: null } };
    });
    const first = await client.products.queryProducts().limit(2).find();
    expect(first.totalCount).toBeUndefined();
    expect(first.totalPages).toBeUndefined();
    expect((await first.next()).items).toEqual([{ id: 'c' }, { id: 'd' }]);
    const all: string[] = [];
    for await (const p of client.collections.queryCollections().limit(2)) all.push(p.id);
    for await (const p of client.products.queryProducts().limit(2)) all.push(p.id);
    expect(all).toEqual(['a', 'b', 'c', 'd', 'e', 'a', 'b', 'c', 'd', 'e']);
    expect(urls.map(offsetOf).slice(-3)).toEqual([0, 2, 4]);
  });
});
