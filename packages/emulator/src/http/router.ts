/**
 * The route table. A route names its method, its path on each path family (wire §1.3), the
 * message schema, who may call it, and a handler that works on a decoded, validated message.
 * Decoding, auth, validation, the envelope on failure and 405/404 are handled here once. A hosted
 * page's HTML form posts to a route whose `body` is `form`: the same table, access and errors.
 * @module
 */
import type { Context, Handler, Hono, MiddlewareHandler } from 'hono';
import type { z } from 'zod';
import { actor } from '../actor.ts';
import type { Emulator, Identity } from '../context.ts';
import { decodeBody, decodeQuery, limitBody } from './decode.ts';
import { ApiError, appError, forbidden, invalid, unauthenticated } from './errors.ts';
import { parseMessage } from './validate.ts';

export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';

/**
 * Who may call a route: `public` (no credentials: token endpoint, hosted pages), `caller` (no
 * credentials needed, but a token presented must be valid: register, login, verify and recover
 * answer a session token for the caller's client, and a revoked or expired token taken as no
 * caller gave one no client could redeem, where a 401 has the client renew and send again),
 * `anyone` (any authenticated caller: visitor, member, platform user or app), `member` (member or
 * user), `elevated` (platform user or app: merchant calls).
 */
export type Access = 'public' | 'caller' | 'anyone' | 'member' | 'elevated';

/** Path prefixes per service: the `www.wixapis.com` family first, then the custom-host family. */
export const FAMILY = {
  cart: ['/ecom', '/_api/ecom-cart'],
  catalogRead: ['/stores-reader', '/_api/catalog-reader-server'],
  catalogWrite: ['/stores', '/_api/catalog-server'],
  collectionsV2: [''],
  redirects: ['/_api/redirects-api', '/headless'],
  authentication: ['/_api/iam/authentication'],
  recovery: ['/_api/iam/recovery', '/_iam/recovery'],
  verification: ['/_api/iam/verification'],
  oauth: ['', '/_api'],
  none: [''],
} as const;

export interface RouteContext<M> {
  /** The decoded, validated request message (path parameters included). */
  msg: M;
  /** Who is calling. */
  identity: Identity;
  emu: Emulator;
  /** The Hono context, for headers and raw access. */
  c: Context;
}

export interface RouteDef<S extends z.ZodType> {
  method: HttpMethod;
  /** Path prefixes to serve it under (a `FAMILY` entry). */
  family: readonly string[];
  /** Path after the prefix, with `{field}` or `{a.b}` parameters, e.g. `/v1/products/{product.id}`. */
  path: string;
  access: Access;
  schema?: S;
  /**
   * How a POST/PATCH/PUT message is read: the platform's JSON body (default), or the fields of a
   * hosted page's HTML form (`application/x-www-form-urlencoded` or `multipart/form-data`, string
   * fields only, at most `MAX_FORM_BYTES`). Path parameters win over form fields of the same name.
   * `json-or-form`: a form when the content type says so, else JSON (OAuth endpoints, which RFC
   * clients post as forms and the platform's clients as JSON).
   */
  body?: 'json' | 'form' | 'json-or-form';
  /**
   * For a route whose clients read application errors only (login, wire §8.6: the platform SDK
   * throws a `TypeError` on a validation error): the application error a field's violation found
   * before the handler runs (text no storage can hold, a body too deep) is answered as.
   */
  asApplicationError?: (field: string, description: string) => ApiError;
  /** Returns the JSON body (HTTP 200), or a `Response` for pages and redirects. */
  handler: (ctx: RouteContext<z.output<S>>) => Promise<unknown> | unknown;
}

/** One served route, as listed by `Router.list()`. */
export interface Registered {
  method: HttpMethod;
  /** Full path with Hono-style parameters, e.g. `/stores/v1/products/:id`. */
  path: string;
  access: Access;
  regex: RegExp;
}

export class Router {
  private readonly table: Registered[] = [];
  constructor(
    private readonly app: Hono,
    private readonly emu: Emulator,
  ) {}

