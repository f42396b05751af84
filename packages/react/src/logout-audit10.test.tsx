// @vitest-environment jsdom
/**
 * React bindings, audit 10. A member logs out in this tab, then logs in again in another tab of
 * the shop (shared token storage): this tab hears of the login only through the browser's
 * `storage` event, which the provider follows. `useLogout` was reset only by this tab's own token
 * events, so its state stayed "done" (`isSuccess`) and the next logout asked here was answered with
 * the old one's outcome: nothing sent, the new member's tokens kept.
 */
import { startTestEmulator, type TestEmulator } from '@shopkit/emulator/testing';
import { createClient, OAuthStrategy, webStorage } from '@shopkit/sdk';
import { act, renderHook, waitFor } from '@testing-library/react';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { memberMaker } from '../test/members.ts';
import { providers } from '../test/providers.tsx';
import { useLogout, useMemberSession } from './index.ts';

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(() => emu?.stop());
const newMember = memberMaker(() => emu, 'logoutaudit');

it("starts a new logout after this tab's logout and another tab's login", async () => {
  localStorage.clear();
  const storage = () => webStorage(localStorage, emu.demo.clientId);
  const tab = createClient({
    baseUrl: emu.url,
    auth: OAuthStrategy({ clientId: emu.demo.clientId, storage: storage() }),
  });
  const otherTab = createClient({
    baseUrl: emu.url,
    auth: OAuthStrategy({ clientId: emu.demo.clientId, storage: storage() }),
  });
  await tab.auth.setTokens(await newMember());
  const visited: string[] = [];
  const { wrapper } = providers(tab);
  const { result } = renderHook(
    () => ({ session: useMemberSession(), logout: useLogout((url) => visited.push(url)) }),
    { wrapper },
  );
  await waitFor(() => expect(result.current.session.role).toBe('member'));
  const returnUrl = 'http://127.0.0.1/';
  await act(() => result.current.logout.mutateAsync({ returnUrl }));
  expect(result.current.logout.isSuccess).toBe(true);
  expect(visited).toHaveLength(1);
  await waitFor(() => expect(result.current.session.role).not.toBe('member'));

  // The other tab logs another member in; this tab hears only the storage event.
  await otherTab.auth.setTokens(await newMember());
  act(() => void dispatchEvent(new StorageEvent('storage')));
  await waitFor(() => expect(result.current.session.role).toBe('member'));
  // A new session: the logout done before is not this one's.
  await waitFor(() => expect(result.current.logout.isIdle).toBe(true));

  // Logging out now logs this member out: the tokens go and the browser is sent on again.
  await act(() => result.current.logout.mutateAsync({ returnUrl }));
  expect(visited).toHaveLength(2);
  expect((await tab.auth.getTokens())?.refreshToken?.role).not.toBe('member');
  localStorage.clear();
});
