/**
 * Hosted pages of the store behind redirect sessions: the checkout page (`ecomCheckout`: summary,
 * e-mail and address form, "Place order"), the product page (`storesProduct`, also served at
 * `/product-page/{slug}`), and clear "not available in the emulator" pages for bookings, events and
 * paid plans. Plain server-rendered HTML; every value escaped; forms post back to the same page.
 * The order a checkout page posts is placed by `orders.ts`, in one transaction.
 * @module
 */
import type { Context } from 'hono';
import type { Emulator } from '../../context.ts';
import { FAMILY, type Router } from '../../http/router.ts';
import { lookupCatalogItem } from '../catalog/lookup.ts';
import { loadRedirectSession } from '../redirects/index.ts';
import {
  callbackUrl,
  crossSiteRefusal,
  EXPIRED_LINK,
  escapeHtml as h,
  hasSafeRedirectForm,
  htmlPage,
  type IntentPage,
  intentPages,
  isAllowedRedirect,
  isCrossSitePost,
  type RedirectCallbacks,
  type StoredRedirectSession,
} from '../redirects/intents.ts';
import { CURRENCY, price, toCents } from './money.ts';
import {
  type CheckoutForm,
  type CheckoutRow,
  type Estimate,
  formFrom,
  loadCheckout,
  orderNumber,
  placeOrder,
  priceCheckout,
  pricingAddress,
  sameBuyer,
  shipsAnything,
  summary,
} from './orders.ts';
import { isCountryCode } from './pricing.ts';

const FORM_FIELDS: Array<[keyof CheckoutForm, string, string]> = [
  ['firstName', 'First name', 'given-name'],
  ['lastName', 'Last name', 'family-name'],
  ['addressLine', 'Address', 'address-line1'],
  ['addressLine2', 'Apartment, suite, etc. (optional)', 'address-line2'],
  ['city', 'City', 'address-level2'],
  ['postalCode', 'Postal code', 'postal-code'],
  ['subdivision', 'State or region (optional, e.g. US-NY)', 'address-level1'],
  ['country', 'Country (two-letter code, e.g. US)', 'country'],
];

/** The fields of the form a buyer may leave empty. */
const OPTIONAL_FIELDS: Array<keyof CheckoutForm> = ['addressLine2', 'subdivision'];

/**
 * A callback URL of the session that may be followed: allowed for the session's client (see
 * `isAllowedRedirect`), or an absolute URL on this emulator itself. Never an open redirect.
 */
async function backUrl(emu: Emulator, session: StoredRedirectSession, key: keyof RedirectCallbacks) {
  return (await callbackUrl(emu, session, key)) ?? ownUrl(emu, session.callbacks[key]);
}

/** A URL on this emulator itself, of safe form; else `undefined`. */
function ownUrl(emu: Emulator, url: string | undefined) {
  // The same well-formedness as any other redirect (no line breaks, tabs, backslashes, dot
  // segments): a line break in a `Location` header was a 500 after the order had been placed.
  if (!url || !hasSafeRedirectForm(url, 'allowed')) return undefined;
  return new URL(url).origin === new URL(emu.config.publicUrl).origin ? url : undefined;
}

/**
 * Where the browser goes once the order is placed: the session's `thankYouPageUrl` with the
 * order's `orderId` added, as the platform does, else its `postFlowUrl` (wire §5.2; the platform's
 * typings: "after an eCommerce checkout: `orderId`"). Without `orderId` (the page's form policy),
 * the URL whose origin the form's redirect reaches.
 */
async function afterOrderUrl(emu: Emulator, session: StoredRedirectSession, orderId?: string) {
  const thanks = await backUrl(emu, session, 'thankYouPageUrl');
  if (!thanks) return backUrl(emu, session, 'postFlowUrl');
  if (!orderId) return thanks;
  const url = new URL(thanks);
  url.searchParams.set('orderId', orderId);
  return url.href;
}

/** The first of these callbacks that may be followed. */
async function firstBack(
  emu: Emulator,
  session: StoredRedirectSession,
  keys: Array<keyof RedirectCallbacks>,
) {
  for (const k of keys) {
    const url = await backUrl(emu, session, k);
    if (url) return url;
  }
  return undefined;
}

