/**
 * Call declarations. A domain module is a list of `op(...)` declarations: method, path, how the
 * positional arguments form the request message, and the fields to transform. This layer builds
 * the message, fills the path, encodes the query (or falls back to POST) and applies the
 * transforms; auth, retries and errors are the engine's (`exchange`, in `engine.ts`).
 * @module
 */
import type { AnyClient, RequestOptions } from '../client.ts';
import { lean, type TransformSpec, walk } from '../transforms.ts';
import { encodeQuery, fillPath, getPath, isObj, setPath } from './encode.ts';
import { exchange, fail } from './engine.ts';
import { ShopkitError, ValidationError } from './errors.ts';

export type Method = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';

/** Options every call accepts as its last argument. */
export interface CallOptions {
  /** Aborts the call. */
  signal?: AbortSignal;
  /** Overrides the client's timeout for this call, in milliseconds. */
  timeoutMs?: number;
  /** Extra headers for this call (they win over client headers, never over auth). */
  headers?: Record<string, string>;
  /**
   * An API key sent after the strategy's token, `Authorization: <token>,<apiKey>` (wire §1.6): a
   * trusted server acting for a buyer, for the merchant-only parts of the buyer's cart (custom
   * line items, merchant discounts). For a client with a buyer's token (`OAuthStrategy`); an
   * `ApiKeyStrategy` client already sends its key. Never put an API key in browser code.
   */
  apiKey?: string;
}

/** The declaration of one platform call. */
export interface OpSpec {
  /** HTTP method. */
  method: Method;
  /** Path on the `www.wixapis.com` family, with `{field}` or `{a.b}` parameters from the message. */
  path: string;
  /**
   * How positional arguments form the request message, one entry per argument:
   * `'name'` (the argument is field `name`), `'name:wire.path'` (the argument goes at that path),
   * or `'name:'` (the argument object is spread into the message; `':'`, a message a wrapper built
   * from its own parameters, whose fields keep their names). Names are used to report field
   * violations in the caller's terms.
   */
  args?: string[];
  /** GET/DELETE with the "complex" query form (`.r` base64url JSON when the message is nested). */
  complexQuery?: boolean;
  /** GET that switches to POST with a JSON body when its query string exceeds 4000 characters. */
  fallback?: boolean;
  /** A POST that is safe to retry (a read sent as POST); `false` for a GET that is not (it spends something). */
  idempotent?: boolean;
  /** Needs an elevated client (API key, app, platform user); refused locally otherwise. */
  elevated?: boolean;
  /** Request field transforms (SDK → wire), as a tree of fields: `{ thing: { at: date } }`. */
  req?: TransformSpec;
  /** Response field transforms (wire → SDK), as a tree of fields. */
  res?: TransformSpec;
  /** Return this key of the response instead of the whole envelope. */
  unwrap?: string;
  /** A readable name for messages, e.g. `products.createProduct`. */
  name?: string;
}

/** One argument's place in the message: its position among the arguments, name and path. */
interface ArgPlace {
  at: number;
  name: string;
  path: string;
}

/** The places of a call's arguments, shallow ones first (see {@link buildMessage}). */
export const parseArgs = (args: string[] = []): ArgPlace[] => {
  const depth = (p: ArgPlace) => (p.path ? p.path.split('.').length : 0);
  return args
    .map((a, at) => {
      const [name = '', path = name] = a.split(/:(.*)/);
      return { at, name, path };
    })
    .sort((a, b) => depth(a) - depth(b));
};

/**
 * Builds the request message from positional arguments, never mutating the caller's objects.
 * Places come shallow first: a spread argument (`'options:'`) must not overwrite `'id:product.id'`.
 */
export function buildMessage(places: ArgPlace[], values: unknown[]): Record<string, unknown> {
  let msg: Record<string, unknown> = {};
  for (const place of places) {
    const value = values[place.at];
    if (value !== undefined) {
      if (!place.path) msg = { ...msg, ...(value as object) };
      else {
        const old = getPath(msg, place.path);
        setPath(msg, place.path, isObj(value) && isObj(old) ? { ...old, ...value } : value);
      }
    }
  }
  return msg;
}

