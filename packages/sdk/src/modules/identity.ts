/**
 * Members: register, login, verification, recovery, password change, sign-on, token info, and the
 * OAuth authorization-code flow with PKCE (redirect or hidden-frame silent login). Bind it with
 * `createClient({ auth: OAuthStrategy({clientId}), modules: { identity } })`.
 * @module
 */
import { exchangeCode, oauth, tokenFailure } from '../auth/exchange.ts';
import { generateChallenge, generateState, generateVerifier } from '../auth/pkce.ts';
import { allowedReturnOrigins, REDIRECT_SESSION_PATH, returnUrlProblem } from '../auth/return-url.ts';
import { sessionUrl } from '../auth/silent.ts';
import { emptyTokens, TokenRole, type Tokens } from '../auth/tokens.ts';
import type { AnyClient } from '../client.ts';
import { fail } from '../http/engine.ts';
import {
  ApplicationError,
  type FieldViolation,
  isNetworkError,
  type ShopkitError,
  ValidationError,
} from '../http/errors.ts';
import { type CallOptions, op } from '../http/op.ts';
import { float } from '../transforms.ts';
import { IDENTITY_FIELDS, PROFILE, VALUE } from './identity-fields.ts';

export {
  AddressTag,
  CAPTCHA_SITE_KEY,
  EmailTag,
  FactorStatus,
  FactorType,
  IdentityStatus,
  INVISIBLE_CAPTCHA_SITE_KEY,
  LoginState,
  PhoneTag,
  PrivacyStatus,
  StateType,
  StatusReason,
  SubjectType,
  TenantType,
  VerificationTarget,
} from '../auth/enums.ts';

import {
  type AddressTag,
  type EmailTag,
  type FactorStatus,
  type FactorType,
  type IdentityStatus,
  LoginState,
  type PrivacyStatus,
  StateType,
  type StatusReason,
} from '../auth/enums.ts';
import type { Address } from './cart.ts';

/** A custom field's value (wire §5.5): one of its members is set; dates as `Date`. */
export interface CustomValue {
  strValue?: string;
  numValue?: number;
  dateValue?: Date;
  listValue?: { value?: CustomValue[] };
  mapValue?: { value?: Record<string, CustomValue> };
}

/**
 * A member's profile (wire §5.5 `identityProfile`), as answered and as sent on registration and
 * sign-on. Fields the platform adds later are kept, typed `unknown`: check them before use.
 * @example const name = identity.identityProfile?.firstName ?? identity.email?.address;
 */
export interface IdentityProfile {
  firstName?: string;
  lastName?: string;
  nickname?: string;
  /** The picture's URL. */
  picture?: string;
  emails?: string[];
  phones?: string[];
  /** Further e-mail addresses, each with its tag. */
  secondaryEmails?: { email: string; tag?: EmailTag }[];
  labels?: string[];
  /** The member's language, as an IETF tag (`en`, `fr-CA`). */
  language?: string;
  privacyStatus?: PrivacyStatus;
  customFields?: { name: string; value?: CustomValue }[];
  addresses?: { tag?: AddressTag; address?: Address }[];
  company?: string;
  position?: string;
  /** `YYYY-MM-DD`, a calendar date without a time zone. */
  birthdate?: string;
  slug?: string;
  /** Subscribed to the site's mailing list. */
  subscription?: boolean;
  /** A tax id and its kind (`CPF`, `CNPJ`…). */
  vatId?: { id?: string; type?: string };
  [field: string]: unknown;
}

/** A member identity (wire §5.5), dates as `Date`. */
export interface Identity {
  id: string;
  revision?: string;
  createdDate?: Date;
  updatedDate?: Date;
  identityProfile?: IdentityProfile;
  email?: { address: string; isVerified: boolean };
  status?: { name: IdentityStatus; reasons: StatusReason[] };
  factors?: { factorId: string; type: FactorType; status: FactorStatus }[];
  connections?: unknown[];
  metadata?: Record<string, unknown>;
}

/** What register, login, verification and recovery answer (spec point 3). */
export interface LoginResult {
  loginState: LoginState;
  data?: {
    sessionToken?: string;
    stateToken?: string;
    identity?: Identity;
    /** What else the platform answered with (spec 3), by key, as custom values. */
    additionalData?: Record<string, CustomValue>;
  };
  error?: string;
  errorCode?:
    | 'invalidEmail'
    | 'missingCaptchaToken'
    | 'emailAlreadyExists'
    | 'invalidCaptchaToken'
    | 'invalidPassword'
    | 'resetPassword'
    | 'network'
    /** `REQUIRE_MISSING_FIELDS`: the site requires profile fields the member has not given. */
    | 'missingFields'
    /** `REQUIRE_FIRST_FACTOR`: the account logs in another way (an identity provider). */
    | 'firstFactorRequired'
    | (string & {});
  /** A registration refused for its fields: the violations, named as the caller's arguments. */
  violations?: FieldViolation[];
}

