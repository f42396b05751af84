/**
 * Receiving lifecycle events. The platform (and the emulator) POSTs each event as an RS256 JWT;
 * {@link process} verifies it with WebCrypto against your public key, unwraps the platform's
 * envelope and calls the handler for its type. Handlers are awaited: answer 2xx only once
 * `process` resolves, and a failed handler gets the event delivered again.
 *
 * Most events are domain events around an entity (the cart, …). The catalog's are the platform's
 * catalog v1 events (`com.wix.ecommerce.catalog.api.v1.ProductChanged`, …): plain events whose
 * data is a payload of ids and changed fields, such as {@link ProductChanged}.
 *
 * @example
 * const event = await webhooks.process(await request.text(), {
 *   publicKey: process.env.WEBHOOK_PUBLIC_KEY,
 *   onProductChanged: (e) => reindex(e.entity.productId),
 * });
 * @module
 */
import type { CatalogVersion } from './enums/catalog.ts';
import type { ChannelType, WeightUnit } from './enums/commerce.ts';
import { ShopkitError } from './http/errors.ts';
import type {
  Address,
  AppliedDiscount,
  Cart,
  ContactInfo,
  DeliveryLogistics,
  EstimateTotalsResponse,
  LineItem,
  Price,
  PriceSummary,
  SelectedShippingOption,
  TaxDetails,
} from './modules/cart.ts';
import { ADDRESS, CART_FIELDS, DISCOUNTS, ITEM, LOGISTICS } from './modules/cart-fields.ts';
import type { CollectionMedia } from './modules/collections.ts';
import type { Identity } from './modules/identity.ts';
import { IDENTITY_FIELDS } from './modules/identity-fields.ts';
import type { CostAndProfitData, Media, PriceData } from './modules/products.ts';
import { date, type TransformSpec, walk } from './transforms.ts';

/** One verified event. */
export interface WebhookEvent<E = unknown, T extends string = string> {
  /**
   * The event id: the same on every delivery of one event, so duplicates can be dropped. Empty for
   * the platform's catalog events, which carry none (the emulator's do).
   */
  id: string;
  type: T;
  entityId: string;
  /**
   * When the change happened: the event's `eventTime`; without one (the platform's catalog events),
   * when the token was issued (`iat`); without either, when the event arrived.
   */
  time: Date;
  /** The site the event belongs to. */
  instanceId: string;
  /** Who caused the event, when the platform says: a visitor, a member, a site user or an app. */
  identity?: EventIdentity;
  /** The event's position in the log, when sent: later events of an entity have higher numbers. */
  sequence?: number;
  /** The entity after the change, the deleted entity's ids, an action's body, or a catalog event's payload. */
  entity: E;
  /**
   * Names of the top-level fields the change touched, when known: a domain event's
   * `modifiedFields`, a catalog event's `changedFields`.
   */
  modifiedFields?: string[];
}

/** Who caused an event, as the platform's envelope says it (`identity`). */
export interface EventIdentity {
  identityType: 'ANONYMOUS_VISITOR' | 'MEMBER' | 'WIX_USER' | 'APP';
  /** For a visitor. */
  anonymousVisitorId?: string;
  /** For a member. */
  memberId?: string;
  /** For a site user (an API key's owner, the merchant). */
  wixUserId?: string;
  /** For an app. */
  appId?: string;
}

/** Handler names and the event types they receive. */
export const EVENT_TYPES = {
  onCartCreated: 'wix.ecom.v1.cart_created',
  onCartUpdated: 'wix.ecom.v1.cart_updated',
  onCartDeleted: 'wix.ecom.v1.cart_deleted',
  onProductCreated: 'com.wix.ecommerce.catalog.api.v1.ProductCreated',
  onProductChanged: 'com.wix.ecommerce.catalog.api.v1.ProductChanged',
  onProductDeleted: 'com.wix.ecommerce.catalog.api.v1.ProductDeleted',
  onProductVariantsChanged: 'com.wix.ecommerce.catalog.api.v1.VariantsChanged',
  onCollectionCreated: 'com.wix.ecommerce.catalog.api.v1.CollectionCreated',
  onCollectionChanged: 'com.wix.ecommerce.catalog.api.v1.CollectionChanged',
  onCollectionDeleted: 'com.wix.ecommerce.catalog.api.v1.CollectionDeleted',
  onRedirectSessionCreated: 'wix.headless.v1.redirect_session_created',
  onCheckoutCreated: 'wix.ecom.v1.checkout_created',
  onOrderCreated: 'wix.ecom.v1.order_created',
  onIdentityCreated: 'wix.iam.v1.identity_created',
} as const;

