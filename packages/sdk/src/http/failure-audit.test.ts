/**
 * The failure paths a client-hardening audit found wanting, with fetches that script each failure:
 * a forced refresh after a 401 that ignored the call's abort and timeout; a key with a line break
 * whose value fetch's error quoted (retried as a network failure); one-time codes sent again after a
 * lost answer; an app's concurrent 401s costing a grant each; an aborted call sent all the same;
 * retry settings given as `undefined` undoing the defaults; renewals shared across sessions.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { AppStrategy, exchangeAppInstallCode } from '../auth/app.ts';
import { OAuthStrategy } from '../auth/oauth.ts';
import { TokenRole, type Tokens } from '../auth/tokens.ts';
import { createClient } from '../client.ts';
import * as identity from '../modules/identity.ts';
import { request } from './engine.ts';
import { ShopkitError, SystemError } from './errors.ts';

const json = (status: number, body: object) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
const tokens = (access: string, refresh: string, expiresAt = 2e9): Tokens => ({
  accessToken: { value: access, expiresAt },
  refreshToken: { value: refresh, role: TokenRole.VISITOR },
});
/** A fetch that records each request (path, Authorization, grant) and answers with `answer`. */
function scripted(answer: (path: string, auth: string, body: any) => Response | Promise<Response>) {
  const log: { path: string; auth: string; grant?: string }[] = [];
  const fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const path = new URL(String(input)).pathname;
    const auth = new Headers(init?.headers).get('authorization') ?? '';
    const body = init?.body ? JSON.parse(String(init.body)) : undefined;
    log.push({ path, auth, grant: body?.grantType ?? body?.grant_type });
    return answer(path, auth, body);
  }) as typeof globalThis.fetch;
  return { fetch, log };
}
/** A promise that never settles unless `signal` aborts. */
const hang = (signal?: AbortSignal | null) =>
  new Promise<Response>((_, reject) => signal?.addEventListener('abort', () => reject(signal.reason)));

describe('a forced refresh after a 401', () => {
  /** A client whose resource answers 401 and whose token endpoint never answers. */
  function stuck() {
    const calls: AbortSignal[] = [];
    const fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
      if (String(input).endsWith('/oauth2/token')) return hang(init?.signal);
      calls.push(init!.signal!);
      return json(401, { message: 'expired' });
    }) as typeof globalThis.fetch;
    return createClient({
      baseUrl: 'http://shop.test',
      fetch,
      auth: OAuthStrategy({ clientId: 'c', tokens: tokens('AT', 'RT') }),
    });
  }

  it('ends when the caller aborts, as ABORTED, without waiting for the token endpoint', async () => {
    const ctl = new AbortController();
    const call = request(stuck(), 'GET', '/x', { signal: ctl.signal, timeoutMs: 60_000 });
    setTimeout(() => ctl.abort(), 50);
    const err = await call.catch((e) => e);
    expect(err).toBeInstanceOf(SystemError);
    expect(err.code).toBe('ABORTED');
  });

  it('ends when the call’s time runs out, as TIMEOUT', async () => {
    const err = await request(stuck(), 'GET', '/x', { timeoutMs: 150 }).catch((e) => e);
    expect(err).toBeInstanceOf(SystemError);
    expect(err.code).toBe('TIMEOUT');
  });
});

describe('a header no request can carry', () => {
  it.each([
    ['an API key with a line break', { apiKey: 'IST.secret-part-one\nsecret-part-two' }],
    ['a client header with CR LF', { headers: { 'X-Custom': 'a\r\nsecret-part-two' } }],
    ['an API key with a curly quote pasted in', { apiKey: 'IST.secret-part-one\u201csecret-part-two' }],
  ])('%s: one attempt, an error that does not quote it', async (_, init) => {
    let sent = 0;
    const client = createClient({
      baseUrl: 'http://127.0.0.1:9',
      // Node's own fetch, which refuses the header before connecting (and quotes it in its error).
      fetch: (input, i) => {
        sent++;
        return fetch(input, i);
      },
      retry: { baseDelayMs: 1 },
    });
    const errors: unknown[] = [];
    const c = createClient({ ...client._.o, baseUrl: client.baseUrl, onError: (e) => errors.push(e) });
    const err = await request(c, 'GET', '/x', { ...init, retrySafe: true }).catch((e) => e);
    expect(err).toBeInstanceOf(ShopkitError);
    expect(err.code).toBe('INVALID_HEADER');
    expect(sent).toBe(1);
    for (const seen of [inspect(err, { depth: 10 }), JSON.stringify(err), String(err.stack), inspect(errors)])
      expect(seen).not.toContain('secret-part-two');
  });
});

