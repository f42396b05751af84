/**
 * `createClient` and the one request engine every call goes through: auth headers from the
 * strategy, timeouts, retries, the one forced refresh after a 401, shared reads,
 * `X-Wix-Consistent` and error mapping. Declared calls (`op`, in `http/op.ts`) build their message,
 * path, query and transforms, then send through {@link BaseClient.request}; a client used only for
 * auth never bundles that layer.
 * @module
 */

import { errorFromResponse, ShopkitError, systemError } from './http/errors.ts';
import type { CallOptions } from './http/op.ts';

/** The low-level transport a strategy uses for its own token calls (no auth, no retries). */
export interface Transport {
  baseUrl: string;
  fetch: typeof fetch;
  /** The client's per-call timeout in milliseconds, for the strategy's own calls too. */
  timeoutMs?: number;
}

/** How a client authenticates its calls. */
export interface AuthStrategy {
  /** Headers that authenticate one request (for example `{ Authorization: '<token>' }`). */
  getAuthHeaders(transport: Transport): Promise<Record<string, string>>;
  /** After a 401: obtain a fresh credential; resolve `true` when the call may be replayed once. */
  onUnauthorized?(transport: Transport): Promise<boolean>;
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
  /** Retries of retry-safe calls on network errors, 429 and 503. */
  retry?: RetryOptions;
  /** Called with every failure before it is thrown. */
  onError?: (error: ShopkitError, call: { method: string; path: string }) => void;
  /** Domain modules to bind: `{ cart, products }` gives `client.cart.getCurrentCart()`. */
  modules?: M;
}

/** One request of {@link BaseClient.request}. */
export interface RequestOptions extends CallOptions {
  /** Encoded query string, without `?`. */
  query?: string;
  /** JSON body. */
  body?: unknown;
  /** Network errors, 429 and 503 may be retried (reads, and writes declared idempotent). */
  retrySafe?: boolean;
  /** Maps wire field names of violations to the caller's argument names. */
  rename?: (field: string) => string;
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

/** What every client has, whatever modules are bound. Domain functions take this. */
export interface BaseClient<A extends AuthStrategy | undefined = AuthStrategy | undefined> {
  /** The base URL calls go to, without a trailing slash. */
  readonly baseUrl: string;
  /** The auth strategy. */
  readonly auth: A;
  /**
   * Sends one request through the engine (auth, retries, timeouts, errors) and resolves with the
   * parsed JSON object of a 200 answer. Declared calls use this; applications rarely need to.
   */
  request<R = unknown>(method: string, path: string, init?: RequestOptions): Promise<R>;
  /** Reports a failure of a call that never reached {@link request} to `onError`, then throws it. */
  fail(error: unknown, method: string, path: string): never;
  /** `POST /graphql/{apiVersion}` (default `alpha`) with `{query, variables}`. */
  graphql<D = Record<string, unknown>>(
    query: string,
    variables?: Record<string, unknown>,
    options?: CallOptions & { apiVersion?: string },
  ): Promise<{ data: D; errors?: unknown[] }>;
  /** A client with some options changed; the auth strategy and consistency state are shared. */
  withOptions(options: Omit<ClientOptions<A, Modules>, 'auth' | 'modules'>): this;
  /** The transport used by auth strategies for their own calls. */
  readonly transport: Transport;
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

const METHODS = ['GET', 'POST', 'PATCH', 'PUT', 'DELETE'];
/**
 * Large parsed bodies whose text was scanned and holds no non-finite number string (`"NaN"`,
 * `"Infinity"`): their float fields need no walk. A small body is not scanned: walking its float
 * fields costs less than the scan and the bookkeeping.
 */
export const finite = new WeakSet<object>();
/**
 * Whether a text may hold a non-finite number string. Two plain searches whose first letters are
 * rare in JSON (V8 skips to them with `memchr`), several times faster than a regular expression
 * (the bench's products-page table has the figure). Any other `NaN"` or `Infin` (a product called
 * "Infinity scarf") only costs the full walk.
 */
export const mayBeNonFinite = (text: string) => text.includes('NaN"') || text.includes('Infin');

/**
 * Deadlines of the calls in flight. One ticker checks them every 10 ms while any call is in flight
 * and stops once none is: a timer of its own for every call costs more than the rest of the
 * engine's work on a call. It holds a Node process open only while a call is in flight.
 */
const deadlines = new Map<AbortController, number>();
let ticker: any;
function watch(ctl: AbortController, ms: number) {
  deadlines.set(ctl, Date.now() + ms);
  ticker ??= setInterval(() => {
    for (const [c, at] of deadlines)
      if (at <= Date.now()) {
        deadlines.delete(c);
        c.abort(new DOMException('timeout', 'TimeoutError'));
      }
    if (!deadlines.size) {
      clearInterval(ticker);
      ticker = undefined;
    }
  }, 10);
  ticker.ref?.();
}
function unwatch(ctl: AbortController) {
  deadlines.delete(ctl);
  if (!deadlines.size) ticker?.unref?.();
}

/** Waits `ms`, or rejects when `signal` aborts first; leaves no listener on `signal` either way. */
const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const stop = () => {
      clearTimeout(t);
      reject(signal!.reason);
    };
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', stop);
      resolve();
    }, ms);
    signal?.addEventListener('abort', stop);
  });

