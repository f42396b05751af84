import { execFileSync } from 'node:child_process';
import { getEventListeners } from 'node:events';
import { describe, expect, it, vi } from 'vitest';
import { type AuthStrategy, type ClientOptions, createClient } from './client.ts';
import { graphql } from './http/engine.ts';
import { ApplicationError, ShopkitError, SystemError, ValidationError } from './http/errors.ts';
import { call, op } from './http/op.ts';
import { date, float } from './transforms.ts';

/** A fetch handler that never answers, until its signal aborts it. */
const hang: Handler = (_req, signal) =>
  new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason)));

/** `signal` is the caller's own signal, as a real fetch would watch it. */
type Handler = (req: Request, signal: AbortSignal) => Response | Promise<Response>;
/** A fetch that answers with `handler` and records every request. */
function fakeFetch(handler: Handler = () => Response.json({})) {
  const requests: Request[] = [];
  const fn = vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
    const req = new Request(input, init);
    requests.push(req.clone());
    return handler(req, init!.signal!);
  });
  return { fetch: fn as unknown as typeof fetch, requests, fn };
}

const getThing = op<[id: string], { thing: { id: string; when: Date } }>({
  method: 'GET',
  path: '/things/v1/things/{id}',
  args: ['id'],
  res: { thing: { when: date } },
});
const search = op<[q: string], unknown>({
  method: 'GET',
  path: '/things/v1/search',
  args: ['q'],
  fallback: true,
});
const createThing = op<[thing: { name: string; weight?: number; at?: Date }], unknown>({
  method: 'POST',
  path: '/things/v1/things',
  args: ['thing'],
  req: { thing: { weight: float, at: date } },
});
const removeAll = op<[], unknown>({ method: 'POST', path: '/things/v1/remove', args: [] });
const elevatedOp = op<[], unknown>({
  name: 'things.purge',
  method: 'DELETE',
  path: '/things/v1/all',
  elevated: true,
});

const token = (value: string): AuthStrategy => ({ getAuthHeaders: async () => ({ Authorization: value }) });

