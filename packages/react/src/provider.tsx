import type { AnyClient } from '@shopkit/sdk';
import { createContext, type ReactNode, useContext } from 'react';

const ShopkitContext = createContext<AnyClient | null>(null);

/**
 * Makes a Shopkit client available to the hooks below it. Wrap it in TanStack Query's
 * `QueryClientProvider`.
 * @example
 * <QueryClientProvider client={queryClient}>
 *   <ShopkitProvider client={client}><App /></ShopkitProvider>
 * </QueryClientProvider>
 */
export function ShopkitProvider({ client, children }: { client: AnyClient; children: ReactNode }) {
  return <ShopkitContext.Provider value={client}>{children}</ShopkitContext.Provider>;
}

/** The client given to the nearest `ShopkitProvider`. */
export function useShopkit<C extends AnyClient = AnyClient>(): C {
  const client = useContext(ShopkitContext);
  if (!client) throw new Error('useShopkit must be used inside <ShopkitProvider>.');
  return client as C;
}
