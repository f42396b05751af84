// @vitest-environment jsdom
/**
 * React bindings, audit 12, second pass: server rendering, React 19, the query client's defaults,
 * listeners.
 *
 * - A refused read (a product that does not exist, a filter the platform cannot query, a cart the
 *   platform refuses for the session) was sent four times with the docs' `new QueryClient()`:
 *   TanStack Query retries every failure three times, one, two and four seconds apart, so the
 *   page showed its skeleton for seven seconds before saying why. The hooks keep the query
 *   client's own `retry` for what may pass (network, 5xx, 429) and never retry a refusal.
 * - Guards: what the server renders (`renderToString`, `renderToPipeableStream`) fetches nothing
 *   and hydrates under StrictMode without a mismatch (the role `none` on both sides, then the
 *   client's reads); every listener the provider and hooks add (window, document,
 *   `BroadcastChannel`, the strategy's events) is removed on unmounting and on a new client; a
 *   cart change made in a transition shows at once, under StrictMode, and is sent once.
 */

import { Writable } from 'node:stream';
import { startTestEmulator, type TestEmulator } from '@shopkit/emulator/testing';
import {
  type AnyClient,
  cart,
  createClient,
  OAuthStrategy,
  products,
  ShopkitError,
  ValidationError,
} from '@shopkit/sdk';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, render, renderHook, waitFor } from '@testing-library/react';
import { StrictMode, useTransition } from 'react';
import { hydrateRoot, type Root } from 'react-dom/client';
import { renderToPipeableStream, renderToString } from 'react-dom/server';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { countedClient } from '../test/hold.ts';
import { providers } from '../test/providers.tsx';
import {
  ShopkitProvider,
  shopkitKeys,
  useAddToCart,
  useCart,
  useCartCount,
  useCartUpdating,
  useCheckout,
  useEstimateTotals,
  useLogin,
  useLogout,
  useMemberSession,
  useOptionsAvailability,
  useProducts,
} from './index.ts';

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(() => emu?.stop());

/** A client whose requests are counted by path, and a provider over `qc`. */
function counted(qc: QueryClient) {
  const { client, calls, failWith, hold } = countedClient(emu.url, emu.demo.clientId);
  return { client, calls, failWith, hold, wrapper: providers(client, qc).wrapper };
}

it('does not send a refused read again (a 404, a 400), as TanStack Query’s default retries did', async () => {
  // The docs' `new QueryClient()`: three retries (no wait between them here).
  const qc = new QueryClient({ defaultOptions: { queries: { retryDelay: 0 } } });
  const { calls, failWith, wrapper } = counted(qc);
  const missing = renderHook(() => useOptionsAvailability('00000000-0000-4000-8000-00000000dead', {}), {
    wrapper,
  });
  await waitFor(() => expect(missing.result.current.isError).toBe(true));
  expect(missing.result.current.error).toMatchObject({ status: 404, code: 'PRODUCT_NOT_FOUND' });
  const bad = renderHook(() => useProducts({ filter: { nope: { $eq: 1 } } }), { wrapper });
  await waitFor(() => expect(bad.result.current.isError).toBe(true));
  expect(bad.result.current.error).toBeInstanceOf(ValidationError);
  // A session the platform does not accept for the cart (403).
  failWith('/carts/current', 403);
  const refused = renderHook(() => useCart(), { wrapper });
  await waitFor(() => expect(refused.result.current.isError).toBe(true));
  expect(refused.result.current.error).toMatchObject({ status: 403 });
  expect(calls.filter((p) => p.endsWith('/productOptionsAvailability'))).toHaveLength(1);
  expect(calls.filter((p) => p.endsWith('/query-platformized'))).toHaveLength(1);
  expect(calls.filter((p) => p.endsWith('/carts/current'))).toHaveLength(1);
});