/** Whether `url` is the page this request is for (as reached, or at the emulator's public URL). */
function isThisPage(emu: Emulator, c: Context, url: string) {
  const here = new URL(c.req.url);
  const there = new URL(url);
  return (
    [here.origin, new URL(emu.config.publicUrl).origin].includes(there.origin) &&
    there.pathname === here.pathname &&
    there.search === here.search
  );
}

/**
 * The way back to the site, with no script (the pages' policy allows none): `url` when there is
 * one, else the page that sent the browser here when the client may be sent there (the site's
 * `Referer`, checked as a callback URL is), else words that say how.
 */
async function backLink(
  emu: Emulator,
  c: Context,
  clientId: string | null,
  url: string | undefined,
  label: string,
) {
  // A form posted here names this very page as its referrer: no way back (a link to itself).
  const given = c.req.header('referer');
  const referrer = given && URL.canParse(given) && isThisPage(emu, c, given) ? undefined : given;
  const to =
    url ?? ((await isAllowedRedirect(emu, emu.db, clientId, referrer)) ? referrer : ownUrl(emu, referrer));
  return to
    ? `<p><a href="${h(to)}">${h(label)}</a></p>`
    : '<p>Use your browser’s Back button to return to the site.</p>';
}

function summaryHtml(est: Estimate) {
  const { items, totals, total } = summary(est);
  const rows = items
    .map(
      (i) =>
        `<tr><td>${h(i.name)}${i.choices ? `<br><small>${h(i.choices)}</small>` : ''}</td><td>${h(i.quantity)}</td><td>${h(i.price)}</td></tr>`,
    )
    .join('');
  return (
    '<table aria-label="Items"><thead><tr><th scope="col">Item</th><th scope="col">Qty</th><th scope="col">Price</th></tr></thead>' +
    `<tbody>${rows}</tbody></table>` +
    '<dl aria-label="Totals">' +
    totals.map(([label, amount]) => `<dt>${h(label)}</dt><dd>${h(amount)}</dd>`).join('') +
    `<dt>Total</dt><dd data-testid="total"><strong>${h(total)}</strong></dd></dl>`
  );
}

/** A refusal of the checkout form: its words, and the fields it is about (none: the order as a whole). */
interface FormError {
  fields?: Array<keyof CheckoutForm>;
  message: string;
}

/**
 * The checkout form. `total` is the total the page shows: the form sends it back, and when the
 * checkout no longer prices at it (a price changed since) the page is shown again, not placed.
 * A refused form marks each field at fault (`aria-invalid`, its message as the description) and
 * starts on the first one, else on the list of what was wrong: a keyboard or screen reader user
 * began at the top of the page with nothing saying which field to fix.
 */
function formHtml(
  session: StoredRedirectSession,
  form: CheckoutForm,
  errors: FormError[],
  total: string,
  ships: boolean,
) {
  const firstField = errors[0]?.fields?.[0];
  const errorOf = (name: keyof CheckoutForm) => errors.findIndex((e) => e.fields?.includes(name));
  const input = (name: keyof CheckoutForm, attrs: string) => {
    const error = errorOf(name);
    return (
      `<input id="f-${name}" name="${name}" ${attrs} value="${h(form[name])}"` +
      (error >= 0 ? ` aria-invalid="true" aria-describedby="e-${error}"` : '') +
      (firstField === name ? ' autofocus' : '') +
      '>'
    );
  };
  const field = ([name, label, auto]: [keyof CheckoutForm, string, string]) =>
    `<label for="f-${name}">${h(label)}</label>` +
    input(name, `autocomplete="${auto}"${OPTIONAL_FIELDS.includes(name) ? '' : ' required'}`);
  return (
    (errors.length
      ? `<div role="alert" class="error" tabindex="-1"${firstField ? '' : ' autofocus'}><p>The order was not placed:</p><ul>` +
        errors.map((e, i) => `<li id="e-${i}">${h(e.message)}</li>`).join('') +
        '</ul></div>'
      : '') +
    `<form method="post" action="/redirect/${h(encodeURIComponent(session.id))}">` +
    `<input type="hidden" name="total" value="${h(total)}">` +
    '<fieldset><legend>Contact</legend>' +
    `<label for="f-email">E-mail</label>${input('email', 'type="email" autocomplete="email" required')}` +
    `</fieldset><fieldset><legend>${ships ? 'Shipping address' : 'Billing address'}</legend>` +
    FORM_FIELDS.map(field).join('') +
    '</fieldset><button type="submit">Place order</button></form>'
  );
}

