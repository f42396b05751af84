/**
 * The platform core: the site, its headless OAuth clients (and their origins, cached for CORS),
 * API keys, access and refresh tokens, who is calling (the `wix-site-id` header must name their
 * site), the lifecycle event log, and the token endpoint's anonymous (rate-limited) and refresh
 * grants (rotation, reuse detection, a 30-day cap per family, idle expiry, ACTIVE members only).
 * @module
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Context } from 'hono';
import type { Domain, Emulator, Identity } from '../../context.ts';
import { derive, deriveUuid, hashToken, newId, newToken } from '../../crypto.ts';
import type { Sql } from '../../db/index.ts';
import { appError, forbidden, tooMany } from '../../http/errors.ts';
import { rawAnswer, rawRequest } from '../../http/raw.ts';
import { FAMILY, NO_STORE, noStore } from '../../http/router.ts';
import { z } from '../../http/validate.ts';
import { getSettings, memberById } from '../identity/store.ts';

export const migrations = [
  {
    id: '0001_platform',
    sql: `
      CREATE TABLE emulator_meta (key text PRIMARY KEY, value text NOT NULL);
      CREATE TABLE oauth_clients (
        client_id text PRIMARY KEY,
        name text NOT NULL,
        allowed_origins jsonb NOT NULL DEFAULT '[]',
        redirect_uris jsonb NOT NULL DEFAULT '[]',
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE TABLE api_keys (
        key_hash text PRIMARY KEY,
        name text NOT NULL,
        site_id text NOT NULL,
        user_id text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE TABLE access_tokens (
        token_hash text PRIMARY KEY,
        client_id text NOT NULL,
        subject_type text NOT NULL,
        visitor_id text,
        member_id text,
        refresh_family text,
        expires_at timestamptz NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX access_tokens_family ON access_tokens (refresh_family);
      CREATE TABLE refresh_tokens (
        token_hash text PRIMARY KEY,
        family_id text NOT NULL,
        client_id text NOT NULL,
        subject_type text NOT NULL,
        visitor_id text,
        member_id text,
        expires_at timestamptz NOT NULL,
        rotated_at timestamptz,
        revoked_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX refresh_tokens_family ON refresh_tokens (family_id);
      CREATE TABLE events (
        seq bigserial PRIMARY KEY,
        event_id text NOT NULL UNIQUE,
        type text NOT NULL,
        entity_id text NOT NULL,
        entity jsonb,
        created_at timestamptz NOT NULL DEFAULT now()
      );
    `,
  },
  {
    // Who caused each event (the platform's webhook `identity`); older events have none.
    id: '0002_event_identity',
    sql: 'ALTER TABLE events ADD COLUMN identity jsonb;',
  },
  {
    // A rotated refresh token's successor, and the answer that gave it, sealed with a key only the
    // rotated token itself yields (see `REUSE_GRACE_MS`).
    id: '0003_refresh_grace',
    sql: 'ALTER TABLE refresh_tokens ADD COLUMN successor_hash text, ADD COLUMN grace_answer text;',
  },
];

/** Demo credentials, derived from the database's secret so they survive restarts. */
export function demoCredentials(secret: Buffer) {
  return {
    clientId: deriveUuid(secret, 'demo-client-id'),
    siteId: deriveUuid(secret, 'demo-site-id'),
    apiKey: 'IST.' + derive(secret, 'demo-api-key').toString('base64url'),
  };
}

/** Refresh tokens live 30 days from the first grant of their family. */
const REFRESH_TTL_SECONDS = 30 * 24 * 3600;

interface IssueInput {
  clientId: string;
  subjectType: 'VISITOR' | 'MEMBER';
  visitorId: string | null;
  memberId: string | null;
  /** Continue an existing refresh family (rotation) with its absolute expiry. */
  family?: { id: string; expiresAt: Date };
  /** Answer with this refresh token again instead of a new one (no rotation). */
  keepRefresh?: string;
}

