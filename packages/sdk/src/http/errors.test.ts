import { describe, expect, it } from 'vitest';
import {
  ApplicationError,
  constantCase,
  errorFromResponse,
  HttpError,
  ShopkitError,
  SPI_ERROR_TYPE,
  SystemError,
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
