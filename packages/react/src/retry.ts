import { ShopkitError, ValidationError } from '@shopkit/sdk';
import { environmentManager, type QueryKey, useQueryClient } from '@tanstack/react-query';

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

/**
 * The query client's own `retry` for `queryKey` (its defaults, TanStack Query's three retries when
 * it sets none), except that a refusal is never retried: with TanStack Query's default an unknown
 * product's availability or a refused filter showed its skeleton for seven seconds and sent four
 * requests before saying why. The SDK already retries what may pass (network errors, 429, 503).
 */
export function useRetry(queryKey: QueryKey) {
  const qc = useQueryClient();
  const retry = qc.getQueryDefaults(queryKey).retry ?? qc.getDefaultOptions().queries?.retry;
  return (failures: number, error: Error) =>
    !refused(error) &&
    (typeof retry === 'function'
      ? retry(failures, error)
      : typeof retry === 'number'
        ? failures < retry
        : (retry ?? failures < (environmentManager.isServer() ? 0 : 3)));
}
