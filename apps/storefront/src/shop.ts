/**
 * The storefront's one Shopkit client and query client. Tokens persist in localStorage, so a
 * reload restores the visitor's or member's session. Domain functions are imported unbound
 * (`cart.getCurrentCart(client)`), which keeps the bundle to the calls the shop uses.
 */
import { createClient, OAuthStrategy, ShopkitError, webStorage } from '@shopkit/sdk';
import { QueryClient } from '@tanstack/react-query';
import { config } from './config.ts';
import { isRefusal } from './errors.ts';

export const auth = OAuthStrategy({
  clientId: config.clientId,
  storage: webStorage(localStorage, config.clientId),
});

export const client = createClient({ baseUrl: config.baseUrl, auth });

/**
 * One retry for failures that may pass (network, 5xx, 429); a refusal such as a 404, or the SDK's
 * own check before sending, will not.
 */
function retryOnce(failures: number, error: unknown) {
  const throttled = error instanceof ShopkitError && error.status === 429;
  return failures < 1 && (throttled || !isRefusal(error));
}

/**
 * Reads are sent offline too (`networkMode: 'always'`), and fail saying the shop could not be
 * reached, with "Try again": held until the network came back (TanStack Query's default), a page
 * asked for offline showed its skeleton with nothing said, and a new estimate address or listing
 * page showed the previous one's totals or products as if they were the new ones. Back online,
 * the failed reads on screen are sent again. Cart changes are still held offline (the page says so).
 */
export const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      staleTime: 30_000,
      retry: retryOnce,
      refetchOnWindowFocus: false,
      networkMode: 'always',
      // (TanStack Query's default turns this off with `networkMode: 'always'`)
      refetchOnReconnect: true,
    },
  },
});
