/**
 * The storefront's one Shopkit client and query client. Tokens persist in localStorage, so a
 * reload restores the visitor's or member's session. Domain functions are imported unbound
 * (`cart.getCurrentCart(client)`), which keeps the bundle to the calls the shop uses.
 */
import { createClient, OAuthStrategy, webStorage } from '@shopkit/sdk';
import { QueryClient } from '@tanstack/react-query';
import { config } from './config.ts';

export const auth = OAuthStrategy({
  clientId: config.clientId,
  storage: webStorage(localStorage, config.clientId),
});

export const client = createClient({ baseUrl: config.baseUrl, auth });

export const queryClient = new QueryClient({
  defaultOptions: { queries: { staleTime: 30_000, retry: 1, refetchOnWindowFocus: false } },
});