  route<S extends z.ZodType>(def: RouteDef<S>) {
    const params: Array<{ hono: string; field: string }> = [];
    const honoPath = def.path.replace(/\{([^}]+)\}/g, (_, field: string) => {
      const hono = field.replace(/\./g, '_');
      params.push({ hono, field });
      return `:${hono}`;
    });
    for (const prefix of def.family) {
      const full = prefix + honoPath;
      this.table.push({
        method: def.method,
        path: full,
        access: def.access,
        regex: pathRegex(full),
      });
      this.app.on(def.method, full, async (c) => {
        const identity = await this.emu.identify(c.req.header('authorization'), c.req.header('wix-site-id'));
        checkAccess(def.access, identity, !!c.req.header('authorization'));
        let msg: z.output<S>;
        try {
          const raw =
            def.method === 'GET' || def.method === 'DELETE'
              ? decodeQuery(new URL(c.req.url))
              : def.body === 'form' || (def.body === 'json-or-form' && isForm(c.req.header('content-type')))
                ? await decodeForm(c.req.raw)
                : await decodeBody(c.req.raw);
          for (const p of params) setPath(raw, p.field, c.req.param(p.hono));
          const bad = badTextAt(raw);
          if (bad) throw invalid([bad]);
          msg = (def.schema ? parseMessage(def.schema, raw) : raw) as z.output<S>;
        } catch (e) {
          const v = e instanceof ApiError && 'validationError' in e.details && e.details.validationError;
          const first = v ? v.fieldViolations[0] : undefined;
          throw first && def.asApplicationError ? def.asApplicationError(first.field, first.description) : e;
        }
        const out = await actor.run(identity, () => def.handler({ msg, identity, emu: this.emu, c }));
        if (out instanceof Response) return out;
        return c.json(out ?? {}, 200);
      });
    }
  }

  /**
   * A hosted page's link or form, whose handler reads its own input and answers HTML: served on
   * `path` as given, listed with the API routes (`list()`, so the fuzzer reaches it), a form capped
   * at `MAX_FORM_BYTES`, and text no storage can hold refused before the handler runs
   * (`storableInput`).
   * @example router.page('POST', '/reset-password', async (c) => …);
   */
  page(method: 'GET' | 'POST', path: string, handler: Handler) {
    this.table.push({ method, path, access: 'public', regex: pathRegex(path) });
    if (method === 'POST') this.app.post(path, limitBody(MAX_FORM_BYTES), storableInput, handler);
    else this.app.get(path, storableInput, handler);
  }

  /** Every route served, for tools and the fuzzer. */
  list(): readonly Registered[] {
    return this.table;
  }

  /** Whether some other method is served on this path (for 405 instead of 404). */
  allowedMethods(path: string): HttpMethod[] {
    return [...new Set(this.table.filter((r) => r.regex.test(path)).map((r) => r.method))];
  }
}

/** A Hono path's parameters (`:id`) as one segment each. */
const pathRegex = (path: string) => new RegExp(`^${path.replace(/:[A-Za-z_]+/g, '[^/]+')}$`);

/** A UTF-16 surrogate standing alone (with the `u` flag, a paired one reads as one code point). */
const UNPAIRED = /\p{Cs}/u;
/** Why a text cannot be stored: PostgreSQL text holds no NUL, and its JSON no unpaired surrogate. */
const textProblem = (s: string) =>
  s.includes('\u0000')
    ? 'must not contain the NUL character (U+0000)'
    : UNPAIRED.test(s)
      ? 'must be valid Unicode text (an unpaired surrogate such as \\ud800 is not)'
      : undefined;

/**
 * The first field of a request message whose text (a value or a key) holds U+0000 or an unpaired
 * UTF-16 surrogate, named as the platform names fields (`lineItems[0].catalogReference.catalogItemId`),
 * with the reason; `undefined` when none does. Either, reaching a query, was a 500 (or, in a text
 * column, a silent U+FFFD): every route refuses them with a 400 first. So is a member named
 * `__proto__`, which no copy of the message keeps.
 */
export function badTextAt(value: unknown, field = ''): { field: string; description: string } | undefined {
  if (typeof value === 'string') {
    const description = textProblem(value);
    return description && { field: field || '(message)', description };
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const at = badTextAt(value[i], `${field}[${i}]`);
      if (at) return at;
    }
  } else if (value && typeof value === 'object')
    for (const [key, v] of Object.entries(value)) {
      const name = field ? `${field}.${key}` : key;
      // JSON.parse keeps a `__proto__` member, but every copy made by assignment (a schema's
      // parse) sets the prototype instead: a filter on it was dropped and all rows answered.
      const description = key === '__proto__' ? 'is not a valid field name' : textProblem(key);
      if (description) return { field: name, description };
      const at = badTextAt(v, name);
      if (at) return at;
    }
  return undefined;
}

/**
 * The check every API route makes (`badTextAt`), for the hosted pages, whose handlers read their
 * own input (`Router.page`): a path or query parameter, or a form field, holding U+0000 or an
 * unpaired surrogate is refused with the same 400 before the handler runs (it reached their
 * queries: a 500). After `limitBody`, as it reads a form's body (Hono keeps it parsed for the
 * handler).
 */
