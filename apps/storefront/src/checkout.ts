/**
 * What the shopper chose for the checkout on the cart page (estimate address, shipping option),
 * shared with the cart drawer so that both "Check out" buttons start the same checkout. Kept for
 * the tab in sessionStorage, scoped by the shop's client id (`shopkit:<clientId>:checkout`), so
 * that Back from the hosted checkout page or a reload still shows them; never in a URL or
 * localStorage. Forgotten once the order is placed (the thank-you page, on the return from a
 * checkout of this tab's) and when a member's session ends (a logout, here or in another tab, or a
 * refused refresh): the next shopper of the browser does not see the address.
 */
import { type CheckoutVars, type EstimateTotalsOptions, shopkitKeys, useShopkit } from '@shopkit/react';
import { identity } from '@shopkit/sdk';
import { useQuery } from '@tanstack/react-query';
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

/**
 * What is stored: the choices, whether a member (rather than a visitor) made them, and which
 * member (`owner`, the member id; never a token). A member's value without an owner (one stored
 * by an older version, or while the member id was still on its way) is no one's once a member id
 * is known: it is dropped rather than given to a member who may not be its own.
 */
interface Kept {
  member: boolean;
  owner?: string;
  choices: CheckoutChoices;
}

const text = (v: unknown) => (typeof v === 'string' ? v.slice(0, 200) : undefined);