it('still retries, as the query client says, a read that may pass (a 503, an unreachable shop)', async () => {
  const { failWith, calls, wrapper } = counted(
    new QueryClient({ defaultOptions: { queries: { retry: 2, retryDelay: 0 } } }),
  );
  failWith('/query-platformized', 503);
  const down = renderHook(() => useProducts({ paging: { limit: 1 } }), { wrapper });
  await waitFor(() => expect(down.result.current.isError).toBe(true));
  expect(down.result.current.error).toBeInstanceOf(ShopkitError);
  expect(calls.filter((p) => p.endsWith('/query-platformized'))).toHaveLength(3);
  // `retry: false` in the query client (or in `setQueryDefaults`) is kept too.
  const once = counted(new QueryClient({ defaultOptions: { queries: { retry: false } } }));
  once.failWith('/query-platformized', 503);
  const off = renderHook(() => useProducts({ paging: { limit: 1 } }), { wrapper: once.wrapper });
  await waitFor(() => expect(off.result.current.isError).toBe(true));
  expect(once.calls.filter((p) => p.endsWith('/query-platformized'))).toHaveLength(1);
});

/** Listeners added and not removed, by target and event, while `run` runs. */
async function listenersLeft(run: () => Promise<void>) {
  const live = new Map<string, number>();
  const count = (key: string, by: number) => live.set(key, (live.get(key) ?? 0) + by);
  const targets = [
    ['window', window],
    ['document', document],
  ] as const;
  const spies = targets.flatMap(([name, target]) => {
    const { addEventListener: add, removeEventListener: remove } = target;
    return [
      vi.spyOn(target, 'addEventListener').mockImplementation((type, ...rest) => {
        count(`${name} ${type}`, 1);
        return add.call(target, type, ...rest);
      }),
      vi.spyOn(target, 'removeEventListener').mockImplementation((type, ...rest) => {
        count(`${name} ${type}`, -1);
        return remove.call(target, type, ...rest);
      }),
    ];
  });
  const Channel = globalThis.BroadcastChannel;
  globalThis.BroadcastChannel = class extends Channel {
    constructor(name: string) {
      super(name);
      count('BroadcastChannel', 1);
    }
    override close() {
      count('BroadcastChannel', -1);
      super.close();
    }
  };
  try {
    await run();
  } finally {
    for (const spy of spies) spy.mockRestore();
    globalThis.BroadcastChannel = Channel;
  }
  return { seen: [...live.keys()].sort(), left: Object.fromEntries([...live].filter(([, n]) => n !== 0)) };
}

/** A client whose strategy's listeners are counted. */
function watched() {
  const auth = OAuthStrategy({ clientId: emu.demo.clientId });
  let listening = 0;
  const on = auth.on.bind(auth) as (event: string, listener: () => void) => () => void;
  (auth as { on: unknown }).on = (event: string, listener: () => void) => {
    listening++;
    const off = on(event, listener);
    let once = true;
    return () => {
      if (once) listening--;
      once = false;
      off();
    };
  };
  return { client: createClient({ baseUrl: emu.url, auth }), listening: () => listening };
}

function Everything() {
  useCart();
  useMemberSession();
  useLogout();
  useCheckout();
  useLogin();
  return null;
}

it('removes every listener it adds, mounted and unmounted many times and given new clients', async () => {
  const clients = Array.from({ length: 5 }, watched);
  const { seen, left } = await listenersLeft(async () => {
    const qc = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    for (let i = 0; i < 10; i++) {
      const shop = (client: AnyClient) => (
        <StrictMode>
          <QueryClientProvider client={qc}>
            <ShopkitProvider client={client}>
              <Everything />
            </ShopkitProvider>
          </QueryClientProvider>
        </StrictMode>
      );
      const page = render(shop(clients[i % clients.length]!.client));
      await waitFor(() => expect(qc.getQueryData(shopkitKeys.session)).toBe('visitor'));
      // Another client in the provider (another site, the client made after a logout).
      page.rerender(shop(clients[(i + 1) % clients.length]!.client));
      await act(() => qc.cancelQueries());
      page.unmount();
    }
  });
  expect(seen).toEqual([
    'BroadcastChannel',
    'document visibilitychange',
    'window pageshow',
    'window storage',
  ]);
  expect(left).toEqual({});
  // What stays is the strategy's expiry flag (two listeners, once per strategy, for good).
  expect(clients.map((c) => c.listening())).toEqual([2, 2, 2, 2, 2]);
});

