// @vitest-environment jsdom
/**
 * React bindings, audit 14, as a storefront adopting them uses them.
 *
 * - A cart change whose own set-up failed after its optimistic change was shown (the session it is
 *   made in could not be read: a custom token storage that failed) reached `onError` with no
 *   context, and was not rolled back: its pending line (or pending cart) stayed on screen for as
 *   long as the refetch failed too, although `error` said the add had failed.
 * - A checkout (or logout, login) button that joined a run another button started (the drawer's
 *   and the cart page's) showed the run's status, data and error, but `variables: undefined`,
 *   where TanStack Query's types promise the variables of a pending, answered or failed mutation:
 *   `checkout.isError && checkout.variables.callbacks` type-checked and threw. A joined run's
 *   variables are the run's own now.
 * - An add of a variant already in the cart, by its choices picked in another order than the first
 *   time (`{ Size, Color }`, then `{ Color, Size }`: a form recording them as they are picked),
 *   showed a second, pending line of the same item until the server answered with one line of
 *   both quantities. The choices are compared whatever their order now.
 */
import { startTestEmulator, type TestEmulator } from '@shopkit/emulator/testing';
import { cart, createClient, OAuthStrategy, products, type Tokens } from '@shopkit/sdk';
import { act, renderHook, waitFor } from '@testing-library/react';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { holdableFetch } from '../test/hold.ts';
import { providers } from '../test/providers.tsx';
import { type Cart, type CheckoutVars, shopkitKeys, useAddToCart, useCart, useCheckout } from './index.ts';

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(() => emu?.stop());

it('rolls back an add whose session could not be read once its optimistic change showed', async () => {
  // A custom token storage that can stop answering (an async store that failed).
  let stored: Tokens | null = null;
  let readable = true;
  const client = createClient({
    baseUrl: emu.url,
    auth: OAuthStrategy({
      clientId: emu.demo.clientId,
      storage: {
        getTokens: async () => {
          if (!readable) throw new Error('The token storage is unavailable');
          return stored;
        },
        setTokens: async (t) => {
          stored = t;
        },
      },
    }),
  });
  const { products: list } = await products.queryProducts(client, {
    filter: { slug: { $eq: 'beeswax-candle' } },
  });
  const { qc, wrapper } = providers(client);
  const hook = renderHook(() => ({ cart: useCart(), add: useAddToCart() }), { wrapper });
  await waitFor(() => expect(hook.result.current.cart.isSuccess).toBe(true));
  expect(hook.result.current.cart.data).toBeNull();

  readable = false;
  act(() =>
    hook.result.current.add.mutate({
      lineItems: [
        { catalogReference: { appId: cart.STORES_APP_ID, catalogItemId: list[0]!.id }, quantity: 1 },
      ],
    }),
  );
  await waitFor(() => expect(hook.result.current.add.isError).toBe(true));
  // The refetch fails too (the storage still cannot be read): the cart is the one from before.
  await waitFor(() => expect(hook.result.current.cart.isFetching).toBe(false));
  expect(hook.result.current.add.error?.message).toBe('The token storage is unavailable');
  expect(qc.getQueryData(shopkitKeys.cart)).toBeNull();
  expect(hook.result.current.cart.data).toBeNull();
});

it("shows a joined run's variables, as its status and error, in the button that did not start it", async () => {
  const client = createClient({ baseUrl: emu.url, auth: OAuthStrategy({ clientId: emu.demo.clientId }) });
  const { wrapper } = providers(client);
  const navigate = () => {};
  // The cart drawer's checkout button and the cart page's, mounted together.
  const hook = renderHook(() => ({ drawer: useCheckout(navigate), page: useCheckout(navigate) }), {
    wrapper,
  });
  const vars: CheckoutVars = { callbacks: { postFlowUrl: 'https://shop.example/thank-you' } };
  // No cart yet: the platform refuses the checkout (OWNED_CART_NOT_FOUND).
  act(() => hook.result.current.drawer.mutate(vars));
  await waitFor(() => expect(hook.result.current.page.isError).toBe(true));
  const { page } = hook.result.current;
  // TanStack Query's types: a failed mutation has the variables it was called with.
  if (page.isError) expect(page.variables.callbacks).toEqual(vars.callbacks);
  expect(page.variables).toBe(vars);
  expect(hook.result.current.drawer.variables).toBe(vars);
});

it('adds to the line of a variant already in the cart when its choices come in another order', async () => {
  const { fetchFn, hold } = holdableFetch();
  const client = createClient({
    baseUrl: emu.url,
    fetch: fetchFn,
    auth: OAuthStrategy({ clientId: emu.demo.clientId }),
  });
  const { products: list } = await products.queryProducts(client, {
    filter: { slug: { $eq: 'linen-shirt' } },
  });
  const shirt = list[0]!.id!;
  const { qc, wrapper } = providers(client);
  const hook = renderHook(() => ({ cart: useCart(), add: useAddToCart() }), { wrapper });
  await waitFor(() => expect(hook.result.current.cart.isSuccess).toBe(true));
  const line = (options: Record<string, string>) => ({
    lineItems: [
      {
        catalogReference: { appId: cart.STORES_APP_ID, catalogItemId: shirt, options: { options } },
        quantity: 1,
      },
    ],
  });
  await act(() => hook.result.current.add.mutateAsync(line({ Size: 'M', Color: 'Sand' })));
  const release = hold('/add-to-cart');
  act(() => hook.result.current.add.mutate(line({ Color: 'Sand', Size: 'M' })));
  // Shown at once as more of the line the cart has, as the server stores it.
  await waitFor(() => expect(hook.result.current.add.isPending).toBe(true));
  const shown = qc.getQueryData<Cart | null>(shopkitKeys.cart);
  expect(shown?.lineItems.map((l) => l.quantity)).toEqual([2]);
  release();
  await waitFor(() => expect(hook.result.current.add.isSuccess).toBe(true));
  expect(hook.result.current.cart.data?.lineItems.map((l) => l.quantity)).toEqual([2]);
});
