// @vitest-environment jsdom
/**
 * The React bindings' fourth audit: a refused cart change queued behind an add rolled the cart
 * back to its own snapshot, with the add's optimistic line (a pending id), not to the add's answer,
 * and a failed refetch left it there; `useMemberSession`'s first read of a slow token storage,
 * answering after a login stored member tokens, showed the member as logged out for good;
 * `useLogout` on a client without member logins threw in its effect; a second checkout button
 * that joined a checkout under way (the drawer's and the cart page's) showed none of its state.
 */
import { startTestEmulator, type TestEmulator } from '@shopkit/emulator/testing';
import {
  type AnyClient,
  ApiKeyStrategy,
  cart,
  createClient,
  OAuthStrategy,
  products,
  type TokenStorage,
  type Tokens,
} from '@shopkit/sdk';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, renderHook, waitFor } from '@testing-library/react';
import type { ReactNode } from 'react';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { holdableFetch } from '../test/hold.ts';
import {
  ShopkitProvider,
  useAddToCart,
  useCart,
  useCheckout,
  useLogout,
  useMemberSession,
  useUpdateLineItemQuantity,
} from './index.ts';

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(() => emu?.stop());

function wrap(client: AnyClient) {
  const qc = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  return ({ children }: { children: ReactNode }) => (
    <QueryClientProvider client={qc}>
      <ShopkitProvider client={client} syncTabs={false}>
        {children}
      </ShopkitProvider>
    </QueryClientProvider>
  );
}

it('rolls a refused change queued behind an add back to the add’s answer, even when the refetch fails', async () => {
  // Held requests wait until released; cart reads fail while `offline`.
  const { fetchFn: holding, hold } = holdableFetch();
  let offline = false;
  const fetchFn: typeof fetch = async (input, init) => {
    const url = String(input instanceof Request ? input.url : input);
    if (offline && (init?.method ?? 'GET') === 'GET' && url.endsWith('/carts/current'))
      throw new TypeError('Failed to fetch');
    return holding(input, init);
  };
  const client = createClient({
    baseUrl: emu.url,
    fetch: fetchFn,
    auth: OAuthStrategy({ clientId: emu.demo.clientId }),
  });
  const { products: list } = await products.queryProducts(client, {
    filter: { slug: { $in: ['dinner-plate', 'olive-wood-spoon'] } },
  });
  const id = (slug: string) => list.find((p) => p.slug === slug)!.id!;
  const line = (slug: string) => ({
    catalogReference: { appId: cart.STORES_APP_ID, catalogItemId: id(slug) },
    quantity: 1,
  });
  await cart.addToCurrentCart(client, { lineItems: [line('dinner-plate')] });
  const hook = renderHook(
    () => ({ cart: useCart(), add: useAddToCart(), qty: useUpdateLineItemQuantity() }),
    {
      wrapper: wrap(client),
    },
  );
  await waitFor(() => expect(hook.result.current.cart.data?.lineItems).toHaveLength(1));
  const plate = hook.result.current.cart.data!.lineItems[0]!;
  const release = hold('/add-to-cart');
  let added!: Promise<unknown>;
  let refused!: Promise<unknown>;
  act(() => {
    added = hook.result.current.add.mutateAsync({ lineItems: [line('olive-wood-spoon')] });
    // Refused by the platform (a quantity below zero), after the add.
    refused = hook.result.current.qty.mutateAsync({ id: plate.id, quantity: -1 }).catch((e: unknown) => e);
  });
  offline = true;
  release();
  await act(() => added);
  await act(() => refused);
  await act(() => new Promise((r) => setTimeout(r, 100)));
  const shown = hook.result.current.cart.data!.lineItems.map((l) => l.id);
  offline = false;
  const server = (await cart.getCurrentCart(client)).lineItems.map((l) => l.id);
  expect(shown.some((l) => l.startsWith('pending-'))).toBe(false);
  expect(shown.sort()).toEqual(server.sort());
});

it('shows a login stored while the first read of a slow token storage was on its way', async () => {
  const member: Tokens = {
    accessToken: { value: 'access', expiresAt: Math.floor(Date.now() / 1000) + 3600 },
    refreshToken: { value: 'refresh', role: 'member' as Tokens['refreshToken']['role'] },
  };
  let stored: Tokens | null = null;
  // Each read answers what was stored when it was asked, 150 ms later.
  const slow: TokenStorage = {
    getTokens: () => {
      const now = stored;
      return new Promise((r) => setTimeout(() => r(now), 150));
    },
    setTokens: (t) => {
      stored = t;
    },
  };
  const client = createClient({
    baseUrl: 'http://127.0.0.1:9',
    auth: OAuthStrategy({ clientId: 'c1', storage: slow }),
  });
  const { result } = renderHook(() => useMemberSession(), { wrapper: wrap(client) });
  await act(() => client.auth.setTokens(member));
  await act(() => new Promise((r) => setTimeout(r, 600)));
  expect(result.current.role).toBe('member');
});

it('useLogout mounts on a client without member logins (an API key’s)', async () => {
  const client = createClient({ baseUrl: emu.url, auth: ApiKeyStrategy({ apiKey: emu.demo.apiKey }) });
  const { result } = renderHook(() => useLogout(() => {}), { wrapper: wrap(client) });
  expect(result.current.isIdle).toBe(true);
});

it('a checkout button that joined another’s checkout shows it busy, then its error', async () => {
  const { fetchFn, hold } = holdableFetch();
  const release = hold('/create-checkout');
  const client = createClient({
    baseUrl: emu.url,
    fetch: fetchFn,
    auth: OAuthStrategy({ clientId: emu.demo.clientId }),
  });
  const { result } = renderHook(() => ({ drawer: useCheckout(() => {}), page: useCheckout(() => {}) }), {
    wrapper: wrap(client),
  });
  const vars = { callbacks: { postFlowUrl: 'http://127.0.0.1/thanks' } };
  act(() => result.current.drawer.mutate(vars));
  act(() => result.current.page.mutate(vars));
  await waitFor(() =>
    expect([result.current.drawer.isPending, result.current.page.isPending]).toEqual([true, true]),
  );
  // No cart: the checkout is refused, and both buttons say so.
  release();
  await waitFor(() => expect(result.current.drawer.isError).toBe(true));
  await waitFor(() => expect(result.current.page.error).toBe(result.current.drawer.error));
  expect(result.current.page.isPending).toBe(false);
  act(() => result.current.page.reset());
  await waitFor(() => expect(result.current.page.error).toBeNull());
});
