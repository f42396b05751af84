import { describe, expect, it } from 'vitest';
import { createClient } from '../client.ts';
import type { ShopkitError } from '../http/errors.ts';
import { call } from '../http/op.ts';
import { AppStrategy } from './app.ts';
import { OAuthStrategy } from './oauth.ts';

/** A fetch that never answers, until the request's signal aborts it. */
const hanging = ((_input: RequestInfo | URL, init?: RequestInit) =>
  new Promise((_resolve, reject) => {
    const signal = init?.signal;
    if (!signal) return; // no signal: hangs for ever, which is what the test must not see
    signal.addEventListener('abort', () => reject(signal.reason));
  })) as typeof fetch;

describe('token requests', () => {
  it('give up on a token endpoint that never answers, after the client timeout', async () => {
    const client = createClient({
      baseUrl: 'http://h',
      fetch: hanging,
      timeoutMs: 50,
      auth: OAuthStrategy({ clientId: 'c' }),
    });
    const err = (await call(client, { method: 'GET', path: '/things/v1/x' }, []).catch(
      (e) => e,
    )) as ShopkitError;
    expect(err.message).toBe('something went wrong');
    expect(err.code).toBe('NETWORK_ERROR');
  });

  it('of the app strategy give up too', async () => {
    const client = createClient({
      baseUrl: 'http://h',
      fetch: hanging,
      timeoutMs: 50,
      auth: AppStrategy({ appId: 'a', appSecret: 's' }),
    });
    const err = (await call(client, { method: 'GET', path: '/things/v1/x' }, []).catch(
      (e) => e,
    )) as ShopkitError;
    // As the OAuth strategy's: the same token request, the same failure.
    expect(err.message).toBe('something went wrong');
    expect(err.code).toBe('NETWORK_ERROR');
  });
});

describe('a refresh that fails', () => {
  /** A member whose access token has expired, and a token endpoint answering `status`. */
  function member(status: number | 'offline') {
    const grants: string[] = [];
    const tokens = {
      accessToken: { value: 'old-access', expiresAt: 1 },
      refreshToken: { value: 'member-refresh', role: 'member' as const },
    };
    const auth = OAuthStrategy({ clientId: 'c', tokens });
    const client = createClient({
      baseUrl: 'http://h',
      auth,
      fetch: async (input, init) => {
        if (!String(input).endsWith('/oauth2/token')) return new Response('{}');
        grants.push(JSON.parse(String(init?.body)).grantType);
        if (status === 'offline') throw new TypeError('fetch failed');
        return new Response(JSON.stringify({ message: 'no' }), { status });
      },
    });
    const send = () => call(client, { method: 'GET', path: '/things/v1/x' }, []);
    return { auth, grants, send };
  }

  it.each([500, 503, 'offline' as const])(
    'with %s fails the call and keeps the member signed in',
    async (status) => {
      const m = member(status);
      await expect(m.send()).rejects.toMatchObject({ message: 'something went wrong' });
      expect(m.grants).toEqual(['refresh_token']);
      expect((await m.auth.getTokens()).refreshToken).toEqual({ value: 'member-refresh', role: 'member' });
    },
  );

  it('with a refusal (4xx) ends the member session and goes on as a new visitor', async () => {
    const m = member(400);
    const ended: string[] = [];
    m.auth.on('sessionExpired', () => ended.push('expired'));
    await expect(m.send()).rejects.toMatchObject({ message: 'something went wrong' });
    // The anonymous grant is refused too here, so the call fails; the member session is gone.
    expect(m.grants).toEqual(['refresh_token', 'anonymous']);
    expect(ended).toEqual(['expired']);
    expect(await m.auth.loggedIn()).toBe(false);
  });
});
