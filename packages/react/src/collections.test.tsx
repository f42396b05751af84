// @vitest-environment jsdom
import { startTestEmulator, type TestEmulator } from '@shopkit/emulator/testing';
import { createClient, OAuthStrategy } from '@shopkit/sdk';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render, screen } from '@testing-library/react';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ShopkitProvider, useCollectionBySlug } from './index.ts';

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(() => emu?.stop());

function Title({ slug }: { slug: string }) {
  const { data, error } = useCollectionBySlug(slug);
  if (error) return <p role="alert">{error.message}</p>;
  return <h1>{data === undefined ? 'Loading' : data === null ? 'No such collection' : data.name}</h1>;
}

function renderWith(
  slug: string,
  fetchFn: typeof fetch = fetch,
  queryClient = new QueryClient({ defaultOptions: { queries: { retry: false } } }),
) {
  const client = createClient({
    baseUrl: emu.url,
    fetch: fetchFn,
    auth: OAuthStrategy({ clientId: emu.demo.clientId }),
  });
  return render(
    <QueryClientProvider client={queryClient}>
      <ShopkitProvider client={client}>
        <Title slug={slug} />
      </ShopkitProvider>
    </QueryClientProvider>,
  );
}

it('loads a collection from the emulator through the provider and TanStack Query', async () => {
  renderWith('summer-linen');
  expect(await screen.findByRole('heading', { name: 'Summer Linen' })).toBeTruthy();
});

it('answers null for a missing collection, once: a 404 is an answer, not a failure to retry', async () => {
  const asked: string[] = [];
  const counting: typeof fetch = (input, init) => {
    const url = String(input instanceof Request ? input.url : input);
    if (url.includes('/collections/slug/')) asked.push(url);
    return fetch(input, init);
  };
  // TanStack Query's defaults: three retries for a failed query.
  renderWith('no-such-collection', counting, new QueryClient());
  expect(await screen.findByRole('heading', { name: 'No such collection' })).toBeTruthy();
  expect(asked).toHaveLength(1);
});

it("still fails for a 404 without the platform's answer (a base URL that is not the platform)", async () => {
  const notThePlatform: typeof fetch = (input, init) =>
    String(input instanceof Request ? input.url : input).includes('/collections/slug/')
      ? Promise.resolve(new Response('<h1>Not Found</h1>', { status: 404, statusText: 'Not Found' }))
      : fetch(input, init);
  renderWith('summer-linen', notThePlatform);
  expect((await screen.findByRole('alert')).textContent).toBe('Not Found');
});
