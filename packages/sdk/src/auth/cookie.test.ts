import { describe, expect, it } from 'vitest';
import { cookieStorage, isCrossSiteWrite, tokenCookieName } from './cookie.ts';

describe('cookie storage', () => {
  it('sets SameSite=Strict when asked, Lax otherwise', () => {
    const attrs: string[] = [];
    const jar = { get: () => undefined, set: (_n: string, _v: string, a: string) => void attrs.push(a) };
    const tokens = {
      accessToken: { value: 'a', expiresAt: 1 },
      refreshToken: { value: 'r', role: 'member' as const },
    };
    cookieStorage(jar, 'c', { sameSite: 'Strict' }).setTokens(tokens);
    cookieStorage(jar, 'c').setTokens(tokens);
    expect(attrs[0]).toContain('SameSite=Strict');
    expect(attrs[0]).not.toContain('Lax');
    expect(attrs[1]).toContain('SameSite=Lax');
    expect(tokenCookieName('c')).toBe('__Host-shopkit-c');
  });
});

describe('isCrossSiteWrite', () => {
  const req = (method: string, headers: Record<string, string>, url = 'https://shop.example/api/cart') =>
    new Request(url, { method, headers });

  it('refuses writes another site sends, by Sec-Fetch-Site', () => {
    expect(isCrossSiteWrite(req('POST', { 'sec-fetch-site': 'cross-site' }))).toBe(true);
    expect(isCrossSiteWrite(req('DELETE', { 'sec-fetch-site': 'same-site' }))).toBe(true);
    expect(isCrossSiteWrite(req('POST', { 'sec-fetch-site': 'same-origin' }))).toBe(false);
    expect(isCrossSiteWrite(req('POST', { 'sec-fetch-site': 'none' }))).toBe(false);
  });

  it('without Sec-Fetch-Site, compares Origin with the request’s own origin', () => {
    expect(isCrossSiteWrite(req('POST', { origin: 'https://evil.example' }))).toBe(true);
    expect(isCrossSiteWrite(req('PATCH', { origin: 'https://shop.example' }))).toBe(false);
    // Neither header: no browser sent it (a forged request needs one).
    expect(isCrossSiteWrite(req('POST', {}))).toBe(false);
  });

  it('takes a path as the URL (Node’s req.url), the Host header naming the request’s own host', () => {
    const node = (headers: Record<string, string>) => ({
      method: 'POST',
      url: '/api/cart',
      headers: { get: (name: string) => headers[name] ?? null },
    });
    expect(isCrossSiteWrite(node({ host: 'shop.example', origin: 'https://shop.example' }))).toBe(false);
    expect(isCrossSiteWrite(node({ host: 'shop.example', origin: 'https://evil.example' }))).toBe(true);
    expect(isCrossSiteWrite(node({ host: 'shop.example', origin: 'null' }))).toBe(true);
    expect(isCrossSiteWrite(node({ origin: 'https://shop.example' }))).toBe(true);
    expect(isCrossSiteWrite(node({ host: 'shop.example' }))).toBe(false);
  });

  it('lets the allowed origins through (a proxy, a sister site), even marked same-site', () => {
    const behindProxy = req('POST', { origin: 'https://shop.example' }, 'http://127.0.0.1:3000/api/cart');
    expect(isCrossSiteWrite(behindProxy)).toBe(true);
    expect(isCrossSiteWrite(behindProxy, ['https://shop.example'])).toBe(false);
    const sister = req('POST', { origin: 'https://www.shop.example', 'sec-fetch-site': 'same-site' });
    expect(isCrossSiteWrite(sister, ['https://www.shop.example'])).toBe(false);
  });

  it('never refuses reads, whatever sends them', () => {
    for (const method of ['GET', 'HEAD', 'OPTIONS', 'get'])
      expect(
        isCrossSiteWrite({
          method,
          url: 'https://shop.example/',
          headers: new Headers({ 'sec-fetch-site': 'cross-site' }),
        }),
      ).toBe(false);
  });
});
