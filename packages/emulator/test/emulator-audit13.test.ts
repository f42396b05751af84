/**
 * Findings of a thirteenth audit of the emulator, over raw HTTP on each storage: token-info
 * answered "inactive" for a token given as `Bearer <token>`, the form in which the same token
 * authenticates a call; a webhook receiver URL that differed only by its fragment (never sent over
 * HTTP) made a second subscription, so the receiver got every event twice; an options-availability
 * choice whose option name or choice differs only in letter case was refused without saying which
 * spelling matches; and the hosted login page, used to sign up, offered its password field as the
 * current password, so password managers did not offer a new one.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoProductId } from '../src/domains/catalog/seed.ts';
import { startTestEmulator, type TestEmulator, testBackends } from '../src/testing.ts';
import { authorizeUrl, formFields, identityCalls, jsonCalls, visitorToken } from './http.ts';

const SHOP = 'http://shop.test:5173';

describe.each(testBackends())('emulator audit 13 (%s)', (backend) => {
  let emu: TestEmulator;
  beforeAll(async () => {
    emu = await startTestEmulator(backend, { allowedOrigins: [SHOP] });
  });
  afterAll(() => emu?.stop());
  const { call, owner } = jsonCalls(() => emu);
  const { submit } = identityCalls(() => emu);

  describe('token-info', () => {
    it('reads a token given as "Bearer <token>" as that token, as the Authorization header does', async () => {
      const token = await visitorToken(emu);
      const raw = await call('POST', '/oauth2/token-info', { token });
      expect(raw.body).toMatchObject({ active: true, subjectType: 'VISITOR' });
      // The same header authenticates a call…
      const cart = await call('GET', '/ecom/v1/carts/current', undefined, {
        authorization: `Bearer ${token}`,
      });
      expect([200, 404]).toContain(cart.status);
      // …and token-info says who it is.
      for (const given of [`Bearer ${token}`, `bearer  ${token}`]) {
        const info = await call('POST', '/oauth2/token-info', { token: given });
        expect(info.status).toBe(200);
        expect(info.body).toEqual(raw.body);
      }
      const unknown = await call('POST', '/oauth2/token-info', { token: `Bearer ${token}x` });
      expect(unknown.body).toEqual({ active: false, subjectType: 'UNKNOWN' });
    });
  });

  describe('webhook subscriptions', () => {
    it('takes a receiver URL with a fragment as the URL without it: one subscription, not two', async () => {
      const base = `https://receiver-${backend}.example/hook`;
      const first = await owner('POST', '/_api/emulator/v1/webhooks/subscriptions', { url: `${base}#a` });
      expect(first.status).toBe(200);
      expect(first.body.subscription.url).toBe(base);
      for (const url of [base, `${base}#b`, `${base}#`]) {
        const again = await owner('POST', '/_api/emulator/v1/webhooks/subscriptions', { url });
        expect(again.status).toBe(200);
        expect(again.body.subscription.id).toBe(first.body.subscription.id);
      }
      const list = await owner('GET', '/_api/emulator/v1/webhooks/subscriptions');
      expect(list.body.subscriptions.filter((s: { url: string }) => s.url.startsWith(base))).toHaveLength(1);
    });
  });

  describe('productOptionsAvailability', () => {
    const path = `/stores-reader/v1/products/${demoProductId('linen-shirt')}/productOptionsAvailability`;
    it('matches option names and choices exactly, as the cart and variant queries do', async () => {
      const visitor = { authorization: await visitorToken(emu) };
      const exact = await call('POST', path, { options: { Color: 'White', Size: 'M' } }, visitor);
      expect(exact.status).toBe(200);
      expect(exact.body.selectedVariant.choices).toEqual({ Color: 'White', Size: 'M' });
    });

    it('refuses a name or choice in another letter case with the spelling that matches', async () => {
      const visitor = { authorization: await visitorToken(emu) };
      const name = await call('POST', path, { options: { color: 'White' } }, visitor);
      expect(name.status).toBe(400);
      expect(name.body.details.validationError.fieldViolations).toEqual([
        expect.objectContaining({ field: 'options.color', description: expect.stringContaining('"Color"') }),
      ]);
      const choice = await call('POST', path, { options: { Color: 'white' } }, visitor);
      expect(choice.status).toBe(400);
      expect(choice.body.details.validationError.fieldViolations).toEqual([
        expect.objectContaining({ field: 'options.Color', description: expect.stringContaining('"White"') }),
      ]);
      // A name that is no option in any case is refused as before.
      const none = await call('POST', path, { options: { Colour: 'White' } }, visitor);
      expect(none.body.details.validationError.fieldViolations[0].description).toBe(
        'is not an option of this product',
      );
    });
  });

  describe('the hosted login page used to sign up', () => {
    let n = 0;
    const newEmail = () => `audit13-${++n}-${backend}@example.test`;
    const loginForm = async () => {
      const page = await fetch(authorizeUrl(emu, `${SHOP}/callback`, { response_mode: 'query' }));
      expect(page.status).toBe(200);
      const html = await page.text();
      return { html, fields: formFields(html) };
    };
    const passwordInput = (html: string) => /<input name="password"[^>]*>/.exec(html)?.[0] ?? '';
    const title = (html: string) => /<title>([^<]*)<\/title>/.exec(html)?.[1];

    it('logs in with the current password', async () => {
      const { html } = await loginForm();
      expect(passwordInput(html)).toContain('autocomplete="current-password"');
      expect(title(html)).toBe('Log in');
    });

    it('Sign up pressed before a password is typed shows the sign-up form with a new password', async () => {
      const { fields } = await loginForm();
      const email = newEmail();
      const res = await submit({
        redirect_session_id: fields.redirect_session_id!,
        action: 'register',
        email,
        password: '',
      });
      expect(res.status).toBe(200);
      const html = await res.text();
      expect(title(html)).toBe('Sign up');
      expect(passwordInput(html)).toContain('autocomplete="new-password"');
      expect(passwordInput(html)).toContain('autofocus');
      expect(formFields(html).email).toBe(email);
      // Enter presses the form's first button: here, Sign up.
      expect(/<button[^>]*>([^<]*)<\/button>/.exec(html)?.[1]).toBe('Sign up');
      // Nothing was registered.
      const login = await call('POST', '/_api/iam/authentication/v2/login', {
        loginId: { email },
        password: 'whatever it is',
      });
      expect(login.status).not.toBe(200);
    });

    it('a refused sign-up comes back as the sign-up form; a refused login as the login form', async () => {
      const { fields } = await loginForm();
      const signup = await submit({
        redirect_session_id: fields.redirect_session_id!,
        action: 'register',
        email: newEmail(),
        password: 'short',
      });
      const html = await signup.text();
      expect(html).toContain('role="alert"');
      expect(title(html)).toBe('Error: Sign up');
      expect(passwordInput(html)).toContain('autocomplete="new-password"');

      const login = await submit({
        redirect_session_id: fields.redirect_session_id!,
        action: 'login',
        email: newEmail(),
        password: 'not the password',
      });
      const again = await login.text();
      expect(title(again)).toBe('Error: Log in');
      expect(passwordInput(again)).toContain('autocomplete="current-password"');
    });
  });
});
