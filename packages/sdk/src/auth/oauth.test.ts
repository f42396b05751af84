import { describe, expect, it, vi } from 'vitest';
import { type AuthStrategy, createClient, type RetryOptions } from '../client.ts';
import type { ShopkitError } from '../http/errors.ts';
import { call } from '../http/op.ts';
import { AppStrategy } from './app.ts';
import { cookieStorage } from './cookie.ts';
import { OAuthStrategy } from './oauth.ts';
import { emptyTokens, memoryStorage, TokenRole, type Tokens } from './tokens.ts';

/** A fetch that never answers, until the request's signal aborts it. */
const hanging = ((_input: RequestInfo | URL, init?: RequestInit) =>
  new Promise((_resolve, reject) => {
    const signal = init?.signal;
    if (!signal) return; // no signal: hangs for ever, which is what the test must not see
    signal.addEventListener('abort', () => reject(signal.reason));
  })) as typeof fetch;

describe('token requests', () => {
  it('give up on a token endpoint that never answers, after the client timeout', async () => {
    const client = createClient({
      baseUrl: 'http://h',
      fetch: hanging,
      timeoutMs: 50,
      auth: OAuthStrategy({ clientId: 'c' }),
    });
    const err = (await call(client, { method: 'GET', path: '/things/v1/x' }, []).catch(
      (e) => e,
    )) as ShopkitError;
    // The call gives up at its own timeout, while it waits for the token (engine-edges.test.ts).
    expect(err.code).toBe('TIMEOUT');
    // And so does the token request, for whoever else waits on it.
    const own = (await client.auth.renewToken().catch((e) => e)) as ShopkitError;
    expect(own.message).toBe('something went wrong');
    expect(own.code).toBe('NETWORK_ERROR');
  });

  it('of the app strategy give up too', async () => {
    const client = createClient({
      baseUrl: 'http://h',
      fetch: hanging,
      timeoutMs: 50,
      auth: AppStrategy({ appId: 'a', appSecret: 's' }),
    });
    const err = (await call(client, { method: 'GET', path: '/things/v1/x' }, []).catch(
      (e) => e,
    )) as ShopkitError;
    expect(err.code).toBe('TIMEOUT');
    // As the OAuth strategy's: the same token request, the same failure.
    const own = (await client.auth!.getAuthHeaders(client.transport).catch((e) => e)) as ShopkitError;
    expect(own.message).toBe('something went wrong');
    expect(own.code).toBe('NETWORK_ERROR');
  });
});

/**
 * A client of `auth` whose token requests are recorded by grant type in `grants` and answered by
 * `answer` (visitor tokens unless told); every other call answers `{ ok: true }`. `send` makes one.
 */
function tokenClient(
  auth: AuthStrategy,
  answer: (grant: string) => Response | Promise<Response> = () =>
    Response.json({ access_token: 'visitor-access', refresh_token: 'vr', expires_in: 3600 }),
  retry?: RetryOptions,
) {
  const grants: string[] = [];
  const client = createClient({
    baseUrl: 'http://h',
    auth,
    retry,
    fetch: async (input, init) => {
      if (!String(input).endsWith('/oauth2/token')) return Response.json({ ok: true });
      const grant = JSON.parse(String(init?.body)).grantType;
      grants.push(grant);
      return answer(grant);
    },
  });
  const send = () => call(client, { method: 'GET', path: '/things/v1/x' }, []);
  return { client, grants, send };
}

