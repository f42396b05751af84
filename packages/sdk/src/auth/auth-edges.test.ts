/** Edges of the auth strategies left by last session's audits, against the emulator over HTTP. */
import { testBackends } from '@shopkit/emulator/testing';
import { describe, expect, it } from 'vitest';
import { setupEmulator, visitorClient } from '../../test/contract/setup.ts';
import * as collections from '../modules/collections.ts';

/** A fetch that drops `expires_in` from token answers and counts token requests by grant. */
function noLifetime() {
  const grants: string[] = [];
  const fn: typeof fetch = async (input, init) => {
    const res = await fetch(input, init);
    if (!String(input).endsWith('/oauth2/token')) return res;
    grants.push(JSON.parse(String(init?.body)).grantType);
    const { expires_in: _, ...json } = await res.json();
    return Response.json(json, { status: res.status, headers: res.headers });
  };
  return { fetch: fn, grants };
}

describe.each(testBackends())('OAuth against the emulator (%s)', (backend) => {
  const emu = setupEmulator(backend);

  it('keeps a token given without expires_in until the server refuses it', async () => {
    const f = noLifetime();
    const client = visitorClient(emu, { collections }, { fetch: f.fetch });
    for (let i = 0; i < 3; i++)
      expect((await client.collections.getCollectionBySlug('kitchen')).collection.slug).toBe('kitchen');
    expect(f.grants).toEqual(['anonymous']);
    // The server refuses the stored token (one it never issued): one refresh, then the call goes through.
    const { refreshToken, accessToken } = await client.auth.getTokens();
    await client.auth.setTokens({
      refreshToken,
      accessToken: { ...accessToken, value: 'OauthNG.not-issued' },
    });
    expect((await client.collections.getCollectionBySlug('kitchen')).collection.slug).toBe('kitchen');
    expect(f.grants).toEqual(['anonymous', 'refresh_token']);
    await client.collections.getCollectionBySlug('kitchen');
    expect(f.grants).toEqual(['anonymous', 'refresh_token']);
  });
});
