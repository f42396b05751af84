// @vitest-environment jsdom
/**
 * React bindings, audit 11, as an application uses them.
 *
 * - A product page that stays mounted from one product to the next (a router reusing the page)
 *   showed the previous product's options availability (its variant, price, stock and picture) as
 *   the new product's placeholder while the new one loaded. Another choice of the same product
 *   still keeps the previous answer shown.
 * - A line shown at once by an add (`pending-<n>`) whose quantity was changed, or that was removed,
 *   before the add answered: the change, queued behind the add, was sent with the pending id, which
 *   the server does not know, so it was refused and rolled back (the shopper's change lost).
 * - A token storage that cannot be read (a custom async one failing): the provider's reads of it
 *   (on mounting, on another tab's `storage` event, for the tab sync) were unhandled rejections of
 *   the page, and `useMemberSession` showed `none` with nothing to tell it from a read on its way.
 */
import { startTestEmulator, type TestEmulator } from '@shopkit/emulator/testing';
import { cart, createClient, OAuthStrategy, products } from '@shopkit/sdk';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, renderHook, waitFor } from '@testing-library/react';
import type { ReactNode } from 'react';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { holdableFetch } from '../test/hold.ts';
import { providers } from '../test/providers.tsx';
import {
  ShopkitProvider,
  useAddToCart,
  useCart,
  useMemberSession,
  useOptionsAvailability,
  useRemoveLineItems,
  useUpdateLineItemQuantity,
} from './index.ts';

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(() => emu?.stop());

function setup() {
  const { fetchFn, hold } = holdableFetch();
  const client = createClient({
    baseUrl: emu.url,
    fetch: fetchFn,
    auth: OAuthStrategy({ clientId: emu.demo.clientId }),
  });
  return { client, hold, ...providers(client) };
}

async function productIds(client: ReturnType<typeof setup>['client'], slugs: string[]) {
  const { products: list } = await products.queryProducts(client, { filter: { slug: { $in: slugs } } });
  return slugs.map((slug) => list.find((p) => p.slug === slug)!.id);
}

it("does not show another product's availability while this product's loads", async () => {
  const { client, hold, wrapper } = setup();
  const [shirt, trousers] = await productIds(client, ['linen-shirt', 'linen-trousers']);
  let shown = { id: shirt!, choices: {} as Record<string, string> };
  const hook = renderHook(() => useOptionsAvailability(shown.id, shown.choices), { wrapper });
  await waitFor(() => expect(hook.result.current.isSuccess).toBe(true));
  const shirtAnswer = hook.result.current.data;

  // Another choice of the same product: the previous answer stays shown while it loads.
  let release = hold('/productOptionsAvailability');
  shown = { id: shirt!, choices: { Size: 'L' } };
  hook.rerender();
  expect(hook.result.current).toMatchObject({ isPlaceholderData: true, data: shirtAnswer });
  release();
  await waitFor(() => expect(hook.result.current.isPlaceholderData).toBe(false));

  // Another product: nothing of the shirt's is shown as the trousers'.
  release = hold('/productOptionsAvailability');
  shown = { id: trousers!, choices: {} };
  hook.rerender();
  expect(hook.result.current).toMatchObject({ isPending: true, data: undefined });
  release();
  await waitFor(() => expect(hook.result.current.isSuccess).toBe(true));
  expect(hook.result.current.data?.media?.mainMedia?.id).toBe('linen-trousers.svg');
});

