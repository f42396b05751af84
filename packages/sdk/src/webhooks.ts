/**
 * Receiving lifecycle events. The platform (and the emulator) POSTs each event as an RS256 JWT;
 * {@link process} verifies it with WebCrypto against your public key, unwraps the platform's
 * envelope and calls the handler for its type. Handlers are awaited: answer 2xx only once
 * `process` resolves, and a failed handler gets the event delivered again.
 *
 * @example
 * const event = await webhooks.process(await request.text(), {
 *   publicKey: process.env.WEBHOOK_PUBLIC_KEY,
 *   onProductChanged: (e) => reindex(e.entityId),
 * });
 * @module
 */
import { ShopkitError } from './http/errors.ts';
import type { Cart } from './modules/cart.ts';
import type { Collection } from './modules/collections.ts';
import type { Product } from './modules/products.ts';

/** A type as JSON carries it: timestamps are ISO strings (the SDK's read transforms are not applied). */
export type Wire<T> = T extends Date
  ? string
  : T extends (infer U)[]
    ? Wire<U>[]
    : T extends object
      ? { [K in keyof T]: Wire<T[K]> }
      : T;

/** One verified event. */
export interface WebhookEvent<E = unknown, T extends string = string> {
  /** The event id: the same on every delivery of one event, so duplicates can be dropped. */
  id: string;
  type: T;
  entityId: string;
  /** When the change happened. */
  time: Date;
  /** The site the event belongs to. */
  instanceId: string;
  /** The event's position in the log, when sent: later events of an entity have higher numbers. */
  sequence?: number;
  /** The entity after the change, the deleted entity's ids, or an action's body. */
  entity: E;
  /** Names of the top-level fields the change touched, when known. */
  modifiedFields?: string[];
}

/** Handler names and the event types they receive. */
export const EVENT_TYPES = {
  onCartCreated: 'wix.ecom.v1.cart_created',
  onCartUpdated: 'wix.ecom.v1.cart_updated',
  onCartDeleted: 'wix.ecom.v1.cart_deleted',
  onProductCreated: 'wix.stores.catalog.v1.product_created',
  onProductChanged: 'wix.stores.catalog.v1.product_changed',
  onProductDeleted: 'wix.stores.catalog.v1.product_deleted',
  onProductVariantsChanged: 'wix.stores.catalog.v1.product_variants_changed',
  onCollectionCreated: 'wix.stores.catalog.v1.collection_created',
  onCollectionChanged: 'wix.stores.catalog.v1.collection_changed',
  onCollectionDeleted: 'wix.stores.catalog.v1.collection_deleted',
  onRedirectSessionCreated: 'wix.headless.v1.redirect_session_created',
} as const;

/** What each event carries. */
export interface EventEntities {
  onCartCreated: Wire<Cart>;
  onCartUpdated: Wire<Cart>;
  /** `mergedIntoCartId` when a visitor's cart was merged into a member's on login. */
  onCartDeleted: { id: string; mergedIntoCartId?: string };
  onProductCreated: Wire<Product>;
  /** The whole product, or only its id when a change elsewhere touched it (collection membership). */
  onProductChanged: Wire<Product> | { productId: string };
  onProductDeleted: { productId: string };
  onProductVariantsChanged: Wire<Product>;
  onCollectionCreated: Wire<Collection>;
  onCollectionChanged: Wire<Collection>;
  onCollectionDeleted: { collectionId: string };
  onRedirectSessionCreated: { id: string; intent: string; fullUrl: string; createdDate?: string };
}

type Name = keyof typeof EVENT_TYPES;

/** One optional handler per event type. */
export type WebhookHandlers = {
  [K in Name]?: (event: WebhookEvent<EventEntities[K], (typeof EVENT_TYPES)[K]>) => unknown;
};

