/**
 * The eleventh audit's auth findings against the emulator over HTTP (each failed before its fix):
 * an explicit logout of a member whose refresh the platform refuses fetches no visitor token.
 */
import { testBackends } from '@shopkit/emulator/testing';
import { describe, expect, it } from 'vitest';
import { identity, LoginState, type Tokens } from '../src/index.ts';
import { setupEmulator, visitorClient } from './contract/setup.ts';

describe.each(testBackends())('auth audit 11 (%s)', (backend) => {
  const emu = setupEmulator(backend);

  it('a logout of a member whose session the platform ended fetches no visitor token', async () => {
    const signer = visitorClient(emu, { identity });
    const registered = await signer.identity.register({
      email: `logout-${backend}@example.test`,
      password: 'long enough pw',
    });
    expect(registered.loginState).toBe(LoginState.SUCCESS);
    const tokens = await signer.identity.getMemberTokensForExternalLogin(
      registered.data!.identity!.id,
      emu.demo.apiKey,
    );
    // A password change ends every session of the member: the refresh token is refused from now on.
    await visitorClient(emu, { identity }, { tokens }).identity.changePassword('another long password');
    const grants: string[] = [];
    const stale: Tokens = { ...tokens, accessToken: { value: '', expiresAt: 0 } };
    const client = visitorClient(
      emu,
      { identity },
      {
        tokens: stale,
        fetch: async (input, init) => {
          if (String(input).endsWith('/oauth2/token')) grants.push(JSON.parse(String(init?.body)).grantType);
          return fetch(input, init);
        },
      },
    );
    const out = await client.identity.logout('https://shop.test/bye');
    expect(grants).toEqual(['refresh_token']);
    expect(out.logoutUrl).toBeUndefined();
    expect((await client.auth.getTokens()).refreshToken.role).toBe('none');
  });
});
