/**
 * Request messages, as the platform reads them (wire §1.4): a JSON body for POST/PATCH/PUT; for
 * GET/DELETE either `.r` (base64url JSON of the whole message) or dotted query parameters.
 * @module
 */
import type { MiddlewareHandler } from 'hono';
import { appError, invalid } from './errors.ts';

/** Bodies above this size are refused with 413 before parsing (`limitBody`, for every request). */
export const MAX_BODY_BYTES = 1024 * 1024;

/**
 * Refuses a request body over `maxBytes` with 413 `PAYLOAD_TOO_LARGE` while it arrives (checklist
 * 49), whatever the headers say: a declared `Content-Length` over the cap is refused unread (the
 * server's HTTP parser never delivers more than it declares), and any other body (chunked) is read
 * only up to the cap, so a large upload costs no more memory than the cap. A body within the cap
 * reaches the handler whole. A body with a content coding (gzip, …) is refused with 415.
 * @example app.use('*', limitBody()); app.post('/login-form', limitBody(MAX_FORM_BYTES), handler);
 */
export const limitBody =
  (maxBytes = MAX_BODY_BYTES): MiddlewareHandler =>
  async (c, next) => {
    if (c.req.method === 'GET' || c.req.method === 'HEAD') return next();
    // Bodies are read as sent: a compressed one would be read as bytes of JSON or a form and
    // refused as malformed, so say what is wrong instead (RFC 9110 §8.4.1).
    const coding = c.req.header('content-encoding');
    if (coding && coding.trim().toLowerCase() !== 'identity')
      throw appError(
        415,
        'UNSUPPORTED_MEDIA_TYPE',
        `Request bodies are read without a content coding (Content-Encoding: ${coding.slice(0, 40)})`,
      );
    const declared = c.req.header('content-length');
    // Decided by the header alone, the body untouched: a refused one is then drained by the server
    // and the connection stays usable.
    if (declared !== undefined && c.req.header('transfer-encoding') === undefined) {
      if (Number(declared) > maxBytes) throw tooLarge(maxBytes);
      return next();
    }
    const body = c.req.raw.body;
    if (!body) return next();
    const reader = body.getReader();
    const chunks: Uint8Array[] = [];
    let size = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      // The rest is never read: the connection closes after the answer, so nothing reuses it.
      if (size > maxBytes) throw tooLarge(maxBytes, { Connection: 'close' });
      chunks.push(value);
    }
    c.req.raw = new Request(c.req.raw, { body: Buffer.concat(chunks) });
    return next();
  };

/**
 * Messages that nest objects and arrays deeper than this are refused with 400 before any schema,
 * handler or query compiler walks them: a recursive walk of deeper JSON overflows the stack.
 */
export const MAX_JSON_DEPTH = 64;

/**
 * Whether a parsed JSON value nests objects and arrays more than `max` levels deep (`{}` is one
 * level, a scalar none). Walked with an explicit stack, so any depth is safe to check.
 */
export function nestsDeeperThan(value: unknown, max = MAX_JSON_DEPTH): boolean {
  if (value === null || typeof value !== 'object') return false;
  const stack: Array<[object, number]> = [[value, 1]];
  while (stack.length) {
    const [v, depth] = stack.pop()!;
    if (depth > max) return true;
    for (const child of Object.values(v))
      if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
  }
  return false;
}

const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/** `a.b=1&a.c=2&ids=1&ids=2` → `{a:{b:'1',c:'2'}, ids:['1','2']}`. */
export function unflatten(params: URLSearchParams): Record<string, unknown> {
  const out: Record<string, any> = {};
  for (const key of new Set(params.keys())) {
    const values = params.getAll(key);
    const segs = key.split('.');
    if (segs.some((s) => s === '' || FORBIDDEN_KEYS.has(s)))
      throw invalid([{ field: key, description: 'is not a valid parameter name', violatedRule: 'FORMAT' }]);
    if (segs.length + (values.length > 1 ? 1 : 0) > MAX_JSON_DEPTH) throw tooDeep(key);
    let cur = out;
    for (let i = 0; i < segs.length - 1; i++) {
      const seg = segs[i]!;
      if (cur[seg] === undefined) cur[seg] = {};
      else if (typeof cur[seg] !== 'object' || Array.isArray(cur[seg]))
        throw invalid([
          { field: key, description: 'conflicts with another parameter', violatedRule: 'FORMAT' },
        ]);
      cur = cur[seg];
    }
    const last = segs[segs.length - 1]!;
    if (cur[last] !== undefined && typeof cur[last] === 'object')
      throw invalid([
        { field: key, description: 'conflicts with another parameter', violatedRule: 'FORMAT' },
      ]);
    cur[last] = values.length > 1 ? values : values[0];
  }
  return out;
}

/** JSON in base64url, its `=` padding optional (the platform's SDKs drop it; wire §1.4). */
function base64urlJson(value: string): unknown {
  if (!/^[A-Za-z0-9_-]*={0,2}$/.test(value)) throw new Error('not base64url');
  const text = new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(value, 'base64url'));
  return JSON.parse(text);
}

/** Reads the message of a GET/DELETE from its query string. */
export function decodeQuery(url: URL): Record<string, unknown> {
  const params = url.searchParams;
  const r = params.get('.r');
  if (r !== null) {
    let msg: unknown;
    try {
      msg = base64urlJson(r);
    } catch {
      throw invalid([{ field: '.r', description: 'must be base64url-encoded JSON', violatedRule: 'FORMAT' }]);
    }
    if (!msg || typeof msg !== 'object' || Array.isArray(msg))
      throw invalid([{ field: '.r', description: 'must encode a JSON object', violatedRule: 'FORMAT' }]);
    if (nestsDeeperThan(msg)) throw tooDeep('.r');
    return msg as Record<string, unknown>;
  }
  return unflatten(params);
}

/** Reads the JSON body of a POST/PATCH/PUT; an empty body is `{}`. */
export async function decodeBody(req: Request): Promise<Record<string, unknown>> {
  const declared = Number(req.headers.get('content-length') ?? 0);
  if (declared > MAX_BODY_BYTES) throw tooLarge();
  const buf = await req.arrayBuffer();
  if (buf.byteLength > MAX_BODY_BYTES) throw tooLarge();
  if (buf.byteLength === 0) return {};
  let msg: unknown;
  try {
    msg = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(buf));
  } catch {
    throw appError(400, 'MALFORMED_REQUEST', 'The request body is not valid JSON');
  }
  if (!msg || typeof msg !== 'object' || Array.isArray(msg))
    throw appError(400, 'MALFORMED_REQUEST', 'The request body must be a JSON object');
  if (nestsDeeperThan(msg))
    throw appError(
      400,
      'MALFORMED_REQUEST',
      `The request body nests objects and arrays more than ${MAX_JSON_DEPTH} levels deep`,
      { maxDepth: MAX_JSON_DEPTH },
    );
  return msg as Record<string, unknown>;
}

/** The violation of a message nested deeper than `MAX_JSON_DEPTH`, on `field`. */
export const tooDeep = (field: string) =>
  invalid([
    {
      field,
      description: `must not nest objects and arrays more than ${MAX_JSON_DEPTH} levels deep`,
      violatedRule: 'FORMAT',
      data: { maxDepth: MAX_JSON_DEPTH },
    },
  ]);

function tooLarge(maxBytes = MAX_BODY_BYTES, headers: Record<string, string> = {}) {
  const e = appError(413, 'PAYLOAD_TOO_LARGE', `The request body is larger than ${maxBytes} bytes`);
  Object.assign(e.headers, headers);
  return e;
}
