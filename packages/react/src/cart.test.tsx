// @vitest-environment jsdom
import { startTestEmulator, type TestEmulator } from '@shopkit/emulator/testing';
import { cart, createClient, OAuthStrategy, products } from '@shopkit/sdk';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, renderHook, waitFor } from '@testing-library/react';
import type { ReactNode } from 'react';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { holdableFetch } from '../test/hold.ts';
import {
  ShopkitProvider,
  useAddToCart,
  useApplyCoupon,
  useCart,
  useCartUpdating,
  useCheckout,
  useEstimateTotals,
  useOptionsAvailability,
  useProductBySlug,
  useProducts,
  useRemoveCoupon,
  useUpdateLineItemQuantity,
} from './index.ts';

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(() => emu?.stop());

function setup(fetchFn: typeof fetch = fetch) {
  const client = createClient({
    baseUrl: emu.url,
    fetch: fetchFn,
    auth: OAuthStrategy({ clientId: emu.demo.clientId }),
  });
  const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  const wrapper = ({ children }: { children: ReactNode }) => (
    <QueryClientProvider client={queryClient}>
      <ShopkitProvider client={client}>{children}</ShopkitProvider>
    </QueryClientProvider>
  );
  return { client, queryClient, wrapper };
}

it('queries products with filter, sort and paging, a product by slug and its options availability', async () => {
  const { wrapper } = setup();
  const { result } = renderHook(
    () =>
      useProducts({
        filter: { price: { $lte: 30 } },
        sort: [{ fieldName: 'price', order: 'DESC' }],
        paging: { limit: 2, offset: 0 },
      }),
    { wrapper },
  );
  await waitFor(() => expect(result.current.data).toBeDefined());
  const prices = result.current.data!.products.map((p) => p.price?.price ?? 0);
  expect(prices).toHaveLength(2);
  expect(prices[0]).toBeGreaterThanOrEqual(prices[1]!);
  expect(prices.every((p) => p <= 30)).toBe(true);
  expect(result.current.data!.metadata.total).toBeGreaterThan(2);

  const shirt = renderHook(() => useProductBySlug('linen-shirt'), { wrapper });
  await waitFor(() => expect(shirt.result.current.data?.name).toBe('Linen Shirt'));
  const id = shirt.result.current.data!.id;
  const avail = renderHook(() => useOptionsAvailability(id, { Size: 'XL', Color: 'White' }), { wrapper });
  await waitFor(() => expect(avail.result.current.data).toBeDefined());
  expect(avail.result.current.data!.selectedVariant?.price?.price).toBe(72);

  const missing = renderHook(() => useProductBySlug('no-such-product'), { wrapper });
  await waitFor(() => expect(missing.result.current.isSuccess).toBe(true));
  expect(missing.result.current.data).toBeNull();
});

