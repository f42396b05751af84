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
  return <h1>{data ? data.name : 'Loading'}</h1>;
}

function renderWith(slug: string) {
  const client = createClient({ baseUrl: emu.url, auth: OAuthStrategy({ clientId: emu.demo.clientId }) });
  const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false } } });
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

it('surfaces the platform error of a missing collection', async () => {
  renderWith('no-such-collection');
  expect((await screen.findByRole('alert')).textContent).toBe(
    'Collection with slug "no-such-collection" not found',
  );
});
