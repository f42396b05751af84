/**
 * Findings of a second audit of the authorization server, over raw HTTP: a replayed app install
 * code revoked the refresh token it gave but left the access tokens it (and that refresh token)
 * produced working (checklist 36); a redirect URI whose query already named a parameter of the
 * authorization response (`code`, `state`, `error`, `error_description`) was accepted, and the
 * answer then carried that parameter twice, the caller's value first (RFC 6749 §3.1).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator, testBackends } from '../src/testing.ts';
import { authorizeUrl, installedApp, jsonCalls } from './http.ts';

const SHOP = 'http://shop.test:5173';
const APP_URL = 'https://app.example.test/installed';

describe.each(testBackends())('OAuth audit 2 (%s)', (backend) => {
  let emu: TestEmulator;
  beforeAll(async () => {
    emu = await startTestEmulator(backend, { allowedOrigins: [SHOP] });
  });
  afterAll(() => emu?.stop());
  const { call } = jsonCalls(() => emu);

  describe('checklist 36: a replayed app install code revokes what it produced', () => {
    const active = async (token: string) =>
      (await call('POST', '/oauth2/token-info', { token })).body.active as boolean;

    it('the access tokens of the code and of its refresh token stop working; other app tokens do not', async () => {
      const app = await installedApp(emu, APP_URL);
      const creds = { client_id: app.appId, client_secret: app.appSecret };
      const byCode = { grant_type: 'authorization_code', code: app.code, ...creds };
      const first = await call('POST', '/oauth/access', byCode);
      expect(first.status).toBe(200);
      const renewed = await call('POST', '/oauth/access', {
        grant_type: 'refresh_token',
        refresh_token: first.body.refresh_token,
        ...creds,
      });
      expect(renewed.status).toBe(200);
      const own = await call('POST', '/oauth2/token', {
        grant_type: 'client_credentials',
        client_id: app.appId,
        client_secret: app.appSecret,
      });
      expect(own.status).toBe(200);
      expect(await active(first.body.access_token)).toBe(true);

      const replay = await call('POST', '/oauth/access', byCode);
      expect(replay.status).toBe(400);
      expect(replay.body.details.applicationError.code).toBe('invalid_grant');
      expect(await active(first.body.access_token)).toBe(false);
      expect(await active(renewed.body.access_token)).toBe(false);
      // A token the app got with its secret alone was not produced by the code.
      expect(await active(own.body.access_token)).toBe(true);
      // An API call with the code's token is refused as unauthenticated now.
      const settings = await call('GET', '/_api/emulator/v1/settings', undefined, {
        authorization: first.body.access_token,
      });
      expect(settings.status).toBe(401);
    });
  });

  describe('RFC 6749 §3.1: the authorization response names each parameter once', () => {
    it.each([
      `${SHOP}/cb?code=planted`,
      `${SHOP}/cb?state=planted`,
      `${SHOP}/cb?x=1&error=access_denied`,
      `${SHOP}/cb?error_description=planted`,
      `${SHOP}/cb?planted=1&code`,
    ])('a redirect URI whose query names one (%s) gets an error page, no redirect', async (uri) => {
      for (const prompt of ['none', 'login']) {
        const res = await fetch(authorizeUrl(emu, uri, { prompt }), { redirect: 'manual' });
        expect(res.status, prompt).toBe(400);
        expect(res.headers.get('location'), prompt).toBeNull();
        expect(await res.text(), prompt).not.toContain('planted');
      }
    });

    it('another query is kept, and the answer names state and error once each', async () => {
      const res = await fetch(authorizeUrl(emu, `${SHOP}/cb?from=cart&codes=1`, { prompt: 'none' }), {
        redirect: 'manual',
      });
      expect(res.status).toBe(302);
      const back = new URL(res.headers.get('location')!);
      expect(back.origin + back.pathname).toBe(`${SHOP}/cb`);
      expect(back.searchParams.get('from')).toBe('cart');
      expect(back.searchParams.get('codes')).toBe('1');
      expect(back.searchParams.getAll('state')).toEqual(['st']);
      expect(back.searchParams.getAll('error')).toEqual(['login_required']);
    });
  });
});
