// @vitest-environment jsdom
/**
 * Tabs of one shop, as two providers in one process: each its own Shopkit client and QueryClient,
 * sharing one token storage (as tabs share `localStorage`), talking over Node's BroadcastChannel.
 */
import { startTestEmulator, type TestEmulator } from '@shopkit/emulator/testing';
import {
  cart,
  createClient,
  identity,
  memoryStorage,
  OAuthStrategy,
  products,
  type TokenStorage,
} from '@shopkit/sdk';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, renderHook, waitFor } from '@testing-library/react';
import type { ReactNode } from 'react';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { memberMaker } from '../test/members.ts';
import { ShopkitProvider, useAddToCart, useCart, useMemberSession } from './index.ts';

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(() => emu?.stop());

/** One tab: its own client and query client over `storage`. */
function tab(
  storage: TokenStorage,
  { syncTabs, clientId = emu.demo.clientId }: { syncTabs?: boolean; clientId?: string } = {},
) {
  const carts: string[] = [];
  const counting: typeof fetch = (input, init) => {
    const url = String(input instanceof Request ? input.url : input);
    if (url.endsWith('/ecom/v1/carts/current')) carts.push(url);
    return fetch(input, init);
  };
  const client = createClient({
    baseUrl: emu.url,
    fetch: counting,
    auth: OAuthStrategy({ clientId, storage }),
  });
  const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  const wrapper = ({ children }: { children: ReactNode }) => (
    <QueryClientProvider client={queryClient}>
      <ShopkitProvider client={client} syncTabs={syncTabs}>
        {children}
      </ShopkitProvider>
    </QueryClientProvider>
  );
  return { client, wrapper, carts };
}

/** A product without options, as a cart line. */
async function plate(client: ReturnType<typeof tab>['client']) {
  const { products: list } = await products.queryProducts(client, {
    filter: { slug: { $eq: 'dinner-plate' } },
  });
  return { catalogReference: { appId: cart.STORES_APP_ID, catalogItemId: list[0]!.id }, quantity: 1 };
}

/** Member tokens for a new member, as a trusted server gets them. */
const memberTokens = memberMaker(() => emu, 'tabs');

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

it('shows a cart change made in another tab, and fetches the cart again when the tab comes into view', async () => {
  const storage = memoryStorage();
  const a = tab(storage);
  const b = tab(storage);
  // Tab A's first call stores the visitor's tokens, which tab B then uses: one visitor, one cart.
  const line = await plate(a.client);
  const inA = renderHook(() => useAddToCart(), { wrapper: a.wrapper });
  const inB = renderHook(() => useCart(), { wrapper: b.wrapper });
  await waitFor(() => expect(inB.result.current.isSuccess).toBe(true));
  expect(inB.result.current.data).toBeNull();

  await act(() => inA.result.current.mutateAsync({ lineItems: [line] }));
  await waitFor(() => expect(inB.result.current.data?.lineItems.map((l) => l.quantity)).toEqual([1]));

  // A change no tab announces (the hosted checkout, another device): seen when the tab comes into view.
  await cart.updateCurrentCartLineItemQuantity(a.client, [
    { id: inB.result.current.data!.lineItems[0]!.id, quantity: 4 },
  ]);
  await pause(200);
  expect(inB.result.current.data?.lineItems.map((l) => l.quantity)).toEqual([1]);
  act(() => void document.dispatchEvent(new Event('visibilitychange')));
  await waitFor(() => expect(inB.result.current.data?.lineItems.map((l) => l.quantity)).toEqual([4]));
  inA.unmount();
  inB.unmount();
});

it("leaves another shop's tabs on the same origin alone, and a provider with syncTabs={false}", async () => {
  const storage = memoryStorage();
  const a = tab(storage);
  const off = tab(storage, { syncTabs: false });
  const other = tab(storage, { clientId: 'another-shop' });
  const line = await plate(a.client);
  const inA = renderHook(() => useAddToCart(), { wrapper: a.wrapper });
  const inOff = renderHook(() => useCart(), { wrapper: off.wrapper });
  const inOther = renderHook(() => useCart(), { wrapper: other.wrapper });
  await waitFor(() => expect(inOff.result.current.isSuccess).toBe(true));
  await waitFor(() => expect(inOther.result.current.isSuccess).toBe(true));
  const before = [off.carts.length, other.carts.length];

  await act(() => inA.result.current.mutateAsync({ lineItems: [line] }));
  await pause(300);
  expect([off.carts.length, other.carts.length]).toEqual(before);
  inA.unmount();
  inOff.unmount();
  inOther.unmount();
});

it('shows a session that a refused refresh ended in another tab as ended there too', async () => {
  const tokens = await memberTokens();
  const shared = memoryStorage(tokens);
  const a = tab(shared);
  const b = tab(shared);
  // A member in a session of its own (not sharing the storage): that session has not ended.
  const alone = tab(memoryStorage(await memberTokens()));
  const inA = renderHook(() => useMemberSession(), { wrapper: a.wrapper });
  const inB = renderHook(() => useMemberSession(), { wrapper: b.wrapper });
  const inAlone = renderHook(() => useMemberSession(), { wrapper: alone.wrapper });
  for (const h of [inA, inB, inAlone]) await waitFor(() => expect(h.result.current.member).toBe(true));

  // The platform ends the session (as a password change elsewhere would); tab A renews first.
  await fetch(`${emu.url}/oauth2/revoke`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ token: tokens.refreshToken.value }),
  });
  await act(() => a.client.auth.renewToken());
  await waitFor(() => expect(inA.result.current).toMatchObject({ member: false, expired: true }));
  await waitFor(() => expect(inB.result.current.expired).toBe(true));
  // The browser tells tab B the storage changed: the member is gone, the banner stays.
  act(() => void dispatchEvent(new StorageEvent('storage')));
  await waitFor(() => expect(inB.result.current).toMatchObject({ member: false, expired: true }));
  await pause(200);
  expect(inAlone.result.current).toMatchObject({ member: true, expired: false });
  for (const h of [inA, inB, inAlone]) h.unmount();
});

it("does not show another tab's logout as an ended session", async () => {
  const shared = memoryStorage(await memberTokens());
  const a = tab(shared);
  const b = tab(shared);
  const inA = renderHook(() => useMemberSession(), { wrapper: a.wrapper });
  const inB = renderHook(() => useMemberSession(), { wrapper: b.wrapper });
  for (const h of [inA, inB]) await waitFor(() => expect(h.result.current.member).toBe(true));
  await act(() => identity.logout(a.client, 'http://127.0.0.1/'));
  act(() => void dispatchEvent(new StorageEvent('storage')));
  await waitFor(() => expect(inB.result.current.member).toBe(false));
  await pause(200);
  expect(inA.result.current.expired).toBe(false);
  expect(inB.result.current.expired).toBe(false);
  inA.unmount();
  inB.unmount();
});
