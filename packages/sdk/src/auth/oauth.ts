/**
 * The visitor and member OAuth strategy: anonymous visitor tokens, refresh, single-flight renewal
 * (in this tab, and across tabs through Web Locks when the storage is shared), and a visible
 * session-expired event when a member's refresh is refused.
 * @module
 */
import type { AnyClient, AuthStrategy, Transport } from '../client.ts';
import { ShopkitError } from '../http/errors.ts';
import {
  emptyTokens,
  memoryStorage,
  nowSeconds,
  TokenRole,
  type TokenStorage,
  type Tokens,
} from './tokens.ts';

export interface OAuthOptions {
  /** The headless client id of the site. */
  clientId: string;
  /** Tokens to start with (for example read from a cookie on the server). */
  tokens?: Tokens;
  /** Where tokens are kept (default: memory). */
  storage?: TokenStorage;
  /** Seconds before expiry at which an access token counts as expired (default 30). */
  leewaySeconds?: number;
}

/** What the token endpoint answers. */
interface TokenResponse {
  access_token?: string;
  refresh_token?: string;
  expires_in?: number | string;
}

/** Events a strategy emits. */
export interface OAuthEvents {
  /** A member's session ended without a logout (refresh refused): the UI should show it. */
  sessionExpired: () => void;
  /** Tokens changed (login, logout, renewal). */
  tokensChanged: (tokens: Tokens) => void;
}

export interface OAuthStrategyApi extends AuthStrategy {
  readonly clientId: string;
  /** The tokens currently stored. */
  getTokens(): Promise<Tokens>;
  /** Stores tokens (for example member tokens after a login). */
  setTokens(tokens: Tokens): Promise<void>;
  /** True when the refresh token's role is `member`. */
  loggedIn(): Promise<boolean>;
  /** New anonymous visitor tokens, stored and returned. */
  generateVisitorTokens(): Promise<Tokens>;
  /** Renews the access token now with the refresh token (single-flight), falling back as spec 4 says. */
  renewToken(): Promise<Tokens>;
  /** Subscribes to an event; returns the unsubscribe function. */
  on<E extends keyof OAuthEvents>(event: E, listener: OAuthEvents[E]): () => void;
  /** POSTs a grant to `/oauth2/token` and returns tokens; throws `something went wrong` on a non-200. */
  tokenRequest(
    body: Record<string, unknown>,
    role: Tokens['refreshToken']['role'],
    headers?: Record<string, string>,
  ): Promise<Tokens>;
  /** The client this strategy is attached to (set by `createClient`). */
  readonly client: AnyClient | undefined;
}

/** A refused refresh: the server said the grant is invalid, as opposed to a network failure. */
class GrantRefused extends Error {}

/**
 * Visitor and member authentication with OAuth 2.0.
 * @example
 * const auth = OAuthStrategy({ clientId });
 * const client = createClient({ auth, baseUrl, modules: { cart } });
 * await client.cart.getCurrentCart(); // fetches one anonymous token first, however many calls wait
 */
