/**
 * The current cart (wire §5.1, spec 7): one cart per visitor or member, found from the access
 * token, with catalog line items, coupons, merchant discounts, totals, shipping, tax and checkouts;
 * plus the hosted checkout and product pages behind redirect sessions.
 * @module
 */
import { ChannelType } from '@shopkit/sdk';
import type { Context } from 'hono';
import { changedFields } from '../../changes.ts';
import type { Domain, Emulator, Identity } from '../../context.ts';
import { hashToken, newId } from '../../crypto.ts';
import type { Sql } from '../../db/index.ts';
import { appError, forbidden, invalid } from '../../http/errors.ts';
import { FAMILY } from '../../http/router.ts';
import { float, repeated, z } from '../../http/validate.ts';
import { MAX_OPTIONS } from '../catalog/input.ts';
import { lookupCatalogItem, STORES_APP_ID } from '../catalog/lookup.ts';
import { loadProduct } from '../catalog/store.ts';
import { checkoutEntity } from './entities.ts';
import {
  type CartState,
  cartState,
  checkCoupon,
  type EstimateInput,
  estimate,
  findCoupon,
  renderCart,
  resolveLines,
  subtotalOf,
} from './model.ts';
import { CURRENCY, decimal, isAmount, RATE_SCALE, rateMicros, toCents } from './money.ts';
import { cartPages } from './pages.ts';
import { DEMO_COUPONS, isCountryCode } from './pricing.ts';
import {
  CART_EVENTS,
  type CartRow,
  cartMigrations,
  cartNotFound,
  type Locked,
  lineKey,
  lockCart,
  MAX_LINES,
  MAX_PRICE,
  MAX_QUANTITY,
  MAX_SUBTOTAL,
  ownerOf,
  pruneDiscounts,
  type StoredLine,
  saveCart,
} from './store.ts';

const text = (max = 200) => z.string().max(max);
const id = () => z.string().min(1).max(200);

const address = z.object({
  country: z
    .string()
    .refine(isCountryCode, 'must be a two-letter ISO 3166 country code')
    .transform((s) => s.toUpperCase())
    .optional(),
  subdivision: text(100).optional(),
  city: text().optional(),
  postalCode: text(40).optional(),
  addressLine: text().optional(),
  addressLine2: text().optional(),
  formattedAddress: text(500).optional(),
  hint: text().optional(),
  countryFullname: text().optional(),
  subdivisionFullname: text().optional(),
  geocode: z
    .object({
      latitude: float(z.number().min(-90).max(90)).optional(),
      longitude: float(z.number().min(-180).max(180)).optional(),
    })
    .optional(),
  streetAddress: z
    .object({
      name: text().optional(),
      number: text(40).optional(),
      apt: text(40).optional(),
      formattedAddressLine: text().optional(),
    })
    .optional(),
});

const shippingOption = z.object({ code: id(), carrierId: id().optional() });

/**
 * Bounds of a line's `catalogReference.options`, which the cart stores and shows back as sent: a
 * product has at most `MAX_OPTIONS` options and two custom text fields, and each text is a
 * description line of the cart. Unbounded, one visitor stored carts of hundreds of megabytes
 * (a megabyte of options per line, or thousands of custom texts, on each of 300 lines).
 */
const MAX_CUSTOM_TEXTS = 10;
const MAX_OPTIONS_JSON = 16_384;

/** A record of at most `max` entries (a MAX_SIZE violation, as an array's). */
const fewEntries =
  (max: number) => (r: Record<string, unknown>, ctx: z.core.$RefinementCtx<Record<string, unknown>>) => {
    if (Object.keys(r).length > max)
      ctx.addIssue({
        code: 'too_big',
        origin: 'array',
        maximum: max,
        inclusive: true,
        input: r,
        message: `must have at most ${max} entries`,
      });
  };

