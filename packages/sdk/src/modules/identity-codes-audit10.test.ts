/**
 * Answers whose state or code names an `Object.prototype` member (`constructor`, `toString`),
 * found by the tenth audit: read as entries of the SDK's lookup tables, they came back as a
 * function in `errorCode`. Each test failed before its fix.
 */
import { describe, expect, it } from 'vitest';
import { identityClient } from '../../test/identity-client.ts';

const params = { email: 'a@example.test', password: 'long enough pw' };

describe('a state or a code named after an Object.prototype member', () => {
  it.each(['constructor', 'toString', '__proto__', 'hasOwnProperty'])(
    'a login answered with state %s is an unknown state, with no errorCode',
    async (state) => {
      const client = identityClient(async () => Response.json({ state, identity: { id: 'i' } }));
      const result = await client.identity.login(params);
      expect(result.loginState).toBe('FAILURE');
      expect(result.errorCode).toBeUndefined();
    },
  );

  it.each(['constructor', 'toString', 'valueOf'])(
    'a register or login refused with the code %s: no function as errorCode',
    async (code) => {
      const client = identityClient(async () =>
        Response.json(
          { message: code, details: { applicationError: { code, description: code, data: {} } } },
          { status: 400 },
        ),
      );
      const registered = await client.identity.register(params);
      expect(registered.errorCode).toBeUndefined();
      const loggedIn = await client.identity.login(params);
      expect(loggedIn.errorCode).toBe('invalidEmail');
    },
  );
});
