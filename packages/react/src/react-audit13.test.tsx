// @vitest-environment jsdom
/**
 * React bindings, audit 13.
 *
 * - The hooks' `error` (queries and mutations) was typed `Error`, TanStack Query's default: a
 *   storefront branching on the SDK's error classes saw nothing of them in its types. It is
 *   `ShopkitError | Error` now (`ShopkitHookError`; the login hooks add `MemberSessionError`), and
 *   so is the error of the query option factories used with TanStack Query directly: the SDK's
 *   error for a failed call, and still `Error` for what else can land there (a query cancelled
 *   without reverting holds TanStack Query's `CancelledError`, a bug thrown in a query function
 *   holds itself). `tsc` checks the type test below.
 * - The query option factories used without the hooks (`useQuery(productsQuery(client, query))`, a
 *   loader's `fetchQuery`) followed the query client's `retry` only: a product that does not exist
 *   was asked four times with TanStack Query's default, where the hooks ask once. They carry the
 *   hooks' rule now (the query client's `retry` for what may pass, never a refusal); a `retry` given
 *   with the options still wins.
 */
import { startTestEmulator, type TestEmulator } from '@shopkit/emulator/testing';
import { ApplicationError, ShopkitError } from '@shopkit/sdk';
import { CancelledError, QueryClient, QueryClientProvider, useQuery } from '@tanstack/react-query';
import { act, renderHook, waitFor } from '@testing-library/react';
import type { ReactNode } from 'react';
import { afterAll, beforeAll, expect, expectTypeOf, it } from 'vitest';
import { countedClient } from '../test/hold.ts';
import { providers } from '../test/providers.tsx';
import {
  cartQuery,
  collectionQuery,
  collectionsQuery,
  estimateTotalsQuery,
  type MemberSessionError,
  optionsAvailabilityQuery,
  productBySlugQuery,
  productsQuery,
  type ShopkitHookError,
  shopkitKeys,
  type useAddToCart,
  type useApplyCoupon,
  type useCart,
  type useCheckout,
  type useCollectionBySlug,
  type useCollections,
  type useEstimateTotals,
  type useLogin,
  type useLogout,
  type useOptionsAvailability,
  type useProductBySlug,
  useProducts,
  type useRegister,
  type useRemoveCoupon,
  type useRemoveLineItems,
  type useResendVerification,
  type useSendPasswordReset,
  type useUpdateLineItemQuantity,
  type useVerifyEmail,
} from './index.ts';

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(() => emu?.stop());

const MISSING = '00000000-0000-4000-8000-00000000dead';

/** A client whose requests are counted by path, some of them answered with a chosen status. */
const counted = () => countedClient(emu.url, emu.demo.clientId);

/** TanStack Query's own provider only: the factories used without this package's hooks. */
const plain =
  (qc: QueryClient) =>
  ({ children }: { children: ReactNode }) => (
    <QueryClientProvider client={qc}>{children}</QueryClientProvider>
  );

it('types every hook’s and factory’s error as the SDK’s errors, and any other Error', () => {
  type Shown = ShopkitError | Error | null;
  expectTypeOf<ShopkitHookError>().toEqualTypeOf<ShopkitError | Error>();
  for (const hook of [
    {} as ReturnType<typeof useProducts>,
    {} as ReturnType<typeof useProductBySlug>,
    {} as ReturnType<typeof useOptionsAvailability>,
    {} as ReturnType<typeof useCollections>,
    {} as ReturnType<typeof useCollectionBySlug>,
    {} as ReturnType<typeof useCart>,
    {} as ReturnType<typeof useEstimateTotals>,
  ])
    expectTypeOf(hook.error).toEqualTypeOf<Shown>();
  expectTypeOf<ReturnType<typeof useAddToCart>['error']>().toEqualTypeOf<Shown>();
  expectTypeOf<ReturnType<typeof useUpdateLineItemQuantity>['error']>().toEqualTypeOf<Shown>();
  expectTypeOf<ReturnType<typeof useRemoveLineItems>['error']>().toEqualTypeOf<Shown>();
  expectTypeOf<ReturnType<typeof useApplyCoupon>['error']>().toEqualTypeOf<Shown>();
  expectTypeOf<ReturnType<typeof useRemoveCoupon>['error']>().toEqualTypeOf<Shown>();
  expectTypeOf<ReturnType<typeof useCheckout>['error']>().toEqualTypeOf<Shown>();
  expectTypeOf<ReturnType<typeof useLogout>['error']>().toEqualTypeOf<Shown>();
  expectTypeOf<ReturnType<typeof useResendVerification>['error']>().toEqualTypeOf<Shown>();
  expectTypeOf<ReturnType<typeof useSendPasswordReset>['error']>().toEqualTypeOf<Shown>();
  // A silent login that failed after the platform's `SUCCESS`.
  type Login = ShopkitError | MemberSessionError | Error | null;
  expectTypeOf<ReturnType<typeof useLogin>['error']>().toEqualTypeOf<Login>();
  expectTypeOf<ReturnType<typeof useRegister>['error']>().toEqualTypeOf<Login>();
  expectTypeOf<ReturnType<typeof useVerifyEmail>['error']>().toEqualTypeOf<Login>();
  // The factories, with TanStack Query's own hooks and query client.
  const client = counted().client;
  const qc = new QueryClient();
  const direct = () => [
    useQuery(productsQuery(client, {})),
    useQuery(productBySlugQuery(client, 'a')),
    useQuery(optionsAvailabilityQuery(client, 'a', {})),
    useQuery(collectionsQuery(client)),
    useQuery(collectionQuery(client, 'a')),
    useQuery(cartQuery(client)),
    useQuery(estimateTotalsQuery(client)),
  ];
  expectTypeOf<ReturnType<typeof direct>[number]['error']>().toEqualTypeOf<Shown>();
  expectTypeOf(qc.getQueryState(productsQuery(client, {}).queryKey)?.error).toEqualTypeOf<
    ShopkitError | Error | null | undefined
  >();
});

