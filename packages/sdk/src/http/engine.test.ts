/** Edges of the request engine found by an audit: each test failed before its fix, or pins an edge that held. */
import { describe, expect, it, vi } from 'vitest';
import { OAuthStrategy } from '../auth/oauth.ts';
import { type AuthStrategy, createClient } from '../client.ts';
import { SystemError } from './errors.ts';
import { op } from './op.ts';

type Handler = (req: Request) => Response | Promise<Response>;
/** A fetch that answers with `handler` and records every request. */
function fakeFetch(handler: Handler) {
  const requests: Request[] = [];
  const fn = vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
    const req = new Request(input, init);
    requests.push(req.clone());
    return handler(req);
  });
  return { fetch: fn as unknown as typeof fetch, requests, fn };
}

const getThing = op<[id: string], { v: number }>({ method: 'GET', path: '/t/v1/things/{id}', args: ['id'] });
const addThing = op<[], unknown>({ method: 'POST', path: '/t/v1/things', args: [] });

describe('shared reads and writes', () => {
  /** Reads answer in turn 1, 2, …; the first waits for `release`; writes answer at once. */
  function server() {
    let reads = 0;
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const f = fakeFetch(async (req) => {
      if (req.method !== 'GET') return Response.json({});
      const v = ++reads;
      if (v === 1) await gate;
      return Response.json({ v });
    });
    return { f, release };
  }

  it('a read made after a write does not join a read sent before it', async () => {
    const { f, release } = server();
    const client = createClient({ baseUrl: 'http://h', fetch: f.fetch });
    const before = getThing(client, 'a');
    await vi.waitFor(() => expect(f.fn).toHaveBeenCalledTimes(1));
    await addThing(client);
    const after = getThing(client, 'a');
    release();
    expect(await before).toEqual({ v: 1 });
    expect(await after).toEqual({ v: 2 });
  });

  it('nor when the write went through a derived client (they share consistency)', async () => {
    const { f, release } = server();
    const client = createClient({ baseUrl: 'http://h', fetch: f.fetch });
    const before = getThing(client, 'a');
    await vi.waitFor(() => expect(f.fn).toHaveBeenCalledTimes(1));
    await addThing(client.withOptions({ timeoutMs: 5000 }));
    const after = getThing(client, 'a');
    release();
    expect(await before).toEqual({ v: 1 });
    expect(await after).toEqual({ v: 2 });
  });

  it('a caller whose transforms throw fails alone; the others sharing its read get theirs', async () => {
    const boom = op<[id: string], unknown>({
      method: 'GET',
      path: '/t/v1/things/{id}',
      args: ['id'],
      res: {
        v: [
          (v: unknown) => v,
          () => {
            throw new Error('transform failed');
          },
        ],
      },
    });
    const f = fakeFetch(async () => {
      await new Promise((r) => setTimeout(r, 1));
      return Response.json({ v: 1 });
    });
    const client = createClient({ baseUrl: 'http://h', fetch: f.fetch });
    const [a, b] = await Promise.allSettled([boom(client, 'a'), getThing(client, 'a')]);
    expect(f.fn).toHaveBeenCalledTimes(1);
    expect(a).toMatchObject({ status: 'rejected', reason: { code: 'UNKNOWN' } });
    expect(b).toEqual({ status: 'fulfilled', value: { v: 1 } });
  });
});

describe('Retry-After', () => {
  /** A 503 with `retryAfter`, then 200, on a call with 1 s in all and a first backoff of 5 s. */
  async function attempts(retryAfter: string) {
    const random = vi.spyOn(Math, 'random').mockReturnValue(0.5);
    try {
      let n = 0;
      const f = fakeFetch(() =>
        n++ ? Response.json({}) : new Response('{}', { status: 503, headers: { 'Retry-After': retryAfter } }),
      );
      const client = createClient({
        baseUrl: 'http://h',
        fetch: f.fetch,
        timeoutMs: 1000,
        retry: { baseDelayMs: 10_000 },
      });
      await getThing(client, 'a').catch(() => {});
      return f.fn.mock.calls.length;
    } finally {
      random.mockRestore();
    }
  }

  it('of 0 retries at once', async () => {
    expect(await attempts('0')).toBe(2);
  });

  it.each(['-5', '-1', 'soon', ''])(
    'of %j is no Retry-After: the backoff (too long here) applies',
    async (value) => {
      expect(await attempts(value)).toBe(1);
    },
  );
});

