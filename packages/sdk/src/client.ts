/**
 * `createClient` and the one request engine every call goes through: auth headers from the
 * strategy, encoding, the GET→POST fallback, timeouts, retries, the one forced refresh after a 401,
 * `X-Wix-Consistent`, transforms and error mapping.
 * @module
 */

import { encodeQuery, fillPath } from './http/encode.ts';
import { errorFromResponse, ShopkitError, systemError, ValidationError } from './http/errors.ts';
import { argFieldMapper, buildMessage, type CallOptions, type OpSpec, parseArgs } from './http/op.ts';
import { applyPlan, compilePlan, type Plan } from './transforms.ts';

/** The low-level transport a strategy uses for its own token calls (no auth, no retries). */
export interface Transport {
  baseUrl: string;
  fetch: typeof fetch;
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
  /** Runs one declared call. Domain functions call this; applications rarely need to. */
  call<R = unknown>(spec: OpSpec, args: unknown[], options?: CallOptions): Promise<R>;
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

const METHODS = new Set(['GET', 'POST', 'PATCH', 'PUT', 'DELETE']);
const MAX_QUERY = 4000;
const plans = new WeakMap<
  OpSpec,
  { req: Plan; res: Plan; lean: Plan; places: ReturnType<typeof parseArgs> }
>();
/** Response bodies whose text holds a non-finite number string: only these need the float transforms. */
const nonFinite = new WeakSet<object>();
const NON_FINITE = /"(?:-?Infinity|NaN)"/;

function compiled(spec: OpSpec) {
  let c = plans.get(spec);
  if (!c) {
    c = {
      req: compilePlan(spec.req, 'toWire'),
      res: compilePlan(spec.res, 'fromWire'),
      lean: compilePlan(spec.res && { ...spec.res, float: undefined }, 'fromWire'),
      places: parseArgs(spec.args),
    };
    plans.set(spec, c);
  }
  return c;
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(t);
        reject(signal.reason);
      },
      { once: true },
    );
  });

function retryAfterMs(res: Response): number | undefined {
  const h = res.headers.get('retry-after');
  if (!h) return undefined;
  const secs = Number(h);
  if (Number.isFinite(secs)) return Math.max(0, secs * 1000);
  const at = Date.parse(h);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}