it('holds the SDK’s error for a failed call, and TanStack Query’s for a cancelled read', async () => {
  const { client, hold } = counted();
  const { qc, wrapper } = providers(client);
  const missing = renderHook(() => useQuery(optionsAvailabilityQuery(client, MISSING, {})), {
    wrapper: plain(qc),
  });
  await waitFor(() => expect(missing.result.current.isError).toBe(true));
  expect(missing.result.current.error).toBeInstanceOf(ApplicationError);
  // A read cancelled without reverting (`query.cancel()`): no call failed, no ShopkitError.
  const release = hold('/query-platformized');
  const page = renderHook(() => useProducts({ paging: { limit: 1 } }), { wrapper });
  await waitFor(() => expect(page.result.current.fetchStatus).toBe('fetching'));
  await act(() =>
    qc
      .getQueryCache()
      .find({ queryKey: shopkitKeys.products({ paging: { limit: 1 } }) })
      ?.cancel(),
  );
  release();
  await waitFor(() => expect(page.result.current.isError).toBe(true));
  expect(page.result.current.error).toBeInstanceOf(CancelledError);
  expect(page.result.current.error).not.toBeInstanceOf(ShopkitError);
});

it('does not send a refused read again through the factories used without the hooks', async () => {
  // The docs' `new QueryClient()`: three retries (no wait between them here).
  const qc = new QueryClient({ defaultOptions: { queries: { retryDelay: 0 } } });
  const { client, count } = counted();
  const missing = renderHook(() => useQuery(optionsAvailabilityQuery(client, MISSING, {})), {
    wrapper: plain(qc),
  });
  await waitFor(() => expect(missing.result.current.isError).toBe(true));
  expect(missing.result.current.error).toMatchObject({ status: 404, code: 'PRODUCT_NOT_FOUND' });
  expect(count('/productOptionsAvailability')).toBe(1);
  // A loader's fetch, a filter the platform cannot query.
  await expect(qc.fetchQuery(productsQuery(client, { filter: { nope: { $eq: 1 } } }))).rejects.toThrow(
    'INVALID_ARGUMENT',
  );
  expect(count('/query-platformized')).toBe(1);
});

it('retries what may pass as TanStack Query would: a shown query three times, a loader’s fetch not', async () => {
  const qc = new QueryClient({ defaultOptions: { queries: { retryDelay: 0 } } });
  const { client, count, failWith } = counted();
  failWith('/query-platformized', 503);
  failWith('/collections/query', 503);
  await expect(qc.fetchQuery(productsQuery(client, { paging: { limit: 2 } }))).rejects.toBeInstanceOf(
    ShopkitError,
  );
  expect(count('/query-platformized')).toBe(1);
  await qc.prefetchQuery(collectionsQuery(client));
  expect(count('/collections/query')).toBe(1);
  const shown = renderHook(() => useQuery(productsQuery(client, { paging: { limit: 3 } })), {
    wrapper: plain(qc),
  });
  await waitFor(() => expect(shown.result.current.isError).toBe(true));
  expect(count('/query-platformized')).toBe(1 + 4);
});

it('keeps the query client’s retry for what may pass, and a retry given with the options', async () => {
  const qc = new QueryClient({ defaultOptions: { queries: { retry: 2, retryDelay: 0 } } });
  const { client, count, failWith } = counted();
  failWith('/query-platformized', 503);
  const down = renderHook(() => useQuery(productsQuery(client, { paging: { limit: 1 } })), {
    wrapper: plain(qc),
  });
  await waitFor(() => expect(down.result.current.isError).toBe(true));
  expect(count('/query-platformized')).toBe(3);
  // `setQueryDefaults` for the key is followed too.
  qc.setQueryDefaults(shopkitKeys.collections({}), { retry: false });
  failWith('/collections/query', 503);
  await expect(qc.fetchQuery(collectionsQuery(client))).rejects.toBeInstanceOf(ShopkitError);
  expect(count('/collections/query')).toBe(1);
  // The app's own `retry` with the options wins, a refusal too.
  const mine = renderHook(
    () => useQuery({ ...optionsAvailabilityQuery(client, MISSING, {}), retry: 1, retryDelay: 0 }),
    { wrapper: plain(qc) },
  );
  await waitFor(() => expect(mine.result.current.isError).toBe(true));
  expect(count('/productOptionsAvailability')).toBe(2);
});
