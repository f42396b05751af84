/**
 * Redirect sessions (wire §5.2): `POST /_api/redirects-api/v1/redirect-session` (custom host
 * `/headless/v1/redirect-session`) stores one intent and answers the hosted URL. The `auth` intent
 * points at the authorize endpoint; every other intent at `/redirect/{id}`, whose page comes from
 * the `intentPages` registry (`intents.ts`).
 * @module
 */
import type { Context } from 'hono';
import type { Domain, Emulator, Identity } from '../../context.ts';
import { hashToken, newId, newToken } from '../../crypto.ts';
import type { Sql } from '../../db/index.ts';
import { invalid } from '../../http/errors.ts';
import { FAMILY, noStore } from '../../http/router.ts';
import { z } from '../../http/validate.ts';
import { revokeMemberTokens } from '../platform/index.ts';
import {
  callbackUrl,
  EXPIRED_LINK,
  escapeHtml,
  htmlPage,
  INTENTS,
  type IntentName,
  intentPages,
  isWebOrigin,
  type StoredRedirectSession,
  unavailablePage,
  webOrigin,
} from './intents.ts';

export const redirectMigrations = [
  {
    id: '0200_redirect_sessions',
    sql: `
      CREATE TABLE redirect_sessions (
        id text PRIMARY KEY,
        intent text NOT NULL,
        doc jsonb NOT NULL,
        session_token_hash text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      );
    `,
  },
  {
    // Sessions expire after their last use (AUTH_SESSION_TTL_MS, REDIRECT_SESSION_TTL_MS); those
    // stored before count from their creation.
    id: '0210_redirect_session_expiry',
    sql: `
      ALTER TABLE redirect_sessions ADD COLUMN expires_at timestamptz;
      UPDATE redirect_sessions SET expires_at = created_at +
        CASE WHEN intent = 'auth' THEN interval '1 hour' ELSE interval '30 days' END;
      ALTER TABLE redirect_sessions ALTER COLUMN expires_at SET NOT NULL;
      CREATE INDEX redirect_sessions_expires_at ON redirect_sessions (expires_at);
    `,
  },
  {
    // The sessions kept for plain authorization requests (`plain`, capped per client) and how
    // often each was loaded; those stored before count as the API's.
    id: '0223_redirect_session_plain',
    sql: `
      ALTER TABLE redirect_sessions ADD COLUMN plain boolean NOT NULL DEFAULT false;
      ALTER TABLE redirect_sessions ADD COLUMN loads int NOT NULL DEFAULT 0;
      CREATE INDEX redirect_sessions_plain ON redirect_sessions ((doc->>'clientId')) WHERE plain;
    `,
  },
  {
    // Who made each session through the API (`callerOf`), for the cap per caller. Those stored
    // before take their member or visitor, as far as the stored session says.
    id: '0240_redirect_session_caller',
    sql: `
      ALTER TABLE redirect_sessions ADD COLUMN caller text;
      UPDATE redirect_sessions SET caller = CASE
          WHEN doc->>'memberId' IS NOT NULL THEN 'member:' || (doc->>'memberId')
          WHEN doc->>'visitorId' IS NOT NULL THEN 'visitor:' || (doc->>'visitorId')
        END
       WHERE NOT plain;
      CREATE INDEX redirect_sessions_caller ON redirect_sessions (caller) WHERE caller IS NOT NULL;
    `,
  },
];

/**
 * How long a redirect session lives after its last use (the platform does not document it): an
 * `auth` session an hour, like the login it serves (its codes live 10 minutes; the hour leaves
 * time to fetch a password or an e-mail code); any other intent, a checkout above all, 30 days,
 * so that a buyer can come back to a checkout link (and a logout link still revokes: no refresh
 * token outlives its family's 30 days). Every use starts the time again; expired sessions are
 * refused, and deleted when new ones are made (`pruneRedirectSessions`).
 */
export const AUTH_SESSION_TTL_MS = 60 * 60 * 1000;
export const REDIRECT_SESSION_TTL_MS = 30 * 24 * 60 * 60 * 1000;
/** Expired sessions deleted per new session at most: bounded work, still faster than they come. */
const PRUNE_BATCH = 100;

const lifetime = (intent: string) => (intent === 'auth' ? AUTH_SESSION_TTL_MS : REDIRECT_SESSION_TTL_MS);

