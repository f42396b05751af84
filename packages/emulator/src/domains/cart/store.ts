/**
 * Cart storage: one row per owner (a visitor or a member), the cart document in JSONB, locked with
 * `SELECT … FOR UPDATE` for every change so that concurrent calls on one cart all land. A member's
 * first cart call takes over the cart of the visitor they logged in from (merged within the cart's
 * limits, see `mergeDocs`).
 * @module
 */
import type { Emulator, Identity } from '../../context.ts';
import { newId } from '../../crypto.ts';
import type { Sql } from '../../db/index.ts';
import { appError, notFound } from '../../http/errors.ts';
import { customTextOf, resolveLines } from './model.ts';
import type { MerchantDiscount, RestAddress } from './pricing.ts';

/** Event types of carts, checkouts and orders (wire entities `wix.ecom.v1.*`). */
export const CART_EVENTS = {
  cartCreated: 'wix.ecom.v1.cart_created',
  cartUpdated: 'wix.ecom.v1.cart_updated',
  cartDeleted: 'wix.ecom.v1.cart_deleted',
  checkoutCreated: 'wix.ecom.v1.checkout_created',
  orderCreated: 'wix.ecom.v1.order_created',
} as const;

export const cartMigrations = [
  {
    id: '0300_carts',
    sql: `
      CREATE TABLE carts (
        id text PRIMARY KEY,
        owner_kind text NOT NULL,
        owner_id text NOT NULL,
        doc jsonb NOT NULL,
        revision integer NOT NULL DEFAULT 1,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        UNIQUE (owner_kind, owner_id)
      );
      CREATE TABLE coupons (
        code text PRIMARY KEY,
        doc jsonb NOT NULL
      );
      CREATE TABLE checkouts (
        id text PRIMARY KEY,
        cart_id text NOT NULL,
        owner_kind text NOT NULL,
        owner_id text NOT NULL,
        status text NOT NULL,
        doc jsonb NOT NULL,
        order_id text,
        created_at timestamptz NOT NULL,
        completed_at timestamptz
      );
      CREATE TABLE orders (
        id text PRIMARY KEY,
        number bigserial NOT NULL UNIQUE,
        checkout_id text NOT NULL UNIQUE REFERENCES checkouts(id),
        owner_kind text NOT NULL,
        owner_id text NOT NULL,
        doc jsonb NOT NULL,
        created_at timestamptz NOT NULL
      );
    `,
  },
];

/** A catalog line as stored: the reference, resolved to a variant, plus what it looked like. */
export interface StoredLine {
  id: string;
  quantity: number;
  catalog?: {
    appId: string;
    catalogItemId: string;
    variantId: string;
    /** `catalogReference.options` as the buyer sent them. */
    options?: Record<string, unknown>;
    /** Name and price when added, shown if the product disappears. */
    name: string;
    price: string;
  };
  /** A custom line item (elevated callers): everything the caller sent, REST names. */
  custom?: {
    price: string;
    productName: { original: string; translated?: string };
    itemType?: { preset?: string; custom?: string };
    descriptionLines?: unknown[];
    media?: Record<string, unknown>;
    url?: { relativePath?: string; url?: string };
    physicalProperties?: { weight?: number; sku?: string; shippable?: boolean };
    catalogReference?: Record<string, unknown>;
  };
}

/** The stored cart document. */
export interface CartDoc {
  lineItems: StoredLine[];
  currency: string;
  buyerNote?: string;
  contactInfo?: { address?: RestAddress; contactDetails?: Record<string, unknown> };
  selectedShippingOption?: { code: string; carrierId?: string };
  businessLocationId?: string;
  couponCode?: string;
  merchantDiscounts?: MerchantDiscount[];
  /** The last checkout made from this cart (the wire's `checkoutId`). */
  checkoutId?: string;
  /** Checkouts of carts merged into this one at a login: their orders take their lines from it. */
  mergedCheckoutIds?: string[];
}

export interface CartRow {
  id: string;
  owner_kind: 'visitor' | 'member';
  owner_id: string;
  doc: CartDoc;
  revision: number;
  created_at: Date | string;
  updated_at: Date | string;
}

