/**
 * New members for the hooks' tests, as a trusted server makes them: a sign-on with the demo API key,
 * then member tokens for an external login (from a visitor without a cart).
 */
import type { TestEmulator } from '@shopkit/emulator/testing';
import { createClient, identity, OAuthStrategy } from '@shopkit/sdk';

/** A function that makes a new member of `emu` (`<prefix>-<n>@example.com`) and returns its tokens. */
export function memberMaker(emu: () => TestEmulator, prefix: string) {
  let n = 0;
  return async () => {
    const { url, demo } = emu();
    const server = createClient({ baseUrl: url, auth: OAuthStrategy({ clientId: demo.clientId }) });
    const { identity: who } = await identity.signOn(server, demo.apiKey, {
      email: `${prefix}-${++n}@example.com`,
    });
    return identity.getMemberTokensForExternalLogin(server, who.id, demo.apiKey);
  };
}
