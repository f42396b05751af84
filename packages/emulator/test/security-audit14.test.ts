/**
 * Findings of a fourteenth audit of the emulator against the security checklist, over raw HTTP
 * on each storage: `/oauth2/revoke` answered 200 to a token given as `Bearer <token>` (the form
 * in which the same token authenticates a call and token-info reads it) and revoked nothing, so a
 * client that passed its Authorization header on took a live token for a revoked one; and the
 * development mailbox's JSON, which carries verification codes and reset links, could be kept by
 * a cache, where its page could not.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator, testBackends } from '../src/testing.ts';
import { identityCalls, jsonCalls } from './http.ts';

describe.each(testBackends())('security audit 14 (%s)', (backend) => {
  let emu: TestEmulator;
  beforeAll(async () => {
    emu = await startTestEmulator(backend);
  });
  afterAll(() => emu?.stop());
  const { call } = jsonCalls(() => emu);
  const { register } = identityCalls(() => emu);

  /** A new visitor's token answer (access and refresh token). */
  const visitor = async () => {
    const res = await call('POST', '/oauth2/token', { clientId: emu.demo.clientId, grantType: 'anonymous' });
    expect(res.status).toBe(200);
    return res.body as { access_token: string; refresh_token: string };
  };
  const refresh = (refreshToken: string) =>
    call('POST', '/oauth2/token', { clientId: emu.demo.clientId, grantType: 'refresh_token', refreshToken });

  describe('revocation of a token given as "Bearer <token>"', () => {
    it('revokes the access token that token-info and the Authorization header take it for', async () => {
      for (const given of [(t: string) => `Bearer ${t}`, (t: string) => ` bearer  ${t} `]) {
        const { access_token } = await visitor();
        const info = await call('POST', '/oauth2/token-info', { token: given(access_token) });
        expect(info.body.active).toBe(true);
        const res = await call('POST', '/oauth2/revoke', { token: given(access_token) });
        expect(res.status).toBe(200);
        expect((await call('POST', '/oauth2/token-info', { token: access_token })).body).toEqual({
          active: false,
          subjectType: 'UNKNOWN',
        });
        const cart = await call('GET', '/ecom/v1/carts/current', undefined, { authorization: access_token });
        expect(cart.status).toBe(401);
      }
    });

    it("ends a member's refresh token family given so, as a form too", async () => {
      const reg = await register(`audit14-revoke-${backend}@example.test`);
      expect(reg.status).toBe(200);
      // The member's tokens, as a trusted server gets them (visitor token and API key).
      const grant = await call(
        'POST',
        '/oauth2/token',
        { grant_type: 'authorized_client', member_id: reg.body.identity.id },
        { authorization: `${(await visitor()).access_token},${emu.demo.apiKey}` },
      );
      expect(grant.status).toBe(200);
      const member = grant.body as { access_token: string; refresh_token: string };
      // JSON with the client named…
      const json = await call('POST', '/oauth2/revoke', {
        token: `Bearer ${member.refresh_token}`,
        client_id: emu.demo.clientId,
      });
      expect(json.status).toBe(200);
      const refused = await refresh(member.refresh_token);
      expect(refused.status).toBe(400);
      expect(refused.body.details.applicationError.code).toBe('invalid_grant');
      const userInfo = await call('GET', '/oauth2/user-info', undefined, {
        authorization: member.access_token,
      });
      expect(userInfo.status).toBe(401);
      // …and an RFC 7009 form.
      const other = await visitor();
      const form = await fetch(`${emu.url}/oauth2/revoke`, {
        method: 'POST',
        body: new URLSearchParams({
          token: `Bearer ${other.refresh_token}`,
          token_type_hint: 'refresh_token',
        }),
      });
      expect(form.status).toBe(200);
      expect((await refresh(other.refresh_token)).status).toBe(400);
      // A token of another client than the one named is still left alone.
      const kept = await visitor();
      const named = await call('POST', '/oauth2/revoke', {
        token: `Bearer ${kept.refresh_token}`,
        clientId: 'other',
      });
      expect(named.status).toBe(200);
      expect((await refresh(kept.refresh_token)).status).toBe(200);
    });
  });

  describe('the development mailbox', () => {
    it('answers its mails, with their codes and reset links, as not cacheable', async () => {
      const email = `audit14-mail-${backend}@example.test`;
      await register(email);
      await call('POST', '/_api/iam/recovery/v1/send-email', { email });
      const res = await call('GET', `/_api/emulator/v1/mailbox?to=${encodeURIComponent(email)}`);
      expect(res.status).toBe(200);
      expect(res.body.messages[0].link).toContain('/reset-password?token=');
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(res.headers.get('pragma')).toBe('no-cache');
    });
  });
});
