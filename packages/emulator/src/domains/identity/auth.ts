/**
 * Authentication, recovery and verification on their wire paths (wire §1.3, §5.5): register,
 * login (throttled per e-mail address), change password, sign-on, logout, factor verify; recovery
 * e-mails, activation e-mails and recover; verification start / verify / resend (limited). Every
 * answer that can carry a session token is `no-store` (checklist 42).
 * @module
 */
import type { Context } from 'hono';
import type { Emulator, Identity } from '../../context.ts';
import type { Sql } from '../../db/index.ts';
import { appError, forbidden, invalid, notFound, tooMany, unauthenticated } from '../../http/errors.ts';
import type { RawAnswer } from '../../http/raw.ts';
import { FAMILY, noStore, type Router, refuseAppWithoutInstance } from '../../http/router.ts';
import { z } from '../../http/validate.ts';
import { hostedPageClient, identify, revokeMemberTokens } from '../platform/index.ts';
import { isAllowedRedirect } from '../redirects/intents.ts';
import {
  BLOCK_AFTER,
  CODE_ATTEMPTS,
  CODE_TTL_MS,
  checkCaptcha,
  closeChallenge,
  closeRecoveryLinks,
  countCodeFailure,
  countLoginAttempt,
  createChallenge,
  createDecoy,
  decoyLogin,
  emailKey,
  forgetLoginFailures,
  getSettings,
  hashCode,
  hashPassword,
  IDENTITY_EVENTS,
  identityOf,
  issueSessionToken,
  lockChallengeMember,
  loginBlocked,
  MAX_PASSWORD,
  MEMBER_CODE_FAILURES,
  type MemberRow,
  MIN_PASSWORD,
  mayMailCode,
  memberByEmail,
  memberById,
  openChallenge,
  REASONS_VERIFIED,
  RECOVERY_TTL_MS,
  rehashIfWeak,
  renewChallengeCode,
  sendMail,
  stateOf,
  verifyPassword,
} from './store.ts';

/** RFC 5321's longest address. */
const MAX_EMAIL = 254;
/**
 * An e-mail address. Too long is a format violation of type `EMAIL` too: the platform SDK maps a
 * registration's violation to `invalidEmail` only by `data.type === 'EMAIL'` (spec 8).
 */
const email = () =>
  z
    .string()
    .trim()
    .pipe(z.email())
    .check((ctx) => {
      if (ctx.value.length > MAX_EMAIL)
        ctx.issues.push({
          code: 'invalid_format',
          format: 'email',
          input: ctx.value,
          message: `must have at most ${MAX_EMAIL} characters`,
        });
    });
const password = () => z.string().min(MIN_PASSWORD).max(MAX_PASSWORD);
const captchaTokens = z
  .array(z.record(z.string(), z.string().max(4096)))
  .max(4)
  .optional();
/** Whether `YYYY-MM-DD` names a day that exists (`Date.parse` takes 2021-02-29 as 1 March). */
const onCalendar = (ymd: string) => {
  const [y, m, d] = ymd.split('-').map(Number) as [number, number, number];
  const day = new Date(0);
  day.setUTCFullYear(y, m - 1, d);
  return day.getUTCFullYear() === y && day.getUTCMonth() === m - 1 && day.getUTCDate() === d;
};
/** A profile's custom value (wire §5.5): one of its kinds, a date as an ISO-8601 timestamp. */
const customValue: z.ZodType = z.lazy(() =>
  z.object({
    strValue: z.string().optional(),
    numValue: z.number().optional(),
    dateValue: z
      .string()
      .refine(
        (v) => /^\d{4}-\d{2}-\d{2}T/.test(v) && !Number.isNaN(Date.parse(v)) && onCalendar(v.slice(0, 10)),
        'must be an ISO-8601 timestamp',
      )
      .optional(),
    listValue: z.object({ value: z.array(customValue).optional() }).optional(),
    mapValue: z.object({ value: z.record(z.string(), customValue).optional() }).optional(),
  }),
);
const words = z.string().max(1000).optional();
const list = z.array(z.string().max(1000)).max(100).optional();

/**
 * A profile as registration and sign-on take it (wire §5.5 `identityProfile`): the fields the wire
 * names, typed (a number for a name, a date that is none and a list that is no list were stored
 * as they came, and read back as such); fields it does not name are kept as they are.
 */