/**
 * The checkout page. `form`: what the buyer posted, when the page is shown again after a post; it is
 * priced as the order would be (`pricingAddress`: at the address typed, when it names a country), so
 * that the total it shows (and sends back) is the one the order would be charged.
 */
async function checkoutPage(
  emu: Emulator,
  c: Context,
  session: StoredRedirectSession,
  form?: CheckoutForm,
  errors: FormError[] = [],
  status = 200,
) {
  const checkoutId = String(session.request.checkoutId ?? '');
  const co = await loadCheckout(emu.db, checkoutId);
  if (!co || !sameBuyer(session, co)) return checkoutNotFound(emu, c, session);
  const cartBack = await cartBackUrl(emu, session);
  if (co.status === 'COMPLETED') return placedPage(emu, c, session, co);
  // Whether anything ships depends on the items only: the checkout's own pricing tells. When
  // nothing does (gift cards, downloads), the form asks for the billing address, not a shipping one.
  const own = await priceCheckout(emu, emu.db, co);
  const ships = shipsAnything(own);
  const pricedAt = form && isCountryCode(form.country) ? pricingAddress(co, form, ships) : undefined;
  const est = pricedAt ? await priceCheckout(emu, emu.db, co, pricedAt) : own;
  const next = await afterOrderUrl(emu, session);
  // Items that cannot be ordered as they are (sold out, fewer in stock, gone from the store) are
  // said when the page opens: it showed a summary without a word of them (a line gone counted as
  // $0.00), and only "Place order", after the form was filled in, told the buyer.
  const blocked =
    errors.length || !est.wire.violations.length
      ? ''
      : '<div role="alert" class="error"><p>This order cannot be placed as it is:</p><ul>' +
        est.wire.violations.map((v) => `<li>${h(v.description)}.</li>`).join('') +
        `</ul><p>${cartBack ? 'Go back to the cart to change it.' : 'Change the cart on the site to go on.'}</p></div>`;
  return htmlPage(
    c,
    'Checkout',
    `<section aria-label="Order summary"><h2>Order summary</h2>${summaryHtml(est)}</section>` +
      blocked +
      formHtml(session, form ?? formFrom(co, ships), errors, est.wire.priceSummary.total.amount, ships) +
      (cartBack ? `<p><a href="${h(cartBack)}">Back to cart</a></p>` : ''),
    status,
    // The form posts here and is then redirected to the thank-you or post-flow URL (`afterOrderUrl`):
    // `form-action` allows its origin.
    { formTargets: [next], error: errors.length > 0 },
  );
}

/** Where the checkout page's "Back" goes: the session's cart page, else its post-flow URL. */
const cartBackUrl = (emu: Emulator, session: StoredRedirectSession) =>
  firstBack(emu, session, ['cartPageUrl', 'postFlowUrl']);

/**
 * The page of a checkout that does not exist or is another buyer's (404), alike whether it is
 * opened or its form is posted: with the way back to the site.
 */
async function checkoutNotFound(emu: Emulator, c: Context, session: StoredRedirectSession) {
  const back = await cartBackUrl(emu, session);
  return htmlPage(
    c,
    'Checkout not found',
    `<p>This checkout does not exist.</p>${await backLink(emu, c, session.clientId, back, 'Back to the site')}`,
    404,
  );
}

