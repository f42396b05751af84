/**
 * The one request engine every call goes through: auth headers from the client's strategy,
 * timeouts, retries, the one forced refresh after a 401, shared reads, `X-Wix-Consistent` and error
 * mapping. Declared calls (`op`, in `op.ts`) build their message, path, query and transforms, then
 * send through {@link request}. It lives apart from `createClient` so that a bundle without calls
 * (a login page that only holds tokens) does not carry it.
 * @module
 */

import { BAD_HEADER, backoff, timeoutOf, within } from '../auth/token-request.ts';
import type { AnyClient, RequestOptions } from '../client.ts';
import { errorFromResponse, ShopkitError, systemError, ValidationError } from './errors.ts';
import type { CallOptions } from './op.ts';

const METHODS = ['GET', 'POST', 'PATCH', 'PUT', 'DELETE'];

/**
 * Whether a text may hold a non-finite number string. Two plain searches whose first letters are
 * rare in JSON (V8 skips to them with `memchr`), several times faster than a regular expression
 * (the bench's products-page table has the figure). Any other `NaN"` or `Infin` (a product called
 * "Infinity scarf") only costs the full walk.
 */
export const mayBeNonFinite = (text: string) => text.includes('NaN"') || text.includes('Infin');

/**
 * Deadlines. Calls whose deadlines fall in the same slot share one `AbortController`, which aborts
 * when the slot ends: a controller for every call cost more than the rest of the engine's work on a
 * call, and so did a timer for every call. A slot is 1/128 of the timeout wide, at least 10 ms, so a
 * call times out at most that much late (30 s → 234 ms), never early. Slots outlive their calls
 * until they end, so calls made one after another share them too. A slot serves at most 10 calls:
 * every call leaves a listener on its signal (Node's `fetch`, undici, until garbage collection; a
 * call with a signal of the caller's own, the one that chains it, while in flight), and Node warns
 * of a leak on stderr past 10 (`MaxListenersExceededWarning`: it did for 11 calls at once with
 * signals, as React Query sends them, at 32 a slot); undici also copies the list on every request
 * after the first, so a long list costs every call (a plain get-cart `fetch` over loopback sharing
 * one signal among 1000 calls ran at 0.93 of one without a signal; among 16, at 0.99). The next
 * slot takes over its end and keeps it in `p` while it has calls in flight.
 * One ticker ends the slots every 10 ms while any call is in flight and stops after, so it holds a
 * Node process open only while a call is in flight.
 */
interface Slot {
  c: AbortController;
  /** Calls it has served. */
  u: number;
  /** Its calls in flight. */
  n: number;
  /** The full slot with calls in flight it took over from, with the same end. */
  p?: Slot;
}
const slots = new Map<number, Slot>();
let busy = 0;
let ticker: any;

/** For tests: the length of each live deadline's chain of slots. */
export const slotChains = () =>
  [...slots.values()].map((s) => {
    let n = 0;
    for (let x: Slot | undefined = s; x; x = x.p) n++;
    return n;
  });

/** The slot of a deadline `ms` from now; the caller must decrement `busy` and its `n` once done. */
function hold(ms: number): Slot {
  busy++;
  // No deadline (a timeout of `Infinity`, or past timers' 2^31 ms): a signal of this call's own
  // that never aborts, not a slot kept (with its 10 calls' successors) until an end that never comes.
  if (!(ms < 2 ** 31)) return { c: new AbortController(), u: 0, n: 0 };
  const w = Math.max(10, ms >> 7);
  const at = Math.ceil((Date.now() + ms) / w) * w;
  let slot = slots.get(at);
  if (!slot || slot.u++ >= 10) {
    slot = { c: new AbortController(), u: 1, n: 0, p: slot };
    slots.set(at, slot);
    // A full slot without calls in flight leaves the chain: its signal is never handed out again,
    // and kept until a long deadline (an hour's) each grew memory with the calls made meanwhile.
    for (let x = slot; x.p; )
      if (x.p.n) x = x.p;
      else x.p = x.p.p;
  }
  slot.n++;
  ticker ??= setInterval(() => {
    for (const [end, s] of slots)
      if (end <= Date.now()) {
        slots.delete(end);
        for (let x: Slot | undefined = s; x; x = x.p) x.c.abort(new DOMException('timeout', 'TimeoutError'));
      }
    if (!busy) {
      clearInterval(ticker);
      ticker = undefined;
    }
  }, 10);
  return slot;
}

