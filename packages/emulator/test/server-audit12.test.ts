/**
 * Findings of the twelfth audit of the emulator's server (each test failed before its fix):
 * - a page's client could not read `Retry-After` on a 429 or 503 from another origin: it is no
 *   CORS-safelisted header and was not exposed, so a browser SDK retried on its own backoff;
 * - a GraphQL field whose storage was down, or whose transaction PostgreSQL ended for a concurrent
 *   one's sake (nothing written), was an `INTERNAL_ERROR`, where REST answers the same failure 503
 *   `UNAVAILABLE` with Retry-After: a GraphQL client could not tell it may send the request again;
 * - a preflight from an allowed origin asking for a header of the client's own (the SDK's
 *   `createClient({ headers })`, a tracing `traceparent`) was answered without it, so the browser
 *   refused every call of that client;
 * - a method other than GET on `/health` or `/media/…` was a 404 "No route", not the 405 with
 *   `Allow: GET` every other route answers;
 * - a message member named `__proto__` (a filter on it, in a body or in `.r`) was lost in the
 *   schema's copy: the filter was dropped and every product answered (200), where any other
 *   unknown field is a 400.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { type Db, openDb, type Sql } from '../src/db/index.ts';
import { startTestEmulator, type TestEmulator, testBackends } from '../src/testing.ts';

const ORIGIN = 'http://shop.example:5173';

describe.each(testBackends())('server audit 12 (%s)', (backend) => {
  const emus: TestEmulator[] = [];
  afterAll(async () => {
    for (const e of emus) await e.stop();
  });

  it.each([
    ['a JSON body', 'POST'],
    ['`.r`', 'GET'],
  ])(
    'refuses a member named __proto__ in %s, where a filter on it answered every product',
    async (_, method) => {
      const emu = await startTestEmulator(backend, { config: { webhookPollMs: 600_000 } });
      emus.push(emu);
      const path = '/stores-reader/v1/products/query-platformized';
      // Written out: `JSON.stringify` of an object literal would not carry the member.
      const msg = '{"query":{"filter":{"__proto__":{"$eq":"x"}}}}';
      const res =
        method === 'POST'
          ? await fetch(emu.url + path, {
              method,
              headers: { authorization: emu.demo.apiKey, 'content-type': 'application/json' },
              body: msg,
            })
          : await fetch(`${emu.url}${path}?.r=${Buffer.from(msg).toString('base64url')}`, {
              headers: { authorization: emu.demo.apiKey },
            });
      expect(res.status).toBe(400);
      expect((await res.json()).details.validationError.fieldViolations).toEqual([
        expect.objectContaining({
          field: 'query.filter.__proto__',
          description: 'is not a valid field name',
        }),
      ]);
    },
  );

  it('allows in a preflight from an allowed origin the headers it asks for, with the platform ones', async () => {
    const emu = await startTestEmulator(backend, { seed: 'none', allowedOrigins: [ORIGIN] });
    emus.push(emu);
    const preflight = (asked: string, origin = ORIGIN) =>
      fetch(`${emu.url}/stores-reader/v1/products/query-platformized`, {
        method: 'OPTIONS',
        headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': asked },
      });
    const allowed = async (res: Response) =>
      (res.headers.get('access-control-allow-headers') ?? '').split(',').map((h) => h.trim().toLowerCase());
    // As a browser asks: lower case, sorted, no spaces.
    const res = await preflight('authorization,content-type,traceparent,x-app-version');
    expect(res.status).toBe(204);
    expect(await allowed(res)).toEqual(
      expect.arrayContaining([
        'authorization',
        'content-type',
        'wix-site-id',
        'x-app-version',
        'traceparent',
      ]),
    );
    // Not a list of header names: the platform's list alone.
    const odd = await allowed(await preflight('x-a, (b)'));
    expect(odd).toContain('authorization');
    expect(odd).not.toContain('x-a');
    expect(odd.join()).not.toContain('(b)');
    // Another origin still gets no CORS header at all.
    const other = await preflight('x-app-version', 'http://evil.example');
    expect([...other.headers.keys()].filter((k) => k.startsWith('access-control-'))).toEqual([]);
  });

  it.each([
    ['POST', '/health'],
    ['DELETE', '/media/p-1.svg'],
  ])('answers %s %s 405 with Allow: GET, as every route does', async (method, path) => {
    const emu = await startTestEmulator(backend, { seed: 'none' });
    emus.push(emu);
    const res = await fetch(emu.url + path, { method });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET');
    expect((await res.json()).details.applicationError.code).toBe('METHOD_NOT_ALLOWED');
  });

  it('exposes Retry-After to an allowed origin, so a page can wait as a 429 asks', async () => {
    const emu = await startTestEmulator(backend, {
      seed: 'none',
      allowedOrigins: [ORIGIN],
      config: { identity: { anonymousTokensPerMinute: 1 } },
    });
    emus.push(emu);
    const grant = () =>
      fetch(`${emu.url}/oauth2/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: ORIGIN },
        body: JSON.stringify({ clientId: emu.demo.clientId, grantType: 'anonymous' }),
      });
    expect((await grant()).status).toBe(200);
    const refused = await grant();
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(refused.headers.get('access-control-allow-origin')).toBe(ORIGIN);
    const exposed = (refused.headers.get('access-control-expose-headers') ?? '')
      .split(',')
      .map((h) => h.trim().toLowerCase());
    expect(exposed).toContain('retry-after');
    expect(exposed).toContain('x-wix-request-id');
  });
});

/**
 * Storage of `backend` whose statements matching `pattern` fail with `error` while `failing.on`:
 * a connection lost, or a transaction PostgreSQL rolled back, at that statement. `drop` removes
 * the PostgreSQL schema afterwards.
 */