/** What every catalog event says of its origin. */
interface CatalogEvent {
  /** The catalog version the change was made in: `V1_CATALOG` for the v1 API (the emulator's). */
  originatedFromVersion?: CatalogVersion | 'STORES_NOT_INSTALLED';
}
/** A product was created: its main fields. */
export interface ProductCreated extends CatalogEvent {
  productId: string;
  name?: string;
  price?: PriceData;
  visible?: boolean;
  media?: Media;
  /** Empty when the product's variants are managed. */
  sku?: string;
  productPageUrl?: { base?: string; path?: string };
  brand?: string;
  /** When the product has a cost. */
  costAndProfitData?: CostAndProfitData;
  slug?: string;
}
/** A product changed: the names of its top-level fields that did (`priceData`, `collectionIds`, …). */
export interface ProductChanged extends CatalogEvent {
  productId: string;
  changedFields?: string[];
}
export interface ProductDeleted extends CatalogEvent {
  productId: string;
}
/** One changed variant: its choices (option name → choice) and the fields of it that changed. */
export interface VariantChanged {
  variantId: string;
  choices?: Record<string, string>;
  changedFields?: string[];
}
/** Some of a product's variants changed. */
export interface VariantsChanged extends CatalogEvent {
  productId: string;
  variants?: VariantChanged[];
}
/** A collection was created (`collection_Id` is the platform's spelling). */
export interface CollectionCreated extends CatalogEvent {
  collection_Id: string;
  name?: string;
  media?: CollectionMedia;
  slug?: string;
  visible?: boolean;
}
/** A collection changed: the names of its top-level fields that did (`name`, `numberOfProducts`, …). */
export interface CollectionChanged extends CatalogEvent {
  collection_Id: string;
  changedFields?: string[];
}
export interface CollectionDeleted extends CatalogEvent {
  collection_Id: string;
}

/** An address with the name of whom it is for (billing, shipping destination, recipient). */
export interface AddressWithContact {
  address?: Address;
  contactDetails?: ContactInfo['contactDetails'];
}
/** Who bought: the visitor or member (or platform user), and the e-mail given at checkout. */
export interface BuyerInfo {
  visitorId?: string;
  memberId?: string;
  userId?: string;
  email?: string;
}

/** A checkout as its event carries it: the cart's priced lines and totals, the buyer, the addresses. */
export interface Checkout {
  id: string;
  cartId?: string;
  lineItems: LineItem[];
  buyerInfo?: BuyerInfo;
  billingInfo?: AddressWithContact;
  shippingInfo?: {
    shippingDestination?: AddressWithContact;
    selectedCarrierServiceOption?: SelectedShippingOption;
  };
  currency: string;
  conversionCurrency?: string;
  priceSummary?: PriceSummary;
  taxSummary?: EstimateTotalsResponse['taxSummary'];
  appliedDiscounts?: AppliedDiscount[];
  weightUnit?: WeightUnit;
  channelType?: ChannelType;
  completed?: boolean;
  createdDate?: Date;
  updatedDate?: Date;
}

/** An order placed on the hosted checkout page, in the platform's order shape. */
export interface Order {
  id: string;
  /** The order number the buyer sees (`Order #12`). */
  number: string;
  checkoutId?: string;
  cartId?: string;
  status?: string;
  paymentStatus?: string;
  fulfillmentStatus?: string;
  archived?: boolean;
  channelInfo?: { type?: ChannelType };
  buyerInfo?: BuyerInfo;
  createdBy?: { visitorId?: string; memberId?: string };
  lineItems: LineItem[];
  /** The checkout's totals; `totalPrice` is `total` under the name orders also give it. */
  priceSummary?: PriceSummary & { totalPrice?: Price };
  taxSummary?: EstimateTotalsResponse['taxSummary'];
  appliedDiscounts?: AppliedDiscount[];
  /** The name and address given at checkout. */
  billingInfo?: AddressWithContact;
  /** How the order ships: absent when no shipping option was chosen. */
  shippingInfo?: OrderShippingInfo;
  recipientInfo?: AddressWithContact;
  weightUnit?: WeightUnit;
  currency?: string;
  activities?: Array<{ type: string; createdDate?: Date }>;
  createdDate?: Date;
  updatedDate?: Date;
}

