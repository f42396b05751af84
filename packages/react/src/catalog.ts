import { type AnyClient, ApplicationError, collections, type PlatformQuery, products } from '@shopkit/sdk';
import {
  keepPreviousData,
  type PlaceholderDataFunction,
  queryOptions,
  useQuery,
} from '@tanstack/react-query';
import { shopkitKeys } from './keys.ts';
import { useShopkit } from './provider.tsx';
import { noting, retry, type ShopkitHookError } from './retry.ts';

/** {@link keepPrevious}'s functions, one per client. */
const keepers = new WeakMap<AnyClient, typeof keepPreviousData>();

/**
 * TanStack Query's `keepPreviousData`, as a function of `client`'s own: TanStack Query keeps a
 * placeholder shown for as long as the placeholder function stays the same one, which would carry
 * a page of the client the provider replaced over to the new one.
 */
function keepPrevious(client: AnyClient): typeof keepPreviousData {
  const known = keepers.get(client);
  if (known) return known;
  const keep: typeof keepPreviousData = (previous) => keepPreviousData(previous);
  keepers.set(client, keep);
  return keep;
}

/**
 * One page of products: the platform query (`filter`, `sort`, `paging`) is passed as is.
 * @example useQuery(productsQuery(client, { filter: { price: { $lte: 50 } }, sort: [{ fieldName: 'price', order: 'ASC' }], paging: { limit: 12, offset: 0 } }))
 */
export const productsQuery = (client: AnyClient, query: PlatformQuery) =>
  queryOptions({
    queryKey: shopkitKeys.products(query),
    queryFn: noting(({ signal }) => products.queryProducts(client, query, undefined, { signal })),
    placeholderData: keepPrevious(client),
    retry,
  });

/** A product by its slug (with its variants), or `null` when there is none. */
export const productBySlugQuery = (client: AnyClient, slug: string) =>
  queryOptions({
    queryKey: shopkitKeys.product(slug),
    queryFn: noting(async ({ signal }) => {
      const r = await products.queryProducts(
        client,
        { filter: { slug: { $eq: slug } }, paging: { limit: 1 } },
        { includeVariants: true },
        { signal },
      );
      return r.products[0] ?? null;
    }),
    retry,
  });

/** A placeholder function of {@link optionsAvailabilityQuery}. */
type KeepAvailability = PlaceholderDataFunction<
  products.ProductOptionsAvailability,
  ShopkitHookError,
  products.ProductOptionsAvailability,
  ReturnType<typeof shopkitKeys.availability>
>;
/**
 * {@link keepSameProduct}'s functions, by client and product id: the last {@link KEPT_PRODUCTS}
 * products' only (oldest first), not one for every product a long session has shown.
 */
const productKeepers = new WeakMap<AnyClient, Map<string, KeepAvailability>>();
/**
 * A product let go of gets a new function when shown again, which only makes TanStack Query
 * compute its placeholder again: the same product's previous answer.
 */
const KEPT_PRODUCTS = 50;

/**
 * As {@link keepPrevious}, but only another choice of the same product: another product's
 * availability (its variant, price, stock and picture) is not shown as this one's while it loads
 * (a product page that stays mounted from one product to the next).
 */
function keepSameProduct(client: AnyClient, productId: string): KeepAvailability {
  const byProduct = productKeepers.get(client) ?? new Map<string, KeepAvailability>();
  productKeepers.set(client, byProduct);
  const keep: KeepAvailability =
    byProduct.get(productId) ??
    ((previous, query) => (query?.queryKey[2] === productId ? previous : undefined));
  // The product shown last goes last, the one shown longest ago first.
  byProduct.delete(productId);
  byProduct.set(productId, keep);
  for (const oldest of byProduct.keys()) {
    if (byProduct.size <= KEPT_PRODUCTS) break;
    byProduct.delete(oldest);
  }
  return keep;
}

/**
 * Which variant the chosen options select, its price and whether it can be bought. While another
 * choice of the same product loads, the previous one's answer stays shown (`isPlaceholderData`).
 */
export const optionsAvailabilityQuery = (
  client: AnyClient,
  productId: string,
  choices: Record<string, string>,
) =>
  queryOptions<
    products.ProductOptionsAvailability,
    ShopkitHookError,
    products.ProductOptionsAvailability,
    ReturnType<typeof shopkitKeys.availability>
  >({
    queryKey: shopkitKeys.availability(productId, choices),
    queryFn: noting(({ signal }) =>
      products.getProductOptionsAvailability(client, productId, choices, { signal }),
    ),
    placeholderData: keepSameProduct(client, productId),
    retry,
  });

/** One page of collections (v2 reader). */
export const collectionsQuery = (client: AnyClient, query: PlatformQuery = {}) =>
  queryOptions({
    queryKey: shopkitKeys.collections(query),
    queryFn: noting(({ signal }) => collections.queryCollections(client, query, { signal })),
    retry,
  });

/**
 * A collection by slug, or `null` when the shop has none (usable with `useQuery`, `prefetchQuery`,
 * loaders). The platform's 404 is an answer, as for a product by slug, so it is never retried.
 */
export const collectionQuery = (client: AnyClient, slug: string) =>
  queryOptions({
    queryKey: shopkitKeys.collection(slug),
    queryFn: noting(async ({ signal }) => {
      try {
        return (await collections.getCollectionBySlug(client, slug, { signal })).collection;
      } catch (e) {
        // The platform's own "not found"; a 404 without its envelope (a wrong base URL) stays an error.
        if (e instanceof ApplicationError && e.status === 404) return null;
        throw e;
      }
    }),
    retry,
  });

/**
 * Products matching a platform query, one page at a time; the previous page stays shown while the
 * next loads. `enabled: false` holds the query back (until what it filters by is known).
 */
export function useProducts(query: PlatformQuery, { enabled = true } = {}) {
  const options = productsQuery(useShopkit(), query);
  return useQuery({ ...options, enabled });
}

/** A product by slug; `data` is `null` when the shop has no such product. */
export function useProductBySlug(slug: string) {
  const options = productBySlugQuery(useShopkit(), slug);
  return useQuery(options);
}

/** Availability of the variant that `choices` (`{optionName: choiceDescription}`) select. */
export function useOptionsAvailability(productId: string | undefined, choices: Record<string, string>) {
  const client = useShopkit();
  const options = optionsAvailabilityQuery(client, productId ?? '', choices);
  return useQuery({ ...options, enabled: !!productId });
}

/** Collections matching a platform query. */
export function useCollections(query: PlatformQuery = {}) {
  const options = collectionsQuery(useShopkit(), query);
  return useQuery(options);
}

/** A collection by its slug; `data` is `null` when the shop has no such collection. */
export function useCollectionBySlug(slug: string) {
  const options = collectionQuery(useShopkit(), slug);
  return useQuery(options);
}