it('sends a change made to a line shown before its add answered with the id the answer gave it', async () => {
  const { client, hold, wrapper } = setup();
  const [plate] = await productIds(client, ['dinner-plate']);
  const hook = renderHook(
    () => ({
      cart: useCart(),
      add: useAddToCart(),
      quantity: useUpdateLineItemQuantity(),
      remove: useRemoveLineItems(),
    }),
    { wrapper },
  );
  await waitFor(() => expect(hook.result.current.cart.isSuccess).toBe(true));
  const line = (catalogItemId: string) => ({
    catalogReference: { appId: cart.STORES_APP_ID, catalogItemId },
    quantity: 1,
  });

  // The plate is added; before the server answers, the shopper sets its line's quantity to 3.
  const release = hold();
  let added!: Promise<unknown>;
  act(() => {
    added = hook.result.current.add.mutateAsync({ lineItems: [line(plate!)] });
  });
  await waitFor(() => expect(hook.result.current.cart.data?.lineItems).toHaveLength(1));
  const pending = hook.result.current.cart.data!.lineItems[0]!.id;
  expect(pending).toMatch(/^pending-/);
  let changed!: Promise<unknown>;
  act(() => {
    changed = hook.result.current.quantity.mutateAsync({ id: pending, quantity: 3 });
  });
  await waitFor(() => expect(hook.result.current.cart.data?.lineItems[0]?.quantity).toBe(3));
  release();
  await added;
  await changed;
  await waitFor(() => expect(hook.result.current.cart.data?.lineItems[0]?.id).not.toBe(pending));
  expect(hook.result.current.cart.data?.lineItems).toMatchObject([{ quantity: 3 }]);
  await waitFor(() => expect(hook.result.current.quantity.isSuccess).toBe(true));
  const [stored] = (await cart.getCurrentCart(client)).lineItems;
  expect(stored?.quantity).toBe(3);
});

it('removes a line shown before its add answered', async () => {
  const { client, hold, wrapper } = setup();
  const [plate, spoon] = await productIds(client, ['dinner-plate', 'olive-wood-spoon']);
  const hook = renderHook(() => ({ cart: useCart(), add: useAddToCart(), remove: useRemoveLineItems() }), {
    wrapper,
  });
  await waitFor(() => expect(hook.result.current.cart.isSuccess).toBe(true));
  const line = (catalogItemId: string) => ({
    catalogReference: { appId: cart.STORES_APP_ID, catalogItemId },
    quantity: 1,
  });
  await act(() => hook.result.current.add.mutateAsync({ lineItems: [line(spoon!)] }));

  const release = hold();
  let added!: Promise<unknown>;
  act(() => {
    added = hook.result.current.add.mutateAsync({ lineItems: [line(plate!)] });
  });
  await waitFor(() => expect(hook.result.current.cart.data?.lineItems).toHaveLength(2));
  const pending = hook.result.current.cart.data!.lineItems.find((l) => l.id.startsWith('pending-'))!.id;
  let removed!: Promise<unknown>;
  act(() => {
    removed = hook.result.current.remove.mutateAsync([pending]);
  });
  await waitFor(() => expect(hook.result.current.cart.data?.lineItems).toHaveLength(1));
  release();
  await added;
  await removed;
  await waitFor(() => expect(hook.result.current.remove.isSuccess).toBe(true));
  const stored = (await cart.getCurrentCart(client)).lineItems;
  expect(stored.map((l) => l.catalogReference?.catalogItemId)).toEqual([spoon]);
  await waitFor(() =>
    expect(hook.result.current.cart.data?.lineItems.map((l) => l.catalogReference?.catalogItemId)).toEqual([
      spoon,
    ]),
  );
});

it('reports a token storage that cannot be read in the session, with no unhandled rejection', async () => {
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => void unhandled.push(reason);
  process.on('unhandledRejection', onUnhandled);
  try {
    const client = createClient({
      baseUrl: emu.url,
      auth: OAuthStrategy({
        clientId: emu.demo.clientId,
        storage: {
          getTokens: () => Promise.reject(new Error('The token storage is unavailable')),
          setTokens: () => {},
        },
      }),
    });
    const qc = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    // With the tab sync on: it reads the storage too.
    const wrapper = ({ children }: { children: ReactNode }) => (
      <QueryClientProvider client={qc}>
        <ShopkitProvider client={client}>{children}</ShopkitProvider>
      </QueryClientProvider>
    );
    const hook = renderHook(() => useMemberSession(), { wrapper });
    await waitFor(() => expect(hook.result.current.error?.message).toBe('The token storage is unavailable'));
    expect(hook.result.current).toMatchObject({ role: 'none', member: false });
    // Another tab wrote the storage: read again, and failing again.
    act(() => void dispatchEvent(new StorageEvent('storage')));
    // Every read has settled (each is one rejected promise), and any unhandled one has been reported.
    await new Promise((r) => setTimeout(r, 0));
    await new Promise((r) => setImmediate(r));
    expect(unhandled).toEqual([]);
    hook.unmount();
  } finally {
    process.off('unhandledRejection', onUnhandled);
  }
});
