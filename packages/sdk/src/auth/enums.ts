/**
 * The authentication enumerations of spec point 3 as typed constants (keys equal values), and
 * the two captcha site keys.
 * @module
 */
type Enum<T extends string> = { readonly [K in T]: K };
const e = <T extends string>(...keys: T[]): Enum<T> =>
  Object.freeze(Object.fromEntries(keys.map((k) => [k, k]))) as Enum<T>;
type Of<T> = T[keyof T];

/** Outcome of register, login, verification and recovery. */
export const LoginState = /* @__PURE__ */ e(
  'INITIAL',
  'SUCCESS',
  'FAILURE',
  'EMAIL_VERIFICATION_REQUIRED',
  'OWNER_APPROVAL_REQUIRED',
  'USER_CAPTCHA_REQUIRED',
  'SILENT_CAPTCHA_REQUIRED',
);
export type LoginState = Of<typeof LoginState>;
export const IdentityStatus = /* @__PURE__ */ e(
  'UNKNOWN_STATUS',
  'PENDING',
  'ACTIVE',
  'DELETED',
  'BLOCKED',
  'OFFLINE',
);
export type IdentityStatus = Of<typeof IdentityStatus>;
export const StatusReason = /* @__PURE__ */ e(
  'PENDING_ADMIN_APPROVAL_REQUIRED',
  'PENDING_EMAIL_VERIFICATION_REQUIRED',
);
export type StatusReason = Of<typeof StatusReason>;
/** The server's state-machine states. */
export const StateType = /* @__PURE__ */ e(
  'UNKNOWN_STATE',
  'SUCCESS',
  'REQUIRE_OWNER_APPROVAL',
  'REQUIRE_EMAIL_VERIFICATION',
  'STATUS_CHECK',
  'REQUIRE_MFA',
  'MFA_CHALLENGE',
  /** The login needs its first factor: the account logs in another way (an identity provider). */
  'REQUIRE_FIRST_FACTOR',
  /** The site requires profile fields the member has not given yet. */
  'REQUIRE_MISSING_FIELDS',
);
export type StateType = Of<typeof StateType>;
export const FactorType = /* @__PURE__ */ e('PASSWORD', 'SMS', 'CALL', 'EMAIL', 'TOTP', 'PUSH');
export type FactorType = Of<typeof FactorType>;
export const FactorStatus = /* @__PURE__ */ e('INACTIVE', 'ACTIVE', 'REQUIRE_REENROLL');
export type FactorStatus = Of<typeof FactorStatus>;
export const TenantType = /* @__PURE__ */ e('ACCOUNT', 'SITE', 'ROOT');
export type TenantType = Of<typeof TenantType>;
export const PrivacyStatus = /* @__PURE__ */ e('UNDEFINED', 'PUBLIC', 'PRIVATE');
export type PrivacyStatus = Of<typeof PrivacyStatus>;
export const EmailTag = /* @__PURE__ */ e('UNTAGGED', 'MAIN', 'HOME', 'WORK');
export type EmailTag = Of<typeof EmailTag>;
export const PhoneTag = /* @__PURE__ */ e('UNTAGGED', 'MAIN', 'HOME', 'MOBILE', 'WORK', 'FAX');
export type PhoneTag = Of<typeof PhoneTag>;
export const AddressTag = /* @__PURE__ */ e('UNTAGGED', 'HOME', 'WORK', 'BILLING', 'SHIPPING');
export type AddressTag = Of<typeof AddressTag>;
export const VerificationTarget = /* @__PURE__ */ e('EMAIL');
export type VerificationTarget = Of<typeof VerificationTarget>;
/** Token-info subject types. */
export const SubjectType = /* @__PURE__ */ e('UNKNOWN', 'USER', 'VISITOR', 'MEMBER', 'APP');
export type SubjectType = Of<typeof SubjectType>;

/** The platform's visible reCAPTCHA site key. */
export const CAPTCHA_SITE_KEY = '6Ld0J8IcAAAAANyrnxzrRlX1xrrdXsOmsepUYosy';
/** The platform's invisible reCAPTCHA site key. */
export const INVISIBLE_CAPTCHA_SITE_KEY = '6LdoPaUfAAAAAJphvHoUoOob7mx0KDlXyXlgrx5v';
