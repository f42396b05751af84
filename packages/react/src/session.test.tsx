// @vitest-environment jsdom
import { startTestEmulator, type TestEmulator } from '@shopkit/emulator/testing';
import { createClient, identity, OAuthStrategy, webStorage } from '@shopkit/sdk';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, renderHook, waitFor } from '@testing-library/react';
import type { ReactNode } from 'react';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { MemberSessionError, ShopkitProvider, useMemberSession, useVerifyEmail } from './index.ts';

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(() => emu?.stop());

function setup(storage = webStorage(localStorage, emu.demo.clientId)) {
  const client = createClient({
    baseUrl: emu.url,
    auth: OAuthStrategy({ clientId: emu.demo.clientId, storage }),
  });
  const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  const wrapper = ({ children }: { children: ReactNode }) => (
    <QueryClientProvider client={queryClient}>
      <ShopkitProvider client={client}>{children}</ShopkitProvider>
    </QueryClientProvider>
  );
  return { client, wrapper };
}

it('follows logins and logouts that another tab writes to the shared token storage', async () => {
  localStorage.clear();
  const { wrapper } = setup();
  const { result } = renderHook(() => useMemberSession(), { wrapper });
  await waitFor(() => expect(result.current.role).toBe('none'));

  // Another tab stores member tokens: this tab hears only the browser's `storage` event.
  const key = `shopkit:${emu.demo.clientId}:tokens`;
  const member = {
    accessToken: { value: 'access', expiresAt: Math.floor(Date.now() / 1000) + 3600 },
    refreshToken: { value: 'refresh', role: 'member' },
  };
  localStorage.setItem(key, JSON.stringify(member));
  act(() => {
    dispatchEvent(new StorageEvent('storage', { key, newValue: JSON.stringify(member) }));
  });
  await waitFor(() => expect(result.current).toMatchObject({ role: 'member', member: true }));

  // …and logs out.
  localStorage.removeItem(key);
  act(() => {
    dispatchEvent(new StorageEvent('storage', { key, newValue: null }));
  });
  await waitFor(() => expect(result.current).toMatchObject({ role: 'none', member: false }));
  localStorage.clear();
});

it('verifies with a state token after a reload, and reports a session that could not start', async () => {
  await fetch(`${emu.url}/_api/emulator/v1/settings`, {
    method: 'POST',
    headers: { authorization: emu.demo.apiKey, 'content-type': 'application/json' },
    body: JSON.stringify({ emailVerificationRequired: true }),
  });
  const email = 'reloaded@example.com';
  const before = setup();
  const registered = await identity.register(before.client, { email, password: 'long enough pw' });
  expect(registered.loginState).toBe('EMAIL_VERIFICATION_REQUIRED');
  const stateToken = registered.data!.stateToken!;
  const mail = (await (await fetch(`${emu.url}/_api/emulator/v1/mailbox?to=${email}`)).json()) as {
    messages: { code?: string }[];
  };
  const code = mail.messages.find((m) => m.code)!.code!;

  // A new client: the SDK's in-memory verification state is gone, as after a reload.
  const after = setup();
  const { result } = renderHook(() => useVerifyEmail({ silentLoginTimeoutMs: 200 }), {
    wrapper: after.wrapper,
  });
  const wrong = await act(() => result.current.mutateAsync({ code: '000000', stateToken }));
  expect(wrong).toMatchObject({ loginState: 'FAILURE', errorCode: 'VERIFICATION_FAILED' });

  // Right code: the platform says SUCCESS; jsdom cannot run the silent-login frame, so the
  // hook rejects with MemberSessionError (after 200 ms, not the SDK's 120 s) carrying SUCCESS.
  const error = await act(() =>
    result.current.mutateAsync({ code, stateToken }).then(
      () => undefined,
      (e: unknown) => e,
    ),
  );
  expect(error).toBeInstanceOf(MemberSessionError);
  expect((error as MemberSessionError).result.loginState).toBe('SUCCESS');
  expect((error as MemberSessionError).result.data?.sessionToken).toBeTruthy();
});
