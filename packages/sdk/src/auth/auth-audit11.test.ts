/** The OAuth strategy and the login flows, found by the eleventh audit: each test failed before its fix. */
import { describe, expect, it, vi } from 'vitest';
import { standInBrowser } from '../../test/stand-in-browser.ts';
import { createClient } from '../client.ts';
import { call } from '../http/op.ts';
import * as identity from '../modules/identity.ts';
import { OAuthStrategy } from './oauth.ts';
import { emptyTokens, nowSeconds, TokenRole, type Tokens, webStorage } from './tokens.ts';

const REDIRECT = '/_api/redirects-api/v1/redirect-session';

const memberTokens = (access = 'member-access', expiresAt = nowSeconds() + 3600): Tokens => ({
  accessToken: { value: access, expiresAt },
  refreshToken: { value: 'member-refresh', role: TokenRole.MEMBER },
});

/**
 * A member client whose token endpoint refuses every refresh (400 `invalid_grant`) and grants new
 * visitors; the redirect-session call answers `redirect` (a logout URL unless told). `seen` lists
 * each request: the grant type of a token request, or the path and Authorization of a call.
 */
function refusedMember(
  tokens: Tokens,
  redirect = () => Response.json({ redirectSession: { fullUrl: 'https://h/out' } }),
) {
  const seen: string[] = [];
  const client = createClient({
    baseUrl: 'http://h',
    auth: OAuthStrategy({ clientId: 'c', tokens }),
    fetch: async (input, init) => {
      const path = new URL(String(input)).pathname;
      if (path !== '/oauth2/token') {
        seen.push(`${path} ${new Headers(init?.headers).get('authorization')}`);
        return path === REDIRECT ? redirect() : Response.json({});
      }
      const { grantType } = JSON.parse(String(init?.body));
      seen.push(grantType);
      if (grantType === 'anonymous')
        return Response.json({ access_token: 'visitor-access', refresh_token: 'vr', expires_in: 3600 });
      return Response.json({ error: 'invalid_grant' }, { status: 400 });
    },
  });
  return { client, seen };
}

describe('an explicit logout of a member whose refresh is refused', () => {
  it('fetches no visitor token (the access token expired)', async () => {
    const { client, seen } = refusedMember(memberTokens('member-access', 1));
    const ended: string[] = [];
    client.auth.on('sessionExpired', () => ended.push('expired'));
    const out = await identity.logout(client, 'https://shop.test/');
    // The refresh, refused: the session is over, and no logout session is made for a visitor.
    expect(seen).toEqual(['refresh_token']);
    expect(out.logoutUrl).toBeUndefined();
    expect((await client.auth.getTokens()).refreshToken.role).toBe(TokenRole.NONE);
    // A logout the member asked for is no session that expired on them.
    expect(ended).toEqual([]);
  });

  it('fetches no visitor token (the logout call refused with 401)', async () => {
    let first = true;
    const { client, seen } = refusedMember(memberTokens(), () => {
      if (!first) return Response.json({ redirectSession: { fullUrl: 'https://h/out' } });
      first = false;
      return Response.json({ message: 'expired' }, { status: 401 });
    });
    const out = await identity.logout(client);
    expect(seen).toEqual([`${REDIRECT} member-access`, 'refresh_token']);
    expect(out.logoutUrl).toBeUndefined();
    expect((await client.auth.getTokens()).refreshToken.role).toBe(TokenRole.NONE);
  });

  it('while a call goes on as a new visitor once the logout is over', async () => {
    const { client, seen } = refusedMember(memberTokens('member-access', 1));
    await identity.logout(client);
    await call(client, { method: 'GET', path: '/things/v1/x' }, []);
    expect(seen).toEqual(['refresh_token', 'anonymous', '/things/v1/x visitor-access']);
  });
});

