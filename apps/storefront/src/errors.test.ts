import { ApplicationError, HttpError, SystemError, ValidationError } from '@shopkit/sdk';
import { describe, expect, it } from 'vitest';
import { isRefusal } from './errors.ts';

const answered = (status: number) =>
  new HttpError('refused', { status, code: String(status), description: '' });

describe('isRefusal', () => {
  it('is true for a 4xx answer, 429 included, and for the SDK’s own check before sending', () => {
    for (const status of [400, 403, 404, 409, 429, 499])
      expect(isRefusal(answered(status)), `${status}`).toBe(true);
    expect(isRefusal(new ApplicationError('no', { status: 400, code: 'NOPE', description: 'no' }))).toBe(
      true,
    );
    expect(isRefusal(new ValidationError([{ field: 'name', description: 'must not be empty' }]))).toBe(true);
  });

  it('is false for a failure that may pass: no answer, a 5xx, or anything else', () => {
    for (const status of [500, 503, 399]) expect(isRefusal(answered(status)), `${status}`).toBe(false);
    expect(isRefusal(new SystemError('offline', { code: 'NETWORK', description: '' }))).toBe(false);
    expect(isRefusal(new Error('boom'))).toBe(false);
    expect(isRefusal(undefined)).toBe(false);
  });
});
