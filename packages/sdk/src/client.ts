/**
 * `createClient`: a client is its configuration (base URL, fetch, headers, timeout, retries,
 * error hook), its auth strategy and the state its derived clients share. It holds no request
 * code: the one request engine (`http/engine.ts`: auth headers, timeouts, retries, the one forced
 * refresh after a 401, shared reads, `X-Wix-Consistent`, error mapping) comes with the first call
 * a bundle uses, so a client used only for auth never bundles it.
 * @module
 */

import type { ShopkitError } from './http/errors.ts';
import type { CallOptions } from './http/op.ts';

/** The low-level transport a strategy uses for its own token calls (no auth). */
export interface Transport {
  baseUrl: string;
  fetch: typeof fetch;
  /** The client's per-call timeout in milliseconds, for the strategy's own calls too. */
  timeoutMs?: number;
  /** The client's retry settings: token requests are retried on network errors and 5xx. */
  retry?: RetryOptions;
}

/** How a client authenticates its calls. */
export interface AuthStrategy {
  /**
   * Headers that authenticate one request (for example `{ Authorization: '<token>' }`). `signal` is
   * the call's: a wait for a token should end when it aborts (its deadline, or the caller's abort).
   */
  getAuthHeaders(transport: Transport, signal?: AbortSignal): Promise<Record<string, string>>;
  /**
   * After a 401: obtain a fresh credential; resolve `true` when the call may be replayed once.
   * `rejected` is the `Authorization` the refused request carried.
   */
  onUnauthorized?(transport: Transport, rejected?: string): Promise<boolean>;
  /**
   * Changes whenever the strategy's tokens change to another session (a login, a logout, new
   * visitor tokens), not when it renews the same one: identical reads share a request only within
   * one epoch, so a read made after a login never joins one sent with the visitor's token.
   */
  readonly epoch?: number;
  /** Whether this strategy can make elevated (merchant/app) calls. */
  readonly elevated?: boolean;
  /** Called once when a client is created with this strategy. */
  attach?(client: AnyClient): void;
}

export interface RetryOptions {
  /** Attempts in all for a retry-safe call (default 3). 1 turns retries off. */
  attempts?: number;
  /** First backoff in milliseconds (default 250); doubles each attempt, with full jitter. */
  baseDelayMs?: number;
  /** Largest wait in milliseconds, including `Retry-After` (default 10 000). */
  maxDelayMs?: number;
}

export interface ClientOptions<A extends AuthStrategy | undefined, M extends Modules> {
  /** How calls authenticate: `OAuthStrategy`, `ApiKeyStrategy`, … */
  auth?: A;
  /** Full base URL (default `https://www.wixapis.com`); `http://127.0.0.1:PORT` for the emulator. */
  baseUrl?: string;
  /** The fetch to use (default: the global one at call time). */
  fetch?: typeof fetch;
  /** Headers sent with every call (auth headers win over them). */
  headers?: Record<string, string>;
  /** Per-call timeout in milliseconds (default 30 000). */
  timeoutMs?: number;
  /** Retries of retry-safe calls on network errors, 429 and 503, and of token requests on network errors and 5xx. */
  retry?: RetryOptions;
  /** Called with every failure before it is thrown. */
  onError?: (error: ShopkitError, call: { method: string; path: string }) => void;
  /** Domain modules to bind: `{ cart, products }` gives `client.cart.getCurrentCart()`. */
  modules?: M;
}

/** One request of {@link request}. */
export interface RequestOptions extends CallOptions {
  /** Encoded query string, without `?`. */
  query?: string;
  /** JSON body. */
  body?: unknown;
  /** Network errors, 429 and 503 may be retried (reads, and writes declared idempotent). */
  retrySafe?: boolean;
  /** Maps wire field names of violations to the caller's argument names. */
  rename?: (field: string) => string;
  /**
   * Set by the engine, not the caller: the answer's text was scanned and holds no non-finite
   * number string, so its float fields need no transform.
   */
  finite?: boolean;
}

/** Modules to bind: their functions take the client first; other exports (constants) pass through. */
export type Modules = Record<string, Record<string, unknown>>;

