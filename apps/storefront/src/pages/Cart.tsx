import {
  shopkitKeys,
  useApplyCoupon,
  useCart,
  useCartUpdating,
  useEstimateTotals,
  useRemoveCoupon,
} from '@shopkit/react';
import { useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useEffect, useId, useRef, useState } from 'react';
import { Link } from 'react-router';
import {
  ADDRESS_FIELDS,
  type AddressField,
  type AddressProblems,
  addressProblems,
  COUNTRY_CODES,
  countryName,
  countryProblem,
} from '../address.ts';
import { type Destination, estimateOptions, setCheckoutChoices, useCheckoutChoices } from '../checkout.ts';
import { CartLines, LineChangeError, useLineChanges } from '../components/CartLines.tsx';
import { CheckoutButton, checkoutMessage, useCartCheckout } from '../components/CheckoutButton.tsx';
import { Empty, ErrorState, Skeleton } from '../components/States.tsx';
import { humanMessage, isRefusal, serverSentence } from '../errors.ts';
import { amountsAsMoney, cents, discountParts, money, optionCents } from '../format.ts';
import { HELD, useHeld } from '../offline.ts';
import { useSession } from '../session.ts';
import { shippingDropped } from '../shipping.ts';
import { useTitle } from '../title.ts';

/** Whether keyboard focus has fallen to the page (its element went). */
const focusLost = () => !document.activeElement || document.activeElement === document.body;

/**
 * Why the cart's coupon no longer applies (the cart changed since: its subtotal fell below the
 * coupon's minimum, the coupon expired), as the estimate says; the cart then shows no coupon.
 */
function couponDropped(
  est: { calculationErrors?: Record<string, unknown>; currency?: string } | null | undefined,
) {
  const e = est?.calculationErrors?.couponCalculationError as
    | { applicationError?: { description?: unknown } }
    | undefined;
  const text = e?.applicationError?.description;
  // Its amounts as the page shows amounts (`100.00` is `$100.00`).
  return typeof text === 'string' ? serverSentence(amountsAsMoney(text, est?.currency)) : undefined;
}

function Coupon({ dropped }: { dropped?: string }) {
  const { data } = useCart();
  const apply = useApplyCoupon();
  const remove = useRemoveCoupon();
  const id = useId();
  // The hook keeps the coupon in the cart until the server has answered its removal: shown busy.
  const coupon = data?.appliedDiscounts?.find((d) => d.coupon)?.coupon;
  // Set at once, before `isPending` re-renders: a double click sends one apply or removal.
  const sending = useRef(false);
  const busy = remove.isPending;
  // Offline, the apply or removal is held until the browser is back online: said, not only busy.
  const applyHeld = useHeld(apply.isPaused);
  const removeHeld = useHeld(remove.isPaused);
  const input = useRef<HTMLInputElement>(null);
  const line = useRef<HTMLParagraphElement>(null);
  // The form and the coupon's line take each other's place: focus follows instead of falling to
  // the page (the line after an apply, the code box after a removal). Only then: arriving, the
  // page starts at its top, not in the code box.
  const shown = coupon ? 'coupon' : dropped ? 'dropped' : 'form';
  const wasShown = useRef(shown);
  useEffect(() => {
    if (wasShown.current === shown) return;
    wasShown.current = shown;
    if (!focusLost()) return;
    if (shown === 'coupon') line.current?.focus();
    else input.current?.focus();
  }, [shown]);
  // "Apply" pressed with no code: said, not nothing.
  const [blank, setBlank] = useState(false);
  const onSubmit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const code = String(new FormData(e.currentTarget).get('code') ?? '').trim();
    if (sending.current) return;
    setBlank(!code);
    if (!code) {
      input.current?.focus();
      return;
    }
    sending.current = true;
    apply.mutate(code, {
      onSettled: () => {
        sending.current = false;
      },
    });
  };
  const onRemove = () => {
    if (sending.current || (!coupon && !dropped)) return;
    sending.current = true;
    remove.mutate(undefined, {
      onSettled: () => {
        sending.current = false;
      },
    });
  };
  // The coupon applied, or one that no longer applies: either can be taken off.
  const removeButton = (
    <button
      type="button"
      className="link-button"
      aria-disabled={busy || undefined}
      onClick={busy ? undefined : onRemove}
    >
      {busy ? 'Removing coupon…' : 'Remove coupon'}
    </button>
  );
  // A removal that failed left the coupon on the cart: say why, rather than nothing.
  const removal = remove.error
    ? `The coupon was not removed: ${humanMessage(remove.error)}`
    : removeHeld
      ? HELD.uncoupon
      : '';
  if (coupon)
    return (
      <>
        <p className="coupon-applied" ref={line} tabIndex={-1} aria-busy={busy}>
          Coupon <strong>{coupon.code}</strong> applied{coupon.name ? ` (${coupon.name})` : ''}.{' '}
          {removeButton}
        </p>
        <p role="alert" className="field-error">
          {removal}
        </p>
      </>
    );
  return (
    <form onSubmit={onSubmit} className="coupon">
      <label htmlFor={`${id}-code`}>Coupon code</label>
      <div className="row">
        <input
          ref={input}
          id={`${id}-code`}
          name="code"
          autoComplete="off"
          aria-invalid={blank || undefined}
          aria-describedby={`${id}-err`}
        />
        {/* aria-disabled, not disabled: the button pressed keeps focus while the code is sent. */}
        <button type="submit" className="button" aria-disabled={apply.isPending || undefined}>
          {apply.isPending ? 'Applying…' : 'Apply'}
        </button>
      </div>
      <p id={`${id}-err`} role="alert" className="field-error">
        {blank
          ? 'Enter a coupon code.'
          : apply.error
            ? amountsAsMoney(humanMessage(apply.error), data?.currency)
            : applyHeld
              ? HELD.coupon
              : dropped
                ? removal || `Your coupon no longer applies. ${dropped}`
                : removeHeld
                  ? HELD.uncoupon
                  : ''}
      </p>
      {/* The coupon that no longer applies stays on the cart (it applies again if the cart grows
          back): the shopper can take it off, not only read why. */}
      {dropped && removeButton}
    </form>
  );
}

