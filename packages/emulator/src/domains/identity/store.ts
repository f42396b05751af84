/**
 * Members and what belongs to them: storage, scrypt password hashes, site settings, failed-login
 * counts per e-mail address, the development mailbox, one-shot login session tokens bound to a
 * client, and challenges (e-mail codes, recovery tokens). Every secret is stored as a SHA-256 hash
 * (passwords as scrypt).
 * @module
 */
import { randomBytes, randomInt, scrypt, timingSafeEqual } from 'node:crypto';
import type { Emulator } from '../../context.ts';
import { derive, hashToken, newId, newToken } from '../../crypto.ts';
import type { Sql } from '../../db/index.ts';
import { appError } from '../../http/errors.ts';

/** Event types of identities (wire entity `wix.iam.v1.identity`). */
export const IDENTITY_EVENTS = { created: 'wix.iam.v1.identity_created' } as const;

export const identityMigrations = [
  {
    id: '0201_identity',
    sql: `
      CREATE TABLE members (
        id text PRIMARY KEY,
        email text NOT NULL,
        email_lower text NOT NULL UNIQUE,
        password_hash text,
        status text NOT NULL,
        status_reasons jsonb NOT NULL DEFAULT '[]',
        email_verified boolean NOT NULL DEFAULT false,
        reset_required boolean NOT NULL DEFAULT false,
        profile jsonb NOT NULL DEFAULT '{}',
        revision integer NOT NULL DEFAULT 1,
        failed_logins integer NOT NULL DEFAULT 0,
        locked_until timestamptz,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL
      );
      CREATE TABLE login_sessions (
        token_hash text PRIMARY KEY,
        member_id text NOT NULL REFERENCES members(id) ON DELETE CASCADE,
        client_id text,
        visitor_id text,
        expires_at timestamptz NOT NULL,
        used_at timestamptz
      );
      CREATE TABLE identity_challenges (
        token_hash text PRIMARY KEY,
        member_id text NOT NULL REFERENCES members(id) ON DELETE CASCADE,
        purpose text NOT NULL,
        code_hash text,
        attempts integer NOT NULL DEFAULT 0,
        visitor_id text,
        client_id text,
        redirect_url text,
        expires_at timestamptz NOT NULL,
        used_at timestamptz,
        created_at timestamptz NOT NULL
      );
      CREATE INDEX identity_challenges_member ON identity_challenges (member_id, purpose);
      CREATE TABLE auth_codes (
        code_hash text PRIMARY KEY,
        client_id text NOT NULL,
        redirect_uri text,
        code_challenge text NOT NULL,
        member_id text NOT NULL,
        visitor_id text,
        expires_at timestamptz NOT NULL,
        used_at timestamptz,
        family_id text
      );
      CREATE TABLE mailbox (
        seq bigserial PRIMARY KEY,
        id text NOT NULL UNIQUE,
        to_email text NOT NULL,
        subject text NOT NULL,
        body text NOT NULL,
        code text,
        link text,
        created_at timestamptz NOT NULL
      );
      CREATE INDEX mailbox_to ON mailbox (lower(to_email));
      CREATE TABLE identity_settings (key text PRIMARY KEY, value jsonb NOT NULL);
      CREATE TABLE captcha_tokens (token_hash text PRIMARY KEY, expires_at timestamptz NOT NULL);
      CREATE TABLE apps (
        app_id text PRIMARY KEY,
        secret_hash text NOT NULL,
        name text NOT NULL
      );
      ALTER TABLE access_tokens ADD COLUMN app_id text;
    `,
  },
  {
    id: '0202_sso',
    sql: `
      CREATE TABLE idp_connections (
        id text PRIMARY KEY,
        name text NOT NULL,
        created_at timestamptz NOT NULL
      );
      CREATE TABLE sso_transactions (
        state_hash text PRIMARY KEY,
        connection_id text NOT NULL REFERENCES idp_connections(id) ON DELETE CASCADE,
        redirect_session_id text,
        client_id text,
        visitor_id text,
        custom_payload text,
        expires_at timestamptz NOT NULL,
        used_at timestamptz,
        created_at timestamptz NOT NULL
      );
      CREATE TABLE sso_used_tokens (jti_hash text PRIMARY KEY, expires_at timestamptz NOT NULL);
      ALTER TABLE members ADD COLUMN connections jsonb NOT NULL DEFAULT '[]';
    `,
  },
  {
    // The app instance an app token was granted for (client credentials with `instance_id`).
    id: '0203_app_instance',
    sql: 'ALTER TABLE access_tokens ADD COLUMN instance_id text;',
  },
  {
    // Failed logins counted per e-mail address, known or not (checklists 50, 51), instead of on the
    // member; how often a challenge's code was sent again (checklist 53).
    id: '0204_login_throttles',
    sql: `
      CREATE TABLE login_throttles (
        email_lower text PRIMARY KEY,
        failed_logins integer NOT NULL DEFAULT 0,
        locked_until timestamptz,
        updated_at timestamptz NOT NULL
      );
      CREATE INDEX login_throttles_updated ON login_throttles (updated_at);
      ALTER TABLE members DROP COLUMN failed_logins, DROP COLUMN locked_until;
      ALTER TABLE identity_challenges ADD COLUMN resends integer NOT NULL DEFAULT 0;
    `,
  },
  {
    // PKCE with S512; the scope and nonce of the request, for an OpenID Connect ID token.
    id: '0205_auth_code_request',
    sql: `
      ALTER TABLE auth_codes ADD COLUMN code_challenge_method text NOT NULL DEFAULT 'S256';
      ALTER TABLE auth_codes ADD COLUMN scope text;
      ALTER TABLE auth_codes ADD COLUMN nonce text;
    `,
  },
  {
    // Apps installed through the installer page: their redirect URLs, one-shot install codes and
    // the refresh tokens of the legacy token endpoint (wire §5.6, /oauth/access).
    id: '0206_app_install',
    sql: `
      ALTER TABLE apps ADD COLUMN redirect_urls jsonb NOT NULL DEFAULT '[]';
      CREATE TABLE app_codes (
        code_hash text PRIMARY KEY,
        app_id text NOT NULL REFERENCES apps(app_id) ON DELETE CASCADE,
        instance_id text NOT NULL,
        expires_at timestamptz NOT NULL,
        used_at timestamptz
      );
      CREATE TABLE app_refresh_tokens (
        token_hash text PRIMARY KEY,
        app_id text NOT NULL REFERENCES apps(app_id) ON DELETE CASCADE,
        instance_id text NOT NULL,
        code_hash text NOT NULL,
        created_at timestamptz NOT NULL,
        revoked_at timestamptz
      );
    `,
  },
  {
    // Decoy registrations (checklist 50): with hideAccountExistence, a registration for a taken
    // e-mail is answered as a new one; what it answered, and its password's hash, stay here.
    id: '0207_decoys',
    sql: 'ALTER TABLE identity_challenges ADD COLUMN decoy jsonb;',
  },
  {
    // A member's logins in flight (session tokens, authorization codes) carry the member's
    // `login_epoch` of when the password was checked; a logout or a password change moves it on,
    // and what carries an older one gives no tokens. Rows from before carry none (-1).
    id: '0208_login_epoch',
    sql: `
      ALTER TABLE members ADD COLUMN login_epoch integer NOT NULL DEFAULT 0;
      ALTER TABLE login_sessions ADD COLUMN login_epoch integer NOT NULL DEFAULT -1;
      ALTER TABLE auth_codes ADD COLUMN login_epoch integer NOT NULL DEFAULT -1;
    `,
  },
  {
    // Wrong e-mail codes counted per member across its state tokens (checklist 53): a new login
    // brought a new state token with five fresh attempts, so codes could be guessed without end.
    id: '0215_code_failures',
    sql: 'ALTER TABLE members ADD COLUMN code_failures integer NOT NULL DEFAULT 0;',
  },
  {
    // Expired captcha tokens and SSO transactions are deleted as new ones are made (`pruneExpired`).
    id: '0250_identity_expiry',
    sql: `
      CREATE INDEX captcha_tokens_expires_at ON captcha_tokens (expires_at);
      CREATE INDEX sso_transactions_expires_at ON sso_transactions (expires_at);
    `,
  },
];

