import type { AnyClient } from '@shopkit/sdk';
import { createContext, type ReactNode, useContext } from 'react';
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

/**
 * Makes a Shopkit client available to the hooks below it, and keeps the shop's tabs in step
 * (`syncTabs`). Wrap it in TanStack Query's `QueryClientProvider`.
 * @example
 * <QueryClientProvider client={queryClient}>
 *   <ShopkitProvider client={client}><App /></ShopkitProvider>
 * </QueryClientProvider>
 */
export function ShopkitProvider({ client, children, syncTabs = true }: ShopkitProviderProps) {
  useTabSync(client, syncTabs);
  return <ShopkitContext.Provider value={client}>{children}</ShopkitContext.Provider>;
}

/** The client given to the nearest `ShopkitProvider`. */
export function useShopkit<C extends AnyClient = AnyClient>(): C {
  const client = useContext(ShopkitContext);
  if (!client) throw new Error('useShopkit must be used inside <ShopkitProvider>.');
  return client as C;
}