/**
 * Sessions kept for plain authorization requests per client at most. Anyone may send such a
 * request, and each stores a session for an hour: without a cap a flood of them grows the table
 * for that hour, pruning or not.
 */
export const PLAIN_SESSIONS_PER_CLIENT = 500;

/**
 * Sessions kept per caller of `POST …/v1/redirect-session` at most. Any visitor may make them, and
 * most live 30 days: without a bound one token could store sessions without end. The bound is per
 * caller, not per client, so that no one can push a buyer's checkout link out (the demo client's
 * id is public). At the bound a new session replaces the caller's own oldest: the platform's
 * behaviour is unknown, and a storefront that makes a session per click (or per page, to pre-warm
 * a login) keeps working instead of getting 429s for a month (`capCallerSessions`).
 */
export const REDIRECT_SESSIONS_PER_CALLER = 100;

/** Whom a session made through the API counts against: the member, visitor, app or API key user. */
function callerOf(who: Identity): string | null {
  if (who.memberId) return `member:${who.memberId}`;
  if (who.visitorId) return `visitor:${who.visitorId}`;
  if (who.appId) return `app:${who.appId}`;
  if (who.userId) return `user:${who.userId}`;
  return null;
}

/**
 * Deletes expired redirect sessions, up to `PRUNE_BATCH`, skipping rows another transaction
 * holds (concurrent creates never wait on each other here).
 */
async function pruneRedirectSessions(emu: Emulator, sql: Sql) {
  await sql.query(
    `DELETE FROM redirect_sessions WHERE id IN (
       SELECT id FROM redirect_sessions WHERE expires_at <= $1 LIMIT $2 FOR UPDATE SKIP LOCKED)`,
    [emu.now(), PRUNE_BATCH],
  );
}

const str = () => z.string().max(2048);
const url = () => z.string().max(2048);

/** PKCE challenge methods (wire §5.5: the platform's SDK sends `S256`; its docs also list `S512`). */
const PKCE_METHODS = ['S256', 'S512'] as const;
/** Characters of a base64url digest without padding: SHA-256 → 43, SHA-512 → 86. */
const PKCE_DIGEST_LENGTH = { S256: 43, S512: 86 } as const;

/** OAuth `prompt` values (wire §5.2). */
export const PROMPTS = ['login', 'none', 'consent', 'select_account'] as const;

/** The OAuth authorization request of the `auth` intent. */
export const authRequestSchema = z
  .object({
    clientId: z.string().min(1).max(200),
    responseType: z.literal('code'),
    redirectUri: url().optional(),
    scope: str().optional(),
    state: z.string().min(1).max(1024),
    responseMode: z.enum(['query', 'fragment', 'web_message']).default('query'),
    codeChallenge: z
      .string()
      .max(128)
      .regex(/^[A-Za-z0-9_-]+$/, 'must be base64url without padding'),
    codeChallengeMethod: z.enum(PKCE_METHODS),
    sessionToken: z.string().max(2048).optional(),
    nonce: str().optional(),
    prompt: z.enum(PROMPTS).optional(),
    idp: str().optional(),
  })
  .superRefine((a, ctx) => {
    // The challenge is the base64url digest of the verifier: its length follows from the method.
    const length = PKCE_DIGEST_LENGTH[a.codeChallengeMethod];
    if (a.codeChallenge.length !== length)
      ctx.addIssue({
        // A format violation (FORMAT, like the character check), not a custom rule.
        code: 'invalid_format',
        format: 'regex',
        input: a.codeChallenge,
        path: ['codeChallenge'],
        message: `must be a base64url ${a.codeChallengeMethod === 'S256' ? 'SHA-256' : 'SHA-512'} digest of ${length} characters`,
      });
  });
export type AuthRequest = z.output<typeof authRequestSchema>;

const intentSchemas = {
  bookingsCheckout: z.object({ timezone: str().optional(), slotAvailability: z.unknown().optional() }),
  ecomCheckout: z.object({ checkoutId: z.string().min(1).max(200) }),
  eventsCheckout: z.object({ reservationId: z.string().min(1).max(200), eventSlug: str().optional() }),
  paidPlansCheckout: z.object({ planId: z.string().min(1).max(200), checkoutData: str().optional() }),
  login: z.object({}),
  logout: z.object({ clientId: z.string().min(1).max(200) }),
  auth: z.object({
    authRequest: authRequestSchema,
    prompt: z.enum(PROMPTS).optional(),
  }),
  storesProduct: z.object({ productSlug: z.string().min(1).max(400) }),
  bookingsBook: z.object({ resourceId: z.string().min(1).max(200) }),
  ecomOrderPaymentRequest: z.object({ paymentRequestId: z.string().min(1).max(200) }),
} satisfies Record<IntentName, z.ZodType>;