/** Site settings of the identity service (changeable at runtime, see README). */
export interface IdentitySettings {
  /** New members must verify their e-mail with a code before they can log in. */
  emailVerificationRequired: boolean;
  /** New members wait for the owner's approval. */
  ownerApprovalRequired: boolean;
  /** Register and login need a captcha token (from `POST /_api/emulator/v1/captcha-token`). */
  captchaRequired: boolean;
  /**
   * Answer login failures for unknown e-mails and wrong passwords alike (-19976). Off by default:
   * the platform tells them apart (spec 8), which reveals whether an account exists (checklist
   * 50). Registration still answers -19995 for an existing e-mail (the SDK's `emailAlreadyExists`).
   */
  hideAccountExistence: boolean;
  /**
   * Anonymous visitor tokens per minute for one client id from one IP address (checklist 55): a
   * token bucket that holds this many and refills at this rate. 0 turns the limit off.
   */
  anonymousTokensPerMinute: number;
  /**
   * Rotate refresh tokens with reuse detection (checklist 43): each refresh answers a new one and
   * spends the old; presenting a spent one ends the family. Off: the same refresh token comes back
   * and stays valid until the family expires, as the platform SDK expects (it resends its first
   * refresh token every time, wire §6); our SDK works either way.
   */
  rotateRefreshTokens: boolean;
}

export const DEFAULT_SETTINGS: IdentitySettings = {
  emailVerificationRequired: false,
  ownerApprovalRequired: false,
  captchaRequired: false,
  hideAccountExistence: false,
  anonymousTokensPerMinute: 300,
  rotateRefreshTokens: true,
};

export async function getSettings(emu: Emulator, sql: Sql): Promise<IdentitySettings> {
  const rows = await sql.query<{ key: string; value: unknown }>('SELECT key, value FROM identity_settings');
  const fromConfig = (emu.config.identity ?? {}) as Partial<IdentitySettings>;
  const out: Record<string, unknown> = { ...DEFAULT_SETTINGS, ...fromConfig };
  for (const r of rows) out[r.key] = r.value;
  return out as unknown as IdentitySettings;
}

