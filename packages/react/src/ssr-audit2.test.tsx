/**
 * Rendering on the server: no `window`, `document`, `BroadcastChannel` or `localStorage` (Node's
 * own environment, not jsdom). Every hook renders its first state and nothing throws.
 */
import { createClient, OAuthStrategy } from '@shopkit/sdk';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { renderToString } from 'react-dom/server';
import { expect, it } from 'vitest';
import {
  ShopkitProvider,
  useAddToCart,
  useCart,
  useCartCount,
  useCartUpdating,
  useCheckout,
  useCollectionBySlug,
  useCollections,
  useEstimateTotals,
  useLogin,
  useLogout,
  useMemberSession,
  useOptionsAvailability,
  useProductBySlug,
  useProducts,
} from './index.ts';

function Page() {
  const cart = useCart();
  const count = useCartCount();
  const updating = useCartUpdating();
  useAddToCart();
  useCheckout();
  useEstimateTotals();
  useProducts({ paging: { limit: 2 } });
  useProductBySlug('linen-shirt');
  useOptionsAvailability(undefined, {});
  useCollections();
  useCollectionBySlug('summer-linen');
  useLogin();
  useLogout();
  const session = useMemberSession();
  return <p>{`${cart.status} ${count} ${updating} ${session.role} ${session.expired}`}</p>;
}

it('renders every hook on the server, where there is no window, BroadcastChannel or localStorage', () => {
  expect(typeof globalThis.window).toBe('undefined');
  expect(typeof globalThis.document).toBe('undefined');
  const saved = globalThis.BroadcastChannel;
  // Node has a BroadcastChannel; a server runtime may not.
  Reflect.deleteProperty(globalThis, 'BroadcastChannel');
  try {
    const client = createClient({
      baseUrl: 'http://127.0.0.1:9',
      auth: OAuthStrategy({ clientId: '00000000-0000-0000-0000-000000000001' }),
    });
    const html = renderToString(
      <QueryClientProvider client={new QueryClient()}>
        <ShopkitProvider client={client}>
          <Page />
        </ShopkitProvider>
      </QueryClientProvider>,
    );
    expect(html).toBe('<p>pending 0 false none false</p>');
  } finally {
    globalThis.BroadcastChannel = saved;
  }
});
