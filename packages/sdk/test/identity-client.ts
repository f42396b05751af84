/** A client for the identity module's unit tests: a visitor whose token is good for an hour. */
import { OAuthStrategy } from '../src/auth/oauth.ts';
import { createClient } from '../src/client.ts';
import * as identity from '../src/modules/identity.ts';

/** A client bound to `identity`, as a visitor with a valid token, whose every request goes to `fetch`. */
export function identityClient(fetch: typeof globalThis.fetch) {
  return createClient({
    baseUrl: 'https://api.test',
    auth: OAuthStrategy({
      clientId: 'client-1',
      tokens: {
        accessToken: { value: 'visitor', expiresAt: Math.floor(Date.now() / 1000) + 3600 },
        refreshToken: { value: 'r', role: 'visitor' },
      },
    }),
    fetch,
    modules: { identity },
  });
}