/**
 * A domain function without its client argument. Overloads are kept (up to two; TypeScript's
 * `infer` alone would keep only the last one, losing e.g. the builder form of `queryProducts()`).
 */
type Unbound<F> = F extends {
  (client: any, ...args: infer A1): infer R1;
  (client: any, ...args: infer A2): infer R2;
}
  ? { (...args: A1): R1; (...args: A2): R2 }
  : F extends (client: any, ...args: infer P) => infer R
    ? (...args: P) => R
    : F;

type Bound<M> = { [K in keyof M]: Unbound<M[K]> };

/** What the engine keeps of a client: shared by the clients {@link BaseClient.withOptions} derives. */
export interface SharedState {
  /** The last `X-Wix-Consistent` answered, echoed on every later request. */
  consistent?: string;
  /** Write attempts ended: reads share a request only with reads sent after the same writes. */
  w?: number;
  /** Whether the auth strategy was attached to a client. */
  attached?: boolean;
}

/** A client's own state, read by the request engine: not for applications. */
export interface ClientState {
  /** The options the client was created with. */
  readonly o: ClientOptions<AuthStrategy | undefined, Modules>;
  /** State shared with derived clients. */
  readonly s: SharedState;
  /** Reads in flight, by URL, that identical reads join: the answer, how many joined, its options. */
  readonly r: Map<string, { p: Promise<object>; n: number; i: RequestOptions }>;
}

/** What every client has, whatever modules are bound. Domain functions take this. */
export interface BaseClient<A extends AuthStrategy | undefined = AuthStrategy | undefined> {
  /** The base URL calls go to, without a trailing slash. */
  readonly baseUrl: string;
  /** The auth strategy. */
  readonly auth: A;
  /** A client with some options changed; the auth strategy and consistency state are shared. */
  withOptions(options: Omit<ClientOptions<A, Modules>, 'auth' | 'modules'>): this;
  /** The transport used by auth strategies for their own calls. */
  readonly transport: Transport;
  /** @internal The engine's view of this client (`http/engine.ts`). */
  readonly _: ClientState;
}

/** A client with its modules bound: `client.cart.getCurrentCart()`. */
export type Client<
  A extends AuthStrategy | undefined = AuthStrategy | undefined,
  M extends Modules = {},
> = BaseClient<A> & {
  [K in keyof M]: Bound<M[K]>;
};

/** Any client, for functions that only need to make calls. */
export type AnyClient = BaseClient<any>;

/**
 * Creates a client.
 * @example
 * const client = createClient({
 *   baseUrl: 'http://127.0.0.1:4000',
 *   auth: OAuthStrategy({ clientId }),
 *   modules: { cart, products },
 * });
 * const cart = await client.cart.getCurrentCart();
 */
export function createClient<A extends AuthStrategy | undefined = undefined, M extends Modules = {}>(
  options: ClientOptions<A, M> = {},
  shared: SharedState = {},
): Client<A, M> {
  const baseUrl = (options.baseUrl ?? 'https://www.wixapis.com').replace(/\/+$/, '');
  const auth = options.auth as A;
  const client: any = {
    baseUrl,
    auth,
    transport: {
      baseUrl,
      fetch: (input, init) => (options.fetch ?? fetch)(input, init),
      timeoutMs: options.timeoutMs,
      retry: options.retry,
    } satisfies Transport,
    _: { o: options, s: shared, r: new Map() } satisfies ClientState,
    withOptions: (o: ClientOptions<A, M>) =>
      createClient(
        {
          ...options,
          ...o,
          headers: { ...options.headers, ...o.headers },
          auth: options.auth,
          modules: options.modules,
        },
        shared,
      ),
  };
  for (const [name, mod] of Object.entries(options.modules ?? {})) {
    const bound: Record<string, unknown> = {};
    for (const [key, fn] of Object.entries(mod))
      bound[key] = typeof fn === 'function' ? (...a: unknown[]) => fn(client, ...a) : fn;
    client[name] = bound;
  }
  if (!shared.attached) {
    shared.attached = true;
    auth?.attach?.(client);
  }
  return client;
}