const schema = z.object({
  ...Object.fromEntries(INTENTS.map((k) => [k, intentSchemas[k].optional()])),
  callbacks: z
    .object({
      thankYouPageUrl: url().optional(),
      postFlowUrl: url().optional(),
      loginUrl: url().optional(),
      bookingsServiceListUrl: url().optional(),
      cartPageUrl: url().optional(),
      planListUrl: url().optional(),
    })
    .optional(),
  preferences: z
    .object({
      useGenericWixPages: z.boolean().optional(),
      maintainIdentity: z.boolean().optional(),
      additionalQueryParameters: z.record(z.string(), z.string().max(2048)).optional(),
      checkIfPublish: z.boolean().optional(),
    })
    .optional(),
  // Becomes a postMessage target and a frame-ancestors source (checklist 40): an origin, or nothing.
  origin: webOrigin().optional(),
}) as z.ZodType<
  { [K in IntentName]?: any } & {
    callbacks?: StoredRedirectSession['callbacks'];
    preferences?: Record<string, unknown>;
    origin?: string;
  }
>;

/**
 * Keeps a client's plain sessions to `PLAIN_SESSIONS_PER_CLIENT`, always `kept` (the one just
 * made). Those never come back to go first (the request that makes one loads it once; a login in
 * progress loads it again at each step of its form), then the least recently used. Rows another
 * transaction holds are skipped, as in pruning.
 */
async function capPlainSessions(sql: Sql, clientId: string, kept: string) {
  await sql.query(
    `DELETE FROM redirect_sessions WHERE id IN (
       SELECT id FROM redirect_sessions WHERE plain AND doc->>'clientId' = $1
        ORDER BY id = $2 DESC, loads > 1 DESC, expires_at DESC, created_at DESC
       OFFSET $3 FOR UPDATE SKIP LOCKED)`,
    [clientId, kept, PLAIN_SESSIONS_PER_CLIENT],
  );
}

/**
 * Keeps a caller's sessions to `REDIRECT_SESSIONS_PER_CALLER`, always `kept` (the one just made).
 * Expired ones go first, then those never opened (oldest first), then the least recently used
 * (a session's last use is its expiry less its lifetime). The caller's creates take turns (an
 * advisory lock until the transaction ends) so that two at once cannot both keep one too many;
 * rows a page load holds at that moment are skipped, and go at the caller's next create.
 */
async function capCallerSessions(emu: Emulator, sql: Sql, caller: string, kept: string) {
  await sql.query(
    `DELETE FROM redirect_sessions WHERE id IN (
       SELECT id FROM redirect_sessions WHERE caller = $1
        ORDER BY id = $2 DESC, expires_at > $4 DESC, loads > 0 DESC,
                 expires_at - CASE WHEN intent = 'auth' THEN $5::interval ELSE $6::interval END DESC,
                 created_at DESC, id
       OFFSET $3 FOR UPDATE SKIP LOCKED)`,
    [
      caller,
      kept,
      REDIRECT_SESSIONS_PER_CALLER,
      emu.now(),
      `${AUTH_SESSION_TTL_MS} milliseconds`,
      `${REDIRECT_SESSION_TTL_MS} milliseconds`,
    ],
  );
}

/**
 * Creates a redirect session; what `POST …/v1/redirect-session` does. `recordEvent: false` for the
 * sessions the emulator keeps for plain authorization requests (anyone may send them, and they are
 * no session created through the API): those leave no event behind, and are capped per client.
 * The others are capped per caller (`capCallerSessions`).
 */
