/**
 * A query builder's calls take call options, as every other call does (`find`, `next`, `prev`,
 * `pages`): they took none, so a search could not be aborted when its input changed, nor given a
 * timeout of its own.
 */
import { describe, expect, it } from 'vitest';
import { createClient } from './client.ts';
import { ShopkitError } from './http/errors.ts';
import * as collections from './modules/collections.ts';
import * as products from './modules/products.ts';

/** A client whose fetch answers a page of `total` products (two a page) and records each request. */
function shop(total = 4) {
  const sent: { url: string; headers: Record<string, string>; signal?: AbortSignal }[] = [];
  const client = createClient({
    baseUrl: 'http://h',
    fetch: async (input, init) => {
      sent.push({
        url: String(input),
        headers: init?.headers as Record<string, string>,
        signal: init?.signal ?? undefined,
      });
      return Response.json({
        products: [{ id: `p${sent.length}` }],
        collections: [{ id: `c${sent.length}` }],
        metadata: { count: 1, offset: 0, total },
      });
    },
  });
  return { client, sent };
}

/** A client whose fetch never answers unless its signal aborts. */
const hanging = () =>
  createClient({
    baseUrl: 'http://h',
    fetch: (_, init) =>
      new Promise<Response>((_, reject) =>
        init?.signal?.addEventListener('abort', () => reject(init.signal!.reason)),
      ),
  });

const failure = (p: Promise<unknown>) =>
  p.then(
    () => {
      throw new Error('resolved');
    },
    (e: unknown) => e as ShopkitError,
  );

describe('a query builder takes call options', () => {
  it("find(options) sends the call's headers, and its signal aborts it", async () => {
    const { client, sent } = shop();
    await products
      .queryProducts(client)
      .limit(1)
      .find({ headers: { 'x-trace': 'find' } });
    expect(sent[0]!.headers['x-trace']).toBe('find');

    const ctl = new AbortController();
    ctl.abort();
    const err = await failure(products.queryProducts(hanging()).find({ signal: ctl.signal }));
    expect(err).toBeInstanceOf(ShopkitError);
    expect(err.code).toBe('ABORTED');
  });

  it('find({timeoutMs}) times out a page that never comes', async () => {
    const err = await failure(collections.queryCollections(hanging()).find({ timeoutMs: 30 }));
    expect(err.code).toBe('TIMEOUT');
  });

  it("next and prev take options of their own, not the first page's", async () => {
    const { client, sent } = shop();
    const first = await products
      .queryProducts(client)
      .limit(1)
      .find({ headers: { 'x-trace': 'first' } });
    const second = await first.next({ headers: { 'x-trace': 'second' } });
    await second.prev();
    expect(sent.map((s) => s.headers['x-trace'])).toEqual(['first', 'second', undefined]);
  });

  it("pages(options) and for await: each page's call with the options", async () => {
    const { client, sent } = shop(3);
    const pages = [];
    for await (const page of collections
      .queryCollections(client)
      .limit(1)
      .pages({ headers: { 'x-trace': 'all' } }))
      pages.push(page.items[0]);
    expect(pages).toHaveLength(3);
    expect(sent.map((s) => s.headers['x-trace'])).toEqual(['all', 'all', 'all']);
  });
});
