import { describe, expect, it } from 'vitest';
import { standInBrowser } from '../../test/stand-in-browser.ts';
import { createClient } from '../client.ts';
import { cookieStorage, tokenCookieName } from './cookie.ts';
import { OAuthStrategy } from './oauth.ts';
import { getMemberTokensForDirectLogin } from './silent.ts';

describe('outside a browser', () => {
  it('silent login fails with a clear error, before any request', async () => {
    let calls = 0;
    const client = createClient({
      auth: OAuthStrategy({ clientId: 'c' }),
      fetch: async () => {
        calls++;
        return new Response('{}');
      },
    });
    await expect(getMemberTokensForDirectLogin(client, 'session')).rejects.toMatchObject({
      message: 'getMemberTokensForDirectLogin needs a browser (window and document)',
      code: 'BROWSER_REQUIRED',
    });
    expect(calls).toBe(0);
  });
});

describe('in a browser: which frame messages count', () => {
  const AUTHORIZE = 'https://auth.shop.test/oauth2/authorize?redirect_session_id=rs-1';
  /**
   * A stand-in browser whose hidden frame, once loaded, posts `{state, code}` with the given origin
   * and source (the frame's own window unless `fromOther`). Returns the token requests made.
   */
  async function attempt(origin: string, fromOther = false) {
    let state = '';
    const grants: string[] = [];
    const restore = standInBrowser((_url, frame) => ({
      origin,
      source: fromOther ? {} : frame,
      data: { state, code: 'the-code' },
    }));
    const client = createClient({
      baseUrl: 'https://api.shop.test',
      auth: OAuthStrategy({ clientId: 'c', tokens: undefined }),
      fetch: async (input, init) => {
        const url = String(input);
        const body = JSON.parse(String(init?.body ?? '{}'));
        if (url.endsWith('/redirect-session')) {
          state = body.auth.authRequest.state;
          return new Response(JSON.stringify({ redirectSession: { id: 'rs-1', fullUrl: AUTHORIZE } }));
        }
        grants.push(body.grantType);
        return new Response(JSON.stringify({ access_token: 'a', refresh_token: 'r', expires_in: 3600 }));
      },
    });
    try {
      const tokens = await getMemberTokensForDirectLogin(client, 'session', { timeoutMs: 50 }).catch(
        (e: Error) => e.message,
      );
      return { tokens, codeExchanged: grants.includes('authorization_code') };
    } finally {
      restore();
    }
  }

  it("takes the code from the login frame's own window on the authorize origin", async () => {
    const r = await attempt('https://auth.shop.test');
    expect(r.codeExchanged).toBe(true);
    expect(r.tokens).toMatchObject({ refreshToken: { value: 'r', role: 'member' } });
  });

  it("ignores the frame's window posting from another origin (checklist 14)", async () => {
    expect(await attempt('https://evil.example')).toEqual({
      tokens: 'OAuth flow timed out',
      codeExchanged: false,
    });
  });

  it('ignores another window posting from the authorize origin', async () => {
    expect(await attempt('https://auth.shop.test', true)).toEqual({
      tokens: 'OAuth flow timed out',
      codeExchanged: false,
    });
  });
});

describe('cookie storage', () => {
  it('writes a __Host- cookie that is Secure, HttpOnly, SameSite and host-only; clears it on logout', () => {
    const jar = new Map<string, { value: string; attrs: string }>();
    const store = cookieStorage(
      { get: (n) => jar.get(n)?.value, set: (n, value, attrs) => jar.set(n, { value, attrs }) },
      'client-1',
    );
    const tokens = {
      accessToken: { value: 'a', expiresAt: 1 },
      refreshToken: { value: 'r', role: 'member' as const },
    };
    store.setTokens(tokens);
    const c = jar.get(tokenCookieName('client-1'))!;
    expect(tokenCookieName('client-1')).toBe('__Host-shopkit-client-1');
    expect(c.attrs).toContain('Secure');
    expect(c.attrs).toContain('HttpOnly');
    expect(c.attrs).toContain('SameSite=Lax');
    expect(c.attrs).toContain('Path=/');
    expect(c.attrs).not.toContain('Domain');
    expect(store.getTokens()).toEqual(tokens);
    store.setTokens({ accessToken: { value: '', expiresAt: 0 }, refreshToken: { value: '', role: 'none' } });
    expect(jar.get(tokenCookieName('client-1'))!.attrs).toContain('Max-Age=0');
    expect(store.getTokens()).toBeNull();
  });
});