async function faultyDb(backend: string, pattern: RegExp, error: () => Error) {
  const url = process.env.SHOPKIT_TEST_DATABASE_URL;
  const schema = backend === 'postgres' ? `t_${randomBytes(6).toString('hex')}` : undefined;
  const real = await openDb(schema && url ? url : 'memory', { schema });
  const failing = { on: false };
  const guard =
    (sql: Sql): Sql['query'] =>
    async (text, params) => {
      if (failing.on && pattern.test(text)) throw error();
      return sql.query(text, params);
    };
  const db: Db = {
    kind: real.kind,
    query: guard(real),
    exec: (text) => real.exec(text),
    tx: (fn) => real.tx((sql) => fn({ query: guard(sql), exec: (text) => sql.exec(text) })),
    close: () => real.close(),
  };
  const drop = async () => {
    if (!schema) return;
    const { default: pg } = await import('pg');
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    await c.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await c.end();
  };
  return { db, failing, drop };
}

describe.each(testBackends())('GraphQL when storage fails (%s)', (backend) => {
  it.each([
    [
      'a connection lost',
      () =>
        Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }),
      'Service unavailable',
    ],
    [
      'a serialization failure',
      () => Object.assign(new Error('could not serialize access'), { code: '40001' }),
      'A concurrent request conflicted with this one; nothing was changed, and it can be sent again',
    ],
  ])('%s is UNAVAILABLE (status 503) as on REST, not INTERNAL_ERROR', async (_, error, message) => {
    const faulty = await faultyDb(backend, /FROM products/, error);
    const logged: string[] = [];
    const emu = await startTestEmulator(backend, {
      db: faulty.db,
      config: { webhookPollMs: 600_000 },
      log: (line) => logged.push(line),
    });
    try {
      const post = (path: string, body: unknown) =>
        fetch(emu.url + path, {
          method: 'POST',
          headers: { authorization: emu.demo.apiKey, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
      faulty.failing.on = true;
      const rest = await post('/stores-reader/v1/products/query-platformized', { query: {} });
      expect(rest.status).toBe(503);
      expect((await rest.json()).details.applicationError.code).toBe('UNAVAILABLE');
      const gql = await post('/graphql/alpha', { query: '{ products { metadata { total } } }' });
      expect(gql.status).toBe(200);
      const { errors } = await gql.json();
      expect(errors).toEqual([
        expect.objectContaining({
          message,
          path: ['products'],
          extensions: { code: 'UNAVAILABLE', status: 503 },
        }),
      ]);
      // Storage back: the same request answers.
      faulty.failing.on = false;
      const again = await (
        await post('/graphql/alpha', { query: '{ products { metadata { total } } }' })
      ).json();
      expect(again.errors).toBeUndefined();
      expect(again.data.products.metadata.total).toBeGreaterThan(0);
    } finally {
      await emu.stop();
      await faulty.drop();
    }
  });
});
