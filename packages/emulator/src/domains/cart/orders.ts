/**
 * Checkouts and the orders placed from them: loading and pricing a stored checkout against the
 * catalog as it is now, and placing its order in one transaction (the order row, the checkout
 * completed, the stock taken, the confirmation mailed, the ordered lines taken out of the cart).
 * The hosted checkout page (`pages.ts`) shows and posts the form.
 * @module
 */
import { actor } from '../../actor.ts';
import type { Emulator, Identity } from '../../context.ts';
import { newId } from '../../crypto.ts';
import type { Sql } from '../../db/index.ts';
import { STORES_APP_ID } from '../catalog/lookup.ts';
import { lockProducts } from '../catalog/store.ts';
import { adjustInventory, type InventoryChange, type InventoryShortage } from '../catalog/writes.ts';
import { sendMail } from '../identity/store.ts';
import type { StoredRedirectSession } from '../redirects/intents.ts';
import { orderEntity } from './entities.ts';
import { type CartState, cartState, estimate, findCoupon, renderCart, resolveLines } from './model.ts';
import { CURRENCY } from './money.ts';
import type { RestAddress } from './pricing.ts';
import { CART_EVENTS, type CartDoc, type CartRow, type StoredLine, saveCart, takeOrdered } from './store.ts';

/** What a checkout stores (table `checkouts`, column `doc`). */
export interface CheckoutDoc {
  cartId: string;
  channelType: string;
  email?: string;
  /** Where it ships: the shipping address given, else the cart's address. */
  shippingAddress?: RestAddress;
  billingAddress?: RestAddress;
  /**
   * The shipping address create-checkout was called with (none: the estimate took the billing, the
   * cart's or the store's address, by its own order), so that the checkout prices as it was created.
   */
  pricedWith?: { shippingAddress?: RestAddress };
  selectedShippingOption?: { code: string; carrierId?: string };
  lineItems: StoredLine[];
  couponCode?: string;
  merchantDiscounts?: CartDoc['merchantDiscounts'];
  contactInfo?: CartDoc['contactInfo'];
  currency: string;
  buyerInfo?: Record<string, unknown>;
}

export interface CheckoutRow {
  id: string;
  cart_id: string;
  owner_kind: 'visitor' | 'member';
  owner_id: string;
  status: 'CREATED' | 'COMPLETED';
  doc: CheckoutDoc;
  order_id: string | null;
  created_at: string | Date;
}

/** The form of the checkout page, as typed by the buyer. */
export interface CheckoutForm {
  email: string;
  firstName: string;
  lastName: string;
  addressLine: string;
  /** The second line of the address (an apartment, a suite); optional. */
  addressLine2: string;
  city: string;
  postalCode: string;
  country: string;
  subdivision: string;
}
export async function loadCheckout(sql: Sql, id: string, lock = false) {
  const rows = await sql.query<CheckoutRow>(
    `SELECT * FROM checkouts WHERE id = $1${lock ? ' FOR UPDATE' : ''}`,
    [id],
  );
  return rows[0];
}

/** Whether the session was made by the checkout's buyer (or by the merchant, with no buyer). */
export function sameBuyer(session: StoredRedirectSession, checkout: CheckoutRow) {
  if (!session.memberId && !session.visitorId) return true;
  return checkout.owner_kind === 'member'
    ? session.memberId === checkout.owner_id
    : session.visitorId === checkout.owner_id;
}

/** The checkout's buyer as a caller, for the events the order records. */
function buyerOf(emu: Emulator, co: CheckoutRow): Identity {
  return co.owner_kind === 'member'
    ? { type: 'MEMBER', siteId: emu.siteId, memberId: co.owner_id }
    : { type: 'ANONYMOUS_VISITOR', siteId: emu.siteId, visitorId: co.owner_id };
}

