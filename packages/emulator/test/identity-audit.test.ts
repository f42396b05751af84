/**
 * Findings of an audit of the identity JSON API and the token endpoint, over raw HTTP: a refresh
 * racing a logout, or racing the replay of its family's rotated token, got a refresh token that
 * survived the revocation (PostgreSQL); session tokens and authorization codes issued before a
 * password change or a logout still turned into tokens afterwards, and so did a login with the old
 * password that was answered while the password changed; two registrations (or sign-ons) of one
 * e-mail at once answered 500; a profile whose `emails` is not a list answered 500; with
 * hideAccountExistence, a decoy registration and its login told themselves apart from a real one by
 * the order of their identity's fields (checklist 50). The emulator's clock stands still unless a
 * test moves it; races are provoked with many concurrent requests, never timed.
 */
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REUSE_GRACE_MS } from '../src/domains/platform/index.ts';
import { startTestEmulator, type TestEmulator, testBackends } from '../src/testing.ts';
import { jsonCalls, visitorToken } from './http.ts';

const SHOP = 'http://shop.test:5173';
const PASSWORD = 'the right password';

describe.each(testBackends())('identity audit (%s)', (backend) => {
  let emu: TestEmulator;
  let clock = Date.now();
  beforeAll(async () => {
    emu = await startTestEmulator(backend, {
      allowedOrigins: [SHOP],
      now: () => new Date(clock),
      // A hash slow enough that a login and a password change overlap.
      config: { scryptN: 2 ** 12 },
    });
  });
  afterAll(() => emu?.stop());

  const { call, owner } = jsonCalls(() => emu);
  const code = (c: { body: any }) => c.body.details?.applicationError?.code as string | undefined;
  let n = 0;
  const newEmail = () => `audit${++n}-${backend}@example.test`;
  const register = (email: string, extra: object = {}, token?: string) =>
    call(
      'POST',
      '/_api/iam/authentication/v2/register',
      { loginId: { email }, password: PASSWORD, ...extra },
      token ? { authorization: token } : {},
    );
  const login = (email: string, password: string, token?: string) =>
    call(
      'POST',
      '/_api/iam/authentication/v2/login',
      { loginId: { email }, password },
      token ? { authorization: token } : {},
    );
  const grant = (body: object, headers: Record<string, string> = {}) =>
    call('POST', '/oauth2/token', body, headers);
  const refresh = (refreshToken: string) =>
    grant({ clientId: emu.demo.clientId, grantType: 'refresh_token', refreshToken });
  const logout = (access: string) =>
    call('GET', '/_api/iam/authentication/v1/logout', undefined, { authorization: access });
  const changePassword = (access: string, newPassword: string) =>
    call('POST', '/_api/iam/authentication/v2/change-password', { newPassword }, { authorization: access });
  /** A session token's redemption by a trusted server (the authorized_client grant). */
  const redeemOnServer = (memberId: string, sessionToken: string, visitor: string) =>
    grant(
      { grant_type: 'authorized_client', member_id: memberId, session_token: sessionToken },
      { authorization: `${visitor},${emu.demo.apiKey}` },
    );
  /** A member, logged in: their id, e-mail, and a pair of member tokens. */
  const member = async () => {
    const email = newEmail();
    expect((await register(email)).status).toBe(200);
    const visitor = await visitorToken(emu);
    const r = await login(email, PASSWORD, visitor);
    const t = await redeemOnServer(r.body.identity.id, r.body.sessionToken, visitor);
    expect(t.status).toBe(200);
    return {
      id: r.body.identity.id as string,
      email,
      access: t.body.access_token as string,
      refresh: t.body.refresh_token as string,
    };
  };
  /** A code from a direct login with `sessionToken` (prompt=none), and its verifier. */
  const directLoginCode = async (sessionToken: string) => {
    const verifier = randomBytes(32).toString('base64url');
    const session = await call(
      'POST',
      '/_api/redirects-api/v1/redirect-session',
      {
        auth: {
          authRequest: {
            clientId: emu.demo.clientId,
            codeChallenge: createHash('sha256').update(verifier).digest('base64url'),
            codeChallengeMethod: 'S256',
            responseMode: 'query',
            responseType: 'code',
            scope: 'offline_access',
            redirectUri: `${SHOP}/callback`,
            state: 'audit',
            sessionToken,
          },
          prompt: 'none',
        },
      },
      { authorization: await visitorToken(emu) },
    );
    expect(session.status).toBe(200);
    const res = await fetch(session.body.redirectSession.fullUrl, { redirect: 'manual' });
    const code = new URL(res.headers.get('location')!).searchParams.get('code');
    expect(code).toBeTruthy();
    return { code: code!, verifier };
  };
  const exchange = (c: { code: string; verifier: string }) =>
    grant({
      clientId: emu.demo.clientId,
      grantType: 'authorization_code',
      code: c.code,
      codeVerifier: c.verifier,
      redirectUri: `${SHOP}/callback`,
    });

  describe('revocation holds against a refresh at the same moment', () => {
    it('a logout while the member refreshes: whatever the refresh answered is dead afterwards', async () => {
      // One pair at a time: a pool busy with other pairs would keep the two apart.
      const outcomes = [];
      for (let i = 0; i < 40; i++) {
        const m = await member();
        outcomes.push((await Promise.all([refresh(m.refresh), logout(m.access)]))[0]);
      }
      // Some refreshes come before the logout and some after; none may outlive it.
      const survivors = await Promise.all(
        outcomes.filter((r) => r.status === 200).map((r) => refresh(r.body.refresh_token)),
      );
      expect(survivors.filter((r) => r.status === 200)).toHaveLength(0);
    });

    it('a rotated refresh token replayed while the newest one refreshes: the whole family ends', async () => {
      const pairs = await Promise.all(
        Array.from({ length: 30 }, async () => {
          const first = (await grant({ clientId: emu.demo.clientId, grantType: 'anonymous' })).body;
          const second = (await refresh(first.refresh_token)).body;
          return { rotated: first.refresh_token as string, newest: second.refresh_token as string };
        }),
      );
      // Past the window in which a rotated token sent again gets its first answer (the same renewal
      // sent twice): from then on it is a reuse.
      clock += REUSE_GRACE_MS;
      const outcomes = [];
      for (const p of pairs) {
        const [r, replay] = await Promise.all([refresh(p.newest), refresh(p.rotated)]);
        expect(replay.status).toBe(400);
        outcomes.push(r);
      }
      const survivors = await Promise.all(
        outcomes.filter((r) => r.status === 200).map((r) => refresh(r.body.refresh_token)),
      );
      expect(survivors.filter((r) => r.status === 200)).toHaveLength(0);
    });
  });

  describe('a password change or a logout ends the logins in flight', () => {
    it('a session token and a code issued before a password change give no tokens after it', async () => {
      const m = await member();
      const visitor = await visitorToken(emu);
      const pending = await login(m.email, PASSWORD, visitor);
      const forCode = await login(m.email, PASSWORD, await visitorToken(emu));
      const minted = await directLoginCode(forCode.body.sessionToken);
      expect((await changePassword(m.access, 'a brand new password')).status).toBe(200);
      const late = await redeemOnServer(m.id, pending.body.sessionToken, visitor);
      expect(late.status).toBe(400);
      expect(code(late)).toBe('invalid_grant');
      const exchanged = await exchange(minted);
      expect(exchanged.status).toBe(400);
      expect(code(exchanged)).toBe('invalid_grant');
      // A login with the new password works as before.
      const fresh = await login(m.email, 'a brand new password', visitor);
      expect((await redeemOnServer(m.id, fresh.body.sessionToken, visitor)).status).toBe(200);
    });

    it('the same after a logout', async () => {
      const m = await member();
      const visitor = await visitorToken(emu);
      const pending = await login(m.email, PASSWORD, visitor);
      const minted = await directLoginCode(
        (await login(m.email, PASSWORD, await visitorToken(emu))).body.sessionToken,
      );
      expect((await logout(m.access)).status).toBe(200);
      expect(code(await redeemOnServer(m.id, pending.body.sessionToken, visitor))).toBe('invalid_grant');
      expect(code(await exchange(minted))).toBe('invalid_grant');
    });

    it('a login with the old password at the moment the password changes never gets in', async () => {
      const members = await Promise.all(Array.from({ length: 20 }, member));
      const logins = await Promise.all(
        members.map(async (m) => {
          const visitor = await visitorToken(emu);
          const [r] = await Promise.all([
            login(m.email, PASSWORD, visitor),
            changePassword(m.access, 'a brand new password'),
          ]);
          return { m, r, visitor };
        }),
      );
      // Before, during or after the change: the old password's session token is no good now.
      const redeemed = await Promise.all(
        logins
          .filter(({ r }) => r.body.sessionToken)
          .map(({ m, r, visitor }) => redeemOnServer(m.id, r.body.sessionToken, visitor)),
      );
      expect(redeemed.filter((r) => r.status === 200)).toHaveLength(0);
    });
  });

  describe('one e-mail, many requests at once', () => {
    it('registrations: one member, the others are told the e-mail exists (no 500)', async () => {
      for (let round = 0; round < 4; round++) {
        const email = newEmail();
        const answers = await Promise.all(Array.from({ length: 8 }, () => register(email)));
        expect(answers.map((a) => a.status).sort()).toEqual([200, 409, 409, 409, 409, 409, 409, 409]);
        expect(answers.filter((a) => a.status === 409).map(code)).toEqual(Array(7).fill('-19995'));
      }
    });

    it('sign-ons: all answer the same member (no 500)', async () => {
      const trusted = { authorization: `${await visitorToken(emu)},${emu.demo.apiKey}` };
      for (let round = 0; round < 4; round++) {
        const email = newEmail();
        const answers = await Promise.all(
          Array.from({ length: 8 }, () =>
            call('POST', '/_api/iam/authentication/v2/sign-on', { loginId: { email } }, trusted),
          ),
        );
        expect(answers.map((a) => a.status)).toEqual(Array(8).fill(200));
        expect(new Set(answers.map((a) => a.body.identity.id)).size).toBe(1);
      }
    });
  });

  it('a profile whose emails is not a list of strings is a bad request, not a 500', async () => {
    const trusted = { authorization: `${await visitorToken(emu)},${emu.demo.apiKey}` };
    for (const emails of [5, {}, true, 'one@example.test', [1]]) {
      const r = await register(newEmail(), { profile: { emails } });
      expect(r.status).toBe(400);
      expect(r.body.details.validationError.fieldViolations[0].data).toBeDefined();
      const s = await call(
        'POST',
        '/_api/iam/authentication/v2/sign-on',
        { loginId: { email: newEmail() }, profile: { emails } },
        trusted,
      );
      expect(s.status).toBe(400);
    }
    const ok = await register(newEmail(), { profile: { emails: ['other@example.test'] } });
    expect(ok.status).toBe(200);
    expect(ok.body.identity.identityProfile.emails).toHaveLength(2);
  });

  it('checklist 50: a decoy registration and its login answer with the fields of a real one in the same order', async () => {
    const taken = newEmail();
    expect((await register(taken)).status).toBe(200);
    expect(
      (
        await owner('POST', '/_api/emulator/v1/settings', {
          hideAccountExistence: true,
          emailVerificationRequired: true,
        })
      ).status,
    ).toBe(200);
    try {
      const profile = {
        nickname: 'N',
        aLongerFieldName: 'x',
        b: 1.5,
        customFields: [{ name: 'k', value: { strValue: 'v' } }],
      };
      /** The answer as text, with what differs between any two members (id, e-mail) made equal. */
      const shape = (r: { body: any }) =>
        JSON.stringify(r.body)
          .replaceAll(r.body.identity.id, '<id>')
          .replaceAll(r.body.identity.email.address, '<email>')
          .replace(/"stateToken":"[^"]+"/, '"stateToken":"<st>"');
      const fresh = newEmail();
      const real = await register(fresh, { profile, password: 'decoy or not' });
      const decoy = await register(taken, { profile, password: 'decoy or not' });
      expect(decoy.status).toBe(real.status);
      expect(shape(decoy)).toBe(shape(real));
      const realLogin = await login(fresh, 'decoy or not');
      const decoyLogin = await login(taken, 'decoy or not');
      expect(decoyLogin.body.state).toBe('REQUIRE_EMAIL_VERIFICATION');
      expect(shape(decoyLogin)).toBe(shape(realLogin));
    } finally {
      await owner('POST', '/_api/emulator/v1/settings', {
        hideAccountExistence: false,
        emailVerificationRequired: false,
      });
    }
  });
});