export interface Owner {
  kind: 'visitor' | 'member';
  id: string;
}

/** The cart owner of a caller: the member, else the visitor. Others have no current cart. */
export function ownerOf(identity: Identity): Owner {
  if (identity.type === 'MEMBER' && identity.memberId) return { kind: 'member', id: identity.memberId };
  if (identity.type === 'ANONYMOUS_VISITOR' && identity.visitorId)
    return { kind: 'visitor', id: identity.visitorId };
  throw appError(
    403,
    'PERMISSION_DENIED',
    'Only a visitor or a member has a current cart; call with their access token (joined with an API key as "<token>,<apiKey>" for merchant-only fields)',
  );
}

export const cartNotFound = () => notFound('OWNED_CART_NOT_FOUND', 'The caller has no current cart');

const emptyDoc = (currency: string): CartDoc => ({ lineItems: [], currency });

const lock = async (sql: Sql, owner: Owner) =>
  (
    await sql.query<CartRow>('SELECT * FROM carts WHERE owner_kind = $1 AND owner_id = $2 FOR UPDATE', [
      owner.kind,
      owner.id,
    ])
  )[0];

/** Creates the owner's cart unless it exists; `true` when this call created it. */
async function ensure(emu: Emulator, sql: Sql, owner: Owner, currency: string) {
  const now = emu.now();
  const rows = await sql.query(
    `INSERT INTO carts (id, owner_kind, owner_id, doc, revision, created_at, updated_at)
     VALUES ($1, $2, $3, $4, 0, $5, $5) ON CONFLICT (owner_kind, owner_id) DO NOTHING RETURNING id`,
    [newId(), owner.kind, owner.id, JSON.stringify(emptyDoc(currency)), now],
  );
  return rows.length > 0;
}

/**
 * The identity of a catalog line, for merging repeated adds. Units of one variant with different
 * custom text (an engraving) are different lines: merged, the later text was lost.
 */
export const lineKey = (l: StoredLine) => {
  if (!l.catalog) return `custom|${l.id}`;
  const text = customTextOf(l.catalog.options);
  return `${l.catalog.appId}|${l.catalog.catalogItemId}|${l.catalog.variantId}${text.length ? `|${JSON.stringify(text)}` : ''}`;
};

/** A line holds at most this many of its item. */
export const MAX_QUANTITY = 9999;
/** A cart holds at most this many lines. */
export const MAX_LINES = 300;
/**
 * The most a custom line item's price may be, in cents: the catalog's most (999 999 999.99).
 */
export const MAX_PRICE = 99_999_999_999n;
/**
 * The most a cart's subtotal may become by an add, a larger quantity or a login merge, in cents
 * (9 999 999 999 999.99): one line of the dearest item at the most quantity (about 1.0e15) fits.
 * It bounds what a buyer can put in a cart, not what the money can hold: amounts are `bigint`,
 * exact at any size, and a catalog price raised later can take a cart far past it (up to
 * `MAX_PRICE × MAX_QUANTITY × MAX_LINES`, about 3.0e17, beyond the 2^53 cents that numbers hold).
 */
export const MAX_SUBTOTAL = 999_999_999_999_999n;

/**
 * Moves `from`'s lines, coupon, discounts and details into `into`, within the limits an add keeps:
 * the quantities of equal items add up to at most `MAX_QUANTITY`, a cart holds at most `MAX_LINES`
 * lines, and the subtotal (priced with `unitOf`, in cents) stays at most `MAX_SUBTOTAL`. A login
 * cannot be refused, so what does not fit is left out rather than the merge: `into`'s (the
 * member's) lines stay as they are, then `from`'s (the visitor's) are taken in their order, each
 * with as many units as still fit. The rest of `from`'s units are dropped.
 */
