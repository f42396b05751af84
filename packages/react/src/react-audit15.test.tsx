// @vitest-environment jsdom
/**
 * React bindings, audit 15, as a storefront adopting them uses them.
 *
 * - Two query clients on one page sharing one Shopkit client (two React roots: a header widget and
 *   the shop, each with its own `QueryClientProvider`): one member straight after another (a
 *   hosted-login callback storing the next member's tokens) emptied the first root's cached cart
 *   only. The session each provider had last seen was kept per strategy, not per query client:
 *   the first provider to hear the new tokens noted them, and the second took them for the session
 *   it already held, so it kept showing the previous member's cart to the next one.
 * - A member's page without `useMemberSession` (the role the provider caches, unobserved, is
 *   collected after five minutes) that read another tab's next visitor at once (its logout, then
 *   its next call's visitor tokens: a tab in the background, a storage handing over writes late)
 *   took the visitor for the first one of a page with no tokens, and kept showing the member's cart
 *   to them. The provider keeps the role it saw last with the refresh token now.
 */
import { startTestEmulator, type TestEmulator } from '@shopkit/emulator/testing';
import { cart, createClient, memoryStorage, OAuthStrategy, products, webStorage } from '@shopkit/sdk';
import { act, renderHook, waitFor } from '@testing-library/react';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { memberMaker } from '../test/members.ts';
import { providers } from '../test/providers.tsx';
import { shopkitKeys, useCart } from './index.ts';

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(() => emu?.stop());

const newMember = memberMaker(() => emu, 'reactaudit15');

it("empties every query client's cart when one member follows another on a page of two roots", async () => {
  const client = createClient({
    baseUrl: emu.url,
    auth: OAuthStrategy({ clientId: emu.demo.clientId, storage: memoryStorage(await newMember()) }),
  });
  const { products: list } = await products.queryProducts(client, {
    filter: { slug: { $eq: 'dinner-plate' } },
  });
  await cart.addToCurrentCart(client, {
    lineItems: [{ catalogReference: { appId: cart.STORES_APP_ID, catalogItemId: list[0]!.id }, quantity: 1 }],
  });
  // The header's root and the shop's, each with its own query client, one Shopkit client.
  const header = renderHook(() => useCart(), { wrapper: providers(client).wrapper });
  const shop = renderHook(() => useCart(), { wrapper: providers(client).wrapper });
  await waitFor(() => expect(header.result.current.data?.lineItems).toHaveLength(1));
  await waitFor(() => expect(shop.result.current.data?.lineItems).toHaveLength(1));

  // The next member's hosted-login callback: that member has no cart yet, in either root.
  const next = await newMember();
  await act(() => client.auth.setTokens(next));
  await waitFor(() => expect(header.result.current.data).toBeNull());
  await waitFor(() => expect(shop.result.current.data).toBeNull());
});

it("drops a member's cart when another tab's next visitor is seen after the cached role was collected", async () => {
  localStorage.clear();
  const key = `shopkit:${emu.demo.clientId}:tokens`;
  const client = createClient({
    baseUrl: emu.url,
    auth: OAuthStrategy({
      clientId: emu.demo.clientId,
      storage: webStorage(localStorage, emu.demo.clientId),
    }),
  });
  await client.auth.setTokens(await newMember());
  const { products: list } = await products.queryProducts(client, {
    filter: { slug: { $eq: 'dinner-plate' } },
  });
  await cart.addToCurrentCart(client, {
    lineItems: [{ catalogReference: { appId: cart.STORES_APP_ID, catalogItemId: list[0]!.id }, quantity: 1 }],
  });
  // A page without `useMemberSession`: the role the provider caches has no observer.
  const { qc, wrapper } = providers(client);
  const { result } = renderHook(() => useCart(), { wrapper });
  await waitFor(() => expect(result.current.data?.lineItems).toHaveLength(1));
  await waitFor(() => expect(qc.getQueryData(shopkitKeys.session)).toBe('member'));
  // Unobserved, it is collected after `gcTime` (five minutes by default), as TanStack Query does.
  qc.removeQueries({ queryKey: shopkitKeys.session, exact: true });

  // Another tab logs out and its next call stores a new visitor's tokens; this tab reads them only
  // then (a tab in the background, or a storage that hands over its writes late).
  const other = createClient({ baseUrl: emu.url, auth: OAuthStrategy({ clientId: emu.demo.clientId }) });
  await products.queryProducts(other, { paging: { limit: 1 } });
  const visitor = JSON.stringify(await other.auth.getTokens());
  localStorage.setItem(key, visitor);
  act(() => {
    dispatchEvent(new StorageEvent('storage', { key, newValue: visitor }));
  });
  // The visitor has no cart: the member's is not shown to them.
  await waitFor(() => expect(result.current.data).toBeNull());
  localStorage.clear();
});
