/**
 * Abuse of the identity endpoints over raw HTTP, each found by an audit (docs/security.md):
 * wrong passwords sent in parallel still throttle the account (checklist 51); with
 * hideAccountExistence, throttling answers an unknown e-mail as it answers a member (50); resending
 * an e-mail code neither resets its wrong attempts nor goes on forever (53); a session token from a
 * login made without a visitor token logs in for no client (54); made-up client ids cannot push a
 * client's anonymous-token bucket out, nor can new addresses while every bucket still limits (55).
 * The emulator's clock stands still unless a test moves it, so locks and buckets never run out
 * while a test waits on the machine.
 */
import { createHash, randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator, testBackends } from '../src/testing.ts';
import { jsonCalls, visitorToken } from './http.ts';

const SHOP = 'http://shop.test:5173';
const PASSWORD = 'the right password';

describe.each(testBackends())('identity abuse (%s)', (backend) => {
  let emu: TestEmulator;
  let clock = Date.now();
  beforeAll(async () => {
    emu = await startTestEmulator(backend, {
      allowedOrigins: [SHOP],
      now: () => new Date(clock),
      // A hash slow enough (tens of ms) that parallel logins overlap, as they do at full cost.
      config: { scryptN: 2 ** 14 },
    });
  });
  afterAll(() => emu?.stop());

  const { call, owner } = jsonCalls(() => emu);
  const settings = async (patch: Record<string, boolean>) =>
    expect((await owner('POST', '/_api/emulator/v1/settings', patch)).status).toBe(200);
  const visitor = () => visitorToken(emu);
  const code = (c: { body: any }) => c.body.details?.applicationError?.code as string | undefined;

  let n = 0;
  const newEmail = () => `abuse${++n}-${backend}@example.test`;
  const register = async (email: string, token?: string) =>
    call(
      'POST',
      '/_api/iam/authentication/v2/register',
      { loginId: { email }, password: PASSWORD },
      token ? { authorization: token } : {},
    );
  const login = (email: string, password: string, token?: string) =>
    call(
      'POST',
      '/_api/iam/authentication/v2/login',
      { loginId: { email }, password },
      token ? { authorization: token } : {},
    );
  /** The latest code mailed to `to`. */
  const latestCode = async (to: string): Promise<string> =>
    (await call('GET', `/_api/emulator/v1/mailbox?to=${encodeURIComponent(to)}`)).body.messages[0].code;

  it('checklist 51: 100 wrong passwords, 25 at a time, are checked 5 times; then the right one waits too', async () => {
    const email = newEmail();
    expect((await register(email, await visitor())).status).toBe(200);
    const statuses: number[] = [];
    for (let batch = 0; batch < 4; batch++) {
      const answers = await Promise.all(Array.from({ length: 25 }, () => login(email, 'a wrong password')));
      statuses.push(...answers.map((a) => a.status));
    }
    // Each attempt counts before its hash: the fifth locks the account, the other 95 wait.
    expect(statuses.filter((s) => s === 400)).toHaveLength(5);
    expect(statuses.filter((s) => s === 429)).toHaveLength(95);
    const right = await login(email, PASSWORD);
    expect(right.status).toBe(429);
    expect(code(right)).toBe('THROTTLED_FEATURE');
    expect(right.headers.get('retry-after')).toBe('1');
    // Once the lock has passed the right password gets in, and its success clears the count.
    clock += 1000;
    expect((await login(email, PASSWORD)).body.state).toBe('SUCCESS');
    for (let i = 0; i < 4; i++) expect((await login(email, 'a wrong password')).status).toBe(400);
    expect((await login(email, PASSWORD)).status).toBe(200);
  });

  it('checklist 51: after 100 failures in a row the address is blocked until a reset, which still works', async () => {
    const email = newEmail();
    expect((await register(email, await visitor())).status).toBe(200);
    // 100 wrong passwords, each after the last lock has passed (at most 15 minutes).
    for (let i = 0; i < 100; i++) {
      clock += 15 * 60 * 1000 + 1000;
      expect((await login(email, 'a wrong password')).status).toBe(400);
    }
    // The 101st attempt is refused without a check, and so is the right password a day later.
    clock += 15 * 60 * 1000 + 1000;
    const blocked = await login(email, 'a wrong password');
    expect(blocked.status).toBe(429);
    expect(code(blocked)).toBe('THROTTLED_FEATURE');
    expect(blocked.headers.get('retry-after')).toBeNull();
    clock += 25 * 3600 * 1000;
    expect(code(await login(email, PASSWORD))).toBe('THROTTLED_FEATURE');
    // The way out: the reset e-mail is still sent, and a reset unblocks.
    expect((await call('POST', '/_api/iam/recovery/v1/send-email', { email })).status).toBe(200);
    const mail = (await call('GET', `/_api/emulator/v1/mailbox?to=${encodeURIComponent(email)}`)).body
      .messages;
    const recoveryToken = new URL(mail[0].link).searchParams.get('token');
    const reset = await call('POST', '/_api/iam/recovery/v1/recover', {
      recoveryToken,
      password: 'a new password',
    });
    expect(reset.status).toBe(200);
    expect((await login(email, 'a new password')).body.state).toBe('SUCCESS');
  });

  it('checklist 50: with hideAccountExistence, throttling answers an unknown e-mail as it answers a member', async () => {
    const known = newEmail();
    expect((await register(known, await visitor())).status).toBe(200);
    await settings({ hideAccountExistence: true });
    try {
      /** Seven wrong logins in a row: status, body and Retry-After of each. */
      const seven = async (email: string) => {
        const out: unknown[] = [];
        for (let i = 0; i < 7; i++) {
          const r = await login(email, 'a wrong password');
          out.push({ status: r.status, body: r.body, retryAfter: r.headers.get('retry-after') });
        }
        return out;
      };
      const member = await seven(known);
      const nobody = await seven(newEmail());
      expect(nobody).toEqual(member);
      expect(member.map((r) => (r as { status: number }).status)).toEqual([
        400, 400, 400, 400, 400, 429, 429,
      ]);
      // In parallel too: an unknown e-mail is checked five times, as a member is (checklist 51).
      const one = newEmail();
      const burst = await Promise.all(Array.from({ length: 25 }, () => login(one, 'a wrong password')));
      expect(burst.filter((r) => r.status === 400)).toHaveLength(5);
    } finally {
      await settings({ hideAccountExistence: false });
    }
  });

  describe('checklist 53: e-mail codes', () => {
    beforeAll(() => settings({ emailVerificationRequired: true }));
    afterAll(() => settings({ emailVerificationRequired: false }));

    const verify = (stateToken: string, c: string) =>
      call('POST', '/_api/iam/verification/v1/auth/verify', { stateToken, code: c });
    const resend = (stateToken: string) =>
      call('POST', '/_api/iam/verification/v1/auth/resend', { stateToken });
    const wrongFor = (right: string) => (right === '000000' ? '111111' : '000000');

    it('a resend keeps the wrong attempts: 4 wrong, a new code, 1 wrong, and the state token is done', async () => {
      const email = newEmail();
      const r = await register(email, await visitor());
      expect(r.body.state).toBe('REQUIRE_EMAIL_VERIFICATION');
      const stateToken = r.body.stateToken as string;
      const first = await latestCode(email);
      for (let i = 0; i < 4; i++)
        expect(code(await verify(stateToken, wrongFor(first)))).toBe('VERIFICATION_FAILED');
      expect((await resend(stateToken)).status).toBe(200);
      const second = await latestCode(email);
      expect(code(await verify(stateToken, wrongFor(second)))).toBe('VERIFICATION_FAILED');
      // Five wrong codes in all: not even the right one works now, and nothing more is sent.
      const late = await verify(stateToken, second);
      expect(late.status).toBe(400);
      expect(code(late)).toBe('VERIFICATION_FAILED');
      expect(late.body.sessionToken).toBeUndefined();
      expect(code(await resend(stateToken))).toBe('VERIFICATION_FAILED');
    });

    it('three resends per state token; the last code still works', async () => {
      const email = newEmail();
      const stateToken = (await register(email, await visitor())).body.stateToken as string;
      for (let i = 0; i < 3; i++) expect((await resend(stateToken)).status).toBe(200);
      const last = await latestCode(email);
      const refused = await resend(stateToken);
      expect(refused.status).toBe(429);
      expect(code(refused)).toBe('THROTTLED_FEATURE');
      expect(await latestCode(email)).toBe(last);
      const ok = await verify(stateToken, last);
      expect(ok.body.state).toBe('SUCCESS');
      expect(ok.headers.get('cache-control')).toBe('no-store');
    });
  });

  /** A visitor token of `clientId` (the demo client's by default). */
  const visitorOf = async (clientId = emu.demo.clientId) =>
    (await call('POST', '/oauth2/token', { clientId, grantType: 'anonymous' })).body.access_token as string;
  /**
   * Redeems a session token as `clientId`'s direct login does (a prompt=none redirect session made
   * with one of its visitor tokens); the callback's parameters.
   */
  const redeem = async (sessionToken: string, clientId = emu.demo.clientId) => {
    const verifier = randomBytes(32).toString('base64url');
    const session = await call(
      'POST',
      '/_api/redirects-api/v1/redirect-session',
      {
        auth: {
          authRequest: {
            clientId,
            codeChallenge: createHash('sha256').update(verifier).digest('base64url'),
            codeChallengeMethod: 'S256',
            responseMode: 'query',
            responseType: 'code',
            scope: 'offline_access',
            redirectUri: `${SHOP}/callback`,
            state: 'state-54',
            sessionToken,
          },
          prompt: 'none',
        },
      },
      { authorization: await visitorOf(clientId) },
    );
    expect(session.status).toBe(200);
    const res = await fetch(session.body.redirectSession.fullUrl, { redirect: 'manual' });
    return new URL(res.headers.get('location')!).searchParams;
  };

  it('checklist 54: a session token from a login without a visitor token logs in for no client', async () => {
    const email = newEmail();
    expect((await register(email)).status).toBe(200);
    const tokenless = await login(email, PASSWORD);
    expect(tokenless.body.state).toBe('SUCCESS');
    expect(tokenless.headers.get('cache-control')).toBe('no-store');
    expect((await redeem(tokenless.body.sessionToken)).get('error')).toBe('login_required');
    // Nor through the authorized_client grant of a trusted server.
    const again = await login(email, PASSWORD);
    const grant = await call(
      'POST',
      '/oauth2/token',
      {
        grant_type: 'authorized_client',
        member_id: tokenless.body.identity.id,
        session_token: again.body.sessionToken,
      },
      { authorization: `${await visitor()},${emu.demo.apiKey}` },
    );
    expect(grant.status).toBe(400);
    expect(code(grant)).toBe('invalid_grant');
    // The same login with a visitor token (as the SDK always sends) gets a code.
    const bound = await login(email, PASSWORD, await visitor());
    expect((await redeem(bound.body.sessionToken)).get('code')).toBeTruthy();
  });

  it('checklist 54: a session token is redeemed only by the client it was issued to, once, within 10 minutes', async () => {
    const email = newEmail();
    expect((await register(email)).status).toBe(200);
    const other = await owner('POST', '/_api/emulator/v1/oauth-clients', {
      name: 'Another storefront',
      allowedOrigins: [SHOP],
    });
    expect(other.status).toBe(200);
    const otherClient = other.body.clientId as string;
    // Issued to the demo client: another client cannot redeem it, and the attempt uses it up.
    const first = await login(email, PASSWORD, await visitor());
    expect((await redeem(first.body.sessionToken, otherClient)).get('error')).toBe('login_required');
    expect((await redeem(first.body.sessionToken, emu.demo.clientId)).get('error')).toBe('login_required');
    // A fresh one works for its own client, once.
    const second = await login(email, PASSWORD, await visitor());
    expect((await redeem(second.body.sessionToken, emu.demo.clientId)).get('code')).toBeTruthy();
    expect((await redeem(second.body.sessionToken, emu.demo.clientId)).get('error')).toBe('login_required');
    // Ten minutes and a second after it was issued, it is refused.
    const third = await login(email, PASSWORD, await visitor());
    clock += 10 * 60 * 1000 + 1000;
    expect((await redeem(third.body.sessionToken, emu.demo.clientId)).get('error')).toBe('login_required');
    // One issued to the other client works for it.
    const fourth = await login(email, PASSWORD, await visitorOf(otherClient));
    expect((await redeem(fourth.body.sessionToken, otherClient)).get('code')).toBeTruthy();
  });

  it('checklist 50: with hideAccountExistence and e-mail verification, a registration for a taken e-mail answers as a new one (a decoy), and changes nothing', async () => {
    const taken = newEmail();
    expect((await register(taken)).body.state).toBe('SUCCESS');
    const mailbox = async (to: string) =>
      (await call('GET', `/_api/emulator/v1/mailbox?to=${encodeURIComponent(to)}`)).body.messages as {
        subject: string;
        code?: string;
      }[];
    const verify = (stateToken: string, c: string) =>
      call('POST', '/_api/iam/verification/v1/auth/verify', { stateToken, code: c });
    const resend = (stateToken: string) =>
      call('POST', '/_api/iam/verification/v1/auth/resend', { stateToken });
    const OTHER = 'the decoy password';
    const signUp = async (email: string) =>
      call(
        'POST',
        '/_api/iam/authentication/v2/register',
        { loginId: { email }, password: OTHER, profile: { nickname: 'Ann' } },
        { authorization: await visitor() },
      );
    /** An answer with what differs between any two members blanked out. */
    const shape = (r: { status: number; body: any }) =>
      JSON.parse(
        JSON.stringify({ status: r.status, body: r.body }).replace(
          /"(id|createdDate|updatedDate|stateToken|factorId|address)":"[^"]*"|"emails":\["[^"]*"\]|abuse\d+-\w+@example\.test/g,
          (m) => m.replace(/:.*/, ':"…"'),
        ),
      );
    const members = async () =>
      (await emu.emu.db.query<{ n: number }>('SELECT count(*)::int AS n FROM members'))[0]!.n;

    // Without e-mail verification a new member's answer carries a session: nothing can stand in for
    // it, and the platform's -19995 stays.
    await settings({ hideAccountExistence: true });
    try {
      expect(code(await signUp(taken))).toBe('-19995');
      await settings({ emailVerificationRequired: true });
      const before = await members();
      const fresh = newEmail();
      const real = await signUp(fresh);
      const decoy = await signUp(taken);
      expect(real.body.state).toBe('REQUIRE_EMAIL_VERIFICATION');
      expect(shape(decoy)).toEqual(shape(real));
      expect(decoy.body.identity.identityProfile.emails).toEqual([taken]);
      expect(await members()).toBe(before + 1);
      // The owner is told; no code goes to the address for the decoy, now or on a resend.
      const told = await mailbox(taken);
      expect(told.map((m) => m.subject)).toEqual([
        'Someone tried to create an account with your e-mail address',
      ]);
      expect(told[0]!.code).toBeUndefined();
      // Verify and resend answer as for the new member, and no code verifies the decoy.
      const realCode = await latestCode(fresh);
      expect(shape(await verify(decoy.body.stateToken, realCode))).toEqual(
        shape(await verify(real.body.stateToken, realCode === '000000' ? '111111' : '000000')),
      );
      expect(shape(await resend(decoy.body.stateToken))).toEqual(shape(await resend(real.body.stateToken)));
      expect(await mailbox(taken)).toHaveLength(1);
      // A login with the decoy's password answers as the new member's does: the same identity, a
      // new state token. Any other password is wrong, and the owner's still logs in.
      const realLogin = await login(fresh, OTHER, await visitor());
      const decoyLogin = await login(taken, OTHER, await visitor());
      expect(realLogin.body.state).toBe('REQUIRE_EMAIL_VERIFICATION');
      expect(shape(decoyLogin)).toEqual(shape(realLogin));
      expect(decoyLogin.body.identity).toEqual(decoy.body.identity);
      expect(decoyLogin.body.stateToken).not.toBe(decoy.body.stateToken);
      expect(code(await login(taken, 'a third password'))).toBe('-19976');
      expect((await login(taken, PASSWORD)).body.state).toBe('SUCCESS');
      expect(await mailbox(taken)).toHaveLength(1);
      // For a day.
      clock += 24 * 3600 * 1000 + 1000;
      expect(code(await login(taken, OTHER))).toBe('-19976');
    } finally {
      await settings({ hideAccountExistence: false, emailVerificationRequired: false });
    }
  });
});

