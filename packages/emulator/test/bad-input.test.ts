/**
 * Bad input of every kind gets the platform's envelope with a 4xx status, a request id, and
 * leaves storage exactly as it was.
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator, testBackends } from '../src/testing.ts';
import { visitorToken } from './http.ts';

interface Row {
  name: string;
  method: string;
  path: string;
  body?: string;
  headers?: Record<string, string>;
  auth?: 'visitor' | 'none';
  status: number;
  code?: string;
  field?: string;
}

const b64 = (s: string) => Buffer.from(s).toString('base64url');

const ROWS: Row[] = [
  {
    // Read as plain JSON before: a client that compressed its body got "not valid JSON".
    name: 'a body with a content coding (gzip)',
    method: 'POST',
    path: '/v2/collections/query',
    body: '{}',
    headers: { 'content-encoding': 'gzip' },
    status: 415,
    code: 'UNSUPPORTED_MEDIA_TYPE',
  },
  {
    name: 'malformed JSON',
    method: 'POST',
    path: '/v2/collections/query',
    body: '{"query": ',
    status: 400,
    code: 'MALFORMED_REQUEST',
  },
  {
    name: 'JSON that is not an object',
    method: 'POST',
    path: '/v2/collections/query',
    body: '[1,2]',
    status: 400,
    code: 'MALFORMED_REQUEST',
  },
  {
    name: 'wrong type',
    method: 'POST',
    path: '/v2/collections/query',
    body: '{"query":{"paging":{"limit":"ten"}}}',
    status: 400,
    field: 'query.paging.limit',
  },
  {
    name: 'unknown top-level field',
    method: 'POST',
    path: '/v2/collections/query',
    body: '{"query":{},"extra":1}',
    status: 400,
    field: 'extra',
  },
  {
    name: 'unknown nested field',
    method: 'POST',
    path: '/v2/collections/query',
    body: '{"query":{"paging":{"page":2}}}',
    status: 400,
    field: 'query.paging.page',
  },
  {
    name: 'unknown filter field',
    method: 'POST',
    path: '/v2/collections/query',
    body: '{"query":{"filter":{"colour":"red"}}}',
    status: 400,
    field: 'query.filter.colour',
  },
  {
    name: 'unknown filter operator',
    method: 'POST',
    path: '/v2/collections/query',
    body: '{"query":{"filter":{"name":{"$regex":"."}}}}',
    status: 400,
    field: 'query.filter.name.$regex',
  },
  {
    name: 'bad sort order',
    method: 'POST',
    path: '/v2/collections/query',
    body: '{"query":{"sort":[{"fieldName":"name","order":"UP"}]}}',
    status: 400,
    field: 'query.sort[0].order',
  },
  {
    name: 'negative offset',
    method: 'POST',
    path: '/v2/collections/query',
    body: '{"query":{"paging":{"offset":-1}}}',
    status: 400,
    field: 'query.paging.offset',
  },
  {
    name: 'huge body',
    method: 'POST',
    path: '/v2/collections/query',
    body: `{"query":{"filter":{"name":"${'x'.repeat(1_100_000)}"}}}`,
    status: 413,
    code: 'PAYLOAD_TOO_LARGE',
  },
  {
    name: 'JSON nested far too deep',
    method: 'POST',
    path: '/v2/collections/query',
    body: `{"query":{"filter":${'{"$not":'.repeat(5000)}{}${'}'.repeat(5000)}}}`,
    status: 400,
    code: 'MALFORMED_REQUEST',
  },
  {
    name: '.r nested far too deep',
    method: 'GET',
    path: `/v2/collections/query?.r=${b64(`{"query":{"filter":${'{"$not":'.repeat(600)}{}${'}'.repeat(600)}}}`)}`,
    status: 400,
    field: '.r',
  },
  { name: '.r not base64url', method: 'GET', path: '/v2/collections/query?.r=%%%', status: 400, field: '.r' },
  {
    name: '.r not JSON',
    method: 'GET',
    path: `/v2/collections/query?.r=${b64('not json')}`,
    status: 400,
    field: '.r',
  },
  {
    name: '.r not an object',
    method: 'GET',
    path: `/v2/collections/query?.r=${b64('[1]')}`,
    status: 400,
    field: '.r',
  },
  {
    name: 'conflicting dotted parameters',
    method: 'GET',
    path: '/v2/collections/query?query=1&query.paging.limit=2',
    status: 400,
    field: 'query.paging.limit',
  },
  {
    name: 'prototype key in parameters',
    method: 'GET',
    path: '/v2/collections/query?__proto__.x=1',
    status: 400,
    field: '__proto__.x',
  },
  { name: 'unknown route', method: 'GET', path: '/v9/nothing', status: 404, code: 'NOT_FOUND' },
  {
    name: 'wrong method',
    method: 'DELETE',
    path: '/v2/collections/query',
    status: 405,
    code: 'METHOD_NOT_ALLOWED',
  },
  {
    name: 'no credentials',
    method: 'GET',
    path: '/v2/collections/col-sale',
    auth: 'none',
    status: 401,
    code: 'UNAUTHENTICATED',
  },
  {
    name: 'invalid token',
    method: 'GET',
    path: '/v2/collections/col-sale',
    auth: 'none',
    headers: { authorization: 'OauthNG.forged' },
    status: 401,
    code: 'UNAUTHENTICATED',
  },
  {
    name: 'token: unknown grant',
    method: 'POST',
    path: '/oauth2/token',
    body: '{"grantType":"password"}',
    auth: 'none',
    status: 400,
    code: 'unsupported_grant_type',
  },
  {
    name: 'token: unknown client',
    method: 'POST',
    path: '/oauth2/token',
    body: '{"grantType":"anonymous","clientId":"nope"}',
    auth: 'none',
    status: 400,
    code: 'invalid_client',
  },
  {
    name: 'token: refresh without token',
    method: 'POST',
    path: '/oauth2/token',
    body: '{"grantType":"refresh_token"}',
    auth: 'none',
    status: 400,
    code: 'invalid_grant',
  },
  {
    name: 'token: forged refresh token',
    method: 'POST',
    path: '/oauth2/token',
    body: '{"grantType":"refresh_token","refreshToken":"x"}',
    auth: 'none',
    status: 400,
    code: 'invalid_grant',
  },
  {
    name: 'token: malformed JSON',
    method: 'POST',
    path: '/oauth2/token',
    body: 'grant_type=anonymous',
    auth: 'none',
    status: 400,
    code: 'MALFORMED_REQUEST',
  },
  // Fields named after what every JavaScript object inherits were found as fields (their SQL
  // `undefined`): a 500 on both storages.
  {
    name: 'a filter on an inherited name (constructor)',
    method: 'POST',
    path: '/stores-reader/v1/products/query-platformized',
    body: '{"query":{"filter":{"constructor":null}}}',
    status: 400,
    field: 'query.filter.constructor',
  },
  {
    name: 'a filter on an inherited name with an operator (hasOwnProperty $exists)',
    method: 'POST',
    path: '/stores-reader/v1/variants/query',
    body: '{"query":{"filter":{"hasOwnProperty":{"$exists":true}}}}',
    status: 400,
    field: 'query.filter.hasOwnProperty',
  },
  {
    name: 'a sort on an inherited name, in .r',
    method: 'GET',
    path: `/v2/collections/query?.r=${b64('{"query":{"sort":[{"fieldName":"toString"}]}}')}`,
    status: 400,
    field: 'query.sort[0].fieldName',
  },
  {
    name: 'a sort on __proto__',
    method: 'POST',
    path: '/stores-reader/v1/products/query-platformized',
    body: '{"query":{"sort":[{"fieldName":"__proto__"}]}}',
    status: 400,
    field: 'query.sort[0].fieldName',
  },
  // Past 65 535 values PostgreSQL's count of parameters wrapped: a statement it refused, answered
  // as the storage being down (503, "send it again"). Any filter past 1000 values is refused.
  {
    name: 'a filter of 65 540 conditions',
    method: 'POST',
    path: '/v2/collections/query',
    body: JSON.stringify({ query: { filter: { $or: Array.from({ length: 65_540 }, () => ({ id: 'x' })) } } }),
    status: 400,
    field: 'query.filter',
  },
  {
    name: 'a filter of 1001 values',
    method: 'POST',
    path: '/stores-reader/v1/products/query-platformized',
    body: JSON.stringify({
      query: { filter: { $or: Array.from({ length: 1001 }, (_, i) => ({ name: `n${i}` })) } },
    }),
    status: 400,
    field: 'query.filter',
  },
  // The raw-HTTP envelope's inner body skipped the checks of every message: U+0000 reached the
  // database (a 500).
  {
    name: 'token: U+0000 inside the raw-HTTP envelope',
    method: 'POST',
    path: '/oauth2/token',
    body: JSON.stringify({
      body: Buffer.from('{"grantType":"anonymous","clientId":"a\\u0000b"}').toString('base64'),
    }),
    auth: 'none',
    status: 400,
    field: 'body.clientId',
  },
  {
    name: 'token: a raw-HTTP envelope nesting too deep',
    method: 'POST',
    path: '/oauth2/token',
    body: JSON.stringify({
      body: Buffer.from(`{"grantType":${'['.repeat(70)}${']'.repeat(70)}}`).toString('base64'),
    }),
    auth: 'none',
    status: 400,
    field: 'body',
  },
  // A hosted page's form that is no form: parsing it threw (a 500).
  {
    name: 'a hosted page: multipart without its boundary',
    method: 'POST',
    path: '/reset-password',
    body: 'x',
    headers: { 'content-type': 'multipart/form-data' },
    auth: 'none',
    status: 400,
    code: 'MALFORMED_REQUEST',
  },
  {
    name: 'a hosted page: multipart not split by its boundary',
    method: 'POST',
    path: '/oauth2/authorize/submit',
    body: 'garbage',
    headers: { 'content-type': 'multipart/form-data; boundary=XYZ' },
    auth: 'none',
    status: 400,
    code: 'MALFORMED_REQUEST',
  },
  {
    name: 'media: bad name',
    method: 'GET',
    path: '/media/..%2Fsecret',
    auth: 'none',
    status: 404,
    code: 'MEDIA_NOT_FOUND',
  },
];

async function snapshot(emu: TestEmulator) {
  const tables = await emu.emu.db.query<{ table_name: string }>(
    "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY 1",
  );
  const out: Record<string, number> = {};
  for (const { table_name } of tables) {
    const [row] = await emu.emu.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM "${table_name}"`);
    out[table_name] = Number(row!.n);
  }
  return out;
}

/**
 * Writes `request` on a socket of its own and reads until the emulator closes it: with `end` the
 * socket is half-closed after the request, with `wait` it is left open (a client still sending).
 */
