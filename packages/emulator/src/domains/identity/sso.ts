/**
 * Single sign-on with an external identity provider (spec 7, wire §1.3 and §5.5): the site's IdP
 * connections, the SSO login that sends the browser to the provider, the callback that signs the
 * member on, and login-with-token-params.
 *
 * The emulator brings one provider to connect to: a fake IdP page (`/idp/{connectionId}/authorize`)
 * that "authenticates" whatever e-mail is typed and signs an ID token for it (compact JWS, HS256,
 * with a key derived from the emulator's secret per connection). Its tokens live 5 minutes, work
 * once (`jti`), and a token made for a callback is bound to that SSO state (`sh`, the state's
 * SHA-256), so it cannot be replayed through login-with-token-params or another callback.
 * @module
 */
import { createHmac } from 'node:crypto';
import type { Context } from 'hono';
import type { Emulator, Identity } from '../../context.ts';
import { derive, hashToken, newId, newToken, safeEqual } from '../../crypto.ts';
import type { Sql } from '../../db/index.ts';
import { type ApiError, appError, invalid, notFound } from '../../http/errors.ts';
import type { RawAnswer } from '../../http/raw.ts';
import { FAMILY, noStore, type Router } from '../../http/router.ts';
import { z } from '../../http/validate.ts';
import { revokeMemberTokens } from '../platform/index.ts';
import { crossSiteRefusal, escapeHtml, htmlPage, isCrossSitePost } from '../redirects/intents.ts';
import { stateResponse } from './auth.ts';
import { authSession, deliver, formTargets, mintCode, type StoredAuth, target } from './oauth.ts';
import {
  closeMemberChallenges,
  emailKey,
  getSettings,
  IDENTITY_EVENTS,
  type IdpConnectionRow,
  identityOf,
  idpConnection,
  idpConnections,
  type MemberRow,
  memberByEmail,
  pruneExpired,
  REASONS_VERIFIED,
  stateOf,
} from './store.ts';

/** An SSO login (its state) must come back through the callback within 10 minutes, once. */
export const SSO_TTL_MS = 10 * 60 * 1000;
/** Lifetime of the fake IdP's ID tokens. */
export const ID_TOKEN_TTL_SECONDS = 5 * 60;

/** The claims of a fake-IdP ID token. */
export interface IdTokenClaims {
  iss: string;
  aud: string;
  sub: string;
  email: string;
  email_verified: true;
  name?: string;
  iat: number;
  exp: number;
  jti: string;
  /** SHA-256 of the SSO state the token answers (callback tokens only). */
  sh?: string;
}

const issuer = (connectionId: string) => `urn:shopkit-emulator:idp:${connectionId}`;
const signingKey = (emu: Emulator, connectionId: string) =>
  derive(emu.secret, `idp-connection:${connectionId}`);
const b64json = (v: object) => Buffer.from(JSON.stringify(v)).toString('base64url');
const seconds = (d: Date) => Math.floor(d.getTime() / 1000);
const mac = (emu: Emulator, connectionId: string, input: string) =>
  createHmac('sha256', signingKey(emu, connectionId)).update(input).digest('base64url');

/** The fake IdP's stable user id for an e-mail at a connection. */
const idpUserId = (emu: Emulator, connectionId: string, email: string) =>
  derive(emu.secret, `idp-user:${connectionId}:${emailKey(email)}`)
    .toString('hex')
    .slice(0, 32);

/** Signs an ID token of the fake IdP for a person (bound to an SSO state when `stateHash` is given). */
export function signIdToken(
  emu: Emulator,
  connectionId: string,
  person: { email: string; name?: string },
  stateHash?: string,
) {
  const now = seconds(emu.now());
  const claims: IdTokenClaims = {
    iss: issuer(connectionId),
    aud: emu.siteId,
    sub: idpUserId(emu, connectionId, person.email),
    email: person.email.trim(),
    email_verified: true,
    ...(person.name ? { name: person.name } : {}),
    iat: now,
    exp: now + ID_TOKEN_TTL_SECONDS,
    jti: newToken(),
    ...(stateHash ? { sh: stateHash } : {}),
  };
  const input = `${b64json({ alg: 'HS256', typ: 'JWT', kid: connectionId })}.${b64json(claims)}`;
  return `${input}.${mac(emu, connectionId, input)}`;
}