describe('request building', () => {
  it('sends the raw token, no Bearer, and Content-Type only with a body', async () => {
    const f = fakeFetch(() => Response.json({ thing: { id: 'a', when: '2026-01-01T00:00:00.000Z' } }));
    const client = createClient({ baseUrl: 'http://h:1/', fetch: f.fetch, auth: token('tok-123') });
    const out = await getThing(client, 'a/b');
    expect(out.thing.when).toEqual(new Date('2026-01-01T00:00:00.000Z'));
    const [get] = f.requests;
    expect(get!.url).toBe('http://h:1/things/v1/things/a%2Fb?id=a%2Fb');
    expect(get!.headers.get('authorization')).toBe('tok-123');
    expect(get!.headers.get('content-type')).toBeNull();
    await createThing(client, { name: 'x' });
    expect(f.requests[1]!.headers.get('content-type')).toBe('application/json');
    await removeAll(client);
    expect(await f.requests[2]!.text()).toBe('{}');
  });

  it('transforms request fields without mutating the caller’s object', async () => {
    const f = fakeFetch();
    const client = createClient({ baseUrl: 'http://h', fetch: f.fetch });
    const thing = { name: 'x', weight: Number.NaN, at: new Date('2026-02-03T00:00:00.000Z') };
    await createThing(client, thing);
    expect(await f.requests[0]!.json()).toEqual({
      thing: { name: 'x', weight: 'NaN', at: '2026-02-03T00:00:00.000Z' },
    });
    expect(thing.weight).toBeNaN();
    expect(thing.at).toBeInstanceOf(Date);
  });

  it('switches to POST only when the query string exceeds 4000 characters', async () => {
    const f = fakeFetch();
    const client = createClient({ baseUrl: 'http://h', fetch: f.fetch });
    await search(client, 'a'.repeat(3998)); // "q=" + 3998 = 4000
    await search(client, 'a'.repeat(3999)); // 4001
    expect(f.requests.map((r) => r.method)).toEqual(['GET', 'POST']);
    expect(f.requests[1]!.url).toBe('http://h/things/v1/search');
    expect(await f.requests[1]!.json()).toEqual({ q: 'a'.repeat(3999) });
  });

  it('echoes X-Wix-Consistent on every later request, also from derived clients', async () => {
    const f = fakeFetch(() => Response.json({}, { headers: { 'X-Wix-Consistent': 'c-1' } }));
    const client = createClient({ baseUrl: 'http://h', fetch: f.fetch });
    await removeAll(client);
    await removeAll(client.withOptions({ timeoutMs: 5000 }));
    expect(f.requests[0]!.headers.get('x-wix-consistent')).toBeNull();
    expect(f.requests[1]!.headers.get('x-wix-consistent')).toBe('c-1');
  });

  it('lets later headers win whatever their case: the client over Content-Type, consistency and auth over the client', async () => {
    const f = fakeFetch(() => Response.json({}, { headers: { 'X-Wix-Consistent': 'c-1' } }));
    const client = createClient({
      baseUrl: 'http://h',
      fetch: f.fetch,
      auth: token('tok-123'),
      headers: {
        'content-type': 'application/json; charset=utf-8',
        authorization: 'stale',
        'x-wix-consistent': 'old',
      },
    });
    await createThing(client, { name: 'x' });
    await createThing(
      client,
      { name: 'y' },
      { headers: { 'X-WIX-CONSISTENT': 'older', 'Content-Type': 'text/json' } },
    );
    const [first, second] = f.requests;
    // One value each (a Headers object would join two spellings with a comma).
    expect(first!.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(first!.headers.get('authorization')).toBe('tok-123');
    expect(first!.headers.get('x-wix-consistent')).toBe('old');
    expect(second!.headers.get('content-type')).toBe('text/json');
    expect(second!.headers.get('authorization')).toBe('tok-123');
    expect(second!.headers.get('x-wix-consistent')).toBe('c-1');
  });

  // `.` and `..` would reach another endpoint: a URL parser takes them as steps up the path.
  it.each([
    ['', 'must be a non-empty string'],
    ['..', 'must not be . or ..'],
    ['.', 'must not be . or ..'],
  ])('refuses the path parameter %j before sending: %s', async (id, why) => {
    const f = fakeFetch();
    const client = createClient({ baseUrl: 'http://h', fetch: f.fetch });
    const err = await getThing(client, id).catch((e) => e);
    expect(err).toBeInstanceOf(ValidationError);
    expect(err.message).toBe(`INVALID_ARGUMENT: "id" ${why}`);
    expect(f.fn).not.toHaveBeenCalled();
  });

  it('refuses an elevated call on a client without elevation, with a clear message', async () => {
    const f = fakeFetch();
    const client = createClient({ baseUrl: 'http://h', fetch: f.fetch, auth: token('visitor') });
    const err = (await elevatedOp(client).catch((e) => e)) as ShopkitError;
    expect(err).toBeInstanceOf(ShopkitError);
    expect(err.code).toBe('ELEVATION_REQUIRED');
    expect(err.message).toBe(
      'things.purge needs an elevated client (ApiKeyStrategy or AppStrategy); this client has none.',
    );
    expect(f.fn).not.toHaveBeenCalled();
  });

  it('refuses an unknown HTTP method as a validation error, sent nowhere and reported to onError', async () => {
    const f = fakeFetch();
    const onError = vi.fn();
    const client = createClient({ baseUrl: 'http://h', fetch: f.fetch, onError });
    const err = (await call(client, { method: 'BREW' as 'GET', path: '/x' }, []).catch(
      (e) => e,
    )) as ShopkitError;
    expect(err).toBeInstanceOf(ValidationError);
    expect(err.message).toBe(
      'INVALID_ARGUMENT: "method" must be one of GET, POST, PATCH, PUT, DELETE (not BREW)',
    );
    expect(onError).toHaveBeenCalledWith(err, { method: 'BREW', path: '/x' });
    expect(f.fn).not.toHaveBeenCalled();
  });

  it('sends GraphQL to /graphql/{version} with alpha by default', async () => {
    const f = fakeFetch(() => Response.json({ data: null, errors: [{ message: 'e' }] }));
    const client = createClient({ baseUrl: 'http://h', fetch: f.fetch });
    const out = await graphql(client, 'query { a }', { x: 1 });
    expect(out).toEqual({ data: {}, errors: [{ message: 'e' }] });
    await graphql(client, 'query { a }', undefined, { apiVersion: 'v1' });
    expect(f.requests.map((r) => `${r.method} ${new URL(r.url).pathname}`)).toEqual([
      'POST /graphql/alpha',
      'POST /graphql/v1',
    ]);
    expect(await f.requests[0]!.json()).toEqual({ query: 'query { a }', variables: { x: 1 } });
  });
});

describe('module binding', () => {
  it('binds functions with the client and passes constants through', async () => {
    const f = fakeFetch(() => Response.json({ thing: { id: 'a', when: '' } }));
    const things = { getThing, KIND: 'thing' as const };
    const client = createClient({ baseUrl: 'http://h', fetch: f.fetch, modules: { things } });
    expect(client.things.KIND).toBe('thing');
    expect((await client.things.getThing('a')).thing.id).toBe('a');
  });
});

describe('response floats', () => {
  const getStats = op<[], { stats: { ratio: number | string; label: string } }>({
    method: 'GET',
    path: '/things/v1/stats',
    res: { stats: { ratio: float } },
  });
  it('turn the strings NaN and Infinity back into numbers, also for callers sharing a read', async () => {
    const f = fakeFetch(async () => {
      await new Promise((r) => setTimeout(r, 5));
      return Response.json({ stats: { ratio: '-Infinity', label: 'NaN' } });
    });
    const client = createClient({ baseUrl: 'http://h', fetch: f.fetch });
    const [a, b] = await Promise.all([getStats(client), getStats(client)]);
    expect(f.fn).toHaveBeenCalledTimes(1);
    for (const r of [a, b]) expect(r.stats).toEqual({ ratio: -Infinity, label: 'NaN' });
    // Large bodies (scanned first) shared: each caller's copy is read as the first caller's.
    for (const ratio of ['NaN', 1.5]) {
      const big = fakeFetch(async () => {
        await new Promise((r) => setTimeout(r, 5));
        return Response.json({ stats: { ratio, label: 'x' }, pad: 'x'.repeat(20_000) });
      });
      const shared = createClient({ baseUrl: 'http://h', fetch: big.fetch });
      const all = await Promise.all([getStats(shared), getStats(shared), getStats(shared)]);
      expect(big.fn).toHaveBeenCalledTimes(1);
      for (const r of all) expect(r.stats.ratio).toBe(ratio === 'NaN' ? Number.NaN : 1.5);
    }
  });
  it('turn them back in large bodies too (scanned), and leave a large body without them alone', async () => {
    const pad = 'x'.repeat(20_000); // past the size from which the engine scans the text first
    const bodies = [
      { stats: { ratio: 'NaN', label: 'Infinity' }, pad },
      { stats: { ratio: '-Infinity', label: 'x' }, pad },
      { stats: { ratio: 'Infinity', label: 'NaN' }, pad },
      { stats: { ratio: 2.5, label: 'Infinity and beyond' }, pad },
    ];
    let n = 0;
    const f = fakeFetch(() => Response.json(bodies[n++]));
    const client = createClient({ baseUrl: 'http://h', fetch: f.fetch });
    expect((await getStats(client)).stats).toEqual({ ratio: Number.NaN, label: 'Infinity' });
    expect((await getStats(client)).stats).toEqual({ ratio: -Infinity, label: 'x' });
    expect((await getStats(client)).stats).toEqual({ ratio: Infinity, label: 'NaN' });
    expect((await getStats(client)).stats).toEqual({ ratio: 2.5, label: 'Infinity and beyond' });
  });
  it('leave ordinary numbers and strings alone', async () => {
    const f = fakeFetch(() => Response.json({ stats: { ratio: 0.5, label: 'Infinity and beyond' } }));
    const out = await getStats(createClient({ baseUrl: 'http://h', fetch: f.fetch }));
    expect(out.stats).toEqual({ ratio: 0.5, label: 'Infinity and beyond' });
  });
});

describe('identical reads in flight', () => {
  it('share one request, and every caller gets its own object', async () => {
    const f = fakeFetch(async () => {
      await new Promise((r) => setTimeout(r, 10));
      return Response.json({ thing: { id: 'a', when: '2026-01-01T00:00:00.000Z' } });
    });
    const client = createClient({ baseUrl: 'http://h', fetch: f.fetch });
    const [a, b, c] = await Promise.all([
      getThing(client, 'a'),
      getThing(client, 'a'),
      getThing(client, 'b'),
    ]);
    expect(f.fn).toHaveBeenCalledTimes(2);
    expect(a).toEqual(b);
    expect(a).not.toBe(b);
    expect(a.thing.when).toBeInstanceOf(Date);
    expect(b.thing.when).toBeInstanceOf(Date);
    a.thing.id = 'changed';
    expect(b.thing.id).toBe('a');
    expect(c.thing.id).toBe('a');
    await getThing(client, 'a');
    expect(f.fn).toHaveBeenCalledTimes(3); // nothing is cached once settled
  });

  it("send an API key after the strategy's token, and never share a read that carries one", async () => {
    const f = fakeFetch(async () => {
      await new Promise((r) => setTimeout(r, 10));
      return Response.json({ thing: { id: 'a', when: '' } });
    });
    const client = createClient({ baseUrl: 'http://h', fetch: f.fetch, auth: token('buyer-token') });
    await Promise.all([getThing(client, 'a'), getThing(client, 'a', { apiKey: 'key-1' })]);
    expect(f.requests.map((r) => r.headers.get('authorization')).sort()).toEqual([
      'buyer-token',
      'buyer-token,key-1',
    ]);
    // Without a strategy the key is the whole header.
    const bare = fakeFetch(() => Response.json({}));
    await removeAll(createClient({ baseUrl: 'http://h', fetch: bare.fetch }), { apiKey: 'key-2' });
    expect(bare.requests[0]!.headers.get('authorization')).toBe('key-2');
  });

  it('never share writes, and share failures only with those who joined', async () => {
    const f = fakeFetch(() => new Response(null, { status: 404 }));
    const client = createClient({ baseUrl: 'http://h', fetch: f.fetch });
    const results = await Promise.allSettled([
      getThing(client, 'x'),
      getThing(client, 'x'),
      removeAll(client),
      removeAll(client),
    ]);
    expect(results.every((r) => r.status === 'rejected')).toBe(true);
    expect(f.fn).toHaveBeenCalledTimes(3);
  });
});

describe('responses and failures', () => {
  /** A server that never answers: the call ends only when its signal aborts. */
  it('treats every status but 200 as an error, 201 and 204 included', async () => {
    for (const status of [201, 204]) {
      const client = createClient({
        baseUrl: 'http://h',
        fetch: fakeFetch(() => new Response(null, { status })).fetch,
      });
      const err = (await removeAll(client).catch((e) => e)) as Error;
      expect(err).toBeInstanceOf(SystemError);
      expect(err.message).toBe(`System error occurred: HTTP ${status}`);
    }
  });

  it('treats a 200 without a JSON object as a system error', async () => {
    const client = createClient({
      baseUrl: 'http://h',
      fetch: fakeFetch(() => new Response('', { status: 200, headers: { 'x-wix-request-id': 'r9' } })).fetch,
    });
    const err = await removeAll(client).catch((e) => e);
    expect(err).toMatchObject({
      code: 'INVALID_RESPONSE',
      message: 'System error occurred: the response body is not a JSON object, request-id: r9',
    });
  });

  it('passes every failure to onError once, then throws it', async () => {
    const onError = vi.fn();
    const body = { message: 'nope', details: { applicationError: { code: 'X', description: 'nope' } } };
    const client = createClient({
      baseUrl: 'http://h',
      onError,
      fetch: fakeFetch(() => Response.json(body, { status: 409 })).fetch,
    });
    const err = await removeAll(client).catch((e) => e);
    expect(err).toBeInstanceOf(ApplicationError);
    expect(onError).toHaveBeenCalledTimes(1);
    expect(onError).toHaveBeenCalledWith(err, { method: 'POST', path: '/things/v1/remove' });
  });

  /** A client whose fetch never answers (until aborted), trying each call once. */
  const hangingClient = (options: { timeoutMs?: number } = {}) =>
    createClient({ baseUrl: 'http://h', fetch: fakeFetch(hang).fetch, retry: { attempts: 1 }, ...options });

  it('times out a call that hangs', async () => {
    const client = hangingClient({ timeoutMs: 20 });
    const err = await getThing(client, 'a').catch((e) => e);
    expect(err).toBeInstanceOf(SystemError);
    expect(err).toMatchObject({ code: 'TIMEOUT', message: 'System error occurred: the call timed out' });
  });

  it('times out a short call on time while a longer one is still waiting (one shared timer)', async () => {
    const client = hangingClient();
    const ctl = new AbortController();
    let longDone = false;
    const long = getThing(client, 'long', { timeoutMs: 60_000, signal: ctl.signal })
      .catch((e) => e)
      .finally(() => {
        longDone = true;
      });
    const short = await getThing(client, 'short', { timeoutMs: 30 }).catch((e) => e);
    expect(short).toMatchObject({ code: 'TIMEOUT' });
    expect(longDone).toBe(false);
    ctl.abort();
    expect(await long).toMatchObject({ code: 'ABORTED' });
  });

  it('times out a call that has a signal of its own as TIMEOUT, not ABORTED', async () => {
    const client = hangingClient();
    const ctl = new AbortController();
    const err = await getThing(client, 'a', { timeoutMs: 20, signal: ctl.signal }).catch((e) => e);
    expect(err).toMatchObject({ code: 'TIMEOUT' });
    expect(getEventListeners(ctl.signal, 'abort')).toHaveLength(0);
  });

  it('shares one deadline signal among calls whose deadlines fall together, up to 10 calls', async () => {
    // The clock stands still, so every call's deadline falls in the same slot.
    vi.useFakeTimers({ toFake: ['Date'], now: new Date('2026-11-26T10:00:00Z') });
    try {
      const signals: AbortSignal[] = [];
      const client = createClient({
        baseUrl: 'http://h',
        fetch: (async (_input: RequestInfo | URL, init?: RequestInit) => {
          signals.push(init!.signal!);
          return Response.json({ thing: { id: 'a' } });
        }) as typeof fetch,
      });
      // One after another, and side by side.
      for (let i = 0; i < 20; i++) await getThing(client, 'a');
      await Promise.all(Array.from({ length: 13 }, (_, i) => getThing(client, `b${i}`)));
      expect(new Set(signals.slice(0, 10)).size).toBe(1);
      expect(signals[10]).not.toBe(signals[0]);
      // 33 calls, 10 to a slot (more listeners on one signal and Node warns of a leak).
      expect(new Set(signals).size).toBe(4);
      // Another timeout is another deadline; a caller's signal gets a signal of its own.
      await getThing(client, 'c', { timeoutMs: 5000 });
      await getThing(client, 'd', { signal: new AbortController().signal });
      expect(new Set(signals.slice(30)).size).toBe(3);
      expect(signals.every((s) => !s.aborted)).toBe(true);
    } finally {
      vi.useRealTimers();
    }
  });

  it('does not keep a Node process alive once its calls are done', () => {
    // A child makes one call with a 10-minute timeout and must then exit by itself: a timer left
    // armed for that deadline would hold it open far beyond this test's own timeout.
    const script = `
      const { createClient } = await import(${JSON.stringify(new URL('./client.ts', import.meta.url).href)});
      const client = createClient({ baseUrl: 'http://h', timeoutMs: 600000, fetch: async () => Response.json({ ok: 1 }) });
      const { request } = await import(${JSON.stringify(new URL('./http/engine.ts', import.meta.url).href)});
      console.log(JSON.stringify(await request(client, 'GET', '/x')));`;
    const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      encoding: 'utf8',
      timeout: 15_000,
    });
    expect(out.trim()).toBe('{"ok":1}');
  });

  it('stops at once when the caller aborts, without retrying', async () => {
    const f = fakeFetch(hang);
    const client = createClient({ baseUrl: 'http://h', fetch: f.fetch });
    const ctl = new AbortController();
    const pending = getThing(client, 'a', { signal: ctl.signal }).catch((e) => e);
    await vi.waitFor(() => expect(f.fn).toHaveBeenCalled());
    ctl.abort();
    expect(await pending).toMatchObject({ code: 'ABORTED' });
    expect(f.fn).toHaveBeenCalledTimes(1);
  });
});