describe('a refresh that fails', () => {
  /**
   * A `role` whose access token has expired, and a token endpoint answering its refresh with
   * `status` (or failing on the network); the anonymous grant gets the same answer, or new visitor
   * tokens with `anonymous: 'granted'`. `sent` holds the Authorization of each API call.
   */
  function expired(
    role: 'member' | 'visitor',
    status: number | 'offline',
    anonymous: 'refused' | 'granted' = 'refused',
  ) {
    const grants: string[] = [];
    const sent: (string | null)[] = [];
    const auth = OAuthStrategy({
      clientId: 'c',
      tokens: {
        accessToken: { value: 'old-access', expiresAt: 1 },
        refreshToken: { value: `${role}-refresh`, role },
      },
    });
    const client = createClient({
      baseUrl: 'http://h',
      auth,
      retry: { baseDelayMs: 1 },
      fetch: async (input, init) => {
        if (!String(input).endsWith('/oauth2/token')) {
          sent.push(new Headers(init?.headers).get('authorization'));
          return new Response('{}');
        }
        const { grantType } = JSON.parse(String(init?.body));
        grants.push(grantType);
        if (grantType === 'anonymous' && anonymous === 'granted')
          return Response.json({
            access_token: 'new-visitor',
            refresh_token: 'new-visitor-refresh',
            expires_in: 14_400,
            token_type: 'Bearer',
          });
        if (status === 'offline') throw new TypeError('fetch failed');
        return new Response(JSON.stringify({ message: 'no' }), { status });
      },
    });
    const send = () => call(client, { method: 'GET', path: '/things/v1/x' }, []);
    return { auth, grants, sent, send };
  }
  const member = (status: number | 'offline') => expired('member', status);
  /** A visitor whose refresh is answered `status`; a new visitor is granted. */
  const visitor = (status: number) => expired('visitor', status, 'granted');

  it.each([500, 503, 'offline' as const])(
    'with %s is tried three times, then fails the call and keeps the member signed in',
    async (status) => {
      const m = member(status);
      await expect(m.send()).rejects.toMatchObject({ message: 'something went wrong' });
      expect(m.grants).toEqual(['refresh_token', 'refresh_token', 'refresh_token']);
      expect((await m.auth.getTokens()).refreshToken).toEqual({ value: 'member-refresh', role: 'member' });
    },
  );

  it.each([429, 408, 403])(
    'with %s is sent once, fails the call and keeps the member signed in',
    async (status) => {
      const m = member(status);
      const ended: string[] = [];
      m.auth.on('sessionExpired', () => ended.push('expired'));
      await expect(m.send()).rejects.toMatchObject({ message: 'something went wrong', status });
      expect(m.grants).toEqual(['refresh_token']);
      expect(ended).toEqual([]);
      expect(await m.auth.loggedIn()).toBe(true);
    },
  );

  it.each([400, 401, 403, 404, 410])(
    'of a visitor refused with %s goes on as a new visitor (the old refresh token is not tried again)',
    async (status) => {
      // A visitor kept on a refresh token the server refuses would fail every call from then on.
      const v = visitor(status);
      await v.send();
      await v.send();
      expect(v.grants).toEqual(['refresh_token', 'anonymous']);
      expect(v.sent).toEqual(['new-visitor', 'new-visitor']);
      expect((await v.auth.getTokens()).refreshToken).toEqual({
        value: 'new-visitor-refresh',
        role: 'visitor',
      });
    },
  );

  it.each([408, 429])('of a visitor answered %s fails the call and keeps the visitor', async (status) => {
    const v = visitor(status);
    await expect(v.send()).rejects.toMatchObject({ status });
    expect(v.grants).toEqual(['refresh_token']);
    expect((await v.auth.getTokens()).refreshToken).toEqual({ value: 'visitor-refresh', role: 'visitor' });
  });

  it.each([400, 401])(
    'with a refusal (%s) ends the member session and goes on as a new visitor',
    async (status) => {
      const m = member(status);
      const ended: string[] = [];
      m.auth.on('sessionExpired', () => ended.push('expired'));
      await expect(m.send()).rejects.toMatchObject({ message: 'something went wrong' });
      // The anonymous grant is refused too here, so the call fails; the member session is gone.
      expect(m.grants).toEqual(['refresh_token', 'anonymous']);
      expect(ended).toEqual(['expired']);
      expect(await m.auth.loggedIn()).toBe(false);
    },
  );
});

describe('a token request', () => {
  /** A client whose token endpoint fails on the network `failures` times, then answers. */
  function flakyTokens(retry: RetryOptions, failures: number) {
    const counter = { calls: 0 };
    const client = createClient({
      baseUrl: 'http://h',
      retry,
      auth: OAuthStrategy({ clientId: 'c' }),
      fetch: async (input) => {
        if (!String(input).endsWith('/oauth2/token')) return Response.json({ ok: true });
        if (++counter.calls <= failures) throw new TypeError('fetch failed');
        return Response.json({ access_token: 'a', refresh_token: 'r', expires_in: 3600 });
      },
    });
    return { counter, send: () => call(client, { method: 'GET', path: '/things/v1/x' }, []) };
  }

  it('that fails on the network twice, then succeeds, is sent three times and works', async () => {
    const t = flakyTokens({ baseDelayMs: 1 }, 2);
    await expect(t.send()).resolves.toEqual({ ok: true });
    expect(t.counter.calls).toBe(3);
  });

  it('is tried once when the client turns retries off', async () => {
    const t = flakyTokens({ attempts: 1 }, 2);
    await expect(t.send()).rejects.toMatchObject({ code: 'NETWORK_ERROR' });
    expect(t.counter.calls).toBe(1);
  });
});