export interface ProcessOptions extends WebhookHandlers {
  /**
   * The platform's public key: a PEM `PUBLIC KEY` (SPKI; line breaks may be written `\n`, as in a
   * .env file), a JWK (an object, or its JSON text), or an imported `CryptoKey`.
   */
  publicKey: string | JsonWebKey | CryptoKey;
  /** Allowed clock difference for `exp` and `nbf`, in seconds (default 60). */
  clockToleranceSeconds?: number;
  /**
   * How long a token without `exp` stays acceptable after its `iat`, in seconds (default 3600). A
   * token with neither claim would never expire and is refused: a captured body could be replayed
   * forever.
   */
  maxAgeSeconds?: number;
  /** Called for event types without a handler above. */
  onOther?: (event: WebhookEvent) => unknown;
}

/**
 * A webhook body that cannot be trusted. `code` is `MALFORMED_TOKEN`, `UNSUPPORTED_ALGORITHM`,
 * `INVALID_KEY`, `INVALID_SIGNATURE`, `TOKEN_EXPIRED`, `TOKEN_NOT_YET_VALID` or `MALFORMED_EVENT`.
 */
export class WebhookError extends ShopkitError {
  // A field, as in http/errors.ts: minifiers rename classes.
  override name = 'WebhookError';
}

