import { describe, expect, it } from 'vitest';
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
