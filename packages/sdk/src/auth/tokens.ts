/**
 * Tokens and where they are kept (spec point 3, wire §6). Memory by default; persistence is an
 * explicit adapter whose keys are namespaced by client id.
 * @module
 */

/** Token roles: `none` (no tokens), `visitor` (anonymous), `member` (logged in). */
export const TokenRole = { NONE: 'none', VISITOR: 'visitor', MEMBER: 'member' } as const;
export type TokenRole = (typeof TokenRole)[keyof typeof TokenRole];

export interface AccessToken {
  value: string;
  /** Expiry in epoch seconds: the second of receipt plus `expires_in`. */
  expiresAt: number;
}
export interface RefreshToken {
  value: string;
  role: TokenRole;
}
export interface Tokens {
  accessToken: AccessToken;
  refreshToken: RefreshToken;
}

/**
 * Where a strategy keeps its tokens. Methods may be async (a cookie store on a server, say).
 * `getTokens` answers what `setTokens` stored last: a strategy that read back spent tokens would
 * renew with them again.
 */
export interface TokenStorage {
  getTokens(): Tokens | null | undefined | Promise<Tokens | null | undefined>;
  setTokens(tokens: Tokens): void | Promise<void>;
  /**
   * For a storage other tabs or processes write too: a value read at once and cheaply that changes
   * when another session's tokens are stored there, and not when a session is renewed
   * (`webStorage`'s: the stored role). Another tab's login or logout then moves the strategy's
   * epoch (`AuthStrategy.epoch`): a read made after it shares no request sent with the tokens
   * before it. A storage without it moves the epoch only with this strategy's own writes.
   */
  session?(): unknown;
}

/** The empty token pair: no access token, no refresh token, role `none`. */
export const emptyTokens = (): Tokens => ({
  accessToken: { value: '', expiresAt: 0 },
  refreshToken: { value: '', role: TokenRole.NONE },
});

/** Keeps tokens in memory (the default): nothing survives a reload. */
export function memoryStorage(initial?: Tokens): TokenStorage {
  let tokens = initial ?? emptyTokens();
  return {
    getTokens: () => tokens,
    setTokens: (t) => {
      tokens = t;
    },
  };
}

/**
 * Keeps tokens in a Web Storage area (`localStorage` or `sessionStorage`), under
 * `shopkit:<clientId>:tokens`. Tokens the area refuses (full, or storage turned off) are kept in
 * memory instead, for this page, and the ones stored before are removed: the call that got them
 * failed, and the spent refresh token read back renewed again, which the platform answers by
 * revoking the session.
 */
export function webStorage(area: Storage, clientId: string): TokenStorage {
  const key = `shopkit:${clientId}:tokens`;
  let held: Tokens | undefined;
  return {
    // The role stored: a login or logout changes it, a renewal (a rotated refresh token) does not.
    session() {
      try {
        return (JSON.parse(area.getItem(key)!) as Tokens | null)?.refreshToken?.role;
      } catch {}
    },
    getTokens() {
      if (held) return held;
      try {
        const raw = area.getItem(key);
        return raw ? (JSON.parse(raw) as Tokens) : null;
      } catch {
        return null;
      }
    },
    setTokens(tokens) {
      held = undefined;
      try {
        if (!tokens.accessToken.value && !tokens.refreshToken.value) area.removeItem(key);
        else area.setItem(key, JSON.stringify(tokens));
      } catch {
        held = tokens;
        try {
          area.removeItem(key);
        } catch {}
      }
    },
  };
}

/** Seconds since the epoch, floored. */
export const nowSeconds = () => Math.floor(Date.now() / 1000);
