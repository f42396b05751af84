/**
 * The authorization server: the authorize endpoint behind `auth` redirect sessions (hosted login
 * page for `prompt=login`, an immediate answer for `prompt=none` with a session token), answers by
 * redirect (query or fragment) or by `web_message` to the exact allowed origin; PKCE with S256 or
 * S512; the authorization_code grant (with an OpenID ID token for scope `openid`) and the
 * authorized_client grant; token-info, user-info and the ID tokens' key set (`/oauth2/jwks`); and
 * `/oauth2/revoke`, an emulator extension with RFC 7009 semantics (the platform's wire protocol has
 * no revocation endpoint). App grants are in `apps.ts`.
 * @module
 */
import { createHash } from 'node:crypto';
import type { Context, Hono } from 'hono';
import type { Emulator, Identity } from '../../context.ts';
import { hashToken, newId, newToken, safeEqual } from '../../crypto.ts';
import { ApiError, appError } from '../../http/errors.ts';
import { rawRequest } from '../../http/raw.ts';
import { FAMILY, noStore, type Router } from '../../http/router.ts';
import { parseMessage, z } from '../../http/validate.ts';
import { signingKey, signJwt } from '../../signing.ts';
import {
  bareCredential,
  grants,
  invalidGrant,
  issueTokens,
  revokeFamily,
  revokeToken,
} from '../platform/index.ts';
import {
  type AuthRequest,
  authRequestSchema,
  createRedirectSession,
  loadRedirectSession,
  PROMPTS,
} from '../redirects/index.ts';
import {
  allowedOrigins,
  crossSiteRefusal,
  escapeHtml,
  htmlPage,
  invalidOrMissing,
  isAllowedRedirectUri,
  isCrossSitePost,
  isWebOrigin,
  pagePolicy,
  refusalPage,
  type StoredRedirectSession,
} from '../redirects/intents.ts';
import { loginPagePath, trustedCaller } from './auth.ts';
import {
  canVerifyCode,
  getSettings,
  idpConnection,
  idpConnections,
  type MemberRow,
  memberById,
  newCaptchaToken,
  redeemSessionToken,
  ssoLoginPath,
} from './store.ts';

/** A token-info request (wire §5.6). */
const tokenInfoSchema = z.object({ token: z.string().max(4096) });

/** Authorization codes live 10 minutes and work once. */
export const CODE_TTL_MS = 10 * 60 * 1000;
const REFRESH_TTL_MS = 30 * 24 * 3600 * 1000;
const VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;

export type StoredAuth = AuthRequest & { sessionTokenHash?: string };
type Outcome =
  | { code: string }
  | { error: string; error_description: string; rejectedOrigin?: string; metaSiteId?: string };

/**
 * A revocation request (RFC 7009 §2.1), as JSON or as a form; both spellings of the field names.
 * The token type hint is accepted and not needed: refresh and access tokens are both looked up.
 */
const revokeSchema = z.object({
  token: z.string().min(1),
  token_type_hint: z.string().max(64).optional(),
  tokenTypeHint: z.string().max(64).optional(),
  client_id: z.string().max(256).optional(),
  clientId: z.string().max(256).optional(),
});

/**
 * Revokes a token (RFC 7009 §2.1): a refresh token ends its whole family (every refresh token and
 * the access tokens issued from it); an access token is invalidated alone. A token of another
 * client than the one named is left alone, and unknown tokens are ignored: the caller learns nothing.
 * A token given as `Bearer <token>` (an Authorization header passed on as it came) is that token,
 * as it is for token-info and for the header itself: it answered 200 and revoked nothing, so the
 * caller took a token that still worked for a revoked one.
 */
async function revoke(emu: Emulator, msg: z.output<typeof revokeSchema>) {
  const named = [msg.client_id, msg.clientId].filter((id) => id !== undefined);
  await revokeToken(emu, bareCredential(msg.token) ?? '', (clientId) => named.every((id) => id === clientId));
}