function exchangeRaw(url: string, request: string, then: 'end' | 'wait') {
  return new Promise<string>((resolve, reject) => {
    const socket = connect(Number(new URL(url).port), '127.0.0.1', () =>
      then === 'end' ? socket.end(request) : socket.write(request),
    );
    let got = '';
    socket.on('data', (d) => {
      got += d;
    });
    socket.on('end', () => resolve(got));
    socket.on('error', reject);
  });
}

/** `answer` is a refusal with `status`, a request id and the envelope naming `code`. */
function expectRawRefusal(answer: string, status: number, code: string) {
  const [head = '', body = ''] = answer.split('\r\n\r\n');
  expect(head).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `));
  expect(head).toMatch(/\r\ncontent-type: application\/json/i);
  expect(head).toMatch(/\r\nx-wix-request-id: [0-9a-f-]{36}\r\n/i);
  expect(head).toMatch(/\r\nconnection: close(\r\n|$)/i);
  const envelope = JSON.parse(body);
  expect(envelope).toEqual({
    message: expect.any(String),
    details: { applicationError: { code, description: envelope.message, data: {} } },
  });
}

describe.each(testBackends())('bad input (%s)', (backend) => {
  let emu: TestEmulator;
  let visitor: string;
  beforeAll(async () => {
    emu = await startTestEmulator(backend);
    visitor = await visitorToken(emu);
  });
  afterAll(() => emu?.stop());

  it.each(ROWS)('$name → $status in the platform envelope, nothing stored', async (row) => {
    const before = await snapshot(emu);
    const headers: Record<string, string> = {
      ...(row.auth === 'none' ? {} : { authorization: visitor }),
      ...row.headers,
    };
    if (row.body !== undefined) headers['content-type'] ??= 'application/json';
    const res = await fetch(emu.url + row.path, { method: row.method, headers, body: row.body });
    expect(res.status).toBe(row.status);
    expect(res.headers.get('x-wix-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.headers.get('content-type')).toMatch(/application\/json/);
    const body = await res.json();
    expect(typeof body.message).toBe('string');
    expect(body.message).not.toMatch(/\n\s+at /); // no stack traces
    const kinds = Object.keys(body.details ?? {});
    expect(kinds).toHaveLength(1);
    if (row.code) expect(body.details.applicationError.code).toBe(row.code);
    if (row.field) {
      const violations = body.details.validationError.fieldViolations;
      expect(violations.map((v: { field: string }) => v.field)).toContain(row.field);
      for (const v of violations) {
        expect(v).toEqual({
          field: expect.any(String),
          description: expect.any(String),
          violatedRule: expect.any(String),
          data: expect.any(Object),
        });
      }
    }
    expect(await snapshot(emu)).toEqual(before);
  });

  it.each([
    ['U+0000', 'a\u0000b'],
    ['an unpaired surrogate', 'a\ud800b'],
  ])('refuses %s anywhere in a message with a 400 naming the field, on every kind of route', async (_, N) => {
    // Each of these answered 500 on both storages (PostgreSQL text holds no NUL, its JSON no unpaired
    // surrogate escape; text columns stored U+FFFD instead), and left nothing.
    const cases: [
      who: 'visitor' | 'key',
      method: string,
      path: string,
      body: object | undefined,
      field: string,
    ][] = [
      ['visitor', 'PATCH', '/ecom/v1/carts/current', { couponCode: N }, 'couponCode'],
      ['visitor', 'PATCH', '/ecom/v1/carts/current', { cartInfo: { buyerNote: N } }, 'cartInfo.buyerNote'],
      [
        'visitor',
        'POST',
        '/_api/iam/authentication/v2/login',
        { loginId: { email: 'x@example.com' }, password: N },
        // Login answers application errors only (wire §8.6): the wrong password's.
        'application error -19976',
      ],
      [
        'visitor',
        'POST',
        '/_api/iam/authentication/v2/register',
        { loginId: { email: 'nul@example.com' }, password: 'a long passphrase', profile: { firstName: N } },
        'profile.firstName',
      ],
      ['visitor', 'POST', '/_api/iam/recovery/v1/send-email', { email: `${N}@example.com` }, 'email'],
      [
        'visitor',
        'POST',
        '/_api/redirects-api/v1/redirect-session',
        { ecomCheckout: { checkoutId: N } },
        'ecomCheckout.checkoutId',
      ],
      ['visitor', 'POST', '/oauth2/token', { clientId: N, grantType: 'anonymous' }, 'clientId'],
      [
        'key',
        'POST',
        '/stores/v1/products',
        { product: { name: N, productType: 'physical' } },
        'product.name',
      ],
      [
        'key',
        'POST',
        '/stores/v1/collections',
        { collection: { name: 'ok', description: N } },
        'collection.description',
      ],
      ['key', 'POST', '/stores/v1/bulk/products/update', { ids: ['x', N], set: { price: 1 } }, 'ids[1]'],
      [
        'key',
        'DELETE',
        `/stores/v1/products/${encodeURIComponent(N.replace('\ud800', '\u0000'))}`,
        undefined,
        'id',
      ],
      ['key', 'POST', '/_api/emulator/v1/webhooks/subscriptions', { url: `https://example.com/${N}` }, 'url'],
      [
        'visitor',
        'GET',
        `/stores-reader/v1/products/query-platformized?.r=${b64(JSON.stringify({ query: { filter: { [N]: 1 } } }))}`,
        undefined,
        `query.filter.${N}`,
      ],
    ];
    const before = await snapshot(emu);
    for (const [who, method, path, body, field] of cases) {
      const res = await fetch(emu.url + path, {
        method,
        headers: {
          authorization: who === 'key' ? emu.demo.apiKey : visitor,
          'content-type': 'application/json',
        },
        body: body && JSON.stringify(body),
      });
      const out = await res.json();
      expect({
        path,
        status: res.status,
        fields: out.details?.validationError?.fieldViolations?.map((v: any) => v.field) ?? [
          `application error ${out.details?.applicationError?.code}`,
        ],
      }).toEqual({
        path,
        status: 400,
        fields: [field],
      });
    }
    expect(await snapshot(emu)).toEqual(before);
  });

  it.each([
    [
      'a request line and headers over 16 KiB',
      `GET /ecom/v1/carts/current?${'a=x&'.repeat(5000)} HTTP/1.1\r\nHost: x\r\n\r\n`,
      431,
      'REQUEST_HEADER_FIELDS_TOO_LARGE',
    ],
    [
      'a header over 16 KiB',
      `GET /ecom/v1/carts/current HTTP/1.1\r\nHost: x\r\nX-Big: ${'b'.repeat(20_000)}\r\n\r\n`,
      431,
      'REQUEST_HEADER_FIELDS_TOO_LARGE',
    ],
    ['a malformed request line', 'GET /v2/collections/query HTTP/9\r\n\r\n', 400, 'MALFORMED_REQUEST'],
    [
      'a header without a colon',
      'GET /v2/collections/query HTTP/1.1\r\nHost: x\r\nno colon here\r\n\r\n',
      400,
      'MALFORMED_REQUEST',
    ],
    [
      'a body of two lengths',
      'POST /v2/collections/query HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
      400,
      'MALFORMED_REQUEST',
    ],
    // Node hands a CONNECT (a proxy tunnel) to a listener of its own, not to the app.
    [
      'a CONNECT',
      'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n',
      405,
      'METHOD_NOT_ALLOWED',
    ],
  ])('answers %s, which Node keeps from the app, in the envelope too', async (_, request, status, code) => {
    // Node answered these itself, a status line and no body, or (a CONNECT) not at all.
    const before = await snapshot(emu);
    expectRawRefusal(await exchangeRaw(emu.url, request, 'end'), status, code);
    expect(await snapshot(emu)).toEqual(before);
  });

  it('answers a request whose headers do not arrive in time 408 in the envelope, and closes it', async () => {
    // Node's own answer was a bare status line; the limit is Node's 60 s unless set shorter.
    const slow = await startTestEmulator(backend, { headersTimeoutMs: 200 });
    try {
      const before = await snapshot(slow);
      // The request line and one header, then nothing: the connection stays open, the headers unfinished.
      const answer = await exchangeRaw(
        slow.url,
        'GET /ecom/v1/carts/current HTTP/1.1\r\nHost: x\r\n',
        'wait',
      );
      expectRawRefusal(answer, 408, 'REQUEST_TIMEOUT');
      expect(await snapshot(slow)).toEqual(before);
    } finally {
      await slow.stop();
    }
  });

  it.each([
    ['the hosted login form', 'POST', '/oauth2/authorize/submit', 'redirect_session_id=a%00b&action=login'],
    ['the hosted login form, in a field name', 'POST', '/oauth2/authorize/submit', 'a%00b=1&action=login'],
    ["the sign-in provider's page, in its path", 'GET', '/idp/a%00b/authorize', undefined],
    ["the sign-in provider's form, in its path", 'POST', '/idp/a%00b/authorize', 'x=1'],
    ["the sign-in provider's page, in its query", 'GET', '/idp/x/authorize?state=a%00b', undefined],
    ['the app installer', 'GET', '/installer/install?code=a%00b', undefined],
    ["the app installer's form", 'POST', '/installer/install', 'code=a%00b'],
    ['the reset-password link', 'GET', '/reset-password?token=a%00b', undefined],
    ['the reset-password form', 'POST', '/reset-password', 'token=a%00b&password=x'],
  ])(
    'refuses U+0000 in %s (a page outside the API routes) with a 400, nothing stored',
    async (_, method, path, form) => {
      // The first four answered 500: the hosted pages' routes read their input themselves, past the
      // check every API route makes.
      const before = await snapshot(emu);
      const res = await fetch(emu.url + path, {
        method,
        redirect: 'manual',
        headers: form ? { 'content-type': 'application/x-www-form-urlencoded', origin: emu.url } : {},
        body: form,
      });
      expect(res.status).toBe(400);
      expect(await res.text()).toMatch(/NUL character/);
      expect(await snapshot(emu)).toEqual(before);
    },
  );

  it('answers 405 with an Allow header naming the methods served', async () => {
    const res = await fetch(`${emu.url}/v2/collections/query`, {
      method: 'PUT',
      headers: { authorization: visitor },
    });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET, POST');
  });

  it('accepts percent-encoded and duplicated path parameters', async () => {
    const res = await fetch(`${emu.url}/v2/collections/slug/summer%2Dlinen?slug=ignored`, {
      headers: { authorization: visitor },
    });
    expect(res.status).toBe(200);
    expect((await res.json()).collection.slug).toBe('summer-linen');
  });

  it('accepts the Bearer form and the custom-host path family too', async () => {
    const res = await fetch(`${emu.url}/_api/catalog-reader-server/v1/collections/slug/sale`, {
      headers: { authorization: `Bearer ${visitor}` },
    });
    expect(res.status).toBe(200);
  });
});