describe.each(testBackends())('anonymous-token buckets (%s)', (backend) => {
  let emu: TestEmulator;
  let clock = Date.now();
  beforeAll(async () => {
    emu = await startTestEmulator(backend, {
      now: () => new Date(clock),
      // Two tokens per minute, and room for two buckets, so that the bound is reached at once.
      config: { anonymousTokenBuckets: 2, identity: { anonymousTokensPerMinute: 2 } },
    });
  });
  afterAll(() => emu?.stop());

  /** An anonymous grant for `clientId` sent from the loopback address `from`: status and headers. */
  const grant = (clientId: string, from = '127.0.0.1') =>
    new Promise<{ status: number; retryAfter: string | undefined; code: string }>((resolve, reject) => {
      const u = new URL(`${emu.url}/oauth2/token`);
      const req = request(
        { host: u.hostname, port: u.port, path: u.pathname, method: 'POST', localAddress: from },
        (res) => {
          let text = '';
          res.on('data', (d) => {
            text += d;
          });
          res.on('end', () =>
            resolve({
              status: res.statusCode!,
              retryAfter: res.headers['retry-after'] as string | undefined,
              code: JSON.parse(text).details?.applicationError?.code,
            }),
          );
        },
      );
      req.on('error', reject);
      req.end(JSON.stringify({ clientId, grantType: 'anonymous' }));
    });

  it('checklist 55: made-up client ids get no bucket, and a bucket that still limits is never forgotten', async () => {
    const client = emu.demo.clientId;
    expect((await grant(client)).status).toBe(200);
    expect((await grant(client)).status).toBe(200);
    expect((await grant(client)).status).toBe(429);
    // More made-up client ids than there is room for buckets: refused, and the limit holds.
    for (let i = 0; i < 5; i++)
      expect(await grant(`made-up-${i}`)).toMatchObject({ status: 400, code: 'invalid_client' });
    expect((await grant(client)).status).toBe(429);
    // A second address fills the room; a third waits rather than push out a bucket that limits.
    expect((await grant(client, '127.0.0.2')).status).toBe(200);
    const third = await grant(client, '127.0.0.3');
    expect(third).toMatchObject({ status: 429, code: 'TOO_MANY_REQUESTS' });
    expect(Number(third.retryAfter)).toBeGreaterThanOrEqual(1);
    expect((await grant(client)).status).toBe(429);
    // A minute on, every bucket is full again (it limits no one): room is made, each one is served.
    clock += 60_000;
    expect((await grant(client, '127.0.0.3')).status).toBe(200);
    expect((await grant(client)).status).toBe(200);
  });
});