export function OAuthStrategy(options: OAuthOptions): OAuthStrategyApi {
  const storage = options.storage ?? memoryStorage(options.tokens);
  const leeway = options.leewaySeconds ?? 30;
  const listeners: { [E in keyof OAuthEvents]?: Set<OAuthEvents[E]> } = {};
  let inflight: Promise<Tokens> | undefined;
  let transport: Transport | undefined;
  let client: AnyClient | undefined;

  const emit = <E extends keyof OAuthEvents>(event: E, ...args: Parameters<OAuthEvents[E]>) => {
    for (const l of listeners[event] ?? []) (l as (...a: unknown[]) => void)(...args);
  };
  const read = async (): Promise<Tokens> => (await storage.getTokens()) ?? emptyTokens();
  const write = async (tokens: Tokens) => {
    await storage.setTokens(tokens);
    emit('tokensChanged', tokens);
  };
  const usable = (t: Tokens) => !!t.accessToken.value && t.accessToken.expiresAt - leeway > nowSeconds();

  async function tokenRequest(
    body: Record<string, unknown>,
    role: Tokens['refreshToken']['role'],
    headers: Record<string, string> = {},
  ) {
    const t = transport ?? {
      baseUrl: 'https://www.wixapis.com',
      fetch: (i: RequestInfo | URL, init?: RequestInit) => globalThis.fetch(i, init),
    };
    let res: Response;
    try {
      res = await t.fetch(t.baseUrl + '/oauth2/token', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', ...headers },
        body: JSON.stringify(body),
      });
    } catch (cause) {
      throw new ShopkitError('something went wrong', {
        code: 'NETWORK_ERROR',
        description: 'The token request failed',
        cause,
      });
    }
    const requestId = res.headers.get('x-wix-request-id');
    const json = (await res.json().catch(() => ({}))) as TokenResponse & {
      details?: { applicationError?: { code?: string } };
    };
    if (res.status !== 200 || !json.access_token) {
      const code = String(json.details?.applicationError?.code ?? 'TOKEN_REQUEST_FAILED');
      const err = new ShopkitError('something went wrong', {
        status: res.status,
        code,
        description: 'The token request was refused',
        requestId,
      });
      throw res.status >= 400 && res.status < 500 ? Object.assign(new GrantRefused(), { err }) : err;
    }
    return {
      accessToken: { value: json.access_token, expiresAt: nowSeconds() + Number(json.expires_in ?? 0) },
      refreshToken: { value: json.refresh_token ?? '', role },
    } satisfies Tokens;
  }

  const unwrap = (e: unknown) =>
    e instanceof GrantRefused ? (e as GrantRefused & { err: ShopkitError }).err : e;

  async function anonymous(): Promise<Tokens> {
    try {
      return await tokenRequest({ clientId: options.clientId, grantType: 'anonymous' }, TokenRole.VISITOR);
    } catch (e) {
      throw unwrap(e);
    }
  }

  /** Renewal itself: refresh when possible; a refused member refresh is a visible logout. */
  async function renew(force: boolean): Promise<Tokens> {
    const current = await read();
    if (!force && usable(current)) return current;
    let next: Tokens | undefined;
    const rt = current.refreshToken;
    if (rt.value) {
      try {
        const fresh = await tokenRequest(
          { clientId: options.clientId, grantType: 'refresh_token', refreshToken: rt.value },
          rt.role,
        );
        // Adopt a rotated refresh token; keep the old one when the server sends none.
        next = {
          accessToken: fresh.accessToken,
          refreshToken: { value: fresh.refreshToken.value || rt.value, role: rt.role },
        };
      } catch (e) {
        if (rt.role === TokenRole.MEMBER && e instanceof GrantRefused) {
          await write(emptyTokens());
          emit('sessionExpired');
        } else if (!(e instanceof GrantRefused)) throw unwrap(e);
      }
    }
    next ??= await anonymous();
    await write(next);
    return next;
  }

  /** Single-flight within this instance, and across instances sharing storage via Web Locks. */
  function renewOnce(force: boolean): Promise<Tokens> {
    inflight ??= (async () => {
      try {
        const locks = (globalThis as { navigator?: { locks?: LockManager } }).navigator?.locks;
        if (locks) return await locks.request(`shopkit:${options.clientId}:tokens`, () => renew(force));
        return await renew(force);
      } finally {
        inflight = undefined;
      }
    })();
    return inflight;
  }

  return {
    clientId: options.clientId,
    get client() {
      return client;
    },
    attach(c) {
      client = c;
      transport = c.transport;
    },
    async getAuthHeaders(t) {
      transport ??= t;
      const tokens = await read();
      const usableTokens = usable(tokens) ? tokens : await renewOnce(false);
      return { Authorization: usableTokens.accessToken.value };
    },
    async onUnauthorized(t) {
      transport ??= t;
      await renewOnce(true);
      return true;
    },
    getTokens: read,
    setTokens: write,
    loggedIn: async () => (await read()).refreshToken.role === TokenRole.MEMBER,
    async generateVisitorTokens() {
      const tokens = await anonymous();
      await write(tokens);
      return tokens;
    },
    renewToken: () => renewOnce(true),
    tokenRequest: async (body, role, headers) => {
      try {
        return await tokenRequest(body, role, headers);
      } catch (e) {
        throw unwrap(e);
      }
    },
    on(event, listener) {
      if (!listeners[event]) listeners[event] = new Set() as never;
      const set = listeners[event] as Set<typeof listener>;
      set.add(listener);
      return () => set.delete(listener);
    },
  };
}
