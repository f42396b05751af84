/**
 * The error hierarchy and the one function that maps a failed response to it (spec point 8,
 * wire §3). Messages are sentences; they never embed JSON dumps, request bodies or tokens.
 * @module
 */

/** The platform's name for errors raised by service-provider (SPI) implementations. */
export const SPI_ERROR_TYPE = 'wix_spi_error';

/** One field violation as the platform reports it. */
export interface FieldViolation {
  field: string;
  description: string;
  violatedRule?: string;
  ruleName?: string;
  data?: Record<string, unknown>;
}

/** The `details` object of an error: exactly one of the three kinds, plus the request id. */
export interface ErrorDetails {
  applicationError?: { code: string | number; description: string; data?: Record<string, unknown> };
  validationError?: { fieldViolations: FieldViolation[] };
  systemError?: { errorCode?: string };
  requestId?: string | null;
}

interface ErrorInit {
  status?: number;
  code: string;
  description: string;
  data?: Record<string, unknown>;
  requestId?: string | null;
  details?: ErrorDetails;
  cause?: unknown;
}

// Each class names itself with a field: minifiers rename classes, so `new.target.name` would not do.

/** Base class of every error the SDK throws for a call. */
export class ShopkitError extends Error {
  override name = 'ShopkitError';
  /** HTTP status, when a response was received. */
  declare readonly status?: number;
  /** Machine-readable code: the platform's application code, `INVALID_ARGUMENT`, or a status name. */
  declare readonly code: string;
  /** Human-readable description from the server (or the status text). */
  declare readonly description: string;
  /** Extra data from the server's application error. */
  declare readonly data: Record<string, unknown>;
  /** The `X-Wix-Request-Id` of the failed response, when known. */
  declare readonly requestId: string | null;
  /** The error details as the platform sent them, plus the request id. */
  declare readonly details: ErrorDetails;

  constructor(message: string, init: ErrorInit) {
    // Error adds an own `cause` only when the options have one: none when it is undefined.
    super(message, init.cause === undefined ? undefined : init);
    const requestId = init.requestId ?? null;
    Object.assign(this, {
      status: init.status,
      code: init.code,
      description: init.description,
      data: init.data ?? {},
      requestId,
      details: { ...init.details, requestId },
    });
  }
}

/** The server rejected one or more fields (`details.validationError`), or the SDK did before sending. */
export class ValidationError extends ShopkitError {
  override name = 'ValidationError';
  /** The violations, sorted by field, with fields named as the caller's arguments. */
  declare readonly violations: FieldViolation[];
  constructor(violations: FieldViolation[], init: Omit<ErrorInit, 'code' | 'description'> = {}) {
    const text = violations.map((v) => `"${v.field}" ${v.description}`).join(', ');
    super(`INVALID_ARGUMENT: ${text}`, {
      ...init,
      code: 'INVALID_ARGUMENT',
      description: text,
      details: { validationError: { fieldViolations: violations } },
    });
    this.violations = violations;
  }
}

/** The server answered with an application error (`details.applicationError`). */
export class ApplicationError extends ShopkitError {
  override name = 'ApplicationError';
}

/** Any other 4xx answer without a platform envelope. */
export class HttpError extends ShopkitError {
  override name = 'HttpError';
}

/** Network failure, timeout, abort, an unreadable response or a 5xx without an envelope. */
export class SystemError extends ShopkitError {
  override name = 'SystemError';
}

/** Reason phrases of the 4xx statuses the platform answers, from 400 on, `|`-separated (HTTP/2 sends none). */
const STATUS_TEXT =
  'Bad Request|Unauthorized||Forbidden|Not Found|Method Not Allowed|||Request Timeout|Conflict|Gone|||Payload Too Large||Unsupported Media Type|||||||Unprocessable Entity||||||Precondition Required|Too Many Requests';

/** `Not Found` → `NOT_FOUND`, `notFound` → `NOT_FOUND`: the words are runs of letters and digits, cut before a capital that follows a lower-case letter or digit. */
export const constantCase = (s: string) =>
  (s.match(/[A-Z]+[a-z\d]*|[a-z\d]+/g) ?? []).join('_').toUpperCase();

