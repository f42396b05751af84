import { type AnyClient, collections } from '@shopkit/sdk';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { useShopkit } from './provider.tsx';

/** Query options for a collection by slug (usable with `useQuery`, `prefetchQuery`, loaders). */
export const collectionQuery = (client: AnyClient, slug: string) =>
  queryOptions({
    queryKey: ['shopkit', 'collection', 'slug', slug],
    queryFn: async () => (await collections.getCollectionBySlug(client, slug)).collection,
  });

/** A collection by its slug. */
export function useCollectionBySlug(slug: string) {
  return useQuery(collectionQuery(useShopkit(), slug));
}
