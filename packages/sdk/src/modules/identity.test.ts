/**
 * The identity module's request bodies with a fake fetch: the optional fields the platform's
 * calls take (spec 7) reach the wire.
 */
import { describe, expect, it } from 'vitest';
import { identityClient } from '../../test/identity-client.ts';

function fake() {
  const bodies: Record<string, any> = {};
  const client = identityClient(async (input, init) => {
    bodies[new URL(String(input)).pathname] = JSON.parse(String(init?.body ?? '{}'));
    return Response.json({ state: 'SUCCESS', sessionToken: 's', identity: { id: 'i' } });
  });
  return { client, bodies };
}

describe('identity requests', () => {
  it('send clientMetaData on register and login', async () => {
    const { client, bodies } = fake();
    const meta = { source: 'checkout-page' };
    await client.identity.register({
      email: 'a@example.test',
      password: 'long enough pw',
      clientMetaData: meta,
    });
    await client.identity.login({
      email: 'a@example.test',
      password: 'long enough pw',
      clientMetaData: meta,
    });
    expect(bodies['/_api/iam/authentication/v2/register'].clientMetaData).toEqual(meta);
    expect(bodies['/_api/iam/authentication/v2/login'].clientMetaData).toEqual(meta);
  });

  it('send the reset e-mail’s language and return address, or the address alone', async () => {
    const { client, bodies } = fake();
    await client.identity.sendPasswordResetEmail('a@example.test', {
      redirectUri: 'https://shop.example/after',
      language: 'fr',
    });
    expect(bodies['/_api/iam/recovery/v1/send-email']).toEqual({
      email: 'a@example.test',
      language: 'fr',
      redirect: { url: 'https://shop.example/after', clientId: 'client-1' },
    });
    await client.identity.sendPasswordResetEmail('b@example.test', 'https://shop.example/back');
    expect(bodies['/_api/iam/recovery/v1/send-email']).toEqual({
      email: 'b@example.test',
      redirect: { url: 'https://shop.example/back', clientId: 'client-1' },
    });
  });
});

describe('refused register and login', () => {
  /** A client whose register and login are refused with the application error `code` (400). */
  const refusing = (code: string) =>
    identityClient(async () =>
      Response.json(
        { message: code, details: { applicationError: { code, description: code, data: {} } } },
        { status: 400 },
      ),
    );
  const params = { email: 'a@example.test', password: 'long enough pw' };

  // Wire §5.5: the platform SDK compares the numeric strings; its typings list symbolic codes too,
  // and which of the two the live API sends is not known. Both are read.
  it.each([
    ['-19995', 'emailAlreadyExists', 'invalidEmail'],
    ['DUPLICATE_EMAIL', 'emailAlreadyExists', 'invalidEmail'],
    ['-19971', 'missingCaptchaToken', 'missingCaptchaToken'],
    ['CAPTCHA_TOKEN_REQUIRED', 'missingCaptchaToken', 'missingCaptchaToken'],
    ['MISSING_CAPTCHA_TOKEN', 'missingCaptchaToken', 'missingCaptchaToken'],
    ['-19970', 'invalidCaptchaToken', 'invalidCaptchaToken'],
    ['INVALID_CAPTCHA_TOKEN', 'invalidCaptchaToken', 'invalidCaptchaToken'],
    ['-19976', undefined, 'invalidPassword'],
    ['-19973', undefined, 'resetPassword'],
    ['THROTTLED_FEATURE', undefined, 'invalidEmail'],
  ])('read the code %s as %s (register) and %s (login)', async (code, onRegister, onLogin) => {
    const client = refusing(code);
    const registered = await client.identity.register(params);
    expect(registered).toMatchObject({ loginState: 'FAILURE' });
    expect(registered.errorCode).toBe(onRegister);
    expect(await client.identity.login(params)).toMatchObject({ loginState: 'FAILURE', errorCode: onLogin });
  });
});