const profile = z
  .object({
    firstName: words,
    lastName: words,
    nickname: words,
    picture: z.string().max(2048).optional(),
    // The identity lists them after the login e-mail (`identityProfile.emails`).
    emails: z.array(z.string().max(254), 'must be a list of e-mail addresses').max(100).optional(),
    phones: list,
    secondaryEmails: z
      .array(z.object({ email: z.string().max(254), tag: z.string().max(50).optional() }))
      .max(100)
      .optional(),
    labels: list,
    language: z.string().max(50).optional(),
    privacyStatus: z.string().max(50).optional(),
    customFields: z
      .array(z.object({ name: z.string().min(1).max(200), value: customValue.optional() }))
      .max(100)
      .optional(),
    addresses: z
      .array(
        z.object({
          tag: z.string().max(50).optional(),
          address: z.record(z.string(), z.unknown()).optional(),
        }),
      )
      .max(100)
      .optional(),
    company: words,
    position: words,
    birthdate: z
      .string()
      .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date as YYYY-MM-DD')
      .refine(onCalendar, 'must be a date on the calendar')
      .optional(),
    slug: z.string().max(255).optional(),
    subscription: z.boolean().optional(),
    vatId: z.object({ id: z.string().max(100).optional(), type: z.string().max(50).optional() }).optional(),
  })
  .passthrough()
  .refine((p) => JSON.stringify(p).length <= 32_768, 'must be at most 32768 characters of JSON')
  .optional();

/**
 * The state-machine response (wire §5.5) for a member in its current state. Its session token is
 * for the caller's client (checklist 54), or for `pageClient`: the redirect session's client when
 * the emulator's own login page asks, in process and without a token (`hostedPageClient`).
 */
export async function stateResponse(
  emu: Emulator,
  sql: Sql,
  m: MemberRow,
  caller: Identity,
  pageClient?: string,
) {
  const state = stateOf(m);
  const out: Record<string, unknown> = { state, identity: identityOf(m), additionalData: {} };
  if (state === 'SUCCESS')
    out.sessionToken = await issueSessionToken(emu, sql, m, {
      clientId: caller.clientId ?? pageClient,
      visitorId: caller.visitorId,
    });
  if (state === 'REQUIRE_EMAIL_VERIFICATION')
    out.stateToken = await sendVerificationCode(emu, sql, m, caller);
  return out;
}

/**
 * Opens an e-mail verification challenge, mails its code if one may be (`mayMailCode`), returns the
 * state token.
 */
async function sendVerificationCode(emu: Emulator, sql: Sql, m: MemberRow, caller: Partial<Identity>) {
  const mail = await mayMailCode(emu, sql, (await memberById(sql, m.id, true))!);
  const { token, code } = await createChallenge(emu, sql, {
    memberId: m.id,
    purpose: 'EMAIL_VERIFICATION',
    withCode: true,
    ttlMs: CODE_TTL_MS,
    visitorId: caller.visitorId,
    clientId: caller.clientId,
  });
  if (mail) await mailCode(emu, sql, m.email, code!);
  return token;
}

const mailCode = (emu: Emulator, sql: Sql, to: string, code: string) =>
  sendMail(emu, sql, {
    to,
    subject: 'Your verification code',
    body: `Your verification code is ${code}. It is valid for 10 minutes.`,
    code,
  });

/**
 * The redirect session of the hosted login page that an in-process request comes from (the
 * page's `internal` calls pass it); a request from the network never has it.
 */
const hostedLoginSession = (c: Context): string | undefined =>
  (c.env as { hostedLoginSession?: string } | undefined)?.hostedLoginSession;

/** The path of the hosted login page of the `auth` redirect session `id`. */
export const loginPagePath = (id: string) =>
  `/oauth2/authorize?${new URLSearchParams({ redirect_session_id: id })}`;

/** Resolves `Authorization: <visitor token>,<api key>` (trusted server calls): both must be valid. */
export async function trustedCaller(emu: Emulator, authorization: string | undefined) {
  const parts = (authorization ?? '').split(',').map((s) => s.trim());
  if (!parts[0]) throw unauthenticated();
  const who = await Promise.all(parts.map((p) => identify(emu, p)));
  // Each part is a credential: an expired or made-up visitor token is refused, not taken as no
  // visitor (a sign-on then answered a session token no client could redeem).
  if (who.some((w) => w.type === 'NONE'))
    throw appError(401, 'UNAUTHENTICATED', 'The access token is invalid or expired');
  const elevated = who.find((w) => w.type === 'WIX_USER' || w.type === 'APP');
  if (!elevated) throw forbidden('This call needs an API key or an app token');
  refuseAppWithoutInstance(elevated);
  const visitor = who.find((w) => w.type === 'ANONYMOUS_VISITOR' || w.type === 'MEMBER');
  return { elevated, visitor };
}