const catalogReference = z.object({
  appId: id(),
  catalogItemId: id(),
  options: z
    .object({
      variantId: id().optional(),
      options: z.record(z.string().max(100), text()).superRefine(fewEntries(MAX_OPTIONS)).optional(),
      // The product's custom text fields by title (wire: `{ "Engraving": "Ada" }`).
      customTextFields: z
        .record(z.string().max(100), text(500))
        .superRefine(fewEntries(MAX_CUSTOM_TEXTS))
        .optional(),
    })
    .catchall(z.unknown())
    .superRefine((o, ctx) => {
      if (JSON.stringify(o).length > MAX_OPTIONS_JSON)
        ctx.addIssue({
          code: 'too_big',
          origin: 'string',
          maximum: MAX_OPTIONS_JSON,
          inclusive: true,
          input: o,
          message: `must be at most ${MAX_OPTIONS_JSON} characters written as JSON`,
        });
    })
    .optional(),
});

const lineItem = z.object({
  catalogReference,
  quantity: z.number().int().min(1).max(MAX_QUANTITY).default(1),
});

/** Why a line's catalog reference selects nothing visible, as a field violation. */
async function unresolved(sql: Sql, at: string, productId: string, chosen: boolean) {
  if (chosen)
    return {
      field: `${at}.catalogReference.options`,
      description: 'does not select a variant of a product in the store',
    };
  // A product that exists but has options needs a choice: say that, not "no such product".
  const product = await loadProduct(sql, productId);
  if (product?.visible && product.productOptions.length)
    return {
      field: `${at}.catalogReference.options`,
      description: `must choose a variant of ${product.name} (options ${product.productOptions
        .map((o) => o.name)
        .join(', ')}): options.variantId, or options.options with a choice of each`,
      violatedRule: 'REQUIRED_FIELD',
    };
  return {
    field: `${at}.catalogReference.catalogItemId`,
    description: 'does not match a product in the store',
  };
}

const translatable = z.object({ original: z.string().min(1).max(200), translated: text().optional() });
const ITEM_TYPES = ['UNRECOGNISED', 'PHYSICAL', 'DIGITAL', 'GIFT_CARD', 'SERVICE'] as const;

const customLineItem = z.object({
  id: id().optional(),
  quantity: z.number().int().min(1).max(MAX_QUANTITY),
  price: z
    .string()
    .refine(isAmount, 'must be a decimal amount with at most two decimal places, like "12.50"'),
  productName: translatable,
  itemType: z.object({ preset: z.enum(ITEM_TYPES).optional(), custom: text().optional() }).optional(),
  descriptionLines: z
    .array(
      z.object({
        name: translatable,
        plainText: translatable.optional(),
        colorInfo: translatable.extend({ code: text(20).optional() }).optional(),
        lineType: z.enum(['UNRECOGNISED', 'PLAIN_TEXT', 'COLOR']).optional(),
      }),
    )
    .max(20)
    .optional(),
  media: z
    .object({
      id: text().optional(),
      url: text(2048).optional(),
      width: z.number().int().min(0).optional(),
      height: z.number().int().min(0).optional(),
      altText: text().optional(),
      filename: text().optional(),
    })
    .optional(),
  url: z.object({ relativePath: text(2048).optional(), url: text(2048).optional() }).optional(),
  physicalProperties: z
    .object({
      weight: float(z.number().min(0)).optional(),
      sku: text().optional(),
      shippable: z.boolean().optional(),
    })
    .optional(),
  catalogReference: catalogReference.optional(),
});

const merchantDiscount = z
  .object({
    amount: z
      .string()
      .refine(isAmount, 'must be a decimal amount with at most two decimal places, like "5.00"')
      .optional(),
    percentage: float(z.number().gt(0).max(100)).optional(),
    lineItemIds: z.array(id()).max(MAX_LINES).optional(),
  })
  .refine(
    (m) => (m.amount === undefined) !== (m.percentage === undefined),
    'must set exactly one of amount and percentage',
  );

const contactInfo = z.object({
  address: address.optional(),
  contactDetails: z
    .object({
      firstName: text().optional(),
      lastName: text().optional(),
      phone: text(50).optional(),
      company: text().optional(),
      vatId: z
        .object({ id: text(50).optional(), type: z.enum(['UNSPECIFIED', 'CPF', 'CNPJ']).optional() })
        .optional(),
    })
    .optional(),
});

const CART_INFO_PATHS = ['buyerNote', 'contactInfo', 'selectedShippingOption', 'businessLocationId'] as const;