describe('retries', () => {
  const flaky = (failures: Array<'network' | number>, headers: Record<string, string> = {}) => {
    let n = 0;
    return fakeFetch(() => {
      const f = failures[n++];
      if (f === 'network') throw new TypeError('fetch failed');
      if (typeof f === 'number') return new Response('{}', { status: f, headers });
      return Response.json({ ok: true });
    });
  };
  const fast = { attempts: 3, baseDelayMs: 1, maxDelayMs: 5 };

  it('retries a read on network errors, then succeeds', async () => {
    const f = flaky(['network', 'network']);
    const client = createClient({ baseUrl: 'http://h', fetch: f.fetch, retry: fast });
    expect(await search(client, 'x')).toEqual({ ok: true });
    expect(f.fn).toHaveBeenCalledTimes(3);
  });

  it('retries 429 and 503, honouring Retry-After in seconds and as a date', async () => {
    const a = flaky([503], { 'Retry-After': '0' });
    await search(createClient({ baseUrl: 'http://h', fetch: a.fetch, retry: fast }), 'x');
    expect(a.fn).toHaveBeenCalledTimes(2);
    const b = flaky([429], { 'Retry-After': new Date(Date.now() - 1000).toUTCString() });
    await search(createClient({ baseUrl: 'http://h', fetch: b.fetch, retry: fast }), 'x');
    expect(b.fn).toHaveBeenCalledTimes(2);
  });

  it('never retries a write, nor a 4xx read', async () => {
    const w = flaky(['network']);
    await expect(
      removeAll(createClient({ baseUrl: 'http://h', fetch: w.fetch, retry: fast })),
    ).rejects.toMatchObject({ code: 'NETWORK_ERROR' });
    expect(w.fn).toHaveBeenCalledTimes(1);
    const r = flaky([400]);
    await expect(
      search(createClient({ baseUrl: 'http://h', fetch: r.fetch, retry: fast }), 'x'),
    ).rejects.toBeTruthy();
    expect(r.fn).toHaveBeenCalledTimes(1);
  });

  it("leaves no listener on the caller's signal once done, waits between attempts included", async () => {
    const f = flaky(['network', 503]);
    const client = createClient({ baseUrl: 'http://h', fetch: f.fetch, retry: fast });
    const ctl = new AbortController();
    expect(await search(client, 'x', { signal: ctl.signal })).toEqual({ ok: true });
    expect(f.fn).toHaveBeenCalledTimes(3);
    expect(getEventListeners(ctl.signal, 'abort')).toEqual([]);
  });

  it('gives up after the configured attempts', async () => {
    const f = flaky([503, 503, 503, 503]);
    const err = await search(createClient({ baseUrl: 'http://h', fetch: f.fetch, retry: fast }), 'x').catch(
      (e) => e,
    );
    expect(err).toBeInstanceOf(SystemError);
    expect(f.fn).toHaveBeenCalledTimes(3);
  });
});

