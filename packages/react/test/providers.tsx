import type { AnyClient } from '@shopkit/sdk';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { ShopkitProvider } from '../src/index.ts';

/**
 * A query client (no retries, unless `qc` is given) and a `wrapper` for `renderHook` that provides
 * it and `client`, with no tab sync: what a test of the hooks renders them in. Given a function,
 * the provider is given what it answers at each render: change the client, then `rerender()`.
 */
export function providers(
  client: AnyClient | (() => AnyClient),
  qc = new QueryClient({ defaultOptions: { queries: { retry: false } } }),
) {
  const wrapper = ({ children }: { children: ReactNode }) => (
    <QueryClientProvider client={qc}>
      <ShopkitProvider client={typeof client === 'function' ? client() : client} syncTabs={false}>
        {children}
      </ShopkitProvider>
    </QueryClientProvider>
  );
  return { qc, wrapper };
}
