// @vitest-environment jsdom
/**
 * Secrets in the React bindings, audit 6: a silent login that failed rejected with a
 * `MemberSessionError` whose enumerable `result` carried the platform's `sessionToken` (a credential
 * for the member's tokens), so an error logged or reported showed it; and the identity hooks'
 * variables (the password, the code) stayed in the query client for five minutes after the form
 * had gone.
 */
import { inspect } from 'node:util';
import { startTestEmulator, type TestEmulator } from '@shopkit/emulator/testing';
import { createClient, identity, OAuthStrategy } from '@shopkit/sdk';
import { act, renderHook } from '@testing-library/react';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { providers } from '../test/providers.tsx';
import { MemberSessionError, useLogin } from './index.ts';

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(() => emu?.stop());

it('does not put the session token into the error a failed silent login rejects with', async () => {
  const client = createClient({ baseUrl: emu.url, auth: OAuthStrategy({ clientId: emu.demo.clientId }) });
  const email = 'secret-audit@example.com';
  const password = 'long enough pw';
  await identity.register(client, { email, password });
  const { wrapper } = providers(client);
  const { result } = renderHook(() => useLogin({ silentLoginTimeoutMs: 200 }), { wrapper });
  const error = await act(() =>
    result.current.mutateAsync({ email, password }).then(
      () => undefined,
      (e: unknown) => e,
    ),
  );
  expect(error).toBeInstanceOf(MemberSessionError);
  const token = (error as MemberSessionError).result.data?.sessionToken;
  expect(token).toBeTruthy();
  // What an error reporter or `console.error(error)` writes out.
  const logged = inspect(error, { depth: 5 }) + JSON.stringify(error);
  expect(logged).not.toContain(token);
});

it('does not keep the password in the query client after the login form has gone', async () => {
  const client = createClient({ baseUrl: emu.url, auth: OAuthStrategy({ clientId: emu.demo.clientId }) });
  const { qc, wrapper } = providers(client);
  const password = 'wrong password 123';
  const form = renderHook(() => useLogin(), { wrapper });
  await act(() => form.result.current.mutateAsync({ email: 'nobody-audit@example.com', password }));
  form.unmount(); // the login page is left
  await new Promise((r) => setTimeout(r, 100));
  const held = qc
    .getMutationCache()
    .getAll()
    .map((m) => JSON.stringify(m.state.variables));
  expect(held.join(' ')).not.toContain(password);
});