export interface CaptchaTokens {
  recaptchaToken?: string;
  invisibleRecaptchaToken?: string;
}

/** The platform's state-machine answer (wire §5.5), as the low-level calls return it. */
export interface StateResponse {
  /** The spec's states, or one it does not list (`REQUIRE_FIRST_FACTOR`, …). */
  state: StateType | (string & {});
  sessionToken?: string;
  stateToken?: string;
  identity?: Identity;
  additionalData?: Record<string, CustomValue>;
}

const profileReq = { profile: PROFILE };
const identityRes = { identity: IDENTITY_FIELDS, additionalData: { '*': VALUE } };
const A = '/_api/iam/authentication';
const post = <Args extends unknown[], R>(path: string, args: string[], extra: object = {}) =>
  op<Args, R>({ method: 'POST', path, args, res: identityRes, ...extra });

// The wrappers build these messages from their own parameters, whose names the fields keep in
// violations (`password`, `recoveryToken`; the login id is the caller's `email`).
const registerOp = /* @__PURE__ */ post<[email: string, msg: object], StateResponse>(
  `${A}/v2/register`,
  ['email:loginId.email', ':'],
  { req: profileReq },
);
const loginOp = /* @__PURE__ */ post<[email: string, msg: object], StateResponse>(`${A}/v2/login`, [
  'email:loginId.email',
  ':',
]);
const verifyOp = /* @__PURE__ */ post<[msg: object], StateResponse>('/_api/iam/verification/v1/auth/verify', [
  ':',
]);
const recoverOp = /* @__PURE__ */ post<[msg: object], StateResponse>('/_api/iam/recovery/v1/recover', [':']);

/** What the strategy remembers between login and e-mail verification. */
const remembered = new WeakMap<object, { loginState: LoginState; stateToken?: string }>();
/**
 * The remembered state is the last login's or registration's (spec 4): one that failed, or a
 * logout, leaves no verification pending for the next `processVerification`.
 */
const forget = (client: AnyClient) => client.auth && remembered.delete(client.auth);

/**
 * States this SDK cannot take further, but which an application can tell apart: the spec's
 * `FAILURE` with `'Unknown _state'` (point 4: any other state), plus an `errorCode` of its own and
 * the state token, for an application that finishes the login its own way.
 */
const UNFINISHED: Partial<Record<StateType | (string & {}), LoginResult['errorCode']>> = {
  /** The site requires profile fields the member has not given yet. */
  REQUIRE_MISSING_FIELDS: 'missingFields',
  /** The account logs in another way (an identity provider it joined with). */
  REQUIRE_FIRST_FACTOR: 'firstFactorRequired',
};

function fromState(client: AnyClient, r: StateResponse): LoginResult {
  // (`additionalData` was dropped: spec 3 reads it with the identity)
  const data = r.additionalData
    ? { identity: r.identity, additionalData: r.additionalData }
    : { identity: r.identity };
  // Its own entries only: an answer's state such as `constructor` is none (it was a function).
  const unfinished = Object.hasOwn(UNFINISHED, r.state) ? UNFINISHED[r.state] : undefined;
  const out: LoginResult =
    r.state === StateType.SUCCESS
      ? { loginState: LoginState.SUCCESS, data: { ...data, sessionToken: r.sessionToken } }
      : r.state === StateType.REQUIRE_OWNER_APPROVAL
        ? { loginState: LoginState.OWNER_APPROVAL_REQUIRED, data }
        : r.state === StateType.REQUIRE_EMAIL_VERIFICATION
          ? {
              loginState: LoginState.EMAIL_VERIFICATION_REQUIRED,
              data: { ...data, stateToken: r.stateToken },
            }
          : unfinished
            ? {
                loginState: LoginState.FAILURE,
                error: 'Unknown _state',
                errorCode: unfinished,
                data: { ...data, stateToken: r.stateToken },
              }
            : // The spec's answer to the rest (`REQUIRE_MFA`, …): this SDK has no step for them.
              { loginState: LoginState.FAILURE, error: 'Unknown _state' };
  if (client.auth)
    remembered.set(client.auth, { loginState: out.loginState, stateToken: out.data?.stateToken });
  return out;
}

const failure = (e: unknown, errorCode?: string): LoginResult => ({
  loginState: LoginState.FAILURE,
  error: e instanceof Error ? e.message : String(e),
  ...(errorCode ? { errorCode } : {}),
});
const appCode = (e: unknown) => (e instanceof ApplicationError ? String(e.code) : undefined);

const captcha = (t?: CaptchaTokens) => {
  const one: Record<string, string> = {};
  if (t?.recaptchaToken) one.Recaptcha = t.recaptchaToken;
  if (t?.invisibleRecaptchaToken) one.InvisibleRecaptcha = t.invisibleRecaptchaToken;
  return Object.keys(one).length ? [one] : undefined;
};