function Page() {
  const cart = useCart();
  const count = useCartCount();
  const updating = useCartUpdating();
  const products = useProducts({ paging: { limit: 2 } });
  useAddToCart();
  useCheckout();
  useEstimateTotals();
  useLogin();
  useLogout();
  const session = useMemberSession();
  return (
    <p>{`${cart.status} ${count} ${updating} ${session.role} ${session.expired} ${products.data?.products.length ?? '-'}`}</p>
  );
}

it('hydrates what the server rendered without a mismatch, and fetches nothing while rendering on the server', async () => {
  const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
  const server = counted(new QueryClient());
  const html = renderToString(
    <server.wrapper>
      <Page />
    </server.wrapper>,
  );
  expect(server.calls).toEqual([]);
  expect(html).toBe('<p>pending 0 false none false -</p>');
  const streamed = await new Promise<string>((resolve, reject) => {
    let text = '';
    const sink = new Writable({
      write(chunk, _enc, done) {
        text += chunk;
        done();
      },
      final(done) {
        resolve(text);
        done();
      },
    });
    const stream = renderToPipeableStream(
      <server.wrapper>
        <Page />
      </server.wrapper>,
      { onAllReady: () => stream.pipe(sink), onError: reject },
    );
  });
  expect(streamed).toBe(html);
  const browser = counted(new QueryClient());
  const container = document.createElement('div');
  container.innerHTML = html;
  document.body.append(container);
  const recovered: unknown[] = [];
  let root!: Root;
  await act(async () => {
    root = hydrateRoot(
      container,
      <StrictMode>
        <browser.wrapper>
          <Page />
        </browser.wrapper>
      </StrictMode>,
      { onRecoverableError: (e) => recovered.push(e) },
    );
  });
  // The first render is the server's (no role, no cart, no products), then the client's reads.
  await waitFor(() => expect(container.textContent).toBe('success 0 false visitor false 2'));
  expect(recovered).toEqual([]);
  // (React warns of its two renderers, the server's and the browser's, sharing one context in one
  // process: a test's own doing.)
  const said = errors.mock.calls.map((c) => String(c[0])).filter((m) => !m.includes('multiple renderers'));
  expect(said).toEqual([]);
  act(() => root.unmount());
  errors.mockRestore();
});

it('shows a cart change made in a transition at once, under StrictMode, and sends it once', async () => {
  const { calls, hold, wrapper } = counted(
    new QueryClient({ defaultOptions: { queries: { retry: false } } }),
  );
  const { client } = counted(new QueryClient());
  const { products: found } = await products.queryProducts(client, {
    filter: { slug: { $eq: 'dinner-plate' } },
  });
  const plate = found[0]!.id!;
  const page = renderHook(
    () => {
      const [busy, start] = useTransition();
      return { busy, start, cart: useCart(), add: useAddToCart() };
    },
    { wrapper: ({ children }) => <StrictMode>{wrapper({ children })}</StrictMode> },
  );
  await waitFor(() => expect(page.result.current.cart.isSuccess).toBe(true));
  const release = hold('/add-to-cart');
  let done!: Promise<unknown>;
  act(() =>
    page.result.current.start(async () => {
      done = page.result.current.add.mutateAsync({
        lineItems: [{ catalogReference: { appId: cart.STORES_APP_ID, catalogItemId: plate }, quantity: 1 }],
      });
      await done;
    }),
  );
  // The optimistic line shows while the transition is pending, not when it ends.
  await waitFor(() => expect(page.result.current.cart.data?.lineItems).toHaveLength(1));
  expect(page.result.current.busy).toBe(true);
  expect(page.result.current.cart.data?.lineItems[0]?.id).toMatch(/^pending-/);
  release();
  await act(() => done);
  await waitFor(() => expect(page.result.current.busy).toBe(false));
  expect(page.result.current.cart.data?.lineItems[0]?.id).not.toMatch(/^pending-/);
  expect(calls.filter((p) => p.endsWith('/add-to-cart'))).toHaveLength(1);
});