export async function setSettings(sql: Sql, patch: Partial<IdentitySettings>) {
  for (const [k, v] of Object.entries(patch))
    if (v !== undefined)
      await sql.query(
        'INSERT INTO identity_settings (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = $2',
        [k, JSON.stringify(v)],
      );
}

// ---- passwords ----

/** Longest password accepted; longer ones are refused before any hashing. */
export const MAX_PASSWORD = 256;
export const MIN_PASSWORD = 8;

function scryptAsync(password: string, salt: Buffer, n: number): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(
      password.normalize('NFKC'),
      salt,
      32,
      { N: n, r: 8, p: 1, maxmem: 512 * 1024 * 1024 },
      (err, key) => (err ? reject(err) : resolve(key)),
    ),
  );
}

/** `scrypt$N$r$p$salt$hash` with a 16-byte random salt. */
export async function hashPassword(emu: Emulator, password: string) {
  const n = emu.config.scryptN;
  const salt = randomBytes(16);
  const key = await scryptAsync(password, salt, n);
  return `scrypt$${n}$8$1$${salt.toString('base64url')}$${key.toString('base64url')}`;
}

const DUMMY_SALT = randomBytes(16);

/** Checks a password in constant time; with no stored hash, burns the same time and fails. */
export async function verifyPassword(emu: Emulator, stored: string | null, password: string) {
  const parts = stored?.split('$');
  if (parts?.length !== 6 || parts[0] !== 'scrypt') {
    await scryptAsync(password, DUMMY_SALT, emu.config.scryptN);
    return false;
  }
  const key = await scryptAsync(password, Buffer.from(parts[4]!, 'base64url'), Number(parts[1]));
  const want = Buffer.from(parts[5]!, 'base64url');
  return key.length === want.length && timingSafeEqual(key, want);
}

/**
 * After a login proved `password` against `m`'s stored hash: a hash weaker than the configured cost
 * (an older, cheaper N) is stored again at today's cost, unless the password changed meanwhile
 * (checklist 48, rehash on upgrade).
 */
export async function rehashIfWeak(emu: Emulator, m: MemberRow, password: string) {
  const [kind, n, r, p] = (m.password_hash ?? '').split('$');
  if (kind !== 'scrypt' || (Number(n) >= emu.config.scryptN && r === '8' && p === '1')) return;
  await emu.db.query('UPDATE members SET password_hash = $2 WHERE id = $1 AND password_hash = $3', [
    m.id,
    await hashPassword(emu, password),
    m.password_hash,
  ]);
}

// ---- members ----

export interface MemberRow {
  id: string;
  email: string;
  password_hash: string | null;
  status: 'PENDING' | 'ACTIVE' | 'DELETED' | 'BLOCKED' | 'OFFLINE';
  status_reasons: string[];
  email_verified: boolean;
  reset_required: boolean;
  profile: Record<string, unknown>;
  revision: number;
  /** Links to external identity providers (wire §5.5 `identity.connections`). */
  connections?: unknown[];
  /** Moved on by every logout and password change: older logins in flight give no tokens. */
  login_epoch: number;
  /** Wrong e-mail codes in a row, across state tokens; cleared by a right code or a reset. */
  code_failures: number;
  created_at: Date | string;
  updated_at: Date | string;
}

/** The form of an e-mail address that member lookups, login throttles and `members.email_lower` compare. */
export const emailKey = (email: string) => email.trim().toLowerCase();

export async function memberByEmail(sql: Sql, email: string, lock = false) {
  const rows = await sql.query<MemberRow>(
    `SELECT * FROM members WHERE email_lower = $1${lock ? ' FOR UPDATE' : ''}`,
    [emailKey(email)],
  );
  return rows[0];
}

/**
 * A member by id; `lock` locks the row for the transaction: `true` to change it, `'share'` to keep
 * its status from changing while tokens are issued for it.
 */
export async function memberById(sql: Sql, id: string, lock: boolean | 'share' = false) {
  const mode = lock === 'share' ? ' FOR SHARE' : lock ? ' FOR UPDATE' : '';
  const rows = await sql.query<MemberRow>(`SELECT * FROM members WHERE id = $1${mode}`, [id]);
  return rows[0];
}

const iso = (d: Date | string) => new Date(d).toISOString();

/** The wire identity (wire §5.5). */
export function identityOf(m: MemberRow) {
  return {
    id: m.id,
    revision: String(m.revision),
    createdDate: iso(m.created_at),
    updatedDate: iso(m.updated_at),
    connections: m.connections ?? [],
    identityProfile: {
      ...m.profile,
      // Once each, compared as logins compare them (`emailKey`): the login e-mail in other case
      // was listed twice.
      emails: [m.email, ...((m.profile.emails as string[]) ?? [])].filter(
        (e, i, a) => a.findIndex((o) => emailKey(o) === emailKey(e)) === i,
      ),
    },
    metadata: { tags: [] },
    email: { address: m.email, isVerified: m.email_verified },
    status: { name: m.status, reasons: m.status_reasons },
    factors: m.password_hash ? [{ factorId: `${m.id}-password`, type: 'PASSWORD', status: 'ACTIVE' }] : [],
  };
}