it('a token request with such a header: one attempt, INVALID_HEADER, nothing quoted', async () => {
  let sent = 0;
  const auth = OAuthStrategy({ clientId: 'c' });
  createClient({
    baseUrl: 'http://127.0.0.1:9',
    fetch: (input, i) => {
      sent++;
      return fetch(input, i);
    },
    auth,
    retry: { baseDelayMs: 1 },
  });
  const err = await auth
    .tokenRequest({ grantType: 'authorized_client' }, TokenRole.MEMBER, {
      Authorization: 'TOKEN,IST.secret-part-one\nsecret-part-two',
    })
    .catch((e) => e);
  expect(err).toMatchObject({ message: 'something went wrong', code: 'INVALID_HEADER' });
  expect(sent).toBe(1);
  expect(inspect(err, { depth: 10 })).not.toContain('secret-part-two');
});

describe('one-time codes', () => {
  it('an authorization code is sent once, whatever happens to its answer; a refresh is tried again', async () => {
    const f = scripted(() => {
      throw new TypeError('fetch failed');
    });
    const auth = OAuthStrategy({ clientId: 'c' });
    createClient({ baseUrl: 'http://shop.test', fetch: f.fetch, auth, retry: { baseDelayMs: 1 } });
    await expect(
      auth.tokenRequest(
        { clientId: 'c', grantType: 'authorization_code', code: 'CODE', codeVerifier: 'V' },
        TokenRole.MEMBER,
      ),
    ).rejects.toThrow('something went wrong');
    expect(f.log.map((l) => l.grant)).toEqual(['authorization_code']);
    await expect(
      auth.tokenRequest({ clientId: 'c', grantType: 'refresh_token', refreshToken: 'RT' }, TokenRole.MEMBER),
    ).rejects.toThrow('something went wrong');
    expect(f.log.map((l) => l.grant)).toEqual(['authorization_code', ...Array(3).fill('refresh_token')]);
  });

  it('an app’s installation code is sent once on a 502', async () => {
    const f = scripted(() => json(502, { message: 'bad gateway' }));
    const client = createClient({ baseUrl: 'http://shop.test', fetch: f.fetch, retry: { baseDelayMs: 1 } });
    await expect(exchangeAppInstallCode(client, { appId: 'a', appSecret: 's', code: 'C' })).rejects.toThrow();
    expect(f.log).toHaveLength(1);
  });

  it('the SSO callback, a GET that spends its state, is not sent again after a lost answer', async () => {
    const f = scripted(() => {
      throw new TypeError('fetch failed');
    });
    const client = createClient({
      baseUrl: 'http://shop.test',
      fetch: f.fetch,
      auth: OAuthStrategy({ clientId: 'c', tokens: tokens('AT', 'RT') }),
      modules: { identity },
      retry: { baseDelayMs: 1 },
    });
    const r = await client.identity.ssoCallback({ state: 'ONE-TIME', sessionToken: 'ID' });
    expect(r).toMatchObject({ loginState: 'FAILURE', errorCode: 'network' });
    expect(f.log).toHaveLength(1);
    expect(f.log[0]!.path).toMatch(/\/v1\/callback$/);
  });
});

it('an app’s concurrent 401s cost one grant, not one each', async () => {
  let grants = 0;
  const f = scripted(async (path, auth) => {
    if (path === '/oauth2/token') return json(200, { access_token: `APP-${++grants}`, expires_in: 3600 });
    if (auth === 'APP-1') {
      // Each 401 arrives a little after the one before: the renewal may be over by then.
      await new Promise((r) => setTimeout(r, 5 + 15 * f.log.filter((l) => l.auth === 'APP-1').length));
      return json(401, { message: 'expired' });
    }
    return json(200, { ok: auth });
  });
  const client = createClient({
    baseUrl: 'http://shop.test',
    fetch: f.fetch,
    auth: AppStrategy({ appId: 'a', appSecret: 's', instanceId: 'i' }),
  });
  const answers = await Promise.all(Array.from({ length: 5 }, (_, i) => request(client, 'POST', `/x/${i}`)));
  expect(answers).toEqual(Array(5).fill({ ok: 'APP-2' }));
  expect(grants).toBe(2);
});

it('an aborted call is not sent, whatever the fetch does with the signal', async () => {
  const f = scripted(() => json(200, { ok: true }));
  const client = createClient({ baseUrl: 'http://shop.test', fetch: f.fetch });
  const ctl = new AbortController();
  ctl.abort();
  const err = await request(client, 'GET', '/x', { signal: ctl.signal }).catch((e) => e);
  expect(err.code).toBe('ABORTED');
  expect(f.log).toHaveLength(0);
});