it('adds to the cart, shows quantity changes at once and rolls back a refused one', async () => {
  const { client, wrapper } = setup();
  const { products: list } = await products.queryProducts(
    client,
    { filter: { slug: { $eq: 'canvas-tote' } } },
    { includeVariants: true },
  );
  const tote = list[0]!;
  const variantId = tote.variants?.[0]?.id;
  const hook = renderHook(
    () => ({
      cart: useCart(),
      add: useAddToCart(),
      qty: useUpdateLineItemQuantity(),
      coupon: useApplyCoupon(),
    }),
    { wrapper },
  );
  await waitFor(() => expect(hook.result.current.cart.isSuccess).toBe(true));
  expect(hook.result.current.cart.data).toBeNull();

  await act(() =>
    hook.result.current.add.mutateAsync({
      lineItems: [
        {
          catalogReference: { appId: cart.STORES_APP_ID, catalogItemId: tote.id, options: { variantId } },
          quantity: 1,
        },
      ],
    }),
  );
  await waitFor(() => expect(hook.result.current.cart.data?.lineItems).toHaveLength(1));
  const line = hook.result.current.cart.data!.lineItems[0]!;

  // Optimistic: the new quantity shows before the server answers.
  let pending!: Promise<unknown>;
  act(() => {
    pending = hook.result.current.qty.mutateAsync({ id: line.id, quantity: 3 });
  });
  await waitFor(() => expect(hook.result.current.cart.data?.lineItems[0]?.quantity).toBe(3));
  await act(() => pending);
  expect((await cart.getCurrentCart(client)).lineItems[0]!.quantity).toBe(3);

  // A refused change (a negative quantity: the line disappears at once) rolls back.
  await act(async () => {
    await hook.result.current.qty.mutateAsync({ id: line.id, quantity: -1 }).catch(() => undefined);
  });
  await waitFor(() => expect(hook.result.current.qty.error?.message).toMatch(/quantity/));
  await waitFor(() => expect(hook.result.current.cart.data?.lineItems.map((l) => l.quantity)).toEqual([3]));

  // A refused coupon rejects with the platform's error and leaves the cart as it was.
  await act(async () => {
    await hook.result.current.coupon.mutateAsync('NO-SUCH-COUPON').catch(() => undefined);
  });
  await waitFor(() => expect(hook.result.current.coupon.error?.message).toMatch(/coupon/i));
  expect(hook.result.current.cart.data?.appliedDiscounts ?? []).toEqual([]);
});

/** Store products without options (added without a variant), by slug. */
async function productIds(client: ReturnType<typeof setup>['client'], slugs: string[]) {
  const { products: list } = await products.queryProducts(client, { filter: { slug: { $in: slugs } } });
  return slugs.map((slug) => list.find((p) => p.slug === slug)!.id);
}

const lineOf = (catalogItemId: string) => ({
  catalogReference: { appId: cart.STORES_APP_ID, catalogItemId },
  quantity: 1,
});

it('shows the first add of a visitor without a cart at once, and rolls a refused one back to no cart', async () => {
  const { fetchFn, hold } = holdableFetch();
  const { client, wrapper } = setup(fetchFn);
  const [plate] = await productIds(client, ['dinner-plate']);
  const hook = renderHook(() => ({ cart: useCart(), add: useAddToCart() }), { wrapper });
  await waitFor(() => expect(hook.result.current.cart.isSuccess).toBe(true));
  expect(hook.result.current.cart.data).toBeNull();

  const release = hold();
  let added!: Promise<unknown>;
  act(() => {
    added = hook.result.current.add.mutateAsync({
      lineItems: [lineOf(plate!)],
      preview: { productName: { original: 'Dinner Plate' } },
    });
  });
  // The server has not answered: the line shows, pending.
  await waitFor(() => expect(hook.result.current.cart.data?.lineItems).toHaveLength(1));
  expect(hook.result.current.cart.data!.lineItems[0]).toMatchObject({
    id: expect.stringMatching(/^pending-/),
    quantity: 1,
    productName: { original: 'Dinner Plate' },
  });
  release();
  await act(() => added);
  await waitFor(() => expect(hook.result.current.cart.data?.lineItems[0]?.id).not.toMatch(/^pending-/));

  // A refused first add (a new visitor, a product that does not exist) leaves no cart.
  const fresh = setup();
  const other = renderHook(() => ({ cart: useCart(), add: useAddToCart() }), { wrapper: fresh.wrapper });
  await waitFor(() => expect(other.result.current.cart.isSuccess).toBe(true));
  await act(async () => {
    await other.result.current.add.mutateAsync({ lineItems: [lineOf('no-such-product')] }).catch(() => {});
  });
  await waitFor(() => expect(other.result.current.add.isError).toBe(true));
  expect(other.result.current.cart.data).toBeNull();
});

