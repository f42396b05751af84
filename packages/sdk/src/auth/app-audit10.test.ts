/** The app install code exchange and the client's `onError`, found by the tenth audit: failed before its fix. */
import { describe, expect, it, vi } from 'vitest';
import { createClient } from '../client.ts';
import { ShopkitError } from '../http/errors.ts';
import { exchangeAppInstallCode } from './app.ts';

describe('exchangeAppInstallCode’s failures', () => {
  // "onError: called with every failure before it is thrown" (README, client options): the install
  // code exchange, a token request through the client's transport, threw without telling it.
  it.each([
    ['a refused code', () => Response.json({ message: 'bad code' }, { status: 400 })],
    ['an answer without a refresh token', () => Response.json({ access_token: 'a' })],
    ['no answer', () => Promise.reject(new TypeError('fetch failed'))],
  ])('(%s) go to onError, then are thrown', async (_, answer) => {
    const onError = vi.fn();
    const client = createClient({
      baseUrl: 'http://h',
      onError,
      retry: { attempts: 1 },
      fetch: (async () => answer()) as unknown as typeof fetch,
    });
    const err = await exchangeAppInstallCode(client, {
      appId: 'a',
      appSecret: 'APPSECRET.s',
      code: 'C',
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ShopkitError);
    expect(onError).toHaveBeenCalledTimes(1);
    expect(onError).toHaveBeenCalledWith(err, { method: 'POST', path: '/oauth/access' });
  });
});