export function mergeDocs(into: CartDoc, from: CartDoc, unitOf: (l: StoredLine) => bigint): CartDoc {
  const lines = into.lineItems.map((l) => ({ ...l }));
  /** The unit price of each line of the result. */
  const units = new Map(lines.map((l, i) => [l, unitOf(into.lineItems[i]!)]));
  let room = MAX_SUBTOTAL - lines.reduce((t, l) => t + units.get(l)! * BigInt(l.quantity), 0n);
  /** How many of `wanted` units at `unit` fit under the subtotal's bound. */
  const fitting = (wanted: number, unit: bigint) =>
    unit <= 0n ? wanted : room <= 0n ? 0 : Math.min(wanted, Number(room / unit));
  /** A visitor line that joined a member line of the same item: its id becomes the member line's. */
  const joined = new Map<string, string>();
  for (const l of from.lineItems) {
    const same = lines.find((x) => lineKey(x) === lineKey(l));
    const unit = same ? units.get(same)! : unitOf(l);
    const take = same
      ? fitting(Math.min(l.quantity, MAX_QUANTITY - same.quantity), unit)
      : lines.length < MAX_LINES
        ? fitting(l.quantity, unit)
        : 0;
    if (take <= 0) continue;
    room -= unit * BigInt(take);
    if (same) {
      same.quantity += take;
      joined.set(l.id, same.id);
    } else {
      const line = { ...l, quantity: take };
      lines.push(line);
      units.set(line, unit);
    }
  }
  // The visitor's merchant discounts follow their lines into the member's (each line once); those
  // of lines left out go with them (`pruneDiscounts`).
  const followed = (from.merchantDiscounts ?? []).map((m) =>
    m.lineItemIds ? { ...m, lineItemIds: [...new Set(m.lineItemIds.map((id) => joined.get(id) ?? id))] } : m,
  );
  const merged = [
    ...new Set([
      ...(into.mergedCheckoutIds ?? []),
      ...(from.mergedCheckoutIds ?? []),
      ...(from.checkoutId ? [from.checkoutId] : []),
    ]),
  ];
  const doc: CartDoc = {
    ...from,
    ...into,
    lineItems: lines,
    couponCode: into.couponCode ?? from.couponCode,
    merchantDiscounts: [...(into.merchantDiscounts ?? []), ...followed],
    contactInfo: into.contactInfo ?? from.contactInfo,
    buyerNote: into.buyerNote ?? from.buyerNote,
    // The member's own checkout stays the cart's; the visitor's, when placed, takes its lines from here.
    checkoutId: into.checkoutId ?? from.checkoutId,
    ...(merged.length ? { mergedCheckoutIds: merged } : {}),
  };
  pruneDiscounts(doc);
  return doc;
}

/**
 * Takes an order's lines (`ordered`, the checkout's) out of the carts it was made from: the cart of
 * the checkout, and a member's cart it has since been merged into. Each ordered line takes its
 * quantity from the cart's line of the same item (`lineKey`), once over all of them; the lines
 * added after the checkout was made, or merged in from another device, stay. A cart left without
 * lines is deleted; another forgets the checkout. The rows are locked; returns those deleted and
 * those changed (not yet saved: `saveCart`).
 */
export async function takeOrdered(sql: Sql, cartId: string, checkoutId: string, ordered: StoredLine[]) {
  // Looked for again until a look finds no other cart: a login that merged the visitor's cart while
  // this waited for it deleted that cart (skipped here, so even a first look may find none) and
  // committed the member's, which only a later statement sees. With one look, the order was
  // placed and its lines stayed in the member's cart.
  const rows: CartRow[] = [];
  for (let look = 0; ; look++) {
    const more = await sql.query<CartRow>(
      `SELECT * FROM carts
       WHERE (id = $1 OR doc->>'checkoutId' = $2 OR doc->'mergedCheckoutIds' ? $2) AND NOT (id = ANY($3::text[]))
       ORDER BY id FOR UPDATE`,
      [cartId, checkoutId, rows.map((r) => r.id)],
    );
    rows.push(...more);
    if (look > 0 && !more.length) break;
  }
  const left = new Map<string, number>();
  for (const l of ordered) left.set(lineKey(l), (left.get(lineKey(l)) ?? 0) + l.quantity);
  const deleted: string[] = [];
  const changed: CartRow[] = [];
  for (const row of rows) {
    const lines: StoredLine[] = [];
    for (const l of row.doc.lineItems) {
      const take = Math.min(l.quantity, left.get(lineKey(l)) ?? 0);
      if (take) left.set(lineKey(l), left.get(lineKey(l))! - take);
      if (l.quantity > take) lines.push({ ...l, quantity: l.quantity - take });
    }
    if (!lines.length) {
      await sql.query('DELETE FROM carts WHERE id = $1', [row.id]);
      deleted.push(row.id);
      continue;
    }
    row.doc.lineItems = lines;
    if (row.doc.checkoutId === checkoutId) delete row.doc.checkoutId;
    row.doc.mergedCheckoutIds = row.doc.mergedCheckoutIds?.filter((id) => id !== checkoutId);
    if (!row.doc.mergedCheckoutIds?.length) delete row.doc.mergedCheckoutIds;
    changed.push(row);
  }
  return { deleted, changed };
}