it('gives every line added before the server answers an id of its own', async () => {
  const { fetchFn, hold } = holdableFetch();
  const { client, wrapper } = setup(fetchFn);
  const [plate, spoon, candle] = await productIds(client, [
    'dinner-plate',
    'olive-wood-spoon',
    'beeswax-candle',
  ]);
  await cart.addToCurrentCart(client, { lineItems: [lineOf(plate!)] });
  const hook = renderHook(() => ({ cart: useCart(), add: useAddToCart() }), { wrapper });
  await waitFor(() => expect(hook.result.current.cart.data?.lineItems).toHaveLength(1));

  // Two quick adds of one new line each, neither answered yet.
  const release = hold();
  let adds!: Promise<unknown>[];
  act(() => {
    adds = [spoon!, candle!].map((id) => hook.result.current.add.mutateAsync({ lineItems: [lineOf(id)] }));
  });
  await waitFor(() => expect(hook.result.current.cart.data?.lineItems).toHaveLength(3));
  const ids = hook.result.current.cart.data!.lineItems.map((l) => l.id);
  expect(new Set(ids).size).toBe(3);
  expect(ids.filter((id) => id.startsWith('pending-'))).toHaveLength(2);
  release();
  await act(() => Promise.all(adds));
  await waitFor(() =>
    expect(hook.result.current.cart.data?.lineItems.every((l) => !l.id.startsWith('pending-'))).toBe(true),
  );
  expect(hook.result.current.cart.data!.lineItems).toHaveLength(3);
});

it('answers null for the totals of a visitor without a cart; a checkout without one rejects', async () => {
  const visited: string[] = [];
  const { wrapper } = setup();
  const hook = renderHook(
    () => ({ totals: useEstimateTotals(), checkout: useCheckout((u) => visited.push(u)) }),
    {
      wrapper,
    },
  );
  await waitFor(() => expect(hook.result.current.totals.isSuccess).toBe(true));
  expect(hook.result.current.totals.data).toBeNull();
  const error = await act(() =>
    hook.result.current.checkout.mutateAsync({ callbacks: { postFlowUrl: 'http://127.0.0.1/thanks' } }).then(
      () => undefined,
      (e: unknown) => e,
    ),
  );
  expect(error).toMatchObject({ code: 'OWNED_CART_NOT_FOUND' });
  expect(visited).toEqual([]);
});

it('estimates totals for an address', async () => {
  const { client, wrapper } = setup();
  const { products: list } = await products.queryProducts(
    client,
    { filter: { slug: { $eq: 'beeswax-candle' } } },
    { includeVariants: true },
  );
  const candle = list[0]!;
  await cart.addToCurrentCart(client, {
    lineItems: [
      {
        catalogReference: {
          appId: cart.STORES_APP_ID,
          catalogItemId: candle.id,
          options: { variantId: candle.variants?.[0]?.id },
        },
        quantity: 2,
      },
    ],
  });
  const { result } = renderHook(
    () =>
      useEstimateTotals({
        shippingAddress: { country: 'US', subdivision: 'NY', city: 'New York', postalCode: '10001' },
      }),
    { wrapper },
  );
  await waitFor(() => expect(result.current.data).toBeDefined());
  const s = result.current.data!.priceSummary;
  expect(s.subtotal.amount).toBe('44.00');
  expect(Number(s.total.amount)).toBeGreaterThan(44);
  expect(result.current.data!.shippingInfo?.carrierServiceOptions.length).toBeGreaterThan(0);
});