describe('a client made with withOptions', () => {
  /** A fetch that answers tokens and calls, noting each URL's path under `name`. */
  const fetchOf = (name: string, log: string[]) =>
    (async (input: RequestInfo | URL) => {
      const path = new URL(String(input)).pathname;
      log.push(`${name} ${path}`);
      return path === '/oauth2/token'
        ? Response.json({ access_token: 'a', refresh_token: 'r', expires_in: 3600 })
        : Response.json({});
    }) as typeof fetch;

  it('sends the token requests of its calls through its own fetch', async () => {
    const log: string[] = [];
    const first = createClient({
      baseUrl: 'http://h',
      auth: OAuthStrategy({ clientId: 'c' }),
      fetch: fetchOf('first', log),
    });
    const derived = first.withOptions({ fetch: fetchOf('derived', log) });
    await call(derived, { method: 'GET', path: '/things/v1/x' }, []);
    expect(log).toEqual(['derived /oauth2/token', 'derived /things/v1/x']);
  });

  it('sends the renewal after a 401 through its own fetch', async () => {
    const log: string[] = [];
    let refused = false;
    const first = createClient({
      baseUrl: 'http://h',
      auth: OAuthStrategy({ clientId: 'c', tokens: memberTokens() }),
      fetch: fetchOf('first', log),
    });
    const derived = first.withOptions({
      fetch: (async (input: RequestInfo | URL, init?: RequestInit) => {
        if (!refused && !String(input).endsWith('/oauth2/token')) {
          refused = true;
          log.push('derived 401');
          return Response.json({}, { status: 401 });
        }
        return fetchOf('derived', log)(input, init);
      }) as typeof fetch,
    });
    await call(derived, { method: 'GET', path: '/things/v1/x' }, []);
    expect(log).toEqual(['derived 401', 'derived /oauth2/token', 'derived /things/v1/x']);
  });

  it("exchanges a login's code through its own fetch", async () => {
    const log: string[] = [];
    const first = createClient({
      baseUrl: 'http://h',
      auth: OAuthStrategy({ clientId: 'c' }),
      fetch: fetchOf('first', log),
      modules: { identity },
    });
    const derived = first.withOptions({ fetch: fetchOf('derived', log) });
    const data = await identity.generateOAuthData(derived, 'https://shop.test/callback');
    await derived.identity.getMemberTokens('code', data.state, data);
    expect(log).toEqual(['derived /oauth2/token']);
  });

  it("gets a trusted server's member tokens through its own fetch", async () => {
    const log: string[] = [];
    const first = createClient({
      baseUrl: 'http://h',
      auth: OAuthStrategy({ clientId: 'c' }),
      fetch: fetchOf('first', log),
      modules: { identity },
    });
    const derived = first.withOptions({ fetch: fetchOf('derived', log) });
    await derived.identity.getMemberTokensForExternalLogin('member-id', 'api-key');
    expect(log).toEqual(['derived /oauth2/token', 'derived /oauth2/token']);
  });
});

/** A Web Storage area over a Map, as two tabs share localStorage. */
function area(): Storage {
  const m = new Map<string, string>();
  return {
    get length() {
      return m.size;
    },
    key: (i) => [...m.keys()][i] ?? null,
    getItem: (k) => m.get(k) ?? null,
    setItem: (k, v) => void m.set(k, String(v)),
    removeItem: (k) => void m.delete(k),
    clear: () => m.clear(),
  };
}

