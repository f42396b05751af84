/**
 * Findings of an eighth audit of the identity domain, over raw HTTP: a registration refused
 * because its e-mail was taken left its captcha token unspent, so one "one-time" token answered any
 * number of registrations; with hideAccountExistence, failed logins counted against an address
 * before anyone had registered it were held against the member who then registered it (blocked at
 * once, told to reset a password they had just chosen); the hosted login page said "We sent a new
 * code" when the resend had been refused and nothing was sent. The emulator's clock stands still
 * unless a test moves it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator, testBackends } from '../src/testing.ts';
import { authorizeUrl, formFields, identityCalls, jsonCalls, PASSWORD } from './http.ts';

const SHOP = 'http://shop.test:5173';

describe.each(testBackends())('identity audit 8 (%s)', (backend) => {
  let emu: TestEmulator;
  let clock = Date.now();
  beforeAll(async () => {
    emu = await startTestEmulator(backend, { allowedOrigins: [SHOP], now: () => new Date(clock) });
  });
  afterAll(() => emu?.stop());

  const { call, owner } = jsonCalls(() => emu);
  const { settings, register, login } = identityCalls(() => emu);
  const code = (c: { body: any }) => c.body.details?.applicationError?.code as string | undefined;
  let n = 0;
  const newEmail = () => `audit8-${++n}-${backend}@example.test`;

  it('a registration refused for a taken e-mail spends its captcha token: the token is one-time', async () => {
    await settings({ captchaRequired: true });
    try {
      const captcha = async () =>
        (await owner('POST', '/_api/emulator/v1/captcha-token')).body.token as string;
      const taken = newEmail();
      expect(
        (await register(taken, PASSWORD, { captchaTokens: [{ Recaptcha: await captcha() }] })).status,
      ).toBe(200);
      const token = await captcha();
      const refused = await register(taken, PASSWORD, { captchaTokens: [{ Recaptcha: token }] });
      expect(refused.status).toBe(409);
      expect(code(refused)).toBe('-19995');
      // The same token again, for a taken e-mail or a new one: spent, as a login's is.
      expect(code(await register(taken, PASSWORD, { captchaTokens: [{ Recaptcha: token }] }))).toBe('-19970');
      const fresh = newEmail();
      expect(code(await register(fresh, PASSWORD, { captchaTokens: [{ Recaptcha: token }] }))).toBe('-19970');
      expect(
        await emu.emu.db.query('SELECT 1 FROM members WHERE email_lower = $1', [fresh.toLowerCase()]),
      ).toHaveLength(0);
    } finally {
      await settings({ captchaRequired: false });
    }
  });

  it('with hideAccountExistence, failed logins before an address was registered do not block its new member', async () => {
    await settings({ hideAccountExistence: true });
    try {
      const email = newEmail();
      // Someone guesses at an address no member has: 100 wrong passwords, each after the last lock.
      for (let i = 0; i < 100; i++) {
        clock += 15 * 60 * 1000 + 1000;
        expect((await login(email, 'a wrong password')).status).toBe(400);
      }
      clock += 15 * 60 * 1000 + 1000;
      expect(code(await login(email, 'a wrong password'))).toBe('THROTTLED_FEATURE');
      // Then its owner signs up, with a password of their own, and logs in with it.
      const registered = await register(email);
      expect(registered.status).toBe(200);
      expect(registered.body.state).toBe('SUCCESS');
      const again = await login(email);
      expect(again.status).toBe(200);
      expect(again.body.state).toBe('SUCCESS');
      // The member's own failures still count from there.
      for (let i = 0; i < 5; i++) expect((await login(email, 'a wrong password')).status).toBe(400);
      expect(code(await login(email, 'a wrong password'))).toBe('THROTTLED_FEATURE');
    } finally {
      await settings({ hideAccountExistence: false });
    }
  });

  it('with e-mail verification too, the code clears them, and a registration alone tells no taken address from a new one', async () => {
    await settings({ hideAccountExistence: true, emailVerificationRequired: true });
    try {
      const taken = newEmail();
      expect((await register(taken)).body.state).toBe('REQUIRE_EMAIL_VERIFICATION');
      const fresh = newEmail();
      // Both addresses guessed at until blocked.
      for (let i = 0; i < 100; i++) {
        clock += 15 * 60 * 1000 + 1000;
        expect((await login(taken, 'a wrong password')).status).toBe(400);
        expect((await login(fresh, 'a wrong password')).status).toBe(400);
      }
      // A registration of each answers alike (the taken one is a decoy), and leaves both blocked.
      const decoy = await register(taken, 'another password');
      const created = await register(fresh);
      expect(decoy.body.state).toBe('REQUIRE_EMAIL_VERIFICATION');
      expect(created.body.state).toBe('REQUIRE_EMAIL_VERIFICATION');
      expect(code(await login(taken, 'a wrong password'))).toBe('THROTTLED_FEATURE');
      expect(code(await login(fresh, 'a wrong password'))).toBe('THROTTLED_FEATURE');
      // The new member's code, from their mailbox, proves the address: they log in from then on.
      const mail = (await call('GET', `/_api/emulator/v1/mailbox?to=${encodeURIComponent(fresh)}`)).body
        .messages[0];
      const verified = await call('POST', '/_api/iam/verification/v1/auth/verify', {
        stateToken: created.body.stateToken,
        code: mail.code,
      });
      expect(verified.body.state).toBe('SUCCESS');
      const again = await login(fresh);
      expect(again.status).toBe(200);
      expect(again.body.state).toBe('SUCCESS');
    } finally {
      await settings({ hideAccountExistence: false, emailVerificationRequired: false });
    }
  });

  it('the hosted login page says when a new code was refused, instead of that one was sent', async () => {
    await settings({ emailVerificationRequired: true });
    try {
      const email = newEmail();
      expect((await register(email)).body.state).toBe('REQUIRE_EMAIL_VERIFICATION');
      const page = await fetch(authorizeUrl(emu, `${SHOP}/callback`, { response_mode: 'query' }));
      expect(page.status).toBe(200);
      const post = (fields: Record<string, string>) =>
        fetch(`${emu.url}/oauth2/authorize/submit`, {
          method: 'POST',
          redirect: 'manual',
          body: new URLSearchParams(fields),
        });
      const verifyPage = await post({
        ...formFields(await page.text()),
        action: 'login',
        email,
        password: PASSWORD,
      });
      const verifyForm = formFields(await verifyPage.text());
      expect(verifyForm.state_token).toBeTruthy();
      const mails = async () =>
        (await call('GET', `/_api/emulator/v1/mailbox?to=${encodeURIComponent(email)}`)).body.messages
          .length as number;
      // Three new codes per state token (checklist 53): each is sent, and the page says so.
      for (let i = 0; i < 3; i++) {
        const before = await mails();
        const sent = await (await post({ ...verifyForm, action: 'resend' })).text();
        expect(sent).toContain('We sent a new code.');
        expect(await mails()).toBe(before + 1);
      }
      // A fourth is refused: nothing is sent, and the page must not say otherwise.
      const before = await mails();
      const refused = await post({ ...verifyForm, action: 'resend' });
      const html = await refused.text();
      expect(await mails()).toBe(before);
      expect(html).not.toContain('We sent a new code.');
      expect(html).toContain('No more codes for this login');
      // The code sent last still works on the page.
      const last = (await call('GET', `/_api/emulator/v1/mailbox?to=${encodeURIComponent(email)}`)).body
        .messages[0].code as string;
      const done = await post({ ...verifyForm, action: 'verify', code: last });
      expect(done.status).toBe(302);
      expect(done.headers.get('location')).toMatch(/^http:\/\/shop\.test:5173\/callback\?code=/);
    } finally {
      await settings({ emailVerificationRequired: false });
    }
  });
});