/**
 * An order's chosen shipping option: where it goes (`logistics.shippingDestination`, absent for a
 * pickup, whose place is `logistics.pickupDetails`) and what it costs.
 */
export interface OrderShippingInfo {
  carrierId?: string;
  code?: string;
  title: string;
  logistics?: DeliveryLogistics & {
    shippingDestination?: AddressWithContact;
  };
  cost: {
    price: Price;
    totalPriceBeforeTax: Price;
    totalPriceAfterTax: Price;
    taxDetails?: TaxDetails;
    discount: Price;
  };
  region?: { id?: string; name?: string };
}

/** What each event carries. */
export interface EventEntities {
  /** The cart as `getCurrentCart` returns it. */
  onCartCreated: Cart;
  onCartUpdated: Cart;
  /** `mergedIntoCartId` when a visitor's cart was merged into a member's on login. */
  onCartDeleted: { id: string; mergedIntoCartId?: string };
  onProductCreated: ProductCreated;
  onProductChanged: ProductChanged;
  onProductDeleted: ProductDeleted;
  onProductVariantsChanged: VariantsChanged;
  onCollectionCreated: CollectionCreated;
  onCollectionChanged: CollectionChanged;
  onCollectionDeleted: CollectionDeleted;
  onRedirectSessionCreated: { id: string; intent: string; fullUrl: string; createdDate?: Date };
  onCheckoutCreated: Checkout;
  onOrderCreated: Order;
  /** The new member's identity, with their e-mail and profile. */
  onIdentityCreated: Identity;
}

type Name = keyof typeof EVENT_TYPES;

const STAMPS = { createdDate: date, updatedDate: date };
/** The read transforms of the entities that have them, by event type (the catalog's payloads have none). */
const READ: Record<string, TransformSpec> = {
  [EVENT_TYPES.onCartCreated]: CART_FIELDS,
  [EVENT_TYPES.onCartUpdated]: CART_FIELDS,
  [EVENT_TYPES.onCheckoutCreated]: {
    ...STAMPS,
    lineItems: ITEM,
    billingInfo: { address: ADDRESS },
    shippingInfo: { shippingDestination: { address: ADDRESS }, selectedCarrierServiceOption: LOGISTICS },
    appliedDiscounts: DISCOUNTS,
  },
  [EVENT_TYPES.onOrderCreated]: {
    ...STAMPS,
    lineItems: ITEM,
    billingInfo: { address: ADDRESS },
    recipientInfo: { address: ADDRESS },
    shippingInfo: {
      logistics: { ...LOGISTICS.logistics, shippingDestination: { address: ADDRESS } },
    },
    appliedDiscounts: DISCOUNTS,
    activities: { createdDate: date },
  },
  [EVENT_TYPES.onIdentityCreated]: IDENTITY_FIELDS,
  [EVENT_TYPES.onRedirectSessionCreated]: { createdDate: date },
};

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
  /** Allowed clock difference for `exp`, `nbf` and (without `exp`) `iat`, in seconds (default 60). */
  clockToleranceSeconds?: number;
  /**
   * How long a token without `exp` stays acceptable after its `iat`, in seconds (default 3600). A
   * token with neither claim would never expire and is refused: a captured body could be replayed
   * forever. Such a token whose `iat` is in the future (beyond the clock tolerance) is not valid yet.
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

const DOMAIN_EVENT_BODIES = ['createdEvent', 'updatedEvent', 'deletedEvent', 'actionEvent'];

/**
 * The entity, metadata and changed fields of an event's data. A domain event holds its entity
 * (`createdEvent`, …), its metadata (`id`, `entityId`, `eventTime`, `entityEventSequence`) and
 * `modifiedFields`. A plain event (the catalog's) is its payload, with `changedFields`; its metadata
 * is what the emulator adds to the envelope (`eventId`, `entityId`, `eventTime`,
 * `entityEventSequence`), the platform's own having only the payload's `productId` or `collection_Id`.
 */
