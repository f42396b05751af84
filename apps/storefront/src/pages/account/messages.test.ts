import { type LoginResult, MemberSessionError } from '@shopkit/react';
import { ValidationError } from '@shopkit/sdk';
import { describe, expect, it } from 'vitest';
import { OFFLINE, TROUBLE } from '../../errors.ts';
import {
  EMAIL_PROBLEM,
  type FieldInput,
  fieldProblem,
  MIN_PASSWORD,
  outcomeMessage,
  PASSWORD_HINT,
  registrationFieldErrors,
} from './messages.ts';

const failure = (r: Partial<LoginResult>): LoginResult => ({ loginState: 'FAILURE', ...r });

describe('the password rule', () => {
  it('is the platform’s minimum, said in words', () => {
    expect(MIN_PASSWORD).toBe(8);
    expect(PASSWORD_HINT).toBe('At least 8 characters.');
  });
});

describe('outcomeMessage', () => {
  it('says nothing before an answer, on success, when a code is asked for, or when only the session did not start', () => {
    expect(outcomeMessage(undefined, null)).toBe('');
    expect(outcomeMessage({ loginState: 'SUCCESS' }, null)).toBe('');
    expect(outcomeMessage({ loginState: 'EMAIL_VERIFICATION_REQUIRED' }, null)).toBe('');
    expect(outcomeMessage(undefined, new MemberSessionError({ loginState: 'SUCCESS' }, undefined))).toBe('');
  });

  it('says a thrown error in words for shoppers, never the SDK’s developer text', () => {
    const thrown = new ValidationError([{ field: 'password', description: 'too long' }]);
    const text = outcomeMessage(undefined, thrown);
    expect(text).toBe('Some of the details are not valid. Check them and try again.');
    expect(text).not.toMatch(/INVALID_ARGUMENT|options\./);
  });

  it('says an account waiting for approval is waiting', () => {
    expect(outcomeMessage({ loginState: 'OWNER_APPROVAL_REQUIRED' }, null)).toBe(
      'Your account is waiting for the shop owner’s approval.',
    );
  });

  it('has a sentence for each known refusal, whatever the server said', () => {
    const said = (errorCode: string) => outcomeMessage(failure({ errorCode, error: 'server text' }), null);
    expect(said('invalidPassword')).toBe('The e-mail or password is wrong.');
    expect(said('emailAlreadyExists')).toBe('There is already an account with this e-mail. Log in instead.');
    expect(said('resetPassword')).toBe('Your password must be reset before you can log in.');
    expect(said('missingCaptchaToken')).toBe('Please confirm you are not a robot.');
    expect(said('invalidCaptchaToken')).toBe('Please confirm you are not a robot.');
    expect(said('network')).toBe(OFFLINE);
    expect(said('VERIFICATION_FAILED')).toBe(
      'The code is wrong or has expired. Check the e-mail, send a new code, or log in again for one.',
    );
  });

  it('otherwise says the server’s own sentence when it is fit for shoppers', () => {
    expect(outcomeMessage(failure({ errorCode: 'invalidEmail', error: 'too many logins; wait' }), null)).toBe(
      'Too many logins; wait.',
    );
  });

  it('falls back to its own words for developer text or no text', () => {
    const developer = 'INVALID_ARGUMENT: "options.loginId.email" is bad';
    expect(outcomeMessage(failure({ errorCode: 'invalidEmail', error: developer }), null)).toBe(
      'Check the e-mail address.',
    );
    expect(outcomeMessage(failure({ errorCode: 'invalidEmail' }), null)).toBe('Check the e-mail address.');
    expect(outcomeMessage(failure({ errorCode: 'somethingNew', error: developer }), null)).toBe(
      'That did not work. Please try again.',
    );
    expect(outcomeMessage(failure({}), null)).toBe('That did not work. Please try again.');
  });

  it('blames the shop, not the address, when the shop failed (a 5xx, filed under invalidEmail)', () => {
    for (const error of ['System error occurred', 'System error occurred, request-id: 1-2-3'])
      expect(outcomeMessage(failure({ errorCode: 'invalidEmail', error }), null)).toBe(TROUBLE);
  });
});

describe('registrationFieldErrors', () => {
  it('has none unless the registration failed', () => {
    expect(registrationFieldErrors(undefined)).toEqual({});
    expect(registrationFieldErrors({ loginState: 'SUCCESS' })).toEqual({});
    expect(
      registrationFieldErrors({
        loginState: 'EMAIL_VERIFICATION_REQUIRED',
        violations: [{ field: 'password', description: 'x', data: { max: 256 } }],
      }),
    ).toEqual({});
    expect(registrationFieldErrors(failure({ errorCode: 'emailAlreadyExists' }))).toEqual({});
  });

  it('blames the e-mail for a refused address', () => {
    expect(registrationFieldErrors(failure({ errorCode: 'invalidEmail' }))).toEqual({ email: EMAIL_PROBLEM });
  });

  it('says the password’s limits in words, not the platform’s field path', () => {
    const password = (data?: Record<string, unknown>) =>
      registrationFieldErrors(failure({ violations: [{ field: 'password', description: 'bad', data }] }));
    expect(password({ min: 8 })).toEqual({ password: 'Use at least 8 characters.' });
    expect(password({ max: 256 })).toEqual({ password: 'Use at most 256 characters.' });
    expect(password({})).toEqual({ password: 'Choose another password.' });
    expect(password()).toEqual({ password: 'Choose another password.' });
  });

  it('files the login id under the e-mail and the profile under the first name, and ignores other fields', () => {
    expect(
      registrationFieldErrors(
        failure({
          violations: [
            { field: 'email', description: 'bad' },
            { field: 'profile.firstName', description: 'bad' },
            { field: 'somethingElse', description: 'bad' },
            { field: 'passwordHint', description: 'bad', data: { min: 8 } },
          ],
        }),
      ),
    ).toEqual({ email: EMAIL_PROBLEM, firstName: 'Check your first name.' });
  });
});

describe('fieldProblem', () => {
  const input = (i: Partial<FieldInput> & { label?: string }): FieldInput => ({
    value: '',
    required: false,
    type: 'text',
    minLength: -1,
    labels: i.label === undefined ? null : [{ textContent: i.label }],
    ...i,
  });

  it('asks for a required field left empty or blank, by its label', () => {
    expect(fieldProblem(input({ required: true, label: 'First name' }))).toBe('Enter your first name.');
    expect(fieldProblem(input({ required: true, value: '   ', label: 'E-mail' }))).toBe('Enter your e-mail.');
    expect(fieldProblem(input({ required: true }))).toBe('Enter your this field.');
  });

  it('shows what an e-mail address looks like', () => {
    for (const value of ['not an address', 'a@b', '@b.c', 'a b@c.d'])
      expect(fieldProblem(input({ type: 'email', value })), value).toBe(EMAIL_PROBLEM);
    expect(fieldProblem(input({ type: 'email', value: ' name@example.com ' }))).toBe('');
    expect(fieldProblem(input({ type: 'email' }))).toBe('');
  });

  it('says the shortest length, counting every character typed', () => {
    expect(fieldProblem(input({ minLength: 8, value: 'short' }))).toBe('Use at least 8 characters.');
    expect(fieldProblem(input({ minLength: 8, value: '12345678' }))).toBe('');
    expect(fieldProblem(input({ minLength: 8, value: 'x'.repeat(257) }))).toBe('');
  });

  it('finds nothing wrong with an optional empty field', () => {
    expect(fieldProblem(input({}))).toBe('');
  });
});