/** A body's string or number as text, anything else `or`: `String()` throws on `{"toString":1}`. */
const text = (v: unknown, or = '') => (typeof v === 'string' || typeof v === 'number' ? `${v}` : or);

/**
 * Sorts violations by field, renames fields with `rename` (wire name → argument name) and drops a
 * less specific violation when a more specific one under the same field is also present. Entries
 * that are not objects are left out.
 */
export function normalizeViolations(list: unknown[], rename: (f: string) => string): FieldViolation[] {
  const mapped = list
    .filter((v): v is FieldViolation => !!v && typeof v === 'object')
    .map((v) => ({ ...v, field: rename(text(v.field)), description: text(v.description) }));
  return mapped
    .filter(
      (v) => !mapped.some((o) => o.field.startsWith(`${v.field}.`) || o.field.startsWith(`${v.field}[`)),
    )
    .sort((a, b) => (a.field < b.field ? -1 : +(a.field > b.field)));
}

/** What the engine knows of a failed response. */
export interface FailedResponse {
  status: number;
  statusText: string;
  body: unknown;
  requestId: string | null;
}

/**
 * Picks the error class and message for a non-200 response (spec point 8):
 * 1. validation errors: `INVALID_ARGUMENT: "<field>" <description>, …`;
 * 2. application errors: the server message, then `: <description>` when different;
 * 3. other 4xx: the status text as description and message, the code in UPPER_SNAKE_CASE;
 * 4. anything else: `System error occurred`, with `, request-id: <id>` when known.
 */
export function errorFromResponse(res: FailedResponse, rename: (f: string) => string = (f) => f) {
  const { status, requestId } = res;
  // Object(): an object body as is, anything else without `message` or `details`
  const body: { message?: unknown; details?: ErrorDetails | null } = Object(res.body);
  const base = { status, requestId };
  const details = body.details;
  const violations = details?.validationError?.fieldViolations;
  if (Array.isArray(violations)) return new ValidationError(normalizeViolations(violations, rename), base);
  const app = details?.applicationError;
  const statusText = res.statusText || STATUS_TEXT.split('|')[status - 400] || `HTTP ${status}`;
  const code = constantCase(statusText);
  if (app && typeof app === 'object') {
    const description = typeof app.description === 'string' ? app.description : statusText;
    const serverMessage = (typeof body.message === 'string' && body.message) || description;
    const message = serverMessage === description ? serverMessage : `${serverMessage}: ${description}`;
    return new ApplicationError(message, {
      ...base,
      code: text(app.code, code),
      description,
      // null becomes {} in the constructor
      data: typeof app.data === 'object' ? app.data : {},
      details: details!,
    });
  }
  // The body's other details (a `systemError`, say) are kept, and its error code preferred.
  const rest = { ...base, details: typeof details === 'object' ? details! : undefined };
  return status >= 400 && status < 500
    ? new HttpError(statusText, { ...rest, code, description: statusText })
    : // Only a 200 is a success (spec 8): a 201 or 204 fails, and says why.
      systemError(requestId, {
        ...rest,
        code: text(details?.systemError?.errorCode, code),
        reason: status < 300 ? `HTTP ${status}` : undefined,
      });
}

/** Whether a call failed for want of an answer (network, timeout, abort, unreadable body), not a refusal. */
export const isNetworkError = (e: unknown): boolean =>
  e instanceof ShopkitError && ['NETWORK_ERROR', 'TIMEOUT', 'ABORTED', 'INVALID_RESPONSE'].includes(e.code);

/** `System error occurred[: reason][, request-id: <id>]`. */
export function systemError(
  requestId: string | null,
  init: { status?: number; code?: string; reason?: string; cause?: unknown; details?: ErrorDetails } = {},
) {
  const message =
    'System error occurred' +
    (init.reason ? `: ${init.reason}` : '') +
    (requestId ? `, request-id: ${requestId}` : '');
  // `init` carries status and cause; the constructor reads only the fields it knows
  return new SystemError(message, {
    ...init,
    code: init.code ?? 'UNKNOWN',
    description: init.reason ?? 'System error occurred',
    requestId,
  });
}
