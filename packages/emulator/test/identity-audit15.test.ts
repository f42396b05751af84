/**
 * Findings of a fifteenth audit of the identity domain (behaviour against wire §5.5), over raw
 * HTTP: an identity listed its login e-mail twice in `identityProfile.emails` when the profile
 * named it again in other case; and the dev mailbox's `to` filter missed an address given with
 * spaces around it, where every member lookup ignores them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator, testBackends } from '../src/testing.ts';
import { identityCalls, jsonCalls } from './http.ts';

describe.each(testBackends())('identity audit 15 (%s)', (backend) => {
  let emu: TestEmulator;
  beforeAll(async () => {
    emu = await startTestEmulator(backend);
  });
  afterAll(() => emu?.stop());

  const { call } = jsonCalls(() => emu);
  const { register, login } = identityCalls(() => emu);
  let n = 0;
  const newEmail = () => `Audit15-${++n}-${backend}@Example.test`;

  it('lists the login e-mail once in identityProfile.emails, whatever its case in the profile', async () => {
    const email = newEmail();
    const other = `other-${n}@example.test`;
    const registered = await register(email, undefined, {
      profile: { emails: [email.toLowerCase(), other] },
    });
    expect(registered.status).toBe(200);
    expect(registered.body.identity.identityProfile.emails).toEqual([email, other]);
    const loggedIn = await login(email.toUpperCase());
    expect(loggedIn.body.state).toBe('SUCCESS');
    expect(loggedIn.body.identity.identityProfile.emails).toEqual([email, other]);
  });

  it("finds a member's mails in the mailbox by its address with spaces and in other case", async () => {
    const email = newEmail();
    expect(
      (
        await call('POST', '/_api/iam/authentication/v2/register', {
          loginId: { email },
          password: 'the right password',
        })
      ).status,
    ).toBe(200);
    expect(
      (await call('POST', '/_api/iam/recovery/v1/send-email', { email: ` ${email.toLowerCase()} ` })).status,
    ).toBe(200);
    const mails = (
      await call('GET', `/_api/emulator/v1/mailbox?to=${encodeURIComponent(`  ${email.toUpperCase()} `)}`)
    ).body.messages;
    expect(mails.map((m: { to: string; subject: string }) => [m.to, m.subject])).toEqual([
      [email, 'Reset your password'],
    ]);
    // A blank filter is no filter, as an absent one.
    expect((await call('GET', '/_api/emulator/v1/mailbox?to=%20')).body.messages.length).toBeGreaterThan(0);
  });
});