describe('tokens stored while a renewal is in flight', () => {
  /** An expired visitor or member, whose token endpoint answers only when `release` is called. */
  function held(role: 'visitor' | 'member', answer: number) {
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const grants: string[] = [];
    const auth = OAuthStrategy({
      clientId: 'c',
      tokens: {
        accessToken: { value: 'old-access', expiresAt: 1 },
        refreshToken: { value: 'old-refresh', role },
      },
    });
    const client = createClient({
      baseUrl: 'http://h',
      auth,
      fetch: async (input, init) => {
        if (!String(input).endsWith('/oauth2/token'))
          return Response.json({ sentWith: new Headers(init?.headers).get('authorization') });
        grants.push(JSON.parse(String(init?.body)).grantType);
        await gate;
        return answer === 200
          ? Response.json({
              access_token: 'renewed-access',
              refresh_token: 'renewed-refresh',
              expires_in: 3600,
            })
          : Response.json({ message: 'no' }, { status: answer });
      },
    });
    const send = () => call<{ sentWith: string }>(client, { method: 'GET', path: '/things/v1/x' }, []);
    return { auth, grants, release, send };
  }
  const login = {
    accessToken: { value: 'member-access', expiresAt: Math.floor(Date.now() / 1000) + 3600 },
    refreshToken: { value: 'member-refresh', role: 'member' as const },
  };

  it("win over the renewal's answer: a login during a visitor's refresh is kept", async () => {
    const v = held('visitor', 200);
    const pending = v.send();
    await vi.waitFor(() => expect(v.grants).toEqual(['refresh_token']));
    await v.auth.setTokens(login);
    v.release();
    // The call goes out with the member's token, and the member stays signed in.
    expect(await pending).toEqual({ sentWith: 'member-access' });
    expect(await v.auth.getTokens()).toEqual(login);
    expect(await v.auth.loggedIn()).toBe(true);
  });

  it("win over a refusal: a new login during a member's refused refresh is not logged out", async () => {
    const m = held('member', 400);
    const ended: string[] = [];
    m.auth.on('sessionExpired', () => ended.push('expired'));
    const pending = m.send();
    await vi.waitFor(() => expect(m.grants).toEqual(['refresh_token']));
    await m.auth.setTokens(login);
    m.release();
    expect(await pending).toEqual({ sentWith: 'member-access' });
    expect(ended).toEqual([]);
    expect(await m.auth.getTokens()).toEqual(login);
  });

  it('renew again from a logout stored meanwhile, as a new visitor', async () => {
    const m = held('member', 200);
    const pending = m.send();
    await vi.waitFor(() => expect(m.grants).toEqual(['refresh_token']));
    await m.auth.setTokens(emptyTokens());
    m.release();
    // The member's renewed tokens are not stored over the logout: a visitor's are.
    await pending;
    expect(m.grants).toEqual(['refresh_token', 'anonymous']);
    expect(await m.auth.loggedIn()).toBe(false);
    expect((await m.auth.getTokens()).refreshToken.role).toBe('visitor');
  });
});

describe('401s that arrive after a renewal', () => {
  it('replay with the renewed token instead of renewing again', async () => {
    const refreshes: string[] = [];
    let access = 'AT1';
    const auth = OAuthStrategy({
      clientId: 'c',
      tokens: {
        accessToken: { value: 'AT1', expiresAt: Math.floor(Date.now() / 1000) + 3600 },
        refreshToken: { value: 'RT1', role: 'member' },
      },
    });
    const client = createClient({
      baseUrl: 'http://h',
      auth,
      fetch: async (input, init) => {
        if (String(input).endsWith('/oauth2/token')) {
          const rt = JSON.parse(String(init?.body)).refreshToken;
          refreshes.push(rt);
          access = `AT${refreshes.length + 1}`;
          return Response.json({
            access_token: access,
            refresh_token: `RT${refreshes.length + 1}`,
            expires_in: 3600,
          });
        }
        const sent = new Headers(init?.headers).get('authorization');
        // The old token is refused, each refusal arriving a little later than the last.
        if (sent === 'AT1') {
          const delay = Number(new URL(String(input)).searchParams.get('id')) * 30;
          await new Promise((r) => setTimeout(r, delay));
          return Response.json({ message: 'expired' }, { status: 401 });
        }
        return Response.json({ ok: sent });
      },
    });
    const get = (id: number) => call(client, { method: 'GET', path: '/things/v1/x', args: ['id'] }, [id]);
    const answers = await Promise.all([get(1), get(2), get(3)]);
    expect(answers).toEqual([{ ok: 'AT2' }, { ok: 'AT2' }, { ok: 'AT2' }]);
    expect(refreshes).toEqual(['RT1']);
  });
});

