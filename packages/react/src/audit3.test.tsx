// @vitest-environment jsdom
/**
 * Audit 3: a provider whose client is swapped (after a logout, for another site) shows nothing of
 * the old client's data, and takes no late writes from it; a cart change another tab announces
 * while this tab's own change is on its way is not lost.
 */
import { startTestEmulator, type TestEmulator } from '@shopkit/emulator/testing';
import { type AnyClient, cart, createClient, memoryStorage, OAuthStrategy, products } from '@shopkit/sdk';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, renderHook, waitFor } from '@testing-library/react';
import type { ReactNode } from 'react';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { holdableFetch } from '../test/hold.ts';
import { memberMaker } from '../test/members.ts';
import { ShopkitProvider, useAddToCart, useCart, useMemberSession, useProducts } from './index.ts';

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(() => emu?.stop());

const memberTokens = memberMaker(() => emu, 'audit3');

/** A product without options, as a cart line. */
async function line(client: AnyClient, slug = 'dinner-plate') {
  const { products: list } = await products.queryProducts(client, { filter: { slug: { $eq: slug } } });
  return { catalogReference: { appId: cart.STORES_APP_ID, catalogItemId: list[0]!.id }, quantity: 1 };
}

/** A page whose provider is given `current.client`: change it, then `rerender()`. */
function page(first: AnyClient, syncTabs = false) {
  const current = { client: first };
  const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  const wrapper = ({ children }: { children: ReactNode }) => (
    <QueryClientProvider client={queryClient}>
      <ShopkitProvider client={current.client} syncTabs={syncTabs}>
        {children}
      </ShopkitProvider>
    </QueryClientProvider>
  );
  return { current, wrapper, queryClient };
}

/** The spoon, as a cart line (set before the tests). */
let spoon: Awaited<ReturnType<typeof line>>;
beforeAll(async () => {
  spoon = await line(client(), 'olive-wood-spoon');
});

const client = (options: { storage?: ReturnType<typeof memoryStorage>; fetch?: typeof fetch } = {}) =>
  createClient({
    baseUrl: emu.url,
    fetch: options.fetch,
    auth: OAuthStrategy({ clientId: emu.demo.clientId, storage: options.storage }),
  });

it("shows nothing of the old client's cart or member session once the provider has a new client", async () => {
  // The old client: a member with a plate in the cart. The new one: a visitor, no cart yet.
  const old = client({ storage: memoryStorage(await memberTokens()) });
  await cart.addToCurrentCart(old, { lineItems: [await line(old)] });
  const next = client();
  const { current, wrapper } = page(old);
  const hook = renderHook(() => ({ cart: useCart(), session: useMemberSession() }), { wrapper });
  await waitFor(() => expect(hook.result.current.cart.data?.lineItems).toHaveLength(1));
  await waitFor(() => expect(hook.result.current.session.member).toBe(true));

  current.client = next;
  hook.rerender();
  // At once, in the very render that has the new client: not the member's cart, not a member.
  expect(hook.result.current.cart.data).toBeUndefined();
  expect(hook.result.current.session.member).toBe(false);
  await waitFor(() => expect(hook.result.current.cart.data).toBeNull());
  await waitFor(() => expect(hook.result.current.session.role).toBe('visitor'));
  expect(hook.result.current.session.member).toBe(false);
  hook.unmount();
});

it("writes nothing into the new client's cache when a change made through the old one answers late", async () => {
  const { fetchFn, hold } = holdableFetch();
  const old = client({ fetch: fetchFn });
  const plate = await line(old);
  await cart.addToCurrentCart(old, { lineItems: [plate] });
  const next = client();
  const { current, wrapper } = page(old);
  const hook = renderHook(() => ({ cart: useCart(), add: useAddToCart() }), { wrapper });
  await waitFor(() => expect(hook.result.current.cart.data?.lineItems).toHaveLength(1));

  // The old client's add is on its way (held before it is sent) when the app swaps clients.
  const release = hold('/add-to-cart');
  let added!: Promise<unknown>;
  act(() => {
    added = hook.result.current.add.mutateAsync({ lineItems: [spoon] });
  });
  await waitFor(() => expect(hook.result.current.cart.data?.lineItems).toHaveLength(2));
  current.client = next;
  hook.rerender();
  expect(hook.result.current.cart.data).toBeUndefined();
  await waitFor(() => expect(hook.result.current.cart.data).toBeNull());

  release();
  // The change itself still reached the old client's cart…
  await act(() => added);
  expect((await cart.getCurrentCart(old)).lineItems).toHaveLength(2);
  // …and nothing of it shows through the new client, nor counts as the new client's change.
  await waitFor(() => expect(hook.result.current.cart.isFetching).toBe(false));
  expect(hook.result.current.cart.data).toBeNull();
  hook.unmount();
});