/** Issues an access + refresh token pair (or an access token for `keepRefresh`); only hashes are stored. */
export async function issueTokens(emu: Emulator, sql: Sql, input: IssueInput) {
  const access = newToken('OauthNG.');
  const refresh = input.keepRefresh ?? newToken('OauthNG.');
  const now = emu.now();
  const familyId = input.family?.id ?? newId();
  const rtExpires = input.family?.expiresAt ?? new Date(now.getTime() + REFRESH_TTL_SECONDS * 1000);
  const ttl = emu.config.accessTokenTtl;
  await sql.query(
    `INSERT INTO access_tokens (token_hash, client_id, subject_type, visitor_id, member_id, refresh_family, expires_at, created_at)
     VALUES ($1,$2,$3,$4,$5,$6,$7,$8)`,
    [
      hashToken(access),
      input.clientId,
      input.subjectType,
      input.visitorId,
      input.memberId,
      familyId,
      new Date(now.getTime() + ttl * 1000),
      now,
    ],
  );
  if (!input.keepRefresh)
    await sql.query(
      `INSERT INTO refresh_tokens (token_hash, family_id, client_id, subject_type, visitor_id, member_id, expires_at, created_at)
     VALUES ($1,$2,$3,$4,$5,$6,$7,$8)`,
      [
        hashToken(refresh),
        familyId,
        input.clientId,
        input.subjectType,
        input.visitorId,
        input.memberId,
        rtExpires,
        now,
      ],
    );
  return { access_token: access, refresh_token: refresh, expires_in: ttl, token_type: 'Bearer' };
}

/**
 * Revokes a presented token when `mine(its client id)` holds: a refresh token (rotated or not)
 * ends its whole family, an app's refresh token (an app's client id is its app id) itself and
 * every access token of its install code (RFC 7009 §2.1: those of the same grant), an access
 * token only itself. Unknown tokens are ignored.
 */
export async function revokeToken(emu: Emulator, token: string, mine: (clientId: string) => boolean) {
  const hash = hashToken(token);
  await emu.db.tx(async (sql) => {
    const [rt] = await sql.query<{ family_id: string; client_id: string }>(
      'SELECT family_id, client_id FROM refresh_tokens WHERE token_hash = $1',
      [hash],
    );
    if (rt) {
      if (mine(rt.client_id)) await revokeFamily(emu, sql, rt.family_id);
      return;
    }
    // The access tokens of an app's install code and of its refresh token name the code's hash
    // as their `refresh_family` (app-store.ts).
    const [appRt] = await sql.query<{ app_id: string; code_hash: string }>(
      'SELECT app_id, code_hash FROM app_refresh_tokens WHERE token_hash = $1 FOR UPDATE',
      [hash],
    );
    if (appRt) {
      if (!mine(appRt.app_id)) return;
      await sql.query(
        'UPDATE app_refresh_tokens SET revoked_at = $2 WHERE token_hash = $1 AND revoked_at IS NULL',
        [hash, emu.now()],
      );
      await sql.query("DELETE FROM access_tokens WHERE refresh_family = $1 AND subject_type = 'APP'", [
        appRt.code_hash,
      ]);
      return;
    }
    const [at] = await sql.query<{ client_id: string }>(
      'SELECT client_id FROM access_tokens WHERE token_hash = $1',
      [hash],
    );
    if (at && mine(at.client_id)) await sql.query('DELETE FROM access_tokens WHERE token_hash = $1', [hash]);
  });
}

/**
 * Revokes every refresh token of a family and the access tokens issued from it. The update runs
 * again until it finds nothing: one that waited for a refresh of the family holding a token's
 * row lock cannot see the token that refresh committed (its snapshot is older), the next can.
 */
export async function revokeFamily(emu: Emulator, sql: Sql, familyId: string) {
  for (;;) {
    const revoked = await sql.query(
      'UPDATE refresh_tokens SET revoked_at = $2 WHERE family_id = $1 AND revoked_at IS NULL RETURNING 1',
      [familyId, emu.now()],
    );
    if (!revoked.length) break;
  }
  await sql.query('DELETE FROM access_tokens WHERE refresh_family = $1', [familyId]);
}

/**
 * Revokes every refresh token of a member (logout, password change) and their access tokens, and
 * voids their logins in flight (session tokens, codes: `login_epoch`). The member row is taken
 * first, as the grants take it (shared) before any token: a grant for this member in flight ends
 * before, and what it issued is revoked here, or starts after, and sees the new epoch.
 */