describe("another tab's login or logout in a shared localStorage", () => {
  /**
   * This tab's client and another tab's strategy on one area holding `start`; this tab's calls
   * answer with the Authorization they carried, once `release` is called.
   */
  function tabs(start: Tokens) {
    const shared = area();
    webStorage(shared, 'c').setTokens(start);
    const otherTab = OAuthStrategy({ clientId: 'c', storage: webStorage(shared, 'c') });
    const sent: (string | null)[] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const client = createClient({
      baseUrl: 'http://h',
      auth: OAuthStrategy({ clientId: 'c', storage: webStorage(shared, 'c') }),
      fetch: async (input, init) => {
        if (String(input).endsWith('/oauth2/token'))
          return Response.json({ access_token: 'visitor-2', refresh_token: 'vr2', expires_in: 3600 });
        sent.push(new Headers(init?.headers).get('authorization'));
        await gate;
        return Response.json({ who: new Headers(init?.headers).get('authorization') });
      },
    });
    const read = () => call<{ who: string }>(client, { method: 'GET', path: '/things/v1/x' }, []);
    return { otherTab, sent, release, read };
  }
  const visitor: Tokens = {
    accessToken: { value: 'visitor-access', expiresAt: nowSeconds() + 3600 },
    refreshToken: { value: 'visitor-refresh', role: TokenRole.VISITOR },
  };

  it('login: a read made after it does not join one sent with the visitor token', async () => {
    const t = tabs(visitor);
    const before = t.read();
    await vi.waitFor(() => expect(t.sent).toEqual(['visitor-access']));
    await t.otherTab.setTokens(memberTokens());
    const after = t.read();
    t.release();
    expect((await before).who).toBe('visitor-access');
    expect((await after).who).toBe('member-access');
  });

  it("logout: a read made after it does not join one sent with the member's token", async () => {
    const t = tabs(memberTokens());
    const before = t.read();
    await vi.waitFor(() => expect(t.sent).toEqual(['member-access']));
    await t.otherTab.setTokens(emptyTokens());
    const after = t.read();
    t.release();
    expect((await before).who).toBe('member-access');
    expect((await after).who).toBe('visitor-2');
  });

  it("moves only for another session: not for this strategy's own login twice, nor another tab's renewal", async () => {
    const shared = area();
    webStorage(shared, 'c').setTokens(visitor);
    const here = OAuthStrategy({ clientId: 'c', storage: webStorage(shared, 'c') });
    const otherTab = OAuthStrategy({ clientId: 'c', storage: webStorage(shared, 'c') });
    const start = here.epoch!;
    expect(here.epoch).toBe(start);
    await here.setTokens(memberTokens());
    expect(here.epoch).toBe(start + 1);
    expect(here.epoch).toBe(start + 1);
    // The other tab renews the member's session (a rotated refresh token): the same session.
    await otherTab.setTokens({
      accessToken: { value: 'renewed-access', expiresAt: nowSeconds() + 3600 },
      refreshToken: { value: 'rotated-refresh', role: TokenRole.MEMBER },
    });
    expect(here.epoch).toBe(start + 1);
  });

  it('moves once for the first visitor tokens fetched into an empty one, as @shopkit/react counts', async () => {
    const auth = OAuthStrategy({ clientId: 'c', storage: webStorage(area(), 'c') });
    const client = createClient({
      baseUrl: 'http://h',
      auth,
      fetch: async () => Response.json({ access_token: 'a', refresh_token: 'r', expires_in: 3600 }),
    });
    const start = auth.epoch!;
    await call(client, { method: 'POST', path: '/things/v1/x' }, []);
    expect(auth.epoch).toBe(start + 1);
  });
});

describe('a redirect session answered with a URL that is no http(s) one', () => {
  // `URL.canParse` takes `javascript:…` and `data:…`: the silent login loaded it in its frame (script
  // of the page's own origin), and the redirect flows handed it to the application to send the
  // browser to.
  const HOSTILE = ['javascript:parent.stolen=1', 'data:text/html,<script>1</script>'];
  const answering = (fullUrl: string) =>
    createClient({
      baseUrl: 'http://h',
      auth: OAuthStrategy({ clientId: 'c', tokens: memberTokens() }),
      modules: { identity },
      fetch: async () => Response.json({ redirectSession: { id: 'r', fullUrl } }),
    });

  it.each(HOSTILE)('(%s): getAuthUrl fails with INVALID_RESPONSE', async (url) => {
    const client = answering(url);
    const data = await identity.generateOAuthData(client, 'https://shop.test/callback');
    await expect(client.identity.getAuthUrl(data)).rejects.toMatchObject({ code: 'INVALID_RESPONSE' });
  });

  it.each(HOSTILE)('(%s): logout gives no logout URL, and warns', async (url) => {
    const out = await answering(url).identity.logout('https://shop.test/');
    expect(out.logoutUrl).toBeUndefined();
    expect(out.warning).toMatchObject({ code: 'INVALID_RESPONSE' });
  });

  it.each(HOSTILE)('(%s) as the Location of ssoLogin and logoutOnServer: no redirectUrl', async (url) => {
    const client = createClient({
      baseUrl: 'http://h',
      auth: OAuthStrategy({ clientId: 'c', tokens: memberTokens() }),
      modules: { identity },
      fetch: async () => Response.json({ statusCode: 302, headers: [{ key: 'Location', value: url }] }),
    });
    expect((await client.identity.ssoLogin('site', 'idp')).redirectUrl).toBeUndefined();
    expect((await client.identity.logoutOnServer()).redirectUrl).toBeUndefined();
  });

  it.each(HOSTILE)('(%s): the silent login loads no frame with it', async (url) => {
    const loads: string[] = [];
    const restore = standInBrowser((u) => {
      loads.push(u);
      return undefined;
    });
    try {
      const err = await answering(url)
        .identity.getMemberTokensForDirectLogin('session', { timeoutMs: 20 })
        .catch((e: unknown) => e);
      expect(err).toMatchObject({ code: 'INVALID_RESPONSE' });
      expect(loads).toEqual([]);
    } finally {
      restore();
    }
  });
});