async function placedPage(emu: Emulator, c: Context, session: StoredRedirectSession, co: CheckoutRow) {
  const number = await orderNumber(emu.db, co.id);
  const back = await firstBack(emu, session, ['postFlowUrl', 'thankYouPageUrl']);
  return htmlPage(
    c,
    'Thank you',
    `<p role="status">Order #${h(number)} has been placed.</p>${await backLink(emu, c, session.clientId, back, 'Back to the site')}`,
  );
}

/**
 * The longest value of each field of the checkout form: an e-mail address as create-checkout takes
 * it (RFC 5321's 254), any other field as the cart's contact details and address take it.
 */
const EMAIL_MAX = 254;
const FIELD_MAX = 200;

function readForm(body: Record<string, unknown>): CheckoutForm {
  // Never cut short: a cut e-mail address is another address (the order and its mail went there).
  const get = (k: keyof CheckoutForm) => (typeof body[k] === 'string' ? (body[k] as string).trim() : '');
  return {
    email: get('email'),
    firstName: get('firstName'),
    lastName: get('lastName'),
    addressLine: get('addressLine'),
    addressLine2: get('addressLine2'),
    city: get('city'),
    postalCode: get('postalCode'),
    country: get('country').toUpperCase(),
    subdivision: get('subdivision').toUpperCase(),
  };
}

function formErrors(f: CheckoutForm): FormError[] {
  const out: FormError[] = [];
  if (f.email.length > EMAIL_MAX)
    out.push({ fields: ['email'], message: `The e-mail address must be at most ${EMAIL_MAX} characters.` });
  for (const [name, label] of FORM_FIELDS)
    if (f[name].length > FIELD_MAX)
      out.push({
        fields: [name],
        message: `${label.replace(/ \(.*\)$/, '')} must be at most ${FIELD_MAX} characters.`,
      });
  if (out.length) return out;
  if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(f.email))
    out.push({ fields: ['email'], message: 'Enter a valid e-mail address.' });
  const missing = (names: Array<keyof CheckoutForm>) => names.filter((n) => !f[n]);
  const name = missing(['firstName', 'lastName']);
  if (name.length) out.push({ fields: name, message: 'Enter your first and last name.' });
  const place = missing(['addressLine', 'city', 'postalCode']);
  if (place.length) out.push({ fields: place, message: 'Enter the address, city and postal code.' });
  if (!isCountryCode(f.country))
    out.push({ fields: ['country'], message: 'Enter the country as a two-letter code, such as US.' });
  return out;
}

/** `POST /redirect/{id}` of an `ecomCheckout` session (its form's fields in `body`): places the order. */
async function orderPost(emu: Emulator, c: Context, body: Record<string, unknown>) {
  const session = await loadRedirectSession(emu, String(body.id ?? ''));
  if (session?.intent !== 'ecomCheckout') return htmlPage(c, 'Link expired', EXPIRED_LINK, 404);
  // The form posts back to this same page; a post from another site is refused.
  if (isCrossSitePost(emu, c)) return crossSiteRefusal(c);
  const form = readForm(body);
  const errors = formErrors(form);
  // Shown again, the page is priced as the order would be (`checkoutPage`): the total it sends back
  // is then the one the order is charged.
  if (errors.length) return checkoutPage(emu, c, session, form, errors, 400);
  const again = (errors: string[]) =>
    checkoutPage(
      emu,
      c,
      session,
      form,
      errors.map((message) => ({ message })),
      409,
    );

  const checkoutId = String(session.request.checkoutId ?? '');
  const outcome = await placeOrder(emu, session, checkoutId, form, body.total);
  if (outcome.kind === 'missing') return checkoutNotFound(emu, c, session);
  if (outcome.kind === 'unavailable' || outcome.kind === 'changed') return again(outcome.errors);
  const next = await afterOrderUrl(emu, session, outcome.orderId);
  if (next) return c.redirect(next, 303);
  const co = await loadCheckout(emu.db, checkoutId);
  return placedPage(emu, c, session, co!);
}

interface ProductRow {
  id: string;
  name: string;
  visible: boolean;
  description: string | null;
  price: string;
  discounted_price: string;
  variant_id: string | null;
}

/**
 * The product page: name, image, price and stock (of the first visible variant in stock, else of
 * the first visible one: "In stock" whenever the product can be bought, as its `stock.inStock`
 * says), and description.
 */