export async function revokeMemberTokens(emu: Emulator, sql: Sql, memberId: string) {
  await sql.query('UPDATE members SET login_epoch = login_epoch + 1 WHERE id = $1', [memberId]);
  const fams = await sql.query<{ family_id: string }>(
    'SELECT DISTINCT family_id FROM refresh_tokens WHERE member_id = $1 AND revoked_at IS NULL',
    [memberId],
  );
  for (const f of fams) await revokeFamily(emu, sql, f.family_id);
  await sql.query('DELETE FROM access_tokens WHERE member_id = $1', [memberId]);
}

/** A refused grant (RFC 6749 §5.2 `invalid_grant`) in the platform's envelope. */
export const invalidGrant = (description: string) => appError(400, 'invalid_grant', description);

/** Resolves a client id or throws `invalid_client`. */
export async function requireClient(sql: Sql, clientId: unknown) {
  if (typeof clientId !== 'string' || !clientId)
    throw appError(400, 'invalid_client', 'clientId is required');
  const rows = await sql.query<{ client_id: string; allowed_origins: string[]; redirect_uris: string[] }>(
    'SELECT client_id, allowed_origins, redirect_uris FROM oauth_clients WHERE client_id = $1',
    [clientId],
  );
  if (!rows[0]) throw appError(400, 'invalid_client', 'Unknown client id');
  return rows[0];
}

/**
 * How long CORS may go on using the clients' origins it read: a client created through this
 * emulator counts at once (`forgetClientOrigins`), one written by another emulator on the same
 * database within this time.
 */
const ORIGINS_TTL_MS = 5_000;
const originCache = new WeakMap<Emulator, { at: number; origins: Promise<ReadonlySet<string>> }>();

/**
 * Every origin that some OAuth client allows (the union of their stored lists), for CORS. Read
 * once and cached, so a request costs no query; a failed read is not kept.
 */
export function clientOrigins(emu: Emulator): Promise<ReadonlySet<string>> {
  const now = performance.now();
  const hit = originCache.get(emu);
  if (hit && now - hit.at < ORIGINS_TTL_MS) return hit.origins;
  const entry = {
    at: now,
    origins: emu.db
      .query<{ origin: string }>(
        'SELECT DISTINCT jsonb_array_elements_text(allowed_origins) AS origin FROM oauth_clients',
      )
      .then((rows): ReadonlySet<string> => new Set(rows.map((r) => r.origin))),
  };
  originCache.set(emu, entry);
  entry.origins.catch(() => {
    if (originCache.get(emu) === entry) originCache.delete(emu);
  });
  return entry.origins;
}

/** Drops the cached client origins (call after creating or changing an OAuth client). */
export function forgetClientOrigins(emu: Emulator) {
  originCache.delete(emu);
}

/** What a grant knows of its request besides the body: its headers and the caller's address. */
export interface GrantRequest {
  headers: Headers;
  /** The address the request came from (`local` for in-process requests). */
  address: string;
}

/** Grant handlers by `grantType`; the auth domain adds its own (authorization_code, …). */
export type GrantHandler = (
  emu: Emulator,
  body: Record<string, unknown>,
  req: GrantRequest,
) => Promise<Record<string, unknown>>;
export const grants = new Map<string, GrantHandler>();

grants.set('anonymous', async (emu, body, req) => {
  // The client is looked up once: an unknown one is refused before it gets a rate-limit bucket.
  const client = await requireClient(emu.db, body.clientId);
  await limitAnonymous(emu, req.address, client.client_id);
  return emu.db.tx((sql) =>
    issueTokens(emu, sql, {
      clientId: client.client_id,
      subjectType: 'VISITOR',
      visitorId: newId(),
      memberId: null,
    }),
  );
});

/**
 * How long a rotated refresh token may be sent again and get the very answer its first use got
 * (checklist 43's grace window): two requests of one shopper that renew at once, each with the
 * token it read (two server renders with the same cookie; two tabs without Web Locks), are one
 * renewal, not a reuse that ends the session. Only while the token it was rotated to is unused:
 * after that, and after the window, a rotated token sent again ends its whole family.
 */
export const REUSE_GRACE_MS = 10_000;

type TokenAnswer = Awaited<ReturnType<typeof issueTokens>>;