/**
 * A refused captcha's application codes, for register and login: the numeric strings the platform
 * SDK compares, and the symbolic codes its typings list (which form the live API sends is not
 * known, wire §5.5).
 */
const CAPTCHA_CODES = {
  '-19971': 'missingCaptchaToken',
  CAPTCHA_TOKEN_REQUIRED: 'missingCaptchaToken',
  MISSING_CAPTCHA_TOKEN: 'missingCaptchaToken',
  '-19970': 'invalidCaptchaToken',
  INVALID_CAPTCHA_TOKEN: 'invalidCaptchaToken',
} as const;

/**
 * Registers a member. Never throws for a refused registration: the result says why (spec 8).
 * @example
 * const r = await client.identity.register({ email, password });
 * if (r.loginState === LoginState.SUCCESS) await client.auth.setTokens(await client.identity.getMemberTokensForDirectLogin(r.data!.sessionToken!));
 */
export async function register(
  client: AnyClient,
  params: {
    email: string;
    password: string;
    profile?: IdentityProfile;
    captchaTokens?: CaptchaTokens;
    /** Sent as the platform's `clientMetaData` (for the site's own records). */
    clientMetaData?: Record<string, unknown>;
  },
  call?: CallOptions,
): Promise<LoginResult> {
  // Called without its parameters (from plain JavaScript): the platform names what is missing.
  const p = params ?? ({} as typeof params);
  try {
    const r = await registerOp(
      client,
      p.email,
      {
        password: p.password,
        profile: p.profile,
        captchaTokens: captcha(p.captchaTokens),
        clientMetaData: p.clientMetaData,
      },
      call,
    );
    return fromState(client, r);
  } catch (e) {
    forget(client);
    if (e instanceof ValidationError) {
      const v = e.violations.find((x) => x.data?.type === 'EMAIL');
      if (v) return { loginState: LoginState.FAILURE, error: v.description, errorCode: 'invalidEmail' };
      return { ...failure(e), violations: e.violations };
    }
    // (no prototype: a code such as `toString` is none of these)
    const code = {
      __proto__: null,
      ...CAPTCHA_CODES,
      '-19995': 'emailAlreadyExists',
      DUPLICATE_EMAIL: 'emailAlreadyExists',
    }[appCode(e) ?? ''];
    return failure(e, code ?? (isNetworkError(e) ? 'network' : undefined));
  }
}

/** Logs a member in with e-mail and password (spec 4 and 8). Never throws for a refused login. */
export async function login(
  client: AnyClient,
  params: {
    email: string;
    password: string;
    captchaTokens?: CaptchaTokens;
    /** Sent as the platform's `clientMetaData`. */
    clientMetaData?: Record<string, unknown>;
  },
  call?: CallOptions,
): Promise<LoginResult> {
  const p = params ?? ({} as typeof params);
  try {
    const r = await loginOp(
      client,
      p.email,
      { password: p.password, captchaTokens: captcha(p.captchaTokens), clientMetaData: p.clientMetaData },
      call,
    );
    return fromState(client, r);
  } catch (e) {
    forget(client);
    if (isNetworkError(e)) return failure(e, 'network');
    const code = {
      __proto__: null,
      ...CAPTCHA_CODES,
      '-19976': 'invalidPassword',
      '-19973': 'resetPassword',
    }[appCode(e) ?? ''];
    return failure(e, code ?? 'invalidEmail');
  }
}

/**
 * Completes e-mail verification with the code from the e-mail, while one is pending (spec 4): the
 * state this client remembers, or the `stateToken` of the `EMAIL_VERIFICATION_REQUIRED` result
 * when the caller kept it (a page that was reloaded; keep it out of URLs and logs).
 */
export async function processVerification(
  client: AnyClient,
  params: ({ code: string; verificationCode?: string } | { code?: undefined; verificationCode: string }) & {
    stateToken?: string;
  },
  call?: CallOptions,
): Promise<LoginResult> {
  // Called without its parameters (from plain JavaScript): a result, as for a wrong code.
  const p = params ?? ({} as typeof params);
  const r = client.auth ? remembered.get(client.auth) : undefined;
  const stateToken =
    p.stateToken ?? (r?.loginState === LoginState.EMAIL_VERIFICATION_REQUIRED ? r.stateToken : undefined);
  if (!stateToken) return { loginState: LoginState.FAILURE, error: 'Unknown _state' };
  try {
    return fromState(
      client,
      await verifyOp(client, { code: p.code ?? p.verificationCode, stateToken }, call),
    );
  } catch (e) {
    return failure(e, isNetworkError(e) ? 'network' : appCode(e));
  }
}

const SEND_EMAIL_PATH = '/_api/iam/recovery/v1/send-email';
const sendEmailOp = /* @__PURE__ */ op<[msg: object], object>({
  method: 'POST',
  path: SEND_EMAIL_PATH,
  args: [':'],
});