/** Links the caller's signal and a timeout into one signal for one attempt. */
function attemptSignal(timeoutMs: number, outer?: AbortSignal) {
  const ctl = new AbortController();
  const timer = setTimeout(() => ctl.abort(new DOMException('timeout', 'TimeoutError')), timeoutMs);
  const onAbort = () => ctl.abort(outer?.reason);
  if (outer?.aborted) onAbort();
  else outer?.addEventListener('abort', onAbort, { once: true });
  return {
    signal: ctl.signal,
    done: () => {
      clearTimeout(timer);
      outer?.removeEventListener('abort', onAbort);
    },
  };
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
    fetch: (input, init) => (options.fetch ?? globalThis.fetch)(input, init),
  };
  const auth = options.auth as A;
  const retry = { attempts: 3, baseDelayMs: 250, maxDelayMs: 10_000, ...options.retry };

  async function send(
    method: string,
    path: string,
    query: string,
    body: unknown,
    opts: CallOptions,
    retrySafe: boolean,
    rename?: (f: string) => string,
  ): Promise<unknown> {
    if (!METHODS.has(method)) throw new TypeError(`Unknown HTTP method: ${method}`);
    const url = baseUrl + path + (query ? '?' + query : '');
    let refreshed = false;
    for (let attempt = 1; ; attempt++) {
      const headers: Record<string, string> = { ...options.headers, ...opts.headers };
      if (body !== undefined) headers['Content-Type'] = 'application/json';
      if (shared.consistent) headers['X-Wix-Consistent'] = shared.consistent;
      if (auth) Object.assign(headers, await auth.getAuthHeaders(transport));
      const { signal, done } = attemptSignal(opts.timeoutMs ?? options.timeoutMs ?? 30_000, opts.signal);
      let res: Response;
      try {
        res = await transport.fetch(url, {
          method,
          headers,
          body: body === undefined ? undefined : JSON.stringify(body),
          signal,
        });
      } catch (cause) {
        done();
        if (opts.signal?.aborted)
          throw systemError(null, {
            code: 'ABORTED',
            reason: 'the call was aborted',
            cause: opts.signal.reason,
          });
        const timedOut = signal.aborted;
        if (retrySafe && attempt < retry.attempts) {
          await sleep(backoff(attempt), opts.signal);
          continue;
        }
        throw systemError(null, {
          code: timedOut ? 'TIMEOUT' : 'NETWORK_ERROR',
          reason: timedOut ? 'the call timed out' : 'the network request failed',
          cause,
        });
      }
      const requestId = res.headers.get('x-wix-request-id');
      const consistent = res.headers.get('x-wix-consistent');
      if (consistent) shared.consistent = consistent;
      let text: string;
      try {
        text = await res.text();
      } catch (cause) {
        done();
        throw systemError(requestId, {
          status: res.status,
          code: 'NETWORK_ERROR',
          reason: 'the response was cut off',
          cause,
        });
      }
      done();
      let parsed: unknown;
      let parseFailed = false;
      try {
        parsed = text ? JSON.parse(text) : undefined;
      } catch {
        parseFailed = true;
      }
      if (res.status === 200) {
        if (parseFailed || parsed === undefined || parsed === null || typeof parsed !== 'object')
          throw systemError(requestId, {
            status: 200,
            code: 'INVALID_RESPONSE',
            reason: 'the response body is not a JSON object',
          });
        if (NON_FINITE.test(text)) nonFinite.add(parsed);
        return parsed;
      }
      if (res.status === 401 && auth?.onUnauthorized && !refreshed) {
        refreshed = true;
        if (await auth.onUnauthorized(transport)) continue;
      }
      if (retrySafe && attempt < retry.attempts && (res.status === 429 || res.status === 503)) {
        await sleep(Math.min(retryAfterMs(res) ?? backoff(attempt), retry.maxDelayMs), opts.signal);
        continue;
      }
      throw errorFromResponse(
        { status: res.status, statusText: res.statusText, body: parseFailed ? undefined : parsed, requestId },
        rename,
      );
    }
  }

  /**
   * Identical reads already in flight share one request. Every caller gets its own copy, since
   * response transforms work in place: followers clone, and the first caller clones too when
   * anyone joined (the entry is gone before any caller resumes, so the count is final).
   */
  const reads = new Map<string, { p: Promise<unknown>; followers: number }>();
  async function shareRead(key: string, run: () => Promise<unknown>) {
    const joined = reads.get(key);
    if (joined) {
      joined.followers++;
      return copy(await joined.p);
    }
    const entry = { p: run(), followers: 0 };
    reads.set(key, entry);
    entry.p.then(
      () => reads.delete(key),
      () => reads.delete(key),
    );
    const raw = await entry.p;
    return entry.followers ? copy(raw) : raw;
  }
  const copy = (raw: unknown) => {
    const c = structuredClone(raw) as object;
    if (nonFinite.has(raw as object)) nonFinite.add(c);
    return c;
  };

  const backoff = (attempt: number) =>
    Math.random() * Math.min(retry.maxDelayMs, retry.baseDelayMs * 2 ** (attempt - 1));

  function report(err: unknown, method: string, path: string): never {
    const error =
      err instanceof ShopkitError ? err : systemError(null, { reason: 'an unexpected failure', cause: err });
    options.onError?.(error, { method, path });
    throw error;
  }

  async function call<R>(spec: OpSpec, args: unknown[], opts: CallOptions = {}): Promise<R> {
    const { req, res, lean, places } = compiled(spec);
    const rename = argFieldMapper(places);
    try {
      if (!METHODS.has(spec.method)) throw new TypeError(`Unknown HTTP method: ${spec.method}`);
      if (spec.elevated && !auth?.elevated)
        throw new ShopkitError(
          `${spec.name ?? spec.path} needs an elevated client (ApiKeyStrategy or AppStrategy); this client has none.`,
          { code: 'ELEVATION_REQUIRED', description: 'An elevated client is required' },
        );
      let msg = buildMessage(places, args);
      if (req) msg = applyPlan(structuredClone(msg), req);
      const filled = fillPath(spec.path, msg);
      if ('missing' in filled)
        throw new ValidationError([
          { field: rename(filled.missing), description: 'must be a non-empty string' },
        ]);
      let method: string = spec.method;
      let query = '';
      let body: unknown;
      if (method === 'GET' || method === 'DELETE') {
        query = encodeQuery(msg, !!spec.complexQuery);
        if (spec.fallback && method === 'GET' && query.length > MAX_QUERY) {
          method = 'POST';
          query = '';
          body = msg;
        }
      } else body = msg;
      const retrySafe = spec.method === 'GET' || !!spec.idempotent;
      const raw = (await (method === 'GET' && !opts.signal
        ? shareRead(filled.path + '?' + query + JSON.stringify(opts), () =>
            send(method, filled.path, query, body, opts, retrySafe, rename),
          )
        : send(method, filled.path, query, body, opts, retrySafe, rename))) as object;
      const out = applyPlan(raw, nonFinite.has(raw) ? res : lean) as any;
      return (spec.unwrap ? out[spec.unwrap] : out) as R;
    } catch (err) {
      if (err instanceof TypeError && err.message.startsWith('Unknown HTTP method')) throw err;
      return report(err, spec.method, spec.path);
    }
  }

  async function graphql(
    query: string,
    variables?: Record<string, unknown>,
    opts: CallOptions & { apiVersion?: string } = {},
  ) {
    const path = `/graphql/${encodeURIComponent(opts.apiVersion ?? 'alpha')}`;
    try {
      const out = (await send('POST', path, '', { query, variables }, opts, false)) as {
        data?: any;
        errors?: unknown[];
      };
      return { data: out.data ?? {}, errors: out.errors };
    } catch (err) {
      return report(err, 'POST', path);
    }
  }

  const client: any = {
    baseUrl,
    auth,
    transport,
    call,
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

/**
 * Declares one platform call as a function `(client, ...args, callOptions?)`.
 * @example
 * export const getProduct = op<[id: string, options?: { includeMerchantSpecificData?: boolean }], { product: Product }>({
 *   method: 'GET', path: '/stores-reader/v1/products/{id}', args: ['id', 'options:'],
 * });
 */
export function op<A extends unknown[], R>(spec: OpSpec) {
  const n = spec.args?.length ?? 0;
  const fn = (client: AnyClient, ...args: [...A, CallOptions?]): Promise<R> =>
    client.call<R>(spec, args.slice(0, n), args[n] as CallOptions | undefined);
  return Object.assign(fn, { spec });
}
