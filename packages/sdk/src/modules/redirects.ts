/**
 * Redirect sessions (wire §5.2): one intent (checkout, login, logout, OAuth authorize, …) becomes
 * a URL of a hosted page. The redirect enumerations of spec point 3 are typed constants.
 * @module
 */
import { REDIRECT_SESSION_PATH, returnUrlProblem } from '../auth/return-url.ts';
import type { AnyClient } from '../client.ts';
import { fail } from '../http/engine.ts';
import { ValidationError } from '../http/errors.ts';
import { type CallOptions, op } from '../http/op.ts';

type Enum<T extends string> = { readonly [K in T]: K };
const e = <T extends string>(...keys: T[]): Enum<T> =>
  Object.freeze(Object.fromEntries(keys.map((k) => [k, k]))) as Enum<T>;
type Of<T> = T[keyof T];

/** Where a hosted page sends the visitor back to. */
export const LocationType = /* @__PURE__ */ e('UNDEFINED', 'OWNER_BUSINESS', 'OWNER_CUSTOM', 'CUSTOM');
export type LocationType = Of<typeof LocationType>;
/** OAuth `prompt` values. */
export const Prompt = /* @__PURE__ */ Object.freeze({
  login: 'login',
  none: 'none',
  consent: 'consent',
  select_account: 'select_account',
} as const);
export type Prompt = Of<typeof Prompt>;
/** Sections of the members' account pages. */
export const MembersAccountSection = /* @__PURE__ */ e(
  'ACCOUNT_INFO',
  'BOOKINGS',
  'ORDERS',
  'SUBSCRIPTIONS',
  'EVENTS',
);
export type MembersAccountSection = Of<typeof MembersAccountSection>;
/** Result of attaching pages. */
export const AttachPagesResponseStatus = /* @__PURE__ */ e('UNKNOWN', 'SUCCESS', 'NO_ACTION', 'ERROR');
export type AttachPagesResponseStatus = Of<typeof AttachPagesResponseStatus>;
/** Kinds of callback. */
export const CallbackType = /* @__PURE__ */ e('UNKNOWN', 'LOGOUT', 'CHECKOUT', 'AUTHORIZE');
export type CallbackType = Of<typeof CallbackType>;
/** Status of a redirect flow. */
export const RedirectStatus = /* @__PURE__ */ e('UNKNOWN', 'SUCCESS', 'ERROR');
export type RedirectStatus = Of<typeof RedirectStatus>;

/** The OAuth authorization request of the `auth` intent. */
export interface AuthRequest {
  clientId: string;
  responseType: 'code';
  redirectUri?: string;
  scope?: string;
  state: string;
  responseMode?: 'query' | 'fragment' | 'web_message';
  codeChallenge: string;
  /** `S256` (what the SDK makes); the platform's docs list `S512` too. */
  codeChallengeMethod: 'S256' | 'S512';
  sessionToken?: string;
  nonce?: string;
  /** Listed in the request too (wire §5.2); `auth.prompt`, when given, is the one that counts. */
  prompt?: Prompt;
  /** Social login connection id. */
  idp?: string;
}

export interface RedirectCallbacks {
  thankYouPageUrl?: string;
  postFlowUrl?: string;
  loginUrl?: string;
  bookingsServiceListUrl?: string;
  cartPageUrl?: string;
  planListUrl?: string;
}

export interface RedirectPreferences {
  /** Default true. */
  useGenericWixPages?: boolean;
  /** Default true. */
  maintainIdentity?: boolean;
  additionalQueryParameters?: Record<string, string>;
  /** Default false. */
  checkIfPublish?: boolean;
}

/** The intents: set exactly one. */
export interface RedirectIntents {
  bookingsCheckout: { timezone?: string; slotAvailability?: unknown };
  ecomCheckout: { checkoutId: string };
  eventsCheckout: { reservationId: string; eventSlug?: string };
  paidPlansCheckout: { planId: string; checkoutData?: string };
  login: Record<string, never>;
  logout: { clientId: string };
  auth: { authRequest: AuthRequest; prompt?: Prompt };
  storesProduct: { productSlug: string };
  bookingsBook: { resourceId: string };
  ecomOrderPaymentRequest: { paymentRequestId: string };
}

type OneIntent = {
  [K in keyof RedirectIntents]: { [P in K]: RedirectIntents[P] } & {
    [P in Exclude<keyof RedirectIntents, K>]?: never;
  };
}[keyof RedirectIntents];

/** What `createRedirectSession` takes: one intent, plus callbacks, preferences and origin. */
export type RedirectSessionOptions = OneIntent & {
  callbacks?: RedirectCallbacks;
  preferences?: RedirectPreferences;
  origin?: string;
};

export interface RedirectSession {
  id: string;
  /** The URL to send the browser to. */
  fullUrl: string;
  urlDetails: { endpoint: string; searchParams: Record<string, string> };
  sessionToken: string;
  shortUrl: string;
}

const sessionOp = /* @__PURE__ */ op<[options: RedirectSessionOptions], { redirectSession: RedirectSession }>(
  {
    name: 'redirects.createRedirectSession',
    method: 'POST',
    path: REDIRECT_SESSION_PATH,
    args: ['options:'],
  },
);

/**
 * POST `/_api/redirects-api/v1/redirect-session` → `{redirectSession}`. Every callback URL must be
 * an absolute http(s) URL (no `//host`, `javascript:`, credentials or backslashes: checklist 13);
 * anything else is a `ValidationError` and nothing is sent.
 * @example
 * const { redirectSession } = await client.redirects.createRedirectSession({
 *   ecomCheckout: { checkoutId }, callbacks: { postFlowUrl: location.href },
 * });
 * location.href = redirectSession.fullUrl;
 */
export async function createRedirectSession(
  client: AnyClient,
  options: RedirectSessionOptions,
  call?: CallOptions,
): Promise<{ redirectSession: RedirectSession }> {
  const callbacks = options?.callbacks ?? {};
  // Callbacks that are no object are one violation (a string's characters were checked one by one,
  // a list's entries as callbacks named 0, 1, …).
  const violations =
    typeof callbacks !== 'object' || Array.isArray(callbacks)
      ? [{ field: 'options.callbacks', description: 'must be an object' }]
      : Object.entries(callbacks).flatMap(([key, url]) => {
          const description = url === undefined ? undefined : returnUrlProblem(url);
          return description ? [{ field: `options.callbacks.${key}`, description }] : [];
        });
  if (violations.length) fail(client, new ValidationError(violations), 'POST', REDIRECT_SESSION_PATH);
  return sessionOp(client, options, call);
}
