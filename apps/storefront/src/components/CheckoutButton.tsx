import { shopkitKeys, useCartUpdating, useCheckout } from '@shopkit/react';
import { ApplicationError } from '@shopkit/sdk';
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { type CheckoutChoices, checkoutVars, useCheckoutChoices } from '../checkout.ts';
import { humanMessage } from '../errors.ts';

/** The platform has no current cart for the caller (its order was placed, in another tab say). */
const cartGone = (e: unknown) => e instanceof ApplicationError && e.code === 'OWNED_CART_NOT_FOUND';

/** Lines of the cart went out of stock (or out of the store) since it was read. */
const linesUnavailable = (e: unknown) =>
  e instanceof ApplicationError && e.code === 'LINE_ITEMS_NOT_AVAILABLE';

/** Why the checkout did not start, and what to do about it when the cart's lines are why. */
export const checkoutMessage = (e: unknown) =>
  linesUnavailable(e)
    ? `${humanMessage(e)} Remove the items marked in your cart, or lower their quantity, then check out again.`
    : humanMessage(e);

/**
 * The checkout of the cart page and the drawer: the cart page's address and shipping option, one
 * checkout however often the button is pressed (`useCheckout` ignores a second start). A cart
 * that is gone is read again: the page shows it empty, not its old lines under a refusal. Both
 * show the checkout busy, but only the one whose button started it says why it failed: the
 * drawer's failure is not the cart page's behind it (nor the page's the drawer's); `forget()`
 * drops a failure said before (the drawer opened again).
 */
export function useCartCheckout() {
  const checkout = useCheckout();
  const choices = useCheckoutChoices();
  const qc = useQueryClient();
  const [started, setStarted] = useState(false);
  // The cart changed since the checkout failed (the line it was refused for removed, a quantity
  // lowered): what it said of the cart before ("Remove the items marked") is not said of this one.
  // Not while a checkout is on its way: its answer is still to be said.
  const updating = useCartUpdating();
  // biome-ignore lint/correctness/useExhaustiveDependencies: as a cart change starts only
  useEffect(() => {
    if (updating && !checkout.isPending) setStarted(false);
  }, [updating]);
  return {
    error: started ? checkout.error : null,
    busy: checkout.isPending || checkout.isSuccess,
    forget: () => setStarted(false),
    /** Starts the checkout with the choices kept, or `chosen` (made in the same click). */
    start: (chosen: CheckoutChoices = choices) => {
      setStarted(true);
      checkout.mutate(checkoutVars(chosen), {
        onError: (e) => {
          // The cart is read again: its lines say which went out of stock, the totals without them.
          if (cartGone(e) || linesUnavailable(e)) void qc.invalidateQueries({ queryKey: shopkitKeys.cart });
        },
      });
    },
  };
}

/**
 * "Check out", busy while the checkout starts and the browser leaves: aria-disabled, not disabled,
 * so that a keyboard user's focus stays on it when the checkout fails (a press meanwhile starts
 * nothing new: `useCheckout` ignores it).
 */
export function CheckoutButton({
  checkout,
  className,
  onStart = () => checkout.start(),
}: {
  checkout: ReturnType<typeof useCartCheckout>;
  className: string;
  /** What a press does (the cart page takes an address typed and not estimated yet along). */
  onStart?: () => void;
}) {
  return (
    <button
      type="button"
      className={className}
      aria-disabled={checkout.busy || undefined}
      onClick={checkout.busy ? undefined : onStart}
    >
      {checkout.busy ? 'Starting checkout…' : 'Check out'}
    </button>
  );
}
