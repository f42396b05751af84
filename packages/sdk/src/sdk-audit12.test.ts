/** The SDK's twelfth audit (cookie storage, identity, webhooks): each test failed before its fix, unless marked a guard. */
import { describe, expect, it } from 'vitest';
import { cookieStorage, tokenCookieName } from './auth/cookie.ts';
import { OAuthStrategy } from './auth/oauth.ts';
import { nowSeconds, TokenRole, type Tokens } from './auth/tokens.ts';
import { createClient } from './client.ts';
import { call } from './http/op.ts';

/**
 * A browser's cookie store as a server sees it: each request sends the cookies kept, and a
 * `Set-Cookie` whose name, value and attributes pass 4096 bytes is dropped without a word, as
 * browsers do (RFC 6265 §6.1); `Max-Age=0` deletes. `request()` is one request's jar, which reads
 * only the cookies the request came with (Express's `req.cookies`).
 */
function browser() {
  const kept = new Map<string, string>();
  const dropped: string[] = [];
  return {
    kept,
    dropped,
    request() {
      const sent = new Map(kept);
      return {
        get: (name: string) => sent.get(name),
        set(name: string, value: string, attributes: string) {
          if (`${name}=${value}; ${attributes}`.length > 4096) dropped.push(name);
          else if (/Max-Age=0\b/.test(attributes)) kept.delete(name);
          else kept.set(name, value);
        },
      };
    },
  };
}

/** One request's client over `jar`; the token endpoint renews with a long (platform-sized) access token. */
function request(jar: ReturnType<ReturnType<typeof browser>['request']>, access = 'A'.repeat(3000)) {
  const grants: string[] = [];
  const auth = OAuthStrategy({ clientId: 'c', storage: cookieStorage(jar, 'c') });
  const client = createClient({
    baseUrl: 'http://h',
    auth,
    fetch: async (input, init) => {
      if (!String(input).endsWith('/oauth2/token')) return Response.json({});
      grants.push(JSON.parse(String(init?.body)).grantType);
      return Response.json({ access_token: access, expires_in: 14400 });
    },
  });
  return { auth, grants, send: () => call(client, { method: 'GET', path: '/things/v1/x' }, []) };
}

const member = (access: string, refresh: string): Tokens => ({
  accessToken: { value: access, expiresAt: nowSeconds() + 14400 },
  refreshToken: { value: refresh, role: TokenRole.MEMBER },
});

describe('cookie storage and the browser’s 4096-byte limit', () => {
  it('keeps a member signed in whose tokens pass 4096 bytes together: the cookie keeps the refresh token', async () => {
    const b = browser();
    cookieStorage(b.request(), 'c').setTokens({
      accessToken: { value: 'visitor', expiresAt: nowSeconds() + 14400 },
      refreshToken: { value: 'vr', role: TokenRole.VISITOR },
    });
    // A login in the next request (the callback): platform JWS tokens of 3000 and 1500 characters.
    const first = request(b.request());
    await first.auth.setTokens(member('A'.repeat(3000), 'R'.repeat(1500)));
    await first.send();
    expect(first.grants).toEqual([]);
    expect(b.dropped).toEqual([]);
    // The next request is still the member's: it renews the access token with the refresh token.
    const next = request(b.request());
    expect(await next.auth.loggedIn()).toBe(true);
    await next.send();
    await next.send();
    expect(next.grants).toEqual(['refresh_token']);
    expect((await next.auth.getTokens()).refreshToken.value).toBe('R'.repeat(1500));
    expect(b.dropped).toEqual([]);
    // And the one after.
    const third = request(b.request());
    expect(await third.auth.loggedIn()).toBe(true);
  });

  it('fails the set, naming no token, when the refresh token alone passes the limit; the cookie before stays', async () => {
    const b = browser();
    const jar = b.request();
    const storage = cookieStorage(jar, 'c');
    storage.setTokens(member('a', 'r'));
    const secret = 'S'.repeat(4100);
    let error: unknown;
    try {
      storage.setTokens(member('a2', secret));
    } catch (e) {
      error = e;
    }
    expect(error).toMatchObject({ name: 'ShopkitError', code: 'COOKIE_TOO_LARGE' });
    expect(JSON.stringify(error) + String(error) + (error as Error).stack).not.toContain('SSSS');
    expect(b.dropped).toEqual([]);
    expect(JSON.parse(decodeURIComponent(b.kept.get(tokenCookieName('c'))!)).refreshToken.value).toBe('r');
  });

  it('keeps the member too when the jar encodes the value again (Next.js): measured as sent', async () => {
    // A browser behind a jar that sends `encodeURIComponent(value)` (each `%` of the SDK's value
    // becomes `%25`), with tokens whose cookie fits only as the SDK's own value.
    const b = browser();
    const jar = b.request();
    const next = {
      get: (name: string) => (jar.get(name) === undefined ? undefined : decodeURIComponent(jar.get(name)!)),
      set: (name: string, value: string, attributes: string) =>
        jar.set(name, encodeURIComponent(value), attributes),
    };
    const attributes = 'Path=/; Secure; HttpOnly; SameSite=Lax; Max-Age=2592000';
    const tokens = (n: number) => member('A'.repeat(3000), 'R'.repeat(n));
    const line = (n: number) =>
      `${tokenCookieName('c')}=${encodeURIComponent(JSON.stringify(tokens(n)))}; ${attributes}`.length;
    const n = 4096 - line(0) - 10;
    expect(line(n)).toBeLessThan(4096);
    cookieStorage(next, 'c').setTokens(tokens(n));
    expect(b.dropped).toEqual([]);
    const kept = JSON.parse(decodeURIComponent(decodeURIComponent(b.kept.get(tokenCookieName('c'))!)));
    expect(kept.refreshToken).toEqual({ value: 'R'.repeat(n), role: 'member' });
  });

  it('guard: a jar that reads back its sets answers the tokens set, not the cookie without the access token', async () => {
    const cookies = new Map<string, string>();
    const jar = {
      get: (name: string) => cookies.get(name),
      set: (name: string, value: string) => void cookies.set(name, value),
    };
    const r = request(jar);
    await r.auth.setTokens(member('A'.repeat(3000), 'R'.repeat(1500)));
    await r.send();
    await r.send();
    expect(r.grants).toEqual([]);
  });
});