it('starts one checkout when asked twice before the first has answered (a double click, and a second button)', async () => {
  const calls: string[] = [];
  const counting: typeof fetch = (input, init) => {
    const url = String(input instanceof Request ? input.url : input);
    if (url.endsWith('/create-checkout') || url.endsWith('/redirect-session')) calls.push(url);
    return fetch(input, init);
  };
  const client = createClient({
    baseUrl: emu.url,
    fetch: counting,
    auth: OAuthStrategy({ clientId: emu.demo.clientId }),
  });
  const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  const wrapper = ({ children }: { children: ReactNode }) => (
    <QueryClientProvider client={queryClient}>
      <ShopkitProvider client={client}>{children}</ShopkitProvider>
    </QueryClientProvider>
  );
  const { products: list } = await products.queryProducts(client, {
    filter: { slug: { $eq: 'dinner-plate' } },
  });
  await cart.addToCurrentCart(client, {
    lineItems: [{ catalogReference: { appId: cart.STORES_APP_ID, catalogItemId: list[0]!.id }, quantity: 1 }],
  });
  const visited: string[] = [];
  // Two checkout buttons mounted at once, as the cart drawer's and the cart page's.
  const { result, unmount } = renderHook(
    () => ({
      drawer: useCheckout((url) => visited.push(url)),
      page: useCheckout((url) => visited.push(url)),
    }),
    { wrapper },
  );
  const vars = { callbacks: { postFlowUrl: 'http://127.0.0.1/thanks' } };
  let second!: Promise<unknown>;
  act(() => {
    result.current.drawer.mutate(vars);
    result.current.drawer.mutate(vars);
    second = result.current.page.mutateAsync(vars);
  });
  await waitFor(() => expect(visited).toHaveLength(1));
  // A queued second checkout would start once the first answered: give it the time to.
  await new Promise((r) => setTimeout(r, 300));
  expect(calls.map((u) => u.split('/').pop())).toEqual(['create-checkout', 'redirect-session']);
  expect(visited).toHaveLength(1);
  expect(result.current.drawer.isSuccess).toBe(true);
  // The second button's call answers the same checkout.
  expect(await second).toEqual(result.current.drawer.data);
  // Once no checkout button is mounted, the next one starts a checkout of its own.
  unmount();
  const again = renderHook(() => useCheckout((url) => visited.push(url)), { wrapper });
  await act(() => again.result.current.mutateAsync(vars));
  expect(calls).toHaveLength(4);
  expect(visited).toHaveLength(2);
});

it('keeps a later queued change on screen when an earlier one fails, and the server cart once both answered', async () => {
  const { fetchFn, hold } = holdableFetch();
  const { client, wrapper } = setup(fetchFn);
  const [plate, spoon] = await productIds(client, ['dinner-plate', 'olive-wood-spoon']);
  await cart.addToCurrentCart(client, { lineItems: [lineOf(plate!)] });
  const hook = renderHook(
    () => ({ cart: useCart(), add: useAddToCart(), qty: useUpdateLineItemQuantity() }),
    {
      wrapper,
    },
  );
  await waitFor(() => expect(hook.result.current.cart.data?.lineItems).toHaveLength(1));
  const line = hook.result.current.cart.data!.lineItems[0]!;

  // A refused change (a negative quantity) and an add queued behind it, both held.
  const releaseQty = hold('/update-line-items-quantity');
  const releaseAdd = hold('/add-to-cart');
  let refused!: Promise<unknown>;
  let added!: Promise<unknown>;
  act(() => {
    refused = hook.result.current.qty.mutateAsync({ id: line.id, quantity: -1 }).catch((e: unknown) => e);
    added = hook.result.current.add.mutateAsync({ lineItems: [lineOf(spoon!)] });
  });
  await waitFor(() => expect(hook.result.current.cart.data?.lineItems.map((l) => l.id)).toHaveLength(1));
  releaseQty();
  await act(() => refused);
  await new Promise((r) => setTimeout(r, 300));
  // The add has not answered: its spoon still shows.
  expect(hook.result.current.cart.data!.lineItems.some((l) => l.id.startsWith('pending-'))).toBe(true);
  releaseAdd();
  await act(() => added);
  await waitFor(() =>
    expect(hook.result.current.cart.data?.lineItems.map((l) => l.quantity)).toEqual([1, 1]),
  );
  expect(hook.result.current.cart.data!.lineItems.every((l) => !l.id.startsWith('pending-'))).toBe(true);
});

