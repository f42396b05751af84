/**
 * The two refresh-token modes over raw HTTP. By default refresh tokens rotate with reuse detection
 * (checklist 43: covered in the SDK's security and auth contract tests). With the setting
 * `rotateRefreshTokens: false` the emulator serves the platform SDK's way (wire §6): it resends its
 * first refresh token on every renewal, so the same token must keep working, while revocation,
 * idle expiry and the family's absolute expiry (checklist 44) still end it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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

describe('refresh tokens by default', () => {
  let emu: TestEmulator;
  beforeAll(async () => {
    emu = await startTestEmulator('pglite');
  });
  afterAll(() => emu?.stop());
  const { call } = jsonCalls(() => emu);

  it('rotate: a new refresh token each time, and the spent one is refused (checklist 43)', async () => {
    const grant = (body: object) => call('POST', '/oauth2/token', { clientId: emu.demo.clientId, ...body });
    const first = (await grant({ grantType: 'anonymous' })).body;
    const next = (await grant({ grantType: 'refresh_token', refreshToken: first.refresh_token })).body;
    expect(next.refresh_token).not.toBe(first.refresh_token);
    expect((await grant({ grantType: 'refresh_token', refreshToken: first.refresh_token })).status).toBe(400);
  });
});