/**
 * The parameters an authorization response adds to the redirect URI. A redirect URI whose query
 * names one already would carry it twice (RFC 6749 §3.1: never more than once), and a client
 * reading the first would read the caller's planted value, not the server's.
 */
const RESPONSE_PARAMS = ['code', 'state', 'error', 'error_description'];

/**
 * Where and how the answer of an authorization request goes, or why it cannot go anywhere. A
 * `web_message` answer goes to the redirect URI's origin, or else to the origin of the page that
 * created the session; `allowed` says whether it may carry a code or only an error.
 */
export async function target(emu: Emulator, session: StoredRedirectSession, a: StoredAuth) {
  if (a.redirectUri && !(await isAllowedRedirectUri(emu, emu.db, a.clientId, a.redirectUri)))
    return { refused: 'The redirect URI is not registered for this client.' } as const;
  if (a.redirectUri && RESPONSE_PARAMS.some((p) => new URL(a.redirectUri!).searchParams.has(p)))
    return { refused: `The redirect URI's query may not name ${RESPONSE_PARAMS.join(', ')}.` } as const;
  if (a.responseMode === 'web_message') {
    if (a.redirectUri)
      return { mode: 'web_message', origin: new URL(a.redirectUri).origin, allowed: true } as const;
    if (!session.origin) return { refused: 'The page that asked for this login is unknown.' } as const;
    // Checked again here: a session stored by an older emulator may hold anything (checklist 40).
    if (!isWebOrigin(session.origin))
      return { refused: 'The page that asked for this login has no valid origin.' } as const;
    const allowed = (await allowedOrigins(emu, emu.db, a.clientId)).includes(session.origin);
    return { mode: 'web_message', origin: session.origin, allowed } as const;
  }
  if (!a.redirectUri) return { refused: 'A redirect URI is required for this response mode.' } as const;
  return { mode: a.responseMode, uri: a.redirectUri } as const;
}

/** Sends the outcome: a redirect carrying it, or a page that posts it to the one allowed origin. */
export function deliver(c: Context, t: Awaited<ReturnType<typeof target>>, state: string, outcome: Outcome) {
  if ('refused' in t)
    return htmlPage(c, 'Login link refused', `<p class="error">${escapeHtml(t.refused)}</p>`, 400);
  const payload = { ...outcome, state };
  if (t.mode === 'web_message') {
    const json = (v: unknown) => JSON.stringify(v).replace(/</g, '\\u003c');
    const script = `(window.opener||window.parent).postMessage(${json(payload)},${json(t.origin)});`;
    return c.html(
      `<!doctype html><html><head><meta charset="utf-8"><title>Login</title></head><body><script>${script}</script></body></html>`,
      200,
      {
        // Its one script by hash; only the page that asked may frame this answer (checklist 41).
        'Content-Security-Policy': pagePolicy({ scripts: [script], frameAncestors: t.origin, noForms: true }),
        'Cache-Control': 'no-store',
        'Referrer-Policy': 'no-referrer',
        'X-Content-Type-Options': 'nosniff',
      },
    );
  }
  const params = new URLSearchParams(payload as Record<string, string>).toString();
  const uri = t.uri;
  const url =
    t.mode === 'fragment'
      ? `${uri.split('#')[0]}#${params}`
      : `${uri.split('#')[0]}${uri.includes('?') ? '&' : '?'}${params}`;
  c.header('Cache-Control', 'no-store');
  c.header('Referrer-Policy', 'no-referrer');
  return c.redirect(url, 302);
}

/**
 * Mints a single-use code bound to client, redirect URI and challenge, for the login of `member`
 * at its `loginEpoch` (a logout or password change since voids the code).
 */
export async function mintCode(
  emu: Emulator,
  a: StoredAuth,
  member: { id: string; loginEpoch: number },
  visitorId: string | null,
) {
  const code = newToken('OAC.');
  await emu.db.query(
    `INSERT INTO auth_codes (code_hash, client_id, redirect_uri, code_challenge, code_challenge_method, scope, nonce, member_id, visitor_id, expires_at, login_epoch)
     VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11)`,
    [
      hashToken(code),
      a.clientId,
      a.redirectUri ?? null,
      a.codeChallenge,
      a.codeChallengeMethod,
      a.scope ?? null,
      a.nonce ?? null,
      member.id,
      visitorId,
      new Date(emu.now().getTime() + CODE_TTL_MS),
      member.loginEpoch,
    ],
  );
  return code;
}

