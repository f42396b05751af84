import type { AnyClient } from '@shopkit/sdk';
import { type QueryClient, useQueryClient } from '@tanstack/react-query';
import { createContext, type ReactNode, useContext } from 'react';
import { shopkitKeys } from './keys.ts';
import { useSessionFollow } from './session.ts';
import { useTabSync } from './tabs.ts';

const ShopkitContext = createContext<AnyClient | null>(null);

export interface ShopkitProviderProps {
  client: AnyClient;
  children: ReactNode;
  /**
   * Keeps the shop's tabs in step (default `true`): a cart change made with these hooks in one tab
   * is fetched by the others, a tab coming back into view fetches its cart again, and a member
   * session that a refused refresh ended in one tab shows as ended (`useMemberSession().expired`)
   * in the others. Over a `BroadcastChannel` named `shopkit:<clientId>:tabs`, in the browser only.
   * Turn it off for tabs that do not share their tokens (memory storage), or to do it yourself.
   * @example <ShopkitProvider client={client} syncTabs={false}><App /></ShopkitProvider>
   */
  syncTabs?: boolean;
}

/** The client whose data each query client's `'shopkit'` queries hold. */
const owners = new WeakMap<QueryClient, AnyClient>();

/**
 * Whether `client` is the one whose data `qc` holds now: a change or read made through a client
 * the provider has since replaced writes nothing into the cache (it is another cart, member, site).
 */
export const holds = (qc: QueryClient, client: AnyClient) => (owners.get(qc) ?? client) === client;

/**
 * Makes `client` the owner of `qc`'s `'shopkit'` queries. A new client (another site, the client an
 * app makes after a logout) starts from an empty cache: the old client's queries are emptied and
 * dropped, their requests cancelled, before any component below renders with the new client, so
 * that not even a placeholder (`keepPreviousData`) shows the old client's data. Done while
 * rendering, and only when the client changed: a second render with the same client does nothing.
 * The first client of a query client keeps what is there (data prefetched on the server).
 */
function adopt(qc: QueryClient, client: AnyClient) {
  const before = owners.get(qc);
  if (before === client) return;
  owners.set(qc, client);
  if (!before) return;
  const cache = qc.getQueryCache();
  for (const query of cache.findAll({ queryKey: shopkitKeys.all })) {
    query.reset();
    cache.remove(query);
  }
}

/**
 * Makes a Shopkit client available to the hooks below it, and keeps the shop's tabs in step
 * (`syncTabs`). Wrap it in TanStack Query's `QueryClientProvider`. Create the client once (outside
 * the component, or in `useState`): a different client empties everything cached under
 * `'shopkit'`, as after a logout or for another site, and changes still on their way through the
 * old client write nothing into the cache. One client per query client at a time.
 * @example
 * <QueryClientProvider client={queryClient}>
 *   <ShopkitProvider client={client}><App /></ShopkitProvider>
 * </QueryClientProvider>
 */
export function ShopkitProvider({ client, children, syncTabs = true }: ShopkitProviderProps) {
  adopt(useQueryClient(), client);
  useSessionFollow(client);
  useTabSync(client, syncTabs);
  return <ShopkitContext.Provider value={client}>{children}</ShopkitContext.Provider>;
}

/** The client given to the nearest `ShopkitProvider`. */
export function useShopkit<C extends AnyClient = AnyClient>(): C {
  const client = useContext(ShopkitContext);
  if (!client) throw new Error('useShopkit must be used inside <ShopkitProvider>.');
  return client as C;
}