describe('stored tokens of another shape', () => {
  it('count as none: the client gets visitor tokens instead of failing every call', async () => {
    const auth = OAuthStrategy({
      clientId: 'c',
      storage: { getTokens: () => ({ token: 'from an older version' }) as never, setTokens: () => {} },
    });
    const { grants, send } = tokenClient(auth);
    expect(await send()).toEqual({ ok: true });
    expect(grants).toEqual(['anonymous']);
    expect(await auth.loggedIn()).toBe(false);
  });

  it.each([
    ['an access token that is no string', { value: 12_345, expiresAt: 4e9 }, { value: 'r', role: 'visitor' }],
    ['a refresh token that is no string', { value: 'a', expiresAt: 4e9 }, { value: null, role: 'member' }],
  ])(
    'count as none with %s: the calls after go through, not only the first',
    async (_, accessToken, refreshToken) => {
      let stored: unknown = { accessToken, refreshToken };
      const auth = OAuthStrategy({
        clientId: 'c',
        storage: {
          getTokens: () => stored as Tokens,
          setTokens: (t) => {
            stored = t;
          },
        },
      });
      const grants: string[] = [];
      const client = createClient({
        baseUrl: 'http://h',
        auth,
        fetch: async (input, init) => {
          if (String(input).endsWith('/oauth2/token')) {
            grants.push(JSON.parse(String(init?.body)).grantType);
            return Response.json({ access_token: 'visitor-access', refresh_token: 'vr', expires_in: 3600 });
          }
          // The platform refuses any token but the one it gave.
          const ok = new Headers(init?.headers).get('authorization') === 'visitor-access';
          return ok ? Response.json({ ok: true }) : Response.json({ message: 'no' }, { status: 401 });
        },
      });
      for (let i = 0; i < 3; i++)
        expect(await call(client, { method: 'GET', path: '/things/v1/x' }, [])).toEqual({ ok: true });
      expect(grants).toEqual(['anonymous']);
    },
  );
});

describe('an access token that lives no longer than the leeway', () => {
  it('is used for the first half of its life, not renewed before every call', async () => {
    const auth = OAuthStrategy({ clientId: 'c' });
    const { grants, send } = tokenClient(auth, () =>
      Response.json({ access_token: 'short', refresh_token: 'vr', expires_in: 20 }),
    );
    for (let i = 0; i < 5; i++) await send();
    expect(grants).toEqual(['anonymous']);
    // Near its end (within half its life) it is renewed before the call.
    const t = await auth.getTokens();
    await auth.setTokens({
      ...t,
      accessToken: { ...t.accessToken, expiresAt: Math.floor(Date.now() / 1000) + 5 },
    });
    await send();
    expect(grants).toEqual(['anonymous', 'refresh_token']);
  });
});

describe('tokens to start with and a storage, given together', () => {
  it('do not type-check: the storage holds the tokens to start with', () => {
    const tokens: Tokens = {
      accessToken: { value: 'a', expiresAt: 4e9 },
      refreshToken: { value: 'r', role: TokenRole.MEMBER },
    };
    // @ts-expect-error: `tokens` would be dropped silently, the storage's being the ones used.
    const both = () => OAuthStrategy({ clientId: 'c', tokens, storage: memoryStorage() });
    expect(both).toBeTypeOf('function');
    // Each alone is fine.
    expect(OAuthStrategy({ clientId: 'c', tokens }).clientId).toBe('c');
    expect(OAuthStrategy({ clientId: 'c', storage: memoryStorage(tokens) }).clientId).toBe('c');
  });
});

/** A strategy whose access token has expired, with the refresh token `RT1` of `role`. */
const expired = (role: 'visitor' | 'member') =>
  OAuthStrategy({
    clientId: 'c',
    tokens: { accessToken: { value: 'old', expiresAt: 1 }, refreshToken: { value: 'RT1', role } },
  });

