/**
 * The raw-HTTP envelope of the generated `@wix/identity` oauth module (wire §5.6): its `token()`
 * and `tokenInfo()` POST `{body: <base64 of the raw body>, pathParams?, queryParams?, headers?,
 * method?, rawPath?, rawQuery?}`; `token()` reads `{body: <base64>, statusCode, headers: [{key,
 * value}]}` back, while `tokenInfo()` reads the plain token info (its generated code transforms no
 * bytes in the answer). The inner body is handled as the plain JSON the auth strategies send; for
 * `token()`, its answer, or its error envelope with the error's status as `statusCode`, travels
 * base64-encoded in an HTTP 200 (as the logout envelope does). How the live server treats the
 * envelope is unconfirmed (wire, open questions); this is the reading that serves both clients.
 * @module
 */
import { nestsDeeperThan, tooDeep } from './decode.ts';
import { ApiError, invalid } from './errors.ts';
import { badTextAt } from './router.ts';

/** The members of the request envelope; a message with any other member is a plain request. */
const ENVELOPE_KEYS = new Set([
  'body',
  'pathParams',
  'queryParams',
  'headers',
  'method',
  'rawPath',
  'rawQuery',
]);

/** The answer envelope. */
export interface RawAnswer {
  body: string;
  statusCode: number;
  headers: { key: string; value: string }[];
}

/**
 * The inner JSON object of a raw-HTTP request, or `undefined` when `msg` is a plain request
 * (it has no string `body`, or members the envelope does not have). A `body` that is not base64
 * of a JSON object is a 400 envelope.
 */
export function rawRequest(msg: Record<string, unknown>): Record<string, unknown> | undefined {
  if (typeof msg.body !== 'string' || Object.keys(msg).some((k) => !ENVELOPE_KEYS.has(k))) return undefined;
  let inner: unknown;
  try {
    inner = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(msg.body, 'base64')));
  } catch {}
  if (!inner || typeof inner !== 'object' || Array.isArray(inner))
    throw invalid([
      { field: 'body', description: 'must be the base64 of a JSON object (UTF-8)', violatedRule: 'FORMAT' },
    ]);
  // The checks the router makes of every message, which saw only the envelope (U+0000 in a client
  // id reached the database: a 500).
  if (nestsDeeperThan(inner)) throw tooDeep('body');
  const bad = badTextAt(inner, 'body');
  if (bad) throw invalid([bad]);
  return inner as Record<string, unknown>;
}

const json = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64');
const CONTENT_TYPE = { key: 'Content-Type', value: 'application/json' };

/**
 * Runs a handler on a raw-HTTP request's inner body and wraps its answer or its platform error,
 * with `headers` in either (a token answer's `Cache-Control: no-store`, checklist 42: the envelope
 * is the HTTP answer a caller may pass on as it is).
 */
export async function rawAnswer(
  run: () => Promise<unknown>,
  headers: Record<string, string> = {},
): Promise<RawAnswer> {
  const list = (more: Record<string, string> = {}) => [
    CONTENT_TYPE,
    ...Object.entries({ ...headers, ...more }).map(([key, value]) => ({ key, value })),
  ];
  try {
    return { body: json(await run()), statusCode: 200, headers: list() };
  } catch (e) {
    if (!(e instanceof ApiError)) throw e;
    return { body: json(e.toJSON()), statusCode: e.status, headers: list(e.headers) };
  }
}