/** Prices a checkout from its stored lines against the catalog as it is now. */
export async function priceCheckout(emu: Emulator, sql: Sql, co: CheckoutRow, shippingAddress?: RestAddress) {
  const d = co.doc;
  const doc: CartDoc = {
    lineItems: d.lineItems,
    currency: d.currency ?? CURRENCY,
    couponCode: d.couponCode,
    merchantDiscounts: d.merchantDiscounts,
    contactInfo: d.contactInfo,
    selectedShippingOption: d.selectedShippingOption,
  };
  const row: CartRow = {
    id: co.cart_id,
    owner_kind: co.owner_kind,
    owner_id: co.owner_id,
    doc,
    revision: 0,
    created_at: co.created_at,
    updated_at: co.created_at,
  };
  const state: CartState = {
    row,
    lines: await resolveLines(emu, sql, doc),
    coupon: d.couponCode ? await findCoupon(sql, d.couponCode) : null,
  };
  return estimate(
    state,
    {
      // Checkouts stored before `pricedWith` was kept are priced with their shipping address.
      shippingAddress: shippingAddress ?? (d.pricedWith ? d.pricedWith.shippingAddress : d.shippingAddress),
      billingAddress: d.billingAddress,
      selectedShippingOption: d.selectedShippingOption,
    },
    emu.now(),
  );
}

export type Estimate = Awaited<ReturnType<typeof priceCheckout>>;

/**
 * A priced checkout as the buyer is shown it, on the page and in the confirmation: each item (its
 * name, its choices, quantity and price) and the totals, each a label and a formatted amount.
 */
export function summary(est: Estimate) {
  const w = est.wire;
  const s = w.priceSummary;
  const ship = w.shippingInfo.selectedCarrierServiceOption;
  const items: { name: string; choices: string; quantity: string; price: string }[] = w.cart.lineItems.map(
    (l: any) => ({
      name: String(l.productName?.original ?? ''),
      choices: (l.descriptionLines ?? [])
        .map((d: any) => `${d.name?.original ?? ''}: ${d.plainText?.original ?? d.colorInfo?.original ?? ''}`)
        .join(', '),
      quantity: String(l.quantity ?? ''),
      price: String(l.lineItemPrice?.formattedAmount ?? ''),
    }),
  );
  const totals: [label: string, amount: string][] = [['Subtotal', s.subtotal.formattedAmount]];
  if (s.discount.amount !== '0.00') totals.push(['Discount', `−${s.discount.formattedAmount}`]);
  if (ship) totals.push([`Shipping (${ship.title})`, s.shipping.formattedAmount]);
  totals.push(['Tax', s.tax.formattedAmount]);
  return { items, totals, total: s.total.formattedAmount as string };
}

/**
 * The order confirmation the buyer is sent (the platform's stores send one by default): the order
 * number, the items and the total charged, as plain text; nothing a later request could use.
 */
function orderMail(to: string, number: number, est: Estimate) {
  const { items, totals, total } = summary(est);
  const body = [
    'Thank you for your order.',
    '',
    `Order number: ${number}`,
    '',
    ...items.map((i) => `${i.quantity} × ${i.name}${i.choices ? ` (${i.choices})` : ''}: ${i.price}`),
    '',
    ...totals.map(([label, amount]) => `${label}: ${amount}`),
    `Total: ${total}`,
  ].join('\n');
  return { to, subject: `Your order #${number} is placed`, body };
}

/** The shipping address typed on the checkout page. */
export const formAddress = (form: CheckoutForm): RestAddress => ({
  addressLine: form.addressLine,
  ...(form.addressLine2 ? { addressLine2: form.addressLine2 } : {}),
  city: form.city,
  postalCode: form.postalCode,
  country: form.country,
  ...(form.subdivision ? { subdivision: form.subdivision } : {}),
});

/** Where a checkout ships: its shipping address, else the cart's contact address. */
const shipsTo = (co: CheckoutRow): RestAddress => co.doc.shippingAddress ?? co.doc.contactInfo?.address ?? {};

/**
 * Whether anything a priced checkout holds ships (it has shipping options). When nothing does (its
 * items are digital: gift cards, downloads), the page's address is the billing address.
 */
export const shipsAnything = (est: Estimate) => est.wire.shippingInfo.carrierServiceOptions.length > 0;