describe('a raw-HTTP answer whose headers are of another shape', () => {
  // `headers.find` of an answer without a list, or `key.toLowerCase()` of an entry without a key,
  // threw a bare TypeError out of ssoLogin and logoutOnServer, after the call had answered.
  it.each([
    { headers: 5 },
    { headers: [null] },
    { headers: [{ value: 'https://x.test/' }] },
    { headers: {} },
  ])('(%j): no redirectUrl, no TypeError', async (answer) => {
    const client = createClient({
      baseUrl: 'http://h',
      auth: OAuthStrategy({ clientId: 'c', tokens: memberTokens() }),
      modules: { identity },
      fetch: async () => Response.json({ statusCode: 302, ...answer }),
    });
    expect((await client.identity.ssoLogin('site', 'idp')).redirectUrl).toBeUndefined();
    expect((await client.identity.logoutOnServer()).redirectUrl).toBeUndefined();
  });
});

describe('a token answer whose refresh token is no string', () => {
  // Stored as it came, the tokens were read back as none (a refresh token must be a string), and
  // every call fetched a new visitor (a new cart each time).
  it.each([5, {}, true])('(%j) is kept as none: three calls, one grant', async (refreshToken) => {
    const grants: string[] = [];
    const client = createClient({
      baseUrl: 'http://h',
      auth: OAuthStrategy({ clientId: 'c' }),
      fetch: async (input, init) => {
        if (!String(input).endsWith('/oauth2/token')) return Response.json({});
        grants.push(JSON.parse(String(init?.body)).grantType);
        return Response.json({ access_token: 'a', refresh_token: refreshToken, expires_in: 3600 });
      },
    });
    for (let i = 0; i < 3; i++) await call(client, { method: 'POST', path: '/things/v1/x' }, []);
    expect(grants).toEqual(['anonymous']);
    expect((await client.auth.getTokens()).refreshToken).toEqual({ value: '', role: TokenRole.VISITOR });
  });
});

describe('generateVisitorTokens with a shared storage and Web Locks', () => {
  // Stored without the renewals' lock, as `setTokens` was before audit 9: another tab's renewal
  // compares and sets the shared storage in two steps, and the new visitor stored between them was
  // overwritten with the renewed tokens of the session it replaced.
  it("waits for another tab's renewal to end before it stores the new visitor", async () => {
    const held = new Set<string>();
    const waiting: (() => void)[] = [];
    const locks = {
      async request(name: string, ...rest: unknown[]) {
        const cb = rest[rest.length - 1] as (lock: object | null) => unknown;
        while (held.has(name)) await new Promise<void>((r) => waiting.push(r));
        held.add(name);
        try {
          return await cb({ name });
        } finally {
          held.delete(name);
          for (const w of waiting.splice(0)) w();
        }
      },
    };
    vi.stubGlobal('navigator', { locks });
    try {
      const shared = area();
      const auth = OAuthStrategy({ clientId: 'c', storage: webStorage(shared, 'c') });
      createClient({
        baseUrl: 'http://h',
        auth,
        fetch: async () =>
          Response.json({ access_token: 'new-visitor', refresh_token: 'nvr', expires_in: 3600 }),
      });
      let release!: () => void;
      const renewal = locks.request('shopkit:c:tokens', () => new Promise<void>((r) => (release = r)));
      const generated = auth.generateVisitorTokens();
      await new Promise((r) => setTimeout(r, 20));
      // The other tab still holds the lock: nothing stored yet.
      expect(shared.getItem('shopkit:c:tokens')).toBeNull();
      release();
      await renewal;
      await generated;
      expect(JSON.parse(shared.getItem('shopkit:c:tokens')!).accessToken.value).toBe('new-visitor');
    } finally {
      vi.unstubAllGlobals();
    }
  });
});