/** The estimate address the form holds. */
function readDestination(form: HTMLFormElement): Destination {
  const f = new FormData(form);
  const get = (k: string) => String(f.get(k) ?? '').trim();
  return {
    country: get('country').toUpperCase(),
    subdivision: get('subdivision').toUpperCase(),
    city: get('city'),
    postalCode: get('postalCode'),
  };
}

/** What the estimate form shows before any address is estimated. */
const UNTOUCHED: Destination = { country: 'US', subdivision: '', city: '', postalCode: '' };

const sameDestination = (a: Destination, b: Destination) =>
  a.country === b.country &&
  a.subdivision === b.subdivision &&
  a.city === b.city &&
  a.postalCode === b.postalCode;

function Totals() {
  // Shared with the drawer: its "Check out" starts the same checkout as this page's.
  const choices = useCheckoutChoices();
  const { destination: dest, shipping } = choices;
  const id = useId();
  const est = useEstimateTotals(estimateOptions(choices));
  // The totals shown are the last estimate's until a cart change and the next estimate answer.
  const stale = useCartUpdating() || est.isFetching;
  const checkout = useCartCheckout();
  // The title of a chosen option that a new address does not offer (the default replaced it).
  const [dropped, setDropped] = useState<string>();
  /** The shopper asked for the next estimate (its total is said even when it is the same). */
  const asked = useRef(false);
  const setShipping = (code: string, title: string) => {
    asked.current = true;
    setDropped(undefined);
    setCheckoutChoices({ ...choices, shipping: code, shippingTitle: title });
  };
  const form = useRef<HTMLFormElement>(null);
  // A member's kept address is shown once their id is known, which may come after the form is
  // shown with its defaults (a reload): the untouched form takes it, not "US" over totals estimated
  // at the kept address (and a checkout then started for "US"). What the shopper typed stays.
  // (A field the browser left untouched follows its new default by itself; one React set did not.)
  const shownDefaults = useRef(dest ?? UNTOUCHED);
  useEffect(() => {
    const f = form.current;
    const before = shownDefaults.current;
    shownDefaults.current = dest ?? UNTOUCHED;
    if (!f || !dest) return;
    const shown = readDestination(f);
    if (ADDRESS_FIELDS.every((k) => shown[k] === before[k] || shown[k] === dest[k]))
      for (const k of ADDRESS_FIELDS) (f.elements.namedItem(k) as HTMLInputElement).value = dest[k];
  }, [dest]);
  // What of the address is not taken (the storefront's check, or the platform's refusal), said
  // beside its field. A refusal answering a press of the shopper's takes the focus to the field;
  // one of an address kept from before (the page just opened) does not.
  const [problems, setProblems] = useState<AddressProblems>({});
  const pressed = useRef(false);
  /** Focuses the first field said to be wrong in `p`, else the country. */
  const focusField = (p: AddressProblems) => {
    const first = ADDRESS_FIELDS.find((k) => p[k]) ?? 'country';
    (form.current?.elements.namedItem(first) as HTMLInputElement | null)?.focus();
  };
  const showProblems = (p: AddressProblems, focus: boolean) => {
    setProblems(p);
    if (focus) focusField(p);
  };
  /** Whether the form's country is one the platform takes; said beside it, and focused, if not. */
  const countryTaken = (f: HTMLFormElement) => {
    const problem = countryProblem(readDestination(f).country);
    if (problem) showProblems({ country: problem }, true);
    return !problem;
  };
  /** A field's link to what is said of it; typing in it drops that. */
  const described = (field: AddressField) => ({
    'aria-invalid': problems[field] ? true : undefined,
    'aria-describedby': problems[field] ? `${id}-${field}-problem` : undefined,
    onChange: () => {
      if (problems[field]) setProblems(({ [field]: _, ...rest }) => rest);
    },
  });
  const said = (field: AddressField) =>
    problems[field] && (
      <p id={`${id}-${field}-problem`} className="field-error">
        {problems[field]}
      </p>
    );
  /** Estimates at the address the form holds now; whether it is another than the one estimated. */
  const estimateAt = (f: HTMLFormElement) => {
    const next = readDestination(f);
    if (dest && sameDestination(next, dest)) return false;
    setDropped(undefined);
    // The chosen shipping option stays chosen: the estimate asks for it at the new address.
    setCheckoutChoices({ ...choices, destination: next });
    return true;
  };
  // "Check out" pressed with an address typed and not estimated: the checkout is for the address
  // the form shows, not the one estimated before (or none). One the browser refuses (a country
  // that is not two letters) or the platform would (`UK`, no country's code), estimated or not, is
  // said, and nothing starts.
  const startCheckout = () => {
    const f = form.current;
    const shown = f && readDestination(f);
    if (f && (!f.reportValidity() || !countryTaken(f))) return;
    pressed.current = true;
    if (!f || !shown || sameDestination(shown, dest ?? UNTOUCHED)) return checkout.start();
    estimateAt(f);
    checkout.start({ ...choices, destination: shown });
  };
  const onAddress = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const f = e.currentTarget;
    if (!countryTaken(f)) return;
    setProblems({});
    pressed.current = true;
    asked.current = true;
    if (!estimateAt(f)) void est.refetch();
  };
  const s = est.data?.priceSummary;
  const shippingOptions =
    est.data?.shippingInfo?.carrierServiceOptions.flatMap((c) => c.shippingOptions) ?? [];
  const answered = est.data?.shippingInfo?.selectedCarrierServiceOption;
  const selected = answered?.code;
  // The chosen option is not offered at this address: the platform refused it, or answered with
  // another one. The estimate goes back to the default, and the page says so.
  const drop = shippingDropped(shipping, {
    error: est.error,
    selected: answered,
    settled: !est.isPlaceholderData && !est.isFetching,
  });
  useEffect(() => {
    if (!drop) return;
    setDropped(choices.shippingTitle ?? 'The chosen shipping option');
    setCheckoutChoices({ ...choices, shipping: undefined, shippingTitle: undefined });
  }, [drop, choices]);
  const failed = drop === 'refused' ? null : est.error;
  // The estimate tells of a cart changed since it was read: a line that cannot be bought (out of
  // stock since) shown available, or lines (or the whole cart) gone, emptied in another tab. The
  // cart is read again: the line says what to do, or the page shows the cart empty (rather than
  // its old lines over totals "calculated" for ever).
  const lines = useCart().data?.lineItems;
  const settled = !stale && !est.isPlaceholderData && est.isSuccess ? est.data : undefined;
  const outdated =
    settled === null ||
    !!settled?.violations.some((v) => {
      const line = lines?.find((l) => l.id === v.target?.lineItem?.id);
      return line && (line.availability?.status ?? 'AVAILABLE') === 'AVAILABLE';
    }) ||
    !!(settled && lines?.some((l) => !settled.cart.lineItems.some((e) => e.id === l.id)));
  const qc = useQueryClient();
  useEffect(() => {
    if (outdated) void qc.invalidateQueries({ queryKey: shopkitKeys.cart, exact: true });
  }, [outdated, qc]);
  // The platform refused fields of the address (a subdivision, a postal code; a country from
  // before this check): each said beside its field.
  // biome-ignore lint/correctness/useExhaustiveDependencies: on a new refusal only
  useEffect(() => {
    const p =
      addressProblems(failed, dest) ??
      addressProblems(checkout.error, form.current ? readDestination(form.current) : dest);
    if (!p) return;
    showProblems(p, pressed.current);
    pressed.current = false;
  }, [failed, checkout.error]);
  // "Try again" estimates at the address the form holds now (corrected since, maybe); the same
  // address the shop refused is not sent again as it is: the shopper is taken to it to correct it.
  const retry = () => {
    if (form.current && !countryTaken(form.current)) return;
    if (form.current && estimateAt(form.current)) return;
    asked.current = true;
    if (isRefusal(failed)) focusField(problems);
    else void est.refetch();
  };
  // A new estimate's total is said (the totals change silently otherwise): not the first one the
  // page shows; again after every estimate the shopper asked for, even when it is the same amount;
  // not when the page reads the same total again by itself (the tab shown again, the cart read
  // again), which said the total once more to a screen reader user who had changed nothing.
  const [announced, setAnnounced] = useState('');
  const seen = useRef<number>(undefined);
  const lastTotal = useRef<string>(undefined);
  const settledTotal = !stale && !est.isPlaceholderData && !failed ? s?.total.formattedAmount : undefined;
  useEffect(() => {
    if (!settledTotal) {
      setAnnounced('');
      return;
    }
    if (seen.current === est.dataUpdatedAt) return;
    const first = seen.current === undefined;
    seen.current = est.dataUpdatedAt;
    const changed = settledTotal !== lastTotal.current;
    lastTotal.current = settledTotal;
    if (!first && (changed || asked.current)) setAnnounced(`Estimated total: ${settledTotal}.`);
    asked.current = false;
  }, [settledTotal, est.dataUpdatedAt]);
  // The shipping's discount (a free-shipping coupon) shows on the shipping line, the items' as the discount.
  const { shipping: shippingDiscount, items } = discountParts(est.data);
  const itemDiscount = items / 100;
  return (
    <section className="summary" aria-labelledby="summary-title">
      <h2 id="summary-title">Order summary</h2>
      <Coupon dropped={est.isPlaceholderData ? undefined : couponDropped(est.data)} />
      <form ref={form} onSubmit={onAddress} className="estimate-form">
        <fieldset>
          <legend>Estimate shipping and tax</legend>
          <div className="row">
            <div className="field">
              <label htmlFor={`${id}-country`}>Country code</label>
              {/* Two letters, as the platform takes it: the browser says so before anything is sent.
                  The codes are offered by name as the shopper types (`United Kingdom` is GB). */}
              <input
                id={`${id}-country`}
                name="country"
                defaultValue={dest?.country ?? 'US'}
                maxLength={2}
                pattern="[A-Za-z]{2}"
                title="Two letters, e.g. US"
                required
                autoComplete="country"
                list={`${id}-countries`}
                {...described('country')}
              />
              <datalist id={`${id}-countries`}>
                {COUNTRY_CODES.map((c) => (
                  <option key={c} value={c} label={countryName(c)} />
                ))}
              </datalist>
              {said('country')}
            </div>
            <div className="field">
              <label htmlFor={`${id}-subdivision`}>State</label>
              <input
                id={`${id}-subdivision`}
                name="subdivision"
                maxLength={100}
                defaultValue={dest?.subdivision ?? ''}
                autoComplete="address-level1"
                {...described('subdivision')}
              />
              {said('subdivision')}
            </div>
          </div>
          <div className="row">
            <div className="field">
              <label htmlFor={`${id}-city`}>City</label>
              <input
                id={`${id}-city`}
                name="city"
                maxLength={200}
                defaultValue={dest?.city ?? ''}
                autoComplete="address-level2"
                {...described('city')}
              />
              {said('city')}
            </div>
            <div className="field">
              <label htmlFor={`${id}-postalCode`}>Postal code</label>
              <input
                id={`${id}-postalCode`}
                name="postalCode"
                maxLength={40}
                defaultValue={dest?.postalCode ?? ''}
                autoComplete="postal-code"
                {...described('postalCode')}
              />
              {said('postalCode')}
            </div>
          </div>
          <button type="submit" className="button">
            Estimate
          </button>
        </fieldset>
      </form>
      {shippingOptions.length > 0 && (
        <fieldset className="shipping-options">
          <legend>Shipping</legend>
          {shippingOptions.map((o) => (
            <div key={o.code} className="field checkbox">
              <input
                type="radio"
                id={`${id}-ship-${o.code}`}
                name={`${id}-ship`}
                checked={(shipping ?? selected) === o.code}
                onChange={() => setShipping(o.code, o.title)}
              />
              <label htmlFor={`${id}-ship-${o.code}`}>
                {o.title} ·{' '}
                {o.cost &&
                  (optionCents(o.cost) === 0 ? 'Free' : money(optionCents(o.cost) / 100, est.data?.currency))}
                {o.logistics?.deliveryTime ? ` · ${o.logistics.deliveryTime}` : ''}
              </label>
            </div>
          ))}
        </fieldset>
      )}
      <div role="status">
        {announced && <p className="visually-hidden">{announced}</p>}
        {dropped && (
          <p className="notice">
            {dropped} is not offered to this address
            {selected && !shipping && !est.isPlaceholderData
              ? `: ${answered?.title} is selected instead.`
              : '.'}
          </p>
        )}
      </div>
      {failed && <ErrorState error={failed} retry={retry} title="Totals are not available" />}
      {s ? (
        <dl className={stale ? 'totals updating' : 'totals'} aria-label="Totals" aria-busy={stale}>
          <dt>Subtotal</dt>
          <dd>{s.subtotal.formattedAmount}</dd>
          {itemDiscount > 0 && (
            <>
              <dt>Discount</dt>
              <dd>
                −{shippingDiscount > 0 ? money(itemDiscount, est.data?.currency) : s.discount.formattedAmount}
              </dd>
            </>
          )}
          <dt>Shipping</dt>
          <dd>
            {!dest && !selected ? (
              'Enter an address'
            ) : shippingDiscount > 0 && answered ? (
              // A shipping discount (a free-shipping coupon) shows on the shipping, as a sale price does.
              <>
                <span className="sale">
                  {cents(answered.cost.totalPriceBeforeTax.amount) > 0
                    ? answered.cost.totalPriceBeforeTax.formattedAmount
                    : 'Free'}
                </span>{' '}
                <s>
                  <span className="visually-hidden">was </span>
                  {s.shipping.formattedAmount}
                </s>
              </>
            ) : cents(s.shipping.amount) === 0 && selected ? (
              'Free'
            ) : (
              s.shipping.formattedAmount
            )}
          </dd>
          <dt>Tax</dt>
          <dd>{s.tax.formattedAmount}</dd>
          <dt className="total">Total</dt>
          <dd className="total" data-testid="estimated-total">
            {s.total.formattedAmount}
          </dd>
        </dl>
      ) : failed && !est.isFetching ? null : (
        // Only while an estimate is on its way: a failed one says so above, with "Try again".
        <div className="totals totals-loading">
          <Skeleton lines={4} label="Calculating totals" />
        </div>
      )}
      {est.data?.violations.map((v) => (
        <p key={v.description} className="notice notice-error">
          {v.description}
        </p>
      ))}
      {checkout.error && (
        <ErrorState
          error={checkout.error}
          title="Checkout could not start"
          message={checkoutMessage(checkout.error)}
        />
      )}
      <CheckoutButton checkout={checkout} className="button button-primary wide" onStart={startCheckout} />
    </section>
  );
}