/**
 * The checkout's address the page fills its form in with: where it ships, else (nothing ships) its
 * billing address, else that.
 */
const formSource = (co: CheckoutRow, ships: boolean): RestAddress =>
  (ships ? undefined : co.doc.billingAddress) ?? shipsTo(co);

/**
 * The checkout form as the page first shows it: the checkout's e-mail, address and names. An
 * address given as its street parts only (`streetAddress`, no `addressLine`) fills the Address
 * field with them (the buyer had to type it again), its `apt` the second line.
 */
export function formFrom(co: CheckoutRow, ships: boolean): CheckoutForm {
  const a = formSource(co, ships);
  const street = a.streetAddress;
  const streetLine =
    [street?.number, street?.name].filter((x) => x?.trim()).join(' ') || street?.formattedAddressLine || '';
  const cd = (co.doc.contactInfo?.contactDetails ?? {}) as Record<string, string | undefined>;
  return {
    email: co.doc.email ?? '',
    firstName: cd.firstName ?? '',
    lastName: cd.lastName ?? '',
    addressLine: a.addressLine ?? streetLine,
    addressLine2: a.addressLine2 ?? street?.apt ?? '',
    city: a.city ?? '',
    postalCode: a.postalCode ?? '',
    country: a.country ?? '',
    subdivision: a.subdivision ?? '',
  };
}

/** An address of the form as it is compared: trimmed, country and subdivision in upper case. */
const addressKey = (a: RestAddress) =>
  JSON.stringify(
    [a.addressLine, a.addressLine2, a.city, a.postalCode, a.country, a.subdivision].map((x, i) =>
      i >= 4 ? (x ?? '').trim().toUpperCase() : (x ?? '').trim(),
    ),
  );

/**
 * The address the order of `form` is priced at (`priceCheckout`): the address typed, unless it is
 * the one the page filled the form in with, untouched; then `undefined`, the checkout's own pricing,
 * whose total the page showed. A checkout made with a billing address only is taxed there (as its
 * estimate was), while its form holds the cart's contact address: priced at that instead, an
 * untouched "Place order" came back as "the total is now …".
 */
export function pricingAddress(co: CheckoutRow, form: CheckoutForm, ships: boolean): RestAddress | undefined {
  const typed = formAddress(form);
  return addressKey(typed) === addressKey(formAddress(formFrom(co, ships))) ? undefined : typed;
}

/** The units an order takes from the stores catalog: one change per catalog line. */
function stockTaken(lines: StoredLine[]): InventoryChange[] {
  return lines.flatMap((l) =>
    l.catalog?.appId === STORES_APP_ID
      ? [{ productId: l.catalog.catalogItemId, variantId: l.catalog.variantId, delta: -l.quantity }]
      : [],
  );
}

/** Why the stock refused an order, worded like the checkout's own violations. */
const shortageText = (s: InventoryShortage) =>
  s.available === 0
    ? `${s.name} is out of stock.`
    : `Only ${s.available} of ${s.name} are in stock; the order has ${s.requested}.`;

/** Thrown inside the order's transaction to roll it back when the stock cannot cover it. */
class StockShort extends Error {
  constructor(readonly reasons: string[]) {
    super('The stock cannot cover the order');
  }
}

/** The number of the order placed from a checkout (none yet: `undefined`). */
export async function orderNumber(sql: Sql, checkoutId: string) {
  const rows = await sql.query<{ number: number }>('SELECT number FROM orders WHERE checkout_id = $1', [
    checkoutId,
  ]);
  return rows[0]?.number;
}

/**
 * Places the order of the checkout `checkoutId` for the buyer of `session`, shipped to the address
 * of `form`: `missing` (no such checkout, or another buyer's), `done` (placed before), `unavailable`
 * or `changed` (with the reasons to show; nothing written), or `placed`. `sentTotal` is the total
 * the page showed: when the checkout no longer prices at it, it is `changed`, not charged.
 */
