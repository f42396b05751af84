import { ShopkitError, ValidationError } from '@shopkit/sdk';
import {
  environmentManager,
  type QueryClient,
  type QueryFunction,
  type QueryFunctionContext,
  type QueryKey,
} from '@tanstack/react-query';

/**
 * The `error` of this package's queries and mutations: the SDK's error for a call that failed (a
 * `ShopkitError`: `ValidationError`, `ApplicationError`, `HttpError`, or `SystemError` for a
 * network failure, a timeout or an abort), or any other `Error` thrown on the way: TanStack Query's
 * `CancelledError` (a query cancelled without reverting), a bug, a custom token storage that
 * failed, or a callback of yours (`navigate`, a checkout's `callbacks`). Branch with `instanceof`.
 * @example if (error instanceof ApplicationError && error.code === 'PRODUCT_NOT_FOUND') return <NotFound />;
 */
export type ShopkitHookError = ShopkitError | Error;

/**
 * A refusal: the platform's 4xx answer (a product that does not exist, a filter it cannot query, a
 * session it does not accept), or the SDK's own check before sending. Sent again, it is refused
 * again; a 408 or a 429 may pass after a wait.
 */
const refused = (e: unknown) =>
  e instanceof ValidationError ||
  (e instanceof ShopkitError &&
    e.status !== undefined &&
    e.status >= 400 &&
    e.status < 500 &&
    e.status !== 408 &&
    e.status !== 429);

/** By failure (what a query function of this package threw), the query client and key it failed in. */
const failedIn = new WeakMap<object, { qc: QueryClient; queryKey: QueryKey }>();

/**
 * `queryFn`, noting the query client and key of each failure for {@link retry}: a query option
 * factory is called without a query client (`useQuery(productsQuery(client, query))`, a loader's
 * `ensureQueryData`), and the same options may serve several (one per request on a server).
 */
export function noting<T, K extends QueryKey>(queryFn: (context: QueryFunctionContext<K>) => Promise<T>) {
  return (async (context) => {
    try {
      return await queryFn(context);
    } catch (e) {
      if ((typeof e === 'object' && e !== null) || typeof e === 'function')
        failedIn.set(e, { qc: context.client, queryKey: context.queryKey });
      throw e;
    }
  }) satisfies QueryFunction<T, K>;
}

/**
 * The `retry` of every query of this package (its hooks' and its option factories'): the query
 * client's own `retry` for the query's key (`setQueryDefaults`, then its default options), except
 * that a refusal is never retried: with TanStack Query's default an unknown product's availability
 * or a refused filter showed its skeleton for seven seconds and sent four requests before saying
 * why. The SDK already retries what may pass (network errors, 429, 503). When the query client
 * sets none, TanStack Query's own default for how the query runs: three retries in a browser for a
 * query a component shows (`useQuery`, `useSuspenseQuery`), none on a server nor for one fetched
 * with nothing showing it (`fetchQuery`, `prefetchQuery`, `ensureQueryData`: a loader). A `retry`
 * given with the options (`useQuery({ ...productsQuery(client, query), retry: 5 })`) replaces
 * this one, as any option does.
 */
export function retry(failures: number, error: ShopkitHookError): boolean {
  if (refused(error)) return false;
  const seen = failedIn.get(error);
  if (!seen) return failures < (environmentManager.isServer() ? 0 : 3);
  const { qc, queryKey } = seen;
  const own = qc.getQueryDefaults(queryKey).retry ?? qc.getDefaultOptions().queries?.retry;
  if (typeof own === 'function')
    return (own as (failures: number, error: unknown) => boolean)(failures, error);
  if (typeof own === 'number') return failures < own;
  if (own !== undefined) return own;
  const query = qc.getQueryCache().find({ queryKey, exact: true });
  const shown =
    !!query && (query.getObserversCount() > 0 || !!(query.options as { suspense?: boolean }).suspense);
  return shown && failures < (environmentManager.isServer() ? 0 : 3);
}