const fail = (code: string, description: string) => new WebhookError(description, { code, description });
const ALG = { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' };

const bytes = (b64url: string) =>
  Uint8Array.from(atob(b64url.replace(/-/g, '+').replace(/_/g, '/')), (c) => c.charCodeAt(0));

/** Parses JSON text (or base64url JSON); anything else, or a non-object, is `undefined`. */
function obj(text: unknown, b64 = false): Record<string, any> | undefined {
  try {
    const v = JSON.parse(b64 ? new TextDecoder().decode(bytes(text as string)) : (text as string));
    return v && typeof v === 'object' && !Array.isArray(v) ? v : undefined;
  } catch {
    return undefined;
  }
}

async function importKey(key: ProcessOptions['publicKey']): Promise<CryptoKey> {
  if (key && typeof key === 'object' && 'usages' in key) return key as CryptoKey;
  try {
    // A JWK kept as JSON text (an environment variable) is a JWK too.
    if (typeof key === 'string' && key.trim().startsWith('{')) key = JSON.parse(key) as JsonWebKey;
    if (typeof key !== 'string') return await crypto.subtle.importKey('jwk', key, ALG, false, ['verify']);
    // A PEM from a .env file may hold its line breaks as the two characters `\n`.
    const pem = /-----BEGIN PUBLIC KEY-----([A-Za-z0-9+/=\s\\]+)-----END PUBLIC KEY-----/.exec(key);
    if (pem)
      return await crypto.subtle.importKey('spki', bytes(pem[1]!.replace(/\\n|\s/g, '')), ALG, false, [
        'verify',
      ]);
  } catch {}
  throw fail('INVALID_KEY', 'publicKey must be an RSA public key: a PEM "PUBLIC KEY", a JWK or a CryptoKey');
}

/** `{entityAsJson}` or `{entity}` → the entity. */
const pick = (part: Record<string, any> | undefined, name: string) =>
  part && (typeof part[`${name}AsJson`] === 'string' ? JSON.parse(part[`${name}AsJson`]) : part[name]);

/**
 * The top-level field names of `modifiedFields`: a list of names, or the platform's object of field
 * paths (`contactInfo`, `contactInfo.address.city`, `lineItems[0]`) to their previous values.
 */
function fieldNames(modified: unknown): string[] | undefined {
  const paths = Array.isArray(modified)
    ? modified.filter((f) => typeof f === 'string')
    : modified && typeof modified === 'object'
      ? Object.keys(modified)
      : undefined;
  return paths && [...new Set(paths.map((f) => f.split(/[.[]/)[0]!))];
}

/**
 * Verifies a webhook body (the raw JWT text) and dispatches it to the handler for its type.
 * Resolves with the event once the handler has finished; rejects with a {@link WebhookError} for
 * a body that is not a valid, current RS256 token signed by `publicKey`, or with the handler's error.
 */
export async function process(body: string, options: ProcessOptions): Promise<WebhookEvent> {
  const parts = typeof body === 'string' ? /^([\w-]+)\.([\w-]+)\.([\w-]+)$/.exec(body.trim()) : null;
  if (!parts) throw fail('MALFORMED_TOKEN', 'The webhook body is not a JWT: expected three base64url parts');
  const header = obj(parts[1], true);
  const claims = obj(parts[2], true);
  if (!header || !claims) throw fail('MALFORMED_TOKEN', 'The webhook token header or payload is not JSON');
  if (header.alg !== 'RS256')
    throw fail(
      'UNSUPPORTED_ALGORITHM',
      `The webhook token uses ${typeof header.alg === 'string' ? JSON.stringify(header.alg.slice(0, 20)) : 'no algorithm'}; only RS256 is accepted`,
    );
  const key = await importKey(options.publicKey);
  const mismatch = () => fail('INVALID_SIGNATURE', 'The webhook signature does not match the public key');
  let signature: ReturnType<typeof bytes>;
  try {
    signature = bytes(parts[3]!);
  } catch {
    // Not even base64url of whole bytes (a cut-off signature): a bad signature, not a bad key.
    throw mismatch();
  }
  let ok = false;
  try {
    ok = await crypto.subtle.verify(ALG, key, signature, new TextEncoder().encode(`${parts[1]}.${parts[2]}`));
  } catch {
    throw fail('INVALID_KEY', 'publicKey cannot verify RS256 signatures');
  }
  if (!ok) throw mismatch();

  const now = Date.now() / 1000;
  const skew = options.clockToleranceSeconds ?? 60;
  for (const c of ['exp', 'nbf', 'iat'])
    if (c in claims && typeof claims[c] !== 'number')
      throw fail('MALFORMED_TOKEN', `The webhook token's "${c}" claim is not a number`);
  const exp =
    claims.exp ?? (claims.iat === undefined ? undefined : claims.iat + (options.maxAgeSeconds ?? 3600));
  if (exp === undefined)
    throw fail('MALFORMED_TOKEN', 'The webhook token has neither an "exp" nor an "iat" claim');
  if (now > exp + skew) throw fail('TOKEN_EXPIRED', 'The webhook token has expired');
  if (claims.nbf !== undefined && now < claims.nbf - skew)
    throw fail('TOKEN_NOT_YET_VALID', 'The webhook token is not valid yet');

  const envelope = obj(claims.data);
  const data = obj(envelope?.data);
  if (typeof envelope?.eventType !== 'string' || !data)
    throw fail('MALFORMED_EVENT', 'The webhook token does not carry an event (data.eventType and data.data)');
  let entity: unknown;
  try {
    entity =
      pick(data.createdEvent, 'entity') ??
      pick(data.updatedEvent, 'currentEntity') ??
      pick(data.deletedEvent, 'deletedEntity') ??
      pick(data.actionEvent, 'body') ??
      (data.createdEvent || data.updatedEvent || data.deletedEvent || data.actionEvent ? {} : data);
  } catch {
    throw fail('MALFORMED_EVENT', "The webhook event's entity is not JSON");
  }
  const type: string = envelope.eventType;
  const event: WebhookEvent = {
    id: String(data.id ?? ''),
    type,
    entityId: String(data.entityId ?? ''),
    time: new Date(data.eventTime ?? (claims.iat as number) * 1000),
    instanceId: String(envelope.instanceId ?? ''),
    entity,
  };
  if (data.entityEventSequence !== undefined) event.sequence = Number(data.entityEventSequence);
  const modified = fieldNames(data.updatedEvent?.modifiedFields);
  if (modified) event.modifiedFields = modified;

  const name = (Object.keys(EVENT_TYPES) as Name[]).find((k) => EVENT_TYPES[k] === type);
  const handler = ((name && options[name]) || options.onOther) as ((e: WebhookEvent) => unknown) | undefined;
  await handler?.(event);
  return event;
}
