// @vitest-environment jsdom
/**
 * React bindings, audit 6. Another tab logs a member in (shared token storage) while this tab's visitor add is on its way.
 * The provider sees the new session (storage event) and drops the cart, but the add's answer, the
 * visitor's cart, is then written into the member session's cache: `moved()` only knows the epoch
 * of this tab's own strategy, which another tab's login does not move.
 */
import { startTestEmulator, type TestEmulator } from '@shopkit/emulator/testing';
import { cart, createClient, OAuthStrategy, products, webStorage } from '@shopkit/sdk';
import { act, renderHook, waitFor } from '@testing-library/react';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { holdableFetch } from '../test/hold.ts';
import { memberMaker } from '../test/members.ts';
import { providers } from '../test/providers.tsx';
import { useAddToCart, useCart, useMemberSession } from './index.ts';

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(() => emu?.stop());
const newMember = memberMaker(() => emu, 'tabloginaudit');

it("does not show the visitor's cart answer in the member session another tab started", async () => {
  localStorage.clear();
  const storage = () => webStorage(localStorage, emu.demo.clientId);
  const { fetchFn, hold } = holdableFetch();
  const tabA = createClient({
    baseUrl: emu.url,
    fetch: fetchFn,
    auth: OAuthStrategy({ clientId: emu.demo.clientId, storage: storage() }),
  });
  const tabB = createClient({
    baseUrl: emu.url,
    auth: OAuthStrategy({ clientId: emu.demo.clientId, storage: storage() }),
  });
  const { products: list } = await products.queryProducts(tabA, {
    filter: { slug: { $in: ['dinner-plate', 'olive-wood-spoon'] } },
  });
  const line = (slug: string) => ({
    catalogReference: { appId: cart.STORES_APP_ID, catalogItemId: list.find((p) => p.slug === slug)!.id! },
    quantity: 1,
  });
  await cart.addToCurrentCart(tabA, { lineItems: [line('dinner-plate')] });
  const { wrapper } = providers(tabA);
  const { result } = renderHook(
    () => ({ cart: useCart(), add: useAddToCart(), session: useMemberSession() }),
    { wrapper },
  );
  await waitFor(() => expect(result.current.cart.data?.lineItems).toHaveLength(1));
  await waitFor(() => expect(result.current.session.role).toBe('visitor'));

  const release = hold('/add-to-cart');
  act(() => result.current.add.mutate({ lineItems: [line('olive-wood-spoon')] }));
  await new Promise((r) => setTimeout(r, 100));
  // Tab B logs a member in; this tab hears of it through the storage event.
  await tabB.auth.setTokens(await newMember());
  act(() => void dispatchEvent(new StorageEvent('storage')));
  await waitFor(() => expect(result.current.session.role).toBe('member'));
  await waitFor(() => expect(result.current.cart.fetchStatus).toBe('idle'));
  release();
  await waitFor(() => expect(result.current.add.isPending).toBe(false));
  await waitFor(() => expect(result.current.cart.fetchStatus).toBe('idle'));
  await new Promise((r) => setTimeout(r, 300));
  // The member's cart as the server has it (this test's member has none: null).
  const server = await cart.getCurrentCart(tabB).catch(() => null);
  expect(result.current.cart.data?.lineItems.map((l) => l.productName?.original) ?? null).toEqual(
    server?.lineItems.map((l) => l.productName?.original) ?? null,
  );
  localStorage.clear();
});
