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
    expect(err.name).toBe('SystemError');
  });
});