describe('the auth epoch', () => {
  it('moves with another session, not with a renewal of the same one', async () => {
    const auth = expired('member');
    createClient({
      baseUrl: 'http://h',
      auth,
      fetch: async () => Response.json({ access_token: 'new', refresh_token: 'RT2', expires_in: 3600 }),
    });
    const start = auth.epoch!;
    await auth.renewToken();
    expect(auth.epoch).toBe(start);
    await auth.setTokens(emptyTokens());
    expect(auth.epoch).toBe(start + 1);
  });
});

describe("the strategy's own calls", () => {
  it('report their failures to the attached client’s onError once, then throw them (spec 7)', async () => {
    const onError = vi.fn();
    const auth = expired('visitor');
    createClient({
      baseUrl: 'http://h',
      auth,
      onError,
      retry: { attempts: 1 },
      fetch: async () => Response.json({ message: 'down' }, { status: 503 }),
    });
    const renewal = await auth.renewToken().catch((e) => e);
    expect(renewal.message).toBe('something went wrong');
    const visitor = await auth.generateVisitorTokens().catch((e) => e);
    expect(visitor.message).toBe('something went wrong');
    expect(onError.mock.calls).toEqual([
      [renewal, { method: 'POST', path: '/oauth2/token' }],
      [visitor, { method: 'POST', path: '/oauth2/token' }],
    ]);
    // A call's own renewal is reported once, by the call, with the call's method and path.
    onError.mockClear();
    const client = createClient({
      baseUrl: 'http://h',
      auth,
      onError,
      retry: { attempts: 1 },
      fetch: async () => new Response('', { status: 503 }),
    });
    await call(client, { method: 'GET', path: '/things/v1/x' }, []).catch(() => {});
    expect(onError.mock.calls.map((c) => c[1])).toEqual([{ method: 'GET', path: '/things/v1/x' }]);
  });
});

describe('a member whose session cannot be renewed', () => {
  it('for want of a refresh token (an answer without one) is logged out visibly, as a refused refresh is', async () => {
    const auth = OAuthStrategy({
      clientId: 'c',
      tokens: {
        accessToken: { value: 'member-access', expiresAt: 1 },
        refreshToken: { value: '', role: 'member' },
      },
    });
    const ended: string[] = [];
    auth.on('sessionExpired', () => ended.push('expired'));
    const { grants, send } = tokenClient(auth);
    await send();
    expect(grants).toEqual(['anonymous']);
    expect(ended).toEqual(['expired']);
    expect(await auth.loggedIn()).toBe(false);
  });
});

describe('Web Locks across tabs', () => {
  it('are taken for a storage given (which tabs may share), not for the default memory storage', async () => {
    const names: string[] = [];
    const locks = {
      request: (name: string, ...rest: unknown[]) => {
        names.push(name);
        const cb = rest[rest.length - 1] as (lock: object) => unknown;
        return Promise.resolve(cb({ name }));
      },
    };
    vi.stubGlobal('navigator', { locks });
    try {
      const fetch = async () => Response.json({ access_token: 'v', refresh_token: 'r', expires_in: 3600 });
      const own = OAuthStrategy({ clientId: 'c' });
      createClient({ baseUrl: 'http://h', auth: own, fetch });
      await own.renewToken();
      // Memory is this tab's alone: no other tab's renewal can show in it, so none is waited for.
      expect(names).toEqual([]);
      const shared = OAuthStrategy({ clientId: 'c', storage: memoryStorage() });
      createClient({ baseUrl: 'http://h', auth: shared, fetch });
      await shared.renewToken();
      expect(names).toEqual(['shopkit:c:tokens']);
    } finally {
      vi.unstubAllGlobals();
    }
  });
});

