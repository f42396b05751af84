/**
 * Tokens in a server-side session cookie (checklist 32): `__Host-` name, `Secure`, `HttpOnly`,
 * `SameSite=Lax` (or `Strict`), `Path=/`, no `Domain`. Pass your framework's cookie jar. With `Lax`,
 * refuse cross-site writes with {@link isCrossSiteWrite}: a form on another site may still post
 * to yours with the cookie attached in older browsers and on top-level navigations.
 * @module
 */
import { ShopkitError } from '../http/errors.ts';
import type { TokenStorage, Tokens } from './tokens.ts';

export interface CookieOptions {
  /**
   * `Lax` (default) keeps the session when a shopper follows a link from another site (an e-mail,
   * a search result), and needs {@link isCrossSiteWrite} against cross-site posts; `Strict` sends
   * the cookie on same-site requests only, so such a shopper arrives signed out.
   */
  sameSite?: 'Lax' | 'Strict';
}

/** A request/response cookie jar (Next.js `cookies()`, Hono's helpers, a small adapter, …). */
export interface CookieJar {
  /**
   * The cookie's value. A jar may answer the request's cookie even after a `set` (Express's
   * `req.cookies`, Hono's `getCookie`): {@link cookieStorage} then answers what it set, and with
   * no cookie yet (a first visit) the strategy answers the tokens it set.
   */
  get(name: string): string | undefined;
  /** `attributes` is the ready `Set-Cookie` attribute list, e.g. `Path=/; Secure; HttpOnly; SameSite=Lax`. */
  set(name: string, value: string, attributes: string): void;
}

/** The cookie name for a client id: `__Host-shopkit-<clientId>`. */
export const tokenCookieName = (clientId: string) => `__Host-shopkit-${clientId.replace(/[^\w-]/g, '')}`;

/**
 * Keeps tokens in an HttpOnly, Secure, host-only cookie (30 days; deleted on logout). Make the
 * client and its strategy per request (a strategy shares one first visitor token among its calls).
 * Tokens too long for one cookie (4096 bytes) keep the refresh token alone, and the next request
 * renews its access token; a refresh token too long alone throws a `ShopkitError` `COOKIE_TOO_LARGE`
 * at `setTokens` (no cookie is set: the one before stays).
 */
export function cookieStorage(jar: CookieJar, clientId: string, options: CookieOptions = {}): TokenStorage {
  const name = tokenCookieName(clientId);
  const attrs = `Path=/; Secure; HttpOnly; SameSite=${options.sameSite === 'Strict' ? 'Strict' : 'Lax'}`;
  // The last tokens set, and the cookie they replaced. A jar that reads only the request's cookies
  // still answers the replaced one after a `set`, and a renewal would read back the refresh token
  // it just spent (and, refused, refresh with it again and again): while the jar answers the
  // replaced cookie, the tokens set are the answer. Only a cookie that was there counts: a storage
  // made once over per-request jars gives a request without one no other visitor's tokens, and a
  // request with a cookie only what was set in place of that same cookie.
  // The value set counts too: one that keeps the refresh token alone (see below) stands for the
  // tokens set, and a jar that reads back its sets renewed at every call of the request.
  let last: { was?: string; set: string; now: Tokens } | undefined;
  return {
    getTokens() {
      try {
        const raw = jar.get(name);
        if (raw && (raw === last?.was || raw === last?.set)) return last.now;
        return raw ? (JSON.parse(decodeURIComponent(raw)) as Tokens) : null;
      } catch {
        return null;
      }
    },
    setTokens(tokens) {
      const was = jar.get(name);
      const empty = !tokens.accessToken.value && !tokens.refreshToken.value;
      const attributes = `${attrs}; Max-Age=${empty ? 0 : 30 * 24 * 3600}`;
      // Browsers drop a cookie over 4096 bytes (name, value and attributes) without a word, and the
      // session with it. Too long with its access token, the cookie keeps the refresh token alone
      // (the next request renews the access token from it); too long even so, the set fails here.
      // Measured as a jar that encodes values again (Next.js's) sends it.
      const fits = (t: Tokens) => {
        const value = encodeURIComponent(JSON.stringify(t));
        return `${name}=${encodeURIComponent(value)}; ${attributes}`.length <= 4096 && value;
      };
      const value = empty
        ? ''
        : fits(tokens) || fits({ ...tokens, accessToken: { value: '', expiresAt: 0 } });
      if (value === false) {
        const description = 'The refresh token is too long for a cookie (4096 bytes)';
        throw new ShopkitError(description, { code: 'COOKIE_TOO_LARGE', description });
      }
      jar.set(name, value, attributes);
      last = { was, set: value, now: tokens };
    },
  };
}

/** What {@link isCrossSiteWrite} reads of a request: a `Request`, or the same three fields. */
export interface RequestLike {
  method: string;
  /** The request's URL, or its path (Node's `req.url`: its own host is then its `Host` header). */
  url: string;
  headers: { get(name: string): string | null };
}

/**
 * The CSRF defence that goes with a `SameSite=Lax` session cookie (checklist 32): whether a request
 * that can change state (any method but GET, HEAD and OPTIONS) comes from another origin. The
 * browser says so in `Sec-Fetch-Site` (anything but `same-origin`, or `none` for what the user
 * typed); a browser without it sends `Origin`, which must be the request's own origin. An `Origin`
 * among `allowedOrigins` passes either way (give your public origins when a proxy changes the URL
 * the server sees, or another of your sites posts to this one). A
 * request with neither header comes from no browser, which is what a forged request needs. Answer
 * `true` with a 403 before the cookie's session is used.
 * @example
 * if (isCrossSiteWrite(request)) return new Response('Forbidden', { status: 403 });
 */
export function isCrossSiteWrite(request: RequestLike, allowedOrigins: string[] = []): boolean {
  if (/^(GET|HEAD|OPTIONS)$/i.test(request.method)) return false;
  const site = request.headers.get('sec-fetch-site');
  const origin = request.headers.get('origin');
  if (origin && allowedOrigins.includes(origin)) return false;
  if (site) return site !== 'same-origin' && site !== 'none';
  if (!origin) return false;
  // A path as `url` (Node's `req.url`, which threw here): the request's own host is its `Host`.
  return URL.canParse(request.url)
    ? origin !== new URL(request.url).origin
    : !URL.canParse(origin) || new URL(origin).host !== request.headers.get('host');
}
