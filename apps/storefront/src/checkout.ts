/**
 * What the shopper chose for the checkout on the cart page (estimate address, shipping option),
 * shared with the cart drawer so that both "Check out" buttons start the same checkout. Kept for
 * the tab in sessionStorage, scoped by the shop's client id (`shopkit:<clientId>:checkout`), so
 * that Back from the hosted checkout page or a reload still shows them; never in a URL or
 * localStorage. Forgotten once the order is placed (the thank-you page) and when a member's
 * session ends (a logout, here or in another tab, or a refused refresh): the next shopper of the
 * browser does not see the address.
 */
import type { CheckoutVars, EstimateTotalsOptions } from '@shopkit/react';
import { useEffect, useSyncExternalStore } from 'react';
import { config } from './config.ts';
import { useSession } from './session.ts';

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

/** What is stored: the choices, and whether a member (rather than a visitor) made them. */
interface Kept {
  member: boolean;
  choices: CheckoutChoices;
}

const text = (v: unknown) => (typeof v === 'string' ? v.slice(0, 200) : undefined);

/** The stored value, or nothing when it is not one (another format, a hand-edited value). */
function parse(raw: string | null): Kept | undefined {
  if (!raw) return undefined;
  try {
    const v = JSON.parse(raw) as { member?: unknown; choices?: Record<string, unknown> };
    const c = v.choices;
    if (!c || typeof c !== 'object') return undefined;
    const d = c.destination as Record<string, unknown> | undefined;
    const destination =
      d && typeof d === 'object'
        ? {
            country: text(d.country) ?? '',
            subdivision: text(d.subdivision) ?? '',
            city: text(d.city) ?? '',
            postalCode: text(d.postalCode) ?? '',
          }
        : undefined;
    const shipping = text(c.shipping);
    const shippingTitle = text(c.shippingTitle);
    return {
      member: v.member === true,
      choices: {
        ...(destination ? { destination } : {}),
        ...(shipping ? { shipping } : {}),
        ...(shippingTitle ? { shippingTitle } : {}),
      },
    };
  } catch {
    return undefined;
  }
}

/**
 * The checkout choices of one shop in one tab, kept in `area()` (sessionStorage in the shop; a
 * storage the browser refuses, or none, keeps them in memory only). `session(member)` is told who
 * the session is whenever that is known: a member's choices are dropped once the session is no
 * longer a member's, and a visitor's become the member's when the visitor logs in (the same
 * shopper: the visitor's cart went with them).
 * @example const s = checkoutStore(() => sessionStorage, 'shopkit:abc:checkout'); s.set({ shipping: 'express' });
 */
export function checkoutStore(area: () => Storage | undefined, key: string) {
  const storage = () => {
    try {
      return area();
    } catch {
      return undefined;
    }
  };
  let kept: Kept | undefined;
  let loaded = false;
  /** Who the session is, as last told (`undefined` before it is known). */
  let member: boolean | undefined;
  const listeners = new Set<() => void>();
  const EMPTY: CheckoutChoices = {};
  const load = () => {
    if (loaded) return;
    loaded = true;
    try {
      kept = parse(storage()?.getItem(key) ?? null);
    } catch {
      kept = undefined;
    }
  };
  const write = (next: Kept | undefined) => {
    kept = next;
    try {
      if (next) storage()?.setItem(key, JSON.stringify(next));
      else storage()?.removeItem(key);
    } catch {
      // A full or refused storage: kept in memory for the page's life.
    }
    for (const l of listeners) l();
  };
  return {
    get(): CheckoutChoices {
      load();
      return kept?.choices ?? EMPTY;
    },
    set(choices: CheckoutChoices) {
      load();
      write({ member: member ?? kept?.member ?? false, choices });
    },
    /** The order is placed: its address is not the next one's. */
    clear() {
      loaded = true;
      write(undefined);
    },
    session(isMember: boolean) {
      load();
      member = isMember;
      if (!kept) return;
      if (kept.member && !isMember) write(undefined);
      else if (!kept.member && isMember) write({ ...kept, member: true });
    },
    subscribe(l: () => void) {
      listeners.add(l);
      return () => {
        listeners.delete(l);
      };
    },
  };
}

const store = checkoutStore(() => globalThis.sessionStorage, `shopkit:${config.clientId}:checkout`);

export function setCheckoutChoices(next: CheckoutChoices) {
  store.set(next);
}

/** The order is placed: the choices are forgotten. */
export const forgetCheckoutChoices = () => store.clear();

/** The current choices; re-renders when the cart page changes them. */
export function useCheckoutChoices(): CheckoutChoices {
  return useSyncExternalStore(store.subscribe, store.get, store.get);
}

/**
 * Tells the choices who the session is, once known and whenever it changes (a login, a logout in
 * this tab or another, a session ended by a refused refresh). Mounted once, in the layout.
 */
export function useCheckoutChoicesSession() {
  const { role, expired } = useSession();
  useEffect(() => {
    if (role !== 'none') store.session(role === 'member' && !expired);
  }, [role, expired]);
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
