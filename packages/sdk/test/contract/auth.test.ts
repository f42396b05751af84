/**
 * Visitors and members against the emulator over HTTP: register and login outcomes and error
 * codes (spec 4, 8), e-mail verification, recovery, the authorization-code flow with PKCE through
 * the hosted login page, the grants' security rules (checklist 35–45), logout, token info, the
 * web-method guard and the app strategy.
 */
import { createHash } from 'node:crypto';
import { loginOnHostedPage, startTestEmulator, testBackends } from '@shopkit/emulator/testing';
import { describe, expect, it } from 'vitest';
import { generateChallenge } from '../../src/auth/pkce.ts';
import {
  ApiKeyStrategy,
  AppStrategy,
  call,
  collections,
  createClient,
  identity,
  LoginState,
  OAuthStrategy,
  requireAccess,
  ShopkitError,
  type Tokens,
} from '../../src/index.ts';
import { failure, mailbox as mailboxOf, setupEmulator, visitorClient } from './setup.ts';

const SHOP = 'http://shop.test:5173';
const CALLBACK = `${SHOP}/callback`;

describe.each(testBackends())('visitors and members (%s)', (backend) => {
  let n = 0;
  const email = () => `m${++n}-${backend}@example.test`;
  const emu = setupEmulator(backend, { allowedOrigins: [SHOP] });

  const member = (tokens?: Tokens) => visitorClient(emu, { identity, collections }, { tokens });
  const admin = () => createClient({ baseUrl: emu.url, auth: ApiKeyStrategy({ apiKey: emu.demo.apiKey }) });
  const settings = (s: Record<string, boolean>) =>
    call(admin(), { method: 'POST', path: '/_api/emulator/v1/settings', args: ['s:'] }, [s]);
  const mailbox = (to: string) => mailboxOf(emu, to);

  /** Runs the hosted page's code flow by hand: authorize URL → form post → redirect with code. */
  async function codeFlow(
    client: ReturnType<typeof member>,
    who: { email: string; password: string },
    verifier?: string,
  ) {
    const data = await identity.generateOAuthData(member(), CALLBACK, `${SHOP}/account`);
    // A verifier of the test's own (one the SDK would never make), with its true challenge.
    if (verifier)
      Object.assign(data, { codeVerifier: verifier, codeChallenge: await generateChallenge(verifier) });
    const { authUrl } = await client.identity.getAuthUrl(data, { responseMode: 'query' });
    const { page, answer: res } = await loginOnHostedPage(authUrl, who);
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(page.headers.get('access-control-allow-origin')).toBeNull();
    expect(res.status).toBe(302);
    const location = res.headers.get('location')!;
    expect(location.startsWith(`${CALLBACK}?`)).toBe(true);
    return { data, location };
  }

  /** A newly registered member who logged in through the code flow: the client and its tokens. */
  async function newMember() {
    const client = member();
    const e = email();
    await client.identity.register({ email: e, password: 'long enough pw' });
    const { location, data } = await codeFlow(client, { email: e, password: 'long enough pw' });
    const p = identity.parseFromUrl(member(), location, 'query');
    return { client, tokens: await client.identity.getMemberTokens(p.code, p.state, data) };
  }

  it('registers a member: SUCCESS with a session token, and the identity is transformed', async () => {
    const client = member();
    const e = email();
    const r = await client.identity.register({
      email: e,
      password: 'correct horse battery',
      profile: {
        nickname: 'Ada',
        customFields: [{ name: 'born', value: { dateValue: new Date('1990-01-02T00:00:00Z') } }],
      },
      clientMetaData: { source: 'contract test' },
    });
    expect(r.loginState).toBe(LoginState.SUCCESS);
    // The optional fields of spec 7 are accepted: clientMetaData on login, the reset e-mail's language.
    const again = await client.identity.login({
      email: e,
      password: 'correct horse battery',
      clientMetaData: { source: 'contract test' },
    });
    expect(again.loginState).toBe(LoginState.SUCCESS);
    await client.identity.sendPasswordResetEmail(e, { language: 'fr' });
    expect(await mailbox(e)).toHaveLength(1);
    expect(r.data?.sessionToken).toBeTruthy();
    expect(r.data?.identity?.createdDate).toBeInstanceOf(Date);
    expect(r.data?.identity?.identityProfile?.customFields?.[0]?.value?.dateValue).toBeInstanceOf(Date);
    expect(r.data?.identity?.status?.name).toBe('ACTIVE');
  });

  it('maps every registration error of spec 8', async () => {
    const client = member();
    const bad = await client.identity.register({ email: 'not-an-email', password: 'long enough pw' });
    expect(bad).toMatchObject({ loginState: 'FAILURE', errorCode: 'invalidEmail' });
    expect(bad.error).toMatch(/email/i);
    // Too long for an address (RFC 5321: 254) is an e-mail violation too, not a bare length one.
    const long = await client.identity.register({
      email: `${'x'.repeat(250)}@b.co`,
      password: 'long enough pw',
    });
    expect(long).toMatchObject({ loginState: 'FAILURE', errorCode: 'invalidEmail' });
    expect(long.error).toBe('must have at most 254 characters');
    const e = email();
    await client.identity.register({ email: e, password: 'long enough pw' });
    const dup = await client.identity.register({ email: e.toUpperCase(), password: 'long enough pw' });
    expect(dup).toMatchObject({ loginState: 'FAILURE', errorCode: 'emailAlreadyExists' });
    const short = await client.identity.register({ email: email(), password: 'short' });
    expect(short.loginState).toBe('FAILURE');
    expect(short.errorCode).toBeUndefined();
    // The violations themselves, in the caller's names, for a form to show by its fields.
    expect(short.violations).toEqual([
      expect.objectContaining({ field: 'password', violatedRule: 'MIN_LENGTH', data: { min: 8 } }),
    ]);
    await settings({ captchaRequired: true });
    try {
      const missing = await client.identity.register({ email: email(), password: 'long enough pw' });
      expect(missing).toMatchObject({ loginState: 'FAILURE', errorCode: 'missingCaptchaToken' });
      const invalid = await client.identity.register({
        email: email(),
        password: 'long enough pw',
        captchaTokens: { recaptchaToken: 'made-up' },
      });
      expect(invalid).toMatchObject({ loginState: 'FAILURE', errorCode: 'invalidCaptchaToken' });
      const { token } = await (
        await fetch(`${emu.url}/_api/emulator/v1/captcha-token`, { method: 'POST' })
      ).json();
      const ok = await client.identity.register({
        email: email(),
        password: 'long enough pw',
        captchaTokens: { invisibleRecaptchaToken: token },
      });
      expect(ok.loginState).toBe('SUCCESS');
      const lm = await client.identity.login({ email: 'x@example.test', password: 'whatever pw' });
      expect(lm.errorCode).toBe('missingCaptchaToken');
      const li = await client.identity.login({
        email: 'x@example.test',
        password: 'whatever pw',
        captchaTokens: { recaptchaToken: 'nope' },
      });
      expect(li.errorCode).toBe('invalidCaptchaToken');
    } finally {
      await settings({ captchaRequired: false });
    }
  });

  it('maps every login error of spec 8, and never throws', async () => {
    const client = member();
    const e = email();
    const reg = await client.identity.register({ email: e, password: 'the right password' });
    const ok = await client.identity.login({ email: e, password: 'the right password' });
    expect(ok.loginState).toBe('SUCCESS');
    expect(ok.data?.sessionToken).toBeTruthy();
    expect(await client.identity.login({ email: e, password: 'the wrong password' })).toMatchObject({
      loginState: 'FAILURE',
      errorCode: 'invalidPassword',
    });
    expect(
      await client.identity.login({ email: 'nobody@example.test', password: 'whatever pw' }),
    ).toMatchObject({
      loginState: 'FAILURE',
      errorCode: 'invalidEmail',
    });
    expect(await client.identity.login({ email: '', password: '' })).toMatchObject({
      errorCode: 'invalidEmail',
    });
    await call(
      admin(),
      { method: 'POST', path: '/_api/emulator/v1/members/{id}/require-password-reset', args: ['id'] },
      [reg.data!.identity!.id],
    );
    expect(await client.identity.login({ email: e, password: 'the right password' })).toMatchObject({
      errorCode: 'resetPassword',
    });
    // Network failure and odd answers: a FAILURE result, not a TypeError.
    const offline = createClient({
      baseUrl: emu.url,
      retry: { attempts: 1 },
      fetch: async (input, init) => {
        if (String(input).includes('/iam/')) throw new TypeError('fetch failed');
        return fetch(input, init);
      },
      auth: OAuthStrategy({ clientId: emu.demo.clientId }),
      modules: { identity },
    });
    expect(await offline.identity.login({ email: e, password: 'x' })).toMatchObject({
      loginState: 'FAILURE',
      errorCode: 'network',
    });
    expect(await offline.identity.register({ email: e, password: 'x' })).toMatchObject({
      loginState: 'FAILURE',
    });
    const odd = createClient({
      baseUrl: emu.url,
      fetch: async (input, init) =>
        String(input).includes('/iam/') ? new Response('<html>', { status: 502 }) : fetch(input, init),
      auth: OAuthStrategy({ clientId: emu.demo.clientId }),
      modules: { identity },
    });
    expect((await odd.identity.login({ email: e, password: 'x' })).loginState).toBe('FAILURE');
    const weird = createClient({
      baseUrl: emu.url,
      fetch: async (input, init) =>
        String(input).includes('/iam/')
          ? new Response(JSON.stringify({ state: 'REQUIRE_MFA' }), { status: 200 })
          : fetch(input, init),
      auth: OAuthStrategy({ clientId: emu.demo.clientId }),
      modules: { identity },
    });
    expect(await weird.identity.login({ email: e, password: 'x' })).toEqual({
      loginState: 'FAILURE',
      error: 'Unknown _state',
    });
  });

  it('throttles logins per account, and a reset still gets through', async () => {
    const client = member();
    const e = email();
    await client.identity.register({ email: e, password: 'the right password' });
    for (let i = 0; i < 5; i++) await client.identity.login({ email: e, password: 'wrong wrong' });
    const locked = await client.identity.login({ email: e, password: 'the right password' });
    expect(locked.loginState).toBe('FAILURE');
    expect(locked.error).toMatch(/Too many failed logins/);
    await client.identity.sendPasswordResetEmail(e);
    const mail = (await mailbox(e))[0]!;
    expect(mail.subject).toBe('Reset your password');
    const token = new URL(mail.link!).searchParams.get('token')!;
    const r = await client.identity.recover(token, 'a brand new password');
    expect(r.loginState).toBe('SUCCESS');
    expect((await client.identity.login({ email: e, password: 'a brand new password' })).loginState).toBe(
      'SUCCESS',
    );
  });

  it('e-mail verification: EMAIL_VERIFICATION_REQUIRED, code from the mailbox, attempt limit, resend', async () => {
    await settings({ emailVerificationRequired: true });
    try {
      const client = member();
      const e = email();
      // No pending verification yet: FAILURE 'Unknown _state'.
      expect(await client.identity.processVerification({ code: '000000' })).toEqual({
        loginState: 'FAILURE',
        error: 'Unknown _state',
      });
      const r = await client.identity.register({ email: e, password: 'long enough pw' });
      expect(r.loginState).toBe('EMAIL_VERIFICATION_REQUIRED');
      expect(r.data?.stateToken).toBeTruthy();
      const code = (await mailbox(e))[0]!.code!;
      expect(code).toMatch(/^\d{6}$/);
      const wrong = code === '000000' ? '111111' : '000000';
      expect((await client.identity.processVerification({ code: wrong })).loginState).toBe('FAILURE');
      const ok = await client.identity.processVerification({ verificationCode: code });
      expect(ok.loginState).toBe('SUCCESS');
      expect(ok.data?.sessionToken).toBeTruthy();
      // Once verified, the state is no longer pending.
      expect((await client.identity.processVerification({ code })).error).toBe('Unknown _state');

      // A fresh client (a reloaded page) finishes with the state token the caller kept.
      const e3 = email();
      const r3 = await member().identity.register({ email: e3, password: 'long enough pw' });
      const reloaded = member();
      const code3 = (await mailbox(e3))[0]!.code!;
      expect((await reloaded.identity.processVerification({ code: code3 })).error).toBe('Unknown _state');
      const done = await reloaded.identity.processVerification({
        code: code3,
        stateToken: r3.data!.stateToken,
      });
      expect(done.loginState).toBe('SUCCESS');
      expect(done.data?.sessionToken).toBeTruthy();

      // Five wrong codes end the code; resend replaces it.
      const other = member();
      const e2 = email();
      const r2 = await other.identity.register({ email: e2, password: 'long enough pw' });
      const first = (await mailbox(e2))[0]!.code!;
      await other.identity.resendVerification(r2.data!.stateToken!);
      const second = (await mailbox(e2))[0]!.code!;
      if (first !== second)
        expect((await other.identity.processVerification({ code: first })).loginState).toBe('FAILURE');
      const wrong2 = second === '000000' ? '111111' : '000000';
      for (let i = 0; i < 5; i++) await other.identity.processVerification({ code: wrong2 });
      expect((await other.identity.processVerification({ code: second })).loginState).toBe('FAILURE');
    } finally {
      await settings({ emailVerificationRequired: false });
    }
  });

  it('e-mail verification pending ends with a failed login or registration after it, and with a logout', async () => {
    await settings({ emailVerificationRequired: true });
    try {
      /** A client whose registration waits for its code; the code. */
      const pending = async () => {
        const client = member();
        const e = email();
        const r = await client.identity.register({ email: e, password: 'long enough pw' });
        expect(r.loginState).toBe('EMAIL_VERIFICATION_REQUIRED');
        return { client, code: (await mailbox(e))[0]!.code! };
      };
      const unknown = { loginState: 'FAILURE', error: 'Unknown _state' };
      // Someone else's login, refused, on the same client (a shared device): the last result is a failure.
      const a = await pending();
      expect((await a.client.identity.login({ email: email(), password: 'long enough pw' })).loginState).toBe(
        'FAILURE',
      );
      expect(await a.client.identity.processVerification({ code: a.code })).toEqual(unknown);
      const b = await pending();
      expect((await b.client.identity.register({ email: 'not-an-email', password: 'x' })).loginState).toBe(
        'FAILURE',
      );
      expect(await b.client.identity.processVerification({ code: b.code })).toEqual(unknown);
      const c = await pending();
      await c.client.identity.logout();
      expect(await c.client.identity.processVerification({ code: c.code })).toEqual(unknown);
      // Left as it was, the pending verification goes through.
      const d = await pending();
      expect((await d.client.identity.processVerification({ code: d.code })).loginState).toBe('SUCCESS');
    } finally {
      await settings({ emailVerificationRequired: false });
    }
  });

  it('owner approval: OWNER_APPROVAL_REQUIRED until the owner approves', async () => {
    await settings({ ownerApprovalRequired: true });
    try {
      const client = member();
      const e = email();
      const r = await client.identity.register({ email: e, password: 'long enough pw' });
      expect(r.loginState).toBe('OWNER_APPROVAL_REQUIRED');
      expect(r.data?.identity?.status).toEqual({
        name: 'PENDING',
        reasons: ['PENDING_ADMIN_APPROVAL_REQUIRED'],
      });
      expect((await client.identity.login({ email: e, password: 'long enough pw' })).loginState).toBe(
        'OWNER_APPROVAL_REQUIRED',
      );
      await call(admin(), { method: 'POST', path: '/_api/emulator/v1/members/{id}/approve', args: ['id'] }, [
        r.data!.identity!.id,
      ]);
      expect((await client.identity.login({ email: e, password: 'long enough pw' })).loginState).toBe(
        'SUCCESS',
      );
    } finally {
      await settings({ ownerApprovalRequired: false });
    }
  });

  it('recovery: same answer for unknown e-mails, single-use token, old refresh tokens revoked', async () => {
    const client = member();
    await client.identity.sendPasswordResetEmail('ghost@example.test');
    expect(await mailbox('ghost@example.test')).toEqual([]);
    const e = email();
    await client.identity.register({ email: e, password: 'first password' });
    const { location, data } = await codeFlow(client, { email: e, password: 'first password' });
    const p = client.identity.parseFromUrl(location, 'query');
    const tokens = await client.identity.getMemberTokens(p.code, p.state, data);
    await client.identity.sendPasswordResetEmail(e, `${SHOP}/after-reset`);
    const link = (await mailbox(e))[0]!.link!;
    expect(link.startsWith(`${emu.url}/reset-password?token=`)).toBe(true);
    const token = new URL(link).searchParams.get('token')!;
    const page = await fetch(link);
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
    const done = await fetch(`${emu.url}/reset-password`, {
      method: 'POST',
      body: new URLSearchParams({ token, password: 'second password' }),
    });
    expect(await done.text()).toContain(`href="${SHOP}/after-reset"`);
    expect((await client.identity.recover(token, 'third password')).loginState).toBe('FAILURE');
    // The member's refresh token died with the reset.
    const refreshed = await fetch(`${emu.url}/oauth2/token`, {
      method: 'POST',
      body: JSON.stringify({ grantType: 'refresh_token', refreshToken: tokens.refreshToken.value }),
    });
    expect(refreshed.status).toBe(400);
  });

  it('recovery: a return address off the allowed origins is dropped, not linked (checklist 52)', async () => {
    const client = member();
    const e = email();
    await client.identity.register({ email: e, password: 'first password' });
    await client.identity.sendPasswordResetEmail(e, 'https://evil.example/after-reset');
    const link = (await mailbox(e))[0]!.link!;
    expect(link).not.toContain('evil.example');
    const token = new URL(link).searchParams.get('token')!;
    const done = await fetch(`${emu.url}/reset-password`, {
      method: 'POST',
      body: new URLSearchParams({ token, password: 'second password' }),
    });
    expect(done.status).toBe(200);
    const page = await done.text();
    expect(page).not.toContain('evil.example');
    expect(page).not.toMatch(/href="https?:\/\/(?!127\.0\.0\.1)/);
    // The reset itself worked.
    expect((await client.identity.login({ email: e, password: 'second password' })).loginState).toBe(
      'SUCCESS',
    );
  });

  it('the code flow gives member tokens whose visitor is the one that logged in', async () => {
    const client = member();
    await client.collections.getCollectionBySlug('summer-linen').catch(() => undefined);
    const visitorToken = (await client.auth.getTokens()).accessToken.value;
    const visitorInfo = await client.identity.getTokenInfo(visitorToken);
    expect(visitorInfo.subjectType).toBe('VISITOR');
    const e = email();
    const reg = await client.identity.register({ email: e, password: 'long enough pw' });
    const { location, data } = await codeFlow(client, { email: e, password: 'long enough pw' });
    const p = client.identity.parseFromUrl(location, 'query');
    expect(p.state).toBe(data.state);
    const tokens = await client.identity.getMemberTokens(p.code, p.state, data);
    expect(tokens.refreshToken.role).toBe('member');
    await client.auth.setTokens(tokens);
    expect(await client.auth.loggedIn()).toBe(true);
    const info = await client.identity.getTokenInfo(tokens.accessToken.value);
    expect(info).toMatchObject({ active: true, subjectType: 'MEMBER', subjectId: reg.data!.identity!.id });
    const rows = await emu.emu.db.query('SELECT visitor_id FROM access_tokens WHERE member_id = $1', [
      reg.data!.identity!.id,
    ]);
    expect(rows[0]!.visitor_id).toBe(visitorInfo.subjectId);
    // Single use of the state on the client side.
    await expect(client.identity.getMemberTokens(p.code, p.state, data)).rejects.toThrow('Invalid _state');
  });

  it('getMemberTokens: the spec errors, and no token request on a bad state', async () => {
    const client = member();
    const data = await identity.generateOAuthData(member(), CALLBACK);
    await expect(client.identity.getMemberTokens(undefined, data.state, data)).rejects.toThrow(
      'Missing code or _state',
    );
    await expect(client.identity.getMemberTokens('c', undefined, data)).rejects.toThrow(
      'Missing code or _state',
    );
    await expect(client.identity.getMemberTokens('c', 'other', data)).rejects.toThrow('Invalid _state');
    await expect(client.identity.getMemberTokens('made-up-code', data.state, data)).rejects.toThrow(
      'Failed to get member tokens',
    );
  });

  it('reports every failure of a token exchange to onError, then throws it (spec 7)', async () => {
    const seen: Array<[string, string, string]> = [];
    const client = createClient({
      baseUrl: emu.url,
      auth: OAuthStrategy({ clientId: emu.demo.clientId }),
      modules: { identity },
      onError: (e, at) => seen.push([e.message, at.method, at.path]),
    });
    const data = await identity.generateOAuthData(client, CALLBACK);
    const thrown: unknown[] = [];
    for (const attempt of [
      () => client.identity.getMemberTokens(undefined, data.state, data),
      () => client.identity.getMemberTokens('c', 'other', data),
      () => client.identity.getMemberTokens('made-up-code', data.state, data),
      () =>
        client.identity.getMemberTokensFromUrl(data, `${CALLBACK}#error=access_denied&state=${data.state}`),
      () => client.identity.getMemberTokensForExternalLogin('no-such-member', 'not-an-api-key'),
    ])
      thrown.push(await attempt().catch((e) => e));
    expect(seen).toEqual([
      ['Missing code or _state', 'POST', '/oauth2/token'],
      ['Invalid _state', 'POST', '/oauth2/token'],
      ['Failed to get member tokens', 'POST', '/oauth2/token'],
      ['access_denied', 'POST', '/oauth2/token'],
      ['something went wrong', 'POST', '/oauth2/token'],
    ]);
    // What onError saw is what was thrown, each a ShopkitError (an Error) with a code.
    for (const e of thrown) expect(e).toBeInstanceOf(ShopkitError);
    expect((thrown[2] as ShopkitError).cause).toBeInstanceOf(ShopkitError);
  });

  it('parseFromUrl reads query or fragment, errors included', () => {
    expect(identity.parseFromUrl(member(), 'https://x.test/cb#code=a&state=b', 'fragment')).toEqual({
      code: 'a',
      state: 'b',
      error: undefined,
      errorDescription: undefined,
    });
    expect(
      identity.parseFromUrl(
        member(),
        'https://x.test/cb?error=access_denied&error_description=no&state=s',
        'query',
      ),
    ).toEqual({
      code: undefined,
      state: 's',
      error: 'access_denied',
      errorDescription: 'no',
    });
  });

  it('authorization codes: single use, replay revokes, bound to client, redirect URI and verifier, 10 minutes', async () => {
    const client = member();
    const e = email();
    await client.identity.register({ email: e, password: 'long enough pw' });
    const grant = (body: object) =>
      fetch(`${emu.url}/oauth2/token`, {
        method: 'POST',
        body: JSON.stringify({ grantType: 'authorization_code', ...body }),
      });
    const flow = async () => {
      const { location, data } = await codeFlow(client, { email: e, password: 'long enough pw' });
      return { code: new URL(location).searchParams.get('code')!, data };
    };
    const a = await flow();
    const base = { clientId: emu.demo.clientId, redirectUri: CALLBACK };
    // Wrong verifier, wrong redirect URI, wrong client: refused, and the code is spent, so that
    // not even the right request can use it afterwards.
    const refusal = async (res: Response) => {
      expect(res.status).toBe(400);
      return (await res.json()).details.applicationError.description as string;
    };
    const wrongVerifier = a.data.codeVerifier.slice(0, -1) + (a.data.codeVerifier.endsWith('A') ? 'B' : 'A');
    expect(await refusal(await grant({ ...base, code: a.code, codeVerifier: wrongVerifier }))).toMatch(
      /verifier does not match/,
    );
    const right = (x: typeof a) => grant({ ...base, code: x.code, codeVerifier: x.data.codeVerifier });
    expect(await refusal(await right(a))).toMatch(/already used/);
    const b = await flow();
    expect(
      await refusal(
        await grant({
          ...base,
          redirectUri: `${CALLBACK}/`,
          code: b.code,
          codeVerifier: b.data.codeVerifier,
        }),
      ),
    ).toMatch(/redirect URI differs/);
    expect(await refusal(await right(b))).toMatch(/already used/);
    const c = await flow();
    expect(
      await refusal(
        await grant({ ...base, clientId: 'other', code: c.code, codeVerifier: c.data.codeVerifier }),
      ),
    ).toMatch(/another client/);
    expect(await refusal(await right(c))).toMatch(/already used/);
    // A verifier outside the grammar is refused before the code is looked up: the code survives.
    const f = await flow();
    expect((await grant({ ...base, code: f.code, codeVerifier: 'a'.repeat(42) })).status).toBe(400);
    expect((await right(f)).status).toBe(200);
    // Verifiers outside RFC 7636's grammar are refused even when their hash is the challenge.
    for (const bad of ['a'.repeat(42), 'a'.repeat(129), `${'a'.repeat(42)}+`]) {
      const { location } = await codeFlow(client, { email: e, password: 'long enough pw' }, bad);
      const code = new URL(location).searchParams.get('code')!;
      expect((await grant({ ...base, code, codeVerifier: bad })).status, bad).toBe(400);
    }
    // Success with no-store, then replay: refused and the first tokens' family revoked.
    const d = await flow();
    const ok = await grant({ ...base, code: d.code, codeVerifier: d.data.codeVerifier });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('cache-control')).toBe('no-store');
    expect(ok.headers.get('pragma')).toBe('no-cache');
    const first = await ok.json();
    const replay = await grant({ ...base, code: d.code, codeVerifier: d.data.codeVerifier });
    expect(replay.status).toBe(400);
    expect((await replay.json()).details.applicationError.code).toBe('invalid_grant');
    const refresh = await fetch(`${emu.url}/oauth2/token`, {
      method: 'POST',
      body: JSON.stringify({ grantType: 'refresh_token', refreshToken: first.refresh_token }),
    });
    expect(refresh.status).toBe(400);
    // Expired after 10 minutes (the clock moves).
    let clock = new Date();
    const later = await startTestEmulator(backend, { allowedOrigins: [SHOP], now: () => clock });
    try {
      const c2 = createClient({
        baseUrl: later.url,
        auth: OAuthStrategy({ clientId: later.demo.clientId }),
        modules: { identity },
      });
      await c2.identity.register({ email: e, password: 'long enough pw' });
      const data = await identity.generateOAuthData(member(), CALLBACK);
      const { authUrl } = await c2.identity.getAuthUrl(data, { responseMode: 'query' });
      const sid = new URL(authUrl).searchParams.get('redirect_session_id')!;
      const res = await fetch(`${later.url}/oauth2/authorize/submit`, {
        method: 'POST',
        redirect: 'manual',
        body: new URLSearchParams({
          redirect_session_id: sid,
          action: 'login',
          email: e,
          password: 'long enough pw',
        }),
      });
      const code = new URL(res.headers.get('location')!).searchParams.get('code')!;
      clock = new Date(clock.getTime() + 10 * 60_000 + 1000);
      const late = await fetch(`${later.url}/oauth2/token`, {
        method: 'POST',
        body: JSON.stringify({
          grantType: 'authorization_code',
          clientId: later.demo.clientId,
          redirectUri: CALLBACK,
          code,
          codeVerifier: data.codeVerifier,
        }),
      });
      expect(late.status).toBe(400);
    } finally {
      await later.stop();
    }
  });

  it('two renders of one member at once, each renewing from the same cookie, keep the member', async () => {
    const client = member();
    const e = email();
    await client.identity.register({ email: e, password: 'long enough pw' });
    const { location, data } = await codeFlow(client, { email: e, password: 'long enough pw' });
    const p = client.identity.parseFromUrl(location, 'query');
    const tokens = await client.identity.getMemberTokens(p.code, p.state, data);
    // The cookie both requests carry: the member's tokens, the access token expired.
    const cookie: Tokens = { ...tokens, accessToken: { ...tokens.accessToken, expiresAt: 0 } };
    const renders = [0, 1].map(() => member(structuredClone(cookie)));
    const ended: number[] = [];
    for (const [i, r] of renders.entries()) r.auth.on('sessionExpired', () => ended.push(i));
    await Promise.all(renders.map((r) => r.collections.getCollectionBySlug('summer-linen')));
    expect(ended).toEqual([]);
    for (const r of renders) expect(await r.auth.loggedIn()).toBe(true);
    // Both hold the one renewal's tokens, which go on working.
    const [a, b] = await Promise.all(renders.map((r) => r.auth.getTokens()));
    expect(b).toEqual(a);
    await renders[1]!.auth.renewToken();
    expect(await renders[1]!.auth.loggedIn()).toBe(true);
  });

  it('refresh tokens rotate; reuse of an old one ends the family', async () => {
    const anon = await (
      await fetch(`${emu.url}/oauth2/token`, {
        method: 'POST',
        body: JSON.stringify({ grantType: 'anonymous', clientId: emu.demo.clientId }),
      })
    ).json();
    const refresh = (rt: string) =>
      fetch(`${emu.url}/oauth2/token`, {
        method: 'POST',
        body: JSON.stringify({ grantType: 'refresh_token', clientId: emu.demo.clientId, refreshToken: rt }),
      });
    const r2 = await (await refresh(anon.refresh_token)).json();
    expect(r2.refresh_token).not.toBe(anon.refresh_token);
    // Sent again at once, while r2 is unused: the same renewal twice, one answer (the grace window).
    expect(await (await refresh(anon.refresh_token)).json()).toEqual(r2);
    // Once r2 is used, the spent token is a reuse: the whole family ends, r3 with it.
    const r3 = await (await refresh(r2.refresh_token)).json();
    expect((await refresh(anon.refresh_token)).status).toBe(400);
    expect((await refresh(r3.refresh_token)).status).toBe(400);
  });

  it('the authorize endpoint refuses redirect URIs that are not allowed, without redirecting', async () => {
    // The demo client allows SHOP's origin (any path on it); this one registered CALLBACK exactly.
    const { clientId: exact } = await call<{ clientId: string }>(
      admin(),
      { method: 'POST', path: '/_api/emulator/v1/oauth-clients', args: ['c:'] },
      [{ name: 'Exact shop', allowedOrigins: [SHOP], redirectUris: [CALLBACK] }],
    );
    const clientOf = (clientId: string) =>
      createClient({ baseUrl: emu.url, auth: OAuthStrategy({ clientId }), modules: { identity } });
    const authorize = async (client: ReturnType<typeof clientOf>, redirectUri: string) => {
      const data = await identity.generateOAuthData(client, redirectUri);
      const { authUrl } = await client.identity.getAuthUrl(data, { responseMode: 'query' });
      return fetch(authUrl, { redirect: 'manual' });
    };
    // Checklist 39's table, refused whether the client registered URIs or allows origins.
    const refusedByAll = [
      'https://evil.test/cb',
      `${SHOP}.evil.test/cb`,
      'http://shop.test.evil.test:5173/callback', // suffix subdomain
      'http://user@shop.test:5173/callback', // `@` user info
      'http://shop.test:5173@evil.test/callback',
      'https:evil.com',
      'http:shop.test:5173/callback',
      'http://SHOP.test:5173/callback', // case change (host)
      'HTTP://shop.test:5173/callback',
      'https://shop.test:5173/cb',
      `${SHOP}/a/../callback`, // `..` path
      `${SHOP}/x/../../evil`,
      `${SHOP}\\callback`,
      `${SHOP}//evil.test`,
      `${CALLBACK}#frag`,
      'javascript:alert(1)',
    ];
    // Refused for the client that registered CALLBACK; any path on SHOP is fine for the demo client.
    const refusedByExact = [
      `${CALLBACK}/`, // trailing slash
      `${SHOP}/Callback`, // case change (path)
      `${CALLBACK}?x=1`, // extra query
      `${SHOP}/other`,
    ];
    for (const [client, bad] of [
      ...refusedByAll.map((u) => [clientOf(emu.demo.clientId), u] as const),
      ...[...refusedByAll, ...refusedByExact].map((u) => [clientOf(exact), u] as const),
    ]) {
      const res = await authorize(client, bad);
      expect(res.status, bad).toBe(400);
      expect(res.headers.get('location'), bad).toBeNull();
      expect(await res.text(), bad).toContain('The redirect URI is not registered for this client.');
    }
    // The registered URI itself gets the login page.
    const ok = await authorize(clientOf(exact), CALLBACK);
    expect(ok.status).toBe(200);
    expect(await ok.text()).toContain('name="redirect_session_id"');
    // A plain OAuth request without a challenge is refused.
    const res = await fetch(
      `${emu.url}/oauth2/authorize?client_id=${emu.demo.clientId}&response_type=code&redirect_uri=${encodeURIComponent(CALLBACK)}&state=s`,
      { redirect: 'manual' },
    );
    expect(res.status).toBe(400);
    expect(await res.text()).toContain('codeChallenge');
  });

  it('prompt=none with a session token answers at once (fragment); a used session token is refused', async () => {
    const client = member();
    const e = email();
    const r = await client.identity.register({ email: e, password: 'long enough pw' });
    const data = await identity.generateOAuthData(member(), CALLBACK);
    const { authUrl } = await client.identity.getAuthUrl(data, {
      prompt: 'none',
      sessionToken: r.data!.sessionToken,
    });
    expect(authUrl).not.toContain(r.data!.sessionToken!);
    const res = await fetch(authUrl, { redirect: 'manual' });
    const loc = res.headers.get('location')!;
    expect(loc.startsWith(`${CALLBACK}#code=`)).toBe(true);
    expect((await client.identity.getMemberTokensFromUrl(data, loc)).refreshToken.role).toBe('member');
    const again = await identity.generateOAuthData(member(), CALLBACK);
    const second = await client.identity.getAuthUrl(again, {
      prompt: 'none',
      sessionToken: r.data!.sessionToken,
    });
    const loc2 = (await fetch(second.authUrl, { redirect: 'manual' })).headers.get('location')!;
    expect(identity.parseFromUrl(member(), loc2).error).toBe('login_required');
    // The callback step surfaces the server's error with its code (checklist 10), not as a missing
    // code, and checks the state of an error answer too.
    const refused = await failure(client.identity.getMemberTokensFromUrl(again, loc2));
    expect(refused).toBeInstanceOf(ShopkitError);
    expect(refused.code).toBe('login_required');
    expect(refused.message).not.toMatch(/Missing code/);
    const forged = `${CALLBACK}#error=access_denied&error_description=No%20thanks&state=${again.state}`;
    expect(await failure(client.identity.getMemberTokensFromUrl(again, forged))).toMatchObject({
      code: 'access_denied',
      message: 'No thanks',
    });
    await expect(
      client.identity.getMemberTokensFromUrl(again, `${CALLBACK}#error=access_denied&state=other`),
    ).rejects.toThrow('Invalid _state');
  });

  it('web_message answers go to the exact allowed origin only, and may be framed only by it', async () => {
    const client = member();
    const r = await client.identity.register({ email: email(), password: 'long enough pw' });
    /** Creates a web_message redirect session; the page's origin as the header or in the body. */
    const post = async (origin: { header?: string; body?: string }) => {
      const { accessToken } = await client.auth.getTokens();
      const verifier = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
      return fetch(`${emu.url}/_api/redirects-api/v1/redirect-session`, {
        method: 'POST',
        headers: {
          authorization: accessToken.value,
          'content-type': 'application/json',
          ...(origin.header ? { origin: origin.header } : {}),
        },
        body: JSON.stringify({
          auth: {
            authRequest: {
              clientId: emu.demo.clientId,
              responseType: 'code',
              responseMode: 'web_message',
              state: 'st',
              codeChallenge: createHash('sha256').update(verifier).digest('base64url'),
              codeChallengeMethod: 'S256',
              sessionToken: r.data!.sessionToken,
            },
            prompt: 'none',
          },
          ...(origin.body === undefined ? {} : { origin: origin.body }),
        }),
      });
    };
    const create = async (origin: string) =>
      (await (await post({ header: origin })).json()).redirectSession.fullUrl;
    const evil = await fetch(await create('https://evil.test'));
    const evilHtml = await evil.text();
    expect(evilHtml).toContain('redirect_uri_not_allowed');
    // With the fields the platform's own answer carries (security checklist's wire facts).
    expect(evilHtml).toContain(`"rejectedOrigin":"https://evil.test","metaSiteId":"${emu.demo.siteId}"`);
    expect(evilHtml).not.toContain('"code"');
    const good = await fetch(await create(SHOP));
    const html = await good.text();
    expect(html).toContain(`,"${SHOP}")`);
    expect(html).not.toContain('"*"');
    expect(html).toContain('"code"');
    // A strict policy whose frame ancestors are the allowed origin alone (its script by hash).
    expect(good.headers.get('content-security-policy')).toMatch(/^default-src 'none'; script-src 'sha256-/);
    expect(good.headers.get('content-security-policy')).toMatch(new RegExp(`; frame-ancestors ${SHOP}$`));
    // A body `origin` that is not an http(s) origin is refused with the envelope and never echoed:
    // not `*` as a postMessage target or frame ancestor, not CSP syntax, not a header-breaking newline.
    for (const bad of [
      '*',
      'https://evil.test; script-src *',
      'https://evil.test\nX-Injected: 1',
      'null',
      `${SHOP}/`,
    ]) {
      const res = await post({ header: SHOP, body: bad });
      expect(res.status, bad).toBe(400);
      const text = await res.text();
      expect(JSON.parse(text).details.validationError.fieldViolations[0].field, bad).toBe('origin');
      expect(text, bad).not.toMatch(/\*|script-src|X-Injected|evil/);
    }
  });

  it('logout revokes the member refresh tokens and clears local tokens even offline', async () => {
    const { client, tokens } = await newMember();
    await client.auth.setTokens(tokens);
    const { logoutUrl } = await client.identity.logout(`${SHOP}/bye`);
    expect(await client.auth.loggedIn()).toBe(false);
    expect((await client.auth.getTokens()).refreshToken.role).toBe('none');
    const page = await fetch(logoutUrl!, { redirect: 'manual' });
    expect(page.headers.get('location')).toBe(`${SHOP}/bye`);
    const refreshed = await fetch(`${emu.url}/oauth2/token`, {
      method: 'POST',
      body: JSON.stringify({ grantType: 'refresh_token', refreshToken: tokens.refreshToken.value }),
    });
    expect(refreshed.status).toBe(400);
    const offline = createClient({
      baseUrl: emu.url,
      fetch: async () => {
        throw new TypeError('offline');
      },
      retry: { attempts: 1 },
      auth: OAuthStrategy({ clientId: emu.demo.clientId, tokens }),
      modules: { identity },
    });
    // The local logout happens; the answer says the platform's session could not be ended.
    const out = await offline.identity.logout();
    expect(out.logoutUrl).toBeUndefined();
    expect(out.warning).toBeInstanceOf(ShopkitError);
    expect(out.warning!.code).toBe('NETWORK_ERROR');
    expect((await offline.auth.getTokens()).refreshToken.role).toBe('none');
    // Online, nothing to warn about.
    const online = await newMember();
    await online.client.auth.setTokens(online.tokens);
    const fine = await online.client.identity.logout();
    expect(fine.logoutUrl).toMatch(/^http/);
    expect(fine.warning).toBeUndefined();
  });

  it("the platform's GET logout ends the member's session and answers where to go", async () => {
    const { client, tokens } = await newMember();
    await client.auth.setTokens(tokens);
    const out = await client.identity.logoutOnServer({ postLogoutRedirectUri: `${SHOP}/bye` });
    expect(out.redirectUrl).toBe(`${SHOP}/bye`);
    expect(out.response.statusCode).toBe(302);
    const refreshed = await fetch(`${emu.url}/oauth2/token`, {
      method: 'POST',
      body: JSON.stringify({ grantType: 'refresh_token', refreshToken: tokens.refreshToken.value }),
    });
    expect(refreshed.status).toBe(400);
    // A return address the client does not allow is not echoed back.
    const stranger = await member().identity.logoutOnServer({ postLogoutRedirectUri: 'https://evil.test/' });
    expect(stranger.redirectUrl).toBeUndefined();
  });

  it('a refused member refresh is a visible logout, not a silent new visitor', async () => {
    const { client, tokens } = await newMember();
    const other = member({ ...tokens, accessToken: { value: '', expiresAt: 0 } });
    let expired = 0;
    other.auth.on('sessionExpired', () => expired++);
    await client.auth.setTokens(tokens);
    await client.identity.changePassword('a different password');
    await other.collections.getCollectionBySlug('summer-linen').catch(() => undefined);
    expect(expired).toBe(1);
    expect(await other.auth.loggedIn()).toBe(false);
  });

  it('authorized_client and sign-on for a trusted server; token info for each subject', async () => {
    const client = member();
    const e = email();
    const signed = await client.identity.signOn(emu.demo.apiKey, {
      email: e,
      verifyEmail: true,
      profile: {
        customFields: [{ name: 'size', value: { numValue: 42.5 } }],
        addresses: [{ tag: 'HOME', address: { addressLine1: '1 Main St', city: 'Lyon' } }],
      },
    });
    expect(signed.identity.email?.isVerified).toBe(true);
    // The same transforms as register: dates, floats and addresses in the SDK's names both ways.
    expect(signed.identity.createdDate).toBeInstanceOf(Date);
    expect(signed.identity.identityProfile?.customFields?.[0]?.value).toEqual({ numValue: 42.5 });
    expect(signed.identity.identityProfile?.addresses?.[0]?.address).toMatchObject({
      addressLine1: '1 Main St',
      city: 'Lyon',
    });
    // Its failures are the engine's: the platform's error shape, reported to onError.
    const reported: string[] = [];
    const hooked = createClient({
      baseUrl: emu.url,
      auth: OAuthStrategy({ clientId: emu.demo.clientId }),
      modules: { identity },
      onError: (err) => reported.push(err.code),
    });
    await expect(hooked.identity.signOn('not-a-key', { email: email() })).rejects.toBeInstanceOf(
      ShopkitError,
    );
    expect(reported).toHaveLength(1);
    const tokens = await client.identity.getMemberTokensForExternalLogin(signed.identity.id, emu.demo.apiKey);
    expect(tokens.refreshToken.role).toBe('member');
    expect((await client.identity.getTokenInfo(tokens.accessToken.value)).subjectType).toBe('MEMBER');
    expect((await client.identity.getTokenInfo(emu.demo.apiKey)).subjectType).toBe('USER');
    expect((await client.identity.getTokenInfo('nonsense')).active).toBe(false);
    // Without an API key next to the visitor token: refused.
    const res = await fetch(`${emu.url}/oauth2/token`, {
      method: 'POST',
      headers: { authorization: (await client.auth.getTokens()).accessToken.value },
      body: JSON.stringify({ grant_type: 'authorized_client', member_id: signed.identity.id }),
    });
    expect(res.status).toBe(403);
  });

  it('the web-method guard: anyone, site-member, admin', async () => {
    const server = createClient({ baseUrl: emu.url });
    const visitor = member();
    await visitor.auth.generateVisitorTokens();
    const vt = (await visitor.auth.getTokens()).accessToken.value;
    await expect(requireAccess(server, 'anyone', undefined)).rejects.toThrow(
      'Request is missing authentication data',
    );
    expect((await requireAccess(server, 'anyone', vt)).subjectType).toBe('VISITOR');
    await expect(requireAccess(server, 'site-member', vt)).rejects.toThrow('Insufficient permissions');
    await expect(requireAccess(server, 'admin', vt)).rejects.toThrow('Insufficient permissions');
    expect((await requireAccess(server, 'admin', emu.demo.apiKey)).subjectType).toBe('USER');
    await expect(requireAccess(server, 'anyone', 'garbage')).rejects.toThrow('Insufficient permissions');
  });

  it('the app strategy gets an elevated token with client credentials', async () => {
    const { appId, appSecret, instanceId } = await call<{
      appId: string;
      appSecret: string;
      instanceId: string;
    }>(admin(), { method: 'POST', path: '/_api/emulator/v1/apps', args: ['m:'] }, [{ name: 'Test app' }]);
    const settings = { method: 'GET', path: '/_api/emulator/v1/settings', elevated: true } as const;
    const app = createClient({ baseUrl: emu.url, auth: AppStrategy({ appId, appSecret, instanceId }) });
    const s = await call<{ settings: Record<string, boolean> }>(app, settings, []);
    expect(s.settings.captchaRequired).toBe(false);
    // Without an instance the app acts as itself, on no site: the site's calls refuse its token.
    const itself = createClient({ baseUrl: emu.url, auth: AppStrategy({ appId, appSecret }) });
    await expect(call(itself, settings, [])).rejects.toMatchObject({
      status: 403,
      description: expect.stringContaining('granted for no instance'),
    });
    const bad = createClient({ baseUrl: emu.url, auth: AppStrategy({ appId, appSecret: 'wrong' }) });
    await expect(call(bad, { method: 'GET', path: '/_api/emulator/v1/settings' }, [])).rejects.toThrow(
      'something went wrong',
    );
    // A module that needs elevation fails clearly on a visitor client.
    await expect(
      call(
        member(),
        { method: 'GET', path: '/_api/emulator/v1/settings', elevated: true, name: 'settings.get' },
        [],
      ),
    ).rejects.toThrow(/needs an elevated client/);
  });

  it('verification start, factor verify, activation e-mail', async () => {
    const client = member();
    const e = email();
    const r = await client.identity.register({ email: e, password: 'long enough pw' });
    const id = r.data!.identity!.id;
    const { verificationId } = await call<{ verificationId: string }>(
      admin(),
      { method: 'POST', path: '/_api/iam/verification/v1/Start', args: ['m:'] },
      [{ identityId: id, target: 'EMAIL' }],
    );
    const code = (await mailbox(e))[0]!.code!;
    const v = await client.identity.verifyFactor('EMAIL', {
      stateToken: verificationId,
      emailData: { code },
    });
    expect(v.state).toBe('SUCCESS');
    expect(v.identity?.email?.isVerified).toBe(true);
    await client.identity.sendActivationEmail(id);
    expect((await mailbox(e))[0]!.subject).toBe('Activate your account');
  });
});
