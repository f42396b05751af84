import { describe, expect, it, vi } from 'vitest';
import { createClient } from '../client.ts';
import { ShopkitError } from '../http/errors.ts';
import { OAuthStrategy } from './oauth.ts';

describe('a token endpoint answering JSON that is no object', () => {
  it.each([
    ['null', 200],
    ['null', 400],
  ])('(%s, status %s) fails with `something went wrong`, never a TypeError', async (body, status) => {
    const onError = vi.fn();
    const auth = OAuthStrategy({ clientId: 'c' });
    createClient({
      baseUrl: 'http://h',
      auth,
      onError,
      retry: { attempts: 1 },
      fetch: async () => new Response(body, { status }),
    });
    const err = await auth.generateVisitorTokens().catch((e) => e);
    expect(err).toBeInstanceOf(ShopkitError);
    expect(err).toMatchObject({ message: 'something went wrong', status, code: 'TOKEN_REQUEST_FAILED' });
    expect(onError.mock.calls[0]?.[0]).toBe(err);
  });
});
