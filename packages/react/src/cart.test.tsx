// @vitest-environment jsdom
import { startTestEmulator, type TestEmulator } from '@shopkit/emulator/testing';
import { cart, createClient, OAuthStrategy, products } from '@shopkit/sdk';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, renderHook, waitFor } from '@testing-library/react';
import type { ReactNode } from 'react';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  ShopkitProvider,
  useAddToCart,
  useApplyCoupon,
  useCart,
  useCheckout,
  useEstimateTotals,
  useOptionsAvailability,
  useProductBySlug,
  useProducts,
  useUpdateLineItemQuantity,
} from './index.ts';

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(() => emu?.stop());

function setup() {
  const client = createClient({ baseUrl: emu.url, auth: OAuthStrategy({ clientId: emu.demo.clientId }) });
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

it('starts one checkout when asked twice before the first has answered (a double click)', async () => {
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
  const { result } = renderHook(() => useCheckout((url) => visited.push(url)), { wrapper });
  const vars = { callbacks: { postFlowUrl: 'http://127.0.0.1/thanks' } };
  act(() => {
    result.current.mutate(vars);
    result.current.mutate(vars);
  });
  await waitFor(() => expect(visited).toHaveLength(1));
  // A queued second checkout would start once the first answered: give it the time to.
  await new Promise((r) => setTimeout(r, 300));
  expect(calls.map((u) => u.split('/').pop())).toEqual(['create-checkout', 'redirect-session']);
  expect(visited).toHaveLength(1);
  expect(result.current.isSuccess).toBe(true);
});