export function authenticationRoutes(router: Router, emu: Emulator) {
  const A = FAMILY.authentication;

  router.route({
    method: 'POST',
    family: A,
    path: '/v2/register',
    access: 'caller',
    schema: z.object({
      loginId: z.object({ email: email() }),
      password: password(),
      profile,
      captchaTokens,
      clientMetaData: z.unknown().optional(),
    }),
    async handler({ msg, identity, c }) {
      noStore(c);
      // Spent in a transaction of its own, as login's is: in the registration's, a refused
      // registration (a taken e-mail) rolled the spending back, and the one-time token worked again.
      await emu.db.tx(async (sql) => checkCaptcha(emu, sql, await getSettings(emu, sql), msg.captchaTokens));
      const hash = await hashPassword(emu, msg.password);
      return emu.db.tx(async (sql) => {
        const settings = await getSettings(emu, sql);
        const reasons = [
          ...(settings.emailVerificationRequired ? ['PENDING_EMAIL_VERIFICATION_REQUIRED'] : []),
          ...(settings.ownerApprovalRequired ? ['PENDING_ADMIN_APPROVAL_REQUIRED'] : []),
        ];
        const now = emu.now();
        const created = (await memberByEmail(sql, msg.loginId.email))
          ? undefined
          : (
              await sql.query<MemberRow>(
                `INSERT INTO members (id, email, email_lower, password_hash, status, status_reasons, profile, created_at, updated_at)
                 VALUES (gen_random_uuid()::text, $1, $2, $3, $4, $5, $6, $7, $7)
                 ON CONFLICT (email_lower) DO NOTHING RETURNING *`,
                [
                  msg.loginId.email,
                  emailKey(msg.loginId.email),
                  hash,
                  reasons.length ? 'PENDING' : 'ACTIVE',
                  JSON.stringify(reasons),
                  JSON.stringify(msg.profile ?? {}),
                  now,
                ],
              )
            )[0];
        // Taken before, or by a registration at the same moment (which the insert waited for).
        const taken = created ? undefined : await memberByEmail(sql, msg.loginId.email);
        if (taken) {
          // Hidden only where a new member's answer carries no session: a decoy (checklist 50).
          if (settings.hideAccountExistence && settings.emailVerificationRequired)
            return createDecoy(
              emu,
              sql,
              taken,
              { email: msg.loginId.email, passwordHash: hash, profile: msg.profile, reasons },
              identity,
            );
          throw appError(409, '-19995', 'A member with this e-mail already exists', {});
        }
        const m = created!;
        // Failed logins counted against the address before it had a member (hideAccountExistence
        // counts unknown addresses too) guessed no one's password: not held against the new one.
        // With e-mail verification, not before its code proves the address (`verifyCode`): a
        // decoy's registration keeps them, and clearing them here would tell the two apart.
        if (!settings.emailVerificationRequired) await forgetLoginFailures(sql, m.email);
        await emu.recordEvent(sql, IDENTITY_EVENTS.created, m.id, identityOf(m));
        return stateResponse(emu, sql, m, identity, hostedPageClient(c));
      });
    },
  });

  router.route({
    method: 'POST',
    family: A,
    path: '/v2/login',
    access: 'caller',
    // Login never answers a validation error (wire §8.6): bad shapes are application errors, and
    // so is text no storage holds (a NUL, a lone surrogate) wherever it is in the message.
    schema: z.record(z.string(), z.unknown()),
    asApplicationError: (field, description) =>
      field === 'password'
        ? appError(400, '-19976', 'The password is wrong')
        : field.startsWith('loginId')
          ? appError(400, 'INVALID_EMAIL', 'loginId.email must be an e-mail address')
          : appError(400, 'INVALID_ARGUMENT', `${field} ${description}`),
    async handler({ msg, identity, c }) {
      noStore(c);
      const loginEmail = (msg.loginId as { email?: unknown } | undefined)?.email;
      const pw = msg.password;
      if (typeof loginEmail !== 'string' || !loginEmail.trim() || loginEmail.length > 254)
        throw appError(400, 'INVALID_EMAIL', 'loginId.email must be an e-mail address');
      if (typeof pw !== 'string' || !pw || pw.length > MAX_PASSWORD)
        throw appError(400, '-19976', 'The password is wrong');
      const settings = await getSettings(emu, emu.db);
      await emu.db.tx((sql) => checkCaptcha(emu, sql, settings, msg.captchaTokens));
      // The attempt counts before the (slow) hash. Unknown addresses count too when existence is
      // hidden, so that throttling answers them as it answers members (checklist 50).
      const { m, wait, blocked } = await emu.db.tx(async (sql) => {
        const m = await memberByEmail(sql, loginEmail);
        const known = m !== undefined && m.status !== 'DELETED';
        if (!known && !settings.hideAccountExistence) return { m, wait: 0 };
        return { m, ...(await countLoginAttempt(emu, sql, loginEmail)) };
      });
      // Blocked: no password is checked any more, not even the right one; a reset unblocks.
      if (blocked)
        throw appError(
          429,
          'THROTTLED_FEATURE',
          `Too many failed logins (${BLOCK_AFTER} in a row): reset the password to log in again`,
        );
      if (wait) {
        throw tooMany('THROTTLED_FEATURE', 'Too many failed logins', wait);
      }
      const ok = await verifyPassword(emu, m?.password_hash ?? null, pw);
      if (!m || m.status === 'DELETED') {
        if (settings.hideAccountExistence) throw appError(400, '-19976', 'The e-mail or password is wrong');
        throw appError(404, '-19999', 'No member has this e-mail');
      }
      if (!ok) {
        // A decoy's password answers as the member it made up would (checklist 50); its failure
        // still counts against the account, whose count only its own password clears.
        const decoy = settings.hideAccountExistence && (await decoyLogin(emu, m, pw, identity));
        if (decoy) return decoy;
        throw appError(
          400,
          '-19976',
          settings.hideAccountExistence ? 'The e-mail or password is wrong' : 'The password is wrong',
        );
      }
      await forgetLoginFailures(emu.db, m.email);
      await rehashIfWeak(emu, m, pw);
      if (m.reset_required) throw appError(400, '-19973', 'The password must be reset before logging in');
      if (m.status === 'BLOCKED') throw appError(403, 'MEMBER_BLOCKED', 'This member is blocked');
      return emu.db.tx((sql) => stateResponse(emu, sql, m, identity, hostedPageClient(c)));
    },
  });

  router.route({
    method: 'POST',
    family: A,
    path: '/v2/change-password',
    access: 'member',
    schema: z.object({ newPassword: password() }),
    async handler({ msg, identity }) {
      if (!identity.memberId) throw forbidden('Only a member can change their password');
      const hash = await hashPassword(emu, msg.newPassword);
      await emu.db.tx(async (sql) => {
        await sql.query(
          'UPDATE members SET password_hash = $2, reset_required = false, revision = revision + 1, updated_at = $3 WHERE id = $1',
          [identity.memberId, hash, emu.now()],
        );
        await revokeMemberTokens(emu, sql, identity.memberId!);
        // A reset link mailed before is no way back to the old account any more, nor a login
        // begun with the old password that waits for its e-mail code.
        await closeRecoveryLinks(emu, sql, identity.memberId!);
      });
      return {};
    },
  });

  router.route({
    method: 'POST',
    family: A,
    path: '/v2/sign-on',
    access: 'public',
    schema: z.object({
      loginId: z.object({ email: email() }),
      profile,
      verifyEmail: z.boolean().optional(),
      mergeExistingContact: z.boolean().optional(),
    }),
    async handler({ msg, c }) {
      noStore(c);
      const { visitor } = await trustedCaller(emu, c.req.header('authorization'));
      // Its session token is for the visitor's client: without one, nothing could redeem it.
      if (!visitor?.clientId)
        throw appError(
          400,
          'INVALID_ARGUMENT',
          'The Authorization header needs a visitor token before the API key',
        );
      return emu.db.tx(async (sql) => {
        let m = await memberByEmail(sql, msg.loginId.email, true);
        const now = emu.now();
        if (!m) {
          const rows = await sql.query<MemberRow>(
            `INSERT INTO members (id, email, email_lower, status, email_verified, profile, created_at, updated_at)
             VALUES (gen_random_uuid()::text, $1, $2, 'ACTIVE', $3, $4, $5, $5)
             ON CONFLICT (email_lower) DO NOTHING RETURNING *`,
            [
              msg.loginId.email,
              emailKey(msg.loginId.email),
              !!msg.verifyEmail,
              JSON.stringify(msg.profile ?? {}),
              now,
            ],
          );
          if (rows[0]) await emu.recordEvent(sql, IDENTITY_EVENTS.created, rows[0].id, identityOf(rows[0]));
          // Created by a sign-on or registration at the same moment (the insert waited for it).
          m = rows[0] ?? (await memberByEmail(sql, msg.loginId.email, true))!;
        }
        // As SSO refuses them: no session for a blocked or deleted member.
        if (m.status === 'BLOCKED' || m.status === 'DELETED')
          throw appError(403, 'MEMBER_BLOCKED', 'This member cannot log in');
        if (msg.verifyEmail && !m.email_verified) {
          // As a verification code does: the pending reason goes, and the member is active when
          // it was the last (it stayed PENDING, its session token refused).
          const reasons = REASONS_VERIFIED;
          const rows = await sql.query<MemberRow>(
            `UPDATE members SET email_verified = true, status_reasons = ${reasons},
               status = CASE WHEN status = 'PENDING' AND jsonb_array_length(${reasons}) = 0 THEN 'ACTIVE' ELSE status END,
               revision = revision + 1, updated_at = $2
             WHERE id = $1 RETURNING *`,
            [m.id, now],
          );
          m = rows[0]!;
        }
        const sessionToken = await issueSessionToken(emu, sql, m, {
          clientId: visitor?.clientId,
          visitorId: visitor?.visitorId,
        });
        return { sessionToken, identity: identityOf(m) };
      });
    },
  });

  router.route({
    method: 'GET',
    family: A,
    path: '/v1/logout',
    access: 'public',
    schema: z.object({
      postLogoutRedirectUri: z.string().max(2048).optional(),
      clientId: z.string().max(200).optional(),
    }),
    async handler({ msg, identity }) {
      if (identity.memberId) {
        const memberId = identity.memberId;
        await emu.db.tx((sql) => revokeMemberTokens(emu, sql, memberId));
      }
      const clientId = msg.clientId ?? identity.clientId ?? null;
      const to = (await isAllowedRedirect(emu, emu.db, clientId, msg.postLogoutRedirectUri))
        ? msg.postLogoutRedirectUri!
        : undefined;
      // The raw-HTTP envelope the platform answers here (wire §5.5).
      const answer: RawAnswer = to
        ? { body: '', statusCode: 302, headers: [{ key: 'Location', value: to }] }
        : {
            body: Buffer.from('Logged out').toString('base64'),
            statusCode: 200,
            headers: [{ key: 'Content-Type', value: 'text/plain' }],
          };
      return answer;
    },
  });

  const factorVerify = z.object({
    stateToken: z.string().min(1).max(512),
    factorType: z.string().max(20).optional(),
    rememberThisDevice: z.boolean().optional(),
    emailData: z.object({ code: z.string().max(20) }).optional(),
    smsData: z.unknown().optional(),
    callData: z.unknown().optional(),
    totpData: z.unknown().optional(),
    passwordData: z.unknown().optional(),
  });
  for (const path of ['/v2/verify', '/v2/{factorType}/verify'])
    router.route({
      method: 'POST',
      family: A,
      path,
      access: 'public',
      schema: factorVerify,
      async handler({ msg, identity, c }) {
        noStore(c);
        const type = (msg.factorType ?? 'EMAIL').toUpperCase();
        if (type !== 'EMAIL' || !msg.emailData)
          throw appError(400, 'FACTOR_NOT_ENROLLED', `The ${type} factor is not available for this member`);
        return verifyCode(emu, msg.stateToken, msg.emailData.code, identity, hostedPageClient(c));
      },
    });

  // Whether registration would accept an e-mail (wire §5.5). Our reading: `valid` when it is
  // well-formed (register's own check) and no member has it; `formatInvalid` for the first,
  // `failure.reason` for why it is not valid. The reason values are UNCONFIRMED. With
  // hideAccountExistence only the format is judged, so this cannot list accounts (checklist 50).
  router.route({
    method: 'POST',
    family: A,
    path: '/v2/validate-email',
    access: 'public',
    schema: z.object({ email: z.string().max(4096) }),
    async handler({ msg }) {
      if (!email().safeParse(msg.email).success)
        return { valid: false, failure: { reason: 'INVALID_FORMAT' }, formatInvalid: true };
      const settings = await getSettings(emu, emu.db);
      if (!settings.hideAccountExistence && (await memberByEmail(emu.db, msg.email)))
        return { valid: false, failure: { reason: 'EMAIL_ALREADY_EXISTS' }, formatInvalid: false };
      return { valid: true, formatInvalid: false };
    },
  });
}