/** What a member's status means for logging in. */
export function stateOf(m: MemberRow): 'SUCCESS' | 'REQUIRE_EMAIL_VERIFICATION' | 'REQUIRE_OWNER_APPROVAL' {
  if (m.status === 'PENDING' && m.status_reasons.includes('PENDING_EMAIL_VERIFICATION_REQUIRED'))
    return 'REQUIRE_EMAIL_VERIFICATION';
  if (m.status === 'PENDING') return 'REQUIRE_OWNER_APPROVAL';
  return 'SUCCESS';
}

// ---- login throttling (checklists 50, 51) ----

/** Failed logins in a row before an address is throttled; the wait doubles with each further one. */
const THROTTLE_AFTER = 5;
const MAX_LOCK_SECONDS = 15 * 60;
/**
 * Failed logins in a row after which an address is blocked until its password is reset (checklist
 * 51: at most 100): a guess every 15 minutes would otherwise go on for ever.
 */
export const BLOCK_AFTER = 100;
/** An address with no failed login for this long starts again from zero (a blocked one does not). */
const FORGET_FAILURES_MS = 24 * 3600 * 1000;

/**
 * Counts a login attempt for an e-mail address before its password is checked, with the count's
 * row locked, so parallel attempts cannot share one count (checklist 51): from the
 * `THROTTLE_AFTER`th attempt in a row the address is locked for 1 s, then twice as long each time,
 * at most 15 minutes. A locked address is not counted: it gets the seconds to wait. After
 * `BLOCK_AFTER` failures in a row it is `blocked` until a password reset. A correct password, or a
 * reset, clears the count (`forgetLoginFailures`).
 */
export async function countLoginAttempt(
  emu: Emulator,
  sql: Sql,
  email: string,
): Promise<{ wait: number; blocked?: boolean }> {
  const now = emu.now();
  const key = emailKey(email);
  await sql.query('DELETE FROM login_throttles WHERE updated_at < $1 AND failed_logins < $2', [
    new Date(now.getTime() - FORGET_FAILURES_MS),
    BLOCK_AFTER,
  ]);
  // Created or locked in one statement, so that the lock also holds against the first attempts: a
  // row found by an insert, then deleted by a right password's success before a separate
  // `SELECT … FOR UPDATE` got it, left nothing to read (PostgreSQL).
  const [row] = await sql.query<{ failed_logins: number; locked_until: Date | string | null }>(
    `INSERT INTO login_throttles (email_lower, updated_at) VALUES ($1, $2)
     ON CONFLICT (email_lower) DO UPDATE SET updated_at = login_throttles.updated_at
     RETURNING failed_logins, locked_until`,
    [key, now],
  );
  if (row!.failed_logins >= BLOCK_AFTER) return { wait: 0, blocked: true };
  if (row!.locked_until && new Date(row!.locked_until) > now)
    return { wait: Math.ceil((new Date(row!.locked_until).getTime() - now.getTime()) / 1000) };
  const fails = row!.failed_logins + 1;
  const lock =
    fails >= THROTTLE_AFTER
      ? new Date(now.getTime() + Math.min(2 ** (fails - THROTTLE_AFTER), MAX_LOCK_SECONDS) * 1000)
      : null;
  await sql.query(
    'UPDATE login_throttles SET failed_logins = $2, locked_until = $3, updated_at = $4 WHERE email_lower = $1',
    [key, fails, lock, now],
  );
  return { wait: 0 };
}

/**
 * SQL: the member's status reasons without `PENDING_EMAIL_VERIFICATION_REQUIRED`, for the updates
 * that verify its e-mail (a code, a recovery, a sign-on, an SSO login).
 */
export const REASONS_VERIFIED = `(SELECT coalesce(jsonb_agg(r), '[]'::jsonb) FROM jsonb_array_elements_text(status_reasons) r
  WHERE r <> 'PENDING_EMAIL_VERIFICATION_REQUIRED')`;

/** Whether an address is blocked by failed logins until its password is reset (`BLOCK_AFTER`). */
export async function loginBlocked(sql: Sql, email: string) {
  const rows = await sql.query<{ failed_logins: number }>(
    'SELECT failed_logins FROM login_throttles WHERE email_lower = $1',
    [emailKey(email)],
  );
  return (rows[0]?.failed_logins ?? 0) >= BLOCK_AFTER;
}

/** Clears an address's failed logins (a correct password, a password reset). */
export async function forgetLoginFailures(sql: Sql, email: string) {
  await sql.query('DELETE FROM login_throttles WHERE email_lower = $1', [emailKey(email)]);
}

// ---- identity provider connections (SSO) ----

export interface IdpConnectionRow {
  id: string;
  name: string;
  created_at: Date | string;
}

/** The site's identity provider connections, oldest first. */
export const idpConnections = (emu: Emulator) =>
  emu.db.query<IdpConnectionRow>('SELECT * FROM idp_connections ORDER BY created_at, id');

