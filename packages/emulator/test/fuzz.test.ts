/**
 * Property-based bad input against every route the emulator serves: random and malformed bodies,
 * query strings, `.r` values, path parameters and credentials. Every answer is below 500; every
 * 4xx is a well-formed platform envelope; a rejected request leaves the database unchanged.
 * `npm run test:long` (SHOPKIT_LONG=1) runs ten times as many cases.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Registered } from '../src/http/router.ts';
import { startTestEmulator, type TestEmulator } from '../src/testing.ts';
import { expectEnvelope, fingerprintQuery, visitorToken } from './http.ts';

const RUNS = process.env.SHOPKIT_LONG ? 3000 : 300;

/** API paths answer the JSON envelope; anything else is a hosted page (HTML) and only must not fail. */
const API = /^\/(_api|_iam|ecom|stores|stores-reader|v2|headless|graphql|oauth2\/(?:token|revoke))(\/|-|$)/;
const isPage = (r: Registered) => !API.test(r.path);

describe('fuzzing every route', () => {
  let emu: TestEmulator;
  let fingerprint: string;
  let visitor: string;
  beforeAll(async () => {
    emu = await startTestEmulator('pglite');
    fingerprint = await fingerprintQuery(emu);
    visitor = await visitorToken(emu);
  });
  afterAll(() => emu?.stop());

  it('lists the routes it fuzzes', () => {
    expect(emu.routes.length).toBeGreaterThan(10);
  });

  it('answers random input with <500, the envelope on 4xx, and no change when rejected', async () => {
    const routes = emu.routes;
    const segment = fc.oneof(
      fc.string({ minLength: 1, maxLength: 12 }),
      fc.constantFrom(
        '..',
        '%2F',
        '%00',
        '\u0000',
        'a\u0000b',
        'query',
        '0',
        '-1',
        'ſ',
        '💥',
        'col-sale',
        "x' OR '1'='1",
      ),
      fc.uuid(),
    );
    const body = fc.oneof(
      fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)),
      fc
        .dictionary(
          fc.constantFrom(
            'query',
            'product',
            'collection',
            'lineItems',
            'id',
            'ids',
            'paging',
            'filter',
            'set',
            'adjust',
            'cartInfo',
            'grantType',
            'clientId',
            'token',
            'loginId',
            'password',
            'options',
            'media',
            'variants',
          ),
          // Any code point, NUL and other control characters included (PostgreSQL text holds no NUL),
          // and unpaired surrogates (nor does its JSON).
          fc.oneof(
            fc.jsonValue({ maxDepth: 3 }),
            fc.string({ unit: 'binary', maxLength: 8 }),
            fc.constantFrom('\ud800', 'a\udc00b', '\udbff\ud800'),
          ),
        )
        .map((v) => JSON.stringify(v)),
      fc.string({ maxLength: 40 }),
      fc.constant(''),
    );
    const query = fc.oneof(
      fc.constant(''),
      fc.string({ maxLength: 30 }).map((s) => `.r=${encodeURIComponent(s)}`),
      fc.jsonValue({ maxDepth: 3 }).map((v) => `.r=${Buffer.from(JSON.stringify(v)).toString('base64url')}`),
      fc
        .dictionary(
          fc.stringMatching(/^[a-z.$_]{1,12}$/),
          fc.oneof(fc.string({ maxLength: 10 }), fc.string({ unit: 'binary', maxLength: 6 })),
        )
        .map((d) => new URLSearchParams(d).toString()),
    );
    const auth = fc.constantFrom<'none' | 'visitor' | 'key' | 'junk'>('none', 'visitor', 'key', 'junk');

    await fc.assert(
      fc.asyncProperty(
        fc.nat(routes.length - 1),
        fc.array(segment, { minLength: 4, maxLength: 4 }),
        body,
        query,
        auth,
        async (i, segs, rawBody, qs, who) => {
          const route = routes[i]!;
          let k = 0;
          const path = route.path.replace(/:[A-Za-z_]+/g, () => encodeURIComponent(segs[k++ % segs.length]!));
          const headers: Record<string, string> = {};
          if (who === 'visitor') headers.authorization = visitor;
          if (who === 'key') headers.authorization = emu.demo.apiKey;
          if (who === 'junk') headers.authorization = 'OauthNG.junk,other';
          const hasBody = route.method !== 'GET' && route.method !== 'DELETE';
          if (hasBody) headers['content-type'] = 'application/json';
          const [before] = await emu.emu.db.query(fingerprint);
          const res = await fetch(`${emu.url}${path}${qs ? `?${qs}` : ''}`, {
            method: route.method,
            headers,
            body: hasBody ? rawBody : undefined,
          });
          const text = await res.text();
          const where = `${route.method} ${path}?${qs} (${who}) → ${res.status}: ${text.slice(0, 300)}`;
          expect(res.status, where).toBeLessThan(500);
          if (res.status >= 400 && !isPage(route)) expectEnvelope(text, where);
          if (res.status >= 400) {
            const [after] = await emu.emu.db.query(fingerprint);
            expect(after, `${where}: storage changed`).toEqual(before);
          }
        },
      ),
      { numRuns: RUNS },
    );
  }, 600_000);

  it('answers random queries on every query route with <500, the envelope on 4xx', async () => {
    // Filters and sorts naming real fields, unknown ones and what every JavaScript object inherits
    // (`constructor` was found as a field whose SQL was `undefined`: a 500), with any operator.
    const queries = emu.routes.filter((r) => r.method === 'POST' && /\/query(-platformized)?$/.test(r.path));
    expect(queries.length).toBeGreaterThanOrEqual(3);
    const name = fc.constantFrom(
      'id',
      'name',
      'slug',
      'price',
      'numericId',
      'lastUpdated',
      'collections.id',
      'productOptions',
      'constructor',
      'toString',
      'hasOwnProperty',
      '__proto__',
      'valueOf',
      'x',
    );
    const operator = fc.constantFrom(
      '$eq',
      '$ne',
      '$in',
      '$nin',
      '$gt',
      '$lte',
      '$exists',
      '$startsWith',
      '$hasSome',
      '$x',
    );
    const value = fc.oneof(
      fc.jsonValue({ maxDepth: 1 }),
      fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
    );
    // Written as text: an object built with a `__proto__` key would not show it in JSON.
    const object = (entries: [string, unknown][]) =>
      `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${typeof v === 'string' && v.startsWith('{') ? v : JSON.stringify(v)}`).join(',')}}`;
    const condition = fc.oneof(value, fc.array(fc.tuple(operator, value), { maxLength: 2 }).map(object));
    const filter = fc.array(fc.tuple(name, condition), { maxLength: 3 }).map(object);
    const sort = fc.array(fc.record({ fieldName: name, order: fc.constantFrom('ASC', 'DESC') }), {
      maxLength: 2,
    });
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...queries),
        filter,
        sort,
        fc.boolean(),
        async (route, f, s, cursor) => {
          const paging = cursor ? '"cursorPaging":{"limit":5}' : '"paging":{"limit":5}';
          const body = `{"query":{"filter":${f},"sort":${JSON.stringify(s)},${paging}}}`;
          const res = await fetch(emu.url + route.path, {
            method: 'POST',
            headers: { authorization: emu.demo.apiKey, 'content-type': 'application/json' },
            body,
          });
          const text = await res.text();
          const where = `POST ${route.path} ${body} → ${res.status}: ${text.slice(0, 300)}`;
          expect(res.status, where).toBeLessThan(500);
          if (res.status >= 400) expectEnvelope(text, where);
        },
      ),
      { numRuns: RUNS },
    );
  }, 600_000);

  it('refuses JSON nested far too deep on every route that reads a body, without a 500', async () => {
    // Where routes take free-form JSON, a recursive walk of it (a schema refine, a clone, the
    // filter compiler, the SQL it builds) would overflow a stack.
    const paths = [
      ['query', 'filter'],
      ['profile', 'x'],
      ['bookingsCheckout', 'slotAvailability'],
      ['product', 'seoData', 'tags'],
    ];
    const n = 5000;
    const shapes = ['['.repeat(n) + ']'.repeat(n), `${'{"$not":'.repeat(n)}{}${'}'.repeat(n)}`];
    const bodies = paths.flatMap((path) =>
      shapes.map((deep) => path.reduceRight((inner, key) => `{"${key}":${inner}}`, deep)),
    );
    const [before] = await emu.emu.db.query(fingerprint);
    for (const route of emu.routes) {
      if (route.method === 'GET' || route.method === 'DELETE' || isPage(route)) continue;
      const path = route.path.replace(/:[A-Za-z_]+/g, 'x');
      for (const body of bodies) {
        const res = await fetch(emu.url + path, {
          method: route.method,
          headers: { authorization: emu.demo.apiKey, 'content-type': 'application/json' },
          body,
        });
        const env = await res.json();
        const where = `${route.method} ${path} ${body.slice(0, 40)}… → ${res.status}: ${JSON.stringify(env).slice(0, 200)}`;
        expect(res.status, where).toBeGreaterThanOrEqual(400);
        expect(res.status, where).toBeLessThan(500);
        expect(typeof env.message, where).toBe('string');
      }
    }
    const [after] = await emu.emu.db.query(fingerprint);
    expect(after).toEqual(before);
  }, 600_000);
});