/**
 * Maps a wire field name back to the caller's argument names: the longest argument path that the
 * field starts with wins (`product.id` → `id`, `product.name` → `product.name`, `lineItems` →
 * `options.lineItems` for a spread `options` argument).
 */
export const argFieldMapper =
  (places: ArgPlace[]) =>
  (field: string): string => {
    let best: ArgPlace | undefined;
    for (const p of places)
      if (
        (!p.path || field === p.path || /^[.[]/.test(field.slice(p.path.length))) &&
        field.startsWith(p.path) &&
        (!best || p.path.length > best.path.length)
      )
        best = p;
    return !best
      ? field
      : best.path || !best.name
        ? best.name + field.slice(best.path.length)
        : field
          ? `${best.name}.${field}`
          : best.name;
  };

/**
 * A copy of a request message's plain objects and arrays (the request transforms work in place),
 * other values kept as they are. Not `structuredClone`, which refuses a Proxy (a Vue `reactive`
 * object, a MobX observable) and a class instance.
 */
const copy = (v: unknown): any =>
  Array.isArray(v)
    ? v.map(copy)
    : isObj(v)
      ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, copy(x)]))
      : v;

/**
 * Runs one declared call: `call(client, spec, [arg1, arg2], callOptions)`. Domain functions are
 * `op(spec)`; this is for one-off calls (an emulator admin path in a test, say).
 */
export async function call<R = unknown>(
  client: AnyClient,
  spec: OpSpec,
  args: unknown[],
  opts: CallOptions = {},
  // The arguments' places and the field renamer: a declared call's are made once, by `op`.
  places = parseArgs(spec.args),
  rename = argFieldMapper(places),
): Promise<R> {
  let method: string = spec.method;
  let query = '';
  let body: unknown;
  let filled: ReturnType<typeof fillPath>;
  try {
    if (spec.elevated && !client.auth?.elevated)
      throw new ShopkitError(
        `${spec.name ?? spec.path} needs an elevated client (ApiKeyStrategy or AppStrategy); this client has none.`,
        { code: 'ELEVATION_REQUIRED', description: 'An elevated client is required' },
      );
    let msg = buildMessage(places, args);
    if (spec.req) msg = walk(copy(msg), spec.req, 0);
    filled = fillPath(spec.path, msg);
    if ('missing' in filled)
      throw new ValidationError([
        {
          field: rename(filled.missing),
          description: filled.dot ? 'must not be . or ..' : 'must be a non-empty string',
        },
      ]);
    if (method === 'GET' || method === 'DELETE') {
      query = encodeQuery(msg, !!spec.complexQuery);
      // A GET whose query string would be too long for proxies goes as a POST with a JSON body.
      if (spec.fallback && method === 'GET' && query.length > 4000) {
        method = 'POST';
        query = '';
        body = msg;
      }
    } else body = msg;
  } catch (err) {
    return fail(client, err, spec.method, spec.path);
  }
  const init: RequestOptions = {
    ...opts,
    query,
    body,
    retrySafe: spec.method === 'GET' ? spec.idempotent !== false : !!spec.idempotent,
    rename,
  };
  const raw = await exchange<any>(client, method, filled.path, init);
  try {
    const out = spec.res ? walk(raw, init.finite ? lean(spec.res) : spec.res, 1) : raw;
    return spec.unwrap ? out[spec.unwrap] : out;
  } catch (err) {
    return fail(client, err, spec.method, spec.path);
  }
}

/**
 * Declares one platform call as a function `(client, ...args, callOptions?)`.
 * @example
 * export const getProduct = op<[id: string, options?: { includeMerchantSpecificData?: boolean }], { product: Product }>({
 *   method: 'GET', path: '/stores-reader/v1/products/{id}', args: ['id', 'options:'],
 * });
 */
/* @__NO_SIDE_EFFECTS__ */
export function op<A extends unknown[], R>(spec: OpSpec) {
  const places = parseArgs(spec.args);
  const rename = argFieldMapper(places);
  const n = places.length;
  const fn = (client: AnyClient, ...args: [...A, CallOptions?]): Promise<R> =>
    call<R>(client, spec, args.slice(0, n), args[n] as CallOptions | undefined, places, rename);
  return Object.assign(fn, { spec });
}