export async function placeOrder(
  emu: Emulator,
  session: StoredRedirectSession,
  checkoutId: string,
  form: CheckoutForm,
  sentTotal: unknown,
) {
  return emu.db
    .tx(async (sql) => {
      const co = await loadCheckout(sql, checkoutId, true);
      if (!co || !sameBuyer(session, co)) return { kind: 'missing' as const };
      if (co.status === 'COMPLETED') return { kind: 'done' as const, orderId: co.order_id ?? undefined };
      // The buyer places the order: the events it records are theirs.
      return actor.run(buyerOf(emu, co), async () => {
        // The catalog rows stay locked until the order commits: the availability priced below is the
        // stock this order takes from, and a concurrent order for the last unit waits, then sees none.
        const taken = stockTaken(co.doc.lineItems);
        await lockProducts(
          sql,
          taken.map((t) => t.productId),
        );
        // Whether anything ships depends on the items only: the checkout's own pricing tells.
        const own = await priceCheckout(emu, sql, co);
        const ships = shipsAnything(own);
        // An untouched form is the checkout's own address, which ships whole: the fields the page
        // shows of it dropped its street parts, geocode and formatted address.
        const typed = pricingAddress(co, form, ships);
        const address = typed ?? formSource(co, ships);
        const est = typed ? await priceCheckout(emu, sql, co, typed) : own;
        if (est.wire.violations.length)
          return {
            kind: 'unavailable' as const,
            errors: est.wire.violations.map((v) => `${v.description}.`),
          };
        // The order is charged what it prices at the address typed (as the checkout was priced, when
        // it is the address the page filled in: `pricingAddress`). When that is not the total the
        // page sent back (a price, coupon or discount changed after the buyer saw it, or the typed
        // address taxes or ships differently from the one the page was priced at), the page is
        // shown again, priced at that address, instead of charging a total the buyer never saw.
        // (A post without the page's `total`, from a script, is placed at today's prices.)
        const charged = est.wire.priceSummary.total;
        if (typeof sentTotal === 'string' && sentTotal !== charged.amount)
          return {
            kind: 'changed' as const,
            errors: [`The total is now ${charged.formattedAmount}; check the order and place it again.`],
          };
        const orderId = newId();
        const now = emu.now();
        const order = orderEntity(orderId, co, est.wire, form, address, now);
        const [{ number }] = (await sql.query<{ number: number }>(
          `INSERT INTO orders (id, checkout_id, owner_kind, owner_id, doc, created_at)
           VALUES ($1, $2, $3, $4, $5, $6) RETURNING number`,
          [orderId, co.id, co.owner_kind, co.owner_id, JSON.stringify(order), now],
        )) as [{ number: number }];
        await sql.query(
          "UPDATE checkouts SET status = 'COMPLETED', order_id = $2, completed_at = $3 WHERE id = $1",
          [co.id, orderId, now],
        );
        await emu.recordEvent(sql, CART_EVENTS.orderCreated, orderId, { ...order, number: String(number) });
        // Then the stock it takes (ProductChanged per tracked product); a shortfall the per-line
        // check could not see undoes the whole order.
        const short = await adjustInventory(emu, sql, taken);
        if (short.length) throw new StockShort(short.map(shortageText));
        // The buyer is told by e-mail, in the same transaction: a mail for every order placed, none
        // for one undone.
        await sendMail(emu, sql, orderMail(form.email, number, est));
        // The order takes its lines out of the cart it came from (also if it has since moved to the
        // member's cart): a cart left empty is deleted, one with lines added since keeps them.
        const { deleted, changed } = await takeOrdered(sql, co.cart_id, co.id, co.doc.lineItems);
        for (const id of deleted) await emu.recordEvent(sql, CART_EVENTS.cartDeleted, id, { id });
        for (const row of changed) {
          await saveCart(emu, sql, row);
          await emu.recordEvent(
            sql,
            CART_EVENTS.cartUpdated,
            row.id,
            renderCart(await cartState(emu, sql, row), now),
          );
        }
        return { kind: 'placed' as const, orderId };
      });
    })
    .catch((e: unknown) => {
      if (e instanceof StockShort) return { kind: 'unavailable' as const, errors: e.reasons };
      throw e;
    });
}
