/**
 * The collections v2 module's wire contract with a recording fetch: paths, the `.r` query form and
 * the float transform of a sort origin.
 */
import { describe, expect, it } from 'vitest';
import { createClient } from '../client.ts';
import * as collections from './collections.ts';

function fake(answer: unknown) {
  const calls: { method: string; url: URL }[] = [];
  const client = createClient({
    baseUrl: 'https://api.test',
    fetch: async (input, init) => {
      calls.push({ method: init?.method ?? 'GET', url: new URL(String(input)) });
      return new Response(JSON.stringify(answer), { status: 200 });
    },
    modules: { collections },
  });
  return { calls, client };
}

const decodeR = (url: URL) => JSON.parse(Buffer.from(url.searchParams.get('.r')!, 'base64url').toString());

describe('collections module', () => {
  it('sends a sort origin as floats, as the platform SDK does (auto_sdk_stores_collections)', async () => {
    const { client, calls } = fake({ collections: [], metadata: { count: 0, offset: 0, total: 0 } });
    const sort = [{ fieldName: 'location', origin: { latitude: Number.NaN, longitude: Infinity } }];
    await client.collections.queryCollections({ sort });
    expect(calls[0]!.url.pathname).toBe('/v2/collections/query');
    expect(decodeR(calls[0]!.url).query.sort).toEqual([
      { fieldName: 'location', origin: { latitude: 'NaN', longitude: 'Infinity' } },
    ]);
    expect(sort[0]!.origin.latitude).toBeNaN(); // the caller's object is left alone
  });

  it('gets by id (unwrapped) and by slug (enveloped) on the v2 paths', async () => {
    const { client, calls } = fake({ collection: { id: 'c', lastUpdated: '2026-01-01T00:00:00.000Z' } });
    const one = await client.collections.getCollection('c');
    expect(one.lastUpdated).toBeInstanceOf(Date);
    const { collection } = await client.collections.getCollectionBySlug('summer sale');
    expect(collection.id).toBe('c');
    expect(calls.map((c) => `${c.method} ${c.url.pathname}${c.url.search}`)).toEqual([
      'GET /v2/collections/c?id=c',
      'GET /v2/collections/slug/summer%20sale?slug=summer+sale',
    ]);
  });
});