export function CartPage() {
  useTitle('Cart');
  const { data, isPending, error, refetch } = useCart();
  const empty = !data || data.lineItems.length === 0;
  // A refused refresh ended the member's session and their cart went with it: the cart is not
  // empty, it is theirs to see again after a login.
  const ended = useSession().expired;
  const changes = useLineChanges();
  // The lines may go with the focus in them (the session ended under it, another tab emptied the
  // cart): focus goes to the heading, not the page's body. Not on arrival: the page starts at the top.
  const heading = useRef<HTMLHeadingElement>(null);
  const hadLines = useRef(false);
  useEffect(() => {
    if (!empty) hadLines.current = true;
    else if (hadLines.current && focusLost()) heading.current?.focus();
  }, [empty]);
  return (
    <>
      <h1 ref={heading} tabIndex={-1}>
        Your cart
      </h1>
      {isPending && <Skeleton lines={4} label="Loading your cart" />}
      {error && <ErrorState error={error} retry={() => refetch()} />}
      {!isPending && !error && empty && !ended && (
        <Empty>
          <p>Your cart is empty.</p>
          <Link to="/products" className="button button-primary">
            Start shopping
          </Link>
        </Empty>
      )}
      {!isPending && !error && empty && ended && (
        <Empty>
          <p>
            Your session has ended. <Link to="/login">Log in again</Link> to see your cart.
          </p>
        </Empty>
      )}
      {/* A session that ended says so above; the change it refused needs no word of its own. */}
      {!ended && <LineChangeError changes={changes} />}
      {!empty && (
        <div className="cart-layout">
          <CartLines changes={changes} />
          <Totals />
        </div>
      )}
    </>
  );
}
