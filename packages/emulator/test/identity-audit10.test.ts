/**
 * Findings of a tenth audit of the identity domain, over raw HTTP: the hosted login page answered
 * a 500 when the state token it was posted was a verification's that is no login (the id
 * `verification.start` answers), whose right code carries no session token; a prompt=none request
 * with the session token of a login that had ended (a logout, a block) got a code, which only the
 * token endpoint then refused, instead of login_required; answers carrying a credential
 * (`verification.start`'s id, a captcha token, an app's secret, an identity provider's ID token)
 * could be cached; and the reset page of a used, expired or unknown link showed its password form,
 * refusing the password only once it was typed. The emulator's clock stands still unless a test
 * moves it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator, testBackends } from '../src/testing.ts';
import {
  authorizeUrl,
  CHALLENGE,
  formFields,
  identityCalls,
  jsonCalls,
  PASSWORD,
  visitorToken,
} from './http.ts';

const SHOP = 'http://shop.test:5173';

describe.each(testBackends())('identity audit 10 (%s)', (backend) => {
  let emu: TestEmulator;
  let clock = Date.now();
  beforeAll(async () => {
    emu = await startTestEmulator(backend, { allowedOrigins: [SHOP], now: () => new Date(clock) });
  });
  afterAll(() => emu?.stop());

  const { call, owner } = jsonCalls(() => emu);
  const { register, login, lastCode, submit: post } = identityCalls(() => emu);
  let n = 0;
  const newEmail = () => `audit10-${++n}-${backend}@example.test`;
  /** The hosted login form of a new plain authorization request. */
  const loginForm = async () => {
    const page = await fetch(authorizeUrl(emu, `${SHOP}/callback`, { response_mode: 'query' }));
    expect(page.status).toBe(200);
    return formFields(await page.text());
  };

  describe('the hosted login page and a verification that is no login', () => {
    it('a right code of verification.start verifies the address and shows the login form, no 500', async () => {
      const email = newEmail();
      const reg = await register(email);
      expect(reg.body.state).toBe('SUCCESS');
      const started = await owner('POST', '/_api/iam/verification/v1/start', {
        identityId: reg.body.identity.id,
      });
      expect(started.status).toBe(200);
      const form = await loginForm();
      const res = await post({
        redirect_session_id: form.redirect_session_id!,
        action: 'verify',
        state_token: started.body.verificationId,
        code: await lastCode(email),
      });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      const html = await res.text();
      expect(html).toContain('Your e-mail address is verified. Log in to continue.');
      const fields = formFields(html);
      expect(fields).toHaveProperty('email');
      expect(fields).not.toHaveProperty('state_token');
      expect(fields.redirect_session_id).toBe(form.redirect_session_id);
      // The address is verified, and the member logs in on the same page, to a code.
      expect((await login(email)).body.identity.email.isVerified).toBe(true);
      const loggedIn = await post({ ...fields, action: 'login', email, password: PASSWORD });
      expect(loggedIn.status).toBe(302);
      expect(loggedIn.headers.get('location')).toMatch(/^http:\/\/shop\.test:5173\/callback\?code=OAC\./);
    });
  });

  describe('prompt=none with the session token of a login that ended', () => {
    /** A member's session token from a login of a visitor, and the member's id and e-mail. */
    const loggedIn = async () => {
      const email = newEmail();
      const reg = await register(email);
      expect(reg.body.state).toBe('SUCCESS');
      const visitor = await visitorToken(emu);
      const res = await call(
        'POST',
        '/_api/iam/authentication/v2/login',
        { loginId: { email }, password: PASSWORD },
        { authorization: visitor },
      );
      expect(res.body.sessionToken).toBeTruthy();
      return { id: reg.body.identity.id as string, sessionToken: res.body.sessionToken as string, visitor };
    };
    /** Where a prompt=none redirect session with `sessionToken` sends the browser. */
    const silent = async (sessionToken: string, visitor: string) => {
      const rs = await call(
        'POST',
        '/_api/redirects-api/v1/redirect-session',
        {
          auth: {
            authRequest: {
              clientId: emu.demo.clientId,
              responseType: 'code',
              redirectUri: `${SHOP}/callback`,
              scope: 'offline_access',
              state: 'st10',
              responseMode: 'query',
              codeChallenge: CHALLENGE,
              codeChallengeMethod: 'S256',
              sessionToken,
            },
            prompt: 'none',
          },
        },
        { authorization: visitor },
      );
      expect(rs.status).toBe(200);
      const res = await fetch(rs.body.redirectSession.fullUrl, { redirect: 'manual' });
      expect(res.status).toBe(302);
      return new URL(res.headers.get('location')!);
    };
    const expectLoginRequired = (to: URL) => {
      expect(`${to.origin}${to.pathname}`).toBe(`${SHOP}/callback`);
      expect(to.searchParams.get('error')).toBe('login_required');
      expect(to.searchParams.get('state')).toBe('st10');
      expect(to.searchParams.has('code')).toBe(false);
    };

    it('a live login gets a code; after a logout its session token gets login_required', async () => {
      const live = await loggedIn();
      expect((await silent(live.sessionToken, live.visitor)).searchParams.get('code')).toMatch(/^OAC\./);
      const ended = await loggedIn();
      // The member logs out elsewhere (with tokens of a trusted server's) before it is used.
      const tokens = await call(
        'POST',
        '/oauth2/token',
        { grant_type: 'authorized_client', member_id: ended.id },
        { authorization: `${ended.visitor},${emu.demo.apiKey}` },
      );
      expect(tokens.status).toBe(200);
      const out = await call('GET', '/_api/iam/authentication/v1/logout', undefined, {
        authorization: tokens.body.access_token,
      });
      expect(out.status).toBe(200);
      expectLoginRequired(await silent(ended.sessionToken, ended.visitor));
    });

    it("after the owner blocks the member, the member's session token gets login_required", async () => {
      const blocked = await loggedIn();
      expect((await owner('POST', `/_api/emulator/v1/members/${blocked.id}/block`)).status).toBe(200);
      expectLoginRequired(await silent(blocked.sessionToken, blocked.visitor));
    });
  });

  describe('answers that carry a credential are not cacheable (checklist 42)', () => {
    const expectNoStore = (res: { status: number; headers: Headers }, what: string) => {
      expect(res.status, what).toBe(200);
      expect(res.headers.get('cache-control'), what).toBe('no-store');
      expect(res.headers.get('pragma'), what).toBe('no-cache');
    };

    it("verification.start's id, a captcha token, an app's secret and an identity provider's ID token", async () => {
      const reg = await register(newEmail());
      const started = await owner('POST', '/_api/iam/verification/v1/start', {
        identityId: reg.body.identity.id,
      });
      expect(started.body.verificationId).toBeTruthy();
      expectNoStore(started, 'verification.start');
      const captcha = await call('POST', '/_api/emulator/v1/captcha-token');
      expect(captcha.body.token).toBeTruthy();
      expectNoStore(captcha, 'captcha token');
      const app = await owner('POST', '/_api/emulator/v1/apps', { name: 'Audit 10 app' });
      expect(app.body.appSecret).toBeTruthy();
      expectNoStore(app, 'app secret');
      const conn = (await owner('POST', '/_api/emulator/v1/idp-connections', { name: 'Audit 10 ID' })).body
        .idpConnection.id as string;
      const idToken = await owner('POST', `/_api/emulator/v1/idp-connections/${conn}/id-tokens`, {
        email: newEmail(),
      });
      expect(idToken.body.idToken).toBeTruthy();
      expectNoStore(idToken, 'ID token');
    });
  });

  describe('the hosted reset page of a dead link', () => {
    /** A new member's reset link (its path and query, on this emulator). */
    const resetLink = async () => {
      const email = newEmail();
      expect((await register(email)).status).toBe(200);
      expect((await call('POST', '/_api/iam/recovery/v1/send-email', { email })).status).toBe(200);
      const mail = (await call('GET', `/_api/emulator/v1/mailbox?to=${encodeURIComponent(email)}`)).body
        .messages[0];
      const link = new URL(mail.link as string);
      return { email, path: `${emu.url}${link.pathname}${link.search}` };
    };
    const save = (html: string) =>
      fetch(`${emu.url}/reset-password`, {
        method: 'POST',
        headers: { 'sec-fetch-site': 'same-origin' },
        body: new URLSearchParams({ ...formFields(html), password: 'a brand new password' }),
        redirect: 'manual',
      }).then(async (r) => ({ status: r.status, html: await r.text() }));
    /** The dead-link page: says so, and offers no password form. */
    const expectDead = async (res: Response) => {
      expect(res.status).toBe(400);
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      expect(res.headers.get('referrer-policy')).toBe('no-referrer');
      const html = await res.text();
      expect(html).toContain('This reset link is invalid, used or expired.');
      expect(html).not.toContain('name="password"');
      expect(html).not.toContain('name="token"');
    };

    it('a live link shows the form; once used, the same link says it is dead before a password is typed', async () => {
      const { email, path } = await resetLink();
      const page = await fetch(path);
      expect(page.status).toBe(200);
      const html = await page.text();
      expect(formFields(html)).toHaveProperty('token');
      expect(html).toContain('name="password"');
      const saved = await save(html);
      expect(saved.status).toBe(200);
      expect(saved.html).toContain('Your password is changed.');
      expect((await login(email, 'a brand new password')).status).toBe(200);
      await expectDead(await fetch(path));
    });

    it('an expired link and an unknown one say so at once too', async () => {
      const { path } = await resetLink();
      clock += 60 * 60 * 1000 + 1000;
      await expectDead(await fetch(path));
      await expectDead(await fetch(`${emu.url}/reset-password?token=RT.not-a-token`));
      await expectDead(await fetch(`${emu.url}/reset-password`));
    });
  });
});
