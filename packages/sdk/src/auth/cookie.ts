/**
 * Tokens in a server-side session cookie (checklist 32): `__Host-` name, `Secure`, `HttpOnly`,
 * `SameSite=Lax`, `Path=/`, no `Domain`. Pass your framework's cookie jar.
 * @module
 */
import type { TokenStorage, Tokens } from './tokens.ts';

/** A request/response cookie jar (Next.js `cookies()`, Hono's helpers, a small adapter, …). */
export interface CookieJar {
  get(name: string): string | undefined;
  /** `attributes` is the ready `Set-Cookie` attribute list, e.g. `Path=/; Secure; HttpOnly; SameSite=Lax`. */
  set(name: string, value: string, attributes: string): void;
}

/** The cookie name for a client id: `__Host-shopkit-<clientId>`. */
export const tokenCookieName = (clientId: string) => `__Host-shopkit-${clientId.replace(/[^\w-]/g, '')}`;

/** Keeps tokens in an HttpOnly, Secure, host-only cookie (30 days; deleted on logout). */
export function cookieStorage(jar: CookieJar, clientId: string): TokenStorage {
  const name = tokenCookieName(clientId);
  const attrs = 'Path=/; Secure; HttpOnly; SameSite=Lax';
  return {
    getTokens() {
      try {
        const raw = jar.get(name);
        return raw ? (JSON.parse(decodeURIComponent(raw)) as Tokens) : null;
      } catch {
        return null;
      }
    },
    setTokens(tokens) {
      const empty = !tokens.accessToken.value && !tokens.refreshToken.value;
      jar.set(
        name,
        empty ? '' : encodeURIComponent(JSON.stringify(tokens)),
        `${attrs}; Max-Age=${empty ? 0 : 30 * 24 * 3600}`,
      );
    },
  };
}