export async function createRedirectSession(
  emu: Emulator,
  msg: z.output<typeof schema>,
  identity: Identity,
  headerOrigin: string | undefined,
  { recordEvent = true } = {},
) {
  const present = INTENTS.filter((k) => msg[k] !== undefined);
  if (present.length !== 1)
    throw invalid([
      {
        field: present[1] ?? 'intent',
        description:
          present.length === 0
            ? `must set exactly one intent: one of ${INTENTS.join(', ')}`
            : `must be the only intent; this request also sets ${present[0]}`,
        violatedRule: present.length === 0 ? 'REQUIRED_FIELD' : 'ONE_OF_ALIGNMENT',
        data: { oneOf: [...INTENTS] },
      },
    ]);
  const intent = present[0]!;
  const request = structuredClone(msg[intent]) as Record<string, any>;
  // Wire §5.2 carries `prompt` in `auth` and in its `authRequest`: `auth.prompt` when sent, else
  // the request's, else `login`.
  if (intent === 'auth') request.prompt = request.prompt ?? request.authRequest.prompt ?? 'login';
  const clientId: string | null =
    intent === 'auth'
      ? request.authRequest.clientId
      : intent === 'logout'
        ? request.clientId
        : (identity.clientId ?? null);
  const id = newId();
  const sessionToken = newToken('RS.');
  return emu.db.tx(async (sql) => {
    if (clientId) {
      const known = await sql.query('SELECT 1 FROM oauth_clients WHERE client_id = $1', [clientId]);
      if (!known.length)
        throw invalid([
          {
            field: intent === 'auth' ? 'auth.authRequest.clientId' : `${intent}.clientId`,
            description: 'is not a known client id',
            violatedRule: 'VALIDATION',
          },
        ]);
    }
    // The `auth` intent's session token (a login's one-shot token) is a secret: stored as a hash.
    if (intent === 'auth' && request.authRequest.sessionToken) {
      request.authRequest.sessionTokenHash = hashToken(request.authRequest.sessionToken);
      delete request.authRequest.sessionToken;
    }
    const session: StoredRedirectSession = {
      id,
      intent,
      request,
      callbacks: msg.callbacks ?? {},
      preferences: msg.preferences ?? {},
      // A browser's `Origin` may be `null` (sandboxed frames, files): then the page is unknown.
      origin: msg.origin ?? (isWebOrigin(headerOrigin) ? headerOrigin : null),
      clientId,
      visitorId: identity.visitorId ?? null,
      memberId: identity.memberId ?? null,
      createdAt: emu.now().toISOString(),
    };
    const caller = recordEvent ? callerOf(identity) : null;
    if (caller)
      await sql.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`redirect_sessions:${caller}`]);
    await pruneRedirectSessions(emu, sql);
    await sql.query(
      'INSERT INTO redirect_sessions (id, intent, doc, session_token_hash, created_at, expires_at, plain, caller) VALUES ($1,$2,$3,$4,$5,$6,$7,$8)',
      [
        id,
        intent,
        JSON.stringify(session),
        hashToken(sessionToken),
        emu.now(),
        new Date(emu.now().getTime() + lifetime(intent)),
        !recordEvent,
        caller,
      ],
    );
    if (!recordEvent && clientId) await capPlainSessions(sql, clientId, id);
    if (caller) await capCallerSessions(emu, sql, caller, id);
    const base = emu.config.publicUrl;
    let endpoint = `${base}/redirect/${id}`;
    const searchParams: Record<string, string> = {};
    if (intent === 'auth') {
      const a = request.authRequest as AuthRequest;
      endpoint = `${base}/oauth2/authorize`;
      Object.assign(searchParams, {
        client_id: a.clientId,
        response_type: a.responseType,
        ...(a.redirectUri ? { redirect_uri: a.redirectUri } : {}),
        scope: a.scope ?? '',
        state: a.state,
        response_mode: a.responseMode,
        code_challenge: a.codeChallenge,
        code_challenge_method: a.codeChallengeMethod,
        prompt: request.prompt,
        redirect_session_id: id,
      });
    }
    Object.assign(searchParams, session.preferences.additionalQueryParameters ?? {});
    const qs = new URLSearchParams(searchParams).toString();
    const entity = {
      id,
      fullUrl: endpoint + (qs ? `?${qs}` : ''),
      urlDetails: { endpoint, searchParams },
      sessionToken,
      shortUrl: `${base}/r/${id}`,
    };
    if (recordEvent)
      await emu.recordEvent(sql, REDIRECT_SESSION_CREATED, id, {
        id,
        intent,
        fullUrl: entity.fullUrl,
        createdDate: session.createdAt,
      });
    return { redirectSession: entity };
  });
}

