/**
 * The visitor and member OAuth strategy: anonymous visitor tokens, refresh, single-flight renewal
 * (in this tab, and across tabs through Web Locks when the storage is shared), and a visible
 * session-expired event when a member's refresh is refused.
 * @module
 */
import { type AnyClient, type AuthStrategy, createClient, type Transport } from '../client.ts';
import type { ShopkitError } from '../http/errors.ts';
import { postTokenRequest, within } from './token-request.ts';
import {
  emptyTokens,
  memoryStorage,
  nowSeconds,
  TokenRole,
  type TokenStorage,
  type Tokens,
} from './tokens.ts';

export type OAuthOptions = {
  /** The headless client id of the site. */
  clientId: string;
  /** Seconds before expiry at which an access token counts as expired (default 30; at most half its lifetime). */
  leewaySeconds?: number;
} & (
  | {
      /** Tokens to start with, kept in memory (for example read from a cookie on the server). */
      tokens?: Tokens;
      storage?: undefined;
    }
  | {
      /**
       * Where tokens are kept (default: memory, from `tokens`). Its tokens are the ones to start
       * with: `tokens` cannot be given with it (put them in the storage instead).
       */
      storage?: TokenStorage;
      tokens?: undefined;
    }
);

/** Events a strategy emits. */
export interface OAuthEvents {
  /** A member's session ended without a logout (refresh refused): the UI should show it. */
  sessionExpired: () => void;
  /**
   * Tokens changed (login, logout, renewal). `renewed` is true when this strategy renewed the same
   * session's access token with its refresh token; any other change (a login, a logout, new visitor
   * tokens, `setTokens`) may be someone else's session, whose cached data must not be shown.
   */
  tokensChanged: (tokens: Tokens, renewed: boolean) => void;
}

export interface OAuthStrategyApi extends AuthStrategy {
  readonly clientId: string;
  /** The tokens currently stored. */
  getTokens(): Promise<Tokens>;
  /**
   * Stores tokens (for example member tokens after a login); with a storage given, once a renewal
   * in progress in any tab has ended (Web Locks).
   */
  setTokens(tokens: Tokens): Promise<void>;
  /** True when the refresh token's role is `member`. */
  loggedIn(): Promise<boolean>;
  /** New anonymous visitor tokens, stored and returned. */
  generateVisitorTokens(): Promise<Tokens>;
  /** Renews the access token now with the refresh token (single-flight), falling back as spec 4 says. */
  renewToken(): Promise<Tokens>;
  /** Subscribes to an event; returns the unsubscribe function. */
  on<E extends keyof OAuthEvents>(event: E, listener: OAuthEvents[E]): () => void;
  /**
   * POSTs a grant to `/oauth2/token` and returns tokens; throws `something went wrong` on a non-200.
   * Sent through `transport` (a derived client's own), else the attached client's.
   */
  tokenRequest(
    body: Record<string, unknown>,
    role: Tokens['refreshToken']['role'],
    headers?: Record<string, string>,
    transport?: Transport,
  ): Promise<Tokens>;
  /**
   * @internal Runs `fn`, an explicit logout (`identity.logout`): a refresh refused meanwhile fails
   * the calls waiting on it, with no new visitor tokens fetched for them and no `sessionExpired`
   * (the logout then clears the tokens).
   */
  ending?<T>(fn: () => Promise<T>): Promise<T>;
}

/**
 * Visitor and member authentication with OAuth 2.0.
 * @example
 * const auth = OAuthStrategy({ clientId });
 * const client = createClient({ auth, baseUrl, modules: { cart } });
 * await client.cart.getCurrentCart(); // fetches one anonymous token first, however many calls wait
 */
