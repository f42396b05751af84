/**
 * The two refresh-token modes over raw HTTP. By default refresh tokens rotate with reuse detection
 * (checklist 43, also in the SDK's security and auth contract tests), with a grace window in which
 * the same renewal sent twice at once gets one answer. With the setting
 * `rotateRefreshTokens: false` the emulator serves the platform SDK's way (wire §6): it resends its
 * first refresh token on every renewal, so the same token must keep working, while revocation,
 * idle expiry and the family's absolute expiry (checklist 44) still end it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REUSE_GRACE_MS } from '../src/domains/platform/index.ts';
import { startTestEmulator, type TestEmulator, testBackends } from '../src/testing.ts';
import { jsonCalls } from './http.ts';

const DAY = 24 * 3600 * 1000;

describe.each(testBackends())('refresh tokens without rotation (%s)', (backend) => {
  let emu: TestEmulator;
  let clock = Date.parse('2026-01-01T00:00:00Z');
  beforeAll(async () => {
    emu = await startTestEmulator(backend, {
      now: () => new Date(clock),
      config: { identity: { rotateRefreshTokens: false } },
    });
  });
  afterAll(() => emu?.stop());
  const { call } = jsonCalls(() => emu);
  const grant = (body: object) => call('POST', '/oauth2/token', { clientId: emu.demo.clientId, ...body });
  const refresh = (refreshToken: string) => grant({ grantType: 'refresh_token', refreshToken });
  const active = async (token: string) => (await call('POST', '/oauth2/token-info', { token })).body.active;

  it('answers the same refresh token, which keeps working, each time with a fresh access token', async () => {
    const first = (await grant({ grantType: 'anonymous' })).body;
    const seen = new Set([first.access_token]);
    for (let i = 0; i < 3; i++) {
      const next = await refresh(first.refresh_token);
      expect(next.status).toBe(200);
      expect(next.body.refresh_token).toBe(first.refresh_token);
      expect(seen.has(next.body.access_token)).toBe(false);
      seen.add(next.body.access_token);
      expect(await active(next.body.access_token)).toBe(true);
    }
  });

  it('still ends on revocation, after the idle window and at the absolute expiry', async () => {
    const revoked = (await grant({ grantType: 'anonymous' })).body;
    expect((await call('POST', '/oauth2/revoke', { token: revoked.refresh_token })).status).toBe(200);
    expect((await refresh(revoked.refresh_token)).status).toBe(400);

    // In use every 10 days: the idle window (14 days) starts again with each refresh...
    const used = (await grant({ grantType: 'anonymous' })).body;
    clock += 10 * DAY;
    expect((await refresh(used.refresh_token)).status).toBe(200);
    clock += 10 * DAY;
    expect((await refresh(used.refresh_token)).status).toBe(200);
    // ...but the family still ends 30 days after its first grant.
    clock += 11 * DAY;
    const late = await refresh(used.refresh_token);
    expect(late.status).toBe(400);
    expect(late.body.details.applicationError.code).toBe('invalid_grant');

    // Unused for longer than the idle window: refused.
    const idle = (await grant({ grantType: 'anonymous' })).body;
    clock += 15 * DAY;
    expect((await refresh(idle.refresh_token)).status).toBe(400);
  });
});

describe.each(testBackends())('refresh tokens by default (%s)', (backend) => {
  let emu: TestEmulator;
  let clock = Date.parse('2026-01-01T00:00:00Z');
  beforeAll(async () => {
    emu = await startTestEmulator(backend, { now: () => new Date(clock) });
  });
  afterAll(() => emu?.stop());
  const { call } = jsonCalls(() => emu);
  const grant = (body: object) => call('POST', '/oauth2/token', { clientId: emu.demo.clientId, ...body });
  const refresh = (refreshToken: string) => grant({ grantType: 'refresh_token', refreshToken });
  const active = async (token: string) => (await call('POST', '/oauth2/token-info', { token })).body.active;

  it('rotate: a new refresh token each time, and the spent one is refused (checklist 43)', async () => {
    const first = (await grant({ grantType: 'anonymous' })).body;
    const next = (await refresh(first.refresh_token)).body;
    expect(next.refresh_token).not.toBe(first.refresh_token);
    // Its successor used: the spent one sent again is a reuse, which ends the whole family.
    const third = (await refresh(next.refresh_token)).body;
    const reused = await refresh(first.refresh_token);
    expect(reused.status).toBe(400);
    expect(reused.body.details.applicationError).toMatchObject({ code: 'invalid_grant' });
    expect((await refresh(third.refresh_token)).status).toBe(400);
    expect(await active(third.access_token)).toBe(false);
  });

  it('answer the same renewal sent twice at once alike, within the grace window and while the new token is unused', async () => {
    const first = (await grant({ grantType: 'anonymous' })).body;
    // Two server renders of one shopper, each with the refresh token of the same cookie.
    const [a, b] = await Promise.all([refresh(first.refresh_token), refresh(first.refresh_token)]);
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(b.body).toEqual(a.body);
    expect(await active(a.body.access_token)).toBe(true);
    // Sent again later in the window: the same answer still (its token is still unused).
    clock += REUSE_GRACE_MS - 1000;
    expect((await refresh(first.refresh_token)).body).toEqual(a.body);
    const next = (await refresh(a.body.refresh_token)).body;
    expect(next.refresh_token).not.toBe(a.body.refresh_token);
    expect(await active(next.access_token)).toBe(true);

    // Past the window, the spent token is a reuse: the family ends.
    const late = (await grant({ grantType: 'anonymous' })).body;
    const renewed = (await refresh(late.refresh_token)).body;
    clock += REUSE_GRACE_MS;
    expect((await refresh(late.refresh_token)).status).toBe(400);
    expect((await refresh(renewed.refresh_token)).status).toBe(400);
    expect(await active(renewed.access_token)).toBe(false);
  });

  it('keep no usable token in storage for the grace answer: sealed with a key from the spent token', async () => {
    const first = (await grant({ grantType: 'anonymous' })).body;
    const next = (await refresh(first.refresh_token)).body;
    const stored = await emu.emu.db.query<{ grace_answer: string }>(
      'SELECT grace_answer FROM refresh_tokens WHERE grace_answer IS NOT NULL',
    );
    expect(stored.length).toBeGreaterThan(0);
    for (const { grace_answer } of stored)
      for (const secret of [next.access_token, next.refresh_token, 'OauthNG.'])
        expect(grace_answer.includes(secret)).toBe(false);
  });

  it('end the session of a logout even within the window', async () => {
    const first = (await grant({ grantType: 'anonymous' })).body;
    const next = (await refresh(first.refresh_token)).body;
    expect((await call('POST', '/oauth2/revoke', { token: next.refresh_token })).status).toBe(200);
    expect((await refresh(first.refresh_token)).status).toBe(400);
  });
});