/** One identity provider connection of the site, or `undefined`. */
export async function idpConnection(sql: Sql, id: string): Promise<IdpConnectionRow | undefined> {
  const rows = await sql.query<IdpConnectionRow>('SELECT * FROM idp_connections WHERE id = $1', [id]);
  return rows[0];
}

/** The SSO login path of a connection that finishes the `auth` redirect session `sessionId`. */
export const ssoLoginPath = (emu: Emulator, connectionId: string, sessionId: string) =>
  `/_api/iam/authentication/v1/sso/login/${encodeURIComponent(emu.siteId)}/${encodeURIComponent(connectionId)}?` +
  new URLSearchParams({ sessionId, tenantType: 'SITE' }).toString();

// ---- one-shot login session tokens (checklist 54) ----

const SESSION_TTL_MS = 10 * 60 * 1000;

/**
 * Issues a session token for the caller's client. A caller without one gets a token that no
 * client can redeem (checklist 54): a login made without a visitor token cannot be finished by
 * whoever presents its session token. `m` is the member as read when the login was checked: its
 * `login_epoch` goes with the token, so a logout or password change since then voids it.
 */
export async function issueSessionToken(
  emu: Emulator,
  sql: Sql,
  m: Pick<MemberRow, 'id' | 'login_epoch'>,
  caller: { clientId?: string; visitorId?: string },
) {
  const token = newToken('JWS.');
  await sql.query(
    'INSERT INTO login_sessions (token_hash, member_id, client_id, visitor_id, expires_at, login_epoch) VALUES ($1,$2,$3,$4,$5,$6)',
    [
      hashToken(token),
      m.id,
      caller.clientId ?? null,
      caller.visitorId ?? null,
      new Date(emu.now().getTime() + SESSION_TTL_MS),
      m.login_epoch,
    ],
  );
  return token;
}

/**
 * Redeems a session token once (by its hash) for `clientId`; `undefined` when unknown, used,
 * expired, bound to no client or to another one. A refused redemption uses the token up too.
 * Whoever turns it into tokens checks its `login_epoch` against the member's.
 */
export async function redeemSessionToken(emu: Emulator, sql: Sql, tokenHash: string, clientId: string) {
  const rows = await sql.query<{
    member_id: string;
    client_id: string | null;
    visitor_id: string | null;
    login_epoch: number;
  }>(
    `UPDATE login_sessions SET used_at = $2
      WHERE token_hash = $1 AND used_at IS NULL AND expires_at > $2 RETURNING member_id, client_id, visitor_id, login_epoch`,
    [tokenHash, emu.now()],
  );
  const row = rows[0];
  if (!row?.client_id || row.client_id !== clientId) return undefined;
  return row;
}

// ---- challenges: e-mail codes and recovery tokens ----

export const CODE_TTL_MS = 10 * 60 * 1000;
/** Wrong codes a state token takes in all, across resends (checklist 53). */
export const CODE_ATTEMPTS = 5;
/**
 * Wrong codes a member takes in a row, across all its state tokens (checklist 53): past them no
 * code verifies it, not even the right one, until a password reset (which proves the address).
 */
export const MEMBER_CODE_FAILURES = 20;
/** New codes a state token can be sent after the first (checklist 53). */
const CODE_RESENDS = 3;
/** Codes mailed to one address in an hour, however they were asked for (no mail bombing). */
const CODE_MAILS_PER_HOUR = 10;
export const RECOVERY_TTL_MS = 60 * 60 * 1000;

/** A new 6-digit code from the CSPRNG (uniform, no modulo bias). */
export const newCode = () => String(randomInt(0, 1_000_000)).padStart(6, '0');

/**
 * `DECOY`: the e-mail verification of a registration for an address that has an account, answered as
 * a new one (see {@link createDecoy}); no code of it is ever sent, and none verifies it.
 */
export type ChallengePurpose = 'EMAIL_VERIFICATION' | 'RECOVERY' | 'VERIFICATION' | 'DECOY';

/** Creates a challenge; any older open challenge of the same purpose for the member is closed. */
export async function createChallenge(
  emu: Emulator,
  sql: Sql,
  input: {
    memberId: string;
    purpose: ChallengePurpose;
    withCode: boolean;
    ttlMs: number;
    visitorId?: string | null;
    clientId?: string | null;
    redirectUrl?: string | null;
    decoy?: Decoy;
  },
) {
  const now = emu.now();
  // Decoys of one address are not one another's: each answers its own registration.
  if (!input.decoy)
    await sql.query(
      'UPDATE identity_challenges SET used_at = $3 WHERE member_id = $1 AND purpose = $2 AND used_at IS NULL',
      [input.memberId, input.purpose, now],
    );
  const token = newToken(input.purpose === 'RECOVERY' ? 'RT.' : 'ST.');
  const code = input.withCode ? newCode() : undefined;
  await sql.query(
    `INSERT INTO identity_challenges (token_hash, member_id, purpose, code_hash, visitor_id, client_id, redirect_url, expires_at, created_at, decoy)
     VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10)`,
    [
      hashToken(token),
      input.memberId,
      input.purpose,
      code ? hashCode(emu, code) : null,
      input.visitorId ?? null,
      input.clientId ?? null,
      input.redirectUrl ?? null,
      new Date(now.getTime() + input.ttlMs),
      now,
      input.decoy ? JSON.stringify(input.decoy) : null,
    ],
  );
  return { token, code };
}