/**
 * Refuses a return address the platform will send the browser to, unless it is an absolute http(s)
 * URL (checklist 13), as the call at `path` it stops: reported to `onError`, then thrown.
 */
function unsafeUrl(client: AnyClient, field: string, url: string | undefined, path: string, method = 'POST') {
  // An empty one is none, as for logout.
  const description = url ? returnUrlProblem(url) : undefined;
  if (description) fail(client, new ValidationError([{ field, description }]), method, path);
}

/**
 * POST recovery `send-email`: a reset link; the same answer whether or not the e-mail is a member's.
 * The third argument is where the reset page links back to, or `{redirectUri?, language?}` with the
 * e-mail's language too: an absolute http(s) URL, else a `ValidationError` and nothing is sent.
 */
export const sendPasswordResetEmail = async (
  client: AnyClient,
  email: string,
  redirect?: string | { redirectUri?: string; language?: string },
  options?: CallOptions,
) => {
  const { redirectUri, language } =
    typeof redirect === 'string' ? { redirectUri: redirect } : (redirect ?? {});
  // The platform's page links back to it: no `//host` or `javascript:` (checklist 13).
  unsafeUrl(client, 'redirectUri', redirectUri, SEND_EMAIL_PATH);
  return sendEmailOp(
    client,
    {
      email,
      language,
      redirect: redirectUri
        ? { url: redirectUri, clientId: oauth(client, SEND_EMAIL_PATH).clientId }
        : undefined,
    },
    options,
  );
};

const ACTIVATION_PATH = '/_api/iam/recovery/v1/activation-email';
type ActivationOptions = {
  emailOptions?: { language?: string; redirect?: { url?: string; clientId?: string } };
};
const activationOp = /* @__PURE__ */ op<[identityId: string, options?: ActivationOptions], object>({
  method: 'POST',
  path: ACTIVATION_PATH,
  args: ['identityId', 'options:'],
});

/**
 * POST recovery `activation-email` for an identity. Its `redirect.url`, where the page links back
 * to, is checked as the reset e-mail's is: an absolute http(s) URL, else a `ValidationError` and
 * nothing is sent.
 */
export const sendActivationEmail = async (
  client: AnyClient,
  identityId: string,
  options?: ActivationOptions,
  call?: CallOptions,
) => {
  unsafeUrl(
    client,
    'options.emailOptions.redirect.url',
    options?.emailOptions?.redirect?.url,
    ACTIVATION_PATH,
  );
  return activationOp(client, identityId, options, call);
};

/** Sets a new password with the token from a reset e-mail; answers like a login. */
export async function recover(
  client: AnyClient,
  recoveryToken: string,
  password: string,
  call?: CallOptions,
): Promise<LoginResult> {
  try {
    return fromState(client, await recoverOp(client, { recoveryToken, password }, call));
  } catch (e) {
    return failure(e, isNetworkError(e) ? 'network' : appCode(e));
  }
}

/**
 * POST `change-password` as the logged-in member. The server ends every session of the member,
 * this one's too: the next call is refused, the refresh too, and the client reports
 * `sessionExpired`; the member logs in again with the new password.
 */
export const changePassword = /* @__PURE__ */ op<[newPassword: string], object>({
  method: 'POST',
  path: `${A}/v2/change-password`,
  args: ['newPassword'],
});

/** POST `v2/verify` of a second factor (e-mail code). */
export const verifyFactor = /* @__PURE__ */ op<
  [
    factorType: FactorType,
    options: {
      stateToken: string;
      rememberThisDevice?: boolean;
      emailData?: { code: string };
      smsData?: unknown;
      callData?: unknown;
      totpData?: unknown;
    },
  ],
  StateResponse
>({
  method: 'POST',
  path: `${A}/v2/{factorType}/verify`,
  args: ['factorType', 'options:'],
  res: identityRes,
});

/** POST verification `start`: mails a code to the identity; `verificationId` is its state token. */
export const startVerification = /* @__PURE__ */ op<
  [options: { identityId?: string; target?: 'EMAIL' }],
  { verificationId: string }
>({
  method: 'POST',
  path: '/_api/iam/verification/v1/start',
  args: ['options:'],
});

/** POST verification `auth/verify` with a code and a state token. */
export const verifyDuringAuthentication = /* @__PURE__ */ op<
  [code: string, options: { stateToken: string }],
  StateResponse
>({
  method: 'POST',
  path: '/_api/iam/verification/v1/auth/verify',
  args: ['code', 'options:'],
  res: identityRes,
});

/** POST verification `auth/resend`: a new code replaces the old one. */
export const resendVerification = /* @__PURE__ */ op<[stateToken: string], object>({
  method: 'POST',
  path: '/_api/iam/verification/v1/auth/resend',
  args: ['stateToken'],
});