const addSchema = z.object({
  lineItems: z.array(lineItem).max(MAX_LINES).optional(),
  customLineItems: z.array(customLineItem).max(MAX_LINES).optional(),
  businessLocationId: id().optional(),
});

const updateSchema = z.object({
  cartInfo: z
    .object({
      buyerNote: text(1000).optional(),
      contactInfo: contactInfo.optional(),
      selectedShippingOption: shippingOption.optional(),
      businessLocationId: id().optional(),
    })
    .optional(),
  couponCode: text(100).optional(),
  merchantDiscounts: z.array(merchantDiscount).max(20).optional(),
  lineItems: z.array(lineItem).max(MAX_LINES).optional(),
  customLineItems: z.array(customLineItem).max(MAX_LINES).optional(),
  cartFieldmask: z
    .union([
      z.string().transform((s) =>
        s
          .split(',')
          .map((x) => x.trim())
          .filter(Boolean),
      ),
      z.array(z.string()),
      z.object({ paths: z.array(z.string()) }).transform((o) => o.paths),
    ])
    .pipe(
      z.array(
        z.enum(CART_INFO_PATHS, {
          error: `must name fields of cartInfo: ${CART_INFO_PATHS.join(', ')}`,
        }),
      ),
    )
    .optional(),
});

/** Checkout channels: the SDK's `ChannelType`, every value of the platform's own enum. */
const CHANNELS = Object.values(ChannelType) as [ChannelType, ...ChannelType[]];

const estimateSchema = z.object({
  selectedShippingOption: shippingOption.optional(),
  shippingAddress: address.optional(),
  billingAddress: address.optional(),
  selectedMemberships: z
    .object({
      memberships: z
        .array(z.object({ id: id(), appId: id(), lineItemIds: z.array(id()).max(MAX_LINES).default([]) }))
        .max(20),
    })
    .optional(),
  calculateTax: z.boolean().optional(),
  calculateShipping: z.boolean().optional(),
  calculateAdditionalFees: z.boolean().optional(),
});

const checkoutSchema = z.object({
  channelType: z.enum(CHANNELS).optional(),
  shippingAddress: address.optional(),
  billingAddress: address.optional(),
  selectedShippingOption: shippingOption.optional(),
  email: z.email().max(254).optional(),
});

/**
 * Whether the call also carries a valid API key after the buyer's token (`<token>,<apiKey>`,
 * wire §1.6): merchant-only fields (custom line items, merchant discounts) need it.
 */
async function elevatedToo(emu: Emulator, c: Context) {
  const parts = (c.req.header('authorization') ?? '').split(',');
  const key = parts[1]?.trim();
  if (!key) return false;
  const rows = await emu.db.query('SELECT 1 FROM api_keys WHERE key_hash = $1', [hashToken(key)]);
  return rows.length > 0;
}

const needsElevation = (what: string) =>
  forbidden(`${what} need an elevated caller: send the buyer's token and an API key as "<token>,<apiKey>"`);

/**
 * Records the end of a visitor's cart merged into their member cart (`lockCart`), if one was: after
 * the member cart's own creation or update, so that a consumer knows the cart it names.
 */
const visitorCartDeleted = (emu: Emulator, sql: Sql, { row, mergedFrom }: Locked) =>
  mergedFrom &&
  emu.recordEvent(sql, CART_EVENTS.cartDeleted, mergedFrom.id, {
    id: mergedFrom.id,
    mergedIntoCartId: row.id,
  });

/**
 * A change to a cart. One that adds items or raises quantities returns the field of those items:
 * the call is refused if the cart's subtotal then exceeds `MAX_SUBTOTAL`.
 */
type Grew = 'lineItems' | 'customLineItems' | undefined;
type Change = (sql: Sql, row: CartRow) => Promise<Grew> | Promise<void>;

/** The field violation of a subtotal above `MAX_SUBTOTAL`. */
function subtotalTooLarge(field: string, subtotal: bigint) {
  return invalid([
    {
      field,
      description: `would make the subtotal ${decimal(subtotal)}; a cart's subtotal is at most ${decimal(MAX_SUBTOTAL)}`,
      violatedRule: 'MAX',
      data: { max: decimal(MAX_SUBTOTAL) },
    },
  ]);
}

