/**
 * Findings of an audit of the SDK's calls against the spec and the wire notes: `updateCurrentCart`
 * with its field mask as one string (the wire's form) threw a `TypeError` past `onError`; a
 * registration's profile was stored as it came (a number as the first name, a date that is none,
 * a list that is no list); `verifyFactor` took any string as its factor and `processVerification`
 * compiled without a code; a refused registration, recovery or reset e-mail named its fields as
 * the SDK's internal message (`options.password`, `options.recoveryToken`, `m.email`).
 */
import { testBackends } from '@shopkit/emulator/testing';
import { describe, expect, it, vi } from 'vitest';
import { cart, identity, LoginState } from '../../src/index.ts';
import { setupCatalog, setupEmulator, visitorClient } from './setup.ts';

describe.each(testBackends())('calls as the spec names them, audit 5 (%s)', (backend) => {
  const emu = setupEmulator(backend);
  const { item } = setupCatalog(emu);

  it('takes the cart field mask as one comma-joined string too, as the wire has it', async () => {
    const onError = vi.fn();
    const client = visitorClient(emu, { cart });
    client._.o.onError = onError;
    await client.cart.addToCurrentCart({ lineItems: [item('dinner-plate')] });
    const updated = await client.cart.updateCurrentCart({
      cartInfo: { buyerNote: 'by the door' },
      cartFieldmask: 'buyerNote' as unknown as string[],
    });
    expect(updated.buyerNote).toBe('by the door');
    expect(onError).not.toHaveBeenCalled();
  });

  it("refuses a profile whose fields are not of the wire's types, and makes no member", async () => {
    const client = visitorClient(emu, { identity });
    let n = 0;
    for (const [profile, field] of [
      [{ firstName: 5 }, 'firstName'],
      [{ customFields: [{ name: 'since', value: { dateValue: 'not a date' } }] }, 'customFields'],
      [{ phones: '555 0100' }, 'phones'],
      [{ birthdate: '1 May 1990' }, 'birthdate'],
      // Days that are not on the calendar (they were stored as they came).
      [{ birthdate: '2020-13-45' }, 'birthdate'],
      [{ birthdate: '2021-02-29' }, 'birthdate'],
      [{ customFields: [{ name: 'since', value: { dateValue: '2021-02-29T00:00:00Z' } }] }, 'customFields'],
    ] as const) {
      const email = `profile-${++n}-${backend}@example.test`;
      const r = await client.identity.register({
        email,
        password: 'long enough pw',
        profile: profile as never,
      });
      expect(r.loginState).toBe(LoginState.FAILURE);
      expect(r.violations?.map((v) => v.field).join()).toContain(field);
      const login = await client.identity.login({ email, password: 'long enough pw' });
      expect(login.errorCode).toBe('invalidEmail');
    }
    // The wire's types, and a field it does not name, are taken.
    const ok = await client.identity.register({
      email: `profile-ok-${backend}@example.test`,
      password: 'long enough pw',
      profile: {
        firstName: 'Ada',
        phones: ['555 0100'],
        birthdate: '1990-05-01',
        customFields: [{ name: 'since', value: { dateValue: new Date('2024-05-01T00:00:00Z') } }],
        fieldOfTomorrow: { x: 1 },
      },
    });
    expect(ok.loginState).toBe(LoginState.SUCCESS);
    expect(ok.data?.identity?.identityProfile?.customFields?.[0]?.value?.dateValue).toEqual(
      new Date('2024-05-01T00:00:00Z'),
    );
  });

  it('types the factor and the verification code as the spec lists them', () => {
    const client = visitorClient(emu, { identity });
    // Compiled before: a misspelled factor, and a verification without its code.
    // @ts-expect-error not a FactorType
    void (() => client.identity.verifyFactor('EMIAL', { stateToken: 's' }));
    // @ts-expect-error the code (or verificationCode) is required
    void (() => client.identity.processVerification({}));
    void (() => client.identity.verifyFactor('EMAIL', { stateToken: 's', emailData: { code: '1' } }));
    void (() => client.identity.processVerification({ verificationCode: '123456' }));
  });
});

describe.each(testBackends())('fields of refused identity calls in the caller’s names (%s)', (backend) => {
  const emu = setupEmulator(backend);

  it('names the parameters the caller gave, not the SDK’s internal message', async () => {
    const client = visitorClient(emu, { identity });
    const short = await client.identity.register({
      email: `names-${backend}@example.test`,
      password: 'short',
    });
    expect(short.violations?.map((v) => v.field)).toEqual(['password']);
    const badEmail = await client.identity.register({ email: 'no at sign', password: 'long enough pw' });
    expect(badEmail.errorCode).toBe('invalidEmail');
    // From plain JavaScript without its parameters: the platform's words, not a TypeError's.
    const bare = await client.identity.register(undefined as never);
    expect(bare.loginState).toBe(LoginState.FAILURE);
    expect(bare.error).not.toMatch(/Cannot read|undefined \(reading/);
    expect(bare.violations?.map((v) => v.field)).toEqual(expect.arrayContaining(['password']));
    const bareLogin = await client.identity.login(undefined as never);
    expect(bareLogin.error).not.toMatch(/Cannot read|undefined \(reading/);
    // Was `options.recoveryToken`, `options.password`, `m.email`.
    const recovered = await client.identity.recover('', 'long enough pw');
    expect(recovered.error).toContain('"recoveryToken"');
    expect(recovered.error).not.toContain('options.');
    const mail = await client.identity
      .sendPasswordResetEmail(`${'a'.repeat(300)}@example.test`)
      .catch((e: Error) => e);
    expect(mail).toBeInstanceOf(Error);
    expect((mail as Error).message).toContain('"email"');
    expect((mail as Error).message).not.toContain('m.');
  });
});

describe.each(testBackends())('validateEmail (wire §5.5) (%s)', (backend) => {
  const emu = setupEmulator(backend);

  it('says whether an address can register: its format, and whether it is taken', async () => {
    const client = visitorClient(emu, { identity });
    const taken = `taken-${backend}@example.test`;
    await client.identity.register({ email: taken, password: 'long enough pw' });
    expect(await client.identity.validateEmail(`free-${backend}@example.test`)).toEqual({
      valid: true,
      formatInvalid: false,
    });
    expect(await client.identity.validateEmail(taken)).toMatchObject({
      valid: false,
      failure: { reason: 'EMAIL_ALREADY_EXISTS' },
    });
    expect(await client.identity.validateEmail('no at sign')).toMatchObject({
      valid: false,
      formatInvalid: true,
      failure: { reason: 'INVALID_FORMAT' },
    });
  });
});