/** ID tokens live as long as an hour, as access tokens do at most. */
const ID_TOKEN_TTL_SECONDS = 3600;

/**
 * An OpenID Connect ID token for a member (scope `openid`): RS256, signed with the key published
 * at `/oauth2/jwks`, for the client the code was issued to, carrying the request's nonce.
 */
async function idToken(emu: Emulator, member: MemberRow, clientId: string, nonce: string | null) {
  const iat = Math.floor(emu.now().getTime() / 1000);
  return signJwt(await signingKey(emu, 'oidc'), {
    iss: emu.config.publicUrl,
    sub: member.id,
    aud: clientId,
    iat,
    exp: iat + Math.min(ID_TOKEN_TTL_SECONDS, emu.config.accessTokenTtl),
    ...(nonce ? { nonce } : {}),
    email: member.email,
    email_verified: member.email_verified,
  });
}

/**
 * What `/oauth2/user-info` tells about a member (wire §5.6): the OpenID claims in the platform's
 * camelCase, from the identity profile. Claims the member has no value for are left out.
 */
function userInfo(m: MemberRow) {
  const p = m.profile as Record<string, unknown>;
  const text = (v: unknown) => (typeof v === 'string' && v ? v : undefined);
  const givenName = text(p.firstName);
  const familyName = text(p.lastName);
  const picture = text(p.picture) ?? text((p.picture as { url?: unknown } | undefined)?.url);
  const name = [givenName, familyName].filter(Boolean).join(' ') || text(p.nickname);
  return {
    sub: m.id,
    givenName,
    familyName,
    name,
    email: m.email,
    emailVerified: m.email_verified,
    picture,
    language: text(p.language),
  };
}

export async function authSession(emu: Emulator, id: string | undefined) {
  if (!id) return undefined;
  const s = await loadRedirectSession(emu, id);
  return s?.intent === 'auth' ? s : undefined;
}

const expired = (c: Context) =>
  htmlPage(c, 'Login link expired', '<p class="error">This login link is unknown or has expired.</p>', 400);

/**
 * Where a hosted page's form may be redirected to in the end: browsers check `form-action` on
 * every redirect of a form submission, so `'self'` alone would block the final redirect with the
 * code. Only the redirect URI's origin, and only when the redirect URI is allowed.
 */
export async function formTargets(emu: Emulator, session: StoredRedirectSession): Promise<string[]> {
  const t = await target(emu, session, session.request.authRequest as StoredAuth);
  return !('refused' in t) && t.mode !== 'web_message' ? [new URL(t.uri).origin] : [];
}

/**
 * The hosted login page: log in, register, or ask for a reset e-mail. `signup` is the page as
 * used to sign up (Sign up pressed with no password yet, or a sign-up refused): its password is a
 * `new-password`, so that password managers offer to make one rather than fill a stored one.
 */
