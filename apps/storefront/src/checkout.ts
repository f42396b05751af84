/**
 * What the shopper chose for the checkout on the cart page (estimate address, shipping option),
 * shared with the cart drawer so that both "Check out" buttons start the same checkout. Kept in
 * memory for the page's life: an address is not written to storage.
 */
import type { CheckoutVars, EstimateTotalsOptions } from '@shopkit/react';
import { useSyncExternalStore } from 'react';

export interface Destination {
  country: string;
  subdivision: string;
  city: string;
  postalCode: string;
}

export interface CheckoutChoices {
  destination?: Destination;
  /** The chosen shipping option's code. */
  shipping?: string;
  /** Its title, to name it if a new address does not offer it. */
  shippingTitle?: string;
}

let choices: CheckoutChoices = {};
const listeners = new Set<() => void>();

export function setCheckoutChoices(next: CheckoutChoices) {
  choices = next;
  for (const l of listeners) l();
}

const subscribe = (l: () => void) => {
  listeners.add(l);
  return () => listeners.delete(l);
};

/** The current choices; re-renders when the cart page changes them. */
export function useCheckoutChoices(): CheckoutChoices {
  return useSyncExternalStore(
    subscribe,
    () => choices,
    () => choices,
  );
}

/** The estimate (and checkout) options for the choices. */
export function estimateOptions({
  destination: d,
  shipping,
}: CheckoutChoices): Pick<EstimateTotalsOptions, 'shippingAddress' | 'selectedShippingOption'> {
  return {
    ...(d
      ? {
          shippingAddress: {
            country: d.country,
            ...(d.subdivision ? { subdivision: d.subdivision } : {}),
            city: d.city,
            postalCode: d.postalCode,
          },
        }
      : {}),
    ...(shipping ? { selectedShippingOption: { code: shipping } } : {}),
  };
}

/** Thank-you page address handed to the hosted checkout. */
const checkoutCallbacks = (checkoutId: string) => ({
  postFlowUrl: `${location.origin}/thank-you?checkoutId=${encodeURIComponent(checkoutId)}`,
  cartPageUrl: `${location.origin}/cart`,
});

/** What `useCheckout().mutate` gets: the callbacks and the chosen address and shipping option. */
export function checkoutVars(c: CheckoutChoices): CheckoutVars {
  return { callbacks: checkoutCallbacks, ...estimateOptions(c) };
}
