import { useCheckout } from '@shopkit/react';
import { checkoutVars, useCheckoutChoices } from '../checkout.ts';

/**
 * The checkout of the cart page and the drawer: the cart page's address and shipping option, one
 * checkout however often the button is pressed (`useCheckout` ignores a second start).
 */
export function useCartCheckout() {
  const checkout = useCheckout();
  const choices = useCheckoutChoices();
  return {
    error: checkout.error,
    busy: checkout.isPending || checkout.isSuccess,
    start: () => checkout.mutate(checkoutVars(choices)),
  };
}

/** "Check out", disabled while the checkout starts and the browser leaves. */
export function CheckoutButton({
  checkout,
  className,
}: {
  checkout: ReturnType<typeof useCartCheckout>;
  className: string;
}) {
  return (
    <button type="button" className={className} disabled={checkout.busy} onClick={checkout.start}>
      {checkout.busy ? 'Starting checkout…' : 'Check out'}
    </button>
  );
}