it('a timeout that is no number is the default, not none and not at once', async () => {
  for (const timeoutMs of [null, Number.NaN, '100', true] as unknown as number[]) {
    const client = createClient({
      baseUrl: 'http://shop.test',
      timeoutMs,
      // Answers after 30 ms, unless its signal aborts first (as Node's fetch does).
      fetch: ((_: unknown, init?: RequestInit) =>
        new Promise<Response>((resolve, reject) => {
          const t = setTimeout(() => resolve(json(200, { ok: true })), 30);
          init?.signal?.addEventListener('abort', () => {
            clearTimeout(t);
            reject(init.signal!.reason);
          });
        })) as typeof fetch,
    });
    expect(await request(client, 'GET', '/x')).toEqual({ ok: true });
  }
});

it('a strategy of its own that answers a 401 at once (no promise) still gets its replay', async () => {
  let n = 0;
  const f = scripted(() => (++n === 1 ? json(401, { message: 'expired' }) : json(200, { ok: n })));
  const client = createClient({
    baseUrl: 'http://shop.test',
    fetch: f.fetch,
    auth: { getAuthHeaders: async () => ({ Authorization: `T${n}` }), onUnauthorized: (() => true) as never },
  });
  expect(await request(client, 'GET', '/x')).toEqual({ ok: 2 });
});

it('retry settings given as undefined are the defaults', async () => {
  let n = 0;
  const f = scripted(() => (++n < 3 ? json(503, { message: 'busy' }) : json(200, { ok: true })));
  const client = createClient({
    baseUrl: 'http://shop.test',
    fetch: f.fetch,
    retry: { attempts: undefined, baseDelayMs: 1, maxDelayMs: undefined },
  });
  expect(await request(client, 'GET', '/x', { retrySafe: true })).toEqual({ ok: true });
  expect(f.log).toHaveLength(3);
});

it('renewals are shared by the callers of one session, not across sessions', async () => {
  // One strategy over storage that answers each request's own tokens (per-request cookie jars):
  // not a set-up the docs advise, but a renewal must not hand one session another's token.
  const jar = new AsyncLocalStorage<{ t: Tokens }>();
  const auth = OAuthStrategy({
    clientId: 'c',
    storage: {
      getTokens: () => jar.getStore()!.t,
      setTokens: (t) => {
        jar.getStore()!.t = t;
      },
    },
  });
  const f = scripted(async (path, authz, body) => {
    if (path === '/oauth2/token') {
      await new Promise((r) => setTimeout(r, 20));
      return json(200, {
        access_token: `AT-for-${body.refreshToken}`,
        refresh_token: body.refreshToken,
        expires_in: 3600,
      });
    }
    return json(200, { token: authz });
  });
  const client = createClient({ baseUrl: 'http://shop.test', fetch: f.fetch, auth });
  const as = (rt: string) =>
    jar.run({ t: tokens('old', rt, 1) }, () => request(client, 'POST', '/cart', { body: {} }));
  expect(await Promise.all([as('RT-alice'), as('RT-bob')])).toEqual([
    { token: 'AT-for-RT-alice' },
    { token: 'AT-for-RT-bob' },
  ]);
});

describe('a transport whose fetch drops the signal', () => {
  // Without the race on the call's signal these calls never end (the test's own timeout fails them).
  /** A fetch that never looks at `init.signal`: it never answers, or its body never ends. */
  const deaf = (body: 'none' | 'endless') =>
    (async () => {
      if (body === 'none') return new Promise<Response>(() => {});
      return new Response(new ReadableStream({ pull: () => new Promise(() => {}) }), { status: 200 });
    }) as typeof globalThis.fetch;
  const client = (fetch: typeof globalThis.fetch) => createClient({ baseUrl: 'http://shop.test', fetch });

  it('the call times out at its own deadline', async () => {
    const err = await request(client(deaf('none')), 'GET', '/x', { timeoutMs: 50 }).catch((e) => e);
    expect(err).toBeInstanceOf(SystemError);
    expect(err.code).toBe('TIMEOUT');
  });

  it('an abort ends the call, as ABORTED', async () => {
    const ctl = new AbortController();
    const call = request(client(deaf('none')), 'GET', '/x', { signal: ctl.signal }).catch((e) => e);
    setTimeout(() => ctl.abort(), 20);
    expect((await call).code).toBe('ABORTED');
  });

  it('a body that never ends times out too, and is not sent again', async () => {
    let sent = 0;
    const fetch = deaf('endless');
    const counting = ((...a: Parameters<typeof fetch>) => {
      sent++;
      return fetch(...a);
    }) as typeof fetch;
    const err = await request(client(counting), 'GET', '/x', { timeoutMs: 50 }).catch((e) => e);
    expect(err.code).toBe('TIMEOUT');
    expect(sent).toBe(1);
  });
});