/** AES-256-GCM under a key derived from the rotated refresh token: only its holder opens it. */
const graceKey = (emu: Emulator, token: string) => derive(emu.secret, `refresh-grace:${token}`);
function seal(emu: Emulator, token: string, answer: TokenAnswer) {
  const iv = randomBytes(12);
  const c = createCipheriv('aes-256-gcm', graceKey(emu, token), iv);
  const body = Buffer.concat([c.update(JSON.stringify(answer)), c.final()]);
  return [iv, body, c.getAuthTag()].map((b) => b.toString('base64url')).join('.');
}
function unseal(emu: Emulator, token: string, sealed: string): TokenAnswer | undefined {
  try {
    const [iv, body, tag] = sealed.split('.').map((x) => Buffer.from(x, 'base64url'));
    const d = createDecipheriv('aes-256-gcm', graceKey(emu, token), iv!);
    d.setAuthTag(tag!);
    return JSON.parse(Buffer.concat([d.update(body!), d.final()]).toString('utf8'));
  } catch {
    return undefined;
  }
}

grants.set('refresh_token', async (emu, body) => {
  const token = body.refreshToken;
  if (typeof token !== 'string' || !token) throw invalidGrant('refreshToken is required');
  const hash = hashToken(token);
  const out = await emu.db.tx(async (sql) => {
    // Locks the member first, then the token, the order a status change (block) takes them in: a
    // block waits for this grant and then revokes what it issued, or this grant sees the block.
    const [owner] = await sql.query<{ member_id: string | null }>(
      'SELECT member_id FROM refresh_tokens WHERE token_hash = $1',
      [hash],
    );
    const member = owner?.member_id ? await memberById(sql, owner.member_id, 'share') : undefined;
    const rows = await sql.query('SELECT * FROM refresh_tokens WHERE token_hash = $1 FOR UPDATE', [hash]);
    const rt = rows[0];
    if (!rt) throw invalidGrant('The refresh token is invalid');
    if (body.clientId !== undefined && body.clientId !== rt.client_id)
      throw invalidGrant('The refresh token was issued to another client');
    const now = emu.now();
    if (rt.revoked_at || new Date(rt.expires_at) <= now)
      throw invalidGrant('The refresh token is expired or revoked');
    const { rotateRefreshTokens } = await getSettings(emu, sql);
    // Idle expiry (checklist 44): unused for `refreshIdleTtl` seconds. With rotation each refresh
    // issues a new token, so its issue time is the last use; without, the family's newest access
    // token is. The family's expiry caps both.
    const lastUse = rotateRefreshTokens
      ? new Date(rt.created_at)
      : ((
          await sql.query<{ at: Date }>(
            'SELECT max(created_at) AS at FROM access_tokens WHERE refresh_family = $1',
            [rt.family_id],
          )
        )[0]?.at ?? new Date(rt.created_at));
    if (!rt.rotated_at && new Date(lastUse).getTime() + emu.config.refreshIdleTtl * 1000 <= now.getTime()) {
      await revokeFamily(emu, sql, rt.family_id);
      return { idle: true } as const;
    }
    if (rt.rotated_at) {
      // The same renewal sent twice at once: the answer the first got, while its token is unused.
      if (
        rt.grace_answer &&
        now.getTime() - new Date(rt.rotated_at).getTime() < REUSE_GRACE_MS &&
        (!rt.member_id || member?.status === 'ACTIVE')
      ) {
        const [next] = await sql.query(
          // Read, not locked: a revocation may hold it and wait for this token, which is held.
          'SELECT 1 FROM refresh_tokens WHERE token_hash = $1 AND rotated_at IS NULL AND revoked_at IS NULL',
          [rt.successor_hash],
        );
        const answer = next && unseal(emu, token, rt.grace_answer);
        if (answer) return answer;
      }
      // Reuse of a rotated token: someone else has it too. End the whole family (committed, then refused).
      await revokeFamily(emu, sql, rt.family_id);
      return { reused: true } as const;
    }
    // Only an ACTIVE member gets new tokens (as in the code and authorized-client grants): a
    // blocked or deleted member's family ends here too.
    if (rt.member_id && member?.status !== 'ACTIVE') {
      await revokeFamily(emu, sql, rt.family_id);
      return { inactive: true } as const;
    }
    const answer = await issueTokens(emu, sql, {
      clientId: rt.client_id,
      subjectType: rt.subject_type,
      visitorId: rt.visitor_id,
      memberId: rt.member_id,
      family: { id: rt.family_id, expiresAt: new Date(rt.expires_at) },
      keepRefresh: rotateRefreshTokens ? undefined : token,
    });
    // Without rotation (the platform SDK's way: it sends its first refresh token every time, wire
    // §6), the same token comes back and stays valid; with it (checklist 43), it is spent, and
    // its answer kept sealed for the grace window.
    if (rotateRefreshTokens)
      await sql.query(
        'UPDATE refresh_tokens SET rotated_at = $2, successor_hash = $3, grace_answer = $4 WHERE token_hash = $1',
        [rt.token_hash, now, hashToken(answer.refresh_token), seal(emu, token, answer)],
      );
    return answer;
  });
  // Committed, then refused: the family ends even though the request fails.
  if ('idle' in out) throw invalidGrant('The refresh token is expired or revoked');
  if ('reused' in out) throw invalidGrant('The refresh token was already used');
  if ('inactive' in out) throw invalidGrant('The member cannot log in');
  return out;
});

