/**
 * Shopper-facing sentences for what the SDK throws or answers. Developer text (`INVALID_ARGUMENT:
 * "options.x" …`, `System error occurred, request-id: …`, the token endpoint's `something went
 * wrong`) never reaches the page; the platform's own sentences (a refused coupon, throttling) do.
 */
import { ApplicationError, isNetworkError, ShopkitError, SystemError, ValidationError } from '@shopkit/sdk';

/** A server sentence with a capital and a full stop: `too many logins; wait` → `Too many logins; wait.` */
function sentence(text: string) {
  const t = text.trim();
  if (!t) return t;
  const s = t[0]!.toUpperCase() + t.slice(1);
  return /[.!?…]$/.test(s) ? s : `${s}.`;
}

export const OFFLINE = 'The shop could not be reached. Check your connection and try again.';
/** A request the shop refused without words a shopper can read: sending it again as it is will not do. */
export const REFUSED = 'The shop did not accept this. Check it and try again.';
export const TROUBLE = 'The shop is having trouble right now. Please try again in a moment.';

/** Text written for developers rather than shoppers. */
const DEVELOPER_TEXT = [
  /^[A-Z][A-Z_]+:/, // `INVALID_ARGUMENT: …`
  /System error occurred|request-id/,
  /something went wrong/, // the token endpoint's failure
  /_state|\b[a-z]+[A-Z]\w*\.\w/, // SDK internals; field paths such as `loginId.email`
  /^\s*[[{]/, // JSON
];
const developerText = (t: string) => DEVELOPER_TEXT.some((p) => p.test(t));

/** A cart line's quantity, as the add and quantity calls name it: `options.lineItems[0].quantity`. */
const LINE_QUANTITY = /(^|\.)lineItems\[\d+\]\.quantity$/;

/**
 * The most a cart line may hold, when `error` refused a line's quantity above it: the platform's
 * own `max` (`violatedRule: 'MAX'`, `data: { max }`), not a number of the storefront's.
 */
function lineQuantityMax(error: ValidationError): number | undefined {
  for (const v of error.violations) {
    const max = v.data?.max;
    if (
      v.violatedRule === 'MAX' &&
      LINE_QUANTITY.test(v.field) &&
      typeof max === 'number' &&
      Number.isFinite(max)
    )
      return max;
  }
  return undefined;
}

/** What to tell a shopper about a failed call. */
export function humanMessage(error: unknown): string {
  if (error instanceof ValidationError) {
    const max = lineQuantityMax(error);
    if (max !== undefined) return `Your cart can hold at most ${max} of this item.`;
    return 'Some of the details are not valid. Check them and try again.';
  }
  if (error instanceof ShopkitError) {
    if (isNetworkError(error)) return OFFLINE;
    // The token endpoint refused or failed: the shop could not start a session for this browser.
    if (error.message === 'something went wrong') return TROUBLE;
    if (error instanceof SystemError) return TROUBLE;
    if (error.status === 429) return 'Too many requests. Please wait a moment and try again.';
    if (error instanceof ApplicationError && !developerText(error.message)) return sentence(error.message);
    // A refusal in words for developers (or none): the request was refused, the shop is not down.
    if (error.status === 400 || error.status === 409 || error.status === 422) return REFUSED;
    return TROUBLE;
  }
  if (error instanceof Error && error.message && !developerText(error.message))
    return sentence(error.message);
  return TROUBLE;
}

/**
 * Whether a call was refused as a whole, by the SDK before sending or by the platform (a 4xx
 * answer, 429 included): nothing changed, and sending it again as it is will not be accepted
 * (save a 429, after a wait).
 */
export function isRefusal(error: unknown): boolean {
  if (error instanceof ValidationError) return true;
  const status = error instanceof ShopkitError ? (error.status ?? 0) : 0;
  return status >= 400 && status < 500;
}

/** The server's text of a refused login or registration, when it is fit for shoppers. */
export function serverSentence(text: string | undefined) {
  return text && !developerText(text) ? sentence(text) : undefined;
}