/** What `validateEmail` says of an address. */
export interface EmailValidation {
  /** Whether a registration with it would be taken. */
  valid: boolean;
  /** Why not: `INVALID_FORMAT`, or `EMAIL_ALREADY_EXISTS` (unless the site hides which addresses have accounts). */
  failure?: { reason?: 'INVALID_FORMAT' | 'EMAIL_ALREADY_EXISTS' | (string & {}) };
  formatInvalid?: boolean;
}

/**
 * POST `v2/validate-email` (wire §5.5): whether an address can register, before the form is sent.
 * @example const { valid, failure } = await identity.validateEmail(client, 'ada@example.com');
 */
export const validateEmail = /* @__PURE__ */ op<[email: string], EmailValidation>({
  method: 'POST',
  path: `${A}/v2/validate-email`,
  args: ['email'],
});

/** What token-info answers. */
export interface TokenInfo {
  active: boolean;
  subjectType: 'UNKNOWN' | 'USER' | 'VISITOR' | 'MEMBER' | 'APP';
  subjectId?: string;
  exp?: number;
  iat?: number;
  clientId?: string;
  siteId?: string;
  accountId?: string;
  /** An app's installation, for an app's token. */
  instanceId?: string;
  vendorProductId?: string;
}

/** POST `/oauth2/token-info` → who a token belongs to. */
export const getTokenInfo = /* @__PURE__ */ op<[token: string], TokenInfo>({
  method: 'POST',
  path: '/oauth2/token-info',
  args: ['token'],
});

/** What `/oauth2/user-info` says about the member a token belongs to (wire §5.6). */
export interface UserInfo {
  /** The member id. */
  sub: string;
  givenName?: string;
  familyName?: string;
  name?: string;
  email?: string;
  emailVerified?: boolean;
  picture?: string;
  language?: string;
}

/** GET `/oauth2/user-info` → the signed-in member's OpenID claims (a member client only). */
export const getUserInfo = /* @__PURE__ */ op<[], UserInfo>({
  method: 'GET',
  path: '/oauth2/user-info',
});

const signOnOp = /* @__PURE__ */ op<
  [email: string, params: object],
  { sessionToken: string; identity: Identity }
>({
  method: 'POST',
  path: `${A}/v2/sign-on`,
  args: ['email:loginId.email', 'params:'],
  req: profileReq,
  // As the platform: `additionalData` dates stay strings on sign-on (wire §5.5).
  res: { identity: identityRes.identity, additionalData: { '*': { numValue: float } } },
});

/**
 * Refuses a trusted server's API key that is missing or empty (an environment variable left unset)
 * before anything is sent: it went as the text `undefined` after the visitor token, or not at all,
 * and the platform's refusal did not say why.
 */
function needKey(client: AnyClient, apiKey: unknown, path: string) {
  if (typeof apiKey !== 'string' || !apiKey)
    fail(
      client,
      new ValidationError([{ field: 'apiKey', description: 'must be a non-empty string' }]),
      'POST',
      path,
    );
}

/**
 * Signs a member on from a trusted server (creates them if needed): `{sessionToken, identity}`.
 * Sent with `Authorization: <visitor token>,<api key>`; never call it from a browser.
 */
export const signOn = async (
  client: AnyClient,
  apiKey: string,
  params: {
    email: string;
    profile?: IdentityProfile;
    verifyEmail?: boolean;
    mergeExistingContact?: boolean;
  },
  options?: CallOptions,
): Promise<{ sessionToken: string; identity: Identity }> => {
  needKey(client, apiKey, `${A}/v2/sign-on`);
  // Called without its parameters (from plain JavaScript): the platform names what is missing.
  const { email, ...rest } = params ?? ({} as typeof params);
  return signOnOp(client, email, rest, { ...options, apiKey });
};

/** Member tokens for a member id, from a trusted server (`authorized_client` grant). */
export const getMemberTokensForExternalLogin = async (
  client: AnyClient,
  memberId: string,
  apiKey: string,
) => {
  const s = oauth(client);
  needKey(client, apiKey, '/oauth2/token');
  try {
    const { Authorization } = await s.getAuthHeaders(client.transport);
    return await s.tokenRequest(
      { grant_type: 'authorized_client', scope: 'offline_access', member_id: memberId },
      TokenRole.MEMBER,
      { Authorization: `${Authorization},${apiKey}` },
      client.transport,
    );
  } catch (e) {
    // The token request's own error (`something went wrong`, with the platform's code), reported.
    return fail(client, e, 'POST', '/oauth2/token');
  }
};

// ---- SSO: an external identity provider (an IdP connection of the site) ----

/** The platform's raw-HTTP answer (SSO login, logout): a status, headers and a base64 body. */
export interface RawHttpResponse {
  statusCode: number;
  headers?: { key: string; value: string }[];
  body?: string;
}