async function loginPage(
  c: Context,
  emu: Emulator,
  session: StoredRedirectSession,
  view: { error?: string; notice?: string; stateToken?: string; email?: string; signup?: boolean } = {},
) {
  // A state token no code can verify any more (its wrong codes used up, its code expired) gets no
  // code form that could never succeed: the login starts again, from this session's login form.
  if (view.stateToken && !(await canVerifyCode(emu, emu.db, view.stateToken))) {
    const again = loginPagePath(session.id);
    return htmlPage(
      c,
      'Log in again',
      (view.error ? `<p class="error" role="alert">${escapeHtml(view.error)}</p>` : '') +
        '<p>No code can finish this login any more. Log in again to get a new code.</p>' +
        `<p><a href="${escapeHtml(again)}">Log in again</a></p>`,
    );
  }
  const settings = await getSettings(emu, emu.db);
  let captcha = '';
  if (settings.captchaRequired) {
    const token = await newCaptchaToken(emu, emu.db);
    captcha = `<input type="hidden" name="captcha" value="${escapeHtml(token)}">`;
  }
  const hidden = `<input type="hidden" name="redirect_session_id" value="${escapeHtml(session.id)}">${captcha}`;
  const action = '/oauth2/authorize/submit';
  // The error is the description of the fields it is about, and the page starts on the one to
  // fix: it opened at the top with nothing telling a screen reader or keyboard user where to go.
  const msg =
    (view.error ? `<p class="error" role="alert" id="form-error">${escapeHtml(view.error)}</p>` : '') +
    (view.notice ? `<p role="status">${escapeHtml(view.notice)}</p>` : '');
  const described = view.error ? ' aria-describedby="form-error"' : '';
  const policy = { formTargets: await formTargets(emu, session), error: !!view.error };
  if (view.stateToken)
    return htmlPage(
      c,
      'Verify your e-mail',
      `${msg}<form method="post" action="${action}">${hidden}<input type="hidden" name="state_token" value="${escapeHtml(view.stateToken)}">` +
        `<label>Code from the e-mail<input name="code" inputmode="numeric" autocomplete="one-time-code" required autofocus${view.error ? ' aria-invalid="true"' : ''}${described}></label>` +
        '<button name="action" value="verify">Verify</button> <button name="action" value="resend" formnovalidate>Send a new code</button></form>',
      200,
      policy,
    );
  const email = escapeHtml(view.email ?? '');
  // One link per identity provider connection: SSO that finishes this authorization request.
  const sso = (await idpConnections(emu))
    .map(
      (x) =>
        `<p><a href="${escapeHtml(ssoLoginPath(emu, x.id, session.id))}">Log in with ${escapeHtml(x.name)}</a></p>`,
    )
    .join('');
  // Signing up, the first button (the one Enter presses) is Sign up.
  const start = view.error || view.signup;
  const buttons = view.signup
    ? '<button name="action" value="register">Sign up</button> <button name="action" value="login">Log in</button> '
    : '<button name="action" value="login">Log in</button> <button name="action" value="register">Sign up</button> ';
  return htmlPage(
    c,
    view.signup ? 'Sign up' : 'Log in',
    `${msg}<form method="post" action="${action}">${hidden}` +
      `<label>E-mail<input name="email" type="email" autocomplete="username" value="${email}" required${described}${start && !email ? ' autofocus' : ''}></label>` +
      `<label>Password<input name="password" type="password" autocomplete="${view.signup ? 'new-password' : 'current-password'}"${described}${start && email ? ' autofocus' : ''}></label>` +
      `${buttons}<button name="action" value="forgot" formnovalidate>Forgot password?</button></form>${sso}`,
    200,
    policy,
  );
}

/**
 * The fields of the hosted forms as a refusal names them: a sign-up's short password said only
 * "must have at least 8 characters", of nothing the page named.
 */
const FIELD_WORDS: Record<string, string> = {
  password: 'The password',
  'loginId.email': 'The e-mail address',
  code: 'The code',
};

/**
 * Calls one of the emulator's own identity endpoints in process (all rules apply), for the login
 * page of `clientId`'s redirect session: a session token it gets is bound to that client.
 */
async function internal(
  app: Hono,
  path: string,
  body: unknown,
  clientId: string,
  env: { hostedLoginSession?: string } = {},
) {
  const res = await app.request(
    path,
    { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) },
    { hostedPageClient: clientId, ...env },
  );
  const json = (await res.json()) as any;
  const violation = json?.details?.validationError?.fieldViolations?.[0];
  return res.status === 200
    ? { ok: json }
    : {
        error:
          (violation && `${FIELD_WORDS[violation.field] ?? violation.field} ${violation.description}`) ??
          json?.details?.applicationError?.description ??
          'Something went wrong',
        code: json?.details?.applicationError?.code as string | undefined,
      };
}