/**
 * Reads a redirect session that has not expired, and starts its lifetime again (it is in use).
 * An expired one is `undefined` whether or not it has been deleted yet.
 */
export async function loadRedirectSession(
  emu: Emulator,
  id: string,
): Promise<StoredRedirectSession | undefined> {
  const now = emu.now();
  const until = (intent: string) => new Date(now.getTime() + lifetime(intent));
  const rows = await emu.db.query<{ doc: StoredRedirectSession }>(
    `UPDATE redirect_sessions SET expires_at = CASE WHEN intent = 'auth' THEN $3::timestamptz ELSE $4::timestamptz END,
            loads = loads + 1
      WHERE id = $1 AND expires_at > $2
      RETURNING doc`,
    [id, now, until('auth'), until('ecomCheckout')],
  );
  return rows[0]?.doc;
}

/** `logout`: revokes the member's refresh tokens, then goes to `postFlowUrl` when allowed. */
intentPages.set('logout', async ({ session, emu, c }) => {
  if (session.memberId) {
    const memberId = session.memberId;
    await emu.db.tx((sql) => revokeMemberTokens(emu, sql, memberId));
  }
  const back = await callbackUrl(emu, session, 'postFlowUrl');
  if (back) return c.redirect(back, 302);
  return htmlPage(c, 'Logged out', '<p>You are logged out.</p>');
});

/**
 * `login` (also the pre-warm of wire §7, which loads it in a hidden frame): a page that says whose
 * session this browser has on the site, with a link on to `postFlowUrl` when it is allowed. The
 * emulator's hosted pages keep no browser session, so there is nothing to sign in to here; a
 * member logs in to a headless site through the `auth` intent (`getAuthUrl`), which hands tokens back.
 */
intentPages.set('login', async ({ session, emu, c }) => {
  const back = await callbackUrl(emu, session, 'postFlowUrl');
  const who = session.memberId ? 'a member' : session.visitorId ? 'a visitor' : 'nobody';
  return htmlPage(
    c,
    'Site session',
    `<p>This browser's session on the site is ${escapeHtml(who)}.</p>` +
      (back ? `<p><a href="${escapeHtml(back)}">Continue</a></p>` : ''),
  );
});

async function servePage(c: Context, emu: Emulator, id: string) {
  const session = await loadRedirectSession(emu, id);
  if (!session) return htmlPage(c, 'Link expired', EXPIRED_LINK, 404);
  if (session.intent === 'auth') {
    const qs = new URLSearchParams({ redirect_session_id: session.id }).toString();
    return c.redirect(`/oauth2/authorize?${qs}`, 302);
  }
  const page = intentPages.get(session.intent) ?? unavailablePage;
  return page({ session, emu, c });
}

/** The event type of a new redirect session (wire entity `wix.headless.v1.redirect_session`). */
export const REDIRECT_SESSION_CREATED = 'wix.headless.v1.redirect_session_created';

export const redirects: Domain = {
  name: 'redirects',
  migrations: redirectMigrations,
  events: [REDIRECT_SESSION_CREATED],
  routes(router, emu) {
    router.route({
      method: 'POST',
      family: FAMILY.redirects,
      path: '/v1/redirect-session',
      access: 'anyone',
      schema,
      handler({ msg, identity, c }) {
        // The answer carries the session's token, and an auth session may carry a login's (checklist 42).
        noStore(c);
        return createRedirectSession(emu, msg, identity, c.req.header('origin'));
      },
    });
    router.route({
      method: 'GET',
      family: FAMILY.none,
      path: '/redirect/{id}',
      access: 'public',
      handler: ({ msg, c }) => servePage(c, emu, String((msg as { id: string }).id)),
    });
    router.route({
      method: 'GET',
      family: FAMILY.none,
      path: '/r/{id}',
      access: 'public',
      async handler({ msg, c }) {
        const id = String((msg as { id: string }).id);
        const session = await loadRedirectSession(emu, id);
        // A browser follows a short URL: an unknown or expired one gets the page that says so, as
        // the full URL does, not a JSON body.
        if (!session) return htmlPage(c, 'Link expired', EXPIRED_LINK, 404);
        return c.redirect(`/redirect/${encodeURIComponent(id)}`, 302);
      },
    });
  },
};