/**
 * Violations of merchant discounts that zod cannot express: a line named twice (which would count
 * its price twice) and a percentage with more places than a rate holds (which would apply as 0 %).
 */
function merchantDiscountViolations(list: z.output<typeof merchantDiscount>[]) {
  return list.flatMap((m, i) => [
    ...repeated(m.lineItemIds ?? [], `merchantDiscounts[${i}].lineItemIds`),
    ...(m.percentage !== undefined && rateMicros(m.percentage) === undefined
      ? [
          {
            field: `merchantDiscounts[${i}].percentage`,
            description: `must have at most ${RATE_SCALE} decimal places`,
            violatedRule: 'DECIMAL_MAX_SCALE',
            data: { maxScale: RATE_SCALE },
          },
        ]
      : []),
  ]);
}

/**
 * Runs one cart call in a transaction: locks (or creates) the caller's cart, applies `change`,
 * saves, and records `cart_created` / `cart_updated` with the cart as it now is.
 */
async function withCart(
  emu: Emulator,
  identity: Identity,
  opts: { create: boolean; write: boolean },
  change?: Change,
): Promise<{ cart: Record<string, any>; state: CartState }> {
  const owner = ownerOf(identity);
  if (!opts.create && !opts.write && !change) {
    // A read needs no transaction unless a visitor cart is waiting to be merged into a member's.
    const rows = await emu.db.query<CartRow & { pending: boolean }>(
      `SELECT c.*, EXISTS (SELECT 1 FROM carts v WHERE v.owner_kind = 'visitor' AND v.owner_id = $3) AS pending
       FROM (SELECT 1) one LEFT JOIN carts c ON c.owner_kind = $1 AND c.owner_id = $2`,
      [owner.kind, owner.id, owner.kind === 'member' ? (identity.visitorId ?? '') : ''],
    );
    const r = rows[0]!;
    if (!r.pending) {
      if (!r.id) throw cartNotFound();
      const state = await cartState(emu, emu.db, r);
      return { cart: renderCart(state, emu.now()), state };
    }
  }
  return emu.db.tx(async (sql) => {
    const locked = await lockCart(emu, sql, identity, { create: opts.create, currency: CURRENCY });
    const { row, created } = locked;
    const before = opts.write ? structuredClone(row.doc) : undefined;
    const grew = change ? await change(sql, row) : undefined;
    pruneDiscounts(row.doc);
    // A call that changes nothing (removing an absent coupon, a quantity set to what it is) saves
    // nothing and records no `cart_updated`: the cart comes back as it was, revision and all.
    const changed = !!before && changedFields(before, row.doc).length > 0;
    const write = (opts.write && changed) || created || !!locked.mergedFrom;
    if (write) await saveCart(emu, sql, row);
    const state = await cartState(emu, sql, row);
    // Thrown in the transaction: the saved change rolls back.
    const subtotal = subtotalOf(state.lines);
    if (grew && subtotal > MAX_SUBTOTAL) throw subtotalTooLarge(grew, subtotal);
    const cart = renderCart(state, emu.now());
    if (created) await emu.recordEvent(sql, CART_EVENTS.cartCreated, row.id, cart);
    else if (write) await emu.recordEvent(sql, CART_EVENTS.cartUpdated, row.id, cart);
    await visitorCartDeleted(emu, sql, locked);
    return { cart, state };
  });
}

/**
 * Adds catalog and custom line items to a cart document, merging repeated catalog items. Returns
 * the field of the items added (for the subtotal's bound, see `Change`).
 */
