/**
 * One POST to a token endpoint (`/oauth2/token`, or the apps' legacy `/oauth/access`), shared by
 * the OAuth and app strategies: JSON in, the token answer out, within the client's timeout.
 * @module
 */
import type { RetryOptions, Transport } from '../client.ts';
import { ShopkitError } from '../http/errors.ts';

/**
 * `p`, or the rejection of `signal`'s reason if it aborts first: a call's wait for a token request
 * that others share (the request goes on for them). Only a wait that has to happen pays for it.
 */
export const within = <T>(p: Promise<T>, signal?: AbortSignal) =>
  signal
    ? new Promise<T>((resolve, reject) => {
        const stop = () => reject(signal.reason);
        if (signal.aborted) stop();
        signal.addEventListener('abort', stop);
        p.then(resolve, reject).finally(() => signal.removeEventListener('abort', stop));
      })
    : p;

/**
 * A character no header value may hold: a control character but tab (a line break, NUL), or one
 * past Latin-1. Fetch refuses such a header in words that quote it.
 */
export const BAD_HEADER = /[^\t\x20-\xff]/;

/**
 * The full-jitter wait before the attempt after `attempt`, with a client's retry settings (shared
 * by the engine's retries and the token requests'). A setting given as `undefined` is the default.
 */
export const backoff = (r: RetryOptions | undefined, attempt: number) =>
  Math.random() * Math.min(r?.maxDelayMs ?? 10_000, (r?.baseDelayMs ?? 250) * 2 ** (attempt - 1));

/** A timeout as calls read it: no number, or below 0, is the default (NaN was no deadline at all). */
export const timeoutOf = (ms: unknown) => (typeof ms === 'number' && ms >= 0 ? ms : 30_000);

/** What a token endpoint answers. */
interface TokenResponse {
  access_token?: string;
  refresh_token?: string;
  expires_in?: number | string;
}

/**
 * Posts `body` to `path` and returns the answer. A network failure, a timeout or a 5xx is tried
 * again, with the client's retry settings (3 attempts in all by default, full-jitter backoff): the
 * server either never saw the grant or failed it; a 4xx is never retried (a refused refresh token
 * sent again stays refused). A grant that spends a one-time `code` (a member's authorization code,
 * an app's installation code) is sent once: the server may have spent it before its answer was
 * lost, and the code sent again is refused (and what the first answer issued revoked). Any other answer without an access token (a non-empty string)
 * throws `something went wrong`, with the platform's error code when it gave one; no message or
 * detail repeats the body's secrets.
 */
export async function postTokenRequest(
  t: Transport,
  path: string,
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
): Promise<TokenResponse & { access_token: string }> {
  const attempts = 'code' in body ? 1 : (t.retry?.attempts ?? 3);
  // Read as the engine reads a call's (no number, or below 0: the default; 2^31 ms or more, past
  // timers' range: none). `AbortSignal.timeout` threw a RangeError for `Infinity`, a fraction or a
  // negative number, which failed every call of the client, and fired at once from 2^31.
  const ms = Math.ceil(timeoutOf(t.timeoutMs));
  for (let attempt = 1; ; attempt++) {
    let res: Response | undefined;
    let json: TokenResponse & { details?: { applicationError?: { code?: string } } } = {};
    let cause: unknown;
    try {
      res = await t.fetch(t.baseUrl + path, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', ...headers },
        body: JSON.stringify(body),
        // A token endpoint that never answers must not hang every call behind it.
        signal: ms < 2 ** 31 ? AbortSignal.timeout(ms) : undefined,
      });
      // A `null` body reads as an empty answer: the refusal below, not a TypeError.
      json = (await res.json().catch(() => 0)) || json;
    } catch (e) {
      cause = e;
      // A header no request can carry (an API key with a line break): fetch's error quotes it.
      // Not retried, and said without it.
      if (BAD_HEADER.test(Object.values(headers).join()))
        throw new ShopkitError('something went wrong', {
          code: 'INVALID_HEADER',
          description: 'A header no request can carry',
        });
    }
    // An access token that is no string would go into `Authorization` and break the renewals later.
    if (res?.status === 200 && json.access_token && typeof json.access_token === 'string')
      return json as TokenResponse & { access_token: string };
    const wait = backoff(t.retry, attempt);
    // A wait of 2^31 ms or more, past timers' range (a timer fires it after 1 ms), is no retry, as
    // in the engine (`pause`): the failure is thrown at once.
    if ((!res || res.status > 499) && attempt < attempts && wait < 2 ** 31) {
      await new Promise((r) => setTimeout(r, wait));
      continue;
    }
    throw new ShopkitError('something went wrong', {
      status: res?.status,
      code: res ? String(json.details?.applicationError?.code ?? 'TOKEN_REQUEST_FAILED') : 'NETWORK_ERROR',
      description: res ? 'The token request was refused' : 'The token request failed',
      requestId: res?.headers.get('x-wix-request-id'),
      cause,
    });
  }
}
