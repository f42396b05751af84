// @vitest-environment jsdom
/**
 * React bindings, audit 6. The drawer's "Check out" is pressed, and the drawer closes (its `useCheckout` unmounts) while the
 * checkout is under way; the cart page's button, mounted next, neither shows that checkout busy nor
 * ignores a press: a second checkout and redirect session start, and the browser is sent twice.
 */
import { startTestEmulator, type TestEmulator } from '@shopkit/emulator/testing';
import { cart, createClient, OAuthStrategy, products } from '@shopkit/sdk';
import { act, renderHook, waitFor } from '@testing-library/react';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { holdableFetch } from '../test/hold.ts';
import { providers } from '../test/providers.tsx';
import { useCheckout } from './index.ts';

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(() => emu?.stop());

it('keeps one checkout when the button that started it unmounts before it answers', async () => {
  const { fetchFn: holding, hold } = holdableFetch();
  let checkouts = 0;
  const fetchFn: typeof fetch = (input, init) => {
    if (String(input instanceof Request ? input.url : input).endsWith('/create-checkout')) checkouts++;
    return holding(input, init);
  };
  const client = createClient({
    baseUrl: emu.url,
    fetch: fetchFn,
    auth: OAuthStrategy({ clientId: emu.demo.clientId }),
  });
  const { products: list } = await products.queryProducts(client, {
    filter: { slug: { $eq: 'dinner-plate' } },
  });
  await cart.addToCurrentCart(client, {
    lineItems: [
      { catalogReference: { appId: cart.STORES_APP_ID, catalogItemId: list[0]!.id! }, quantity: 1 },
    ],
  });
  const { wrapper } = providers(client);
  const sent: string[] = [];
  const release = hold('/redirect-session');
  const drawer = renderHook(() => useCheckout((u) => sent.push(u)), { wrapper });
  act(() => drawer.result.current.mutate({ callbacks: { postFlowUrl: 'http://localhost/thanks' } }));
  await new Promise((r) => setTimeout(r, 300));
  drawer.unmount(); // the drawer closes; the checkout is still on its way
  const page = renderHook(() => useCheckout((u) => sent.push(u)), { wrapper });
  const shownBusy = page.result.current.isPending;
  act(() => page.result.current.mutate({ callbacks: { postFlowUrl: 'http://localhost/thanks' } }));
  release();
  // The page's button ends with the run it shows: one checkout, one redirect.
  await waitFor(() => expect(page.result.current.isSuccess).toBe(true), { timeout: 20_000 });
  await waitFor(() => expect(sent).toHaveLength(1));
  expect({ checkouts, redirects: sent.length, shownBusy }).toEqual({
    checkouts: 1,
    redirects: 1,
    shownBusy: true,
  });
});