/**
 * Checks an e-mail code against a state token's challenge: single use, and `CODE_ATTEMPTS` wrong
 * codes in all end the state token, whatever was sent again in between (checklist 53). Wrong codes
 * count for the member too, over all its state tokens: past `MEMBER_CODE_FAILURES` every code is
 * wrong and ends its state token, until a password reset. A decoy's made-up member counts alike.
 */
async function verifyCode(
  emu: Emulator,
  stateToken: string,
  code: string,
  caller: Identity,
  pageClient?: string,
) {
  const failed = () => appError(400, 'VERIFICATION_FAILED', 'The code is wrong or has expired');
  const outcome = await emu.db.tx(async (sql) => {
    const member = await lockChallengeMember(sql, stateToken);
    const ch = await openChallenge(emu, sql, stateToken, ['EMAIL_VERIFICATION', 'VERIFICATION', 'DECOY']);
    if (!member || !ch?.code_hash) return { error: failed() };
    // A decoy's code was never sent: every code is a wrong one, counted as a member's are.
    const spent = ch.purpose !== 'DECOY' && member.code_failures >= MEMBER_CODE_FAILURES;
    if (spent || ch.purpose === 'DECOY' || hashCode(emu, code.trim()) !== ch.code_hash) {
      const attempts = ch.attempts + 1;
      await sql.query('UPDATE identity_challenges SET attempts = $2 WHERE token_hash = $1', [
        ch.token_hash,
        attempts,
      ]);
      const failures = spent ? MEMBER_CODE_FAILURES : await countCodeFailure(sql, ch);
      if (attempts >= CODE_ATTEMPTS || failures >= MEMBER_CODE_FAILURES)
        await closeChallenge(emu, sql, ch.token_hash);
      return { error: failed() };
    }
    await closeChallenge(emu, sql, ch.token_hash);
    const reasons = REASONS_VERIFIED;
    const rows = await sql.query<MemberRow>(
      `UPDATE members SET email_verified = true, status_reasons = ${reasons}, code_failures = 0,
         status = CASE WHEN status = 'PENDING' AND jsonb_array_length(${reasons}) = 0 THEN 'ACTIVE' ELSE status END,
         revision = revision + 1, updated_at = $2
       WHERE id = $1 RETURNING *`,
      [ch.member_id, emu.now()],
    );
    const m = rows[0]!;
    // The first right code proves the address, as a reset does: failed logins counted against it
    // before (say, before it was registered) no longer count.
    if (!member.email_verified) await forgetLoginFailures(sql, m.email);
    if (ch.purpose === 'VERIFICATION')
      return { ok: { state: 'SUCCESS', identity: identityOf(m), additionalData: {} } };
    // As login answers (its password is checked before its code): a reset the owner asked for
    // while the code was on its way is done first. The address stays verified, the code spent.
    if (m.reset_required)
      return { error: appError(400, '-19973', 'The password must be reset before logging in') };
    // The login continues with the identity of the call that started it.
    const who: Identity = {
      ...caller,
      visitorId: ch.visitor_id ?? caller.visitorId,
      clientId: ch.client_id ?? caller.clientId,
    };
    return { ok: await stateResponse(emu, sql, m, who, pageClient) };
  });
  if (outcome.error) throw outcome.error;
  return outcome.ok;
}

