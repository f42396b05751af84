/**
 * The account forms' plain rules: what to say about a refused login, registration or
 * verification, and about a field's value before it is sent.
 */
import { type LoginResult, MemberSessionError } from '@shopkit/react';
import { humanMessage, OFFLINE, serverSentence, TROUBLE } from '../../errors.ts';

/** The platform's password rule (the emulator's too). */
export const MIN_PASSWORD = 8;
export const PASSWORD_HINT = `At least ${MIN_PASSWORD} characters.`;
export const EMAIL_PROBLEM = 'Enter an e-mail address such as name@example.com.';

const MESSAGES: Record<string, string> = {
  invalidPassword: 'The e-mail or password is wrong.',
  emailAlreadyExists: 'There is already an account with this e-mail. Log in instead.',
  resetPassword: 'Your password must be reset before you can log in.',
  missingCaptchaToken: 'Please confirm you are not a robot.',
  invalidCaptchaToken: 'Please confirm you are not a robot.',
  network: OFFLINE,
  // (also what a code's last allowed attempt got: after it only a new login gives a code)
  VERIFICATION_FAILED:
    'The code is wrong or has expired. Check the e-mail, send a new code, or log in again for one.',
};

/** What to say about a refused login, registration or verification ('' when there is nothing to say). */
export function outcomeMessage(r: LoginResult | undefined, error: Error | null) {
  if (error) return error instanceof MemberSessionError ? '' : humanMessage(error);
  if (!r || r.loginState === 'SUCCESS' || r.loginState === 'EMAIL_VERIFICATION_REQUIRED') return '';
  if (r.loginState === 'OWNER_APPROVAL_REQUIRED')
    return 'Your account is waiting for the shop owner’s approval.';
  if (r.errorCode && MESSAGES[r.errorCode]) return MESSAGES[r.errorCode]!;
  // The shop failed (a 5xx, in the SDK's words for one): filed under `invalidEmail` too, but no
  // fault of the address's.
  if (r.error?.startsWith('System error occurred')) return TROUBLE;
  // The SDK files every other refused login (throttling, an unknown address…) under
  // `invalidEmail`: the server's own sentence says which.
  return (
    serverSentence(r.error) ??
    (r.errorCode === 'invalidEmail' ? 'Check the e-mail address.' : 'That did not work. Please try again.')
  );
}

export type FieldErrors = Record<string, string>;

/** Field errors of a refused registration, from the platform's violations (fields in `register`'s names). */
export function registrationFieldErrors(r: LoginResult | undefined): FieldErrors {
  if (r?.loginState !== 'FAILURE') return {};
  if (r.errorCode === 'invalidEmail') return { email: EMAIL_PROBLEM };
  const out: FieldErrors = {};
  for (const { field, data = {} } of r.violations ?? []) {
    if (/^password\b/.test(field)) {
      const [at, n] = data.min !== undefined ? ['least', data.min] : ['most', data.max];
      out.password = n === undefined ? 'Choose another password.' : `Use at ${at} ${n} characters.`;
    } else if (/^(email|loginId)\b/.test(field)) out.email = EMAIL_PROBLEM;
    else if (/^profile\b/.test(field)) out.firstName = 'Check your first name.';
  }
  return out;
}

/** The parts of an `<input>` that {@link fieldProblem} reads. */
export interface FieldInput {
  value: string;
  required: boolean;
  type: string;
  minLength: number;
  labels: ArrayLike<{ textContent: string | null }> | null;
}

/** What is wrong with a field's value, as the shopper should read it ('' when nothing). */
export function fieldProblem(input: FieldInput) {
  const value = input.value.trim();
  const label = input.labels?.[0]?.textContent?.toLowerCase() ?? 'this field';
  if (input.required && !value) return `Enter your ${label}.`;
  if (input.type === 'email' && value && !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(value)) return EMAIL_PROBLEM;
  if (input.minLength > 0 && input.value.length < input.minLength)
    return `Use at least ${input.minLength} characters.`;
  return '';
}
