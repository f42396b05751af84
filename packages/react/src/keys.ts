import type { PlatformQuery } from '@shopkit/sdk';
import type { QueryClient } from '@tanstack/react-query';

/** Every query key of this package starts with `'shopkit'`; invalidate it to refetch everything. */
export const shopkitKeys = {
  all: ['shopkit'] as const,
  products: (query: PlatformQuery) => ['shopkit', 'products', query] as const,
  product: (slug: string) => ['shopkit', 'product', 'slug', slug] as const,
  availability: (id: string, choices: Record<string, string>) =>
    ['shopkit', 'product', id, 'availability', choices] as const,
  collections: (query: PlatformQuery) => ['shopkit', 'collections', query] as const,
  collection: (slug: string) => ['shopkit', 'collection', 'slug', slug] as const,
  cart: ['shopkit', 'cart'] as const,
  estimate: (options: unknown) => ['shopkit', 'cart', 'estimate', options] as const,
  session: ['shopkit', 'session'] as const,
};

/**
 * By query client, how many times the cached cart was dropped for a new session (a login or logout
 * here or in another tab). A cart change made before it answers into the session it was made in,
 * not the new one: its answer is not shown (see `useCartMutation`).
 */
export const cartResets = new WeakMap<QueryClient, number>();
/** How many times `qc`'s cached cart was dropped for a new session (see {@link cartResets}). */
export const resetsOf = (qc: QueryClient) => cartResets.get(qc) ?? 0;

/** Drops the cached cart (and its estimates) for a new session: never shown to whoever is next. */
export function resetCart(qc: QueryClient) {
  cartResets.set(qc, resetsOf(qc) + 1);
  return qc.resetQueries({ queryKey: shopkitKeys.cart });
}