/** Token-endpoint bodies arrive in camelCase or snake_case depending on the grant (wire §5.6). */
function normalizeGrantBody(raw: Record<string, unknown>) {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(raw))
    out[k.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase())] = v;
  return out;
}

/** Token buckets of the anonymous grant per emulator, keyed by `<ip> <clientId>`. */
const buckets = new WeakMap<Emulator, Map<string, { tokens: number; at: number }>>();
/** Buckets kept at most, unless `EmulatorConfig.anonymousTokenBuckets` says otherwise. */
const MAX_BUCKETS = 10_000;

/** The Node request behind a request; none when the emulator calls its own API in process. */
function incoming(c: Context) {
  const env = c.env as { incoming?: IncomingMessage; server?: { incoming?: IncomingMessage } } | undefined;
  return (env?.server ?? env)?.incoming;
}

/** The address a request came from (`local` for in-process requests); `X-Forwarded-For` is not trusted. */
function remoteAddress(c: Context) {
  return incoming(c)?.socket?.remoteAddress ?? 'local';
}

/**
 * The client of the redirect session that the emulator's own hosted login page is serving, when
 * that page calls the API in process (`app.request(path, init, { hostedPageClient })`). A request
 * from the network never has it: its environment is the server's, not one the page passes.
 */
export const hostedPageClient = (c: Context): string | undefined =>
  (c.env as { hostedPageClient?: string } | undefined)?.hostedPageClient;

/**
 * Rate limit of the anonymous grant (checklist 55): per IP address and existing client id, a
 * bucket of `anonymousTokensPerMinute` that refills at that rate. Over the limit: 429 with
 * `Retry-After`. An unknown client id is refused before it gets a bucket. At most
 * `anonymousTokenBuckets` (config, default 10 000) buckets are kept; only full ones, which limit
 * no one, are forgotten to make room, and while none is full a new address or client waits.
 */
async function limitAnonymous(emu: Emulator, address: string, clientId: string) {
  const perMinute = (await getSettings(emu, emu.db)).anonymousTokensPerMinute;
  if (!perMinute) return;
  const max = emu.config.anonymousTokenBuckets ?? MAX_BUCKETS;
  let map = buckets.get(emu);
  if (!map) {
    map = new Map();
    buckets.set(emu, map);
  }
  const key = `${address} ${clientId}`;
  const now = emu.now().getTime();
  const refill = (b: { tokens: number; at: number }) =>
    Math.min(perMinute, b.tokens + (Math.max(0, now - b.at) / 60_000) * perMinute);
  /** Seconds until a bucket holds `tokens` again. */
  const until = (b: { tokens: number; at: number }, tokens: number) =>
    Math.max(1, Math.ceil(((tokens - refill(b)) * 60) / perMinute));
  let b = map.get(key);
  if (!b) {
    // Make room by forgetting full buckets (least recently used first); never one that still limits.
    for (const [k, other] of map) {
      if (map.size < max) break;
      if (refill(other) >= perMinute) map.delete(k);
    }
    if (map.size >= max) {
      const oldest = map.values().next().value!;
      throw tooMany(
        'TOO_MANY_REQUESTS',
        'Too many visitors are getting anonymous tokens',
        until(oldest, perMinute),
      );
    }
    b = { tokens: perMinute, at: now };
  }
  b.tokens = refill(b);
  b.at = now;
  if (b.tokens < 1)
    throw tooMany(
      'TOO_MANY_REQUESTS',
      'Too many anonymous tokens for this client from this address',
      until(b, 1),
    );
  b.tokens -= 1;
  map.delete(key);
  map.set(key, b);
}

