// @vitest-environment jsdom
/**
 * The session against an async token storage that answers reads out of order, audit 6: a slow
 * first read (useMemberSession's, or the provider's first effect run under StrictMode, whose
 * cleanup did not drop it) that answered after another tab's login was seen undid it: the member
 * showed as logged out for good (the session query is never refetched), and the cart was dropped.
 */
import { startTestEmulator, type TestEmulator } from '@shopkit/emulator/testing';
import { createClient, OAuthStrategy, type TokenStorage } from '@shopkit/sdk';
import { act, renderHook, waitFor } from '@testing-library/react';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { providers } from '../test/providers.tsx';
import { useMemberSession } from './index.ts';

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(() => emu?.stop());

const member = () => ({
  accessToken: { value: 'access', expiresAt: Math.floor(Date.now() / 1000) + 3600 },
  refreshToken: { value: 'refresh', role: 'member' as const },
});

/** A client whose storage answers its reads after the given delays (then at once), and a wrapper. */
function slowSetup(delays: number[]) {
  const state = { stored: null as ReturnType<typeof member> | null };
  const storage: TokenStorage = {
    getTokens: () => {
      const value = state.stored;
      return new Promise((r) => setTimeout(() => r(value), delays.shift() ?? 0));
    },
    setTokens: () => {},
  };
  const client = createClient({
    baseUrl: emu.url,
    auth: OAuthStrategy({ clientId: emu.demo.clientId, storage }),
  });
  const { wrapper } = providers(client);
  return { state, wrapper };
}

it.each([
  ['useMemberSession’s first read', [300], false],
  ['the first effect run’s read under StrictMode', [0, 300], true],
] as const)(
  'a slow first read (%s) does not undo a newer login seen from another tab',
  async (_, delays, strict) => {
    const { state, wrapper } = slowSetup([...delays]);
    const { result } = renderHook(() => useMemberSession(), { wrapper, reactStrictMode: strict } as never);
    await new Promise((r) => setTimeout(r, 50));
    // Another tab logs in: the storage event makes this tab read the member's tokens (quickly).
    state.stored = member();
    act(() => void dispatchEvent(new StorageEvent('storage')));
    await waitFor(() => expect(result.current.role).toBe('member'));
    // The slow first read, of the storage as it was (empty), answers now.
    await new Promise((r) => setTimeout(r, 400));
    expect(result.current.role).toBe('member');
  },
);
