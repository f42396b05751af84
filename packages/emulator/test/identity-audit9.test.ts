/**
 * Findings of a ninth audit of the identity domain, over raw HTTP: the hosted login page kept
 * showing the e-mail code form for a state token that could no longer verify anything (five wrong
 * codes, or its code expired), so the user typed codes into a form that could never succeed; a
 * redirect session ignored the `prompt` of its `authRequest` (wire §5.2 lists it there) and only
 * read `auth.prompt`; expired captcha tokens (a public endpoint and every hosted login page view
 * make them) and SSO transactions (one per SSO start, which needs no credentials) were never
 * deleted. The emulator's clock stands still unless a test moves it.
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

describe.each(testBackends())('identity audit 9 (%s)', (backend) => {
  let emu: TestEmulator;
  let clock = Date.now();
  beforeAll(async () => {
    emu = await startTestEmulator(backend, { allowedOrigins: [SHOP], now: () => new Date(clock) });
  });
  afterAll(() => emu?.stop());

  const { call, owner } = jsonCalls(() => emu);
  const { settings, register, lastCode, submit: post } = identityCalls(() => emu);
  let n = 0;
  const newEmail = () => `audit9-${++n}-${backend}@example.test`;

  describe('the hosted login page once its state token is dead', () => {
    /** A member waiting for a code on the hosted page: its code form, and the session's login link. */
    async function waitingForCode() {
      const email = newEmail();
      expect((await register(email)).body.state).toBe('REQUIRE_EMAIL_VERIFICATION');
      const page = await fetch(authorizeUrl(emu, `${SHOP}/callback`, { response_mode: 'query' }));
      expect(page.status).toBe(200);
      const loginForm = formFields(await page.text());
      const verifyPage = await post({ ...loginForm, action: 'login', email, password: PASSWORD });
      const verifyForm = formFields(await verifyPage.text());
      expect(verifyForm.state_token).toBeTruthy();
      const again = `/oauth2/authorize?redirect_session_id=${loginForm.redirect_session_id}`;
      return { email, verifyForm, again };
    }
    /** A page that says to log in again, links to the session's login form, and has no code form. */
    async function expectStartAgain(res: Response, again: string) {
      expect(res.status).toBe(200);
      const html = await res.text();
      expect(html).not.toContain('name="state_token"');
      expect(html).not.toContain('name="code"');
      expect(html).toContain('Log in again');
      expect(html).toContain(`href="${again}"`);
      // The link leads back to the login form of the same redirect session.
      const login = await fetch(new URL(again, emu.url));
      expect(login.status).toBe(200);
      const fields = formFields(await login.text());
      expect(fields).toHaveProperty('email');
      expect(fields).not.toHaveProperty('state_token');
      expect(fields.redirect_session_id).toBe(
        new URL(again, emu.url).searchParams.get('redirect_session_id'),
      );
    }

    it('after its fifth wrong code the page offers a new login, not the code form', async () => {
      await settings({ emailVerificationRequired: true });
      try {
        const { email, verifyForm, again } = await waitingForCode();
        const right = await lastCode(email);
        const wrong = right === '000000' ? '111111' : '000000';
        // Four wrong codes: the state token still has a try left, so the form stays.
        for (let i = 0; i < 4; i++) {
          const html = await (await post({ ...verifyForm, action: 'verify', code: wrong })).text();
          expect(html).toContain('The code is wrong or has expired');
          expect(html).toContain('name="state_token"');
        }
        // The fifth ends the state token: no code can verify it any more, the right one included.
        await expectStartAgain(await post({ ...verifyForm, action: 'verify', code: wrong }), again);
        await expectStartAgain(await post({ ...verifyForm, action: 'verify', code: right }), again);
      } finally {
        await settings({ emailVerificationRequired: false });
      }
    });

    it('after its code expired, a code or a resend gets the same offer', async () => {
      await settings({ emailVerificationRequired: true });
      try {
        const { email, verifyForm, again } = await waitingForCode();
        const right = await lastCode(email);
        clock += 10 * 60 * 1000 + 1000;
        await expectStartAgain(await post({ ...verifyForm, action: 'verify', code: right }), again);
        await expectStartAgain(await post({ ...verifyForm, action: 'resend' }), again);
      } finally {
        await settings({ emailVerificationRequired: false });
      }
    });
  });

  describe('prompt in the authRequest of a redirect session', () => {
    const session = async (auth: object) =>
      call(
        'POST',
        '/_api/redirects-api/v1/redirect-session',
        { auth },
        { authorization: await visitorToken(emu) },
      );
    const authRequest = (extra: object = {}) => ({
      clientId: emu.demo.clientId,
      responseType: 'code',
      redirectUri: `${SHOP}/callback`,
      scope: 'offline_access',
      state: 'st9',
      responseMode: 'query',
      codeChallenge: CHALLENGE,
      codeChallengeMethod: 'S256',
      ...extra,
    });

    it('authRequest.prompt none is honoured like auth.prompt none: an answer at once, no login form', async () => {
      // Without a session token: login_required, sent back at once.
      const bare = await session({ authRequest: authRequest({ prompt: 'none' }) });
      expect(bare.status).toBe(200);
      expect(bare.body.redirectSession.urlDetails.searchParams.prompt).toBe('none');
      const refused = await fetch(bare.body.redirectSession.fullUrl, { redirect: 'manual' });
      expect(refused.status).toBe(302);
      expect(refused.headers.get('location')).toMatch(
        /^http:\/\/shop\.test:5173\/callback\?error=login_required&/,
      );
      // With a login's session token: a code, sent back at once.
      const email = newEmail();
      expect((await register(email)).body.state).toBe('SUCCESS');
      const login = await call(
        'POST',
        '/_api/iam/authentication/v2/login',
        { loginId: { email }, password: PASSWORD },
        { authorization: await visitorToken(emu) },
      );
      const sessionToken = login.body.sessionToken as string;
      expect(sessionToken).toBeTruthy();
      const silent = await session({ authRequest: authRequest({ prompt: 'none', sessionToken }) });
      const answered = await fetch(silent.body.redirectSession.fullUrl, { redirect: 'manual' });
      expect(answered.status).toBe(302);
      expect(answered.headers.get('location')).toMatch(/^http:\/\/shop\.test:5173\/callback\?code=OAC\./);
    });

    it('auth.prompt wins when both are sent; an unknown authRequest.prompt is refused as auth.prompt is', async () => {
      const both = await session({ authRequest: authRequest({ prompt: 'none' }), prompt: 'login' });
      expect(both.body.redirectSession.urlDetails.searchParams.prompt).toBe('login');
      const page = await fetch(both.body.redirectSession.fullUrl, { redirect: 'manual' });
      expect(page.status).toBe(200);
      expect(formFields(await page.text())).toHaveProperty('email');
      // Neither: login, as before.
      const neither = await session({ authRequest: authRequest() });
      expect(neither.body.redirectSession.urlDetails.searchParams.prompt).toBe('login');
      for (const auth of [
        { authRequest: authRequest({ prompt: 'bogus' }) },
        { authRequest: authRequest(), prompt: 'bogus' },
      ]) {
        const refused = await session(auth);
        expect(refused.status).toBe(400);
        expect(JSON.stringify(refused.body.details.validationError.fieldViolations)).toContain('prompt');
      }
    });
  });

  describe('expired rows of unauthenticated requests are deleted', () => {
    const expiredRows = async (table: 'captcha_tokens' | 'sso_transactions') =>
      (
        await emu.emu.db.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM ${table} WHERE expires_at <= $1`,
          [new Date(clock)],
        )
      )[0]!.n;

    it('captcha tokens: from the public endpoint and from hosted login page views', async () => {
      await settings({ captchaRequired: true });
      try {
        const captcha = async () =>
          expect((await call('POST', '/_api/emulator/v1/captcha-token')).status).toBe(200);
        const view = async () =>
          expect(
            (await fetch(authorizeUrl(emu, `${SHOP}/callback`, { response_mode: 'query' }))).status,
          ).toBe(200);
        for (let i = 0; i < 3; i++) {
          await captcha();
          await view();
        }
        clock += 10 * 60 * 1000 + 1000;
        expect(await expiredRows('captcha_tokens')).toBeGreaterThanOrEqual(6);
        await captcha();
        expect(await expiredRows('captcha_tokens')).toBe(0);
        // And a page view prunes as well.
        await view();
        await view();
        clock += 10 * 60 * 1000 + 1000;
        expect(await expiredRows('captcha_tokens')).toBeGreaterThanOrEqual(3);
        await view();
        expect(await expiredRows('captcha_tokens')).toBe(0);
        // Live tokens stay, and still work once.
        const token = (await call('POST', '/_api/emulator/v1/captcha-token')).body.token as string;
        await view();
        const registered = await call('POST', '/_api/iam/authentication/v2/register', {
          loginId: { email: newEmail() },
          password: PASSWORD,
          captchaTokens: [{ Recaptcha: token }],
        });
        expect(registered.status).toBe(200);
      } finally {
        await settings({ captchaRequired: false });
      }
    });

    it('SSO transactions: one per SSO start, with no credentials', async () => {
      const conn = (await owner('POST', '/_api/emulator/v1/idp-connections', { name: 'Audit 9 ID' })).body
        .idpConnection.id as string;
      const start = async () => {
        const res = await call(
          'GET',
          `/_api/iam/authentication/v1/sso/login/${encodeURIComponent(emu.emu.siteId)}/${encodeURIComponent(conn)}`,
        );
        expect(res.status).toBe(200);
        expect(res.body.statusCode).toBe(302);
      };
      for (let i = 0; i < 3; i++) await start();
      clock += 10 * 60 * 1000 + 1000;
      expect(await expiredRows('sso_transactions')).toBeGreaterThanOrEqual(3);
      await start();
      expect(await expiredRows('sso_transactions')).toBe(0);
      const [live] = await emu.emu.db.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM sso_transactions WHERE expires_at > $1',
        [new Date(clock)],
      );
      expect(live!.n).toBe(1);
    });
  });
});