/** A fetch whose requests with `part` in their URL wait, once `hold()` is called, for its release. */
function holdingWhere(part: string) {
  let gate: Promise<void> | undefined;
  const fetchFn: typeof fetch = async (input, init) => {
    if (gate && String(input instanceof Request ? input.url : input).includes(part)) await gate;
    return fetch(input, init);
  };
  const hold = () => {
    let release!: () => void;
    gate = new Promise((r) => {
      release = r;
    });
    return release;
  };
  return { fetchFn, hold };
}

it("does not carry the old client's page over as a placeholder for the new client", async () => {
  const QUERY = '/products/query-platformized';
  const before = holdingWhere(QUERY);
  const { current, wrapper } = page(client({ fetch: before.fetchFn }));
  const hook = renderHook(({ offset }) => useProducts({ paging: { limit: 2, offset } }), {
    wrapper,
    initialProps: { offset: 0 },
  });
  await waitFor(() => expect(hook.result.current.data?.products).toHaveLength(2));
  // The next page is on its way: the first stays shown meanwhile, as a placeholder.
  const release = before.hold();
  hook.rerender({ offset: 2 });
  expect(hook.result.current.isPlaceholderData).toBe(true);

  // The app swaps clients while it is; the new client's own page is on its way too.
  const after = holdingWhere(QUERY);
  const releaseAfter = after.hold();
  current.client = client({ fetch: after.fetchFn });
  hook.rerender({ offset: 2 });
  expect(hook.result.current.data).toBeUndefined();
  release();
  releaseAfter();
  await waitFor(() => expect(hook.result.current.data?.products).toBeDefined());
  expect(hook.result.current.isPlaceholderData).toBe(false);
  hook.unmount();
});

it("refetches the cart when another tab's change was announced while this tab's own change was on its way", async () => {
  const storage = memoryStorage();
  // Tab A's add reaches the server, and its answer is held on the way back.
  let heldAnswer: { answered: () => void; release: Promise<void> } | undefined;
  const slowAnswers: typeof fetch = async (input, init) => {
    const res = await fetch(input, init);
    const held = String(input instanceof Request ? input.url : input).endsWith('/add-to-cart')
      ? heldAnswer
      : undefined;
    if (held) {
      heldAnswer = undefined;
      held.answered();
      await held.release;
    }
    return res;
  };
  const a = page(client({ storage, fetch: slowAnswers }), true);
  const b = page(client({ storage }), true);
  // Tab A's first call stores the visitor's tokens, which tab B then uses: one visitor, one cart.
  const plate = await line(a.current.client);
  const inA = renderHook(() => ({ cart: useCart(), add: useAddToCart() }), { wrapper: a.wrapper });
  const inB = renderHook(() => useAddToCart(), { wrapper: b.wrapper });
  await waitFor(() => expect(inA.result.current.cart.isSuccess).toBe(true));

  let answered!: () => void;
  let release!: () => void;
  const answeredP = new Promise<void>((r) => {
    answered = r;
  });
  heldAnswer = {
    answered: () => answered(),
    release: new Promise<void>((r) => {
      release = r;
    }),
  };
  let added!: Promise<unknown>;
  act(() => {
    added = inA.result.current.add.mutateAsync({ lineItems: [spoon] });
  });
  // The server has tab A's spoon; its answer (without what comes next) is on its way back.
  await answeredP;

  // Tab B adds a plate, and tells the other tabs; a listener of our own sees the message go by.
  const listener = new BroadcastChannel(`shopkit:${emu.demo.clientId}:tabs`);
  const announced = new Promise<void>((r) => {
    listener.onmessage = ({ data }) => data?.type === 'cart' && r();
  });
  await act(() => inB.result.current.mutateAsync({ lineItems: [plate] }));
  await announced;
  listener.close();
  // Tab A's own listener has had its turn at the message too.
  await act(() => new Promise((r) => setTimeout(r, 50)));

  release();
  await act(() => added);
  // Tab A's answer was the cart from before tab B's plate: the cart is fetched again, and shows it.
  await waitFor(() => expect(inA.result.current.cart.data?.lineItems).toHaveLength(2));
  inA.unmount();
  inB.unmount();
});
