/**
 * `@shopkit/react`: a provider and hooks over TanStack Query. No business logic and no cache of
 * its own; SSR-safe (nothing touches `window` at import time).
 * @module
 */

export { collectionQuery, useCollectionBySlug } from './collections.ts';
export { ShopkitProvider, useShopkit } from './provider.tsx';