describe('401 handling', () => {
  it('refreshes once and replays once, with no loop', async () => {
    let refreshes = 0;
    const auth: AuthStrategy = {
      getAuthHeaders: async () => ({ Authorization: `t${refreshes}` }),
      onUnauthorized: async () => {
        refreshes++;
        return true;
      },
    };
    const f = fakeFetch(() =>
      Response.json(
        {
          message: 'expired',
          details: { applicationError: { code: 'UNAUTHENTICATED', description: 'expired' } },
        },
        { status: 401 },
      ),
    );
    const err = await removeAll(createClient({ baseUrl: 'http://h', fetch: f.fetch, auth })).catch((e) => e);
    expect(err).toMatchObject({ status: 401, code: 'UNAUTHENTICATED' });
    expect(refreshes).toBe(1);
    expect(f.requests.map((r) => r.headers.get('authorization'))).toEqual(['t0', 't1']);
  });
});

describe('edges of the engine', () => {
  /** A client on `f` with `options`. */
  const on = (f: { fetch: typeof fetch }, options: ClientOptions<AuthStrategy | undefined, {}> = {}) =>
    createClient({ baseUrl: 'http://h', fetch: f.fetch, ...options });

  it('keeps the timeout for the whole call: a timed-out read is not tried again', async () => {
    const f = fakeFetch(hang);
    const client = on(f, { timeoutMs: 30 });
    const err = await getThing(client, 'a').catch((e) => e);
    expect(err).toMatchObject({ code: 'TIMEOUT' });
    expect(f.fn).toHaveBeenCalledTimes(1);
  });

  it('gives up rather than wait past the timeout, with the error it has', async () => {
    const random = vi.spyOn(Math, 'random').mockReturnValue(0.5);
    try {
      const f = fakeFetch(() => {
        throw new TypeError('fetch failed');
      });
      // The first backoff would be 5 s; the call has 1 s in all.
      const client = on(f, { timeoutMs: 1000, retry: { baseDelayMs: 10_000 } });
      expect(await search(client, 'x').catch((e) => e)).toMatchObject({ code: 'NETWORK_ERROR' });
      expect(f.fn).toHaveBeenCalledTimes(1);
    } finally {
      random.mockRestore();
    }
  });

  it('calls a deadline that fires while the body is read a TIMEOUT, not a cut-off answer', async () => {
    const f = fakeFetch((_req, signal) => {
      const body = new ReadableStream({
        start(c) {
          c.enqueue(new TextEncoder().encode('{"thing":'));
          signal.addEventListener('abort', () => c.error(signal.reason));
        },
      });
      return new Response(body);
    });
    const client = on(f, { timeoutMs: 30, retry: { attempts: 1 } });
    expect(await getThing(client, 'a').catch((e) => e)).toMatchObject({ code: 'TIMEOUT' });
  });

  it('reports an abort during a retry wait as ABORTED, to onError too', async () => {
    const random = vi.spyOn(Math, 'random').mockReturnValue(0.5);
    try {
      const seen: string[] = [];
      const f = fakeFetch(() => new Response('{}', { status: 503 }));
      const client = on(f, { retry: { baseDelayMs: 10_000 }, onError: (e) => seen.push(e.code) });
      const ctl = new AbortController();
      setTimeout(() => ctl.abort(), 20);
      const err = (await search(client, 'x', { signal: ctl.signal }).catch((e) => e)) as SystemError;
      expect(err).toBeInstanceOf(SystemError);
      expect(err.code).toBe('ABORTED');
      expect(seen).toEqual(['ABORTED']);
      expect(f.fn).toHaveBeenCalledTimes(1);
    } finally {
      random.mockRestore();
    }
  });

  it('sends nothing for a body JSON cannot hold, and does not call it a network error', async () => {
    const f = fakeFetch();
    const client = on(f);
    const err = (await createThing(client, { name: 'x', weight: 10n as unknown as number }).catch(
      (e) => e,
    )) as ShopkitError;
    expect(err).toBeInstanceOf(ShopkitError);
    expect(err.code).not.toBe('NETWORK_ERROR');
    expect(f.fn).not.toHaveBeenCalled();
  });

  it('takes a Proxy as a request message (a Vue reactive object), without changing it', async () => {
    const f = fakeFetch();
    const client = on(f);
    const at = new Date('2026-01-02T03:04:05.000Z');
    const thing = new Proxy({ name: 'x', weight: Number.NaN, at }, {});
    await createThing(client, thing);
    expect(await f.requests[0]!.json()).toEqual({
      thing: { name: 'x', weight: 'NaN', at: '2026-01-02T03:04:05.000Z' },
    });
    expect(thing.at).toBe(at);
    expect(thing.weight).toBeNaN();
  });

  it('shares a read in flight only with reads of the same session (auth epoch)', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const f = fakeFetch(async (req) => {
      if (req.headers.get('authorization') === 'visitor') await gate;
      return Response.json({ thing: { id: req.headers.get('authorization') } });
    });
    let epoch = 1;
    let token = 'visitor';
    const auth: AuthStrategy = {
      getAuthHeaders: async () => ({ Authorization: token }),
      get epoch() {
        return epoch;
      },
    };
    const client = on(f, { auth });
    const first = getThing(client, 'a');
    await vi.waitFor(() => expect(f.fn).toHaveBeenCalledTimes(1));
    // A login: the next read must not join the visitor's request.
    token = 'member';
    epoch++;
    const second = await getThing(client, 'a');
    release();
    expect(second.thing.id).toBe('member');
    expect((await first).thing.id).toBe('visitor');
    expect(f.fn).toHaveBeenCalledTimes(2);
  });
});