/** What a decoy registration answered and was sent, kept for its logins (see {@link createDecoy}). */
export interface Decoy {
  /**
   * The member that does not exist, whose identity it answered: kept as a member, not as that
   * identity, since stored JSON comes back with its fields in another order than a real member's
   * identity has (checklist 50). Decoys stored before kept only the `identity`.
   */
  member?: Omit<MemberRow, 'password_hash'>;
  identity?: ReturnType<typeof identityOf>;
  /** The scrypt hash of the password it was sent. */
  passwordHash: string;
  /** Until when a login with that password answers as the decoy's member would (ISO). */
  until: string;
}

/** How long a decoy answers logins with its password: a day. */
const DECOY_TTL_MS = 24 * 60 * 60 * 1000;

/**
 * A decoy registration (checklist 50): with `hideAccountExistence` and `emailVerificationRequired`, a
 * registration for an address that has an account answers as a new one does, `REQUIRE_EMAIL_VERIFICATION`
 * with a state token and a new identity, and nothing is created. Its state token is a challenge of
 * the account's (`DECOY`) that behaves as a real one under verify and resend (wrong codes counted,
 * three resends, ten minutes) but never verifies, and no code is sent for it. For a day a login with
 * its password answers as a login of that new member would (see {@link decoyLogin}). The account's
 * owner is told by e-mail instead, once an hour at most.
 */
