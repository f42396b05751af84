import type { PlatformQuery } from '@shopkit/sdk';

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