const decode = (part: string): any => {
  try {
    return JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
};

/**
 * Reads an ID token of a connection: signature (constant time, canonical encoding), algorithm,
 * key id, issuer, audience, lifetime and state binding. `undefined` when anything is off.
 */
export function readIdToken(
  emu: Emulator,
  connectionId: string,
  token: string,
  stateHash: string | undefined,
): IdTokenClaims | undefined {
  const parts = token.split('.');
  if (parts.length !== 3 || token.length > 8192) return undefined;
  const [head, body, sig] = parts as [string, string, string];
  if (!safeEqual(sig, mac(emu, connectionId, `${head}.${body}`))) return undefined;
  const header = decode(head);
  const c = decode(body) as Partial<IdTokenClaims> | undefined;
  if (header?.alg !== 'HS256' || header.kid !== connectionId || !c) return undefined;
  const now = seconds(emu.now());
  if (c.iss !== issuer(connectionId) || c.aud !== emu.siteId) return undefined;
  if (typeof c.exp !== 'number' || c.exp <= now || typeof c.iat !== 'number' || c.iat > now + 60)
    return undefined;
  if (typeof c.sub !== 'string' || typeof c.email !== 'string' || typeof c.jti !== 'string') return undefined;
  if (c.sh !== stateHash) return undefined;
  return c as IdTokenClaims;
}

/** Marks a token's `jti` as used; false when it was used before (replay). */
async function spend(emu: Emulator, sql: Sql, claims: IdTokenClaims) {
  await sql.query('DELETE FROM sso_used_tokens WHERE expires_at < $1', [emu.now()]);
  const rows = await sql.query(
    'INSERT INTO sso_used_tokens (jti_hash, expires_at) VALUES ($1, $2) ON CONFLICT DO NOTHING RETURNING 1',
    [hashToken(claims.jti), new Date(claims.exp * 1000)],
  );
  return rows.length === 1;
}

const connectionNotFound = () =>
  notFound('IDP_CONNECTION_NOT_FOUND', 'No identity provider connection has this id');
const invalidToken = (description: string) => appError(400, 'INVALID_TOKEN_PARAMS', description);

/**
 * Signs a person vouched for by the IdP on: the member linked to that IdP user, else the member
 * with that e-mail (linked now; the provider verified the e-mail), else a new member. Blocked and
 * deleted members are refused.
 */
async function signOnFromIdp(
  emu: Emulator,
  sql: Sql,
  connectionId: string,
  claims: IdTokenClaims,
): Promise<{ member: MemberRow } | { error: ApiError }> {
  const link = JSON.stringify([{ idpConnection: { idpConnectionId: connectionId, idpUserId: claims.sub } }]);
  const now = emu.now();
  const linked = await sql.query<MemberRow>(
    'SELECT * FROM members WHERE connections @> $1::jsonb ORDER BY created_at LIMIT 1 FOR UPDATE',
    [link],
  );
  let m = linked[0] ?? (await memberByEmail(sql, claims.email, true));
  if (!m) {
    const settings = await getSettings(emu, sql);
    const reasons = settings.ownerApprovalRequired ? ['PENDING_ADMIN_APPROVAL_REQUIRED'] : [];
    const rows = await sql.query<MemberRow>(
      `INSERT INTO members (id, email, email_lower, status, status_reasons, email_verified, profile, connections, created_at, updated_at)
       VALUES (gen_random_uuid()::text, $1, $2, $3, $4, true, $5, $6, $7, $7)
       ON CONFLICT (email_lower) DO NOTHING RETURNING *`,
      [
        claims.email,
        emailKey(claims.email),
        reasons.length ? 'PENDING' : 'ACTIVE',
        JSON.stringify(reasons),
        JSON.stringify(claims.name ? { nickname: claims.name } : {}),
        link,
        now,
      ],
    );
    if (rows[0]) {
      await emu.recordEvent(sql, IDENTITY_EVENTS.created, rows[0].id, identityOf(rows[0]));
      return { member: rows[0] };
    }
    // Registered meanwhile under the same e-mail: link that member.
    m = (await memberByEmail(sql, claims.email, true))!;
  }
  if (m.status === 'BLOCKED' || m.status === 'DELETED')
    return { error: appError(403, 'MEMBER_BLOCKED', 'This member cannot log in') };
  // A member found by an e-mail it never proved may not be its owner's: someone else may have
  // registered the address first, with a password of their own, waiting for the owner to sign on
  // ("pre-account hijacking"). The provider proves the address: the password set without that
  // proof, and every session and pending login it opened, end with the link.
  const unproven = !linked[0] && !m.email_verified;
  if (unproven) {
    await revokeMemberTokens(emu, sql, m.id);
    await closeMemberChallenges(emu, sql, m.id);
  }
  const reasons = REASONS_VERIFIED;
  const rows = await sql.query<MemberRow>(
    `UPDATE members SET email_verified = true, status_reasons = ${reasons},
       password_hash = CASE WHEN $4 THEN NULL ELSE password_hash END,
       status = CASE WHEN status = 'PENDING' AND jsonb_array_length(${reasons}) = 0 THEN 'ACTIVE' ELSE status END,
       connections = CASE WHEN connections @> $2::jsonb THEN connections ELSE connections || $2::jsonb END,
       revision = revision + 1, updated_at = $3
     WHERE id = $1 RETURNING *`,
    [m.id, link, now, unproven],
  );
  return { member: rows[0]! };
}

interface SsoTransaction {
  state_hash: string;
  connection_id: string;
  redirect_session_id: string | null;
  client_id: string | null;
  visitor_id: string | null;
  custom_payload: string | null;
  expires_at: Date | string;
  used_at: Date | string | null;
}

async function openTransaction(emu: Emulator, sql: Sql, state: string, lock = false) {
  const rows = await sql.query<SsoTransaction>(
    `SELECT * FROM sso_transactions WHERE state_hash = $1${lock ? ' FOR UPDATE' : ''}`,
    [hashToken(state)],
  );
  const tx = rows[0];
  if (!tx || tx.used_at || new Date(tx.expires_at) <= emu.now()) return undefined;
  return tx;
}

interface CallbackOutcome {
  tx?: SsoTransaction;
  error?: ApiError;
  member?: MemberRow;
  response?: Record<string, unknown>;
}

/** A browser navigation (as opposed to an API call through `fetch`). */
const navigating = (c: Context) =>
  c.req.header('sec-fetch-mode') === 'navigate' || /\btext\/html\b/.test(c.req.header('accept') ?? '');

const view = (emu: Emulator, x: IdpConnectionRow) => ({
  id: x.id,
  name: x.name,
  tenantId: emu.siteId,
  tenantType: 'SITE',
  issuer: issuer(x.id),
  loginUrl: `${emu.config.publicUrl}/_api/iam/authentication/v1/sso/login/${encodeURIComponent(emu.siteId)}/${encodeURIComponent(x.id)}`,
  createdDate: new Date(x.created_at).toISOString(),
});

export function ssoRoutes(router: Router, emu: Emulator) {
  const A = FAMILY.authentication;

  router.route({
    method: 'GET',
    family: A,
    path: '/v1/sso/login/{tenantId}/{idpConnectionId}',
    access: 'public',
    schema: z.object({
      tenantId: z.string().max(200),
      idpConnectionId: z.string().max(200),
      customPayload: z.string().max(4096).optional(),
      sessionId: z.string().max(200).optional(),
      encryptionKey: z.string().max(1024).optional(),
      visitorId: z.string().max(200).optional(),
      bsi: z.string().max(1024).optional(),
      tenantType: z.enum(['ACCOUNT', 'SITE', 'ROOT']).optional(),
    }),
    async handler({ msg, identity, c }) {
      if ((msg.tenantType ?? 'SITE') !== 'SITE' || msg.tenantId !== emu.siteId)
        throw notFound('TENANT_NOT_FOUND', 'No site has this tenant id');
      const conn = await idpConnection(emu.db, msg.idpConnectionId);
      if (!conn) throw connectionNotFound();
      // The visitor comes from the caller's token or the login session, never from the query.
      let clientId = identity.clientId ?? null;
      let visitorId = identity.visitorId ?? null;
      if (msg.sessionId) {
        const session = await authSession(emu, msg.sessionId);
        if (!session)
          throw invalid([
            {
              field: 'sessionId',
              description: 'is not a login (auth) redirect session',
              violatedRule: 'VALIDATION',
            },
          ]);
        clientId = session.clientId;
        visitorId = session.visitorId ?? visitorId;
      }
      const state = newToken('SSO.');
      await pruneExpired(emu, emu.db, 'sso_transactions');
      await emu.db.query(
        `INSERT INTO sso_transactions (state_hash, connection_id, redirect_session_id, client_id, visitor_id, custom_payload, expires_at, created_at)
         VALUES ($1,$2,$3,$4,$5,$6,$7,$8)`,
        [
          hashToken(state),
          conn.id,
          msg.sessionId ?? null,
          clientId,
          visitorId,
          msg.customPayload ?? null,
          new Date(emu.now().getTime() + SSO_TTL_MS),
          emu.now(),
        ],
      );
      const url = `${emu.config.publicUrl}/idp/${encodeURIComponent(conn.id)}/authorize?${new URLSearchParams({ state })}`;
      c.header('Cache-Control', 'no-store');
      c.header('Referrer-Policy', 'no-referrer');
      if (navigating(c)) return c.redirect(url, 302);
      // An API caller gets the raw-HTTP answer, as the platform's logout does (wire §5.5).
      return { body: '', statusCode: 302, headers: [{ key: 'Location', value: url }] } satisfies RawAnswer;
    },
  });

  router.route({
    method: 'GET',
    family: A,
    path: '/v1/callback',
    access: 'public',
    schema: z.object({ state: z.string().min(1).max(512), sessionToken: z.string().min(1).max(8192) }),
    async handler({ msg, c }) {
      // The JSON answer carries a session token (checklist 42); no answer here is worth caching.
      noStore(c);
      const outcome = await emu.db.tx(async (sql): Promise<CallbackOutcome> => {
        const tx = await openTransaction(emu, sql, msg.state, true);
        if (!tx)
          return {
            error: appError(400, 'INVALID_SSO_STATE', 'The sign-in state is unknown, used or expired'),
          };
        // One try per state, whatever happens next.
        await sql.query('UPDATE sso_transactions SET used_at = $2 WHERE state_hash = $1', [
          tx.state_hash,
          emu.now(),
        ]);
        const claims = readIdToken(emu, tx.connection_id, msg.sessionToken, tx.state_hash);
        if (!claims || !(await spend(emu, sql, claims)))
          return {
            tx,
            error: invalidToken(
              'The identity provider’s token is invalid, used, expired or for another login',
            ),
          };
        const signed = await signOnFromIdp(emu, sql, tx.connection_id, claims);
        if ('error' in signed) return { tx, error: signed.error };
        if (tx.redirect_session_id) return { tx, member: signed.member };
        const caller: Identity = {
          type: 'NONE',
          siteId: emu.siteId,
          clientId: tx.client_id ?? undefined,
          visitorId: tx.visitor_id ?? undefined,
        };
        const response = await stateResponse(emu, sql, signed.member, caller);
        if (tx.custom_payload !== null)
          response.additionalData = { customPayload: { strValue: tx.custom_payload } };
        return { tx, response };
      });
      const session = outcome.tx?.redirect_session_id
        ? await authSession(emu, outcome.tx.redirect_session_id)
        : undefined;
      if (!session) {
        if (outcome.error) throw outcome.error;
        if (!outcome.response)
          return htmlPage(
            c,
            'Login link expired',
            '<p class="error">This login is unknown or has expired.</p>',
            400,
          );
        return outcome.response;
      }
      // The SSO finishes an authorization request: the answer goes where the authorize endpoint's would.
      const a = session.request.authRequest as StoredAuth;
      const t = await target(emu, session, a);
      if ('refused' in t || (t.mode === 'web_message' && !t.allowed))
        return deliver(c, t, a.state, { error: 'invalid_request', error_description: 'Not allowed' });
      if (outcome.error)
        return deliver(c, t, a.state, { error: 'access_denied', error_description: outcome.error.message });
      const m = outcome.member!;
      if (stateOf(m) !== 'SUCCESS')
        return deliver(c, t, a.state, {
          error: 'access_denied',
          error_description: 'The account is waiting for the site owner’s approval',
        });
      const code = await mintCode(
        emu,
        a,
        { id: m.id, loginEpoch: m.login_epoch },
        outcome.tx!.visitor_id ?? session.visitorId,
      );
      return deliver(c, t, a.state, { code });
    },
  });

  router.route({
    method: 'POST',
    family: A,
    path: '/v1/sso/login-with-token-params',
    access: 'caller',
    schema: z.object({
      idpConnectionId: z.string().min(1).max(200),
      tokenParams: z.record(z.string().max(100), z.string().max(8192)),
    }),
    async handler({ msg, identity, c }) {
      noStore(c);
      const conn = await idpConnection(emu.db, msg.idpConnectionId);
      if (!conn) throw connectionNotFound();
      const token = msg.tokenParams.id_token ?? msg.tokenParams.idToken;
      const claims = token ? readIdToken(emu, conn.id, token, undefined) : undefined;
      if (!claims)
        throw invalidToken('tokenParams.id_token is not a valid, unexpired token of this identity provider');
      return emu.db.tx(async (sql) => {
        if (!(await spend(emu, sql, claims)))
          throw invalidToken('This identity provider token was already used');
        const signed = await signOnFromIdp(emu, sql, conn.id, claims);
        if ('error' in signed) throw signed.error;
        return stateResponse(emu, sql, signed.member, identity);
      });
    },
  });

  // ---- the site's connections (owner, API key) ----

  router.route({
    method: 'POST',
    family: FAMILY.none,
    path: '/_api/emulator/v1/idp-connections',
    access: 'elevated',
    schema: z.object({ name: z.string().trim().min(1).max(200) }),
    async handler({ msg }) {
      const rows = await emu.db.query<IdpConnectionRow>(
        'INSERT INTO idp_connections (id, name, created_at) VALUES ($1, $2, $3) RETURNING *',
        [newId(), msg.name, emu.now()],
      );
      return { idpConnection: view(emu, rows[0]!) };
    },
  });

  router.route({
    method: 'GET',
    family: FAMILY.none,
    path: '/_api/emulator/v1/idp-connections',
    access: 'elevated',
    handler: async () => ({ idpConnections: (await idpConnections(emu)).map((x) => view(emu, x)) }),
  });

  // The provider's own token endpoint, for apps that authenticated the person with it themselves.
  router.route({
    method: 'POST',
    family: FAMILY.none,
    path: '/_api/emulator/v1/idp-connections/{id}/id-tokens',
    access: 'elevated',
    schema: z.object({
      id: z.string().max(200),
      email: z.string().trim().max(254).pipe(z.email()),
      name: z.string().max(200).optional(),
    }),
    async handler({ msg, c }) {
      // A token that signs its person on: never kept by a cache (checklist 42).
      noStore(c);
      const conn = await idpConnection(emu.db, msg.id);
      if (!conn) throw connectionNotFound();
      return { idToken: signIdToken(emu, conn.id, msg), expiresIn: ID_TOKEN_TTL_SECONDS };
    },
  });

  // ---- the fake identity provider's login page ----

  /** The provider's form; its submission may end at the login session's redirect URI. */
  const idpPage = async (
    c: Context,
    conn: IdpConnectionRow,
    tx: SsoTransaction,
    state: string,
    error?: string,
    email = '',
    name = '',
  ) => {
    const session = tx.redirect_session_id ? await authSession(emu, tx.redirect_session_id) : undefined;
    return htmlPage(
      c,
      `Sign in with ${conn.name}`,
      '<p>This identity provider is emulated: it trusts the e-mail address you type.</p>' +
        (error ? `<p class="error" role="alert" id="form-error">${escapeHtml(error)}</p>` : '') +
        `<form method="post" action="/idp/${escapeHtml(encodeURIComponent(conn.id))}/authorize">` +
        `<input type="hidden" name="state" value="${escapeHtml(state)}">` +
        `<label>E-mail<input name="email" type="email" autocomplete="username" value="${escapeHtml(email)}" required` +
        `${error ? ' aria-invalid="true" aria-describedby="form-error" autofocus' : ''}></label>` +
        // The name typed is kept when the page is shown again (it was lost with a refused address).
        `<label>Name<input name="name" autocomplete="name" value="${escapeHtml(name)}"></label>` +
        '<button>Continue</button></form>',
      200,
      { formTargets: session ? await formTargets(emu, session) : [], error: !!error },
    );
  };
  const expired = (c: Context) =>
    htmlPage(
      c,
      'Sign-in link expired',
      '<p class="error">This sign-in link is unknown, used or expired.</p>',
      400,
    );

  router.page('GET', '/idp/:id/authorize', async (c) => {
    const conn = await idpConnection(emu.db, c.req.param('id') ?? '');
    const state = c.req.query('state') ?? '';
    const tx = conn && state.length <= 512 ? await openTransaction(emu, emu.db, state) : undefined;
    if (!conn || tx?.connection_id !== conn.id) return expired(c);
    return idpPage(c, conn, tx, state);
  });

  router.page('POST', '/idp/:id/authorize', async (c) => {
    if (isCrossSitePost(emu, c)) return crossSiteRefusal(c);
    const form = (await c.req.parseBody()) as Record<string, string>;
    const state = String(form.state ?? '');
    const conn = await idpConnection(emu.db, c.req.param('id') ?? '');
    const tx = conn && state.length <= 512 ? await openTransaction(emu, emu.db, state) : undefined;
    if (!conn || tx?.connection_id !== conn.id) return expired(c);
    const email = String(form.email ?? '').trim();
    const name =
      String(form.name ?? '')
        .trim()
        .slice(0, 200) || undefined;
    if (!z.email().max(254).safeParse(email).success)
      return idpPage(c, conn, tx, state, 'Type an e-mail address, such as name@example.com.', email, name);
    const idToken = signIdToken(emu, conn.id, { email, name }, tx.state_hash);
    // Back to the platform's callback, built from configuration (never from the request).
    const back = `${emu.config.publicUrl}/_api/iam/authentication/v1/callback?${new URLSearchParams({ state, sessionToken: idToken })}`;
    c.header('Cache-Control', 'no-store');
    c.header('Referrer-Policy', 'no-referrer');
    return c.redirect(back, 302);
  });
}