export function verificationRoutes(router: Router, emu: Emulator) {
  const V = FAMILY.verification;
  const start = z.object({
    identityId: z.string().max(200).optional(),
    target: z.literal('EMAIL').default('EMAIL'),
  });
  for (const path of ['/v1/start', '/v1/Start'])
    router.route({
      method: 'POST',
      family: V,
      path,
      access: 'anyone',
      schema: start,
      async handler({ msg, identity, c }) {
        // The verification id is the state token a code is verified with (checklist 42).
        noStore(c);
        const elevated = identity.type === 'WIX_USER' || identity.type === 'APP';
        const memberId = msg.identityId ?? identity.memberId;
        if (!memberId)
          throw invalid([
            { field: 'identityId', description: 'is required', violatedRule: 'REQUIRED_FIELD' },
          ]);
        if (!elevated && memberId !== identity.memberId)
          throw forbidden('Only the member or an elevated caller can start a verification');
        return emu.db.tx(async (sql) => {
          const m = await memberById(sql, memberId, true);
          if (!m) throw notFound('IDENTITY_NOT_FOUND', 'No identity with this id');
          const mail = await mayMailCode(emu, sql, m);
          const { token, code } = await createChallenge(emu, sql, {
            memberId: m.id,
            purpose: 'VERIFICATION',
            withCode: true,
            ttlMs: CODE_TTL_MS,
          });
          if (mail) await mailCode(emu, sql, m.email, code!);
          return { verificationId: token };
        });
      },
    });

  router.route({
    method: 'POST',
    family: V,
    path: '/v1/auth/verify',
    access: 'caller',
    schema: z.object({ code: z.string().min(1).max(20), stateToken: z.string().min(1).max(512) }),
    handler: ({ msg, identity, c }) => {
      noStore(c);
      return verifyCode(emu, msg.stateToken, msg.code, identity, hostedPageClient(c));
    },
  });

  router.route({
    method: 'POST',
    family: V,
    path: '/v1/auth/resend',
    access: 'public',
    schema: z.object({ stateToken: z.string().min(1).max(512) }),
    async handler({ msg }) {
      return emu.db.tx(async (sql) => {
        const m = await lockChallengeMember(sql, msg.stateToken);
        const ch = await openChallenge(emu, sql, msg.stateToken, [
          'EMAIL_VERIFICATION',
          'VERIFICATION',
          'DECOY',
        ]);
        if (!m || !ch)
          throw appError(400, 'VERIFICATION_FAILED', 'The state token is unknown or has expired');
        // The same state token, a new code: the old code stops working, the wrong ones still count.
        // A decoy's codes go nowhere (the address is someone else's); where no code may be mailed,
        // the resend counts and the code sent before stays.
        const mail = ch.purpose !== 'DECOY' && (await mayMailCode(emu, sql, m));
        const renewed = await renewChallengeCode(emu, sql, ch, ch.purpose === 'DECOY' || mail);
        if (!renewed)
          throw appError(
            429,
            'THROTTLED_FEATURE',
            'No more codes for this login; log in again for a new one',
          );
        if (mail) await mailCode(emu, sql, m.email, renewed.code!);
        return {};
      });
    },
  });
}