export interface SsoLoginOptions {
  /** Opaque text that the callback hands back as `additionalData.customPayload`. */
  customPayload?: string;
  /**
   * The id of an `auth` redirect session: the SSO then finishes that authorization request (a
   * code to its redirect URI, as the hosted login page would).
   */
  sessionId?: string;
  encryptionKey?: string;
  visitorId?: string;
  bsi?: string;
  /** `SITE` (default) for a site's members. */
  tenantType?: 'ACCOUNT' | 'SITE' | 'ROOT';
}

const ssoLoginOp = /* @__PURE__ */ op<
  [tenantId: string, idpConnectionId: string, options?: SsoLoginOptions],
  RawHttpResponse
>({
  method: 'GET',
  path: `${A}/v1/sso/login/{tenantId}/{idpConnectionId}`,
  args: ['tenantId', 'idpConnectionId', 'options:'],
});
const ssoCallbackOp = /* @__PURE__ */ op<[msg: { state: string; sessionToken: string }], StateResponse>({
  method: 'GET',
  path: `${A}/v1/callback`,
  args: ['params:'],
  // A GET that spends its state (one try each): not sent again after a lost answer.
  idempotent: false,
  res: identityRes,
});
const tokenParamsOp = /* @__PURE__ */ post<[msg: object], StateResponse>(
  `${A}/v1/sso/login-with-token-params`,
  [':'],
);

/**
 * GET `v1/sso/login/{tenantId}/{idpConnectionId}`: starts a login with an identity provider and
 * answers where to send the browser (the provider's login page). `tenantId` is the site id.
 * @example
 * const { redirectUrl } = await client.identity.ssoLogin(siteId, idpConnectionId, { sessionId: redirectSession.id });
 * location.href = redirectUrl;
 */
export async function ssoLogin(
  client: AnyClient,
  tenantId: string,
  idpConnectionId: string,
  options: SsoLoginOptions = {},
  callOptions?: CallOptions,
): Promise<{ redirectUrl?: string; response: RawHttpResponse }> {
  const response = await ssoLoginOp(client, tenantId, idpConnectionId, options, callOptions);
  return { redirectUrl: locationOf(response), response };
}

/**
 * The `Location` header of a raw-HTTP answer, where the application sends the browser: only an
 * absolute http(s) URL (a `javascript:` one would run as the page's script).
 */
const locationOf = (r: RawHttpResponse) => {
  // Headers of another shape (not a list, an entry without a key) hold none: no `TypeError`.
  const h = Array.isArray(r.headers) ? r.headers : [];
  const url = h.find((e) => String(e?.key).toLowerCase() === 'location')?.value;
  return typeof url === 'string' && /^https?:\/\//i.test(url) ? url : undefined;
};

/**
 * GET `v1/callback`: completes an SSO login with the `state` and the provider's `sessionToken`
 * that came back to the callback. Answers like a login (a session token for
 * `getMemberTokensForDirectLogin` on SUCCESS); never throws for a refused login.
 */
export async function ssoCallback(
  client: AnyClient,
  params: { state: string; sessionToken: string },
  call?: CallOptions,
): Promise<LoginResult> {
  try {
    return fromState(client, await ssoCallbackOp(client, params, call));
  } catch (e) {
    return failure(e, isNetworkError(e) ? 'network' : appCode(e));
  }
}

/**
 * POST `v1/sso/login-with-token-params`: logs in with tokens the provider gave the app (for the
 * emulated provider, `{ id_token }`). Answers like a login; never throws for a refused login.
 */
export async function loginWithTokenParams(
  client: AnyClient,
  idpConnectionId: string,
  tokenParams: Record<string, string>,
  call?: CallOptions,
): Promise<LoginResult> {
  try {
    return fromState(client, await tokenParamsOp(client, { idpConnectionId, tokenParams }, call));
  } catch (e) {
    return failure(e, isNetworkError(e) ? 'network' : appCode(e));
  }
}

// ---- OAuth authorization code with PKCE ----

export interface OAuthData {
  redirectUri?: string;
  originalUri?: string;
  codeChallenge: string;
  codeVerifier: string;
  state: string;
}

/**
 * Fresh PKCE data and state for one authorization request. Keep it in memory or sessionStorage.
 * `originalUri`, where the application returns after the login, must be a path on this site or a
 * URL on this page's or the redirect URI's origin (no open redirect); anything else is a
 * `ValidationError`.
 */
export async function generateOAuthData(
  _client: AnyClient,
  redirectUri?: string,
  originalUri?: string,
): Promise<OAuthData> {
  // The application follows `originalUri` after the login: only a path here or an allowed origin.
  const problem =
    originalUri === undefined ? undefined : returnUrlProblem(originalUri, allowedReturnOrigins(redirectUri));
  if (problem) throw new ValidationError([{ field: 'originalUri', description: problem }]);
  const codeVerifier = generateVerifier();
  return {
    redirectUri,
    originalUri,
    codeVerifier,
    codeChallenge: await generateChallenge(codeVerifier),
    state: generateState(),
  };
}

