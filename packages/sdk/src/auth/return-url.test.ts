import { afterEach, describe, expect, it, vi } from 'vitest';
import { createClient } from '../client.ts';
import { ValidationError } from '../http/errors.ts';
import { generateOAuthData, logout } from '../modules/identity.ts';
import { createRedirectSession } from '../modules/redirects.ts';
import { OAuthStrategy } from './oauth.ts';
import { allowedReturnOrigins, returnUrlProblem } from './return-url.ts';
import { TokenRole } from './tokens.ts';

// Checklist 13's cases, and the other ways browsers read a string as another site or as script.
const EVIL = [
  '//evil.example',
  '//evil.example/account',
  'https:evil.example',
  'https:/evil.example',
  '/\\evil.example',
  '\\\\evil.example',
  'javascript:alert(1)',
  'JavaScript:alert(1)',
  ' javascript:alert(1)',
  'data:text/html,<script>alert(1)</script>',
  '/\t/evil.example',
  '/\n/evil.example',
  'https://shop.example@evil.example/',
  'https://evil.example\\@shop.example/',
  'ftp://shop.example/',
  '',
];

describe('return URLs (checklist 13: no open redirect)', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('refuses every form that leaves the site or runs script, as a post-login target', () => {
    for (const url of EVIL) expect(returnUrlProblem(url, ['https://shop.example']), url).toBeTruthy();
  });

  it('refuses the same forms as a callback URL', () => {
    for (const url of EVIL) expect(returnUrlProblem(url), url).toBeTruthy();
  });

  it('takes a path on this site, or a URL of an allowed origin, as a post-login target', () => {
    const allowed = ['https://shop.example'];
    for (const ok of ['/', '/account', '/account?tab=orders#top', 'https://shop.example/account'])
      expect(returnUrlProblem(ok, allowed), ok).toBeUndefined();
    expect(returnUrlProblem('https://other.example/account', allowed)).toBe(
      'must be a path on this site or a URL on https://shop.example',
    );
    expect(returnUrlProblem('https://shop.example/x', [])).toBe('must be a path on this site');
  });

  it('takes any absolute http(s) URL as a callback (the platform holds the allow-list), never a path', () => {
    for (const ok of ['https://shop.example/thanks', 'http://127.0.0.1:5173/cart?x=1'])
      expect(returnUrlProblem(ok), ok).toBeUndefined();
    expect(returnUrlProblem('/thanks')).toBe('must be an absolute http(s) URL');
  });

  it('names credentials as the reason, where the browser would go to the host after "@"', () => {
    for (const url of ['https://user:pw@shop.example/', 'https://shop.example@evil.example/'])
      for (const allowed of [undefined, ['https://shop.example']])
        expect(returnUrlProblem(url, allowed), url).toBe('must not hold a user name or password before "@"');
  });

  it('says a host the URL parser refuses is no valid URL, never throwing its TypeError', async () => {
    const bad = ['https://exa%mple.com/x', 'https://[::1/x', 'https://a..b%zz/', 'https://xn--/'];
    for (const url of bad) {
      expect(returnUrlProblem(url), url).toBe('must be a valid URL');
      expect(returnUrlProblem(url, ['https://shop.example']), url).toBe('must be a valid URL');
      expect(allowedReturnOrigins(url), url).toEqual([]);
      const client = createClient({ baseUrl: 'http://h', auth: OAuthStrategy({ clientId: 'c' }) });
      await expect(generateOAuthData(client, 'https://shop.example/cb', url)).rejects.toBeInstanceOf(
        ValidationError,
      );
    }
  });

  it("allows this page's origin and the redirect URI's", () => {
    expect(allowedReturnOrigins('https://shop.example/callback')).toEqual(['https://shop.example']);
    vi.stubGlobal('location', { origin: 'https://www.shop.example' });
    expect(allowedReturnOrigins('https://shop.example/callback')).toEqual([
      'https://www.shop.example',
      'https://shop.example',
    ]);
    expect(allowedReturnOrigins('javascript:x')).toEqual(['https://www.shop.example']);
  });
});

describe('flows refuse an unsafe return URL before anything is sent', () => {
  const setup = (role: TokenRole = TokenRole.MEMBER) => {
    const fetch = vi.fn(async () => Response.json({ redirectSession: { fullUrl: 'https://h/r' } }));
    const onError = vi.fn();
    const client = createClient({
      baseUrl: 'http://h',
      fetch: fetch as unknown as typeof globalThis.fetch,
      onError,
      auth: OAuthStrategy({
        clientId: 'c',
        tokens: {
          accessToken: { value: 'a', expiresAt: 2 ** 40 },
          refreshToken: { value: 'r', role },
        },
      }),
    });
    return { client, fetch, onError };
  };

  it('generateOAuthData: originalUri must stay on the site', async () => {
    const { client } = setup();
    const err = await generateOAuthData(client, 'https://shop.example/cb', '//evil.example').catch((e) => e);
    expect(err).toBeInstanceOf(ValidationError);
    expect(err.message).toBe(
      'INVALID_ARGUMENT: "originalUri" must not start with "//", which names another site',
    );
    const data = await generateOAuthData(client, 'https://shop.example/cb', 'https://shop.example/account');
    expect(data.originalUri).toBe('https://shop.example/account');
  });

  it('createRedirectSession: every callback URL is checked, and onError hears of it', async () => {
    const { client, fetch, onError } = setup();
    const err = await createRedirectSession(client, {
      ecomCheckout: { checkoutId: 'x' },
      callbacks: { postFlowUrl: 'javascript:alert(1)', cartPageUrl: 'https://shop.example/cart' },
    }).catch((e) => e);
    expect(err).toBeInstanceOf(ValidationError);
    expect(err.violations).toEqual([
      { field: 'options.callbacks.postFlowUrl', description: 'must be an absolute http(s) URL' },
    ]);
    expect(onError).toHaveBeenCalledWith(err, {
      method: 'POST',
      path: '/_api/redirects-api/v1/redirect-session',
    });
    expect(fetch).not.toHaveBeenCalled();
  });

  it('logout: an unsafe return URL is refused and sends nothing, yet the local logout happens', async () => {
    // A member's logout sends a redirect session, a visitor's nothing: both refuse the URL alike.
    for (const role of [TokenRole.MEMBER, TokenRole.VISITOR]) {
      const { client, fetch, onError } = setup(role);
      const err = await logout(client, 'javascript:alert(1)').catch((e) => e);
      expect(err, role).toBeInstanceOf(ValidationError);
      expect(err.violations).toEqual([
        { field: 'originalUrl', description: 'must be an absolute http(s) URL' },
      ]);
      expect(onError).toHaveBeenCalledOnce();
      expect(fetch).not.toHaveBeenCalled();
      expect((await client.auth.getTokens()).refreshToken.role).toBe(TokenRole.NONE);
    }
    // A safe one: the member's logout URL; a visitor has none.
    const member = setup();
    expect(await logout(member.client, 'https://shop.example/')).toEqual({ logoutUrl: 'https://h/r' });
    const visitor = setup(TokenRole.VISITOR);
    expect(await logout(visitor.client, 'https://shop.example/')).toEqual({ logoutUrl: undefined });
    expect(visitor.fetch).not.toHaveBeenCalled();
  });
});
