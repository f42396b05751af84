import { useCart, useCartUpdating } from '@shopkit/react';
import { type MouseEvent, useEffect, useLayoutEffect, useRef } from 'react';
import { Link } from 'react-router';
import { useSession } from '../session.ts';
import { CartLines, LineChangeError, useLineChanges } from './CartLines.tsx';
import { CheckoutButton, checkoutMessage, useCartCheckout } from './CheckoutButton.tsx';
import { ErrorState, Skeleton } from './States.tsx';

/** A modal cart drawer (native `<dialog>`: focus kept inside, Escape closes, focus returns). */
export function CartDrawer({ open, onClose }: { open: boolean; onClose: () => void }) {
  const ref = useRef<HTMLDialogElement>(null);
  const { data, isPending, error, refetch } = useCart();
  // Until a change answers, the subtotal is the one from before it.
  const updating = useCartUpdating();
  // The address and shipping option chosen on the cart page, if any.
  const checkout = useCartCheckout();
  useEffect(() => {
    const d = ref.current;
    if (!d) return;
    if (open && !d.open) d.showModal();
    if (!open && d.open) d.close();
  }, [open]);
  const empty = !data || data.lineItems.length === 0;
  // A refused refresh ended the member's session and their cart went with it: the cart is not
  // empty, it is theirs to see again after a login (the page's banner is behind the modal).
  const ended = useSession().expired;
  const changes = useLineChanges();
  // Opened again, the drawer starts without the error it said before: the cart has been changed
  // since, elsewhere maybe (the cart page, a product page). A change still on its way keeps its own.
  // Before the drawer is shown (a layout effect): in an effect, it was shown with the old alert for
  // a render or more, which a screen reader may announce again.
  const { qty, remove } = changes;
  // biome-ignore lint/correctness/useExhaustiveDependencies: on opening only
  useLayoutEffect(() => {
    if (!open) return;
    if (!qty.isPending) qty.reset();
    if (!remove.isPending) remove.reset();
    // A checkout that failed from it before is not said again either.
    if (!checkout.busy) checkout.forget();
  }, [open]);
  // What the focus was on may go while the drawer is open (the session ended under it and the
  // cart went with it; another tab emptied it): focus goes to the heading, not the page's body
  // behind the modal.
  const heading = useRef<HTMLHeadingElement>(null);
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs whenever what the drawer shows changes
  useEffect(() => {
    const active = document.activeElement;
    if (open && ref.current?.open && (!active || active === document.body)) heading.current?.focus();
  }, [open, data, isPending, error]);
  // A click on the dimmed page beside the drawer (the dialog's backdrop: the dialog is its target,
  // outside its box) closes it, as Escape does; one that began inside (a text selected) does not.
  const outside = (e: MouseEvent<HTMLDialogElement>) => {
    const r = e.currentTarget.getBoundingClientRect();
    return (
      e.target === e.currentTarget &&
      (e.clientX < r.left || e.clientX > r.right || e.clientY < r.top || e.clientY > r.bottom)
    );
  };
  const pressedOutside = useRef(false);
  return (
    // biome-ignore lint/a11y/useKeyWithClickEvents: the keyboard's way out is Escape (the dialog's own)
    <dialog
      ref={ref}
      className="drawer"
      aria-labelledby="drawer-title"
      onClose={onClose}
      onPointerDown={(e) => {
        pressedOutside.current = outside(e);
      }}
      onClick={(e) => {
        if (pressedOutside.current && outside(e)) onClose();
        pressedOutside.current = false;
      }}
    >
      <div className="drawer-head">
        <h2 id="drawer-title" ref={heading} tabIndex={-1}>
          Your cart
        </h2>
        <button type="button" className="icon-button" onClick={onClose} aria-label="Close cart">
          ×
        </button>
      </div>
      {isPending && <Skeleton lines={3} label="Loading your cart" />}
      {error && <ErrorState error={error} retry={() => refetch()} />}
      {!isPending && !error && empty && !ended && <p className="muted">Your cart is empty.</p>}
      {!isPending && !error && empty && ended && (
        <p>
          Your session has ended.{' '}
          <Link to="/login" onClick={onClose}>
            Log in again
          </Link>{' '}
          to see your cart.
        </p>
      )}
      {!ended && <LineChangeError changes={changes} />}
      {!empty && (
        <>
          <CartLines changes={changes} compact onNavigate={onClose} />
          <p className="subtotal" aria-busy={updating}>
            <span>Subtotal</span>{' '}
            <strong className={updating ? 'updating' : undefined}>{data.subtotal?.formattedAmount}</strong>
          </p>
          {checkout.error && (
            <ErrorState
              error={checkout.error}
              title="Checkout could not start"
              message={checkoutMessage(checkout.error)}
            />
          )}
          <div className="drawer-actions">
            <Link to="/cart" className="button" onClick={onClose}>
              View cart
            </Link>
            <CheckoutButton checkout={checkout} className="button button-primary" />
          </div>
        </>
      )}
    </dialog>
  );
}
