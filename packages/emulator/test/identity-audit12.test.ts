/**
 * Findings of a twelfth audit of the identity domain, over raw HTTP: a login waiting for its
 * e-mail code, begun before a password reset (with the old password), could still be finished with
 * that code after the reset; and one begun before the owner asked for a reset finished with a
 * session, where a password login answers -19973. The emulator's clock stands still.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator, testBackends } from '../src/testing.ts';
import { identityCalls, jsonCalls } from './http.ts';

const SHOP = 'http://shop.test:5173';

describe.each(testBackends())('identity audit 12 (%s)', (backend) => {
  let emu: TestEmulator;
  const clock = Date.now();
  beforeAll(async () => {
    emu = await startTestEmulator(backend, { allowedOrigins: [SHOP], now: () => new Date(clock) });
  });
  afterAll(() => emu?.stop());

  const { call, owner } = jsonCalls(() => emu);
  const { settings, register, login, lastCode } = identityCalls(() => emu);
  let n = 0;
  const newEmail = () => `audit12-${++n}-${backend}@example.test`;
  /** The token of the newest reset link mailed to `email`. */
  const lastResetToken = async (email: string) => {
    const mail = (await call('GET', `/_api/emulator/v1/mailbox?to=${encodeURIComponent(email)}`)).body
      .messages[0];
    return new URL(mail.link as string).searchParams.get('token')!;
  };

  /** A member waiting for verification, logged in with its password: the state token and its code. */
  const pendingLogin = async () => {
    const email = newEmail();
    await settings({ emailVerificationRequired: true });
    try {
      const registered = await register(email);
      expect(registered.body.state).toBe('REQUIRE_EMAIL_VERIFICATION');
      const started = await login(email);
      expect(started.body.state).toBe('REQUIRE_EMAIL_VERIFICATION');
      return {
        email,
        memberId: registered.body.identity.id as string,
        stateToken: started.body.stateToken as string,
        code: await lastCode(email),
      };
    } finally {
      await settings({ emailVerificationRequired: false });
    }
  };

  describe('a password reset, done or asked for, comes before a login waiting for its e-mail code', () => {
    const verify = (stateToken: string, code: string) =>
      call('POST', '/_api/iam/verification/v1/auth/verify', { stateToken, code });

    it('the code of a login begun before a reset no longer logs in', async () => {
      const { email, stateToken, code } = await pendingLogin();
      expect((await call('POST', '/_api/iam/recovery/v1/send-email', { email })).status).toBe(200);
      const reset = await call('POST', '/_api/iam/recovery/v1/recover', {
        recoveryToken: await lastResetToken(email),
        password: 'the password after the reset',
      });
      expect(reset.status).toBe(200);
      expect(reset.body.state).toBe('SUCCESS');
      const late = await verify(stateToken, code);
      expect(late.status).toBe(400);
      expect(late.body.details.applicationError.code).toBe('VERIFICATION_FAILED');
      expect(late.body.sessionToken).toBeUndefined();
      // The new password logs in.
      expect((await login(email, 'the password after the reset')).body.state).toBe('SUCCESS');
    });

    it('a code of a login with no reset in between still logs in (guard)', async () => {
      const { email, stateToken, code } = await pendingLogin();
      const done = await verify(stateToken, code);
      expect(done.status).toBe(200);
      expect(done.body.state).toBe('SUCCESS');
      expect(done.body.sessionToken).toMatch(/^JWS\./);
      expect((await login(email)).body.state).toBe('SUCCESS');
    });

    it('a reset the owner asks for while the code is on its way comes first, as at login', async () => {
      const { email, memberId, stateToken, code } = await pendingLogin();
      const asked = await owner('POST', `/_api/emulator/v1/members/${memberId}/require-password-reset`);
      expect(asked.status).toBe(200);
      const late = await verify(stateToken, code);
      expect(late.status).toBe(400);
      expect(late.body.details.applicationError.code).toBe('-19973');
      expect(late.body.sessionToken).toBeUndefined();
      // The way out is a reset, which then logs in.
      expect((await call('POST', '/_api/iam/recovery/v1/send-email', { email })).status).toBe(200);
      const reset = await call('POST', '/_api/iam/recovery/v1/recover', {
        recoveryToken: await lastResetToken(email),
        password: 'the password after the reset',
      });
      expect(reset.body.state).toBe('SUCCESS');
      expect(reset.body.sessionToken).toMatch(/^JWS\./);
    });
  });
});
