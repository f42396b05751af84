/**
 * Security checklist items that need the whole system, the SDK against the emulator over HTTP on
 * both backends (see docs/security.md): 7–9 (state checked before any token request, single use),
 * 24 (expiry leeway), 26 (token requests retried on network failures only, never a refusal), 42 (no-store on every grant and every
 * answer with a session token), 44 (refresh tokens never outlive their family, and expire when
 * unused for 14 days), 45 (`/oauth2/revoke`, the emulator's RFC 7009 extension), 46 (no CORS on the
 * authorize endpoint), 47 (no presented secret stored in cleartext: every table dumped after
 * register, login, the code flow, a refresh, a reset request, e-mail verification and SSO), 49
 * (password length limits), 50 (the account-hiding setting), 52 (recovery links: configured base,
 * expiry, per-account limit), 53 (codes expire) and 55 (the anonymous grant is rate limited per IP
 * address and client id, with the envelope and `Retry-After`; others unaffected; the SDK makes one
 * token request, not a retry loop).
 */
import { createHash } from 'node:crypto';
import { request } from 'node:http';
import { testBackends } from '@shopkit/emulator/testing';
import { describe, expect, it } from 'vitest';
import { collections, identity, type Tokens } from '../../src/index.ts';
import { mailbox as mailboxOf, ownerCall, setupEmulator, visitorClient } from './setup.ts';

const SHOP = 'http://shop.test:5173';
const CALLBACK = `${SHOP}/callback`;
const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

