/**
 * SSO with an identity provider against the emulator over HTTP (spec 7, wire §5.5): the SSO login
 * on its wire path, the emulated provider's page, the callback that signs the member on and gives
 * a one-shot session token (used here through a `prompt=none` redirect session; the hidden-frame
 * direct login is in apps/storefront/e2e/auth-url.test.ts), login-with-token-params, the hosted
 * login page's provider links that finish an authorization request, and the refusals: unknown
 * connection or tenant, tampered, foreign, expired or replayed tokens, replayed states, and
 * redirect URIs that are not allowed.
 */
import { testBackends } from '@shopkit/emulator/testing';
import { describe, expect, it } from 'vitest';
import { ApplicationError, identity, LoginState } from '../../src/index.ts';
import { ownerCall, setupEmulator, visitorClient } from './setup.ts';

const SHOP = 'http://shop.test:5173';
const CALLBACK = `${SHOP}/callback`;
// A browser navigation accepts HTML (fetch may not set Sec-Fetch-Mode itself).
const NAVIGATE = { accept: 'text/html' };

describe.each(testBackends())('SSO (%s)', (backend) => {
  let skewMs = 0;
  let n = 0;
  const email = () => `sso${++n}-${backend}@example.test`;
  const emu = setupEmulator(backend, {
    allowedOrigins: [SHOP],
    now: () => new Date(Date.now() + skewMs),
  });

  const member = () => visitorClient(emu, { identity });
  const owner = (method: string, path: string, body?: object) => ownerCall(emu, method, path, body);
  const newConnection = async (name: string): Promise<string> =>
    (await owner('POST', '/_api/emulator/v1/idp-connections', { name })).idpConnection.id;
  const idToken = async (connectionId: string, mail: string): Promise<string> =>
    (await owner('POST', `/_api/emulator/v1/idp-connections/${connectionId}/id-tokens`, { email: mail }))
      .idToken;

  /** The emulated provider's page: fill in an e-mail, get the redirect back to the callback. */
  async function atProvider(providerUrl: string, mail: string) {
    const page = await fetch(providerUrl);
    expect(page.status).toBe(200);
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    const state = new URL(providerUrl).searchParams.get('state')!;
    const res = await fetch(new URL(providerUrl).href.split('?')[0]!, {
      method: 'POST',
      redirect: 'manual',
      body: new URLSearchParams({ state, email: mail }),
    });
    expect(res.status).toBe(302);
    const back = new URL(res.headers.get('location')!);
    expect(back.origin + back.pathname).toBe(`${emu.url}/_api/iam/authentication/v1/callback`);
    return { state: back.searchParams.get('state')!, sessionToken: back.searchParams.get('sessionToken')! };
  }

  /** ssoLogin through the SDK, then the provider: what comes back to the callback. */
  async function providerAnswer(connectionId: string, mail: string, customPayload?: string) {
    const { redirectUrl } = await member().identity.ssoLogin(emu.demo.siteId, connectionId, {
      customPayload,
      tenantType: 'SITE',
    });
    expect(redirectUrl!.startsWith(`${emu.url}/idp/${connectionId}/authorize?state=`)).toBe(true);
    return atProvider(redirectUrl!, mail);
  }

  /** Member tokens for a session token through a prompt=none redirect session. */
  async function redeem(client: ReturnType<typeof member>, sessionToken: string) {
    const data = await identity.generateOAuthData(client, CALLBACK);
    const { authUrl } = await client.identity.getAuthUrl(data, { prompt: 'none', sessionToken });
    const loc = (await fetch(authUrl, { redirect: 'manual' })).headers.get('location')!;
    const p = identity.parseFromUrl(client, loc);
    if (p.error) return { error: p.error };
    return { tokens: await client.identity.getMemberTokens(p.code, p.state, data) };
  }

  it('signs a member on through the provider and the callback; the session token logs in once', async () => {
    const idp = await newConnection('Acme ID');
    const mail = email();
    const answer = await providerAnswer(idp, mail);
    const client = member();
    const r = await client.identity.ssoCallback(answer);
    expect(r.loginState).toBe(LoginState.SUCCESS);
    expect(r.data?.identity?.email).toEqual({ address: mail, isVerified: true });
    expect(r.data?.identity?.createdDate).toBeInstanceOf(Date);
    expect(r.data?.identity?.connections).toEqual([
      { idpConnection: { idpConnectionId: idp, idpUserId: expect.any(String) } },
    ]);
    const { tokens } = await redeem(client, r.data!.sessionToken!);
    expect(tokens!.refreshToken.role).toBe('member');
    const info = await client.identity.getTokenInfo(tokens!.accessToken.value);
    expect(info).toMatchObject({ subjectType: 'MEMBER', subjectId: r.data!.identity!.id });
    // The session token works once; the state and the provider's token work once.
    expect((await redeem(client, r.data!.sessionToken!)).error).toBe('login_required');
    expect(await client.identity.ssoCallback(answer)).toMatchObject({
      loginState: 'FAILURE',
      errorCode: 'INVALID_SSO_STATE',
    });
    // The same person again: the same member, linked once.
    const again = await client.identity.ssoCallback(await providerAnswer(idp, mail.toUpperCase()));
    expect(again.data?.identity?.id).toBe(r.data!.identity!.id);
    expect(again.data?.identity?.connections).toHaveLength(1);
  });

  it("the provider's form refuses a body over 16 KiB, declared or streamed, and still works after", async () => {
    const idp = await newConnection('Big forms');
    const { redirectUrl } = await member().identity.ssoLogin(emu.demo.siteId, idp, { tenantType: 'SITE' });
    const state = new URL(redirectUrl!).searchParams.get('state')!;
    const form = new URLSearchParams({ state, email: email(), name: 'x'.repeat(17 * 1024) }).toString();
    const post = (body: BodyInit) =>
      fetch(redirectUrl!.split('?')[0]!, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body,
        duplex: 'half',
      } as RequestInit);
    expect((await post(form)).status).toBe(413);
    const streamed = new ReadableStream({
      start(c) {
        c.enqueue(new TextEncoder().encode(form));
        c.close();
      },
    });
    expect((await post(streamed)).status).toBe(413);
    // The state was not spent by the refusals.
    expect((await atProvider(redirectUrl!, email())).sessionToken).toBeTruthy();
  });

  it('links an existing password member by e-mail, and hands the custom payload back', async () => {
    const idp = await newConnection('Link ID');
    const client = member();
    const mail = email();
    const reg = await client.identity.register({ email: mail, password: 'long enough pw' });
    // The member proved the address (a verified sign-on): its password is its own.
    await identity.signOn(client, emu.demo.apiKey, { email: mail, verifyEmail: true });
    const answer = await providerAnswer(idp, mail, 'cart=42');
    const res = await fetch(`${emu.url}/_api/iam/authentication/v1/callback?${new URLSearchParams(answer)}`);
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.state).toBe('SUCCESS');
    expect(body.identity.id).toBe(reg.data!.identity!.id);
    expect(body.additionalData).toEqual({ customPayload: { strValue: 'cart=42' } });
    // The password still works too.
    expect((await client.identity.login({ email: mail, password: 'long enough pw' })).loginState).toBe(
      'SUCCESS',
    );
  });

  it('links a member whose e-mail was never proved, ending the password and sessions set without proof', async () => {
    // Someone registers the owner's address first, with a password of their own, and keeps a
    // session, waiting for the owner to sign on through the provider ("pre-account hijacking").
    const idp = await newConnection('Squat ID');
    const mail = email();
    const squatter = member();
    const reg = await squatter.identity.register({ email: mail, password: 'squatters pw' });
    const login = await squatter.identity.login({ email: mail, password: 'squatters pw' });
    const { tokens } = await redeem(squatter, login.data!.sessionToken!);
    const answer = await providerAnswer(idp, mail);
    const owner = member();
    const r = await owner.identity.ssoCallback(answer);
    expect(r.loginState).toBe(LoginState.SUCCESS);
    expect(r.data!.identity!.id).toBe(reg.data!.identity!.id);
    expect((await redeem(owner, r.data!.sessionToken!)).tokens!.refreshToken.role).toBe('member');
    // The squatter's password and refresh token no longer work.
    expect((await squatter.identity.login({ email: mail, password: 'squatters pw' })).loginState).not.toBe(
      LoginState.SUCCESS,
    );
    const refreshed = await fetch(`${emu.url}/oauth2/token`, {
      method: 'POST',
      body: JSON.stringify({ grantType: 'refresh_token', refreshToken: tokens!.refreshToken.value }),
    });
    expect(refreshed.status).toBe(400);
  });

  it('unknown connection or tenant: the 404 envelope on every SSO path', async () => {
    const client = member();
    const err = await client.identity.ssoLogin(emu.demo.siteId, 'no-such-connection').catch((e) => e);
    expect(err).toBeInstanceOf(ApplicationError);
    expect(err).toMatchObject({ status: 404, code: 'IDP_CONNECTION_NOT_FOUND' });
    const res = await fetch(
      `${emu.url}/_api/iam/authentication/v1/sso/login/${emu.demo.siteId}/no-such-connection`,
      { headers: NAVIGATE },
    );
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({
      message: 'No identity provider connection has this id',
      details: {
        applicationError: {
          code: 'IDP_CONNECTION_NOT_FOUND',
          description: 'No identity provider connection has this id',
          data: {},
        },
      },
    });
    const idp = await newConnection('Tenant ID');
    expect(
      await client.identity.ssoLogin('another-site', idp).catch((e) => ({ status: e.status, code: e.code })),
    ).toEqual({ status: 404, code: 'TENANT_NOT_FOUND' });
    expect(
      await client.identity.ssoLogin(emu.demo.siteId, idp, { tenantType: 'ACCOUNT' }).catch((e) => e.code),
    ).toBe('TENANT_NOT_FOUND');
    expect(
      await client.identity.loginWithTokenParams('no-such-connection', { id_token: 'x.y.z' }),
    ).toMatchObject({ loginState: 'FAILURE', errorCode: 'IDP_CONNECTION_NOT_FOUND' });
    const raw = await fetch(`${emu.url}/_api/iam/authentication/v1/sso/login-with-token-params`, {
      method: 'POST',
      body: JSON.stringify({ idpConnectionId: 'no-such-connection', tokenParams: {} }),
    });
    expect(raw.status).toBe(404);
    expect((await raw.json()).details.applicationError.code).toBe('IDP_CONNECTION_NOT_FOUND');
    // Creating connections and minting provider tokens is for the owner only.
    const anon = await fetch(`${emu.url}/_api/emulator/v1/idp-connections`, {
      method: 'POST',
      body: JSON.stringify({ name: 'Mine' }),
    });
    expect(anon.status).toBe(401);
  });

  it('the callback refuses tampered, foreign-state and expired provider tokens, and burns the state', async () => {
    const idp = await newConnection('Strict ID');
    const client = member();
    const callback = (p: { state: string; sessionToken: string }) =>
      fetch(`${emu.url}/_api/iam/authentication/v1/callback?${new URLSearchParams(p)}`);

    // Tampered: another e-mail in the payload, same signature.
    const a = await providerAnswer(idp, email());
    const [h, body, sig] = a.sessionToken.split('.') as [string, string, string];
    const claims = JSON.parse(Buffer.from(body, 'base64url').toString());
    const forged = `${h}.${Buffer.from(JSON.stringify({ ...claims, email: 'owner@example.test' })).toString('base64url')}.${sig}`;
    const res = await callback({ state: a.state, sessionToken: forged });
    expect(res.status).toBe(400);
    expect((await res.json()).details.applicationError.code).toBe('INVALID_TOKEN_PARAMS');
    // The state had its one try: the genuine token is refused now too.
    expect(await client.identity.ssoCallback(a)).toMatchObject({
      loginState: 'FAILURE',
      errorCode: 'INVALID_SSO_STATE',
    });

    // A token answered for one login does not work for another.
    const b = await providerAnswer(idp, email());
    const c = await providerAnswer(idp, email());
    expect(await client.identity.ssoCallback({ state: c.state, sessionToken: b.sessionToken })).toMatchObject(
      { loginState: 'FAILURE', errorCode: 'INVALID_TOKEN_PARAMS' },
    );
    // Nor through login-with-token-params.
    expect(await client.identity.loginWithTokenParams(idp, { id_token: b.sessionToken })).toMatchObject({
      loginState: 'FAILURE',
      errorCode: 'INVALID_TOKEN_PARAMS',
    });

    // Expired: the provider's tokens live 5 minutes.
    const d = await providerAnswer(idp, email());
    skewMs = 6 * 60_000;
    try {
      expect(await client.identity.ssoCallback(d)).toMatchObject({
        loginState: 'FAILURE',
        errorCode: 'INVALID_TOKEN_PARAMS',
      });
    } finally {
      skewMs = 0;
    }
    // A made-up state.
    expect(
      await client.identity.ssoCallback({ state: 'SSO.made-up', sessionToken: d.sessionToken }),
    ).toMatchObject({ loginState: 'FAILURE', errorCode: 'INVALID_SSO_STATE' });
  });

  it('login-with-token-params: a token of that provider logs in once; tampered or foreign tokens are refused', async () => {
    const idp = await newConnection('Native ID');
    const other = await newConnection('Other ID');
    const client = member();
    const mail = email();
    const token = await idToken(idp, mail);
    const r = await client.identity.loginWithTokenParams(idp, { id_token: token });
    expect(r.loginState).toBe('SUCCESS');
    expect(r.data?.identity?.email?.address).toBe(mail);
    expect((await redeem(client, r.data!.sessionToken!)).tokens!.refreshToken.role).toBe('member');
    // Replayed.
    expect(await client.identity.loginWithTokenParams(idp, { id_token: token })).toMatchObject({
      loginState: 'FAILURE',
      errorCode: 'INVALID_TOKEN_PARAMS',
    });
    // Another connection's token, a tampered signature, an unsigned token, nothing at all.
    const foreign = await idToken(other, mail);
    const fresh = await idToken(idp, mail);
    const [h, p, s] = fresh.split('.') as [string, string, string];
    const flipped = `${h}.${p}.${s.slice(0, 10)}${s[10] === 'A' ? 'B' : 'A'}${s.slice(11)}`;
    const unsigned = `${Buffer.from(JSON.stringify({ alg: 'none', kid: idp })).toString('base64url')}.${p}.`;
    for (const bad of [{ id_token: foreign }, { id_token: flipped }, { id_token: unsigned }, {}]) {
      const res = await fetch(`${emu.url}/_api/iam/authentication/v1/sso/login-with-token-params`, {
        method: 'POST',
        body: JSON.stringify({ idpConnectionId: idp, tokenParams: bad }),
      });
      expect(res.status).toBe(400);
      expect((await res.json()).details.applicationError.code).toBe('INVALID_TOKEN_PARAMS');
    }
    // The untouched token still works (the refusals did not spend it).
    expect((await client.identity.loginWithTokenParams(idp, { idToken: fresh })).loginState).toBe('SUCCESS');
  });

  it('new members wait for the owner when approval is required; blocked members are refused', async () => {
    const idp = await newConnection('Approval ID');
    const client = member();
    await owner('POST', '/_api/emulator/v1/settings', { ownerApprovalRequired: true });
    try {
      const r = await client.identity.loginWithTokenParams(idp, { id_token: await idToken(idp, email()) });
      expect(r.loginState).toBe('OWNER_APPROVAL_REQUIRED');
      expect(r.data?.identity?.status).toEqual({
        name: 'PENDING',
        reasons: ['PENDING_ADMIN_APPROVAL_REQUIRED'],
      });
    } finally {
      await owner('POST', '/_api/emulator/v1/settings', { ownerApprovalRequired: false });
    }
    const mail = email();
    const first = await client.identity.loginWithTokenParams(idp, { id_token: await idToken(idp, mail) });
    await owner('POST', `/_api/emulator/v1/members/${first.data!.identity!.id}/block`);
    expect(
      await client.identity.loginWithTokenParams(idp, { id_token: await idToken(idp, mail) }),
    ).toMatchObject({ loginState: 'FAILURE', errorCode: 'MEMBER_BLOCKED' });
  });

  it('the hosted login page links the providers; SSO there ends with a code at the exact redirect URI', async () => {
    const idp = await newConnection('Page ID');
    const client = member();
    const data = await identity.generateOAuthData(client, CALLBACK);
    const { authUrl } = await client.identity.getAuthUrl(data, { responseMode: 'query' });
    const html = await (await fetch(authUrl)).text();
    const href = new RegExp(`href="([^"]+/sso/login/[^"]+/${idp}\\?[^"]+)">Log in with Page ID<`).exec(
      html,
    )![1]!;
    const start = await fetch(new URL(href.replace(/&amp;/g, '&'), emu.url), {
      headers: NAVIGATE,
      redirect: 'manual',
    });
    expect(start.status).toBe(302);
    const answer = await atProvider(start.headers.get('location')!, email());
    const done = await fetch(
      `${emu.url}/_api/iam/authentication/v1/callback?${new URLSearchParams(answer)}`,
      {
        headers: NAVIGATE,
        redirect: 'manual',
      },
    );
    expect(done.status).toBe(302);
    const loc = done.headers.get('location')!;
    expect(loc.startsWith(`${CALLBACK}?code=`)).toBe(true);
    const p = identity.parseFromUrl(client, loc, 'query');
    expect(p.state).toBe(data.state);
    expect((await client.identity.getMemberTokens(p.code, p.state, data)).refreshToken.role).toBe('member');
  });

  it('getAuthUrl with an idp goes straight to that provider; an idp the site lacks gets the login page', async () => {
    const idp = await newConnection('Direct ID');
    const client = member();
    const data = await identity.generateOAuthData(client, CALLBACK);
    const { authUrl } = await client.identity.getAuthUrl(data, {
      responseMode: 'query',
      idp: { connectionId: idp },
    });
    const toSso = await fetch(authUrl, { redirect: 'manual' });
    expect(toSso.status).toBe(302);
    const start = await fetch(new URL(toSso.headers.get('location')!, emu.url), {
      headers: NAVIGATE,
      redirect: 'manual',
    });
    expect(start.headers.get('location')!.startsWith(`${emu.url}/idp/${idp}/authorize?state=`)).toBe(true);
    const answer = await atProvider(start.headers.get('location')!, email());
    const done = await fetch(
      `${emu.url}/_api/iam/authentication/v1/callback?${new URLSearchParams(answer)}`,
      {
        headers: NAVIGATE,
        redirect: 'manual',
      },
    );
    const p = identity.parseFromUrl(client, done.headers.get('location')!, 'query');
    expect((await client.identity.getMemberTokens(p.code, p.state, data)).refreshToken.role).toBe('member');

    // The platform's Google connection is not one of this site's: the login page, with a note.
    const other = await identity.generateOAuthData(client, CALLBACK);
    const { authUrl: google } = await client.identity.getAuthUrl(other, {
      responseMode: 'query',
      idp: 'google',
    });
    const page = await fetch(google, { redirect: 'manual' });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('This site has no such identity provider; log in here.');
  });

  it('no open redirect: an SSO for a login session whose redirect URI is not allowed gets an error page', async () => {
    const idp = await newConnection('Evil ID');
    const client = member();
    const codes = async () => (await emu.emu.db.query('SELECT count(*)::int AS n FROM auth_codes'))[0]!.n;
    const before = await codes();
    for (const bad of ['https://evil.test/cb', `${SHOP}.evil.test/cb`, 'http://user@shop.test:5173/cb']) {
      const data = await identity.generateOAuthData(client, bad);
      const { authUrl } = await client.identity.getAuthUrl(data, { responseMode: 'query' });
      const sessionId = new URL(authUrl).searchParams.get('redirect_session_id')!;
      const { redirectUrl } = await client.identity.ssoLogin(emu.demo.siteId, idp, { sessionId });
      const answer = await atProvider(redirectUrl!, email());
      const res = await fetch(
        `${emu.url}/_api/iam/authentication/v1/callback?${new URLSearchParams(answer)}`,
        {
          headers: NAVIGATE,
          redirect: 'manual',
        },
      );
      expect(res.status).toBe(400);
      expect(res.headers.get('location')).toBeNull();
    }
    expect(await codes()).toBe(before);
    // A session id that is not a login session is refused up front.
    const bad = await client.identity.ssoLogin(emu.demo.siteId, idp, { sessionId: 'nope' }).catch((e) => e);
    expect(bad).toMatchObject({ status: 400, code: 'INVALID_ARGUMENT' });
  });
});