it('keeps the coupon in the cart until its removal has answered, as its apply does', async () => {
  const { fetchFn, hold } = holdableFetch();
  const { client, wrapper } = setup(fetchFn);
  const [plate] = await productIds(client, ['dinner-plate']);
  await cart.addToCurrentCart(client, { lineItems: [lineOf(plate!)] });
  await cart.updateCurrentCart(client, { couponCode: 'SAVE10' });
  const hook = renderHook(
    () => ({ cart: useCart(), remove: useRemoveCoupon(), updating: useCartUpdating() }),
    {
      wrapper,
    },
  );
  const coupon = () => hook.result.current.cart.data?.appliedDiscounts?.find((d) => d.coupon)?.coupon?.code;
  await waitFor(() => expect(coupon()).toBe('SAVE10'));

  const release = hold('/remove-coupon');
  let removed!: Promise<unknown>;
  act(() => {
    removed = hook.result.current.remove.mutateAsync();
  });
  await waitFor(() => expect(hook.result.current.remove.isPending).toBe(true));
  await new Promise((r) => setTimeout(r, 200));
  // The cart stays the server's, coupon and discounted amounts together; the change shows as on its way.
  expect(coupon()).toBe('SAVE10');
  expect(hook.result.current.updating).toBe(true);
  release();
  await act(() => removed);
  await waitFor(() => expect(coupon()).toBeUndefined());
  expect(hook.result.current.updating).toBe(false);
});

it('shows another add of a product without options as more of its line, as the server stores it, and its amounts as updating until it answers', async () => {
  const { fetchFn, hold } = holdableFetch();
  const { client, wrapper } = setup(fetchFn);
  const [plate] = await productIds(client, ['dinner-plate']);
  await cart.addToCurrentCart(client, { lineItems: [lineOf(plate!)] });
  const hook = renderHook(() => ({ cart: useCart(), add: useAddToCart(), updating: useCartUpdating() }), {
    wrapper,
  });
  await waitFor(() => expect(hook.result.current.cart.data?.lineItems).toHaveLength(1));
  expect(hook.result.current.updating).toBe(false);
  // The server names the variant of a product without options: all zeros.
  expect(hook.result.current.cart.data!.lineItems[0]!.catalogReference?.options).toEqual({
    variantId: '00000000-0000-0000-0000-000000000000',
  });
  const release = hold();
  let added!: Promise<unknown>;
  act(() => {
    added = hook.result.current.add.mutateAsync({ lineItems: [lineOf(plate!)] });
  });
  await waitFor(() => expect(hook.result.current.cart.data?.lineItems.map((l) => l.quantity)).toEqual([2]));
  // The quantity shows the change; the amounts are still the server's from before it.
  expect(hook.result.current.updating).toBe(true);
  const before = hook.result.current.cart.data!.subtotal!.amount;
  release();
  await act(() => added);
  expect(hook.result.current.cart.data!.lineItems.map((l) => l.quantity)).toEqual([2]);
  await waitFor(() => expect(hook.result.current.updating).toBe(false));
  expect(Number(hook.result.current.cart.data!.subtotal!.amount)).toBe(2 * Number(before));
});

it('cancels the options availability request when its query is cancelled', async () => {
  let aborted = false;
  const { client, queryClient, wrapper } = setup((input, init) => {
    if (!String(input).endsWith('/productOptionsAvailability')) return fetch(input, init);
    // Never answers: only the call's signal can end it.
    return new Promise((_resolve, reject) =>
      init?.signal?.addEventListener('abort', () => {
        aborted = true;
        reject(init.signal!.reason);
      }),
    );
  });
  const [shirt] = await productIds(client, ['linen-shirt']);
  const hook = renderHook(() => useOptionsAvailability(shirt!, { Size: 'XL', Color: 'White' }), { wrapper });
  await waitFor(() => expect(hook.result.current.fetchStatus).toBe('fetching'));
  await act(() => queryClient.cancelQueries());
  await waitFor(() => expect(aborted).toBe(true));
});
