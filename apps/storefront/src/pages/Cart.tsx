import { useApplyCoupon, useCart, useCartUpdating, useEstimateTotals, useRemoveCoupon } from '@shopkit/react';
import { type FormEvent, useId } from 'react';
import { Link } from 'react-router';
import { estimateOptions, setCheckoutChoices, useCheckoutChoices } from '../checkout.ts';
import { CartLines } from '../components/CartLines.tsx';
import { CheckoutButton, useCartCheckout } from '../components/CheckoutButton.tsx';
import { Empty, ErrorState, Skeleton } from '../components/States.tsx';
import { humanMessage } from '../errors.ts';
import { useTitle } from '../title.ts';

function Coupon() {
  const { data } = useCart();
  const apply = useApplyCoupon();
  const remove = useRemoveCoupon();
  const id = useId();
  const coupon = data?.appliedDiscounts?.find((d) => d.coupon)?.coupon;
  const onSubmit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const code = String(new FormData(e.currentTarget).get('code') ?? '').trim();
    if (code) apply.mutate(code);
  };
  if (coupon)
    return (
      <>
        <p className="coupon-applied">
          Coupon <strong>{coupon.code}</strong> applied{coupon.name ? ` (${coupon.name})` : ''}.{' '}
          <button type="button" className="link-button" onClick={() => remove.mutate()}>
            Remove coupon
          </button>
        </p>
        {/* A removal that failed put the coupon back: say why, rather than nothing. */}
        <p role="alert" className="field-error">
          {remove.error ? `The coupon was not removed: ${humanMessage(remove.error)}` : ''}
        </p>
      </>
    );
  return (
    <form onSubmit={onSubmit} className="coupon">
      <label htmlFor={`${id}-code`}>Coupon code</label>
      <div className="row">
        <input id={`${id}-code`} name="code" autoComplete="off" aria-describedby={`${id}-err`} />
        <button type="submit" className="button" disabled={apply.isPending}>
          Apply
        </button>
      </div>
      <p id={`${id}-err`} role="alert" className="field-error">
        {apply.error ? humanMessage(apply.error) : ''}
      </p>
    </form>
  );
}

function Totals() {
  // Shared with the drawer: its "Check out" starts the same checkout as this page's.
  const choices = useCheckoutChoices();
  const { destination: dest, shipping } = choices;
  const id = useId();
  const est = useEstimateTotals(estimateOptions(choices));
  // The totals shown are the last estimate's until a cart change and the next estimate answer.
  const stale = useCartUpdating() || est.isFetching;
  const checkout = useCartCheckout();
  const setShipping = (code: string) => setCheckoutChoices({ ...choices, shipping: code });
  const onAddress = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const f = new FormData(e.currentTarget);
    const get = (k: string) => String(f.get(k) ?? '').trim();
    setCheckoutChoices({
      destination: {
        country: get('country').toUpperCase(),
        subdivision: get('subdivision').toUpperCase(),
        city: get('city'),
        postalCode: get('postalCode'),
      },
    });
  };
  const s = est.data?.priceSummary;
  const shippingOptions =
    est.data?.shippingInfo?.carrierServiceOptions.flatMap((c) => c.shippingOptions) ?? [];
  const selected = est.data?.shippingInfo?.selectedCarrierServiceOption?.code;
  return (
    <section className="summary" aria-labelledby="summary-title">
      <h2 id="summary-title">Order summary</h2>
      <Coupon />
      <form onSubmit={onAddress} className="estimate-form">
        <fieldset>
          <legend>Estimate shipping and tax</legend>
          <div className="row">
            <div className="field">
              <label htmlFor={`${id}-country`}>Country code</label>
              <input
                id={`${id}-country`}
                name="country"
                defaultValue={dest?.country ?? 'US'}
                maxLength={2}
                required
                autoComplete="country"
              />
            </div>
            <div className="field">
              <label htmlFor={`${id}-sub`}>State</label>
              <input
                id={`${id}-sub`}
                name="subdivision"
                defaultValue={dest?.subdivision ?? ''}
                autoComplete="address-level1"
              />
            </div>
          </div>
          <div className="row">
            <div className="field">
              <label htmlFor={`${id}-city`}>City</label>
              <input
                id={`${id}-city`}
                name="city"
                defaultValue={dest?.city ?? ''}
                autoComplete="address-level2"
              />
            </div>
            <div className="field">
              <label htmlFor={`${id}-zip`}>Postal code</label>
              <input
                id={`${id}-zip`}
                name="postalCode"
                defaultValue={dest?.postalCode ?? ''}
                autoComplete="postal-code"
              />
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
                onChange={() => setShipping(o.code)}
              />
              <label htmlFor={`${id}-ship-${o.code}`}>
                {o.title} · {o.cost?.price.formattedAmount}
                {o.logistics?.deliveryTime ? ` · ${o.logistics.deliveryTime}` : ''}
              </label>
            </div>
          ))}
        </fieldset>
      )}
      {est.error && (
        <ErrorState error={est.error} retry={() => est.refetch()} title="Totals are not available" />
      )}
      {s ? (
        <dl className={stale ? 'totals updating' : 'totals'} aria-label="Totals" aria-busy={stale}>
          <dt>Subtotal</dt>
          <dd>{s.subtotal.formattedAmount}</dd>
          {Number(s.discount.amount) > 0 && (
            <>
              <dt>Discount</dt>
              <dd>−{s.discount.formattedAmount}</dd>
            </>
          )}
          <dt>Shipping</dt>
          <dd>{dest || selected ? s.shipping.formattedAmount : 'Enter an address'}</dd>
          <dt>Tax</dt>
          <dd>{s.tax.formattedAmount}</dd>
          <dt className="total">Total</dt>
          <dd className="total" data-testid="estimated-total">
            {s.total.formattedAmount}
          </dd>
        </dl>
      ) : est.error && !est.isFetching ? null : (
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
      {checkout.error && <ErrorState error={checkout.error} title="Checkout could not start" />}
      <CheckoutButton checkout={checkout} className="button button-primary wide" />
    </section>
  );
}

export function CartPage() {
  useTitle('Cart');
  const { data, isPending, error, refetch } = useCart();
  return (
    <>
      <h1 tabIndex={-1}>Your cart</h1>
      {isPending && <Skeleton lines={4} label="Loading your cart" />}
      {error && <ErrorState error={error} retry={() => refetch()} />}
      {!isPending && !error && (!data || data.lineItems.length === 0) && (
        <Empty>
          <p>Your cart is empty.</p>
          <Link to="/products" className="button button-primary">
            Start shopping
          </Link>
        </Empty>
      )}
      {data && data.lineItems.length > 0 && (
        <div className="cart-layout">
          <CartLines />
          <Totals />
        </div>
      )}
    </>
  );
}
