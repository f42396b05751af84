/**
 * The request engine against the emulator over real HTTP: token single-flight, `.r` encoding and
 * the GET→POST fallback, paging, errors in the platform envelope, refresh rotation.
 */
import { testBackends } from '@shopkit/emulator/testing';
import { describe, expect, it } from 'vitest';
import {
  ApplicationError,
  collections,
  createClient,
  HttpError,
  OAuthStrategy,
  type Tokens,
  ValidationError,
} from '../../src/index.ts';
import { setupEmulator, visitorClient } from './setup.ts';

/** A fetch that records every request it passes on. */
function recordingFetch() {
  const calls: { method: string; url: string; headers: Headers; body?: string }[] = [];
  const fetchFn: typeof fetch = async (input, init) => {
    calls.push({
      method: init?.method ?? 'GET',
      url: String(input),
      headers: new Headers(init?.headers),
      body: init?.body as string,
    });
    return fetch(input, init);
  };
  return { calls, fetchFn };
}

describe.each(testBackends())('foundation over HTTP (%s)', (backend) => {
  const emu = setupEmulator(backend);

  const visitor = (fetchFn?: typeof fetch, tokens?: Tokens) =>
    visitorClient(emu, { collections }, { fetch: fetchFn, tokens });

  it('twenty concurrent calls on a fresh visitor client make exactly one token request', async () => {
    const { calls, fetchFn } = recordingFetch();
    const client = visitor(fetchFn);
    const results = await Promise.all(
      Array.from({ length: 20 }, () => client.collections.getCollectionBySlug('summer-linen')),
    );
    expect(results.every((r) => r.collection.slug === 'summer-linen')).toBe(true);
    expect(calls.filter((c) => c.url.endsWith('/oauth2/token'))).toHaveLength(1);
    // The raw token, no Bearer prefix.
    const auth = calls.find((c) => !c.url.endsWith('/oauth2/token'))!.headers.get('authorization')!;
    expect(auth).toMatch(/^OauthNG\./);
    expect(await client.auth.loggedIn()).toBe(false);
    expect((await client.auth.getTokens()).refreshToken.role).toBe('visitor');
  });

  it('gets a collection by id and returns the unwrapped entity with Date fields', async () => {
    const client = visitor();
    const { collection } = await client.collections.getCollectionBySlug('kitchen');
    const byId = await client.collections.getCollection(collection.id);
    expect(byId).toMatchObject({
      id: collection.id,
      name: 'Kitchen & Table',
      slug: 'kitchen',
      visible: true,
    });
    expect(byId.lastUpdated).toBeInstanceOf(Date);
  });

  it('sends builder queries as .r and pages through them', async () => {
    const { calls, fetchFn } = recordingFetch();
    const client = visitor(fetchFn);
    const page = await client.collections.queryCollections().ascending('name').limit(2).find();
    const q = calls.at(-1)!;
    expect(q.method).toBe('GET');
    expect(new URL(q.url).searchParams.get('.r')).toBeTruthy();
    expect(page.items.map((c) => c.name)).toEqual(['Accessories', 'All Products']);
    expect(page.totalCount).toBe(5); // the hidden "Archive" collection is not counted for visitors
    expect(page.totalPages).toBe(3);
    expect(page.hasNext()).toBe(true);
    const last = await (await page.next()).next();
    expect(last.currentPage).toBe(2);
    expect(last.hasNext()).toBe(false);
    expect(last.items).toHaveLength(1);
    const all: string[] = [];
    for await (const c of client.collections.queryCollections().ascending('name').limit(2)) all.push(c.slug);
    expect(all).toEqual(['accessories', 'all-products', 'kitchen', 'sale', 'summer-linen']);
  });

  it('filters with operators compiled to SQL', async () => {
    const client = visitor();
    const q = client.collections.queryCollections();
    const names = async (b: typeof q) => (await b.ascending('name').find()).items.map((c) => c.name);
    expect(await names(q.startsWith('name', 'su'))).toEqual(['Summer Linen']);
    expect(await names(q.in('slug', ['sale', 'kitchen']))).toEqual(['Kitchen & Table', 'Sale']);
    expect(await names(q.eq('slug', 'sale').or(q.eq('slug', 'kitchen')))).toEqual([
      'Kitchen & Table',
      'Sale',
    ]);
    expect(await names(q.contains('name', 'inen').not(q.eq('slug', 'x')))).toEqual(['Summer Linen']);
    expect(await names(q.ne('slug', 'sale').startsWith('slug', 's'))).toEqual(['Summer Linen']);
    // A value that would break string-pasted SQL is just a value.
    expect(await names(q.eq('name', "x' OR '1'='1"))).toEqual([]);
  });

  it('switches a long query to POST with a JSON body (fallback over 4000 characters)', async () => {
    const { calls, fetchFn } = recordingFetch();
    const client = visitor(fetchFn);
    const slugs = Array.from({ length: 400 }, (_, i) => `missing-slug-${i}`).concat('sale');
    const page = await client.collections.queryCollections().in('slug', slugs).find();
    const q = calls.at(-1)!;
    expect(q.method).toBe('POST');
    expect(q.url).toBe(`${emu.url}/v2/collections/query`);
    expect(JSON.parse(q.body!).query.filter.slug.$in).toHaveLength(401);
    expect(page.items.map((c) => c.slug)).toEqual(['sale']);
  });

  it('maps a not-found answer to an ApplicationError with code and request id', async () => {
    const client = visitor();
    const err = await client.collections.getCollection('nope').catch((e) => e);
    expect(err).toBeInstanceOf(ApplicationError);
    expect(err).toMatchObject({ status: 404, code: 'COLLECTION_NOT_FOUND' });
    expect(err.message).toBe('Collection with id "nope" not found');
    expect(err.requestId).toMatch(/[0-9a-f-]{36}/);
  });

  it('maps field violations to INVALID_ARGUMENT with the caller’s argument names', async () => {
    const client = visitor();
    const err = await client.collections
      .queryCollections({ filter: { color: 'red', name: { $gt: 3 } }, paging: { limit: 500 } })
      .catch((e) => e);
    expect(err).toBeInstanceOf(ValidationError);
    expect(err.message).toBe(
      'INVALID_ARGUMENT: "query.filter.color" is not a field that can be queried (fields: id, name, slug, visible), ' +
        '"query.filter.name.$gt" must be a text value, "query.paging.limit" must be an integer from 0 to 100',
    );
  });

  it('refuses calls without credentials with the platform envelope', async () => {
    const client = createClient({ baseUrl: emu.url, modules: { collections } });
    const err = await client.collections.getCollection('x').catch((e) => e);
    expect(err).toBeInstanceOf(ApplicationError);
    expect(err).toMatchObject({
      status: 401,
      code: 'UNAUTHENTICATED',
      message: 'Request is missing authentication data',
    });
  });

  it('refreshes an expired access token with the refresh token and adopts the rotated one', async () => {
    const { calls, fetchFn } = recordingFetch();
    const auth = OAuthStrategy({ clientId: emu.demo.clientId });
    const client = createClient({ baseUrl: emu.url, fetch: fetchFn, auth, modules: { collections } });
    await client.collections.getCollectionBySlug('sale');
    const first = await auth.getTokens();
    await auth.setTokens({ ...first, accessToken: { ...first.accessToken, expiresAt: 0 } });
    await client.collections.getCollectionBySlug('sale');
    const second = await auth.getTokens();
    const tokenBodies = calls.filter((c) => c.url.endsWith('/oauth2/token')).map((c) => JSON.parse(c.body!));
    expect(tokenBodies.map((b) => b.grantType)).toEqual(['anonymous', 'refresh_token']);
    expect(second.refreshToken.value).not.toBe(first.refreshToken.value);
    expect(second.refreshToken.role).toBe('visitor');
    const again = () =>
      fetch(`${emu.url}/oauth2/token`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({
          clientId: emu.demo.clientId,
          grantType: 'refresh_token',
          refreshToken: first.refreshToken.value,
        }),
      });
    // Sent again while the new one is unused (another renewal of the same session at once): the
    // same answer, which this client holds.
    expect((await (await again()).json()).refresh_token).toBe(second.refreshToken.value);
    // Once the new one is used, the rotated-away refresh token is dead, and reusing it ends the family.
    await auth.renewToken();
    const reuse = await again();
    expect(reuse.status).toBe(400);
    expect((await reuse.json()).details.applicationError.code).toBe('invalid_grant');
    expect(reuse.headers.get('x-wix-request-id')).toBeTruthy();
  });

  it('sends token responses with no-store', async () => {
    const res = await fetch(`${emu.url}/oauth2/token`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ clientId: emu.demo.clientId, grantType: 'anonymous' }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('pragma')).toBe('no-cache');
    const body = await res.json();
    expect(body.access_token).toBeTruthy();
    expect(body.expires_in).toBe(14400);
  });

  it('treats a 404 without an envelope as an HttpError', async () => {
    const client = createClient({
      baseUrl: emu.url + '/nothing-here',
      auth: OAuthStrategy({ clientId: emu.demo.clientId }),
      modules: { collections },
    });
    const err = await client.collections.getCollection('x').catch((e) => e);
    // Token endpoint is under the same base, so the token call itself fails first.
    expect(err.message).toBe('something went wrong');
    expect(err).not.toBeInstanceOf(HttpError);
  });
});