export async function createDecoy(
  emu: Emulator,
  sql: Sql,
  owner: MemberRow,
  fake: { email: string; passwordHash: string; profile?: Record<string, unknown>; reasons: string[] },
  caller: { visitorId?: string | null; clientId?: string | null },
) {
  const now = emu.now();
  // The profile as a real member's comes back from its jsonb column: same field order, same numbers.
  const [{ profile }] = (await sql.query<{ profile: Record<string, unknown> }>(
    'SELECT $1::jsonb AS profile',
    [JSON.stringify(fake.profile ?? {})],
  )) as [{ profile: Record<string, unknown> }];
  const member = {
    id: newId(),
    email: fake.email,
    status: 'PENDING' as const,
    status_reasons: fake.reasons,
    email_verified: false,
    reset_required: false,
    profile,
    revision: 1,
    login_epoch: 0,
    code_failures: 0,
    created_at: iso(now),
    updated_at: iso(now),
  };
  const decoy = {
    member,
    passwordHash: fake.passwordHash,
    until: iso(new Date(now.getTime() + DECOY_TTL_MS)),
  };
  const identity = decoyIdentity(decoy);
  // Once an hour at most, however many registrations try at once (no mail bombing).
  await memberById(sql, owner.id, true);
  const [recent] = await sql.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM identity_challenges WHERE member_id = $1 AND purpose = 'DECOY' AND created_at > $2`,
    [owner.id, new Date(now.getTime() - 3600_000)],
  );
  const token = await openDecoy(emu, sql, owner.id, decoy, caller);
  if (recent!.n === 0)
    await sendMail(emu, sql, {
      to: owner.email,
      subject: 'Someone tried to create an account with your e-mail address',
      body: 'An account with this e-mail address already exists, so none was created. If it was you, log in, or reset your password.',
    });
  return { state: 'REQUIRE_EMAIL_VERIFICATION', identity, additionalData: {}, stateToken: token };
}

/** The identity a decoy answers, as `identityOf` would give it for a real member. */
const decoyIdentity = (decoy: Decoy) =>
  decoy.member ? identityOf({ ...decoy.member, password_hash: decoy.passwordHash }) : decoy.identity!;

/** A new state token of a decoy, as a login of a member waiting for verification gets one. */
const openDecoy = async (
  emu: Emulator,
  sql: Sql,
  memberId: string,
  decoy: Decoy,
  caller: { visitorId?: string | null; clientId?: string | null },
) =>
  (
    await createChallenge(emu, sql, {
      memberId,
      purpose: 'DECOY',
      withCode: true,
      ttlMs: CODE_TTL_MS,
      visitorId: caller.visitorId,
      clientId: caller.clientId,
      decoy,
    })
  ).token;

/**
 * A login with the wrong password for `owner` that has a live decoy's password: the decoy's answer
 * (a new state token, as a member waiting for verification gets at each login), or `undefined`.
 * The newest 3 decoys are tried, each one more hash.
 */
export async function decoyLogin(
  emu: Emulator,
  owner: MemberRow,
  password: string,
  caller: { visitorId?: string | null; clientId?: string | null },
) {
  const rows = await emu.db.query<{ decoy: Decoy }>(
    `SELECT decoy FROM identity_challenges WHERE member_id = $1 AND purpose = 'DECOY'
     ORDER BY created_at DESC LIMIT 3`,
    [owner.id],
  );
  for (const { decoy } of rows)
    if (new Date(decoy.until) > emu.now() && (await verifyPassword(emu, decoy.passwordHash, password)))
      return emu.db.tx(async (sql) => ({
        state: 'REQUIRE_EMAIL_VERIFICATION',
        identity: decoyIdentity(decoy),
        additionalData: {},
        stateToken: await openDecoy(emu, sql, owner.id, decoy, caller),
      }));
  return undefined;
}

/**
 * A resend for an open challenge: `undefined` once `CODE_RESENDS` were asked for. With `renew`, a new
 * code (the old one stops working, the wrong codes so far still count, the 10 minutes start
 * again); without, the resend counts and the code stays, as when no code may be mailed.
 */
/**
 * A verification code as stored: keyed with the emulator's secret. A code has a million values, so
 * its plain SHA-256 told it to anyone who read the database (a backup, a dump) in a second.
 */
export const hashCode = (emu: Emulator, code: string) =>
  derive(emu.secret, `verification-code:${code}`).toString('hex');

export async function renewChallengeCode(emu: Emulator, sql: Sql, ch: ChallengeRow, renew: boolean) {
  if (ch.resends >= CODE_RESENDS) return undefined;
  if (!renew) {
    await sql.query('UPDATE identity_challenges SET resends = resends + 1 WHERE token_hash = $1', [
      ch.token_hash,
    ]);
    return { code: undefined };
  }
  const code = newCode();
  const now = emu.now();
  await sql.query(
    'UPDATE identity_challenges SET code_hash = $2, resends = resends + 1, expires_at = $3 WHERE token_hash = $1',
    [ch.token_hash, hashCode(emu, code), new Date(now.getTime() + CODE_TTL_MS)],
  );
  return { code };
}

/**
 * Whether a new code may be mailed to `m` (read locked): not while its wrong codes are used up (it
 * could not work), nor past its address's `CODE_MAILS_PER_HOUR`: anyone can register an address
 * and log in with their own password again and again. The answers stay the same either way.
 */
export async function mayMailCode(emu: Emulator, sql: Sql, m: MemberRow) {
  if (m.code_failures >= MEMBER_CODE_FAILURES) return false;
  const [row] = await sql.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM mailbox WHERE lower(to_email) = $1 AND code IS NOT NULL AND created_at > $2',
    [m.email.toLowerCase(), new Date(emu.now().getTime() - 3600_000)],
  );
  return row!.n < CODE_MAILS_PER_HOUR;
}

/**
 * The member of a challenge, locked, before the challenge is (`openChallenge`): logins take the
 * member first, then close its challenges, and the other order could deadlock with them.
 */
export async function lockChallengeMember(sql: Sql, token: string) {
  const [row] = await sql.query<{ member_id: string }>(
    'SELECT member_id FROM identity_challenges WHERE token_hash = $1',
    [hashToken(token)],
  );
  return row && memberById(sql, row.member_id, true);
}

/**
 * Counts a wrong code against what its challenge stands for: the member, or for a decoy the member
 * it made up (its state tokens all count together, as a real member's do); answers the count.
 */
export async function countCodeFailure(sql: Sql, ch: ChallengeRow) {
  if (ch.purpose !== 'DECOY') {
    const [row] = await sql.query<{ code_failures: number }>(
      'UPDATE members SET code_failures = code_failures + 1 WHERE id = $1 RETURNING code_failures',
      [ch.member_id],
    );
    return row!.code_failures;
  }
  return decoyCodeFailures(sql, ch);
}

/** The wrong codes so far of a decoy's made-up member, over its state tokens (attempts included). */
async function decoyCodeFailures(sql: Sql, ch: ChallengeRow) {
  const fake = ch.decoy?.member?.id ?? ch.decoy?.identity?.id;
  const [row] = await sql.query<{ n: number }>(
    `SELECT coalesce(sum(attempts), 0)::int AS n FROM identity_challenges
      WHERE member_id = $1 AND purpose = 'DECOY'
        AND coalesce(decoy->'member'->>'id', decoy->'identity'->>'id') = $2`,
    [ch.member_id, fake],
  );
  return row!.n;
}

export interface ChallengeRow {
  token_hash: string;
  member_id: string;
  purpose: ChallengePurpose;
  code_hash: string | null;
  attempts: number;
  resends: number;
  visitor_id: string | null;
  client_id: string | null;
  redirect_url: string | null;
  expires_at: Date | string;
  used_at: Date | string | null;
  decoy: Decoy | null;
}

/** An open challenge by its token, locked; `undefined` when unknown, used or expired. */
export async function openChallenge(emu: Emulator, sql: Sql, token: string, purposes: ChallengePurpose[]) {
  const rows = await sql.query<ChallengeRow>(
    'SELECT * FROM identity_challenges WHERE token_hash = $1 FOR UPDATE',
    [hashToken(token)],
  );
  const ch = rows[0];
  if (!ch || ch.used_at || !purposes.includes(ch.purpose) || new Date(ch.expires_at) <= emu.now())
    return undefined;
  return ch;
}

/**
 * Whether a state token can still verify a code (`verifyCode`'s purposes): known, not used, not
 * expired. A question of the hosted page, which offers its code form only while the answer is yes.
 */
export async function canVerifyCode(emu: Emulator, sql: Sql, token: string) {
  const rows = await sql.query(
    `SELECT 1 FROM identity_challenges WHERE token_hash = $1 AND used_at IS NULL AND expires_at > $2
        AND purpose IN ('EMAIL_VERIFICATION', 'VERIFICATION', 'DECOY')`,
    [hashToken(token), emu.now()],
  );
  return rows.length > 0;
}

/** Whether a recovery link's token can still set a password: known, not used, not expired. */
export async function canRecover(emu: Emulator, sql: Sql, token: string) {
  if (!token || token.length > 512) return false;
  const rows = await sql.query(
    `SELECT 1 FROM identity_challenges WHERE token_hash = $1 AND used_at IS NULL AND expires_at > $2
        AND purpose = 'RECOVERY'`,
    [hashToken(token), emu.now()],
  );
  return rows.length > 0;
}

/** Closes every open link and code of a member (a block: a reset link mailed before it set a password). */
export async function closeMemberChallenges(emu: Emulator, sql: Sql, memberId: string) {
  await sql.query('UPDATE identity_challenges SET used_at = $2 WHERE member_id = $1 AND used_at IS NULL', [
    memberId,
    emu.now(),
  ]);
}

/**
 * Closes every open recovery link and pending login code of a member: a password changed or reset
 * makes the reset links mailed before it dead (checklist 52, single use), and the logins waiting
 * for an e-mail code, begun with the old password, can no longer finish (checklist 45), whichever
 * way the password was changed.
 */
export async function closeRecoveryLinks(emu: Emulator, sql: Sql, memberId: string) {
  await sql.query(
    `UPDATE identity_challenges SET used_at = $2
      WHERE member_id = $1 AND purpose IN ('RECOVERY', 'EMAIL_VERIFICATION') AND used_at IS NULL`,
    [memberId, emu.now()],
  );
}

export async function closeChallenge(emu: Emulator, sql: Sql, tokenHash: string) {
  await sql.query('UPDATE identity_challenges SET used_at = $2 WHERE token_hash = $1', [
    tokenHash,
    emu.now(),
  ]);
}

// ---- mailbox ----

/** "Sends" an e-mail: it is stored in the development mailbox, never logged with its secrets. */
export async function sendMail(
  emu: Emulator,
  sql: Sql,
  mail: { to: string; subject: string; body: string; code?: string; link?: string },
) {
  await sql.query(
    'INSERT INTO mailbox (id, to_email, subject, body, code, link, created_at) VALUES ($1,$2,$3,$4,$5,$6,$7)',
    [newId(), mail.to, mail.subject, mail.body, mail.code ?? null, mail.link ?? null, emu.now()],
  );
  emu.log(`[emulator] mail to ${mail.to}: ${mail.subject} (read it at ${emu.config.publicUrl}/mailbox)`);
}

/** Expired rows deleted per new row at most: bounded work, still faster than they come. */
const PRUNE_BATCH = 100;
/** The tables that requests without credentials fill, and their keys. */
const PRUNED = { captcha_tokens: 'token_hash', sso_transactions: 'state_hash' } as const;

/**
 * Deletes expired rows of `table`, up to `PRUNE_BATCH`, skipping rows another transaction holds;
 * called before each insert, so that requests anyone may send cannot grow the table for ever.
 */
export async function pruneExpired(emu: Emulator, sql: Sql, table: keyof typeof PRUNED) {
  const key = PRUNED[table];
  await sql.query(
    `DELETE FROM ${table} WHERE ${key} IN (
       SELECT ${key} FROM ${table} WHERE expires_at <= $1 LIMIT $2 FOR UPDATE SKIP LOCKED)`,
    [emu.now(), PRUNE_BATCH],
  );
}

/** Captcha tokens work once within 10 minutes. */
const CAPTCHA_TTL_MS = 10 * 60_000;

/** A new one-time captcha token (the development endpoint's, the hosted login page's). */
export async function newCaptchaToken(emu: Emulator, sql: Sql) {
  const token = newToken('CAP.');
  await pruneExpired(emu, sql, 'captcha_tokens');
  await sql.query('INSERT INTO captcha_tokens (token_hash, expires_at) VALUES ($1, $2)', [
    hashToken(token),
    new Date(emu.now().getTime() + CAPTCHA_TTL_MS),
  ]);
  return token;
}

/** Checks captcha tokens when the setting asks for them: -19971 when missing, -19970 when not issued here. */
export async function checkCaptcha(emu: Emulator, sql: Sql, settings: IdentitySettings, tokens: unknown) {
  if (!settings.captchaRequired) return;
  const values = (Array.isArray(tokens) ? tokens : [])
    .flatMap((t) => (t && typeof t === 'object' ? Object.values(t as Record<string, unknown>) : []))
    .filter((v): v is string => typeof v === 'string' && v.length > 0);
  if (!values.length) throw appError(400, '-19971', 'A captcha token is required');
  for (const v of values) {
    const rows = await sql.query(
      'DELETE FROM captcha_tokens WHERE token_hash = $1 AND expires_at > $2 RETURNING 1',
      [hashToken(v), emu.now()],
    );
    if (rows.length) return;
  }
  throw appError(400, '-19970', 'The captcha token is invalid');
}
