/** The OAuth strategy's token lifetimes, found by the tenth audit: each test failed before its fix. */
import { describe, expect, it } from 'vitest';
import { createClient } from '../client.ts';
import { call } from '../http/op.ts';
import { OAuthStrategy } from './oauth.ts';

describe('a token answered with an expires_in that is no number of seconds', () => {
  // README: "A token answered without `expires_in` (or with one that is not a number) is kept until
  // a call is refused with 401". `""` read as 0 seconds: the token was expired on arrival, and every
  // call renewed it first (a refresh request per call). 0 is read the same way, as the app
  // strategy reads it.
  it.each(['', 0])('(%j) is kept until a call is refused: three calls, one grant', async (expiresIn) => {
    const grants: string[] = [];
    const client = createClient({
      baseUrl: 'http://h',
      auth: OAuthStrategy({ clientId: 'c' }),
      fetch: async (input, init) => {
        if (!String(input).endsWith('/oauth2/token')) return Response.json({});
        grants.push(JSON.parse(String(init?.body)).grantType);
        return Response.json({ access_token: 'a', refresh_token: 'r', expires_in: expiresIn });
      },
    });
    for (let i = 0; i < 3; i++) await call(client, { method: 'POST', path: '/things/v1/x' }, []);
    expect(grants).toEqual(['anonymous']);
  });
});