describe('401 and failures', () => {
  it('renews once on a 401 that follows a retried 503, and replays', async () => {
    let renewals = 0;
    const auth: AuthStrategy = {
      getAuthHeaders: async () => ({ Authorization: `t${renewals}` }),
      onUnauthorized: async () => ++renewals > 0,
    };
    const answers = [503, 401, 200];
    const f = fakeFetch(() => new Response('{"v":3}', { status: answers.shift()! }));
    const client = createClient({ baseUrl: 'http://h', fetch: f.fetch, auth, retry: { baseDelayMs: 1 } });
    expect(await getThing(client, 'a')).toEqual({ v: 3 });
    expect(renewals).toBe(1);
    expect(f.requests.map((r) => r.headers.get('authorization'))).toEqual(['t0', 't0', 't1']);
  });

  it('stops after a 401 whose renewal is itself refused with 401: one renewal, one replay, no loop', async () => {
    const grants: string[] = [];
    let calls = 0;
    const client = createClient({
      baseUrl: 'http://h',
      auth: OAuthStrategy({ clientId: 'c' }),
      fetch: async (input, init) => {
        if (!String(input).endsWith('/oauth2/token')) {
          calls++;
          return new Response('{}', { status: 401 });
        }
        const grant = JSON.parse(String(init?.body)).grantType;
        grants.push(grant);
        return grant === 'anonymous'
          ? Response.json({ access_token: `a${grants.length}`, refresh_token: 'r1', expires_in: 3600 })
          : Response.json({ message: 'no' }, { status: 401 });
      },
    });
    const err = await getThing(client, 'a').catch((e) => e);
    expect(err).toMatchObject({ status: 401, code: 'UNAUTHORIZED' });
    // A visitor whose refresh is refused gets new visitor tokens; the replay's 401 is final.
    expect(grants).toEqual(['anonymous', 'refresh_token', 'anonymous']);
    expect(calls).toBe(2);
  });

  it("reads a proxy's HTML error page as a system error, without its text, and does not retry a 502", async () => {
    const f = fakeFetch(
      () =>
        new Response('<html><body>Bad gateway for Authorization: secret-token</body></html>', {
          status: 502,
          statusText: 'Bad Gateway',
          headers: { 'content-type': 'text/html' },
        }),
    );
    const err = await getThing(createClient({ baseUrl: 'http://h', fetch: f.fetch }), 'a').catch((e) => e);
    expect(err).toBeInstanceOf(SystemError);
    expect(err).toMatchObject({ status: 502, code: 'BAD_GATEWAY', message: 'System error occurred' });
    expect(JSON.stringify(err)).not.toContain('secret-token');
    expect(f.fn).toHaveBeenCalledTimes(1);
  });
});

describe('a call without a deadline', () => {
  it('(timeoutMs Infinity) gets a signal of its own that never aborts: no slot is kept for an end that never comes', async () => {
    const signals: AbortSignal[] = [];
    const client = createClient({
      baseUrl: 'http://h',
      timeoutMs: Number.POSITIVE_INFINITY,
      fetch: (async (_input: RequestInfo | URL, init?: RequestInit) => {
        signals.push(init!.signal!);
        return Response.json({ v: 1 });
      }) as typeof fetch,
    });
    // Slots serve 10 calls each and stay until their end: with no end, every 10 calls kept one more.
    for (let i = 0; i < 40; i++) await getThing(client, `t${i}`);
    expect(new Set(signals).size).toBe(40);
    expect(signals.some((s) => s.aborted)).toBe(false);
  });
});
