import { describe, expect, it } from 'vitest';
import { importMinified } from '../../test/minified.ts';
import {
  ApplicationError,
  constantCase,
  errorFromResponse,
  HttpError,
  isNetworkError,
  ShopkitError,
  SPI_ERROR_TYPE,
  SystemError,
  systemError,
  ValidationError,
} from './errors.ts';
import { argFieldMapper, parseArgs } from './op.ts';

const res = (status: number, body: unknown, statusText = '', requestId: string | null = 'req-1') => ({
  status,
  statusText,
  body,
  requestId,
});

describe('errorFromResponse (spec point 8)', () => {
  it('validation: INVALID_ARGUMENT with fields sorted and mapped to argument names', () => {
    const rename = argFieldMapper(parseArgs(['options:']));
    const err = errorFromResponse(
      res(400, {
        message: 'bad',
        details: {
          validationError: {
            fieldViolations: [
              { field: 'lineItems[0].quantity', description: 'must be at least 1' },
              { field: 'couponCode', description: 'is too long' },
              { field: 'lineItems', description: 'is invalid' },
            ],
          },
        },
      }),
      rename,
    );
    expect(err).toBeInstanceOf(ValidationError);
    expect(err.message).toBe(
      'INVALID_ARGUMENT: "options.couponCode" is too long, "options.lineItems[0].quantity" must be at least 1',
    );
    expect(err).toMatchObject({ status: 400, code: 'INVALID_ARGUMENT', requestId: 'req-1' });
    expect(err.details.validationError!.fieldViolations).toHaveLength(2);
  });

  it('maps a path-parameter field back to its argument', () => {
    const rename = argFieldMapper(parseArgs(['id:product.id', 'product']));
    expect(rename('product.id')).toBe('id');
    expect(rename('product.name')).toBe('product.name');
    expect(rename('other')).toBe('other');
  });

  it('application: the server message, then ": description" when different', () => {
    const err = errorFromResponse(
      res(428, {
        message: 'Cart not found',
        details: {
          applicationError: {
            code: 'OWNED_CART_NOT_FOUND',
            description: 'No cart for this visitor',
            data: { a: 1 },
          },
        },
      }),
    );
    expect(err).toBeInstanceOf(ApplicationError);
    expect(err.message).toBe('Cart not found: No cart for this visitor');
    expect(err).toMatchObject({
      status: 428,
      code: 'OWNED_CART_NOT_FOUND',
      description: 'No cart for this visitor',
      data: { a: 1 },
    });
    const same = errorFromResponse(
      res(404, {
        message: 'Gone away',
        details: { applicationError: { code: 'X', description: 'Gone away' } },
      }),
    );
    expect(same.message).toBe('Gone away');
  });

  it('application errors on 5xx keep their class', () => {
    expect(
      errorFromResponse(
        res(500, {
          message: 'm',
          details: { applicationError: { code: 'INTERNAL_ERROR', description: 'd' } },
        }),
      ),
    ).toBeInstanceOf(ApplicationError);
  });

  it('other 4xx: the status text as message and description, code in UPPER_SNAKE_CASE', () => {
    const err = errorFromResponse(res(404, null, 'Not Found'));
    expect(err).toBeInstanceOf(HttpError);
    expect(err).toMatchObject({
      message: 'Not Found',
      description: 'Not Found',
      code: 'NOT_FOUND',
      status: 404,
    });
    expect(errorFromResponse(res(429, 'text body', '')).code).toBe('TOO_MANY_REQUESTS');
  });

  it('anything else: System error occurred, with the request id when known', () => {
    const a = errorFromResponse(res(502, null, 'Bad Gateway'));
    expect(a).toBeInstanceOf(SystemError);
    expect(a.message).toBe('System error occurred, request-id: req-1');
    const b = errorFromResponse(res(500, null, 'Internal Server Error', null));
    expect(b.message).toBe('System error occurred');
  });

  it("keeps the body's details of a system error, and takes its error code", () => {
    const sys = errorFromResponse(
      res(500, {
        message: 'Internal error in catalog',
        details: { systemError: { errorCode: 'CATALOG_TIMEOUT' } },
      }),
    );
    expect(sys).toBeInstanceOf(SystemError);
    expect(sys).toMatchObject({
      message: 'System error occurred, request-id: req-1',
      code: 'CATALOG_TIMEOUT',
      status: 500,
      details: { systemError: { errorCode: 'CATALOG_TIMEOUT' }, requestId: 'req-1' },
    });
    // Without an error code (or with one that is not text), the status names it, as before.
    expect(errorFromResponse(res(503, { details: { systemError: {} } }, 'Service Unavailable')).code).toBe(
      'SERVICE_UNAVAILABLE',
    );
    expect(errorFromResponse(res(503, { details: { systemError: { errorCode: {} } } })).code).toBe(
      'HTTP_503',
    );
    // Details that are not an object are not spread into the error's.
    expect(errorFromResponse(res(502, { details: 'oops' })).details).toEqual({ requestId: 'req-1' });
    // A 4xx without an application error keeps them too.
    expect(errorFromResponse(res(403, { details: { systemError: { errorCode: 'DENIED' } } }))).toMatchObject({
      code: 'FORBIDDEN',
      details: { systemError: { errorCode: 'DENIED' } },
    });
  });

  it('every error is a ShopkitError with the same fields', () => {
    for (const e of [errorFromResponse(res(400, {})), errorFromResponse(res(503, {}))]) {
      expect(e).toBeInstanceOf(ShopkitError);
      expect(e).toHaveProperty('details.requestId', 'req-1');
      expect(e.data).toEqual({});
    }
  });

  it('exports the SPI error type and a constant-case helper', () => {
    expect(SPI_ERROR_TYPE).toBe('wix_spi_error');
    expect(constantCase('Precondition Required')).toBe('PRECONDITION_REQUIRED');
    expect(constantCase('notFound')).toBe('NOT_FOUND');
  });
});

