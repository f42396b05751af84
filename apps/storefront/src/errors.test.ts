import { ApplicationError, type FieldViolation, HttpError, SystemError, ValidationError } from '@shopkit/sdk';
import { describe, expect, it } from 'vitest';
import { humanMessage, isRefusal, REFUSED, TROUBLE } from './errors.ts';

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

describe('humanMessage for a refused quantity', () => {
  /** A 400 with field violations, as the SDK throws it: fields named as the call's arguments. */
  const refused = (...violations: FieldViolation[]) =>
    new ValidationError(violations, { status: 400, requestId: 'req-1' });
  const GENERIC = 'Some of the details are not valid. Check them and try again.';

  it('says how many the cart can hold when an add would take a line past its maximum', () => {
    const e = refused({
      field: 'options.lineItems[0].quantity',
      description: 'would make the quantity of Linen Tea Towels (Set of 3) 10000; a line holds at most 9999',
      violatedRule: 'MAX',
      data: { max: 9999 },
    });
    expect(humanMessage(e)).toBe('Your cart can hold at most 9999 of this item.');
    expect(isRefusal(e)).toBe(true);
  });

  it('says the same when a quantity change is refused, with the server’s own maximum', () => {
    const update = (max: number) =>
      refused({
        field: 'lineItems[0].quantity',
        description: `must be at most ${max}`,
        violatedRule: 'MAX',
        data: { max },
      });
    expect(humanMessage(update(9999))).toBe('Your cart can hold at most 9999 of this item.');
    expect(humanMessage(update(250))).toBe('Your cart can hold at most 250 of this item.');
  });

  it('finds the quantity among other violations', () => {
    const e = refused(
      {
        field: 'lineItems[0].id',
        description: 'must not be empty',
        violatedRule: 'REQUIRED_FIELD',
        data: {},
      },
      {
        field: 'lineItems[1].quantity',
        description: 'must be at most 9999',
        violatedRule: 'MAX',
        data: { max: 9999 },
      },
    );
    expect(humanMessage(e)).toBe('Your cart can hold at most 9999 of this item.');
  });

  it('keeps the general sentence for any other refusal: another rule, another field, no usable maximum', () => {
    for (const v of [
      {
        field: 'lineItems[0].quantity',
        description: 'must be at least 0',
        violatedRule: 'MIN',
        data: { min: 0 },
      },
      { field: 'lineItems[0].quantity', description: 'must be an integer', violatedRule: 'FORMAT', data: {} },
      {
        field: 'lineItems',
        description: 'must have at most 300 items',
        violatedRule: 'MAX_SIZE',
        data: { max: 300 },
      },
      {
        field: 'options.price',
        description: 'must be at most 999999',
        violatedRule: 'MAX',
        data: { max: 999999 },
      },
      {
        field: 'variant.quantity',
        description: 'must be at most 99999',
        violatedRule: 'MAX',
        data: { max: 99999 },
      },
      { field: 'lineItems[0].quantity', description: 'is too large', violatedRule: 'MAX' },
      {
        field: 'lineItems[0].quantity',
        description: 'is too large',
        violatedRule: 'MAX',
        data: { max: 'many' },
      },
      {
        field: 'lineItems[0].quantity',
        description: 'is too large',
        violatedRule: 'MAX',
        data: { max: null },
      },
    ] satisfies FieldViolation[])
      expect(humanMessage(refused(v)), `${v.field} ${v.violatedRule}`).toBe(GENERIC);
    // The SDK's own check before sending: no status, no rule.
    expect(humanMessage(new ValidationError([{ field: 'lineItems', description: 'must be an array' }]))).toBe(
      GENERIC,
    );
  });

  it('leaves other failures of the same calls as they were', () => {
    expect(
      humanMessage(
        new HttpError('Too Many Requests', { status: 429, code: 'TOO_MANY_REQUESTS', description: '' }),
      ),
    ).toBe('Too many requests. Please wait a moment and try again.');
    expect(
      humanMessage(
        new SystemError('System error occurred, request-id: 1', {
          status: 500,
          code: 'UNKNOWN',
          description: '',
        }),
      ),
    ).toBe('The shop is having trouble right now. Please try again in a moment.');
  });
});

describe('humanMessage for a refusal without words for shoppers', () => {
  it('says the request was not accepted, not that the shop is down', () => {
    for (const status of [400, 409, 422]) expect(humanMessage(answered(status)), `${status}`).toBe(REFUSED);
    const developer = new ApplicationError('INVALID_ARGUMENT: the request is bad', {
      status: 400,
      code: 'INVALID_ARGUMENT',
      description: 'the request is bad',
    });
    expect(humanMessage(developer)).toBe(REFUSED);
    // An outage is still one; a 429 asks for a wait; a sentence of the platform's is said as it is.
    expect(humanMessage(answered(503))).toBe(TROUBLE);
    expect(humanMessage(answered(429))).toMatch(/^Too many requests/);
    expect(
      humanMessage(new ApplicationError('no such coupon', { status: 400, code: 'X', description: '' })),
    ).toBe('No such coupon.');
  });
});