export function OAuthStrategy(options: OAuthOptions): OAuthStrategyApi {
  const { clientId } = options;
  const storage = options.storage ?? memoryStorage(options.tokens);
  /**
   * Seconds before expiry at which a token is renewed: the option, but at most half the lifetime
   * of the last token this strategy was given (a token living no longer than the leeway would be
   * renewed before every call).
   */
  let leeway = options.leewaySeconds ?? 30;
  const listeners: { [E in keyof OAuthEvents]?: Set<OAuthEvents[E]> } = {};
  /** Renewals in flight, by the refresh token they renew (checklist 21; '' for none yet). */
  const inflight = new Map<string, Promise<Tokens>>();
  let transport: Transport | undefined;
  /** The client attached: its `onError` hears of the failures of this strategy's own calls (spec 7). */
  let client: AnyClient | undefined;

  const emit = <E extends keyof OAuthEvents>(event: E, ...args: Parameters<OAuthEvents[E]>) => {
    for (const l of listeners[event] ?? []) (l as (...a: unknown[]) => void)(...args);
  };
  // The tokens written while the storage answers none (`false`: it answered none, and none were
  // written since): a server's cookie jar that reads only the request's own cookies answers none
  // after a first visit's `set`, and each call of that request got a new visitor (another cart).
  // They are the answer until the storage answers tokens again.
  let unread: Tokens | false | undefined;
  /** The stored tokens; anything else stored there (an older format, a hand-edited value) is none. */
  const read = async (): Promise<Tokens> => {
    const t = await storage.getTokens();
    if (typeof t?.accessToken?.value === 'string' && typeof t.refreshToken?.value === 'string') {
      unread = undefined;
      return t;
    }
    unread ||= false;
    return unread || emptyTokens();
  };
  /** Another session's tokens bump it (see `AuthStrategy.epoch`). */
  let epoch = 1;
  /** The storage's last `session` seen, or written here (which moves `epoch` once, itself). */
  let stamp: unknown;
  /** Explicit logouts in progress (`ending`). */
  let ends = 0;
  const write = async (tokens: Tokens, renewed = false) => {
    if (!renewed) epoch++;
    unread = unread !== undefined && tokens.refreshToken.value ? tokens : undefined;
    const done = storage.setTokens(tokens);
    stamp = storage.session?.();
    await done;
    emit('tokensChanged', tokens, renewed);
  };
  /** Whether two token sets are the same session state (the same refresh and access tokens). */
  const same = (a: Tokens, b: Tokens) =>
    a.refreshToken.value === b.refreshToken.value && a.accessToken.value === b.accessToken.value;
  const usable = (t: Tokens) => !!t.accessToken.value && t.accessToken.expiresAt - leeway > nowSeconds();

  /** One grant; a network failure or any answer without an access token is `something went wrong`. */
  async function tokenRequest(
    body: Record<string, unknown>,
    role: Tokens['refreshToken']['role'],
    headers: Record<string, string> = {},
    // The calling client's own (a derived client's fetch), else the attached client's.
    t = transport ?? createClient().transport,
  ) {
    const json = await postTokenRequest(t, '/oauth2/token', body, headers);
    leeway = Math.min(options.leewaySeconds ?? 30, Number(json.expires_in) / 2) || leeway;
    return {
      accessToken: {
        value: json.access_token,
        // No lifetime given (`NaN` in the platform's SDK, never expired), or none that is a number
        // of seconds (`""` and 0, as the app strategy reads them; `""` read as 0 was a renewal
        // before every call): kept until a call is refused with 401, which renews it. A date far
        // off, not `NaN`, which JSON stores as null.
        expiresAt: nowSeconds() + Number(json.expires_in || Number.NaN) || 1e12,
      },
      // One that is no string (`5`, `{}`) would be read back as no tokens at all (`read`), and every
      // call fetched new ones: read as none.
      refreshToken: { value: typeof json.refresh_token === 'string' ? json.refresh_token : '', role },
    } satisfies Tokens;
  }

  /** `p`, its failure reported to `onError` before it is thrown. */
  const reported = (p: Promise<Tokens>) =>
    p.catch((e) => {
      client?._.o.onError?.(e, { method: 'POST', path: '/oauth2/token' });
      throw e;
    });

  const anonymous = (t?: Transport) =>
    tokenRequest({ clientId, grantType: 'anonymous' }, TokenRole.VISITOR, {}, t);

  /**
   * Renewal itself: refresh when possible; a refused member refresh is a visible logout. `renewed`:
   * another tab renewed while this one waited for the lock; its tokens are taken even when forced.
   *
   * Tokens stored while a grant is in flight (a login, a logout, `setTokens`) win over its answer:
   * an answer is stored, and a refusal ends the session, only while the stored tokens are still the
   * ones it started from (compare and set); otherwise renewal goes on from the new ones.
   */
  async function renew(t: Transport | undefined, force: boolean, renewed = false): Promise<Tokens> {
    // This strategy's own writes of another session (a logout, a login) since `from` was read
    // count as moves, even when a slow storage still answers the old tokens.
    const seen = epoch;
    const from = await read();
    if ((!force || renewed) && usable(from)) return from;
    /** When someone else stored tokens since `from`: what renewal goes on with instead. */
    const moved = async () => {
      const now = await read();
      return seen === epoch && same(now, from) ? undefined : usable(now) ? now : renew(t, false);
    };
    /** Stores `next` in place of `from`, unless someone else stored tokens meanwhile. */
    const swap = async (next: Tokens, isRenewal = false) => {
      const other = await moved();
      if (other) return other;
      await write(next, isRenewal);
      return next;
    };
    const rt = from.refreshToken;
    let fresh: Tokens | undefined;
    if (rt.value)
      try {
        fresh = await tokenRequest(
          { clientId, grantType: 'refresh_token', refreshToken: rt.value },
          rt.role,
          {},
          t,
        );
      } catch (e) {
        // Only a refused grant ends the session: for a member 400 `invalid_grant` or 401, for a
        // visitor any 4xx but 408 and 429 (a visitor kept on a refresh token the server will not
        // take could never call again). A network failure, a timeout, a 5xx, a 408 or a 429, and
        // a member's other 4xx, are thrown, and the session kept. So is any refusal during an
        // explicit logout (`ending`): its call fails, with no new visitor tokens fetched for it and
        // no `sessionExpired`, and the logout clears the tokens.
        const status = (e as ShopkitError).status!;
        if (
          ends ||
          ((status / 100) | 0) !== 4 ||
          (status > 401 && (rt.role === TokenRole.MEMBER || status === 408 || status === 429))
        )
          throw e;
      }
    // A refresh that worked keeps the session. Adopt a rotated refresh token; keep the old one
    // when the server sends none.
    // (`fresh` has the role it was asked for: `rt`'s.)
    if (fresh) {
      fresh.refreshToken.value ||= rt.value;
      return swap(fresh, true);
    }
    // A member whose refresh is refused, or who has no refresh token to renew with, is logged out
    // visibly (checklist 25).
    if (rt.role === TokenRole.MEMBER) {
      const other = await moved();
      if (other) return other;
      await write(emptyTokens());
      emit('sessionExpired');
      // Renewal goes on from what is stored now: no tokens, or a login stored meanwhile.
      return renew(t, false);
    }
    // New visitor tokens start another session.
    return swap(await anonymous(t));
  }

  /**
   * After waiting for another tab's renewal: a shared storage may hand its writes to this tab late
   * (Chromium's localStorage does), so give the new tokens up to a second to show before this tab
   * refreshes with what may be a rotated, spent refresh token.
   */
  async function changedSince(seen: Tokens) {
    for (let i = 0; i < 50; i++) {
      if (!same(await read(), seen)) return true;
      await new Promise((r) => setTimeout(r, 20));
    }
    return false;
  }

  /** Web Locks, for a storage given: only that can be shared with other tabs. */
  const locks = () =>
    options.storage && (globalThis as { navigator?: { locks?: LockManager } }).navigator?.locks;
  const name = `shopkit:${clientId}:tokens`;

  /**
   * Single-flight within this instance, and across instances sharing storage via Web Locks: only a
   * storage given can be shared (the default memory storage is this instance's alone, and waiting
   * for another tab's renewal to show in it only cost up to a second). Callers join the renewal of
   * the refresh token they saw (`was`): a storage whose answer changed meanwhile (a login) is not
   * answered with the renewal of another session's.
   */
  const renewOnce = (force: boolean, was: Tokens, t?: Transport): Promise<Tokens> => {
    const key = was.refreshToken.value;
    let p = inflight.get(key);
    if (p) return p;
    p = (async () => {
      try {
        const lm = locks();
        if (!lm) return await renew(t, force);
        const seen = await read();
        // A free lock: renew now. A held one: another tab is renewing; wait for it, then see.
        return await lm.request(name, { ifAvailable: true }, (lock) =>
          lock ? renew(t, force) : lm.request(name, async () => renew(t, force, await changedSince(seen))),
        );
      } finally {
        inflight.delete(key);
      }
    })();
    inflight.set(key, p);
    return p;
  };

  /**
   * Stores another session's tokens (a login, a logout, new visitor tokens) under the renewals'
   * lock: another tab's renewal compares and sets the shared storage in two steps, and tokens
   * stored between them were overwritten.
   */
  const put = (tokens: Tokens) => {
    const lm = locks();
    return lm ? lm.request<void>(name, () => write(tokens)) : write(tokens);
  };

  return {
    clientId,
    attach(c) {
      transport = c.transport;
      client = c;
    },
    async getAuthHeaders(t, signal) {
      transport ??= t;
      const tokens = await read();
      return {
        Authorization: (usable(tokens) ? tokens : await within(renewOnce(false, tokens, t), signal))
          .accessToken.value,
      };
    },
    get epoch() {
      // Another tab's login or logout in a shared storage: the read after it must not join one
      // sent with the tokens before it.
      const now = storage.session?.();
      if (now !== stamp) {
        stamp = now;
        epoch++;
      }
      return epoch;
    },
    ending(fn) {
      ends++;
      return fn().finally(() => ends--);
    },
    async onUnauthorized(t, rejected) {
      transport ??= t;
      // Renewed since that request went out (another call's 401): replay with the new token.
      const now = await read();
      if (rejected && usable(now) && now.accessToken.value !== rejected.split(',')[0]) return true;
      await renewOnce(true, now, t);
      return true;
    },
    getTokens: read,
    setTokens: put,
    loggedIn: async () => (await read()).refreshToken.role === TokenRole.MEMBER,
    // Called by the application, not by a call (whose failure the engine reports): reported here.
    generateVisitorTokens: () =>
      reported(
        (async () => {
          const tokens = await anonymous();
          await put(tokens);
          return tokens;
        })(),
      ),
    renewToken: () => reported(read().then((t) => renewOnce(true, t))),
    tokenRequest,
    on(event, listener) {
      listeners[event] ??= new Set() as never;
      const set = listeners[event] as Set<typeof listener>;
      set.add(listener);
      return () => set.delete(listener);
    },
  };
}
