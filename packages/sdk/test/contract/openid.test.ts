/**
 * The OAuth endpoints beyond the platform SDK's own flow (wire §5.5, §5.6), against the emulator
 * over HTTP, as any OAuth client would use them: a plain authorization request with `S512` PKCE,
 * an OpenID Connect ID token for scope `openid` checked against `/oauth2/jwks`,
 * `/oauth2/user-info` through `identity.getUserInfo`, and the raw-HTTP envelope of the generated
 * `@wix/identity` oauth module.
 */
import { createHash, createPublicKey, randomBytes, verify } from 'node:crypto';
import { testBackends } from '@shopkit/emulator/testing';
import { describe, expect, it } from 'vitest';
import { createClient, identity, type Tokens } from '../../src/index.ts';
import { failure, postForm, setupEmulator, visitorClient } from './setup.ts';

const SHOP = 'http://shop.test:5173';
const CALLBACK = `${SHOP}/callback`;

const digest = (method: 'S256' | 'S512', verifier: string) =>
  createHash(method === 'S256' ? 'sha256' : 'sha512')
    .update(verifier)
    .digest('base64url');

const decodePart = (part: string) => JSON.parse(Buffer.from(part, 'base64url').toString());

describe.each(testBackends())('OpenID and PKCE methods (%s)', (backend) => {
  const emu = setupEmulator(backend, { allowedOrigins: [SHOP] });
  let n = 0;
  const PASSWORD = 'long enough pw';

  /** A new member with a profile; their e-mail. */
  async function newMember(profile: Record<string, unknown> = {}) {
    const email = `oidc${++n}-${backend}@example.test`;
    const r = await visitorClient(emu, { identity }).identity.register({
      email,
      password: PASSWORD,
      profile,
    });
    expect(r.loginState).toBe('SUCCESS');
    return { email, id: r.data!.identity!.id as string };
  }

  /** A plain authorization request (no redirect session made first), logged in on the hosted page. */
  async function authorize(email: string, params: Record<string, string>) {
    const query = new URLSearchParams({
      client_id: emu.demo.clientId,
      response_type: 'code',
      redirect_uri: CALLBACK,
      state: 'st-1',
      ...params,
    });
    const page = await fetch(`${emu.url}/oauth2/authorize?${query}`);
    const html = await page.text();
    if (page.status !== 200) return { status: page.status, html };
    const session = /name="redirect_session_id" value="([^"]+)"/.exec(html)![1]!;
    const res = await postForm(
      `${emu.url}/oauth2/authorize/submit`,
      new URLSearchParams({
        redirect_session_id: session,
        action: 'login',
        email,
        password: PASSWORD,
      }).toString(),
    );
    expect(res.status).toBe(302);
    const back = new URL(res.headers.get('location')!);
    expect(back.searchParams.get('state')).toBe('st-1');
    return { status: 302, code: back.searchParams.get('code')! };
  }

  const exchange = (code: string, codeVerifier: string) =>
    fetch(`${emu.url}/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        clientId: emu.demo.clientId,
        grantType: 'authorization_code',
        redirectUri: CALLBACK,
        code,
        codeVerifier,
      }),
    });

  it('takes S512 PKCE: the SHA-512 challenge is checked, its length follows the method', async () => {
    const { email } = await newMember();
    const verifier = randomBytes(48).toString('base64url');
    const s512 = { code_challenge: digest('S512', verifier), code_challenge_method: 'S512' };
    expect(s512.code_challenge).toHaveLength(86);

    // A wrong verifier fails (and spends the code); the right one gets tokens.
    const first = await authorize(email, s512);
    const wrong = await exchange(first.code!, randomBytes(48).toString('base64url'));
    expect(wrong.status).toBe(400);
    expect((await wrong.json()).details.applicationError.code).toBe('invalid_grant');
    expect((await exchange(first.code!, verifier)).status).toBe(400);
    const second = await authorize(email, s512);
    const ok = await exchange(second.code!, verifier);
    expect(ok.status).toBe(200);
    expect((await ok.json()).access_token).toBeTruthy();

    // The SHA-256 challenge of the same verifier under S512 is refused before any login page.
    const mixed = await authorize(email, {
      code_challenge: digest('S256', verifier),
      code_challenge_method: 'S512',
    });
    expect(mixed.status).toBe(400);
    expect(mixed.html).toContain('codeChallenge');
    const unknown = await authorize(email, {
      code_challenge: digest('S256', verifier),
      code_challenge_method: 'plain',
    });
    expect(unknown.status).toBe(400);
    expect(unknown.html).toContain('codeChallengeMethod');
  });

  it('signs an ID token for scope openid, verifiable with /oauth2/jwks', async () => {
    const { email, id } = await newMember();
    const verifier = randomBytes(32).toString('base64url');
    const { code } = await authorize(email, {
      code_challenge: digest('S256', verifier),
      code_challenge_method: 'S256',
      scope: 'offline_access openid',
      nonce: 'n-0S6_WzA2Mj',
    });
    const res = await exchange(code!, verifier);
    expect(res.status).toBe(200);
    const tokens = await res.json();
    const [header, claims, signature] = tokens.id_token.split('.');
    expect(decodePart(header)).toMatchObject({ alg: 'RS256', typ: 'JWT' });

    const jwks = await (await fetch(`${emu.url}/oauth2/jwks`)).json();
    const jwk = jwks.keys.find((k: { kid: string }) => k.kid === decodePart(header).kid);
    expect(jwk).toMatchObject({ kty: 'RSA', alg: 'RS256', use: 'sig' });
    expect(jwk.d).toBeUndefined(); // the public half only
    const key = createPublicKey({ key: jwk, format: 'jwk' });
    const input = Buffer.from(`${header}.${claims}`);
    expect(verify('sha256', input, key, Buffer.from(signature, 'base64url'))).toBe(true);
    // A changed claim breaks the signature.
    const forged = Buffer.from(
      `${header}.${Buffer.from(JSON.stringify({ ...decodePart(claims), sub: 'someone' })).toString('base64url')}`,
    );
    expect(verify('sha256', forged, key, Buffer.from(signature, 'base64url'))).toBe(false);

    const c = decodePart(claims);
    expect(c).toMatchObject({
      iss: emu.url,
      sub: id,
      aud: emu.demo.clientId,
      nonce: 'n-0S6_WzA2Mj',
      email,
      email_verified: false,
    });
    expect(c.exp - c.iat).toBeGreaterThan(0);
    expect(c.exp - c.iat).toBeLessThanOrEqual(3600);

    // Without openid in the scope there is no ID token.
    const plain = await authorize(email, {
      code_challenge: digest('S256', verifier),
      code_challenge_method: 'S256',
    });
    expect((await (await exchange(plain.code!, verifier)).json()).id_token).toBeUndefined();
  });

  it("user-info gives a member's claims; visitors and strangers are refused", async () => {
    const { email, id } = await newMember({ firstName: 'Ada', lastName: 'Lovelace', language: 'en' });
    const verifier = randomBytes(32).toString('base64url');
    const { code } = await authorize(email, {
      code_challenge: digest('S256', verifier),
      code_challenge_method: 'S256',
    });
    const t = await (await exchange(code!, verifier)).json();
    const tokens: Tokens = {
      accessToken: { value: t.access_token, expiresAt: Math.floor(Date.now() / 1000) + t.expires_in },
      refreshToken: { value: t.refresh_token, role: 'member' },
    };
    const member = visitorClient(emu, { identity }, { tokens });
    expect(await member.identity.getUserInfo()).toEqual({
      sub: id,
      givenName: 'Ada',
      familyName: 'Lovelace',
      name: 'Ada Lovelace',
      email,
      emailVerified: false,
      language: 'en',
    });

    const visitor = await failure(visitorClient(emu, { identity }).identity.getUserInfo());
    expect(visitor).toMatchObject({ status: 403, code: 'PERMISSION_DENIED' });
    const stranger = await failure(identity.getUserInfo(createClient({ baseUrl: emu.url })));
    expect(stranger.status).toBe(401);
    const res = await fetch(`${emu.url}/oauth2/user-info`, { headers: { authorization: t.access_token } });
    expect(res.headers.get('cache-control')).toContain('no-store');
  });

  it("answers the generated oauth module's raw-HTTP envelope in kind", async () => {
    const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64');
    const raw = async (path: string, inner: unknown, extra: object = {}) => {
      const res = await fetch(`${emu.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ body: typeof inner === 'string' ? inner : b64(inner), ...extra }),
      });
      return { status: res.status, cache: res.headers.get('cache-control'), out: await res.json() };
    };
    const open = (out: { body: string }) => JSON.parse(Buffer.from(out.body, 'base64').toString());

    const granted = await raw(
      '/oauth2/token',
      { clientId: emu.demo.clientId, grantType: 'anonymous' },
      { method: 'POST' },
    );
    expect(granted.status).toBe(200);
    expect(granted.cache).toContain('no-store');
    // The inner answer carries the tokens: it says no-store too (checklist 42).
    expect(granted.out).toMatchObject({
      statusCode: 200,
      headers: [
        { key: 'Content-Type', value: 'application/json' },
        { key: 'Cache-Control', value: 'no-store' },
        { key: 'Pragma', value: 'no-cache' },
      ],
    });
    const tokens = open(granted.out);
    expect(tokens.access_token).toBeTruthy();

    // Token info takes the envelope too, but answers plainly: the generated module's `tokenInfo()`
    // reads the info itself (no bytes transform on its answer, unlike `token()`).
    const info = await raw('/oauth2/token-info', { token: tokens.access_token });
    expect(info.status).toBe(200);
    expect(info.out).toMatchObject({ active: true, subjectType: 'VISITOR', clientId: emu.demo.clientId });

    // A refusal travels inside: its status as statusCode, the platform's error envelope as body.
    const refused = await raw('/oauth2/token', {
      grantType: 'refresh_token',
      refreshToken: 'OauthNG.nonsense',
    });
    expect(refused.status).toBe(200);
    expect(refused.out.statusCode).toBe(400);
    expect(open(refused.out).details.applicationError.code).toBe('invalid_grant');
    const noToken = await raw('/oauth2/token-info', {});
    expect(noToken.status).toBe(400);
    expect(noToken.out.details.validationError.fieldViolations[0].field).toBe('token');

    // An envelope whose body is not the base64 of a JSON object is itself refused.
    const garbage = await raw('/oauth2/token', '!!not base64 json');
    expect(garbage.status).toBe(400);
    expect(garbage.out.details.validationError.fieldViolations[0].field).toBe('body');
    // Plain JSON is unchanged.
    const plain = await fetch(`${emu.url}/oauth2/token-info`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token: tokens.access_token }),
    });
    expect(await plain.json()).toMatchObject({ active: true, subjectType: 'VISITOR' });
  });
});