describe.each(testBackends())('security checklist (%s)', (backend) => {
  let skewMs = 0;
  const emu = setupEmulator(backend, {
    allowedOrigins: [SHOP],
    now: () => new Date(Date.now() + skewMs),
  });

  const member = (fetchImpl?: typeof fetch, tokens?: Tokens) =>
    visitorClient(emu, { identity, collections }, { fetch: fetchImpl, tokens });
  /** A fetch that records the paths and grant types it sends, then passes the call on. */
  const recorder = () => {
    const seen: string[] = [];
    const f: typeof fetch = async (input, init) => {
      const path = new URL(String(input)).pathname;
      const grant = path === '/oauth2/token' ? JSON.parse(String(init?.body)).grantType : undefined;
      seen.push(grant ? `token:${grant}` : path);
      return fetch(input, init);
    };
    return { seen, fetch: f };
  };
  const token = (body: object, headers: Record<string, string> = {}) =>
    fetch(`${emu.url}/oauth2/token`, { method: 'POST', headers, body: JSON.stringify(body) });
  /** Runs `fn` with the emulator's clock moved on by `ms`, then puts it back. */
  const later = async <T>(ms: number, fn: () => Promise<T>) => {
    skewMs += ms;
    try {
      return await fn();
    } finally {
      skewMs -= ms;
    }
  };
  let n = 0;
  const email = () => `sec${++n}-${backend}@example.test`;
  const owner = (method: string, path: string, body?: object) => ownerCall(emu, method, path, body);
  const mailbox = (to: string) => mailboxOf(emu, to);
  /**
   * External member login (wire §5.6): a new member signed on with the visitor token `visitor` and
   * the API key, then the authorized_client grant for it; the token endpoint's answer.
   */
  const externalMember = async (visitor: string) => {
    const trusted = { authorization: `${visitor},${emu.demo.apiKey}` };
    const signed = await (
      await fetch(`${emu.url}/_api/iam/authentication/v2/sign-on`, {
        method: 'POST',
        headers: { ...trusted, 'content-type': 'application/json' },
        body: JSON.stringify({ loginId: { email: email() } }),
      })
    ).json();
    return token(
      { grant_type: 'authorized_client', scope: 'offline_access', member_id: signed.identity.id },
      trusted,
    );
  };

  /** Every row of every table of the emulator's schema, as JSON text per table. */
  async function dump() {
    const tables = await emu.emu.db.query<{ table_name: string }>(
      `SELECT table_name FROM information_schema.tables
        WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY table_name`,
    );
    const out: Record<string, string> = {};
    for (const { table_name } of tables) {
      const rows = await emu.emu.db.query<{ j: string }>(
        `SELECT row_to_json(x)::text AS j FROM "${table_name.replace(/"/g, '')}" x`,
      );
      out[table_name] = rows.map((r) => r.j).join('\n');
    }
    return out;
  }

  it('checklist 47: no presented token, code or password is stored in cleartext (every table dumped)', async () => {
    const secrets: Record<string, string> = {};
    const client = member();
    const mail = `secrets-${backend}@example.test`;
    const password = 'a secret passphrase 47';

    const visitor = await client.auth.generateVisitorTokens();
    secrets.visitorAccess = visitor.accessToken.value;
    secrets.visitorRefresh = visitor.refreshToken.value;
    secrets.password = password;
    const reg = await client.identity.register({ email: mail, password });
    secrets.registerSession = reg.data!.sessionToken!;
    const login = await client.identity.login({ email: mail, password });
    secrets.loginSession = login.data!.sessionToken!;

    // The code flow through the hosted login page: an authorization code, then member tokens.
    const data = await identity.generateOAuthData(client, CALLBACK);
    const { authUrl } = await client.identity.getAuthUrl(data, { responseMode: 'query' });
    const sessionId = new URL(authUrl).searchParams.get('redirect_session_id')!;
    const submit = await fetch(`${emu.url}/oauth2/authorize/submit`, {
      method: 'POST',
      redirect: 'manual',
      body: new URLSearchParams({ redirect_session_id: sessionId, action: 'login', email: mail, password }),
    });
    const p = identity.parseFromUrl(client, submit.headers.get('location')!, 'query');
    secrets.code = p.code!;
    secrets.codeVerifier = data.codeVerifier;
    const tokens = await client.identity.getMemberTokens(p.code, p.state, data);
    secrets.memberAccess = tokens.accessToken.value;
    secrets.memberRefresh = tokens.refreshToken.value;

    // A refresh (rotation), and a login session token redeemed through prompt=none.
    await client.auth.setTokens(tokens);
    const renewed = await client.auth.renewToken();
    secrets.renewedAccess = renewed.accessToken.value;
    secrets.renewedRefresh = renewed.refreshToken.value;
    const quiet = await identity.generateOAuthData(client, CALLBACK);
    const { authUrl: noneUrl } = await client.identity.getAuthUrl(quiet, {
      prompt: 'none',
      sessionToken: secrets.loginSession,
    });
    const loc = (await fetch(noneUrl, { redirect: 'manual' })).headers.get('location')!;
    secrets.directCode = identity.parseFromUrl(client, loc).code!;

    // A reset request, and an e-mail verification code.
    await client.identity.sendPasswordResetEmail(mail);
    secrets.resetToken = new URL((await mailbox(mail))[0]!.link!).searchParams.get('token')!;
    await owner('POST', '/_api/emulator/v1/settings', { emailVerificationRequired: true });
    let verificationCode: string;
    try {
      const pending = await member().identity.register({ email: `pending-${mail}`, password });
      secrets.stateToken = pending.data!.stateToken!;
      verificationCode = (await mailbox(`pending-${mail}`))[0]!.code!;
    } finally {
      await owner('POST', '/_api/emulator/v1/settings', { emailVerificationRequired: false });
    }

    // SSO: the provider's token and the session token of the callback.
    const idp = (await owner('POST', '/_api/emulator/v1/idp-connections', { name: 'Dump ID' })).idpConnection
      .id as string;
    const idToken = (
      await owner('POST', `/_api/emulator/v1/idp-connections/${idp}/id-tokens`, { email: `sso-${mail}` })
    ).idToken as string;
    secrets.idpToken = idToken;
    secrets.ssoSession = (await client.identity.loginWithTokenParams(idp, { id_token: idToken })).data!
      .sessionToken!;
    const { redirectUrl } = await client.identity.ssoLogin(emu.demo.siteId, idp);
    secrets.ssoState = new URL(redirectUrl!).searchParams.get('state')!;

    for (const [name, value] of Object.entries(secrets)) expect(value, name).toBeTruthy();
    const tables = await dump();
    // The dump covers the token stores, and each token is there as its SHA-256.
    for (const t of [
      'access_tokens',
      'refresh_tokens',
      'login_sessions',
      'auth_codes',
      'identity_challenges',
    ])
      expect(Object.keys(tables)).toContain(t);
    expect(tables.access_tokens).toContain(sha256(secrets.memberAccess));
    expect(tables.refresh_tokens).toContain(sha256(secrets.renewedRefresh));
    expect(tables.login_sessions).toContain(sha256(secrets.loginSession));
    expect(tables.auth_codes).toContain(sha256(secrets.code));
    expect(tables.identity_challenges).toContain(sha256(secrets.resetToken));
    expect(tables.sso_transactions).toContain(sha256(secrets.ssoState));

    // The development mailbox is the outgoing e-mail itself (the delivery channel of reset links
    // and codes), so it is the one place that holds them: it shows the search works.
    const { mailbox: outbox, ...stores } = tables;
    expect(outbox).toContain(secrets.resetToken);
    const code = new RegExp(`(^|[^0-9A-Za-z])${verificationCode!}([^0-9A-Za-z]|$)`);
    expect(outbox).toMatch(code);
    const found: string[] = [];
    for (const [table, text] of Object.entries(stores)) {
      for (const [name, value] of Object.entries(secrets))
        if (text.includes(value)) found.push(`${name} in ${table}`);
      if (code.test(text)) found.push(`verificationCode in ${table}`);
      // A code has a million values: its plain SHA-256 gave it away to whoever read the table.
      if (text.includes(sha256(verificationCode!))) found.push(`SHA-256 of verificationCode in ${table}`);
    }
    expect(found).toEqual([]);
  });

  it('checklists 7–9: a missing, wrong or used state is refused before any token request', async () => {
    const rec = recorder();
    const client = member(rec.fetch);
    const mail = email();
    await client.identity.register({ email: mail, password: 'long enough pw' });
    const data = await identity.generateOAuthData(client, CALLBACK);
    const { authUrl } = await client.identity.getAuthUrl(data, { responseMode: 'query' });
    const submit = await fetch(`${emu.url}/oauth2/authorize/submit`, {
      method: 'POST',
      redirect: 'manual',
      body: new URLSearchParams({
        redirect_session_id: new URL(authUrl).searchParams.get('redirect_session_id')!,
        action: 'login',
        email: mail,
        password: 'long enough pw',
      }),
    });
    const p = identity.parseFromUrl(client, submit.headers.get('location')!, 'query');
    rec.seen.length = 0;
    await expect(client.identity.getMemberTokens(p.code, undefined, data)).rejects.toThrow(
      'Missing code or _state',
    );
    await expect(client.identity.getMemberTokens(p.code, `${p.state}x`, data)).rejects.toThrow(
      'Invalid _state',
    );
    expect(rec.seen).toEqual([]);
    expect((await client.identity.getMemberTokens(p.code, p.state, data)).refreshToken.role).toBe('member');
    await expect(client.identity.getMemberTokens(p.code, p.state, data)).rejects.toThrow('Invalid _state');
    expect(rec.seen).toEqual(['token:authorization_code']);
  });

  it('checklist 24: an access token 10 s from expiry is renewed before the call; one 60 s away is used', async () => {
    const pair = await (await token({ clientId: emu.demo.clientId, grantType: 'anonymous' })).json();
    const at = (seconds: number): Tokens => ({
      accessToken: { value: pair.access_token, expiresAt: Math.floor(Date.now() / 1000) + seconds },
      refreshToken: { value: pair.refresh_token, role: 'visitor' },
    });
    const fresh = recorder();
    await member(fresh.fetch, at(60)).collections.getCollectionBySlug('summer-linen');
    expect(fresh.seen).toEqual(['/v2/collections/slug/summer-linen']);
    const near = recorder();
    await member(near.fetch, at(10)).collections.getCollectionBySlug('summer-linen');
    expect(near.seen).toEqual(['token:refresh_token', '/v2/collections/slug/summer-linen']);
  });

  it('checklist 26: a refused refresh is sent once; a network failure is tried three times, then fails clearly', async () => {
    const pair = await (await token({ clientId: emu.demo.clientId, grantType: 'anonymous' })).json();
    const stale: Tokens = {
      accessToken: { value: '', expiresAt: 0 },
      refreshToken: { value: pair.refresh_token, role: 'visitor' },
    };
    const renewed = await token({ grantType: 'refresh_token', refreshToken: pair.refresh_token });
    expect(renewed.status).toBe(200);
    // Its successor used too: the first is spent for good (no grace answer any more).
    const next = (await renewed.json()).refresh_token;
    expect((await token({ grantType: 'refresh_token', refreshToken: next })).status).toBe(200);
    // The refresh token is used up: one refused refresh, then (spec 4) a new visitor.
    const refused = recorder();
    await member(refused.fetch, stale).collections.getCollectionBySlug('summer-linen');
    expect(refused.seen).toEqual([
      'token:refresh_token',
      'token:anonymous',
      '/v2/collections/slug/summer-linen',
    ]);
    // The network fails: three token requests with backoff, then one clear error.
    let calls = 0;
    const offline = member(async () => {
      calls++;
      throw new TypeError('fetch failed');
    });
    await expect(offline.collections.getCollectionBySlug('summer-linen')).rejects.toMatchObject({
      message: 'something went wrong',
      code: 'NETWORK_ERROR',
    });
    expect(calls).toBe(3);
    // It fails twice, then comes back: the third token request works and the call goes through.
    const flaky = recorder();
    let failures = 0;
    const back = member(async (input, init) => {
      if (String(input).endsWith('/oauth2/token') && failures++ < 2) throw new TypeError('fetch failed');
      return flaky.fetch(input, init);
    });
    expect((await back.collections.getCollectionBySlug('summer-linen')).collection?.slug).toBe(
      'summer-linen',
    );
    expect(failures).toBe(3);
    expect(flaky.seen).toEqual(['token:anonymous', '/v2/collections/slug/summer-linen']);
  });

  it('checklist 42: every grant, and every answer with a session token, is no-store and no-cache', async () => {
    const anon = await token({ clientId: emu.demo.clientId, grantType: 'anonymous' });
    const pair = await anon.clone().json();
    const refreshed = await token({ grantType: 'refresh_token', refreshToken: pair.refresh_token });
    const { appId, appSecret } = await owner('POST', '/_api/emulator/v1/apps', { name: 'No-store app' });
    const app = await token({ grant_type: 'client_credentials', client_id: appId, client_secret: appSecret });
    const external = await externalMember(pair.access_token);
    const grants = { anon, refreshed, app, external };

    // The identity answers that carry a session token, as the visitor `pair` asks for them.
    const post = (path: string, body: object, authorization = pair.access_token) =>
      fetch(`${emu.url}${path}`, {
        method: 'POST',
        headers: { authorization, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const A = '/_api/iam/authentication';
    const mail = email();
    const password = 'long enough pw';
    const register = await post(`${A}/v2/register`, { loginId: { email: mail }, password });
    const login = await post(`${A}/v2/login`, { loginId: { email: mail }, password });
    const signOn = await post(
      `${A}/v2/sign-on`,
      { loginId: { email: email() } },
      `${pair.access_token},${emu.demo.apiKey}`,
    );
    await post('/_api/iam/recovery/v1/send-email', { email: mail });
    const recoveryToken = new URL((await mailbox(mail))[0]!.link!).searchParams.get('token')!;
    const recover = await post('/_api/iam/recovery/v1/recover', {
      recoveryToken,
      password: 'a new password',
    });
    await owner('POST', '/_api/emulator/v1/settings', { emailVerificationRequired: true });
    const pending = async () => {
      const to = email();
      const r = await (await post(`${A}/v2/register`, { loginId: { email: to }, password })).json();
      return { stateToken: r.stateToken as string, code: (await mailbox(to))[0]!.code! };
    };
    let verify: Response;
    let factorVerify: Response;
    try {
      const one = await pending();
      verify = await post('/_api/iam/verification/v1/auth/verify', one);
      const two = await pending();
      factorVerify = await post(`${A}/v2/verify`, {
        stateToken: two.stateToken,
        factorType: 'EMAIL',
        emailData: { code: two.code },
      });
    } finally {
      await owner('POST', '/_api/emulator/v1/settings', { emailVerificationRequired: false });
    }
    const idp = (await owner('POST', '/_api/emulator/v1/idp-connections', { name: 'No-store ID' }))
      .idpConnection.id as string;
    const { idToken } = await owner('POST', `/_api/emulator/v1/idp-connections/${idp}/id-tokens`, {
      email: email(),
    });
    const withTokenParams = await post(`${A}/v1/sso/login-with-token-params`, {
      idpConnectionId: idp,
      tokenParams: { id_token: idToken },
    });
    // The SSO callback: a GET whose JSON carries the session token.
    const ssoLogin = await fetch(`${emu.url}${A}/v1/sso/login/${emu.demo.siteId}/${idp}`, {
      headers: { authorization: pair.access_token },
    });
    const providerUrl = new URL((await ssoLogin.json()).headers[0].value);
    const state = providerUrl.searchParams.get('state')!;
    const atProvider = await fetch(`${emu.url}${providerUrl.pathname}`, {
      method: 'POST',
      redirect: 'manual',
      body: new URLSearchParams({ state, email: email() }),
    });
    const callback = await fetch(atProvider.headers.get('location')!);

    const answers = { register, login, signOn, recover, verify, factorVerify, withTokenParams, callback };
    for (const [name, res] of Object.entries(answers)) {
      expect([name, res.status]).toEqual([name, 200]);
      expect((await res.clone().json()).sessionToken, name).toBeTruthy();
    }
    for (const [name, res] of Object.entries({ ...grants, ...answers })) {
      expect([name, res.status, res.headers.get('cache-control'), res.headers.get('pragma')]).toEqual([
        name,
        200,
        'no-store',
        'no-cache',
      ]);
    }
  });

  const DAY = 24 * 3600_000;
  const refresh = (refreshToken: string, clientId?: string) =>
    token({ grantType: 'refresh_token', refreshToken, clientId });
  const anonymous = async (clientId = emu.demo.clientId) =>
    (await token({ clientId, grantType: 'anonymous' })).json() as Promise<{
      access_token: string;
      refresh_token: string;
    }>;
  /** A call that needs a token: 200 with a live access token, 401 with a dead one. */
  const call = (accessToken: string) =>
    fetch(`${emu.url}/v2/collections/slug/summer-linen`, { headers: { authorization: accessToken } });
  /** A revocation request: an object goes as JSON, a string or form as it is, with `headers`. */
  const revoke = (
    body: object | string | URLSearchParams,
    headers?: Record<string, string>,
    path = '/oauth2/revoke',
  ) =>
    fetch(`${emu.url}${path}`, {
      method: 'POST',
      ...(typeof body === 'string' || body instanceof URLSearchParams
        ? { headers, body }
        : { headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) }),
    });
  /** The answer to an expired or revoked refresh token. */
  const EXPIRED = {
    message: 'The refresh token is expired or revoked',
    details: {
      applicationError: {
        code: 'invalid_grant',
        description: 'The refresh token is expired or revoked',
        data: {},
      },
    },
  };

  it('checklist 44: a rotated refresh token never outlives the first one of its family (30 days)', async () => {
    let rt = (await anonymous()).refresh_token;
    // Refreshed every 10 days or less (inside the 14-day idle window), across several windows:
    // each refresh works and gives a new token of the same family.
    for (const day of [10, 20, 29]) {
      const r = await later(day * DAY, () => refresh(rt));
      expect(r.status, `day ${day}`).toBe(200);
      rt = (await r.json()).refresh_token;
    }
    // Past the family's 30 days, even the newest one (a day old, well inside its idle window) is refused.
    const late = await later(30 * DAY + 60_000, () => refresh(rt));
    expect(late.status).toBe(400);
    expect(await late.json()).toEqual(EXPIRED);
  });

  it('checklist 44: a refresh token unused for 14 days is refused like an expired one, and its family ends', async () => {
    // A member's tokens (external login), not refreshed since.
    const tokens = await (await externalMember((await anonymous()).access_token)).json();
    expect((await call(tokens.access_token)).status).toBe(200);
    const idle = await later(14 * DAY + 60_000, () => refresh(tokens.refresh_token, emu.demo.clientId));
    expect(idle.status).toBe(400);
    expect(await idle.json()).toEqual(EXPIRED);
    // Back at the present, the family is revoked, not merely idle: the refresh token and the access
    // token issued with it are refused.
    expect((await refresh(tokens.refresh_token, emu.demo.clientId)).status).toBe(400);
    expect((await call(tokens.access_token)).status).toBe(401);

    // A visitor's token used just inside the window works; its successor has a window of its own.
    const visitor = await anonymous();
    const inside = await later(14 * DAY - 60_000, () => refresh(visitor.refresh_token));
    expect(inside.status).toBe(200);
    const next = (await inside.json()).refresh_token;
    expect((await later(27 * DAY, () => refresh(next))).status).toBe(200);
  });

  it('checklist 45: /oauth2/revoke answers 200 {} with no-store to any token, even garbage; bad input gets the 400 envelope', async () => {
    const json = { 'content-type': 'application/json' };
    const answers = [
      await revoke({ token: 'garbage' }),
      await revoke({ token: `OauthNG.${'x'.repeat(43)}` }, {}, '/_api/oauth2/revoke'),
      await revoke({ token: 'y'.repeat(10_000), clientId: 'nobody' }),
      await revoke(new URLSearchParams({ token: 'garbage', token_type_hint: 'refresh_token' })),
      await revoke(new URLSearchParams({ token: 'z', token_type_hint: 'no_such_type' })),
    ];
    for (const res of answers) {
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({});
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(res.headers.get('pragma')).toBe('no-cache');
    }
    const bad: Array<
      [body: string | URLSearchParams, headers: Record<string, string> | undefined, code?: string]
    > = [
      ['[1,2]', json, 'MALFORMED_REQUEST'],
      ['"garbage"', json, 'MALFORMED_REQUEST'],
      ['token=garbage', { 'content-type': 'text/plain' }, 'MALFORMED_REQUEST'],
      ['{}', json],
      ['{"token":5}', json],
      ['{"token":""}', json],
      [new URLSearchParams({ token_type_hint: 'refresh_token' }), undefined],
    ];
    for (const [body, headers, code] of bad) {
      const res = await revoke(body, headers);
      const where = String(body);
      expect(res.status, where).toBe(400);
      const env = await res.json();
      expect(typeof env.message, where).toBe('string');
      if (code) expect(env.details, where).toEqual({ applicationError: expect.objectContaining({ code }) });
      else
        expect(env.details.validationError.fieldViolations, where).toEqual([
          expect.objectContaining({ field: 'token' }),
        ]);
    }
  });

  it('checklist 45: revoking a refresh token ends its family, an access token only itself; another client’s tokens are untouched', async () => {
    // An old (rotated) refresh token, posted as RFC 7009's form: the family's newest refresh token
    // and its access token are revoked too.
    const first = await anonymous();
    const newest = await (await refresh(first.refresh_token)).json();
    expect((await call(newest.access_token)).status).toBe(200);
    const form = await revoke(
      new URLSearchParams({
        token: first.refresh_token,
        token_type_hint: 'refresh_token',
        client_id: emu.demo.clientId,
      }),
    );
    expect(form.status).toBe(200);
    expect(form.headers.get('cache-control')).toBe('no-store');
    expect(await refresh(newest.refresh_token).then((r) => r.json())).toEqual(EXPIRED);
    expect((await call(newest.access_token)).status).toBe(401);

    // The newest refresh token, as JSON without a client id.
    const second = await anonymous();
    expect((await revoke({ token: second.refresh_token })).status).toBe(200);
    expect((await refresh(second.refresh_token)).status).toBe(400);
    expect((await call(second.access_token)).status).toBe(401);

    // An access token: that token alone; its refresh token still works.
    const third = await anonymous();
    expect((await call(third.access_token)).status).toBe(200);
    expect((await revoke({ token: third.access_token, clientId: emu.demo.clientId })).status).toBe(200);
    expect((await call(third.access_token)).status).toBe(401);
    expect((await refresh(third.refresh_token)).status).toBe(200);

    // Another client's tokens, named with the demo client's id: the same answer, nothing revoked.
    const { clientId: other } = await owner('POST', '/_api/emulator/v1/oauth-clients', {
      name: 'Other shop',
    });
    const theirs = await anonymous(other);
    for (const body of [
      { token: theirs.refresh_token, client_id: emu.demo.clientId },
      { token: theirs.access_token, clientId: emu.demo.clientId },
      { token: theirs.refresh_token, client_id: other, clientId: emu.demo.clientId },
    ]) {
      const res = await revoke(body);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({});
    }
    expect((await call(theirs.access_token)).status).toBe(200);
    const kept = await refresh(theirs.refresh_token, other);
    expect(kept.status).toBe(200);
    // Named with its own client's id, it is revoked.
    const latest = (await kept.json()).refresh_token;
    expect((await revoke({ token: latest, client_id: other })).status).toBe(200);
    expect((await refresh(latest, other)).status).toBe(400);
  });

  it('checklist 46: the authorize endpoint sends no CORS headers, even to an allowed origin', async () => {
    const preflight = await fetch(`${emu.url}/oauth2/authorize`, {
      method: 'OPTIONS',
      headers: { origin: SHOP, 'access-control-request-method': 'GET' },
    });
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
    const get = await fetch(`${emu.url}/oauth2/authorize?client_id=${emu.demo.clientId}`, {
      headers: { origin: SHOP },
    });
    expect(get.headers.get('access-control-allow-origin')).toBeNull();
    // The token endpoint does answer that origin.
    const tokenPreflight = await fetch(`${emu.url}/oauth2/token`, {
      method: 'OPTIONS',
      headers: { origin: SHOP, 'access-control-request-method': 'POST' },
    });
    expect(tokenPreflight.headers.get('access-control-allow-origin')).toBe(SHOP);
  });

  it('checklist 49: a 64-character passphrase is accepted; longer than 256 or a 1 MiB body is refused before hashing', async () => {
    const client = member();
    const long = 'correct horse battery staple '.repeat(3).slice(0, 64);
    const ok = await client.identity.register({ email: email(), password: long });
    expect(ok.loginState).toBe('SUCCESS');
    expect(
      (await client.identity.login({ email: ok.data!.identity!.email!.address, password: long })).loginState,
    ).toBe('SUCCESS');
    const count = async () => (await emu.emu.db.query('SELECT count(*)::int AS n FROM members'))[0]!.n;
    const before = await count();
    const tooLong = await fetch(`${emu.url}/_api/iam/authentication/v2/register`, {
      method: 'POST',
      body: JSON.stringify({ loginId: { email: email() }, password: 'x'.repeat(257) }),
    });
    expect(tooLong.status).toBe(400);
    expect((await tooLong.json()).details.validationError.fieldViolations[0].field).toBe('password');
    const huge = await fetch(`${emu.url}/_api/iam/authentication/v2/login`, {
      method: 'POST',
      body: JSON.stringify({ loginId: { email: email() }, password: 'x'.repeat(1024 * 1024) }),
    });
    expect(huge.status).toBe(413);
    expect(await count()).toBe(before);
  });

  it('checklist 50: with hideAccountExistence, an unknown e-mail and a wrong password get the same answer', async () => {
    const client = member();
    const known = email();
    await client.identity.register({ email: known, password: 'the right password' });
    const attempt = async (mail: string) => {
      const res = await fetch(`${emu.url}/_api/iam/authentication/v2/login`, {
        method: 'POST',
        body: JSON.stringify({ loginId: { email: mail }, password: 'a wrong password' }),
      });
      return { status: res.status, body: await res.json() };
    };
    // The default tells them apart, as the platform does (spec 8).
    expect((await attempt('nobody@example.test')).body.details.applicationError.code).toBe('-19999');
    await owner('POST', '/_api/emulator/v1/settings', { hideAccountExistence: true });
    try {
      const unknown = await attempt('nobody@example.test');
      const wrong = await attempt(known);
      expect(unknown).toEqual(wrong);
      expect(wrong.body.details.applicationError.code).toBe('-19976');
      // Recovery answers the same either way.
      const reset = async (mail: string) => {
        const res = await fetch(`${emu.url}/_api/iam/recovery/v1/send-email`, {
          method: 'POST',
          body: JSON.stringify({ email: mail }),
        });
        return [res.status, await res.text()];
      };
      expect(await reset('nobody@example.test')).toEqual(await reset(known));
    } finally {
      await owner('POST', '/_api/emulator/v1/settings', { hideAccountExistence: false });
    }
  });

  it('checklist 52: reset links come from configuration (not Host), expire after an hour, at most 5 per hour', async () => {
    const client = member();
    const mail = email();
    await client.identity.register({ email: mail, password: 'first password' });
    // A spoofed Host header does not change the link.
    await new Promise<void>((resolve, reject) => {
      const u = new URL(`${emu.url}/_api/iam/recovery/v1/send-email`);
      const req = request(
        {
          host: u.hostname,
          port: u.port,
          path: u.pathname,
          method: 'POST',
          headers: { host: 'evil.test', 'content-type': 'application/json' },
        },
        (res) => {
          res.resume();
          res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`${res.statusCode}`))));
        },
      );
      req.on('error', reject);
      req.end(JSON.stringify({ email: mail }));
    });
    const link = (await mailbox(mail))[0]!.link!;
    expect(link.startsWith(`${emu.url}/reset-password?token=`)).toBe(true);
    const resetToken = new URL(link).searchParams.get('token')!;
    // An hour later the link is dead.
    const late = await later(61 * 60_000, () => client.identity.recover(resetToken, 'second password'));
    expect(late).toMatchObject({ loginState: 'FAILURE', errorCode: 'INVALID_RECOVERY_TOKEN' });
    // At most 5 reset e-mails per account per hour.
    for (let i = 0; i < 6; i++) await client.identity.sendPasswordResetEmail(mail);
    expect((await mailbox(mail)).length).toBe(5);
  });

  it('checklist 53: an e-mail code is refused after 10 minutes', async () => {
    await owner('POST', '/_api/emulator/v1/settings', { emailVerificationRequired: true });
    try {
      const client = member();
      const mail = email();
      const r = await client.identity.register({ email: mail, password: 'long enough pw' });
      expect(r.loginState).toBe('EMAIL_VERIFICATION_REQUIRED');
      const code = (await mailbox(mail))[0]!.code!;
      const late = await later(10 * 60_000 + 1000, () =>
        fetch(`${emu.url}/_api/iam/verification/v1/auth/verify`, {
          method: 'POST',
          body: JSON.stringify({ code, stateToken: r.data!.stateToken }),
        }),
      );
      expect(late.status).toBe(400);
      expect((await late.json()).details.applicationError.code).toBe('VERIFICATION_FAILED');
    } finally {
      await owner('POST', '/_api/emulator/v1/settings', { emailVerificationRequired: false });
    }
  });

  it('checklist 55: anonymous grants are limited per IP and client id (429, envelope, Retry-After); others go on; the SDK does not loop', async () => {
    const grant = (clientId: string) =>
      fetch(`${emu.url}/oauth2/token`, {
        method: 'POST',
        body: JSON.stringify({ clientId, grantType: 'anonymous' }),
      });
    /** The same grant from another loopback address (127.0.0.2). */
    const grantFrom = (localAddress: string, clientId: string) =>
      new Promise<number>((resolve, reject) => {
        const u = new URL(`${emu.url}/oauth2/token`);
        const req = request(
          { host: u.hostname, port: u.port, path: u.pathname, method: 'POST', localAddress },
          (res) => {
            res.resume();
            res.on('end', () => resolve(res.statusCode!));
          },
        );
        req.on('error', reject);
        req.end(JSON.stringify({ clientId, grantType: 'anonymous' }));
      });

    // The documented default, then a low limit for the test.
    expect((await owner('GET', '/_api/emulator/v1/settings')).settings.anonymousTokensPerMinute).toBe(300);
    await owner('POST', '/_api/emulator/v1/settings', { anonymousTokensPerMinute: 5 });
    try {
      const burst = await Promise.all(Array.from({ length: 8 }, () => grant(emu.demo.clientId)));
      expect(burst.map((r) => r.status).sort()).toEqual([200, 200, 200, 200, 200, 429, 429, 429]);
      const refused = burst.find((r) => r.status === 429)!;
      const retryAfter = Number(refused.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(12);
      const body = await refused.json();
      expect(body).toEqual({
        message: expect.stringContaining('Too many anonymous tokens'),
        details: {
          applicationError: { code: 'TOO_MANY_REQUESTS', description: body.message, data: {} },
        },
      });
      expect(refused.headers.get('x-wix-request-id')).toBeTruthy();

      // Another client id from the same address, and the same client from another address: unaffected.
      const { clientId: other } = await owner('POST', '/_api/emulator/v1/oauth-clients', {
        name: 'Another shop',
      });
      expect((await grant(other)).status).toBe(200);
      expect(await grantFrom('127.0.0.2', emu.demo.clientId)).toBe(200);
      // Refreshing an existing visitor is not limited.
      const visitor = await burst.find((r) => r.status === 200)!.json();
      const refreshed = await fetch(`${emu.url}/oauth2/token`, {
        method: 'POST',
        body: JSON.stringify({
          clientId: emu.demo.clientId,
          grantType: 'refresh_token',
          refreshToken: visitor.refresh_token,
        }),
      });
      expect(refreshed.status).toBe(200);

      // The SDK: one token request, then a clear error; no retry loop, no resource request.
      const seen: string[] = [];
      const client = member(async (input, init) => {
        seen.push(new URL(String(input)).pathname);
        return fetch(input, init);
      });
      const err = await client.collections.getCollectionBySlug('summer-linen').catch((e) => e);
      expect(err).toMatchObject({ message: 'something went wrong', status: 429, code: 'TOO_MANY_REQUESTS' });
      expect(seen).toEqual(['/oauth2/token']);

      // Once Retry-After has passed (the emulator's clock moves), the client gets its token.
      expect((await later(retryAfter * 1000, () => grant(emu.demo.clientId))).status).toBe(200);
    } finally {
      await owner('POST', '/_api/emulator/v1/settings', { anonymousTokensPerMinute: 300 });
    }
  });
});