/** The stored value, or nothing when it is not one (another format, a hand-edited value). */
function parse(raw: string | null): Kept | undefined {
  if (!raw) return undefined;
  try {
    const v = JSON.parse(raw) as {
      member?: unknown;
      owner?: unknown;
      choices?: Record<string, unknown>;
    };
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
    const member = v.member === true;
    const owner = member && typeof v.owner === 'string' && v.owner ? v.owner : undefined;
    return {
      member,
      ...(owner ? { owner } : {}),
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
 * storage the browser refuses, or none, keeps them in memory only). `session(member, memberId)` is
 * told who the session is whenever that is known (the member id may come later than the role): a
 * member's choices are dropped once the session is no longer a member's or is another member's,
 * and a visitor's become the member's when the visitor logs in (the same shopper: the visitor's
 * cart went with them).
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
  /** The member id of the session, as last told (`undefined` for a visitor, or not known yet). */
  let memberId: string | undefined;
  /**
   * The kept member's value has no owner yet but is this member session's (this page made it
   * theirs, or they chose it, before their id came): it takes the first member id told.
   */
  let adoptable = false;
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
  /** Changes told to the listeners so far. */
  let told = 0;
  const tell = () => {
    told++;
    for (const l of listeners) l();
  };
  const write = (next: Kept | undefined) => {
    kept = next;
    if (!next) adoptable = false;
    try {
      if (next) storage()?.setItem(key, JSON.stringify(next));
      else storage()?.removeItem(key);
    } catch {
      // A full or refused storage: kept in memory for the page's life.
    }
    tell();
  };
  const get = (): CheckoutChoices => {
    load();
    // A member's choices are shown to that member only: not while the session's member id is not
    // known (a new page, a session read again after a login elsewhere), when it may be another
    // member's; unless this page made them for the session it has.
    if (kept?.member && !adoptable && (memberId === undefined || kept.owner !== memberId)) return EMPTY;
    return kept?.choices ?? EMPTY;
  };
  /** Keeps, gives or drops the kept choices for the session as now told. */
  const settle = () => {
    if (!kept) return;
    if (!member) {
      if (kept.member) write(undefined);
      return;
    }
    if (!kept.member) {
      // The visitor logged in: their choices are now the member's.
      adoptable = !memberId;
      write({ member: true, ...(memberId ? { owner: memberId } : {}), choices: kept.choices });
      return;
    }
    if (!memberId) return;
    if (kept.owner === memberId) return;
    if (!kept.owner && adoptable) {
      adoptable = false;
      write({ ...kept, owner: memberId });
      return;
    }
    // Another member's, or no one's that can be told (an older version's value).
    write(undefined);
  };
  return {
    get,
    set(choices: CheckoutChoices) {
      load();
      const isMember = member ?? kept?.member ?? false;
      // Without the session's id (not known yet): the choices of whoever is at the keyboard, who
      // is the member the session turns out to be, never the last member's.
      if (isMember && !memberId) adoptable = true;
      write({ member: isMember, ...(isMember && memberId ? { owner: memberId } : {}), choices });
    },
    /** The order is placed: its address is not the next one's. */
    clear() {
      loaded = true;
      write(undefined);
    },
    /**
     * Who the session is: a member or not, and, once known, which member (their id). A member
     * whose id is not given is not known yet: their choices are kept, not shown, until it is.
     */
    session(isMember: boolean, id?: string) {
      const shown = get();
      const before = told;
      member = isMember;
      memberId = isMember && id ? id : undefined;
      settle();
      // What is shown depends on who the session is: told when that alone changed it.
      if (told === before && get() !== shown) tell();
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

/** The current choices; re-renders when the cart page changes them. */
export function useCheckoutChoices(): CheckoutChoices {
  return useSyncExternalStore(store.subscribe, store.get, store.get);
}

/**
 * Which member the session is: their id (`sub`) from `/oauth2/user-info`, and nothing else of
 * theirs. Kept under `'shopkit'`, so that every new session (a login, a logout, one member straight
 * after another, in this tab or another) refetches it with the rest.
 */
const memberIdKey = [...shopkitKeys.all, 'checkout', 'member-id'] as const;

/**
 * Tells the choices who the session is, once known and whenever it changes (a login, a logout in
 * this tab or another, one member after another, a session ended by a refused refresh): the role
 * at once, the member id once it is known. Mounted once, in the layout.
 */
export function useCheckoutChoicesSession() {
  const client = useShopkit();
  const { role, expired } = useSession();
  const member = role === 'member' && !expired;
  const who = useQuery({
    queryKey: memberIdKey,
    queryFn: async () => (await identity.getUserInfo(client)).sub,
    enabled: member,
    staleTime: Number.POSITIVE_INFINITY,
  });
  // While it is refetched (a new session), the id cached is possibly the last member's: not known.
  const id = member && who.isSuccess && !who.isFetching ? who.data : undefined;
  useEffect(() => {
    if (role !== 'none') store.session(member, id);
  }, [role, member, id]);
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

/**
 * The checkouts this tab started (their ids, the last few), kept in `area()` (sessionStorage in the
 * shop, which the hosted checkout's return to the tab keeps): the thank-you page forgets the
 * choices only on the return from one of them. Opened otherwise (a link shared, a visit of its
 * address, a reload once it is done) it is no order of this tab's: the address is kept.
 * @example const s = startedCheckouts(() => sessionStorage, 'k'); s.add('c1'); s.take('c1') // true; s.take('c1') // false
 */
export function startedCheckouts(area: () => Storage | undefined, key: string) {
  const storage = () => {
    try {
      return area();
    } catch {
      return undefined;
    }
  };
  /** In memory when the storage is refused (or full): this page's checkouts only. */
  let memory: string[] = [];
  const read = (): string[] => {
    try {
      const raw = storage()?.getItem(key);
      if (raw == null) return memory;
      const v: unknown = JSON.parse(raw);
      return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
    } catch {
      return memory;
    }
  };
  const write = (ids: string[]) => {
    memory = ids;
    try {
      if (ids.length) storage()?.setItem(key, JSON.stringify(ids));
      else storage()?.removeItem(key);
    } catch {
      // Kept in memory.
    }
  };
  return {
    /** A checkout was started in this tab (Back from its page and another one started: both kept). */
    add(id: string) {
      write([...read().filter((x) => x !== id), id].slice(-5));
    },
    /** Whether `id` is a checkout this tab started; it is forgotten (with the others) if it is. */
    take(id: string | null | undefined) {
      if (!id || !read().includes(id)) return false;
      write([]);
      return true;
    },
  };
}

const started = startedCheckouts(() => globalThis.sessionStorage, `shopkit:${config.clientId}:checkouts`);

/**
 * The thank-you page at `checkoutId` (its URL's): when it is the return from a checkout this tab
 * started, the order is placed and the choices are forgotten. Whether it was.
 */
export const checkoutReturned = (checkoutId: string | null) => {
  if (!started.take(checkoutId)) return false;
  store.clear();
  return true;
};

/**
 * Thank-you page address handed to the hosted checkout; the checkout is this tab's. As
 * `thankYouPageUrl` (wire §5.2), the callback for a site's own thank-you page, where the platform
 * sends the buyer once the order is placed (adding its `orderId`), and as `postFlowUrl`, where a
 * flow ends (a placed checkout's page opened again goes back there).
 */
const checkoutCallbacks = (checkoutId: string) => {
  started.add(checkoutId);
  const thanks = `${location.origin}/thank-you?checkoutId=${encodeURIComponent(checkoutId)}`;
  return { thankYouPageUrl: thanks, postFlowUrl: thanks, cartPageUrl: `${location.origin}/cart` };
};

/** What `useCheckout().mutate` gets: the callbacks and the chosen address and shipping option. */
export function checkoutVars(c: CheckoutChoices): CheckoutVars {
  return { callbacks: checkoutCallbacks, ...estimateOptions(c) };
}