async function addLines(
  emu: Emulator,
  sql: Sql,
  row: CartRow,
  lines: z.output<typeof lineItem>[] = [],
  customs: z.output<typeof customLineItem>[] = [],
) {
  const doc = row.doc;
  for (const [i, item] of lines.entries()) {
    const ref = item.catalogReference;
    const at = `lineItems[${i}]`;
    if (ref.appId !== STORES_APP_ID)
      throw invalid([
        {
          field: `${at}.catalogReference.appId`,
          description: `must be the stores catalog app id ${STORES_APP_ID}`,
          violatedRule: 'VALIDATION',
        },
      ]);
    const chosen = ref.options?.variantId !== undefined || ref.options?.options !== undefined;
    const found = await lookupCatalogItem(emu, sql, ref.catalogItemId, {
      variantId: ref.options?.variantId,
      choices: ref.options?.options,
    });
    if (!found?.visible) throw invalid([await unresolved(sql, at, ref.catalogItemId, chosen)]);
    const line: StoredLine = {
      id: newId(),
      quantity: item.quantity,
      catalog: {
        appId: ref.appId,
        catalogItemId: ref.catalogItemId,
        variantId: found.variantId,
        ...(ref.options ? { options: ref.options } : {}),
        name: found.name,
        price: found.price,
      },
    };
    const same = doc.lineItems.find((l) => lineKey(l) === lineKey(line));
    if (same) {
      if (same.quantity + item.quantity > MAX_QUANTITY)
        throw invalid([
          {
            field: `${at}.quantity`,
            description: `would make the quantity of ${found.name} ${same.quantity + item.quantity}; a line holds at most ${MAX_QUANTITY}`,
            violatedRule: 'MAX',
            data: { max: MAX_QUANTITY },
          },
        ]);
      same.quantity += item.quantity;
    } else doc.lineItems.push(line);
  }
  for (const [i, c] of customs.entries()) {
    if (c.id && doc.lineItems.some((l) => l.id === c.id))
      throw invalid([
        { field: `customLineItems[${i}].id`, description: 'is already a line item of this cart' },
      ]);
    if (toCents(c.price)! > MAX_PRICE)
      throw invalid([
        {
          field: `customLineItems[${i}].price`,
          description: `must be at most ${decimal(MAX_PRICE)}`,
          violatedRule: 'DECIMAL_LTE',
          data: { max: decimal(MAX_PRICE) },
        },
      ]);
    const { id: given, quantity, ...custom } = c;
    doc.lineItems.push({ id: given ?? newId(), quantity, custom });
  }
  if (doc.lineItems.length > MAX_LINES)
    throw invalid([
      {
        field: lines.length ? 'lineItems' : 'customLineItems',
        description: `would make ${doc.lineItems.length} lines; a cart holds at most ${MAX_LINES}`,
        violatedRule: 'MAX_SIZE',
        data: { max: MAX_LINES },
      },
    ]);
  return lines.length ? 'lineItems' : customs.length ? 'customLineItems' : undefined;
}

function unknownLine(field: string) {
  return invalid([{ field, description: 'is not a line item of this cart' }]);
}

/** Applies a coupon code to a cart, or throws the platform's coupon error. */
async function applyCoupon(emu: Emulator, sql: Sql, row: CartRow, code: string) {
  const coupon = await findCoupon(sql, code);
  const lines = await resolveLines(emu, sql, row.doc);
  const problem = checkCoupon(coupon, code, lines, emu.now());
  if (problem) throw appError(400, problem.code, problem.description, { couponCode: code });
  row.doc.couponCode = coupon!.code;
}

const cartOnly = ({ cart }: { cart: unknown }) => ({ cart });