/**
 * The signal of an attempt (or of a wait within the call) until `end` (`s`): its slot's shared
 * signal (`d`), or with a caller's signal one of its own that either aborts. `x` gives the slot back
 * and takes the listeners off. (One-letter keys: property names stay in a minified bundle.)
 */
function arm(end: number, outer?: AbortSignal) {
  const slot = hold(Math.max(1, end - Date.now()));
  const deadline = slot.c.signal;
  let signal = deadline;
  let onAbort: () => void;
  if (outer) {
    const ctl = new AbortController();
    onAbort = () => ctl.abort(outer.aborted ? outer.reason : deadline.reason);
    if (outer.aborted) onAbort();
    outer.addEventListener('abort', onAbort);
    deadline.addEventListener('abort', onAbort);
    signal = ctl.signal;
  }
  const done = () => {
    busy--;
    slot.n--;
    if (outer) {
      outer.removeEventListener('abort', onAbort);
      deadline.removeEventListener('abort', onAbort);
    }
  };
  return { s: signal, d: deadline, x: done };
}

/** Sets each of `more` in `headers`, in place of a header of the same name in another case. */
function put(headers: Record<string, string>, more?: Record<string, string>) {
  for (const k in more) {
    for (const h in headers) if (h !== k && h.toLowerCase() === k.toLowerCase()) delete headers[h];
    headers[k] = more[k]!;
  }
}

/** How a call that was aborted, or ran out of time, fails. */
const ABORTED = { code: 'ABORTED', reason: 'the call was aborted' };
const TIMEOUT = { code: 'TIMEOUT', reason: 'the call timed out' };

/**
 * Waits `ms` before another attempt: `false` at once when the call's time (until `end`) would run
 * out first, or the wait is past timers' range (2^31 ms, which a timer fired after 1 ms: a
 * `Retry-After` of weeks with `maxDelayMs` and `timeoutMs` of `Infinity`); throws `ABORTED` when
 * the caller aborts meanwhile.
 */
async function pause(ms: number, end: number, outer?: AbortSignal) {
  if (!(ms < 2 ** 31) || Date.now() + ms >= end) return false;
  let t: any;
  await within(new Promise((r) => (t = setTimeout(r, ms))), outer).catch(() => {
    clearTimeout(t);
    throw systemError(null, ABORTED);
  });
  return true;
}

/**
 * `Retry-After` in seconds or as an HTTP date, in milliseconds; none (the backoff, then) for a
 * value that is neither, or a time already past (a negative number reads as a past date).
 */
function retryAfterMs(res: Response): number | undefined {
  const h = res.headers.get('retry-after');
  const ms = h ? (Number(h) >= 0 ? Number(h) * 1000 : Date.parse(h) - Date.now()) : Number.NaN;
  return ms >= 0 ? ms : undefined;
}