async function productPage(emu: Emulator, c: Context, slug: string, clientId: string | null, back?: string) {
  const [p] = await emu.db.query<ProductRow>(
    `SELECT p.id, p.name, p.visible, p.description, p.price::text AS price, p.discounted_price::text AS discounted_price,
            (SELECT v.id FROM product_variants v WHERE v.product_id = p.id AND v.visible ORDER BY v.in_stock DESC, v.position LIMIT 1) AS variant_id
     FROM products p WHERE p.slug = $1`,
    [slug],
  );
  if (!p?.visible)
    return htmlPage(
      c,
      'Product not found',
      `<p>There is no product “${h(slug)}” in the store.</p>${await backLink(emu, c, clientId, back, 'Back to the site')}`,
      404,
    );
  const item = p.variant_id ? await lookupCatalogItem(emu, emu.db, p.id, { variantId: p.variant_id }) : null;
  const fmt = (amount: string) => price(toCents(amount) ?? 0n, item?.currency ?? CURRENCY).formattedAmount;
  const img = item?.image
    ? `<img src="${h(item.image.url)}" alt="${h(item.image.altText ?? p.name)}" width="320" height="320">`
    : '';
  // The price of the variant whose image and stock the page shows (a variant may have a price of
  // its own): what the buyer is charged for it. With no visible variant, the product's own.
  const [now, full] = item ? [item.price, item.fullPrice] : [p.discounted_price, p.price];
  const priceLine =
    `<p data-testid="price">${h(fmt(now))}` +
    (toCents(now) !== toCents(full) ? ` <s>${h(fmt(full))}</s>` : '') +
    '</p>';
  const stock = item ? `<p>${item.inStock ? 'In stock' : 'Out of stock'}</p>` : '';
  return htmlPage(
    c,
    p.name,
    img +
      priceLine +
      stock +
      (p.description ? `<p>${h(p.description)}</p>` : '') +
      (await backLink(emu, c, clientId, back, 'Back to the site')),
    200,
    { images: [item?.image?.url] },
  );
}

const notAvailable: IntentPage = async ({ session, emu, c }) => {
  const back = await firstBack(emu, session, [
    'postFlowUrl',
    'cartPageUrl',
    'planListUrl',
    'bookingsServiceListUrl',
    'thankYouPageUrl',
  ]);
  const what: Record<string, string> = {
    bookingsCheckout: 'Bookings checkout',
    bookingsBook: 'Bookings',
    eventsCheckout: 'Events checkout',
    paidPlansCheckout: 'Paid plans checkout',
  };
  return htmlPage(
    c,
    'Not available in the emulator',
    `<p>${h(what[session.intent] ?? session.intent)} is not available in the emulator: it serves the store (cart, checkout, products) and sign-in only.</p>` +
      (await backLink(emu, c, session.clientId, back, 'Back to the site')),
    501,
  );
};

/** Registers the hosted pages: intent pages, the checkout form's POST and `/product-page/{slug}`. */
export function cartPages(router: Router, emu: Emulator) {
  intentPages.set('ecomCheckout', ({ session, emu, c }) => checkoutPage(emu, c, session));
  intentPages.set('storesProduct', async ({ session, emu, c }) =>
    productPage(
      emu,
      c,
      String(session.request.productSlug ?? ''),
      session.clientId,
      await firstBack(emu, session, ['postFlowUrl']),
    ),
  );
  for (const intent of ['bookingsCheckout', 'bookingsBook', 'eventsCheckout', 'paidPlansCheckout'])
    intentPages.set(intent, notAvailable);
  router.route({
    method: 'GET',
    family: FAMILY.none,
    path: '/product-page/{slug}',
    access: 'public',
    handler: ({ msg, c }) => productPage(emu, c, String((msg as { slug: string }).slug), null),
  });
  router.route({
    method: 'POST',
    family: FAMILY.none,
    path: '/redirect/{id}',
    access: 'public',
    body: 'form',
    handler: ({ msg, c }) => orderPost(emu, c, msg as Record<string, unknown>),
  });
}
