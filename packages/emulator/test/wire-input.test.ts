/**
 * Input the platform's clients really send, and input an attacker sends, over raw HTTP: deeply
 * nested JSON is a 400 (never a stack overflow), field violations carry the schema's own words and
 * the bound they broke (wire §3.1), and the query endpoints take dotted parameters and `fields`
 * (wire §4, §8.3). Every refusal is the platform's envelope and leaves storage unchanged.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_FILTER_DEPTH } from '../src/db/filter.ts';
import { MAX_JSON_DEPTH } from '../src/http/decode.ts';
import type { Violation } from '../src/http/errors.ts';
import { startTestEmulator, type TestEmulator, testBackends } from '../src/testing.ts';
import { fingerprintQuery, visitorToken } from './http.ts';

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
/** `n` levels of `open`…`close` around `inner`, built as text (JSON.stringify would overflow). */
const nest = (n: number, open: string, inner: string, close: string) =>
  open.repeat(n) + inner + close.repeat(n);
/** A filter object with `n` `$not` around it. */
const nots = (n: number, inner: unknown = { name: 'x' }): unknown =>
  Array.from({ length: n }).reduce((f) => ({ $not: f }), inner);

describe.each(testBackends())('wire input (%s)', (backend) => {
  let emu: TestEmulator;
  let fingerprint: string;
  let visitor: string;
  beforeAll(async () => {
    emu = await startTestEmulator(backend);
    fingerprint = await fingerprintQuery(emu);
    visitor = await visitorToken(emu);
  });
  afterAll(() => emu?.stop());

  /** Sends a request as a visitor, or as the merchant with `merchant: true`. */
  async function call(method: string, path: string, body?: unknown, merchant = false) {
    const headers: Record<string, string> = { authorization: merchant ? emu.demo.apiKey : visitor };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(emu.url + path, {
      method,
      headers,
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    return { res, body: await res.json() };
  }

  /** Sends a request that must be refused: a 4xx envelope, and storage exactly as before. */
  async function refused(method: string, path: string, body?: unknown, merchant = false) {
    const [before] = await emu.emu.db.query(fingerprint);
    const out = await call(method, path, body, merchant);
    expect(out.res.status).toBeGreaterThanOrEqual(400);
    expect(out.res.status).toBeLessThan(500);
    expect(out.res.headers.get('x-wix-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(typeof out.body.message).toBe('string');
    const kinds = Object.keys(out.body.details ?? {});
    expect(kinds.length === 1 && ['applicationError', 'validationError'].includes(kinds[0]!)).toBe(true);
    for (const v of out.body.details.validationError?.fieldViolations ?? []) {
      expect(v).toEqual({
        field: expect.any(String),
        description: expect.any(String),
        violatedRule: expect.any(String),
        ...(v.violatedRule === 'OTHER' ? { ruleName: expect.any(String) } : {}),
        data: expect.any(Object),
      });
    }
    const [after] = await emu.emu.db.query(fingerprint);
    expect(after).toEqual(before);
    return { status: out.res.status, body: out.body };
  }

  const violations = (body: { details: { validationError: { fieldViolations: Violation[] } } }) =>
    body.details.validationError.fieldViolations;

  describe('deeply nested JSON', () => {
    const deep = 20_000;
    it.each([
      {
        name: 'a products filter with $not nested 600 deep',
        path: '/stores-reader/v1/products/query-platformized',
        body: `{"query":{"filter":${nest(600, '{"$not":', '{"name":"x"}', '}')}}}`,
      },
      {
        name: 'a products filter with $and nested 3000 deep',
        path: '/stores-reader/v1/products/query-platformized',
        body: `{"query":{"filter":${nest(3000, '{"$and":[', '{"name":"x"}', ']}')}}}`,
      },
      {
        name: 'a register profile nested 20000 deep',
        path: '/_api/iam/authentication/v2/register',
        body: `{"loginId":{"email":"deep@example.com"},"password":"long-enough-1","profile":{"x":${nest(deep, '[', '', ']')}}}`,
      },
      {
        name: 'a redirect session slotAvailability nested 20000 deep',
        path: '/_api/redirects-api/v1/redirect-session',
        body: `{"bookingsCheckout":{"slotAvailability":${nest(deep, '[', '', ']')}}}`,
      },
      {
        name: 'a new product with seoData.tags nested 20000 deep',
        path: '/stores/v1/products',
        body: `{"product":{"name":"Deep","productType":"physical","priceData":{"price":1},"seoData":{"tags":${nest(deep, '[', '', ']')}}}}`,
        merchant: true,
      },
    ])('refuses $name with 400 MALFORMED_REQUEST', async ({ path, body, merchant }) => {
      const { status, body: env } = await refused('POST', path, body, merchant);
      expect(status).toBe(400);
      expect(env.details.applicationError).toEqual({
        code: 'MALFORMED_REQUEST',
        description: `The request body nests objects and arrays more than ${MAX_JSON_DEPTH} levels deep`,
        data: { maxDepth: MAX_JSON_DEPTH },
      });
    });

    it('refuses a deep `.r` message as a violation of `.r`', async () => {
      const r = Buffer.from(`{"query":{"filter":${nest(600, '{"$not":', '{"name":"x"}', '}')}}}`).toString(
        'base64url',
      );
      const { status, body } = await refused('GET', `/stores-reader/v1/products/query-platformized?.r=${r}`);
      expect(status).toBe(400);
      expect(violations(body)).toEqual([
        {
          field: '.r',
          description: `must not nest objects and arrays more than ${MAX_JSON_DEPTH} levels deep`,
          violatedRule: 'FORMAT',
          data: { maxDepth: MAX_JSON_DEPTH },
        },
      ]);
    });

    it('refuses dotted query parameters that nest too deep, naming the parameter', async () => {
      const key = `query.filter${'.$not'.repeat(100)}.name`;
      const { status, body } = await refused('GET', `/v2/collections/query?${key}=x`);
      expect(status).toBe(400);
      expect(violations(body).map((v) => [v.field, v.violatedRule])).toEqual([[key, 'FORMAT']]);
    });

    it('still runs filters nested as deep as the limits allow', async () => {
      // The message, `query` and `filter` take three levels; each `$or` two (object and array).
      const or = nest((MAX_JSON_DEPTH - 3) >> 1, '{"$or":[{"name":"y"},', '{"name":"x"}', ']}');
      for (const body of [{ query: { filter: nots(MAX_FILTER_DEPTH) } }, `{"query":{"filter":${or}}}`]) {
        const { res, body: out } = await call('POST', '/stores-reader/v1/products/query-platformized', body);
        expect(res.status).toBe(200);
        expect(out.metadata).toMatchObject({ offset: 0 });
      }
      const { body } = await refused('POST', '/stores-reader/v1/products/query-platformized', {
        query: { filter: nots(MAX_FILTER_DEPTH + 1) },
      });
      expect(violations(body).map((v) => [v.field, v.data])).toEqual([
        [`query.filter${'.$not'.repeat(MAX_FILTER_DEPTH + 1)}`, { maxDepth: MAX_FILTER_DEPTH }],
      ]);
    });

    it('bounds filter depth in the compiler too: a forged cursor skips the body check', async () => {
      const cursor = b64({ o: 0, f: nots(MAX_FILTER_DEPTH + 8) });
      const { status, body } = await refused('POST', '/stores-reader/v1/variants/query', {
        query: { cursorPaging: { cursor } },
      });
      expect(status).toBe(400);
      expect(violations(body)).toEqual([
        {
          field: `query.filter${'.$not'.repeat(MAX_FILTER_DEPTH + 1)}`,
          description: `must not nest $and, $or and $not more than ${MAX_FILTER_DEPTH} levels deep`,
          violatedRule: 'FORMAT',
          data: { maxDepth: MAX_FILTER_DEPTH },
        },
      ]);
      // Deeper than the message limit: not a cursor this service could have issued.
      const deeper = Buffer.from(`{"o":0,"f":${nest(5000, '{"$not":', '{"name":"x"}', '}')}}`).toString(
        'base64url',
      );
      const again = await refused('POST', '/stores-reader/v1/variants/query', {
        query: { cursorPaging: { cursor: deeper } },
      });
      expect(violations(again.body).map((v) => v.field)).toEqual(['query.cursorPaging.cursor']);
    });
  });

  describe('field violations', () => {
    const product = { name: 'Checked', productType: 'physical', priceData: { price: 1 } };

    it.each([
      {
        name: 'product slug',
        method: 'POST',
        path: '/stores/v1/products',
        body: { product: { ...product, slug: 'Not A Slug' } },
        field: 'product.slug',
        description: 'must be lower-case letters, digits and single hyphens',
      },
      {
        name: 'media id',
        method: 'POST',
        path: '/stores/v1/products/any-id/media',
        body: { media: [{ mediaId: '../secret' }] },
        field: 'media[0].mediaId',
        description: 'must be a media id such as linen-shirt.svg',
      },
      {
        name: 'PKCE code challenge',
        method: 'POST',
        path: '/_api/redirects-api/v1/redirect-session',
        body: {
          auth: {
            authRequest: {
              clientId: 'any',
              responseType: 'code',
              state: 's',
              codeChallenge: 'short',
              codeChallengeMethod: 'S256',
            },
          },
        },
        field: 'auth.authRequest.codeChallenge',
        description: 'must be a base64url SHA-256 digest of 43 characters',
      },
    ])('keeps the schema’s own message: $name', async ({ method, path, body, field, description }) => {
      const { body: env } = await refused(method, path, body, true);
      expect(violations(env)).toEqual([
        { field, description, violatedRule: 'FORMAT', data: { type: 'regex' } },
      ]);
      expect(env.message).toBe(`INVALID_ARGUMENT: "${field}" ${description}`);
    });

    it('says "greater than" for an exclusive minimum, "at least" for an inclusive one', async () => {
      const gt = await refused('PATCH', '/ecom/v1/carts/current', { merchantDiscounts: [{ percentage: 0 }] });
      expect(violations(gt.body)).toEqual([
        {
          field: 'merchantDiscounts[0].percentage',
          description: 'must be greater than 0',
          violatedRule: 'MIN',
          data: { min: 0, exclusive: true },
        },
      ]);
      // A unit price's quantity has the typings' inclusive minimum, 0.01.
      const unit = { totalMeasurementUnit: 'KG', baseQuantity: 1, baseMeasurementUnit: 'KG' };
      const ppu = await refused(
        'POST',
        '/stores/v1/products',
        { product: { ...product, pricePerUnitData: { ...unit, totalQuantity: 0 } } },
        true,
      );
      expect(violations(ppu.body)).toEqual([
        {
          field: 'product.pricePerUnitData.totalQuantity',
          description: 'must be at least 0.01',
          violatedRule: 'MIN',
          data: { min: 0.01 },
        },
      ]);
      const gte = await refused('POST', '/stores-reader/v1/products/any-id/variants/query', {
        paging: { limit: -1 },
      });
      expect(violations(gte.body)).toEqual([
        { field: 'paging.limit', description: 'must be at least 0', violatedRule: 'MIN', data: { min: 0 } },
      ]);
    });

    it('reads the wire spellings of non-finite floats (wire §2) and refuses them as such', async () => {
      const finite = (field: string) => ({
        field,
        description: 'must be a finite number',
        violatedRule: 'OTHER',
        ruleName: 'CUSTOM',
        data: {},
      });
      const price = await refused(
        'POST',
        '/stores/v1/products',
        { product: { ...product, priceData: { price: 'Infinity' } } },
        true,
      );
      expect(violations(price.body)).toEqual([finite('product.priceData.price')]);
      const geo = await refused('PATCH', '/ecom/v1/carts/current', {
        cartInfo: {
          contactInfo: { address: { country: 'US', geocode: { latitude: 'NaN', longitude: '-Infinity' } } },
        },
      });
      expect(violations(geo.body)).toEqual([
        finite('cartInfo.contactInfo.address.geocode.latitude'),
        finite('cartInfo.contactInfo.address.geocode.longitude'),
      ]);
      // Any other string is still the wrong type.
      const text = await refused(
        'POST',
        '/stores/v1/products',
        { product: { ...product, priceData: { price: 'ten' } } },
        true,
      );
      expect(violations(text.body)).toEqual([
        {
          field: 'product.priceData.price',
          description: 'must be a number',
          violatedRule: 'FORMAT',
          data: { type: 'number' },
        },
      ]);
    });

    it('says "an integer" for a number that is not one', async () => {
      const { body } = await refused('POST', '/stores-reader/v1/products/any-id/variants/query', {
        paging: { limit: 1.5 },
      });
      expect(violations(body)).toEqual([
        {
          field: 'paging.limit',
          description: 'must be an integer',
          violatedRule: 'FORMAT',
          data: { type: 'int' },
        },
      ]);
    });

    it('puts ruleName on the violation itself for OTHER (wire §3.1), not in data', async () => {
      const { body } = await refused('POST', '/_api/iam/authentication/v2/register', {
        loginId: { email: 'big@example.com' },
        password: 'long-enough-1',
        // (a field the wire does not name: the wire's own have lengths of their own)
        profile: { about: 'x'.repeat(40_000) },
      });
      expect(violations(body)).toEqual([
        {
          field: 'profile',
          description: 'must be at most 32768 characters of JSON',
          violatedRule: 'OTHER',
          ruleName: 'CUSTOM',
          data: {},
        },
      ]);
    });

    it.each([
      { paging: { limit: -1 }, field: 'query.paging.limit', violatedRule: 'MIN', data: { min: 0 } },
      { paging: { limit: 101 }, field: 'query.paging.limit', violatedRule: 'MAX', data: { max: 100 } },
      { paging: { offset: -1 }, field: 'query.paging.offset', violatedRule: 'MIN', data: { min: 0 } },
    ])(
      'reports query paging $paging as $violatedRule with its bound',
      async ({ paging, field, violatedRule, data }) => {
        for (const path of ['/stores-reader/v1/products/query-platformized', '/v2/collections/query']) {
          const { body } = await refused('POST', path, { query: { paging } });
          expect(violations(body)).toEqual([{ field, description: expect.any(String), violatedRule, data }]);
        }
      },
    );
  });

  describe('queries', () => {
    it('accepts plain dotted paging parameters on both query endpoints (wire §8.3)', async () => {
      for (const [path, key] of [
        ['/v2/collections/query', 'collections'],
        ['/stores-reader/v1/products/query-platformized', 'products'],
      ] as const) {
        const all = await call('GET', path);
        const { res, body } = await call('GET', `${path}?query.paging.limit=1&query.paging.offset=1`);
        expect(res.status).toBe(200);
        expect(body[key].map((x: { id: string }) => x.id)).toEqual([all.body[key][1].id]);
        expect(body.metadata).toEqual({ count: 1, offset: 1, total: all.body.metadata.total });
      }
    });

    it.each<{ name: string; pair: [dotted: string, filter: object][] }>([
      // Every value of a dotted parameter is text, and a one-item array is a single key (wire §1.4).
      {
        name: 'a one-value $in',
        pair: [
          ['query.filter.slug.$in=linen-shirt', { slug: { $in: ['linen-shirt'] } }],
          ['query.filter.slug.$in=canvas-tote', { slug: { $in: ['canvas-tote'] } }],
        ],
      },
      {
        name: 'a one-value $hasSome',
        pair: [
          [
            'query.filter.collectionIds.$hasSome=col-kitchen',
            { collectionIds: { $hasSome: ['col-kitchen'] } },
          ],
          ['query.filter.collectionIds.$hasSome=col-linen', { collectionIds: { $hasSome: ['col-linen'] } }],
        ],
      },
      {
        name: 'a boolean',
        pair: [
          ['query.filter.visible=true', { visible: true }],
          ['query.filter.visible=false', { visible: false }],
        ],
      },
      {
        name: 'a boolean operand',
        pair: [
          ['query.filter.visible.$ne=false', { visible: { $ne: false } }],
          ['query.filter.visible.$ne=true', { visible: { $ne: true } }],
        ],
      },
      {
        name: '$exists',
        pair: [
          ['query.filter.sku.$exists=true', { sku: { $exists: true } }],
          ['query.filter.sku.$exists=false', { sku: { $exists: false } }],
        ],
      },
    ])('reads $name in dotted filter parameters as the same filter in `.r`', async ({ pair }) => {
      // Refused before (400): a boolean had to be a JSON boolean, a list an array.
      const path = '/stores-reader/v1/products/query-platformized';
      const found: string[][] = [];
      for (const [dotted, filter] of pair) {
        const plain = await call('GET', `${path}?${dotted.replace(/\$/g, '%24')}`);
        const encoded = await call('GET', `${path}?.r=${b64({ query: { filter } })}`);
        expect(plain.res.status, JSON.stringify(plain.body)).toBe(200);
        expect(encoded.res.status).toBe(200);
        const ids = plain.body.products.map((p: { id: string }) => p.id);
        expect(ids).toEqual(encoded.body.products.map((p: { id: string }) => p.id));
        found.push(ids);
      }
      // The two values of the pair find different products: the filter was applied, not dropped.
      expect(found[0]).not.toEqual(found[1]);
    });

    it('still refuses text other than true or false for a boolean, and a list of other values', async () => {
      const path = '/stores-reader/v1/products/query-platformized';
      for (const [qs, field] of [
        ['query.filter.visible=yes', 'query.filter.visible'],
        ['query.filter.sku.%24exists=1', 'query.filter.sku.$exists'],
        ['query.filter.price.%24in=cheap', 'query.filter.price.$in'],
      ])
        expect(violations((await refused('GET', `${path}?${qs}`)).body).map((v) => v.field)).toEqual([field]);
    });

    it('reads `.r` with or without base64 padding (wire §1.4: a server base64url-decodes it)', async () => {
      const path = '/v2/collections/query';
      const message = JSON.stringify({ query: { paging: { limit: 1, offset: 1 } } });
      const plain = Buffer.from(message).toString('base64url');
      const padded = Buffer.from(message).toString('base64').replace(/\+/g, '-').replace(/\//g, '_');
      expect(padded).toMatch(/=$/);
      const a = await call('GET', `${path}?.r=${plain}`);
      const b = await call('GET', `${path}?.r=${encodeURIComponent(padded)}`);
      expect(a.res.status).toBe(200);
      expect(b.res.status).toBe(200);
      expect(b.body).toEqual(a.body);
      expect(a.body.metadata).toMatchObject({ count: 1, offset: 1 });
      // Not base64url at all (`+`, `/`, padding in the middle) is still refused as `.r`.
      for (const bad of ['a+b', 'a/b', 'ab=c'])
        expect(
          violations((await refused('GET', `${path}?.r=${encodeURIComponent(bad)}`)).body)[0]!.field,
        ).toBe('.r');
    });

    it('accepts `fields` on both query endpoints and returns whole entities', async () => {
      for (const [path, key] of [
        ['/v2/collections/query', 'collections'],
        ['/stores-reader/v1/products/query-platformized', 'products'],
      ] as const) {
        const query = { paging: { limit: 1 }, fields: ['name'] };
        const whole = (await call('POST', path, { query: { paging: { limit: 1 } } })).body[key][0];
        for (const { method, url, body } of [
          { method: 'POST', url: path, body: { query } },
          { method: 'GET', url: `${path}?.r=${b64({ query })}`, body: undefined },
          { method: 'GET', url: `${path}?query.paging.limit=1&query.fields=name`, body: undefined },
        ]) {
          const { res, body: out } = await call(method, url, body);
          expect(res.status, `${method} ${url}`).toBe(200);
          expect(out[key]).toEqual([whole]);
        }
      }
    });

    it('refuses `fields` that are not strings', async () => {
      const { body } = await refused('POST', '/v2/collections/query', { query: { fields: [1] } });
      expect(violations(body).map((v) => [v.field, v.violatedRule])).toEqual([['query.fields', 'FORMAT']]);
    });
  });

  // proto3's JSON mapping: `null` on a field is the field not set. The platform SDK's typings allow
  // `null` on most optional fields and send it.
  describe('null fields', () => {
    it('reads a null on a typed field as not set', async () => {
      const products = (await call('POST', '/stores-reader/v1/products/query-platformized', {})).body
        .products as { id: string; productOptions?: unknown[] }[];
      const plain = products.find((p) => !p.productOptions?.length)!;
      const lineItems = [
        {
          catalogReference: { appId: '215238eb-22a5-4c36-9e7b-e7c08025e04e', catalogItemId: plain.id },
          quantity: 1,
        },
      ];
      const added = await call('POST', '/ecom/v1/carts/current/add-to-cart', {
        lineItems,
        customLineItems: null,
        businessLocationId: null,
      });
      expect(added.res.status).toBe(200);
      const patched = await call('PATCH', '/ecom/v1/carts/current', {
        couponCode: null,
        cartInfo: {
          buyerNote: null,
          contactInfo: { address: { country: 'US', city: null, streetAddress: null } },
        },
      });
      expect(patched.res.status).toBe(200);
      expect(patched.body.cart.buyerNote).toBeUndefined();
      expect(patched.body.cart.appliedDiscounts ?? []).toEqual([]);
      expect(patched.body.cart.contactInfo.address).toEqual({ country: 'US' });
    });

    it('refuses a null on a required field as missing, and writes nothing', async () => {
      const { body } = await refused(
        'POST',
        '/stores/v1/products',
        { product: { name: null, productType: 'physical', priceData: { price: 5 } } },
        true,
      );
      expect(violations(body).map((v) => [v.field, v.violatedRule])).toEqual([
        ['product.name', 'REQUIRED_FIELD'],
      ]);
    });

    it('keeps a null in a list, which is no unset field, as a violation', async () => {
      const { body } = await refused('POST', '/ecom/v1/carts/current/remove-line-items', {
        lineItemIds: [null],
      });
      expect(violations(body).map((v) => v.field)).toEqual(['lineItemIds[0]']);
    });

    it('keeps a null in a filter, where it is a value: products without a SKU', async () => {
      const query = async (filter: unknown) =>
        (await call('POST', '/stores-reader/v1/products/query-platformized', { query: { filter } })).body
          .products as { sku?: string }[];
      const all = await query({});
      // Dropped, the null would leave an empty filter, which matches every product.
      expect(all.length).toBeGreaterThan(0);
      expect(await query({ sku: null })).toEqual(all.filter((p) => p.sku === undefined));
    });
  });
});