const storableInput: MiddlewareHandler = async (c, next) => {
  const fields: [string, unknown][] = [...Object.entries(c.req.param()), ...new URL(c.req.url).searchParams];
  if (isForm(c.req.header('content-type'))) {
    let form: Record<string, unknown>;
    try {
      form = await c.req.parseBody();
    } catch {
      // A multipart body without its boundary, or not split by it (the handlers never see it).
      throw appError(400, 'MALFORMED_REQUEST', 'The request body is not a valid form');
    }
    fields.push(...Object.entries(form));
  }
  for (const [key, value] of fields) {
    const bad = badTextAt({ [key]: value });
    if (bad) throw invalid([bad]);
  }
  await next();
};

/** The headers of a response that carries tokens (checklist 42, RFC 6749 §5.1). */
export const NO_STORE = { 'Cache-Control': 'no-store', Pragma: 'no-cache' } as const;

/** Marks a response that carries tokens as not cacheable (checklist 42, RFC 6749 §5.1). */
export function noStore(c: Context) {
  for (const [k, v] of Object.entries(NO_STORE)) c.header(k, v);
}

/** The hosted pages' forms are small; a larger form is refused before it is parsed. */
export const MAX_FORM_BYTES = 16 * 1024;

const FORM_TYPES = ['application/x-www-form-urlencoded', 'multipart/form-data'];
/** `Multipart/Form-Data; boundary=…` → `multipart/form-data`. */
const mediaType = (contentType = '') => contentType.split(';')[0]!.trim().toLowerCase();
const isForm = (contentType?: string) => FORM_TYPES.includes(mediaType(contentType));
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/** The string fields of an HTML form post (the first value of a repeated field); empty is `{}`. */
async function decodeForm(req: Request): Promise<Record<string, unknown>> {
  const tooLarge = () =>
    appError(413, 'PAYLOAD_TOO_LARGE', `The form is larger than ${MAX_FORM_BYTES} bytes`);
  if (Number(req.headers.get('content-length') ?? 0) > MAX_FORM_BYTES) throw tooLarge();
  const buf = await req.arrayBuffer();
  if (buf.byteLength > MAX_FORM_BYTES) throw tooLarge();
  if (buf.byteLength === 0) return {};
  const contentType = req.headers.get('content-type') ?? '';
  const type = mediaType(contentType);
  if (!FORM_TYPES.includes(type))
    throw appError(415, 'UNSUPPORTED_MEDIA_TYPE', `The form must be sent as ${FORM_TYPES.join(' or ')}`);
  let fields: Iterable<[string, unknown]>;
  try {
    fields =
      type === 'multipart/form-data'
        ? await new Response(buf, { headers: { 'content-type': contentType } }).formData()
        : new URLSearchParams(new TextDecoder().decode(buf));
  } catch {
    throw appError(400, 'MALFORMED_REQUEST', 'The request body is not a valid form');
  }
  const out: Record<string, unknown> = {};
  for (const [k, v] of fields)
    if (typeof v === 'string' && !FORBIDDEN_KEYS.has(k) && !Object.hasOwn(out, k)) out[k] = v;
  return out;
}

/**
 * Puts a path parameter into the message at `path` (`product.id`). A missing parent is made; one
 * the body gave as something other than an object (`{"product": "x"}`, `null`, a list) is refused
 * (400), as its schema would: replaced, it was taken as an empty change and answered 200.
 */
function setPath(obj: Record<string, any>, path: string, value: unknown) {
  const segs = path.split('.');
  let cur = obj;
  for (let i = 0; i < segs.length - 1; i++) {
    const seg = segs[i]!;
    if (cur[seg] === undefined) cur[seg] = {};
    else if (!cur[seg] || typeof cur[seg] !== 'object' || Array.isArray(cur[seg]))
      throw invalid([{ field: segs.slice(0, i + 1).join('.'), description: 'must be an object' }]);
    cur = cur[seg];
  }
  cur[segs[segs.length - 1]!] = value;
}

function checkAccess(access: Access, who: Identity, hasHeader: boolean) {
  if (access === 'public') return;
  refuseAppWithoutInstance(who);
  if (access === 'caller' && (!hasHeader || who.type !== 'NONE')) return;
  if (who.type === 'NONE')
    throw hasHeader
      ? appError(401, 'UNAUTHENTICATED', 'The access token is invalid or expired')
      : unauthenticated();
  if (access === 'member' && who.type !== 'MEMBER' && who.type !== 'WIX_USER') throw forbidden();
  if (access === 'elevated' && who.type !== 'WIX_USER' && who.type !== 'APP') throw forbidden();
}

/**
 * An app token granted for no instance (client credentials without `instance_id`) is the app
 * acting as itself, on no site: refused (403) by every call that acts on the site.
 */
export function refuseAppWithoutInstance(who: Identity) {
  if (who.type === 'APP' && !who.instanceId)
    throw forbidden(
      'The app token was granted for no instance: ask for one with instance_id to act on this site',
    );
}