/**
 * Takes lines no longer in the cart out of its merchant discounts, and drops a discount on lines
 * none of which is left (with no lines named, it would apply to the whole cart). A line id can
 * come back (a custom line's id is the caller's), and must not bring an old discount with it.
 */
export function pruneDiscounts(doc: CartDoc) {
  if (!doc.merchantDiscounts) return;
  const ids = new Set(doc.lineItems.map((l) => l.id));
  doc.merchantDiscounts = doc.merchantDiscounts.flatMap((m) => {
    if (!m.lineItemIds?.length) return [m];
    const kept = m.lineItemIds.filter((id) => ids.has(id));
    return kept.length ? [{ ...m, lineItemIds: kept }] : [];
  });
}

export interface Locked {
  row: CartRow;
  /** The cart was created in this transaction. */
  created: boolean;
  /**
   * The visitor cart merged into it and deleted in this transaction. The caller records its
   * `cart_deleted` (which names this cart) after this cart's own `cart_created` or `cart_updated`.
   */
  mergedFrom?: CartRow;
}

/**
 * Locks the caller's cart for the rest of the transaction, creating it when `create` is set, and
 * merging in the visitor cart of a member who logged in from one. Throws `OWNED_CART_NOT_FOUND`
 * when there is no cart and none is to be created.
 */
export async function lockCart(
  emu: Emulator,
  sql: Sql,
  identity: Identity,
  opts: { create: boolean; currency: string },
): Promise<Locked> {
  const owner = ownerOf(identity);
  // Lock order is always visitor cart, then member cart: no two calls wait on each other in a cycle.
  const visitor =
    owner.kind === 'member' && identity.visitorId
      ? await lock(sql, { kind: 'visitor', id: identity.visitorId })
      : undefined;
  const make = opts.create || !!visitor;
  let created = false;
  let row: CartRow | undefined;
  // A cart that `ensure` found but that was gone once locked was deleted meanwhile (the owner's
  // DELETE, an order placed from it, a merge at login) by a transaction that has since committed:
  // make it again. Each pass needs another such delete to miss; an add never answers "no cart".
  do {
    if (make) created = await ensure(emu, sql, owner, opts.currency);
    row = await lock(sql, owner);
  } while (!row && make);
  if (!row) throw cartNotFound();
  if (visitor) {
    const units = new Map<StoredLine, bigint>();
    for (const doc of [row.doc, visitor.doc]) {
      const priced = await resolveLines(emu, sql, doc);
      for (const [i, l] of doc.lineItems.entries()) units.set(l, priced[i]!.priced ? priced[i]!.unit : 0n);
    }
    row.doc = mergeDocs(row.doc, visitor.doc, (l) => units.get(l) ?? 0n);
    await sql.query('DELETE FROM carts WHERE id = $1', [visitor.id]);
  }
  return { row, created, mergedFrom: visitor };
}

/** Writes a changed cart document (its discounts naming only its lines) and bumps the revision. */
export async function saveCart(emu: Emulator, sql: Sql, row: CartRow) {
  pruneDiscounts(row.doc);
  const now = emu.now();
  row.revision += 1;
  row.updated_at = now;
  await sql.query('UPDATE carts SET doc = $2, revision = $3, updated_at = $4 WHERE id = $1', [
    row.id,
    JSON.stringify(row.doc),
    row.revision,
    now,
  ]);
}