describe('error details', () => {
  it('takes the status text from the table when the response has none (HTTP/2)', () => {
    expect(errorFromResponse(res(404, null))).toMatchObject({ message: 'Not Found', code: 'NOT_FOUND' });
    expect(errorFromResponse(res(415, null)).message).toBe('Unsupported Media Type');
    expect(errorFromResponse(res(402, null))).toMatchObject({ message: 'HTTP 402', code: 'HTTP_402' });
    expect(errorFromResponse(res(418, null, "I'm a teapot")).code).toBe('I_M_A_TEAPOT');
    expect(errorFromResponse(res(503, null, '', null))).toMatchObject({ code: 'HTTP_503', status: 503 });
  });

  it('application errors: the code from the status when missing, data only when an object', () => {
    const err = errorFromResponse(res(409, { details: { applicationError: { data: 'x' } } }));
    expect(err).toMatchObject({ message: 'Conflict', code: 'CONFLICT', description: 'Conflict', data: {} });
    expect(err.details).toEqual({ applicationError: { data: 'x' }, requestId: 'req-1' });
    expect(
      errorFromResponse(res(400, { message: '', details: { applicationError: { code: 7 } } })).code,
    ).toBe('7');
  });

  it('validation: drops a violation when a more specific one is under the same field', () => {
    const err = errorFromResponse(
      res(400, {
        details: {
          validationError: {
            fieldViolations: [
              { field: 'ab', description: 'x' },
              { field: 'a', description: 'y' },
              { field: 'a.b', description: 'z' },
              { field: 'c[1]', description: 'w' },
              { field: 'c', description: 'v' },
              { description: 'no field' },
            ],
          },
        },
      }),
    ) as ValidationError;
    expect(err.violations.map((v) => v.field)).toEqual(['', 'a.b', 'ab', 'c[1]']);
    expect(err.message).toBe('INVALID_ARGUMENT: "" no field, "a.b" z, "ab" x, "c[1]" w');
  });

  it('fields and cause as given', () => {
    const plain = new ShopkitError('m', { code: 'C', description: 'd' });
    expect(plain).toMatchObject({ name: 'ShopkitError', message: 'm', code: 'C', data: {}, requestId: null });
    expect(plain.details).toEqual({ requestId: null });
    expect('cause' in plain).toBe(false);
    expect(Object.keys(plain)).toEqual([
      'name',
      'status',
      'code',
      'description',
      'data',
      'requestId',
      'details',
    ]);
    const cause = new Error('inner');
    const v = new ValidationError([{ field: 'f', description: 'is bad' }], { cause, requestId: 'r' });
    expect(v).toMatchObject({
      name: 'ValidationError',
      message: 'INVALID_ARGUMENT: "f" is bad',
      requestId: 'r',
    });
    expect(v.cause).toBe(cause);
    expect(v.details).toEqual({ validationError: { fieldViolations: v.violations }, requestId: 'r' });
  });

  it('systemError: the reason and the request id in the message', () => {
    const cause = new Error('x');
    const e = systemError('r', { code: 'TIMEOUT', reason: 'the call timed out', cause });
    expect(e).toMatchObject({
      message: 'System error occurred: the call timed out, request-id: r',
      code: 'TIMEOUT',
    });
    expect(e).toMatchObject({ description: 'the call timed out', status: undefined, name: 'SystemError' });
    expect(e.cause).toBe(cause);
    const bare = systemError(null);
    expect(bare).toMatchObject({
      message: 'System error occurred',
      code: 'UNKNOWN',
      description: 'System error occurred',
    });
    expect('cause' in bare).toBe(false);
  });

  it('keeps the class names in a minified bundle', async () => {
    const m = await importMinified(new URL('./errors.ts', import.meta.url));
    const names = ['ShopkitError', 'ValidationError', 'ApplicationError', 'HttpError', 'SystemError'];
    expect(names.map((n) => new m[n]!(n === 'ValidationError' ? [] : 'm', { code: 'C' }).name)).toEqual(
      names,
    );
  });
});

describe('isNetworkError', () => {
  it('is true for calls that got no usable answer, false for refusals and other errors', () => {
    for (const code of ['NETWORK_ERROR', 'TIMEOUT', 'ABORTED', 'INVALID_RESPONSE'])
      expect(isNetworkError(systemError(null, { code })), code).toBe(true);
    expect(isNetworkError(systemError('r1', { status: 503, code: 'SERVICE_UNAVAILABLE' }))).toBe(false);
    expect(
      isNetworkError(errorFromResponse({ status: 404, statusText: '', body: {}, requestId: null })),
    ).toBe(false);
    expect(isNetworkError(new TypeError('fetch failed'))).toBe(false);
  });
});
