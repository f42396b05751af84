/**
 * Findings of an eleventh audit of the identity domain, over raw HTTP: a member's password change
 * left a reset link mailed before it working (whoever had the mail could set the password again,
 * the change undone); the reset page of a reset asked for on the hosted login page linked "Back to
 * the site" to the bare redirect URI, which the site saw as an authorization response without a
 * code or a state; a reset page whose link died while it was open took a too-short password to
 * show its form again, for a link no password could use; and the hosted login page's "Forgot
 * password?" with no e-mail typed said a link was sent. The emulator's clock stands still.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator, testBackends } from '../src/testing.ts';
import { authorizeUrl, formFields, identityCalls, jsonCalls, memberAccess, visitorToken } from './http.ts';

const SHOP = 'http://shop.test:5173';

describe.each(testBackends())('identity audit 11 (%s)', (backend) => {
  let emu: TestEmulator;
  const clock = Date.now();
  beforeAll(async () => {
    emu = await startTestEmulator(backend, { allowedOrigins: [SHOP], now: () => new Date(clock) });
  });
  afterAll(() => emu?.stop());

  const { call } = jsonCalls(() => emu);
  const { register, login, submit } = identityCalls(() => emu);
  let n = 0;
  const newEmail = () => `audit11-${++n}-${backend}@example.test`;
  /** The newest mail to `email`'s link, as a URL on this emulator. */
  const lastLink = async (email: string) => {
    const mail = (await call('GET', `/_api/emulator/v1/mailbox?to=${encodeURIComponent(email)}`)).body
      .messages[0];
    const link = new URL(mail.link as string);
    return { path: `${emu.url}${link.pathname}${link.search}`, token: link.searchParams.get('token')! };
  };
  /** Saves `password` on the reset page at `path` (its form as a browser posts it). */
  const saveOnPage = async (path: string, password: string) => {
    const page = await fetch(path);
    expect(page.status).toBe(200);
    const res = await fetch(`${emu.url}/reset-password`, {
      method: 'POST',
      headers: { 'sec-fetch-site': 'same-origin' },
      body: new URLSearchParams({ ...formFields(await page.text()), password }),
      redirect: 'manual',
    });
    return { status: res.status, html: await res.text() };
  };
  /** The dead-link page: says so, and offers no password form. */
  const expectDead = async (res: Response) => {
    expect(res.status).toBe(400);
    const html = await res.text();
    expect(html).toContain('This reset link is invalid, used or expired.');
    expect(html).not.toContain('name="password"');
  };

  describe('a password change ends the reset links mailed before it', () => {
    it('a change through the API: the earlier link is dead on its page and for recover', async () => {
      const email = newEmail();
      const reg = await register(email);
      expect(reg.status).toBe(200);
      expect((await call('POST', '/_api/iam/recovery/v1/send-email', { email })).status).toBe(200);
      const link = await lastLink(email);
      const access = await memberAccess(emu, reg.body.identity.id, await visitorToken(emu));
      const changed = await call(
        'POST',
        '/_api/iam/authentication/v2/change-password',
        { newPassword: 'the changed password' },
        { authorization: access },
      );
      expect(changed.status).toBe(200);
      await expectDead(await fetch(link.path));
      const recovered = await call('POST', '/_api/iam/recovery/v1/recover', {
        recoveryToken: link.token,
        password: 'the attacker password',
      });
      expect(recovered.status).toBe(400);
      expect(recovered.body.details.applicationError.code).toBe('INVALID_RECOVERY_TOKEN');
      // The change stands: the link set nothing.
      expect((await login(email, 'the changed password')).body.state).toBe('SUCCESS');
      expect((await login(email, 'the attacker password')).status).toBe(400);
    });

    it('a reset through the newer link: the older one stays dead (regression guard)', async () => {
      const email = newEmail();
      expect((await register(email)).status).toBe(200);
      expect((await call('POST', '/_api/iam/recovery/v1/send-email', { email })).status).toBe(200);
      const older = await lastLink(email);
      expect((await call('POST', '/_api/iam/recovery/v1/send-email', { email })).status).toBe(200);
      const newer = await lastLink(email);
      expect(newer.token).not.toBe(older.token);
      const saved = await saveOnPage(newer.path, 'a brand new password');
      expect(saved.html).toContain('Your password is changed.');
      await expectDead(await fetch(older.path));
      expect((await login(email, 'a brand new password')).body.state).toBe('SUCCESS');
    });

    it('a reset page open while its link dies refuses the next post at once, whatever its password', async () => {
      const email = newEmail();
      expect((await register(email)).status).toBe(200);
      expect((await call('POST', '/_api/iam/recovery/v1/send-email', { email })).status).toBe(200);
      const { path } = await lastLink(email);
      const page = await fetch(path);
      expect(page.status).toBe(200);
      const fields = formFields(await page.text());
      // Meanwhile a newer mail replaces the link.
      expect((await call('POST', '/_api/iam/recovery/v1/send-email', { email })).status).toBe(200);
      const post = (password: string) =>
        fetch(`${emu.url}/reset-password`, {
          method: 'POST',
          headers: { 'sec-fetch-site': 'same-origin' },
          body: new URLSearchParams({ ...fields, password }),
        });
      // A password too short got the form again, for a link no password could use any more.
      await expectDead(await post('short'));
      await expectDead(await post('a long enough password'));
    });
  });

  describe('the reset page of a reset asked for on the hosted login page', () => {
    /** A hosted login page's forgot-password post for a new member; its session id and reset link. */
    const forgotOnLoginPage = async () => {
      const email = newEmail();
      expect((await register(email)).status).toBe(200);
      const page = await fetch(authorizeUrl(emu, `${SHOP}/callback`, { response_mode: 'query' }));
      expect(page.status).toBe(200);
      const form = formFields(await page.text());
      const asked = await submit({ ...form, action: 'forgot', email });
      expect(asked.status).toBe(200);
      expect(await asked.text()).toContain('we sent it a link to reset the password');
      return { email, sessionId: form.redirect_session_id!, link: await lastLink(email) };
    };

    it('links back to that login page, where the login goes on to a code with its state', async () => {
      const { email, sessionId, link } = await forgotOnLoginPage();
      const saved = await saveOnPage(link.path, 'a brand new password');
      expect(saved.status).toBe(200);
      expect(saved.html).toContain('Your password is changed.');
      // No link to the bare redirect URI, which the site would read as a broken authorization response.
      expect(saved.html).not.toContain(`${SHOP}/callback`);
      const back = /<a href="([^"]+)">Back to log in<\/a>/.exec(saved.html)?.[1]?.replace(/&amp;/g, '&');
      expect(back).toBe(`/oauth2/authorize?redirect_session_id=${encodeURIComponent(sessionId)}`);
      const loginPage = await fetch(`${emu.url}${back}`);
      expect(loginPage.status).toBe(200);
      const fields = formFields(await loginPage.text());
      expect(fields.redirect_session_id).toBe(sessionId);
      const done = await submit({ ...fields, action: 'login', email, password: 'a brand new password' });
      expect(done.status).toBe(302);
      const to = new URL(done.headers.get('location')!);
      expect(`${to.origin}${to.pathname}`).toBe(`${SHOP}/callback`);
      expect(to.searchParams.get('code')).toMatch(/^OAC\./);
      expect(to.searchParams.get('state')).toBe('st');
    });

    it('with that login gone, it links nowhere and says how to go on', async () => {
      const { email, sessionId, link } = await forgotOnLoginPage();
      // Sessions go when they expire or when a client's cap needs room.
      await emu.emu.db.query('DELETE FROM redirect_sessions WHERE id = $1', [sessionId]);
      const saved = await saveOnPage(link.path, 'a brand new password');
      expect(saved.html).toContain('Your password is changed.');
      expect(saved.html).not.toContain('<a href');
      expect(saved.html).toContain('Go back to the site to log in with your new password.');
      expect((await login(email, 'a brand new password')).body.state).toBe('SUCCESS');
    });

    it('forgot password with no e-mail typed says to type one, not that a link was sent', async () => {
      const page = await fetch(authorizeUrl(emu, `${SHOP}/callback`, { response_mode: 'query' }));
      const form = formFields(await page.text());
      for (const email of ['', '   ']) {
        const res = await submit({ ...form, action: 'forgot', email });
        expect(res.status).toBe(200);
        const html = await res.text();
        expect(html).toContain('Type your e-mail address, then choose Forgot password.');
        expect(html).not.toContain('we sent it a link');
        expect(formFields(html).redirect_session_id).toBe(form.redirect_session_id);
      }
    });

    it('a reset asked for through the API still links to its allowed return address', async () => {
      const email = newEmail();
      expect((await register(email)).status).toBe(200);
      const asked = await call('POST', '/_api/iam/recovery/v1/send-email', {
        email,
        redirect: { url: `${SHOP}/after-reset`, clientId: emu.demo.clientId },
      });
      expect(asked.status).toBe(200);
      const saved = await saveOnPage((await lastLink(email)).path, 'a brand new password');
      expect(saved.html).toContain(`<a href="${SHOP}/after-reset">Back to the site</a>`);
    });
  });
});