function unwrap(envelope: Record<string, any>, data: Record<string, any>) {
  if (!DOMAIN_EVENT_BODIES.some((b) => b in data))
    return {
      entity: data,
      meta: {
        id: envelope.eventId,
        entityId: envelope.entityId ?? data.productId ?? data.collection_Id,
        eventTime: envelope.eventTime,
        entityEventSequence: envelope.entityEventSequence,
      },
      modified: data.changedFields,
    };
  const entity =
    pick(data.createdEvent, 'entity') ??
    pick(data.updatedEvent, 'currentEntity') ??
    pick(data.deletedEvent, 'deletedEntity') ??
    pick(data.actionEvent, 'body') ??
    {};
  return { entity, meta: data, modified: data.updatedEvent?.modifiedFields };
}

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
  // `Number(process.env.X)` of an unset X is NaN, and the text of X a string: either would make
  // every expiry comparison false, and accept an expired token.
  for (const o of ['clockToleranceSeconds', 'maxAgeSeconds'] as const)
    if (options?.[o] !== undefined && (typeof options[o] !== 'number' || Number.isNaN(options[o])))
      throw new TypeError(`webhooks.process: ${o} must be a number of seconds`);
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
  // RFC 7515 §4.1.11: a token naming header extensions it must be understood with is refused, as
  // none is understood here.
  if ('crit' in header)
    throw fail(
      'MALFORMED_TOKEN',
      'The webhook token names critical header extensions ("crit"), which are not supported',
    );
  const key = await importKey(options?.publicKey);
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
  // Without `exp`, `iat` sets the lifetime: one in the future would stretch the maximum age.
  const notBefore = claims.nbf ?? (claims.exp === undefined ? claims.iat : undefined);
  if (notBefore !== undefined && now < notBefore - skew)
    throw fail('TOKEN_NOT_YET_VALID', 'The webhook token is not valid yet');

  const envelope = obj(claims.data);
  const data = obj(envelope?.data);
  if (typeof envelope?.eventType !== 'string' || !data)
    throw fail('MALFORMED_EVENT', 'The webhook token does not carry an event (data.eventType and data.data)');
  let unwrapped: ReturnType<typeof unwrap>;
  try {
    unwrapped = unwrap(envelope, data);
  } catch {
    throw fail('MALFORMED_EVENT', "The webhook event's entity is not JSON");
  }
  const { meta, modified } = unwrapped;
  const type: string = envelope.eventType;
  // Entities read as the calls read them: `Date`s, `wix:image://` references, the SDK's names.
  const fields = Object.hasOwn(READ, type) ? READ[type] : undefined;
  const entity = fields ? walk(unwrapped.entity, fields, 1) : unwrapped.entity;
  // The event's own time, else when the token was issued, else (neither says) when it arrived.
  const times = [Date.parse(meta.eventTime), (claims.iat as number) * 1000, now * 1000];
  const event: WebhookEvent = {
    id: String(meta.id ?? ''),
    type,
    entityId: String(meta.entityId ?? ''),
    time: new Date(times.find(Number.isFinite)!),
    instanceId: String(envelope.instanceId ?? ''),
    entity,
  };
  // A sequence that is not a number or its digits (the platform sends a numeric string) is no
  // position: left out, not read as 0 (`null`, `''`) or 1 (`true`).
  const seq = meta.entityEventSequence;
  const sequence =
    typeof seq === 'number' || (typeof seq === 'string' && /^\d+$/.test(seq)) ? Number(seq) : Number.NaN;
  if (Number.isFinite(sequence)) event.sequence = sequence;
  // The platform sends the identity as JSON text; an object is taken as it is.
  if (envelope.identity) {
    const identity = typeof envelope.identity === 'string' ? obj(envelope.identity) : envelope.identity;
    if (typeof identity?.identityType !== 'string')
      throw fail('MALFORMED_EVENT', "The webhook event's identity is not JSON with an identityType");
    event.identity = identity as EventIdentity;
  }
  const names = fieldNames(modified);
  if (names) event.modifiedFields = names;

  const name = (Object.keys(EVENT_TYPES) as Name[]).find((k) => EVENT_TYPES[k] === type);
  const handler = ((name && options[name]) || options.onOther) as ((e: WebhookEvent) => unknown) | undefined;
  await handler?.(event);
  return event;
}