/** One request, with its retries and its one replay after a refresh; resolves with a 200's JSON object. */
async function send(client: AnyClient, method: string, url: string, init: RequestOptions): Promise<object> {
  const { auth, transport } = client;
  const { o: options, s: shared } = client._;
  // Each setting on its own: one given as `undefined` is the default (spread, it undid the default:
  // no retries for `attempts: undefined`, waits of NaN for `maxDelayMs: undefined`).
  const r = options.retry;
  const attempts = r?.attempts ?? 3;
  const outer = init.signal;
  // The timeout is the whole call's, retries and their waits included (not a number, the default:
  // NaN was no deadline at all).
  const end = Date.now() + timeoutOf(init.timeoutMs ?? options.timeoutMs);
  // Stringified once, before anything is sent: a body JSON cannot hold fails as it is, unretried.
  const body = init.body === undefined ? undefined : JSON.stringify(init.body);
  let refreshed = false;
  for (let attempt = 1; ; attempt++) {
    // Later headers win, whatever their case (wire §1.6): the client's and the call's over
    // Content-Type, X-Wix-Consistent and the strategy's over them.
    const headers: Record<string, string> =
      init.body !== undefined ? { 'Content-Type': 'application/json' } : {};
    put(headers, options.headers);
    put(headers, init.headers);
    if (shared.consistent) put(headers, { 'X-Wix-Consistent': shared.consistent });
    const { s: signal, d: deadline, x: done } = arm(end, outer);
    let res: Response | undefined;
    let text: string | undefined;
    let cause: unknown;
    let authed = false;
    try {
      // Within the attempt's deadline and abort: a call is not held by a slow token request, which
      // goes on for the others waiting on it (the strategy races it with `signal`).
      if (auth) put(headers, await auth.getAuthHeaders(transport, signal));
      authed = true;
      if (init.apiKey)
        headers.Authorization = headers.Authorization
          ? `${headers.Authorization},${init.apiKey}`
          : init.apiKey;
      // Not sent at all once aborted, whatever the transport's fetch does with the signal; and
      // not waited for past the deadline or the abort either: a transport that drops the signal
      // (a wrapper passing on the URL alone) does not hold the call, its answer is let go.
      if (signal.aborted) throw signal.reason;
      text = await within(
        (async () => {
          res = await transport.fetch(url, { method, headers, body, signal });
          return res.text();
        })(),
        signal,
      );
    } catch (e) {
      cause = e;
    }
    done();
    // The server may have applied a write by now: later reads must not join one sent before (`request`).
    if (!init.retrySafe) shared.w = -~shared.w!;
    if (text === undefined) {
      // The strategy's own failure (a refused token request) is thrown as it is.
      if (!authed && !signal.aborted) throw cause;
      // A header no request can carry (a key or token with a line break, as a wrapped line of an
      // env file gives, or a pasted curly quote): fetch refused it in words that quote the value.
      // Said without the value, and not retried: it is no network failure (looked for only when a
      // fetch failed).
      if (!res && BAD_HEADER.test(Object.values(headers).join()))
        throw systemError(null, {
          code: 'INVALID_HEADER',
          reason: 'a header holds a character no header may',
        });
      // Only a request that never got an answer is retried (never a caller's abort, nor a call
      // out of time), when there is time left for it.
      if (
        !res &&
        !outer?.aborted &&
        !deadline.aborted &&
        init.retrySafe &&
        attempt < attempts &&
        (await pause(backoff(r, attempt), end, outer))
      )
        continue;
      throw systemError(res && !outer?.aborted ? res.headers.get('x-wix-request-id') : null, {
        ...(outer?.aborted
          ? ABORTED
          : deadline.aborted
            ? TIMEOUT
            : res
              ? { code: 'NETWORK_ERROR', reason: 'the response was cut off' }
              : { code: 'NETWORK_ERROR', reason: 'the network request failed' }),
        status: outer?.aborted ? undefined : res?.status,
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
      // A large body whose text holds no non-finite number string (`"NaN"`, `"Infinity"`) needs no
      // walk of its float fields; a small one is not scanned, as walking them costs about as much
      // (a 10-item cart, 13 KiB: `npm run bench` prints both, and which is smaller varies by run).
      // Said on the call's own options, not in a `WeakSet` of answers, which cost the collector 2 %
      // of a products page.
      if (text.length > 16384 && !mayBeNonFinite(text)) init.finite = true;
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
      // The refresh within the call's time and abort, as an attempt's auth headers are: a slow token
      // endpoint held the call for the token request's own timeout, and said NETWORK_ERROR. It goes
      // on for the calls waiting on it.
      const a = arm(end, outer);
      try {
        // (a strategy without types may answer at once, not with a promise)
        if (await within(Promise.resolve(auth.onUnauthorized(transport, headers.Authorization)), a.s))
          continue;
      } catch (e) {
        throw a.s.aborted ? systemError(null, outer?.aborted ? ABORTED : TIMEOUT) : e;
      } finally {
        a.x();
      }
    }
    if (
      init.retrySafe &&
      attempt < attempts &&
      (status === 429 || status === 503) &&
      (await pause(Math.min(retryAfterMs(res) ?? backoff(r, attempt), r?.maxDelayMs ?? 10_000), end, outer))
    )
      continue;
    throw errorFromResponse({ status, statusText: res.statusText, body: parsed, requestId }, init.rename);
  }
}

/** Reports a failure of a call to the client's `onError`, then throws it (as a `ShopkitError`). */
export function fail(client: AnyClient, err: unknown, method: string, path: string): never {
  const error =
    err instanceof ShopkitError ? err : systemError(null, { reason: 'an unexpected failure', cause: err });
  client._.o.onError?.(error, { method, path });
  throw error;
}

/**
 * Sends one request through the engine (auth, retries, timeouts, errors) and resolves with the
 * parsed JSON object of a 200 answer. Declared calls use this; applications rarely need to.
 *
 * Identical reads already in flight share one request, unless a write's attempt ended since it
 * was sent (the answer might not show the write). Every caller gets its own copy, since
 * response transforms work in place: followers clone, and the first caller clones too when anyone
 * joined (the entry is gone before any caller resumes, so the count is final).
 * @example const out = await request(client, 'GET', '/ecom/v1/carts/current');
 */
export const request = <R = any>(client: AnyClient, method: string, path: string, init?: RequestOptions) =>
  // On a copy: the engine notes `finite` on the options, and the caller's are the caller's (a
  // reused object carried the note to an answer it did not hold).
  exchange<R>(client, method, path, { ...init });

/**
 * {@link request} on options of the caller's making, which it may write `finite` on: declared
 * calls (`op.ts`) make theirs for each call, and read the note after.
 */
export async function exchange<R = any>(
  client: AnyClient,
  method: string,
  path: string,
  init: RequestOptions,
): Promise<R> {
  const url = client.baseUrl + path + (init.query ? '?' + init.query : '');
  const reads = client._.r;
  // Reads without a signal or an API key of their own may share, within one auth epoch (see
  // `AuthStrategy.epoch`) and between the same writes (`w`, counted by `send`, shared with derived
  // clients): a read made after a write must not get an answer from before it. Calls with their
  // own headers or timeout share only with identical ones (a timeout of 0 too, which shared with
  // the client's: a read joining it timed out at once with it).
  const key =
    method === 'GET' && !init.signal && !init.apiKey
      ? // A template, not an array joined: joining cost get-cart 2 points of raw in memory.
        `${client.auth?.epoch} ${client._.s.w} ${init.timeoutMs} ` +
        (init.headers ? url + JSON.stringify(init.headers) : url)
      : '';
  try {
    if (!METHODS.includes(method))
      throw new ValidationError([
        { field: 'method', description: `must be one of ${METHODS.join(', ')} (not ${method})` },
      ]);
    if (!key) return (await send(client, method, url, init)) as R;
    const joined = reads.get(key);
    if (joined) {
      joined.n++;
      const raw = await joined.p;
      init.finite = joined.i.finite;
      return structuredClone(raw) as R;
    }
    const entry = { p: send(client, method, url, init), n: 0, i: init };
    reads.set(key, entry);
    try {
      const raw = await entry.p;
      return (entry.n ? structuredClone(raw) : raw) as R;
    } finally {
      if (reads.get(key) === entry) reads.delete(key);
    }
  } catch (err) {
    return fail(client, err, method, path);
  }
}

/**
 * `POST /graphql/{apiVersion}` (default `alpha`) with `{query, variables}`.
 * @example const { data } = await graphql(client, 'query { products { id } }');
 */
export async function graphql<D = Record<string, unknown>>(
  client: AnyClient,
  query: string,
  variables?: Record<string, unknown>,
  opts: CallOptions & { apiVersion?: string } = {},
): Promise<{ data: D; errors?: unknown[] }> {
  const out = await exchange(client, 'POST', `/graphql/${encodeURIComponent(opts.apiVersion ?? 'alpha')}`, {
    ...opts,
    body: { query, variables },
  });
  return { data: out.data ?? {}, errors: out.errors };
}