/** `Retry-After` in seconds or as an HTTP date, in milliseconds. */
function retryAfterMs(res: Response): number | undefined {
  const h = res.headers.get('retry-after');
  const ms = h ? (Number(h) >= 0 ? Number(h) * 1000 : Date.parse(h) - Date.now()) : Number.NaN;
  return ms >= 0 ? ms : ms < 0 ? 0 : undefined;
}

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
  shared: { consistent?: string; attached?: boolean } = {},
): Client<A, M> {
  const baseUrl = (options.baseUrl ?? 'https://www.wixapis.com').replace(/\/+$/, '');
  const transport: Transport = {
    baseUrl,
    fetch: (input, init) => (options.fetch ?? fetch)(input, init),
    timeoutMs: options.timeoutMs,
  };
  const auth = options.auth as A;
  const retry = { attempts: 3, baseDelayMs: 250, maxDelayMs: 10_000, ...options.retry };

  async function send(method: string, url: string, init: RequestOptions): Promise<object> {
    const outer = init.signal;
    let refreshed = false;
    for (let attempt = 1; ; attempt++) {
      const headers: Record<string, string> = { ...options.headers, ...init.headers };
      if (init.body !== undefined) headers['Content-Type'] = 'application/json';
      if (shared.consistent) headers['X-Wix-Consistent'] = shared.consistent;
      if (auth) Object.assign(headers, await auth.getAuthHeaders(transport));
      if (init.apiKey)
        headers.Authorization = headers.Authorization
          ? `${headers.Authorization},${init.apiKey}`
          : init.apiKey;
      // One controller per attempt: the caller's abort and this attempt's deadline.
      const ctl = new AbortController();
      const onAbort = () => ctl.abort(outer!.reason);
      if (outer) {
        if (outer.aborted) onAbort();
        outer.addEventListener('abort', onAbort);
      }
      watch(ctl, init.timeoutMs ?? options.timeoutMs ?? 30_000);
      let res: Response | undefined;
      let text: string | undefined;
      let cause: unknown;
      try {
        res = await transport.fetch(url, {
          method,
          headers,
          body: init.body === undefined ? undefined : JSON.stringify(init.body),
          signal: ctl.signal,
        });
        text = await res.text();
      } catch (e) {
        cause = e;
      }
      unwatch(ctl);
      outer?.removeEventListener('abort', onAbort);
      const backoff = () =>
        Math.random() * Math.min(retry.maxDelayMs, retry.baseDelayMs * 2 ** (attempt - 1));
      if (text === undefined) {
        // Only a request that never got an answer is retried (never a caller's abort).
        if (!res && !outer?.aborted && init.retrySafe && attempt < retry.attempts) {
          await sleep(backoff(), outer);
          continue;
        }
        const [code, reason] = outer?.aborted
          ? ['ABORTED', 'the call was aborted']
          : res
            ? ['NETWORK_ERROR', 'the response was cut off']
            : ctl.signal.aborted
              ? ['TIMEOUT', 'the call timed out']
              : ['NETWORK_ERROR', 'the network request failed'];
        throw systemError(res && !outer?.aborted ? res.headers.get('x-wix-request-id') : null, {
          status: outer?.aborted ? undefined : res?.status,
          code,
          reason,
          cause,
        });
      }
      res = res!;
      const consistent = res.headers.get('x-wix-consistent');
      if (consistent) shared.consistent = consistent;
      let parsed: any;
      try {
        parsed = JSON.parse(text);
      } catch {}
      const status = res.status;
      if (status === 200 && parsed && typeof parsed === 'object') {
        if (text.length > 16384 && !mayBeNonFinite(text)) finite.add(parsed);
        return parsed;
      }
      const requestId = res.headers.get('x-wix-request-id');
      if (status === 200)
        throw systemError(requestId, {
          status,
          code: 'INVALID_RESPONSE',
          reason: 'the response body is not a JSON object',
        });
      if (status === 401 && auth?.onUnauthorized && !refreshed) {
        refreshed = true;
        if (await auth.onUnauthorized(transport)) continue;
      }
      if (init.retrySafe && attempt < retry.attempts && (status === 429 || status === 503)) {
        await sleep(Math.min(retryAfterMs(res) ?? backoff(), retry.maxDelayMs), outer);
        continue;
      }
      throw errorFromResponse({ status, statusText: res.statusText, body: parsed, requestId }, init.rename);
    }
  }

  /**
   * Identical reads already in flight share one request. Every caller gets its own copy, since
   * response transforms work in place: followers clone, and the first caller clones too when
   * anyone joined (the entry is gone before any caller resumes, so the count is final).
   */
  const reads = new Map<string, { p: Promise<object>; n: number }>();
  const copy = (raw: object) => {
    const c = structuredClone(raw);
    if (finite.has(raw)) finite.add(c);
    return c;
  };

  function fail(err: unknown, method: string, path: string): never {
    const error =
      err instanceof ShopkitError ? err : systemError(null, { reason: 'an unexpected failure', cause: err });
    options.onError?.(error, { method, path });
    throw error;
  }

  async function request(method: string, path: string, init: RequestOptions = {}): Promise<any> {
    if (!METHODS.includes(method)) throw new TypeError(`Unknown HTTP method: ${method}`);
    const url = baseUrl + path + (init.query ? '?' + init.query : '');
    // Reads without a signal or an API key of their own may share; calls with their own headers or
    // timeout share only with identical ones.
    const key =
      method === 'GET' && !init.signal && !init.apiKey
        ? init.headers || init.timeoutMs
          ? url + JSON.stringify([init.headers, init.timeoutMs])
          : url
        : '';
    try {
      if (!key) return await send(method, url, init);
      const joined = reads.get(key);
      if (joined) {
        joined.n++;
        return copy(await joined.p);
      }
      const entry = { p: send(method, url, init), n: 0 };
      reads.set(key, entry);
      try {
        const raw = await entry.p;
        return entry.n ? copy(raw) : raw;
      } finally {
        reads.delete(key);
      }
    } catch (err) {
      return fail(err, method, path);
    }
  }

  async function graphql(
    query: string,
    variables?: Record<string, unknown>,
    opts: CallOptions & { apiVersion?: string } = {},
  ) {
    const out = await request('POST', `/graphql/${encodeURIComponent(opts.apiVersion ?? 'alpha')}`, {
      ...opts,
      body: { query, variables },
    });
    return { data: out.data ?? {}, errors: out.errors };
  }

  const client: any = {
    baseUrl,
    auth,
    transport,
    request,
    fail,
    graphql,
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

export type { CallOptions, OpSpec } from './http/op.ts';
export { call, op } from './http/op.ts';
