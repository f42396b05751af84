/**
 * What every route and service gets: storage, settings, a clock, secrets, and who is calling.
 * @module
 */
import type { Db, Migration, Sql } from './db/index.ts';
import type { Router } from './http/router.ts';

/** Identity types (spec point 3), plus `NONE` for a call without credentials. */
export type IdentityType = 'NONE' | 'ANONYMOUS_VISITOR' | 'MEMBER' | 'WIX_USER' | 'APP';

/** Who is calling, resolved from the `Authorization` header. */
export interface Identity {
  type: IdentityType;
  /** The site the call acts on. */
  siteId: string;
  /** Visitor id: set for visitors, and for members (the visitor they logged in from). */
  visitorId?: string;
  memberId?: string;
  /** Platform user (API key owner) or app id. */
  userId?: string;
  appId?: string;
  /**
   * The app instance (site installation) an app token was granted for. An app token without one is
   * the app acting as itself: it acts on no site, so every call but the public ones refuses it.
   */
  instanceId?: string;
  /** The OAuth client the token was issued to. */
  clientId?: string;
}

export interface EmulatorConfig {
  /** Origins allowed for CORS and OAuth redirects / web_message (from `--allowed-origin`). */
  allowedOrigins: string[];
  /** The URL the emulator is reachable at (set once listening). */
  publicUrl: string;
  /** Access-token lifetime in seconds (default 14 400). */
  accessTokenTtl: number;
  /**
   * Idle lifetime of a refresh token in seconds (default 1 209 600, 14 days): a refresh token not
   * used for this long is refused (`invalid_grant`) and its family revoked. Each refresh starts the
   * window again; a family never outlives its absolute cap (30 days from its first grant).
   */
  refreshIdleTtl: number;
  /** scrypt cost (N) for password hashes; OWASP's 2^17 by default, lower in tests. */
  scryptN: number;
  /** Anonymous-grant rate-limit buckets kept at most (default 10 000; checklist 55). */
  anonymousTokenBuckets?: number;
  /** Extra settings domains may read (site settings, feature switches). */
  [key: string]: unknown;
}

/** One piece of the platform: its tables, routes and demo data. */
export interface Domain {
  name: string;
  migrations: Migration[];
  routes(router: Router, emu: Emulator): void;
  /** The lifecycle event types it records (`recordEvent` refuses any other; webhooks subscribe to these). */
  events?: readonly string[];
  /**
   * Those of its `events` that the platform sends as plain (non-domain) events: the entity recorded
   * is the payload, sent as the event's data as it is, not inside a domain event (`createdEvent`, …).
   */
  plainEvents?: readonly string[];
  /**
   * Creates what every store has, demo or not (the site's OAuth client and API key, the All
   * Products collection); runs once per database, after every domain's migrations, whatever the
   * `seed` option says.
   */
  base?(emu: Emulator, sql: Sql): Promise<void>;
  /** Seeds demo data (`seed: 'demo'`); runs once per database, after every domain's `base`. */
  seed?(emu: Emulator, sql: Sql): Promise<void>;
}

export interface Emulator {
  db: Db;
  config: EmulatorConfig;
  /** The clock (replaceable in tests). */
  now(): Date;
  /** The site this emulator serves. */
  siteId: string;
  /** A secret that lives in the database, for deriving demo credentials and signing. */
  secret: Buffer;
  /** Resolves the caller from the Authorization header (and `wix-site-id`). */
  identify(authorization: string | undefined, siteId?: string): Promise<Identity>;
  /** Every lifecycle event type the domains record, sorted. */
  eventTypes: readonly string[];
  /** Those sent as plain events (`Domain.plainEvents`). */
  plainEventTypes: readonly string[];
  /**
   * Writes a lifecycle event in the caller's transaction; `type` must be one of `eventTypes`. The
   * event records who caused it: `by`, else the caller of the request being served (`actor.ts`).
   */
  recordEvent(sql: Sql, type: string, entityId: string, entity: unknown, by?: Identity): Promise<void>;
  /** An absolute URL on this emulator for a path such as `/media/x.svg` (kept relative in storage). */
  absoluteUrl(path: string): string;
  /** Logs a line to stderr (never a secret). */
  log(message: string): void;
}
