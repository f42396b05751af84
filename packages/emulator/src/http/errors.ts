/**
 * Every emulator failure is one of these, turned into the platform's envelope in one place
 * (wire §3.1): `{message, details: {applicationError | validationError}}`.
 * @module
 */

/** One field violation, as the platform sends it. `data` is always an object. */
export interface Violation {
  field: string;
  description: string;
  violatedRule: string;
  ruleName?: string;
  data: Record<string, unknown>;
}

/** A failure with its HTTP status and envelope. Routes throw these; `onError` renders them. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly details:
      | { applicationError: { code: string; description: string; data: Record<string, unknown> } }
      | { validationError: { fieldViolations: Violation[] } },
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }

  toJSON() {
    return { message: this.message, details: this.details };
  }
}

/** An application error: `code` and `description` in `details.applicationError`. */
export function appError(
  status: number,
  code: string,
  description: string,
  data: Record<string, unknown> = {},
) {
  return new ApiError(status, description, { applicationError: { code, description, data } });
}

/** A validation error with one or more field violations (HTTP 400). */
export function invalid(violations: Array<Omit<Violation, 'data' | 'violatedRule'> & Partial<Violation>>) {
  const list: Violation[] = violations.map((v) => ({ violatedRule: 'VALIDATION', data: {}, ...v }));
  const text = list.map((v) => `"${v.field}" ${v.description}`).join(', ');
  return new ApiError(400, `INVALID_ARGUMENT: ${text}`, { validationError: { fieldViolations: list } });
}

/** 429 with `Retry-After`: `<description>; try again in <wait> s`. */
export function tooMany(code: string, description: string, wait: number) {
  const e = appError(429, code, `${description}; try again in ${wait} s`);
  e.headers['Retry-After'] = String(wait);
  return e;
}

export const notFound = (code: string, description: string, data: Record<string, unknown> = {}) =>
  appError(404, code, description, data);
export const forbidden = (description = 'Insufficient permissions') =>
  appError(403, 'PERMISSION_DENIED', description);
export const unauthenticated = (description = 'Request is missing authentication data') =>
  appError(401, 'UNAUTHENTICATED', description);