describe('cookie storage over a jar that reads only the request’s own cookies', () => {
  it('renews from what it set, not the spent cookie: a refused member refresh ends in one visitor grant, not a loop', async () => {
    const member: Tokens = {
      accessToken: { value: 'member-access', expiresAt: 1 },
      refreshToken: { value: 'RT1', role: 'member' },
    };
    // Express's `req.cookies` with `res.cookie`: what the request came with, whatever was set.
    const sent = encodeURIComponent(JSON.stringify(member));
    const set: string[] = [];
    const jar = { get: () => sent, set: (_: string, value: string) => void set.push(value) };
    const auth = OAuthStrategy({ clientId: 'c', storage: cookieStorage(jar, 'c') });
    const { grants, send } = tokenClient(
      auth,
      (grant) => {
        if (grants.length > 10) throw new Error('a loop of token requests');
        return grant === 'refresh_token'
          ? Response.json({ message: 'refused', details: {} }, { status: 400 })
          : Response.json({ access_token: 'visitor-access', refresh_token: 'vr', expires_in: 3600 });
      },
      { attempts: 1 },
    );
    await send();
    expect(grants).toEqual(['refresh_token', 'anonymous']);
    expect(set.map((v) => (v ? JSON.parse(decodeURIComponent(v)).refreshToken.role : 'deleted'))).toEqual([
      'deleted',
      'visitor',
    ]);
    expect(await auth.loggedIn()).toBe(false);
  });

  it('on a first visit, gives every call of the request the one visitor it set, not a new one each', async () => {
    // No cookie came with the request, and the jar never answers what was set.
    const set: string[] = [];
    const jar = { get: () => undefined, set: (_: string, value: string) => void set.push(value) };
    const auth = OAuthStrategy({ clientId: 'c', storage: cookieStorage(jar, 'c') });
    const { grants, send } = tokenClient(auth);
    await send();
    await send();
    await send();
    expect(grants).toEqual(['anonymous']);
    expect((await auth.getTokens()).refreshToken.value).toBe('vr');
    expect(set).toHaveLength(1);
  });

  it('answers what the storage holds again once it does: tokens it dropped later are not brought back', async () => {
    let stored: Tokens | null = null;
    let readable = false;
    const auth = OAuthStrategy({
      clientId: 'c',
      storage: {
        getTokens: () => (readable ? stored : null),
        setTokens: (t) => {
          stored = t;
        },
      },
    });
    const { grants, send } = tokenClient(auth);
    await send();
    expect((await auth.getTokens()).accessToken.value).toBe('visitor-access');
    // The storage answers again (a jar that now reads the cookie), then loses it (another tab's logout).
    readable = true;
    expect((await auth.getTokens()).accessToken.value).toBe('visitor-access');
    stored = null;
    expect((await auth.getTokens()).accessToken.value).toBe('');
    await send();
    expect(grants).toEqual(['anonymous', 'anonymous']);
  });

  it('made once over per-request jars, gives a request no other request’s tokens', async () => {
    let cookie: string | undefined;
    const jar = { get: () => cookie, set: () => {} };
    const storage = cookieStorage(jar, 'c');
    const a: Tokens = {
      accessToken: { value: 'a', expiresAt: 9e9 },
      refreshToken: { value: 'ra', role: 'visitor' },
    };
    const b: Tokens = {
      accessToken: { value: 'b', expiresAt: 9e9 },
      refreshToken: { value: 'rb', role: 'visitor' },
    };
    // A request without a cookie stores a new visitor's tokens; the next one without a cookie is
    // another visitor.
    await storage.setTokens(a);
    expect(await storage.getTokens()).toBeNull();
    // A request with b's cookie reads b's tokens, though a's were set over another cookie.
    cookie = encodeURIComponent(JSON.stringify(a));
    await storage.setTokens(b);
    cookie = encodeURIComponent(JSON.stringify(b));
    expect(await storage.getTokens()).toEqual(b);
  });
});

describe('tokens stored while a renewal compares, in an async storage', () => {
  it('win: a logout landing during the read of its compare-and-set is not undone', async () => {
    let stored: Tokens = {
      accessToken: { value: 'old-access', expiresAt: 1 },
      refreshToken: { value: 'member-refresh', role: 'member' },
    };
    /** Runs once, while a read of the storage is in flight (it answers what it read first). */
    let duringRead: (() => Promise<void>) | undefined;
    const auth = OAuthStrategy({
      clientId: 'c',
      storage: {
        async getTokens() {
          const snapshot = stored;
          const f = duringRead;
          duringRead = undefined;
          await f?.();
          return snapshot;
        },
        async setTokens(t) {
          stored = t;
        },
      },
    });
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const { grants, send } = tokenClient(auth, async () => {
      await gate;
      return Response.json({ access_token: `${grants.length}-access`, refresh_token: 'r', expires_in: 3600 });
    });
    const pending = send();
    await vi.waitFor(() => expect(grants).toEqual(['refresh_token']));
    // The logout: stored while the renewal reads the storage to compare before it writes.
    duringRead = () => auth.setTokens(emptyTokens());
    release();
    await pending;
    expect(stored.refreshToken.role).not.toBe('member');
    expect(await auth.loggedIn()).toBe(false);
    expect(grants).toEqual(['refresh_token', 'anonymous']);
  });
});