export const cart: Domain = {
  name: 'cart',
  migrations: cartMigrations,
  events: Object.values(CART_EVENTS),
  routes(router, emu) {
    const path = '/v1/carts/current';
    const base = { family: FAMILY.cart, access: 'anyone' as const };

    router.route({
      ...base,
      method: 'GET',
      path,
      handler: async ({ identity }) =>
        cartOnly(await withCart(emu, identity, { create: false, write: false })),
    });

    router.route({
      ...base,
      method: 'PATCH',
      path,
      schema: updateSchema,
      async handler({ msg, identity, c }) {
        const elevated = await elevatedToo(emu, c);
        if (msg.customLineItems?.length && !elevated) throw needsElevation('Custom line items');
        if (msg.merchantDiscounts && !elevated) throw needsElevation('Merchant discounts');
        const bad = merchantDiscountViolations(msg.merchantDiscounts ?? []);
        if (bad.length) throw invalid(bad);
        return cartOnly(
          await withCart(emu, identity, { create: true, write: true }, async (sql, row) => {
            const doc = row.doc as unknown as Record<string, unknown>;
            const info = (msg.cartInfo ?? {}) as Record<string, unknown>;
            const paths = msg.cartFieldmask ?? CART_INFO_PATHS.filter((p) => info[p] !== undefined);
            for (const p of paths) {
              if (info[p] === undefined) delete doc[p];
              else doc[p] = info[p];
            }
            const added = await addLines(emu, sql, row, msg.lineItems, msg.customLineItems);
            if (msg.merchantDiscounts) {
              const ids = new Set(row.doc.lineItems.map((l) => l.id));
              for (const [i, m] of msg.merchantDiscounts.entries())
                for (const [j, lid] of (m.lineItemIds ?? []).entries())
                  if (!ids.has(lid)) throw unknownLine(`merchantDiscounts[${i}].lineItemIds[${j}]`);
              row.doc.merchantDiscounts = msg.merchantDiscounts;
            }
            if (msg.couponCode !== undefined) {
              if (msg.couponCode.trim() === '') delete row.doc.couponCode;
              else await applyCoupon(emu, sql, row, msg.couponCode);
            }
            return added;
          }),
        );
      },
    });

    router.route({
      ...base,
      method: 'DELETE',
      path,
      handler: ({ identity }) =>
        emu.db.tx(async (sql) => {
          const locked = await lockCart(emu, sql, identity, { create: false, currency: CURRENCY });
          const { row, created } = locked;
          // A member cart made here to take in the visitor's: its events start with its creation.
          if (created)
            await emu.recordEvent(
              sql,
              CART_EVENTS.cartCreated,
              row.id,
              renderCart(await cartState(emu, sql, row), emu.now()),
            );
          await visitorCartDeleted(emu, sql, locked);
          await sql.query('DELETE FROM carts WHERE id = $1', [row.id]);
          await emu.recordEvent(sql, CART_EVENTS.cartDeleted, row.id, { id: row.id });
          return {};
        }),
    });

    router.route({
      ...base,
      method: 'POST',
      path: `${path}/add-to-cart`,
      schema: addSchema,
      async handler({ msg, identity, c }) {
        if (!msg.lineItems?.length && !msg.customLineItems?.length)
          throw invalid([
            {
              field: 'lineItems',
              description: 'must hold at least one item to add',
              violatedRule: 'MIN_SIZE',
            },
          ]);
        if (msg.customLineItems?.length && !(await elevatedToo(emu, c)))
          throw needsElevation('Custom line items');
        return cartOnly(
          await withCart(emu, identity, { create: true, write: true }, async (sql, row) => {
            const added = await addLines(emu, sql, row, msg.lineItems, msg.customLineItems);
            if (msg.businessLocationId) row.doc.businessLocationId = msg.businessLocationId;
            return added;
          }),
        );
      },
    });

    router.route({
      ...base,
      method: 'POST',
      path: `${path}/remove-line-items`,
      schema: z.object({ lineItemIds: z.array(id()).min(1).max(MAX_LINES) }),
      handler: async ({ msg, identity }) =>
        cartOnly(
          await withCart(emu, identity, { create: false, write: true }, async (_sql, row) => {
            const ids = new Set(row.doc.lineItems.map((l) => l.id));
            msg.lineItemIds.forEach((lid, i) => {
              if (!ids.has(lid)) throw unknownLine(`lineItemIds[${i}]`);
            });
            const drop = new Set(msg.lineItemIds);
            row.doc.lineItems = row.doc.lineItems.filter((l) => !drop.has(l.id));
          }),
        ),
    });

    router.route({
      ...base,
      method: 'POST',
      path: `${path}/update-line-items-quantity`,
      schema: z.object({
        lineItems: z
          .array(z.object({ id: id(), quantity: z.number().int().min(0).max(MAX_QUANTITY) }))
          .min(1)
          .max(MAX_LINES),
      }),
      handler: async ({ msg, identity }) =>
        cartOnly(
          await withCart(emu, identity, { create: false, write: true }, async (_sql, row) => {
            let raised = false;
            for (const [i, u] of msg.lineItems.entries()) {
              const line = row.doc.lineItems.find((l) => l.id === u.id);
              if (!line) throw unknownLine(`lineItems[${i}].id`);
              raised ||= u.quantity > line.quantity;
              line.quantity = u.quantity;
            }
            row.doc.lineItems = row.doc.lineItems.filter((l) => l.quantity > 0);
            // Only a larger quantity is bound by the subtotal: a cart above it can always shrink.
            return raised ? 'lineItems' : undefined;
          }),
        ),
    });

    router.route({
      ...base,
      method: 'POST',
      path: `${path}/remove-coupon`,
      handler: async ({ identity }) =>
        cartOnly(
          await withCart(emu, identity, { create: false, write: true }, async (_sql, row) => {
            delete row.doc.couponCode;
          }),
        ),
    });

    router.route({
      ...base,
      method: 'POST',
      path: `${path}/estimate-totals`,
      schema: estimateSchema,
      async handler({ msg, identity }) {
        const { state } = await withCart(emu, identity, { create: false, write: false });
        return estimate(state, msg as EstimateInput, emu.now()).wire;
      },
    });

    router.route({
      ...base,
      method: 'POST',
      path: `${path}/create-checkout`,
      schema: checkoutSchema,
      handler: ({ msg, identity }) =>
        emu.db.tx(async (sql) => {
          const checkoutId = newId();
          const locked = await lockCart(emu, sql, identity, { create: false, currency: CURRENCY });
          const { row, created } = locked;
          const state = await cartState(emu, sql, row);
          if (!state.lines.length)
            throw appError(400, 'CART_IS_EMPTY', 'The cart has no line items to check out');
          const est = estimate(state, msg as EstimateInput, emu.now());
          if (est.wire.violations.length)
            throw appError(
              400,
              'LINE_ITEMS_NOT_AVAILABLE',
              `The cart cannot be checked out: ${est.wire.violations.map((v) => v.description).join('; ')}`,
              {
                lineItems: state.lines
                  .filter((l) => l.status !== 'AVAILABLE')
                  .map((l) => ({ id: l.id, availability: l.wire.availability })),
              },
            );
          const now = emu.now();
          const doc = {
            cartId: row.id,
            channelType: msg.channelType ?? 'WEB',
            email: msg.email,
            shippingAddress: msg.shippingAddress ?? row.doc.contactInfo?.address,
            billingAddress: msg.billingAddress,
            pricedWith: { shippingAddress: msg.shippingAddress },
            selectedShippingOption: est.chosen
              ? { code: est.chosen.code, carrierId: est.chosen.carrierId }
              : undefined,
            lineItems: row.doc.lineItems,
            couponCode: row.doc.couponCode,
            merchantDiscounts: row.doc.merchantDiscounts,
            contactInfo: row.doc.contactInfo,
            currency: row.doc.currency,
            buyerInfo: est.wire.cart.buyerInfo,
            priceSummary: est.wire.priceSummary,
          };
          await sql.query(
            `INSERT INTO checkouts (id, cart_id, owner_kind, owner_id, status, doc, created_at)
             VALUES ($1, $2, $3, $4, 'CREATED', $5, $6)`,
            [checkoutId, row.id, row.owner_kind, row.owner_id, JSON.stringify(doc), now],
          );
          row.doc.checkoutId = checkoutId;
          await saveCart(emu, sql, row);
          const cartNow = renderCart(await cartState(emu, sql, row), now);
          // A member cart made here to take in the visitor's: its events start with its creation.
          await emu.recordEvent(
            sql,
            created ? CART_EVENTS.cartCreated : CART_EVENTS.cartUpdated,
            row.id,
            cartNow,
          );
          await visitorCartDeleted(emu, sql, locked);
          await emu.recordEvent(
            sql,
            CART_EVENTS.checkoutCreated,
            checkoutId,
            checkoutEntity(checkoutId, doc, est.wire, now),
          );
          return { checkoutId };
        }),
    });

    cartPages(router, emu);
  },
  async seed(_emu, sql) {
    for (const c of DEMO_COUPONS)
      await sql.query('INSERT INTO coupons (code, doc) VALUES ($1, $2) ON CONFLICT (code) DO NOTHING', [
        c.code,
        JSON.stringify({ id: newId(), ...c }),
      ]);
  },
};
