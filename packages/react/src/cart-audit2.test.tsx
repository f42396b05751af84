// @vitest-environment jsdom
import { startTestEmulator, type TestEmulator } from '@shopkit/emulator/testing';
import { cart, createClient, OAuthStrategy, products } from '@shopkit/sdk';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, renderHook, waitFor } from '@testing-library/react';
import type { ReactNode } from 'react';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { holdableFetch } from '../test/hold.ts';
import { ShopkitProvider, useAddToCart, useCart, useUpdateLineItemQuantity } from './index.ts';

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(() => emu?.stop());

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/**
 * A fetch whose requests can be held before they are sent (`hold`), and whose next read of the
 * cart can have its answer held after the server made it (`holdRead`): a read the server answered
 * before a change, arriving after the change's own answer.
 */
function racingFetch() {
  const { fetchFn, hold } = holdableFetch();
  let next: { answered: () => void; release: Promise<void> } | undefined;
  const racing: typeof fetch = async (input, init) => {
    const url = String(input instanceof Request ? input.url : input);
    const res = await fetchFn(input, init);
    const held = url.endsWith('/ecom/v1/carts/current') ? next : undefined;
    if (held) {
      next = undefined;
      held.answered();
      await held.release;
    }
    return res;
  };
  const holdRead = () => {
    const answered = deferred();
    const release = deferred();
    next = { answered: answered.resolve, release: release.promise };
    return { answered: answered.promise, release: release.resolve };
  };
  return { fetchFn: racing, hold, holdRead };
}

/** A visitor with the dinner plate in the cart, and the spoon's catalog id. */
async function setup() {
  const { fetchFn, hold, holdRead } = racingFetch();
  const client = createClient({
    baseUrl: emu.url,
    fetch: fetchFn,
    auth: OAuthStrategy({ clientId: emu.demo.clientId }),
  });
  const { products: list } = await products.queryProducts(client, {
    filter: { slug: { $in: ['dinner-plate', 'olive-wood-spoon'] } },
  });
  const id = (slug: string) => list.find((p) => p.slug === slug)!.id;
  const line = (slug: string) => ({
    catalogReference: { appId: cart.STORES_APP_ID, catalogItemId: id(slug) },
    quantity: 1,
  });
  await cart.addToCurrentCart(client, { lineItems: [line('dinner-plate')] });
  // TanStack Query's defaults otherwise: a cart read is stale at once, and refetched on mounting.
  const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  // The drawer below is a hook of its own (a provider of its own) in the page's one query client:
  // no tab sync between the two, which a page's one provider would not have.
  const wrapper = ({ children }: { children: ReactNode }) => (
    <QueryClientProvider client={queryClient}>
      <ShopkitProvider client={client} syncTabs={false}>
        {children}
      </ShopkitProvider>
    </QueryClientProvider>
  );
  const hook = renderHook(
    () => ({ cart: useCart(), add: useAddToCart(), qty: useUpdateLineItemQuantity() }),
    { wrapper },
  );
  await waitFor(() => expect(hook.result.current.cart.data?.lineItems).toHaveLength(1));
  return { client, hook, wrapper, hold, holdRead, spoon: line('olive-wood-spoon') };
}

const ids = (data: { lineItems: { id: string }[] } | null | undefined) => data?.lineItems.map((l) => l.id);

it('keeps an added line on screen while a cart read made before the add answered (a cart drawer mounting)', async () => {
  const { hook, wrapper, hold, spoon } = await setup();
  const release = hold('/add-to-cart');
  let added!: Promise<unknown>;
  act(() => {
    added = hook.result.current.add.mutateAsync({ lineItems: [spoon] });
  });
  await waitFor(() => expect(hook.result.current.cart.data?.lineItems).toHaveLength(2));
  // A cart drawer opens: its `useCart` reads the cart again, and the server answers it before the add.
  const drawer = renderHook(() => useCart(), { wrapper });
  await waitFor(() => expect(drawer.result.current.isFetching).toBe(true));
  await waitFor(() => expect(drawer.result.current.isFetching).toBe(false));
  // The spoon, not yet answered, still shows.
  expect(hook.result.current.cart.data?.lineItems).toHaveLength(2);
  release();
  await act(() => added);
  await waitFor(() =>
    expect(ids(hook.result.current.cart.data)?.some((i) => i.startsWith('pending-'))).toBe(false),
  );
  expect(hook.result.current.cart.data?.lineItems).toHaveLength(2);
});

it("does not let a cart read the server answered before an add overwrite the add's answer", async () => {
  const { hook, wrapper, hold, holdRead, spoon } = await setup();
  const release = hold('/add-to-cart');
  let added!: Promise<unknown>;
  act(() => {
    added = hook.result.current.add.mutateAsync({ lineItems: [spoon] });
  });
  await waitFor(() => expect(hook.result.current.cart.data?.lineItems).toHaveLength(2));
  // The drawer's read reaches the server before the add, and its answer arrives after the add's.
  const read = holdRead();
  const drawer = renderHook(() => useCart(), { wrapper });
  await read.answered;
  release();
  await act(() => added);
  await waitFor(() =>
    expect(ids(hook.result.current.cart.data)?.some((i) => i.startsWith('pending-'))).toBe(false),
  );
  expect(hook.result.current.cart.data?.lineItems).toHaveLength(2);
  read.release();
  await waitFor(() => expect(drawer.result.current.isFetching).toBe(false));
  // The cart the server had before the add is not shown after it.
  expect(hook.result.current.cart.data?.lineItems).toHaveLength(2);
});

it('shows the server cart read after a refused change rolled back (the read is not from before the change)', async () => {
  const { client, hook, spoon } = await setup();
  const [plate] = hook.result.current.cart.data!.lineItems;
  // Another device adds a spoon: the server has it, this page does not show it yet.
  await cart.addToCurrentCart(client, { lineItems: [spoon] });
  expect(hook.result.current.cart.data?.lineItems).toHaveLength(1);
  const refused = await act(() =>
    hook.result.current.qty.mutateAsync({ id: plate!.id, quantity: -1 }).then(
      () => undefined,
      (e: unknown) => e,
    ),
  );
  expect(refused).toBeDefined();
  // The rollback reads the cart again once the change is refused: the spoon shows.
  await waitFor(() => expect(hook.result.current.cart.data?.lineItems).toHaveLength(2));
});