/**
 * Resolves the caller of a request from its Authorization header. With a `wix-site-id` header
 * (ApiKeyStrategy sends one, wire §1.6), the caller must belong to that site: a key or token of
 * another site is refused (403) before any route runs. An empty header counts as absent.
 */
export async function identify(
  emu: Emulator,
  authorization: string | undefined,
  siteId?: string,
): Promise<Identity> {
  const who = await resolve(emu, authorization);
  const named = siteId?.trim();
  if (named && named !== who.siteId)
    throw forbidden(
      who.type === 'NONE'
        ? 'The wix-site-id header names a site this server does not serve'
        : `The ${who.type === 'WIX_USER' ? 'API key' : 'access token'} does not belong to the site in the wix-site-id header`,
    );
  return who;
}

/**
 * A credential as the platform's clients send it (wire §1.6: the raw token), also when given in
 * the `Bearer <token>` form some clients use: `Authorization` and token-info read it the same way,
 * so a header that authenticates a call is the token token-info answers for.
 */
export const bareCredential = (value: string | undefined) => value?.trim().replace(/^Bearer\s+/i, '');

async function resolve(emu: Emulator, authorization: string | undefined): Promise<Identity> {
  const none: Identity = { type: 'NONE', siteId: emu.siteId };
  const value = bareCredential(authorization);
  if (!value) return none;
  const [first] = value.split(',');
  const hash = hashToken(first!.trim());
  const tokens = await emu.db.query('SELECT * FROM access_tokens WHERE token_hash = $1 AND expires_at > $2', [
    hash,
    emu.now(),
  ]);
  const t = tokens[0];
  if (t)
    return {
      type: t.subject_type === 'MEMBER' ? 'MEMBER' : t.subject_type === 'APP' ? 'APP' : 'ANONYMOUS_VISITOR',
      appId: t.app_id ?? undefined,
      instanceId: t.instance_id ?? undefined,
      siteId: emu.siteId,
      clientId: t.client_id,
      visitorId: t.visitor_id ?? undefined,
      memberId: t.member_id ?? undefined,
    };
  const keys = await emu.db.query('SELECT user_id, site_id FROM api_keys WHERE key_hash = $1', [hash]);
  if (keys[0]) return { type: 'WIX_USER', siteId: keys[0].site_id, userId: keys[0].user_id };
  return none;
}

export const platform: Domain = {
  name: 'platform',
  migrations,
  routes(router, emu) {
    router.route({
      method: 'POST',
      family: FAMILY.oauth,
      path: '/oauth2/token',
      access: 'public',
      schema: z.record(z.string(), z.unknown()),
      async handler({ msg, c }) {
        noStore(c);
        const grant = async (message: Record<string, unknown>) => {
          const body = normalizeGrantBody(message);
          const type = body.grantType;
          const handler = typeof type === 'string' ? grants.get(type) : undefined;
          if (!handler)
            throw appError(
              400,
              'unsupported_grant_type',
              `grantType must be one of ${[...grants.keys()].join(', ')}`,
            );
          return handler(emu, body, { headers: c.req.raw.headers, address: remoteAddress(c) });
        };
        // The generated oauth module's raw-HTTP envelope (wire §5.6), or the strategies' plain JSON.
        // The envelope's answer carries the tokens, so its own headers say no-store too.
        const inner = rawRequest(msg);
        return inner ? rawAnswer(() => grant(inner), NO_STORE) : grant(msg);
      },
    });
  },
  async base(emu, sql) {
    const demo = demoCredentials(emu.secret);
    await sql.query(
      'INSERT INTO oauth_clients (client_id, name, allowed_origins, redirect_uris) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING',
      [demo.clientId, 'Demo storefront', JSON.stringify(emu.config.allowedOrigins), JSON.stringify([])],
    );
    await sql.query(
      'INSERT INTO api_keys (key_hash, name, site_id, user_id) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING',
      [hashToken(demo.apiKey), 'Demo merchant key', demo.siteId, deriveUuid(emu.secret, 'demo-owner')],
    );
  },
};