export interface AuthUrlOptions {
  prompt?: 'login' | 'none' | 'consent' | 'select_account';
  responseMode?: 'query' | 'fragment' | 'web_message';
  sessionToken?: string;
  /**
   * Social login: go straight to an identity provider instead of the login page, by the platform's
   * name (`'google'`, `'facebook'`) or the site's connection id (`{ connectionId }`), as the
   * platform SDK takes it (wire §5.2).
   */
  idp?: 'google' | 'facebook' | { connectionId: string };
}

/** The platform's connection ids of its social login providers (wire §5.2). */
const IDP_CONNECTION_IDS = {
  google: '0e6a50f5-b523-4e29-990d-f37fa2ffdd69',
  facebook: '3ecad13f-52c3-483d-911f-31dbcf2a6d23',
};

/** The authorize URL for OAuth data, through a redirect session (default prompt `login`, mode `fragment`). */
export async function getAuthUrl(
  client: AnyClient,
  data: OAuthData,
  options: AuthUrlOptions = {},
  call?: CallOptions,
) {
  // No authorization without the PKCE challenge and state (checklist 3, 7): data left out, from
  // plain JavaScript, was a TypeError.
  if (!data?.state || !data.codeChallenge)
    fail(
      client,
      new ValidationError([{ field: 'data', description: 'must be the OAuth data of generateOAuthData' }]),
      'POST',
      REDIRECT_SESSION_PATH,
    );
  const authUrl = await sessionUrl(
    client,
    {
      auth: {
        authRequest: {
          redirectUri: data.redirectUri,
          clientId: oauth(client, REDIRECT_SESSION_PATH).clientId,
          codeChallenge: data.codeChallenge,
          codeChallengeMethod: 'S256',
          responseMode: options.responseMode ?? 'fragment',
          responseType: 'code',
          scope: 'offline_access',
          state: data.state,
          sessionToken: options.sessionToken,
          idp: typeof options.idp === 'string' ? IDP_CONNECTION_IDS[options.idp] : options.idp?.connectionId,
        },
        prompt: options.prompt ?? 'login',
      },
    },
    call,
  );
  return { authUrl };
}

/**
 * Reads `code`, `state`, `error`, `error_description` from a URL's fragment (default) or query: the
 * page's address, an absolute URL, or a path with its query (a Node server's `req.url`). A URL
 * that cannot be read is a `ValidationError` that does not repeat it.
 */
export function parseFromUrl(
  _client: AnyClient,
  url?: string,
  responseMode: 'query' | 'fragment' = 'fragment',
) {
  const loc = (globalThis as { location?: Location }).location;
  const href = url ?? loc?.href;
  let u: URL | undefined;
  try {
    // Only the query and fragment count: a path is read against this page, or any base.
    u = href ? new URL(href, loc?.href ?? 'http://localhost') : undefined;
  } catch {}
  // Not `new URL`'s own error, whose message or `input` holds the code and state (checklist 31).
  if (!u) throw new ValidationError([{ field: 'url', description: 'must be a URL or a path' }]);
  const p = new URLSearchParams(responseMode === 'query' ? u.search : u.hash.slice(1));
  const get = (k: string) => p.get(k) ?? undefined;
  const out = {
    code: get('code'),
    state: get('state'),
    error: get('error'),
    errorDescription: get('error_description'),
  };
  // Take code and state out of the address bar once read (checklist 11), and nothing else: the
  // page's other parameters stay as they were written (re-encoded, `a%20b` became `a+b`).
  if (loc && u.href === loc.href && (p.has('code') || p.has('state'))) {
    const rest = (responseMode === 'query' ? u.search : u.hash)
      .slice(1)
      .split('&')
      .filter(
        (s) =>
          !['code', 'state', 'error', 'error_description'].includes(
            new URLSearchParams(s).keys().next().value!,
          ),
      )
      .join('&');
    if (responseMode === 'query') u.search = rest;
    else u.hash = rest;
    globalThis.history?.replaceState(history.state, '', u.href);
  }
  return out;
}

const usedStates = new Set<string>();

/** Exchanges an authorization code for member tokens (role `member`); returns them, does not store them. */
export async function getMemberTokens(
  client: AnyClient,
  code: string | undefined,
  state: string | undefined,
  data: OAuthData,
): Promise<Tokens> {
  if (!code || !state) return tokenFailure(client, 'Missing code or _state', 'MISSING_CODE_OR_STATE');
  if (state !== data?.state || usedStates.has(state))
    return tokenFailure(client, 'Invalid _state', 'INVALID_STATE');
  // Spent now (checklist 9); the set keeps the latest 1000 states, enough for a server's logins in
  // progress.
  usedStates.add(state);
  if (usedStates.size > 1000) usedStates.delete(usedStates.values().next().value!);
  return exchangeCode(client, oauth(client), code, data.codeVerifier, data.redirectUri);
}

