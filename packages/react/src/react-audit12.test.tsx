// @vitest-environment jsdom
/**
 * React bindings, audit 12.
 *
 * - `useMemberSession().role` is a `Role` and the cart hooks' mutations carry a `CartContext`, and
 *   neither type was exported: an app could not name them (a prop typed as the session's role, a
 *   wrapper of `useAddToCart`'s result). `tsc` checks the type test below.
 * - Two module maps grew for as long as the page lived: one function per product whose options
 *   availability was ever asked for (a shop browsed for an afternoon), and the server's id of every
 *   line ever added with its pending id. Both are bounded now, and still do their job.
 * - A page without `useMemberSession` (the role the provider caches unobserved, so collected after
 *   five minutes): each renewal of the member's token, whose refresh token the platform rotates,
 *   was taken for a new session: the cart emptied and everything refetched, and a member's cart
 *   change on its way taken as made in an ended session.
 * - Guard: the provider empties the old client's queries while rendering; React says nothing of
 *   it, under StrictMode too (TanStack Query tells observers after the render).
 */
import { startTestEmulator, type TestEmulator } from '@shopkit/emulator/testing';
import { type AnyClient, cart, createClient, OAuthStrategy, products, type ShopkitError } from '@shopkit/sdk';
import {
  QueryClient,
  QueryClientProvider,
  type UseMutationResult,
  useIsFetching,
  useQuery,
} from '@tanstack/react-query';
import { act, render, renderHook, waitFor } from '@testing-library/react';
import { StrictMode, useState } from 'react';
import { afterAll, beforeAll, expect, expectTypeOf, it, vi } from 'vitest';
import { holdableFetch } from '../test/hold.ts';
import { memberMaker } from '../test/members.ts';
import { providers } from '../test/providers.tsx';
import { answeredLines } from './cart.ts';
import {
  type AddToCartVars,
  type Cart,
  type CartContext,
  type MemberSession,
  optionsAvailabilityQuery,
  type Role,
  ShopkitProvider,
  shopkitKeys,
  useAddToCart,
  useCart,
  type useMemberSession,
  useUpdateLineItemQuantity,
} from './index.ts';

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(() => emu?.stop());
const newMember = memberMaker(() => emu, 'reactaudit12');

function setup() {
  const { fetchFn, hold } = holdableFetch();
  const client = createClient({
    baseUrl: emu.url,
    fetch: fetchFn,
    auth: OAuthStrategy({ clientId: emu.demo.clientId }),
  });
  return { client, hold, ...providers(client) };
}

it('exports the types of the hooks’ public signatures', () => {
  expectTypeOf<MemberSession['role']>().toEqualTypeOf<Role>();
  expectTypeOf<ReturnType<typeof useMemberSession>['role']>().toEqualTypeOf<'none' | 'visitor' | 'member'>();
  expectTypeOf<ReturnType<typeof useAddToCart>>().toEqualTypeOf<
    UseMutationResult<Cart, ShopkitError | Error, AddToCartVars, CartContext>
  >();
  expectTypeOf<CartContext['previous']>().toEqualTypeOf<Cart | null | undefined>();
});

it('keeps the availability placeholder functions of the products shown last only', () => {
  const client = setup().client;
  const keeper = (id: string) => optionsAvailabilityQuery(client, id, {}).placeholderData;
  const first = keeper('product-0');
  const shown = keeper('product-shown');
  // A long session asks for a thousand other products; the page showing one asks again at each render.
  for (let i = 1; i <= 1000; i++) {
    keeper(`product-${i}`);
    expect(keeper('product-shown')).toBe(shown);
  }
  // The product shown all along keeps its function (its placeholder is kept while it is shown);
  // the one asked for once, a thousand products ago, was let go of.
  expect(keeper('product-shown')).toBe(shown);
  expect(keeper('product-0')).not.toBe(first);
  // Products stay apart: another product's function is another.
  expect(keeper('product-1')).not.toBe(keeper('product-2'));
});

it('lets go of the answered ids of pending lines once the cart changes have settled', async () => {
  const { client, hold, qc, wrapper } = setup();
  const { products: list } = await products.queryProducts(client, {
    filter: { slug: { $in: ['dinner-plate', 'olive-wood-spoon', 'beeswax-candle'] } },
  });
  const hook = renderHook(
    () => ({ cart: useCart(), add: useAddToCart(), quantity: useUpdateLineItemQuantity() }),
    { wrapper },
  );
  await waitFor(() => expect(hook.result.current.cart.isSuccess).toBe(true));
  for (const [n, product] of list.entries()) {
    // A line added, and its quantity changed before the add answered: sent with the server's id.
    const release = hold();
    let added!: Promise<unknown>;
    act(() => {
      added = hook.result.current.add.mutateAsync({
        lineItems: [
          { catalogReference: { appId: cart.STORES_APP_ID, catalogItemId: product.id! }, quantity: 1 },
        ],
      });
    });
    await waitFor(() => expect(hook.result.current.cart.data?.lineItems).toHaveLength(n + 1));
    const pending = hook.result.current.cart.data!.lineItems.find((l) => l.id.startsWith('pending-'))!.id;
    let changed!: Promise<unknown>;
    act(() => {
      changed = hook.result.current.quantity.mutateAsync({ id: pending, quantity: 2 });
    });
    release();
    await act(async () => {
      await added;
      await changed;
    });
    // Nothing is kept once no change is pending: not one id per line ever added.
    await waitFor(() => expect(hook.result.current.quantity.isSuccess).toBe(true));
    expect(answeredLines.get(qc)).toBeUndefined();
  }
  const stored = (await cart.getCurrentCart(client)).lineItems;
  expect(stored.map((l) => l.quantity)).toEqual([2, 2, 2]);
  await waitFor(() =>
    expect(hook.result.current.cart.data?.lineItems.map((l) => l.quantity)).toEqual([2, 2, 2]),
  );
});

