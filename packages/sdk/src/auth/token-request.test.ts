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

describe('a token endpoint answering 200 with an access token that is no string', () => {
  it.each([
    ['a number', '{"access_token":-1,"refresh_token":"r","expires_in":60}'],
    ['an object', '{"access_token":{},"refresh_token":"r","expires_in":60}'],
    ['true', '{"access_token":true,"refresh_token":"r","expires_in":60}'],
  ])('(%s) is refused as an answer without a token', async (_, body) => {
    // The access token went into `Authorization` and a later 401's renewal called `.split` on it: a
    // TypeError deep inside the client, reported as "an unexpected failure".
    const sent: string[] = [];
    const auth = OAuthStrategy({ clientId: 'c' });
    createClient({
      baseUrl: 'http://h',
      auth,
      retry: { attempts: 1 },
      fetch: async (_, init) => {
        sent.push(String(init?.body));
        return new Response(body, { status: 200 });
      },
    });
    const err = await auth.generateVisitorTokens().catch((e) => e);
    expect(err).toMatchObject({ message: 'something went wrong', status: 200, code: 'TOKEN_REQUEST_FAILED' });
    expect(sent).toHaveLength(1);
  });
});
