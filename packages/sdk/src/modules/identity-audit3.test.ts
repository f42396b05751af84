/**
 * The identity module's typings against the wire protocol (§5.5): the identity profile's fields,
 * and the state-machine states the platform answers with, each mapped to a result the UI can use.
 * The type checks run under `tsc -p packages/sdk/tsconfig.json`.
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import { identityClient } from '../../test/identity-client.ts';
import * as identity from './identity.ts';

/** A client whose identity calls all answer `answer`. */
const answering = (answer: object) => identityClient(async () => Response.json(answer));

describe('identityProfile', () => {
  it('has the wire fields, typed, and unknown extra fields as unknown', () => {
    type Profile = NonNullable<identity.Identity['identityProfile']>;
    expectTypeOf<Profile>().toEqualTypeOf<identity.IdentityProfile>();
    expectTypeOf<Profile['firstName']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<Profile['lastName']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<Profile['nickname']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<Profile['emails']>().toEqualTypeOf<string[] | undefined>();
    expectTypeOf<Profile['phones']>().toEqualTypeOf<string[] | undefined>();
    expectTypeOf<Profile['labels']>().toEqualTypeOf<string[] | undefined>();
    expectTypeOf<Profile['privacyStatus']>().toEqualTypeOf<identity.PrivacyStatus | undefined>();
    expectTypeOf<Profile['birthdate']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<Profile['subscription']>().toEqualTypeOf<boolean | undefined>();
    type Field = NonNullable<Profile['customFields']>[number];
    expectTypeOf<Field['name']>().toEqualTypeOf<string>();
    expectTypeOf<NonNullable<Field['value']>['dateValue']>().toEqualTypeOf<Date | undefined>();
    expectTypeOf<NonNullable<Field['value']>['numValue']>().toEqualTypeOf<number | undefined>();
    type Address = NonNullable<Profile['addresses']>[number];
    expectTypeOf<Address['tag']>().toEqualTypeOf<identity.AddressTag | undefined>();
    expectTypeOf<NonNullable<Address['address']>['addressLine1']>().toEqualTypeOf<string | undefined>();
    // Open for fields the doc does not list, but as `unknown`: they must be checked before use.
    expectTypeOf<Profile['someFieldOfTomorrow']>().toBeUnknown();
    expectTypeOf<Profile['firstName']>().not.toBeAny();
    // A profile sent on registration is checked too.
    type Sent = NonNullable<Parameters<typeof identity.register>[1]['profile']>;
    expectTypeOf<Sent>().toEqualTypeOf<identity.IdentityProfile>();
  });

  it('arrives with dates and addresses transformed, extra fields kept', async () => {
    const client = answering({
      state: 'SUCCESS',
      sessionToken: 's',
      identity: {
        id: 'i',
        identityProfile: {
          firstName: 'Ada',
          emails: ['ada@example.test'],
          customFields: [{ name: 'since', value: { dateValue: '2024-05-01T00:00:00.000Z' } }],
          addresses: [{ tag: 'HOME', address: { addressLine: '1 Main St', country: 'GB' } }],
          futureField: { x: 1 },
        },
      },
    });
    const r = await client.identity.login({ email: 'ada@example.test', password: 'long enough pw' });
    const profile = r.data?.identity?.identityProfile;
    expect(profile?.firstName).toBe('Ada');
    expect(profile?.customFields?.[0]?.value?.dateValue).toEqual(new Date('2024-05-01T00:00:00.000Z'));
    expect(profile?.addresses?.[0]?.address?.addressLine1).toBe('1 Main St');
    expect(profile?.futureField).toEqual({ x: 1 });
  });
});

describe('StateType', () => {
  it('lists every state of the wire protocol', () => {
    expect(Object.keys(identity.StateType).sort()).toEqual(
      [
        'UNKNOWN_STATE',
        'SUCCESS',
        'REQUIRE_OWNER_APPROVAL',
        'REQUIRE_EMAIL_VERIFICATION',
        'STATUS_CHECK',
        'REQUIRE_MFA',
        'MFA_CHALLENGE',
        'REQUIRE_FIRST_FACTOR',
        'REQUIRE_MISSING_FIELDS',
      ].sort(),
    );
    expectTypeOf<'REQUIRE_FIRST_FACTOR'>().toExtend<identity.StateType>();
    expectTypeOf<'REQUIRE_MISSING_FIELDS'>().toExtend<identity.StateType>();
  });

  it.each([
    ['REQUIRE_MISSING_FIELDS', 'missingFields'],
    ['REQUIRE_FIRST_FACTOR', 'firstFactorRequired'],
  ])(
    'answers %s with the spec FAILURE, told apart by its code (%s), keeping its state token',
    async (state, code) => {
      const client = answering({ state, stateToken: 'st-1', identity: { id: 'i' } });
      const login = await client.identity.login({ email: 'a@example.test', password: 'long enough pw' });
      expect(login).toMatchObject({
        loginState: 'FAILURE',
        errorCode: code,
        data: { stateToken: 'st-1', identity: { id: 'i' } },
      });
      // The spec's error for any other state (point 4), told apart by its code.
      expect(login.error).toBe('Unknown _state');
      const registered = await client.identity.register({
        email: 'a@example.test',
        password: 'long enough pw',
      });
      expect(registered).toMatchObject({ loginState: 'FAILURE', errorCode: code });
    },
  );

  it('still answers a state it cannot finish (REQUIRE_MFA) as the spec says', async () => {
    const client = answering({ state: 'REQUIRE_MFA', stateToken: 'st-2' });
    expect(await client.identity.login({ email: 'a@example.test', password: 'long enough pw' })).toEqual({
      loginState: 'FAILURE',
      error: 'Unknown _state',
    });
  });
});

describe('additionalData', () => {
  it('comes with the identity in the result (spec 3), its dates as Date', async () => {
    const client = answering({
      state: 'SUCCESS',
      sessionToken: 's',
      identity: { id: 'i' },
      additionalData: { plan: { strValue: 'gold' }, since: { dateValue: '2024-05-01T00:00:00.000Z' } },
    });
    const r = await client.identity.login({ email: 'ada@example.test', password: 'long enough pw' });
    // Was: dropped, the result's data holding the identity and the session token only.
    expect(r.data?.additionalData).toEqual({
      plan: { strValue: 'gold' },
      since: { dateValue: new Date('2024-05-01T00:00:00.000Z') },
    });
    expectTypeOf(r.data!.additionalData!.since!.dateValue).toEqualTypeOf<Date | undefined>();
  });
});