export function oauthRoutes(router: Router, emu: Emulator) {
  const app = (router as unknown as { app: Hono }).app;

  // Revocation (checklist 45), an emulator extension: the platform's wire protocol has none.
  // RFC 7009 clients post a form, the platform's clients JSON.
  router.route({
    method: 'POST',
    family: FAMILY.oauth,
    path: '/oauth2/revoke',
    access: 'public',
    body: 'json-or-form',
    schema: revokeSchema,
    async handler({ msg, c }) {
      await revoke(emu, msg);
      noStore(c);
      return {};
    },
  });

  router.route({
    method: 'GET',
    family: FAMILY.none,
    path: '/oauth2/authorize',
    access: 'public',
    async handler({ msg, c }) {
      const q = msg as Record<string, string | undefined>;
      let session = await authSession(emu, q.redirect_session_id);
      if (!q.redirect_session_id) {
        // A plain OAuth authorization request: validate it, keep it as a redirect session.
        const parsed = authRequestSchema.safeParse({
          clientId: q.client_id,
          responseType: q.response_type,
          redirectUri: q.redirect_uri,
          scope: q.scope,
          state: q.state,
          responseMode: q.response_mode,
          codeChallenge: q.code_challenge,
          codeChallengeMethod: q.code_challenge_method,
          nonce: q.nonce,
        });
        if (!parsed.success) return refusalPage(c, 'Invalid login request', invalidOrMissing(parsed.error));
        const none: Identity = { type: 'NONE', siteId: emu.siteId };
        const prompt = PROMPTS.find((p) => p === q.prompt) ?? 'login';
        const created = await createRedirectSession(
          emu,
          { auth: { authRequest: parsed.data, prompt } },
          none,
          undefined,
          { recordEvent: false },
          // Refused (an unknown client): the page says so. Storage that fails is not that: it
          // answers as any call the storage fails does (503), not "Unknown client" and a 400.
        ).catch((e: unknown) => {
          if (e instanceof ApiError) return undefined;
          throw e;
        });
        if (!created)
          return htmlPage(c, 'Invalid login request', '<p class="error">Unknown client.</p>', 400);
        session = await authSession(emu, created.redirectSession.id);
      }
      if (!session) return expired(c);
      const a = session.request.authRequest as StoredAuth;
      const t = await target(emu, session, a);
      if ('refused' in t)
        return deliver(c, t, a.state, { error: 'invalid_request', error_description: String(t.refused) });
      if (t.mode === 'web_message' && !t.allowed)
        // With the fields the platform's own answer carries (wix/skills#659).
        return deliver(c, t, a.state, {
          error: 'redirect_uri_not_allowed',
          error_description: `${t.origin} is not an allowed origin of this client`,
          rejectedOrigin: t.origin,
          metaSiteId: emu.siteId,
        });
      if (session.request.prompt === 'none') {
        // A login ended since (a logout, a password change, a block) is no login: the answer is
        // login_required, not a code that only the token endpoint would refuse.
        const login = a.sessionTokenHash
          ? await emu.db.tx(async (sql) => {
              const redeemed = await redeemSessionToken(emu, sql, a.sessionTokenHash!, a.clientId);
              const member = redeemed && (await memberById(sql, redeemed.member_id));
              return member?.status === 'ACTIVE' && member.login_epoch === redeemed!.login_epoch
                ? redeemed
                : undefined;
            })
          : undefined;
        if (!login)
          return deliver(c, t, a.state, {
            error: 'login_required',
            error_description: 'The member is not logged in',
          });
        const code = await mintCode(
          emu,
          a,
          { id: login.member_id, loginEpoch: login.login_epoch },
          login.visitor_id ?? session.visitorId,
        );
        return deliver(c, t, a.state, { code });
      }
      if (t.mode === 'web_message')
        return deliver(c, t, a.state, {
          error: 'interaction_required',
          error_description: 'web_message answers need prompt=none',
        });
      // A social login (`authRequest.idp`, wire §5.2) goes straight to that provider, which
      // finishes this request; an id the site has no connection for gets the page, saying so.
      if (a.idp) {
        const conn = await idpConnection(emu.db, a.idp);
        if (conn) return c.redirect(ssoLoginPath(emu, conn.id, session.id), 302);
        return loginPage(c, emu, session, { error: 'This site has no such identity provider; log in here.' });
      }
      return loginPage(c, emu, session);
    },
  });

  // The hosted page's form posts (urlencoded, so not a JSON route); small, capped as they stream
  // (`router.page`).
  router.page('POST', '/oauth2/authorize/submit', async (c) => {
    // The form posts from the login page itself; another site's post (login CSRF, sign-ups and
    // reset e-mails in a visitor's name) is refused before anything is looked up or done.
    if (isCrossSitePost(emu, c)) return crossSiteRefusal(c);
    const form = (await c.req.parseBody()) as Record<string, string>;
    const session = await authSession(emu, form.redirect_session_id);
    if (!session) return expired(c);
    const a = session.request.authRequest as StoredAuth;
    const t = await target(emu, session, a);
    if ('refused' in t || t.mode === 'web_message')
      return deliver(c, t, a.state, { error: 'invalid_request', error_description: 'Not allowed' });
    const captchaTokens = form.captcha ? [{ Recaptcha: form.captcha }] : undefined;
    const email = String(form.email ?? '');
    const finish = async (r: any) => {
      // A right code of a verification that is no login (`verification.start`'s id posted as the
      // state token) verifies the address and carries no session token: nothing to finish here,
      // the member logs in (it made a 500 out of an undefined token's hash).
      if (r.state === 'SUCCESS' && typeof r.sessionToken !== 'string')
        return loginPage(c, emu, session, { notice: 'Your e-mail address is verified. Log in to continue.' });
      if (r.state === 'SUCCESS') {
        const login = await emu.db.tx((sql) =>
          redeemSessionToken(emu, sql, hashToken(r.sessionToken), a.clientId),
        );
        if (!login) return loginPage(c, emu, session, { error: 'The login expired; try again.' });
        const code = await mintCode(
          emu,
          a,
          { id: login.member_id, loginEpoch: login.login_epoch },
          login.visitor_id ?? session.visitorId,
        );
        return deliver(c, t, a.state, { code });
      }
      if (r.state === 'REQUIRE_EMAIL_VERIFICATION')
        return loginPage(c, emu, session, {
          stateToken: r.stateToken,
          notice: 'We sent a code to your e-mail.',
        });
      if (r.state === 'REQUIRE_OWNER_APPROVAL')
        return loginPage(c, emu, session, {
          notice: 'Your account is waiting for the site owner’s approval.',
        });
      return loginPage(c, emu, session, { error: 'Unexpected answer; try again.' });
    };
    switch (form.action) {
      case 'login':
      case 'register': {
        const signup = form.action === 'register';
        // Sign up pressed before a password was typed: the sign-up form, whose password field a
        // password manager offers to fill with a new one (the login form's is the current one).
        if (signup && !form.password)
          return loginPage(c, emu, session, {
            notice: 'Choose a password for your new account.',
            email,
            signup,
          });
        const path = `/_api/iam/authentication/v2/${form.action}`;
        const r = await internal(
          app,
          path,
          {
            loginId: { email },
            password: String(form.password ?? ''),
            captchaTokens,
          },
          a.clientId,
        );
        if ('error' in r) return loginPage(c, emu, session, { error: r.error, email, signup });
        return finish(r.ok);
      }
      case 'verify': {
        const r = await internal(
          app,
          '/_api/iam/verification/v1/auth/verify',
          {
            code: String(form.code ?? ''),
            stateToken: String(form.state_token ?? ''),
          },
          a.clientId,
        );
        if ('error' in r)
          return loginPage(c, emu, session, { error: r.error, stateToken: String(form.state_token ?? '') });
        return finish(r.ok);
      }
      case 'resend': {
        const stateToken = String(form.state_token ?? '');
        const r = await internal(app, '/_api/iam/verification/v1/auth/resend', { stateToken }, a.clientId);
        // A refused resend (no more codes, an expired login) sent nothing: say why, not that it did.
        if ('error' in r) return loginPage(c, emu, session, { error: r.error, stateToken });
        return loginPage(c, emu, session, { stateToken, notice: 'We sent a new code.' });
      }
      case 'forgot': {
        // Nothing typed is no address a link could go to: the page says so, not that one was sent.
        if (!email.trim())
          return loginPage(c, emu, session, {
            error: 'Type your e-mail address, then choose Forgot password.',
          });
        // The reset page links back to this login page, not to the redirect URI: without a code
        // and state there, the site's callback saw a broken authorization response.
        await internal(
          app,
          '/_api/iam/recovery/v1/send-email',
          { email, redirect: { clientId: a.clientId } },
          a.clientId,
          { hostedLoginSession: session.id },
        );
        return loginPage(c, emu, session, {
          notice: 'If an account uses this e-mail, we sent it a link to reset the password.',
          email,
        });
      }
      default:
        return loginPage(c, emu, session, { error: 'Choose log in, sign up or forgot password.' });
    }
  });

  grants.set('authorization_code', async (emu, body) => {
    const { clientId, code, codeVerifier, redirectUri } = body;
    if (typeof code !== 'string' || !code) throw appError(400, 'invalid_request', 'code is required');
    if (typeof codeVerifier !== 'string' || !VERIFIER.test(codeVerifier))
      throw appError(400, 'invalid_request', 'codeVerifier must be 43 to 128 unreserved characters');
    const result = await emu.db.tx(async (sql) => {
      const rows = await sql.query('SELECT * FROM auth_codes WHERE code_hash = $1 FOR UPDATE', [
        hashToken(code),
      ]);
      const row = rows[0];
      if (!row) return { error: 'The authorization code is invalid' };
      if (row.used_at) {
        // Replay: whatever the code produced is revoked too (checklist 36).
        if (row.family_id) await revokeFamily(emu, sql, row.family_id);
        return { error: 'The authorization code was already used' };
      }
      if (new Date(row.expires_at) <= emu.now()) return { error: 'The authorization code has expired' };
      // Any redemption spends the code, a refused one too: a wrong verifier, client or redirect URI
      // gets no second try (the code's own client starts the login again).
      const familyId = newId();
      await sql.query('UPDATE auth_codes SET used_at = $2, family_id = $3 WHERE code_hash = $1', [
        row.code_hash,
        emu.now(),
        familyId,
      ]);
      if (row.client_id !== clientId) return { error: 'The authorization code was issued to another client' };
      if ((row.redirect_uri ?? null) !== (typeof redirectUri === 'string' ? redirectUri : null))
        return { error: 'The redirect URI differs from the authorization request' };
      const digest = row.code_challenge_method === 'S512' ? 'sha512' : 'sha256';
      const challenge = createHash(digest).update(codeVerifier, 'ascii').digest('base64url');
      if (!safeEqual(challenge, row.code_challenge)) return { error: 'The code verifier does not match' };
      // Shared lock: a concurrent block waits for these tokens and then revokes them.
      const member = await memberById(sql, row.member_id, 'share');
      if (member?.status !== 'ACTIVE') return { error: 'The member cannot log in' };
      if (member.login_epoch !== row.login_epoch)
        return { error: 'The login ended (a logout or a password change) before the code was used' };
      const tokens = await issueTokens(emu, sql, {
        clientId: row.client_id,
        subjectType: 'MEMBER',
        memberId: row.member_id,
        visitorId: row.visitor_id ?? newId(),
        family: { id: familyId, expiresAt: new Date(emu.now().getTime() + REFRESH_TTL_MS) },
      });
      const openid = String(row.scope ?? '')
        .split(' ')
        .includes('openid');
      return {
        tokens,
        idFor: openid
          ? { member, clientId: row.client_id as string, nonce: row.nonce as string | null }
          : undefined,
      };
    });
    if ('error' in result) throw invalidGrant(result.error!);
    // Signed after the commit: the signing key is read (or made) outside the grant's transaction.
    const { tokens, idFor } = result;
    return idFor
      ? { ...tokens, id_token: await idToken(emu, idFor.member, idFor.clientId, idFor.nonce) }
      : tokens;
  });

  grants.set('authorized_client', async (emu, body, { headers }) => {
    const { visitor } = await trustedCaller(emu, headers.get('authorization') ?? undefined);
    const memberId = body.memberId;
    if (typeof memberId !== 'string' || !memberId)
      throw appError(400, 'invalid_request', 'member_id is required');
    const clientId = visitor?.clientId;
    if (!clientId)
      throw appError(400, 'invalid_request', 'The Authorization header needs a visitor token first');
    const result = await emu.db.tx(async (sql) => {
      const member = await memberById(sql, memberId, 'share');
      if (member?.status !== 'ACTIVE') return { error: 'No active member has this id' };
      if (typeof body.sessionToken === 'string') {
        const login = await redeemSessionToken(emu, sql, hashToken(body.sessionToken), clientId);
        if (!login || login.member_id !== memberId || login.login_epoch !== member.login_epoch)
          return { error: 'The session token is invalid' };
      }
      return {
        tokens: await issueTokens(emu, sql, {
          clientId,
          subjectType: 'MEMBER',
          memberId,
          visitorId: visitor?.visitorId ?? newId(),
        }),
      };
    });
    if ('error' in result) throw invalidGrant(result.error!);
    return result.tokens;
  });

  router.route({
    method: 'GET',
    family: FAMILY.oauth,
    path: '/oauth2/user-info',
    access: 'anyone',
    async handler({ identity, c }) {
      noStore(c);
      if (identity.type !== 'MEMBER' || !identity.memberId)
        throw appError(403, 'PERMISSION_DENIED', 'user-info needs the access token of a member');
      const member = await memberById(emu.db, identity.memberId);
      // A member deleted since the token was issued: the token speaks for no one any more.
      if (!member) throw appError(401, 'UNAUTHENTICATED', 'The access token is invalid or expired');
      return userInfo(member);
    },
  });

  router.route({
    method: 'GET',
    family: FAMILY.oauth,
    path: '/oauth2/jwks',
    access: 'public',
    async handler() {
      const key = await signingKey(emu, 'oidc');
      return { keys: [key.publicJwk] };
    },
  });

  router.route({
    method: 'POST',
    family: FAMILY.oauth,
    path: '/oauth2/token-info',
    access: 'public',
    schema: z.record(z.string(), z.unknown()),
    async handler({ msg, c }) {
      noStore(c);
      // The generated oauth module sends a raw-HTTP envelope (wire §5.6) but reads a plain answer:
      // its `tokenInfo()` has no bytes transform on the response, unlike `token()`.
      return tokenInfo(rawRequest(msg) ?? msg);
    },
  });

  async function tokenInfo(message: Record<string, unknown>) {
    const msg = parseMessage(tokenInfoSchema, message);
    // `Bearer <token>` (an Authorization header passed on as it came) is that token, as it is
    // when it authenticates a call: it was "inactive" while the same header was let in.
    const hash = hashToken(bareCredential(msg.token) ?? '');
    const rows = await emu.db.query('SELECT * FROM access_tokens WHERE token_hash = $1 AND expires_at > $2', [
      hash,
      emu.now(),
    ]);
    const t = rows[0];
    const secs = (d: Date | string) => Math.floor(new Date(d).getTime() / 1000);
    if (t)
      return {
        active: true,
        subjectType: t.subject_type,
        subjectId: t.member_id ?? t.app_id ?? t.visitor_id,
        exp: secs(t.expires_at),
        iat: secs(t.created_at),
        clientId: t.client_id,
        siteId: emu.siteId,
        // AppStrategy.elevated() checks that an app token names its instance (wire §6).
        ...(t.instance_id ? { instanceId: t.instance_id } : {}),
      };
    const keys = await emu.db.query('SELECT user_id, site_id FROM api_keys WHERE key_hash = $1', [hash]);
    if (keys[0])
      return { active: true, subjectType: 'USER', subjectId: keys[0].user_id, siteId: keys[0].site_id };
    return { active: false, subjectType: 'UNKNOWN' };
  }
}