/** Recovery mails allowed per member per hour (checklist 52). */
const MAILS_PER_HOUR = 5;

async function recoveryMail(
  emu: Emulator,
  sql: Sql,
  m: MemberRow,
  kind: 'reset' | 'activate',
  redirect: { url?: string; clientId?: string } | undefined,
  loginSession?: string,
) {
  const recent = await sql.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM identity_challenges WHERE member_id = $1 AND purpose = 'RECOVERY' AND created_at > $2`,
    [m.id, new Date(emu.now().getTime() - 3600_000)],
  );
  if (recent[0]!.n >= MAILS_PER_HOUR) return;
  const clientId = redirect?.clientId ?? null;
  // Asked for on the hosted login page: the way back is that page (a path of the emulator's own),
  // where the login goes on with its state; the redirect URI alone is no authorization response.
  const redirectUrl = loginSession
    ? loginPagePath(loginSession)
    : (await isAllowedRedirect(emu, sql, clientId, redirect?.url))
      ? redirect!.url!
      : null;
  const { token } = await createChallenge(emu, sql, {
    memberId: m.id,
    purpose: 'RECOVERY',
    withCode: false,
    ttlMs: RECOVERY_TTL_MS,
    clientId,
    redirectUrl,
  });
  // Built from configuration, never from the Host header.
  const link = `${emu.config.publicUrl}/reset-password?token=${encodeURIComponent(token)}`;
  await sendMail(emu, sql, {
    to: m.email,
    subject: kind === 'reset' ? 'Reset your password' : 'Activate your account',
    body:
      kind === 'reset'
        ? `Someone asked to reset the password of this account. Open ${link} within an hour to choose a new one. If it was not you, ignore this e-mail.`
        : `Open ${link} within an hour to set your password and activate your account.`,
    link,
  });
}

/** Sets a new password with a recovery token; the token works once. */
export async function recover(
  emu: Emulator,
  token: string,
  newPassword: string | undefined,
  caller: Identity,
) {
  const hash = newPassword ? await hashPassword(emu, newPassword) : undefined;
  const outcome = await emu.db.tx(async (sql) => {
    // The member first, as a reset mail's sending takes it before the challenges it closes.
    await lockChallengeMember(sql, token);
    const ch = await openChallenge(emu, sql, token, ['RECOVERY']);
    if (!ch)
      return {
        error: appError(400, 'INVALID_RECOVERY_TOKEN', 'The recovery link is invalid or has expired'),
      };
    // A member who must choose a new password (the owner's demand, or an address blocked by
    // failed logins) gets none of it without one: a link used without a password logged in and
    // lifted the demand, the old password working again. Refused before the link is spent.
    if (!hash) {
      const m = (await memberById(sql, ch.member_id, true))!;
      if (m.reset_required || (await loginBlocked(sql, m.email)))
        return {
          error: invalid([
            {
              field: 'password',
              description: 'is required: this account must choose a new password',
              violatedRule: 'REQUIRED_FIELD',
            },
          ]),
        };
    }
    await closeChallenge(emu, sql, ch.token_hash);
    // Before the member is read back: the login this answers carries the new login epoch.
    if (hash) {
      await revokeMemberTokens(emu, sql, ch.member_id);
      // Any other link of the member's dies with the new password, not only the one used, and so
      // does a login waiting for its e-mail code (begun with the old password).
      await closeRecoveryLinks(emu, sql, ch.member_id);
    }
    const reasons = REASONS_VERIFIED;
    const rows = await sql.query<MemberRow>(
      `UPDATE members SET password_hash = coalesce($2, password_hash), reset_required = false,
         email_verified = true, status_reasons = ${reasons}, code_failures = 0,
         status = CASE WHEN status = 'PENDING' AND jsonb_array_length(${reasons}) = 0 THEN 'ACTIVE' ELSE status END,
         revision = revision + 1, updated_at = $3
       WHERE id = $1 RETURNING *`,
      [ch.member_id, hash ?? null, emu.now()],
    );
    await forgetLoginFailures(sql, rows[0]!.email);
    return { ok: await stateResponse(emu, sql, rows[0]!, caller), redirectUrl: ch.redirect_url };
  });
  if (outcome.error) throw outcome.error;
  return { response: outcome.ok!, redirectUrl: outcome.redirectUrl ?? null };
}

export function recoveryRoutes(router: Router, emu: Emulator) {
  const R = FAMILY.recovery;
  const redirect = z
    .object({ url: z.string().max(2048).optional(), clientId: z.string().max(200).optional() })
    .optional();

  router.route({
    method: 'POST',
    family: R,
    path: '/v1/send-email',
    access: 'public',
    schema: z.object({ email: z.string().max(254), language: z.string().max(20).optional(), redirect }),
    async handler({ msg, c }) {
      // The same answer whether or not the e-mail belongs to a member (checklist 50, 52).
      await emu.db.tx(async (sql) => {
        const m = await memberByEmail(sql, msg.email, true);
        if (m && m.status !== 'DELETED' && m.status !== 'BLOCKED')
          await recoveryMail(emu, sql, m, 'reset', msg.redirect, hostedLoginSession(c));
      });
      return {};
    },
  });

  router.route({
    method: 'POST',
    family: R,
    path: '/v1/activation-email',
    access: 'public',
    schema: z.object({
      identityId: z.string().min(1).max(200),
      emailOptions: z.object({ language: z.string().max(20).optional(), redirect }).optional(),
    }),
    async handler({ msg }) {
      await emu.db.tx(async (sql) => {
        const m = await memberById(sql, msg.identityId, true);
        if (m && m.status !== 'DELETED' && m.status !== 'BLOCKED')
          await recoveryMail(emu, sql, m, 'activate', msg.emailOptions?.redirect);
      });
      return {};
    },
  });

  router.route({
    method: 'POST',
    family: R,
    path: '/v1/recover',
    access: 'caller',
    schema: z.object({ recoveryToken: z.string().min(1).max(512), password: password().optional() }),
    async handler({ msg, identity, c }) {
      noStore(c);
      return (await recover(emu, msg.recoveryToken, msg.password, identity)).response;
    },
  });
}