it('keeps the member’s cart when the session’s token is renewed after the cached role was collected', async () => {
  const { client, qc, wrapper } = setup();
  const auth = client.auth as ReturnType<typeof OAuthStrategy>;
  await auth.setTokens(await newMember());
  const [plate] = (await products.queryProducts(client, { filter: { slug: { $eq: 'dinner-plate' } } }))
    .products;
  await cart.addToCurrentCart(client, {
    lineItems: [{ catalogReference: { appId: cart.STORES_APP_ID, catalogItemId: plate!.id! }, quantity: 1 }],
  });
  // A page without `useMemberSession`: the role the provider caches has no observer.
  const hook = renderHook(() => ({ cart: useCart(), quantity: useUpdateLineItemQuantity() }), { wrapper });
  await waitFor(() => expect(hook.result.current.cart.data?.lineItems).toHaveLength(1));
  await waitFor(() => expect(qc.getQueryData(shopkitKeys.session)).toBe('member'));
  // Unobserved, it is collected after `gcTime` (five minutes by default), as TanStack Query does.
  qc.removeQueries({ queryKey: shopkitKeys.session, exact: true });
  const shown = qc.getQueryData(shopkitKeys.cart);
  const { refreshToken } = await auth.getTokens();

  // The access token is renewed, and the platform rotates the refresh token: the same session.
  await act(() => auth.renewToken());
  expect((await auth.getTokens()).refreshToken.value).not.toBe(refreshToken);
  expect(qc.getQueryData(shopkitKeys.cart)).toBe(shown);
  expect(qc.getQueryData(shopkitKeys.session)).toBe('member');
  // The member's changes go on as before.
  const line = hook.result.current.cart.data!.lineItems[0]!;
  await act(() => hook.result.current.quantity.mutateAsync({ id: line.id, quantity: 4 }));
  expect(hook.result.current.cart.data?.lineItems[0]?.quantity).toBe(4);
});

/** Outside the provider, observing what it empties when the client changes. */
function Header() {
  const fetching = useIsFetching({ queryKey: shopkitKeys.all });
  const shown = useQuery({
    queryKey: shopkitKeys.cart,
    queryFn: () => new Promise<never>(() => {}),
    enabled: false,
  });
  return <header>{`${fetching}:${shown.data ? 'cart' : 'none'}`}</header>;
}

/** The cart's line count, each render's noted in `seen`. */
function Lines({ seen }: { seen: string[] }) {
  const { data } = useCart();
  seen.push(data === undefined ? 'loading' : `${data?.lineItems.length ?? 0}`);
  return <p>{seen.at(-1)}</p>;
}

/** An app that swaps its Shopkit client (`swap.to`), as after a logout. */
function App({
  qc,
  first,
  swap,
  seen,
}: {
  qc: QueryClient;
  first: AnyClient;
  swap: { to?: (c: AnyClient) => void };
  seen: string[];
}) {
  const [client, setClient] = useState<AnyClient>(first);
  swap.to = setClient;
  return (
    <QueryClientProvider client={qc}>
      <Header />
      <ShopkitProvider client={client} syncTabs={false}>
        <Lines seen={seen} />
      </ShopkitProvider>
    </QueryClientProvider>
  );
}

it('swaps clients under StrictMode with no update of another component during render (guard)', async () => {
  const errors = vi.spyOn(console, 'error');
  try {
    const qc = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    const make = () =>
      createClient({ baseUrl: emu.url, auth: OAuthStrategy({ clientId: emu.demo.clientId }) });
    const first = make();
    const [plate] = (await products.queryProducts(first, { filter: { slug: { $eq: 'dinner-plate' } } }))
      .products;
    await cart.addToCurrentCart(first, {
      lineItems: [
        { catalogReference: { appId: cart.STORES_APP_ID, catalogItemId: plate!.id! }, quantity: 1 },
      ],
    });
    const swap: { to?: (c: AnyClient) => void } = {};
    const seen: string[] = [];
    const view = render(
      <StrictMode>
        <App qc={qc} first={first} swap={swap} seen={seen} />
      </StrictMode>,
    );
    await waitFor(() => expect(view.container.querySelector('p')?.textContent).toBe('1'));
    seen.length = 0;
    // The provider empties the old client's queries while rendering: observers outside it (the
    // header's) hear of it after the render, not during it (React's "Cannot update a component
    // while rendering a different component"), and StrictMode's second render changes nothing.
    act(() => swap.to?.(make()));
    // The new client's visitor has no cart; the old one's line never shows meanwhile.
    await waitFor(() => expect(view.container.querySelector('p')?.textContent).toBe('0'));
    expect(seen).not.toContain('1');
    expect(errors).not.toHaveBeenCalled();
    view.unmount();
  } finally {
    errors.mockRestore();
  }
});
