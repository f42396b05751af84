/**
 * Abuse of the identity endpoints over raw HTTP, second audit (docs/security.md): e-mail codes
 * guessed through new logins, each of which brought a new state token with five fresh attempts
 * (checklist 53); the mail a site's endpoints can be made to send to one address (recovery,
 * decoy registrations, codes of a pending member), which no one can make endless (checklists 50,
 * 52); logins with the right password at once answered 500 on PostgreSQL (checklist 51). The
 * emulator's clock stands still unless a test moves it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator, testBackends } from '../src/testing.ts';
import { identityCalls, jsonCalls } from './http.ts';

describe.each(testBackends())('identity abuse, second audit (%s)', (backend) => {
  let emu: TestEmulator;
  let clock = Date.now();
  beforeAll(async () => {
    emu = await startTestEmulator(backend, { now: () => new Date(clock) });
  });
  afterAll(() => emu?.stop());

  const { call, owner } = jsonCalls(() => emu);
  const { settings, register, login } = identityCalls(() => emu);
  const code = (c: { body: any }) => c.body.details?.applicationError?.code as string | undefined;
  let n = 0;
  const newEmail = () => `abuse2-${++n}-${backend}@example.test`;
  const mailbox = async (to: string) =>
    (await call('GET', `/_api/emulator/v1/mailbox?to=${encodeURIComponent(to)}`)).body.messages as {
      subject: string;
      code?: string;
      link?: string;
    }[];
  const latestCode = async (to: string) => (await mailbox(to))[0]!.code!;
  const verify = (stateToken: string, c: string) =>
    call('POST', '/_api/iam/verification/v1/auth/verify', { stateToken, code: c });
  const resend = (stateToken: string) =>
    call('POST', '/_api/iam/verification/v1/auth/resend', { stateToken });
  const memberId = async (email: string) =>
    (
      await emu.emu.db.query<{ id: string }>('SELECT id FROM members WHERE email_lower = $1', [
        email.toLowerCase(),
      ])
    )[0]?.id;
  const wrongFor = (right: string) => (right === '000000' ? '111111' : '000000');

  describe('e-mail verification required', () => {
    beforeAll(() => settings({ emailVerificationRequired: true }));
    afterAll(() => settings({ emailVerificationRequired: false }));

    it('checklist 53: wrong codes count per member, so new logins do not bring new attempts', async () => {
      const email = newEmail();
      const r = await register(email);
      expect(r.body.state).toBe('REQUIRE_EMAIL_VERIFICATION');
      // A verification the site started meanwhile, whose code stays unused.
      const started = await owner('POST', '/_api/iam/verification/v1/start', {
        identityId: r.body.identity.id,
      });
      const startedCode = await latestCode(email);
      /** `wrongs` wrong codes for a state token; the right one, as mailed. */
      const guess = async (stateToken: string, wrongs: number) => {
        const right = await latestCode(email);
        for (let j = 0; j < wrongs; j++)
          expect(code(await verify(stateToken, wrongFor(right)))).toBe('VERIFICATION_FAILED');
        return right;
      };
      // 19 wrong codes over four state tokens, each within its own five.
      await guess(r.body.stateToken, 5);
      for (const wrongs of [5, 5, 4]) await guess((await login(email)).body.stateToken, wrongs);
      // A fifth login's code is mailed; one wrong code, the 20th in a row, ends it.
      const fifth = (await login(email)).body.stateToken as string;
      const right = await guess(fifth, 1);
      const refused = await verify(fifth, right);
      expect(refused.status).toBe(400);
      expect(code(refused)).toBe('VERIFICATION_FAILED');
      expect(refused.body.sessionToken).toBeUndefined();
      // Every other right code is refused as a wrong one is, and no new one is mailed.
      expect(code(await verify(started.body.verificationId, startedCode))).toBe('VERIFICATION_FAILED');
      const mails = (await mailbox(email)).length;
      clock += 25 * 3600_000;
      expect((await login(email)).body.state).toBe('REQUIRE_EMAIL_VERIFICATION');
      expect(await mailbox(email)).toHaveLength(mails);
      // The way out is a password reset, which proves the address.
      expect((await call('POST', '/_api/iam/recovery/v1/send-email', { email })).status).toBe(200);
      const recoveryToken = new URL((await mailbox(email))[0]!.link!).searchParams.get('token');
      const reset = await call('POST', '/_api/iam/recovery/v1/recover', {
        recoveryToken,
        password: 'a new password',
      });
      expect(reset.body.state).toBe('SUCCESS');
      expect((await login(email, 'a new password')).body.state).toBe('SUCCESS');
      // And it starts the count again: a verification's code works.
      const again = await owner('POST', '/_api/iam/verification/v1/start', {
        identityId: r.body.identity.id,
      });
      expect((await verify(again.body.verificationId, await latestCode(email))).body.state).toBe('SUCCESS');
    });

    it('checklist 53: a right code clears the member count of wrong ones', async () => {
      const email = newEmail();
      const r = await register(email);
      const memberId = r.body.identity.id as string;
      /** Four wrong codes, then the right one, for a state token (or verification id). */
      const nearMiss = async (stateToken: string) => {
        const right = await latestCode(email);
        for (let j = 0; j < 4; j++)
          expect(code(await verify(stateToken, wrongFor(right)))).toBe('VERIFICATION_FAILED');
        expect((await verify(stateToken, right)).body.state).toBe('SUCCESS');
      };
      await nearMiss(r.body.stateToken);
      // Verifications the site starts for the member later: each starts from nothing again.
      for (let i = 0; i < 6; i++) {
        clock += 3600_000;
        const started = await owner('POST', '/_api/iam/verification/v1/start', { identityId: memberId });
        expect(started.status).toBe(200);
        await nearMiss(started.body.verificationId);
      }
    });

    it('checklist 52: the codes mailed to one address are limited, whoever logs in with a password they chose', async () => {
      // Anyone can register someone else's address and log in with their own password again and
      // again: each login mailed a code to that address.
      const victim = newEmail();
      expect((await register(victim, 'the squatter password')).status).toBe(200);
      expect((await mailbox(victim)).length).toBe(1);
      // Four at a time (five would throttle the address): the quota holds against parallel logins.
      const answers = [];
      const four = () => Promise.all(Array.from({ length: 4 }, () => login(victim, 'the squatter password')));
      answers.push(...(await four()));
      for (let i = 0; i < 3; i++) answers.push(await login(victim, 'the squatter password'));
      // Eight mailed so far: of these four, two are.
      answers.push(...(await four()));
      expect(await mailbox(victim)).toHaveLength(10);
      answers.push(await login(victim, 'the squatter password'));
      expect(answers.every((a) => a.body.state === 'REQUIRE_EMAIL_VERIFICATION' && a.body.stateToken)).toBe(
        true,
      );
      // Resends count too, and answer as before (a decoy's resends mail nothing either).
      const last = answers.at(-1)!.body.stateToken as string;
      for (let i = 0; i < 3; i++) expect(await resend(last)).toMatchObject({ status: 200, body: {} });
      expect(code(await resend(last))).toBe('THROTTLED_FEATURE');
      expect((await mailbox(victim)).length).toBe(10);
      // An hour on, codes are mailed again, and the newest works.
      clock += 3600_000;
      const later = await login(victim, 'the squatter password');
      expect((await mailbox(victim)).length).toBe(11);
      expect((await verify(later.body.stateToken, await latestCode(victim))).body.state).toBe('SUCCESS');
    });

    it('checklist 50: a decoy counts wrong codes over its logins as a member does', async () => {
      const taken = newEmail();
      await settings({ emailVerificationRequired: false });
      expect((await register(taken)).body.state).toBe('SUCCESS');
      await settings({ hideAccountExistence: true, emailVerificationRequired: true });
      try {
        const OTHER = 'the decoy password';
        const fresh = newEmail();
        /** What a round of a state token's wrong codes and resends answers, ids blanked out. */
        const round = async (email: string, stateToken: string, wrongs: number) => {
          const out: unknown[] = [];
          for (let j = 0; j < wrongs; j++) {
            // No code is mailed for the decoy: any code is a wrong one.
            const wrong = email === fresh ? wrongFor(await latestCode(email)) : '000000';
            const r = await verify(stateToken, wrong);
            out.push([r.status, code(r)]);
          }
          const r = await resend(stateToken);
          out.push([r.status, code(r)]);
          return out;
        };
        const rounds = async (email: string) => {
          const first = await register(email, OTHER);
          const out = [await round(email, first.body.stateToken, 5)];
          for (let i = 0; i < 4; i++) {
            const r = await login(email, OTHER);
            out.push([r.status, r.body.state, await round(email, r.body.stateToken, i === 3 ? 1 : 5)]);
          }
          return out;
        };
        const real = await rounds(fresh);
        const decoy = await rounds(taken);
        expect(decoy).toEqual(real);
        // The real one's last state token was ended by its first wrong code: the 21st in a row.
        expect(real.at(-1)).toEqual([
          200,
          'REQUIRE_EMAIL_VERIFICATION',
          [
            [400, 'VERIFICATION_FAILED'],
            [400, 'VERIFICATION_FAILED'],
          ],
        ]);
      } finally {
        await settings({ hideAccountExistence: false });
      }
    });

    it('checklist 50: decoy registrations tell the owner once an hour, however many there are', async () => {
      const taken = newEmail();
      await settings({ emailVerificationRequired: false });
      expect((await register(taken)).body.state).toBe('SUCCESS');
      await settings({ hideAccountExistence: true, emailVerificationRequired: true });
      try {
        // All at once: the notice is not sent twice by registrations that overlap.
        const decoys = await Promise.all(
          Array.from({ length: 10 }, (_, i) => register(taken, `decoy password ${i}`)),
        );
        expect(decoys.map((d) => d.body.state)).toEqual(Array(10).fill('REQUIRE_EMAIL_VERIFICATION'));
        expect((await mailbox(taken)).map((m) => m.subject)).toEqual([
          'Someone tried to create an account with your e-mail address',
        ]);
        clock += 3600_000;
        expect((await register(taken, 'one more')).body.state).toBe('REQUIRE_EMAIL_VERIFICATION');
        expect(await mailbox(taken)).toHaveLength(2);
      } finally {
        await settings({ hideAccountExistence: false });
      }
    });
  });

  it('checklist 51: logins with the right password at once are served or throttled, never a 500', async () => {
    // Each one's success cleared the address's count while others waited on it (PostgreSQL).
    const email = newEmail();
    expect((await register(email)).body.state).toBe('SUCCESS');
    for (let round = 0; round < 3; round++) {
      const answers = await Promise.all(Array.from({ length: 12 }, () => login(email)));
      for (const a of answers)
        if (a.status !== 200)
          expect({ status: a.status, code: code(a) }).toEqual({ status: 429, code: 'THROTTLED_FEATURE' });
      clock += 3600_000;
    }
  });

  it('checklist 52: reset e-mails to one address: five an hour, answered as for an address with no account', async () => {
    const email = newEmail();
    expect((await register(email)).body.state).toBe('SUCCESS');
    const nobody = await call('POST', '/_api/iam/recovery/v1/send-email', { email: newEmail() });
    for (let i = 0; i < 12; i++) {
      const r = await call('POST', '/_api/iam/recovery/v1/send-email', { email });
      expect({ status: r.status, body: r.body }).toEqual({ status: nobody.status, body: nobody.body });
    }
    // Activation e-mails draw on the same quota.
    const id = (await memberId(email))!;
    expect((await call('POST', '/_api/iam/recovery/v1/activation-email', { identityId: id })).status).toBe(
      200,
    );
    expect(await mailbox(email)).toHaveLength(5);
    clock += 3600_000;
    expect(
      (await call('POST', '/_api/iam/recovery/v1/send-email', { email: email.toUpperCase() })).status,
    ).toBe(200);
    expect(await mailbox(email)).toHaveLength(6);
  });
});