/**
 * The callback page's step of the redirect flow: reads the answer from the address, as
 * {@link parseFromUrl} does (clearing it from the address bar), and exchanges its code for member
 * tokens, as {@link getMemberTokens} does; returns them, does not store them. An authorization
 * error in the answer (`#error=access_denied&state=…`) is thrown as a `ShopkitError` whose `code` is
 * that error and whose message is its description, once its state is checked, never masked as a
 * missing code.
 * @example
 * await client.auth.setTokens(await client.identity.getMemberTokensFromUrl(data));
 */
export async function getMemberTokensFromUrl(
  client: AnyClient,
  data: OAuthData,
  url?: string,
  responseMode: 'query' | 'fragment' = 'fragment',
): Promise<Tokens> {
  let answer: ReturnType<typeof parseFromUrl>;
  try {
    answer = parseFromUrl(client, url, responseMode);
  } catch (e) {
    return fail(client, e, 'POST', '/oauth2/token');
  }
  const { code, state, error, errorDescription } = answer;
  if (!error) return getMemberTokens(client, code, state, data);
  if (state !== data?.state) return tokenFailure(client, 'Invalid _state', 'INVALID_STATE');
  return tokenFailure(client, errorDescription || error, error);
}

export { getMemberTokensForDirectLogin } from '../auth/silent.ts';

const LOGOUT_PATH = `${A}/v1/logout`;
const logoutOp = /* @__PURE__ */ op<
  [options: { postLogoutRedirectUri?: string; clientId?: string }],
  RawHttpResponse
>({ method: 'GET', path: LOGOUT_PATH, args: ['options:'] });

/**
 * GET `v1/logout`, the platform's own logout call: ends the calling member's session on the
 * platform (their tokens stop working) and answers where to send the browser, when
 * `postLogoutRedirectUri` is allowed for the client; one that is not an absolute http(s) URL is a
 * `ValidationError` and nothing is sent. It leaves this client's stored tokens alone; {@link logout}
 * is the usual way out of a storefront.
 */
export async function logoutOnServer(
  client: AnyClient,
  options: { postLogoutRedirectUri?: string; clientId?: string } = {},
  callOptions?: CallOptions,
): Promise<{ redirectUrl?: string; response: RawHttpResponse }> {
  unsafeUrl(client, 'options.postLogoutRedirectUri', options?.postLogoutRedirectUri, LOGOUT_PATH, 'GET');
  const response = await logoutOp(client, options, callOptions);
  return { redirectUrl: locationOf(response), response };
}

/**
 * Logs out: creates the logout redirect session with the current token (when a member), then
 * clears both tokens (role `none`) even if that call fails. Returns the URL to visit, whose page
 * ends the member's session on the platform, if any; when the call failed (offline, a 5xx), the
 * local logout still happened and `warning` says why the platform's session could not be ended.
 * `originalUrl` must be an absolute http(s) URL; an unsafe one (`//host`, `javascript:` …) is a
 * `ValidationError`, thrown after the tokens are cleared.
 */
export async function logout(
  client: AnyClient,
  originalUrl?: string,
  call?: CallOptions,
): Promise<{ logoutUrl?: string; warning?: ShopkitError }> {
  const s = oauth(client, REDIRECT_SESSION_PATH);
  let logoutUrl: string | undefined;
  let warning: ShopkitError | undefined;
  // Checked for visitors too, who send nothing: the same call must not pass or fail by role.
  const problem = originalUrl ? returnUrlProblem(originalUrl) : undefined;
  let refused: unknown;
  try {
    if (!problem && (await s.loggedIn()))
      // As a logout: a member whose refresh is refused meanwhile has no session left to end on the
      // platform, and the call is not made with a new visitor's token fetched for it.
      logoutUrl = await (s.ending ?? ((f) => f()))(() =>
        sessionUrl(
          client,
          {
            logout: { clientId: s.clientId },
            ...(originalUrl ? { callbacks: { postFlowUrl: originalUrl } } : {}),
          },
          call,
        ),
      );
  } catch (e) {
    // The local logout happens whatever the network says (checklist 33); an unsafe return URL is
    // still the caller's error, thrown once the tokens are gone.
    if (e instanceof ValidationError) refused = e;
    else warning = e as ShopkitError;
  }
  forget(client);
  await s.setTokens(emptyTokens());
  if (problem)
    // Reported as the call it stops, as createRedirectSession reports its own refusals.
    fail(
      client,
      new ValidationError([{ field: 'originalUrl', description: problem }]),
      'POST',
      REDIRECT_SESSION_PATH,
    );
  if (refused) throw refused;
  return warning ? { logoutUrl, warning } : { logoutUrl };
}
