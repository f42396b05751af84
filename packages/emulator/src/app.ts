/**
 * Builds the emulator: opens storage, migrates, seeds, and assembles the Hono app with request
 * ids, CORS for allowed origins (configured and the OAuth clients'), a cap on request bodies that
 * holds while they stream, one error handler that renders the platform envelope, and 404/405
 * answers in the same envelope.
 * @module
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { Hono } from 'hono';
import { actor, eventIdentity } from './actor.ts';
import type { Domain, Emulator, EmulatorConfig } from './context.ts';
import { checkDataDir, dataDirError, isDataDir } from './datadir.ts';
import { type Db, migrate, openDb, storageUnavailable, transactionConflict } from './db/index.ts';
import { MEDIA_ID } from './domains/catalog/products.ts';
import { mediaItemUrl } from './domains/catalog/store.ts';
import { DOMAINS } from './domains/index.ts';
import { clientOrigins, demoCredentials, identify } from './domains/platform/index.ts';
import { limitBody } from './http/decode.ts';
import { ApiError, appError } from './http/errors.ts';
import { type Registered, Router } from './http/router.ts';
import { placeholderSvg } from './media.ts';

export interface EmulatorOptions {
  /** `memory`, a data directory, or `postgres://…` (default `memory`), or an open Db. */
  db?: string | Db;
  /** PostgreSQL schema to use (tests isolate themselves with one). */
  schema?: string;
  /**
   * `demo` seeds the demo store on first start; `none` leaves out its products, collections and
   * coupons (the demo client and API key, and the All Products collection, are there either way).
   */
  seed?: 'demo' | 'none';
  /** Allowed origins for CORS and OAuth redirects. */
  allowedOrigins?: string[];
  /** Replaceable clock. */
  now?: () => Date;
  /** Overrides of settings. */
  config?: Partial<EmulatorConfig>;
  /** Extra domains (tests). */
  domains?: Domain[];
  /** Where log lines go (default stderr). */
  log?: (line: string) => void;
  /** Webhook receiver URLs subscribed to every event (`--webhook`); delivered while the server runs. */
  webhooks?: string[];
}

export interface EmulatorInstance {
  app: Hono;
  emu: Emulator;
  /** The demo credentials (client id, API key, site id). */
  demo: { clientId: string; apiKey: string; siteId: string };
  /** Every API route served (method, path, access). */
  routes: readonly Registered[];
  /** Sets the public URL once the server listens. */
  setPublicUrl(url: string): void;
  close(): Promise<void>;
}

// `Retry-After` is no CORS-safelisted header: unexposed, a page's client could not read how long a
// 429 or 503 asks it to wait, and retried on its own backoff instead.
const EXPOSED = 'X-Wix-Request-Id, X-Wix-Consistent, Retry-After';
const ALLOWED_HEADERS =
  'Authorization, Content-Type, x-wix-bi-gateway, wix-site-id, wix-account-id, X-Wix-Consistent';

/** A header list as a preflight asks for it: `x-app-version, traceparent` (field names only). */
const HEADER_LIST = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+(\s*,\s*[!#$%&'*+.^_`|~0-9A-Za-z-]+)*$/;

/**
 * The headers a preflight from an allowed origin may send: the platform's, and those it asks for.
 * A client's own headers (the SDK's `createClient({ headers })`, a tracing `traceparent`) are
 * sent on every call; left out of the answer, the browser refused every call of such a client.
 * The origin is allowed, and credentials travel in headers, not cookies: naming them is safe.
 */
function allowedHeaders(asked: string | undefined) {
  const list = asked?.trim();
  return list && list.length <= 2048 && HEADER_LIST.test(list)
    ? `${ALLOWED_HEADERS}, ${list}`
    : ALLOWED_HEADERS;
}

export async function createEmulator(options: EmulatorOptions = {}): Promise<EmulatorInstance> {
  const given = options.db;
  // A data directory that is a file or holds other files is refused before PGlite writes into it.
  const dir = typeof given === 'string' && isDataDir(given) ? given : undefined;
  if (dir) checkDataDir(dir);
  const db =
    typeof given === 'object'
      ? given
      : await openDb(given ?? 'memory', { schema: options.schema }).catch((e: unknown) => {
          throw dir ? dataDirError(dir, e) : e;
        });
  const domains = [...DOMAINS, ...(options.domains ?? [])];
  const unknown = await migrate(
    db,
    domains.flatMap((d) => d.migrations),
  );

  const secret = await loadSecret(db);
  const demo = demoCredentials(secret);
  const config: EmulatorConfig = {
    allowedOrigins: options.allowedOrigins ?? [],
    publicUrl: 'http://127.0.0.1',
    accessTokenTtl: 14_400,
    refreshIdleTtl: 14 * 24 * 3600,
    scryptN: 2 ** 17,
    ...options.config,
  };
  const log = options.log ?? ((line: string) => process.stderr.write(line + '\n'));
  // Data a newer emulator wrote (a branch checked out after a newer one ran on this directory):
  // its tables may have columns and rules this version does not know of. Said, not refused, since
  // most migrations only add; the way out is the newer emulator or a new data directory.
  if (unknown.length)
    log(
      `[emulator] warning: this database was written by a newer emulator (migrations unknown here: ${unknown.slice(0, 3).join(', ')}${unknown.length > 3 ? ', …' : ''}); it may not work as expected: run the newer emulator, or start on a new data directory`,
    );
  const eventTypes = [...new Set(domains.flatMap((d) => d.events ?? []))].sort();
  const plainEventTypes = domains.flatMap((d) => d.plainEvents ?? []);
  const emu: Emulator = {
    db,
    config,
    now: options.now ?? (() => new Date()),
    siteId: demo.siteId,
    secret,
    identify: (authorization, siteId) => identify(emu, authorization, siteId),
    eventTypes,
    plainEventTypes,
    async recordEvent(sql, type, entityId, entity, by) {
      // A type no domain declares could not be subscribed to, nor found in the docs' list.
      if (!eventTypes.includes(type)) throw new Error(`Event type ${type} is not declared by any domain`);
      const identity = eventIdentity(by ?? actor.getStore());
      await sql.query(
        'INSERT INTO events (event_id, type, entity_id, entity, identity, created_at) VALUES ($1, $2, $3, $4, $5, $6)',
        [
          randomUUID(),
          type,
          entityId,
          JSON.stringify(entity ?? null),
          identity ? JSON.stringify(identity) : null,
          emu.now(),
        ],
      );
    },
    absoluteUrl: (path) => (path.startsWith('/') ? config.publicUrl + path : path),
    log,
  };

  await seedOnce(emu, domains, (options.seed ?? 'demo') === 'demo');

  const app = new Hono();
  const router = new Router(app, emu);

  app.use('*', async (c, next) => {
    const origin = c.req.header('origin');
    const corsOk =
      !!origin && !c.req.path.startsWith('/oauth2/authorize') && (await isAllowedOrigin(emu, origin));
    // Every answer varies by Origin, with CORS headers or without: a cache (the browser's HTTP
    // cache, for a day, of a `/media` image first loaded by an <img> without Origin) must not
    // answer a page's CORS request with a copy that has none.
    const every: Record<string, string> = {
      'X-Wix-Request-Id': randomUUID(),
      Vary: 'Origin',
      ...(corsOk ? { 'Access-Control-Allow-Origin': origin, 'Access-Control-Expose-Headers': EXPOSED } : {}),
    };
    for (const [k, v] of Object.entries(every)) c.header(k, v);
    if (c.req.method === 'OPTIONS') {
      if (!corsOk) return c.body(null, 204);
      c.header('Access-Control-Allow-Methods', 'GET, POST, PATCH, PUT, DELETE');
      c.header(
        'Access-Control-Allow-Headers',
        allowedHeaders(c.req.header('access-control-request-headers')),
      );
      c.header('Access-Control-Max-Age', '600');
      return c.body(null, 204);
    }
    await next();
    // A route may answer with a `Response` of its own (the GraphQL SDL), which the headers set
    // above do not reach: they go on every response here.
    const missing = Object.entries(every).filter(([k]) => !c.res.headers.has(k));
    if (!missing.length) return;
    try {
      for (const [k, v] of missing) c.res.headers.set(k, v);
    } catch {
      // Immutable headers (`Response.redirect`, a fetched response): set them on a copy.
      const copy = new Response(c.res.body, c.res);
      for (const [k, v] of missing) copy.headers.set(k, v);
      c.res = copy;
    }
  });
  // One cap on every request body, enforced while it streams (checklist 49); routes may cap lower.
  app.use('*', limitBody());

  app.get('/health', (c) => c.json({ ok: true }));
  app.get('/media/:file', async (c) => {
    const file = c.req.param('file');
    // An image added by its URL (`ext-<hash>`: the id a cart line's `wix:image://v1/<id>` names, and
    // which a storefront loads from here) is sent to that URL, as stored on a product; it was a 404.
    if (/^ext-[0-9a-f]{20}$/.test(file)) {
      const to = await mediaItemUrl(emu.db, file);
      if (!to || !(/^https?:\/\//i.test(to) || /^\/(?![/\\])/.test(to)))
        throw appError(404, 'MEDIA_NOT_FOUND', 'No such media file');
      c.header('Cache-Control', 'public, max-age=300');
      return c.redirect(to, 302);
    }
    // Any media id the catalog takes (`MEDIA_ID`: the platform's `…~mv2.jpg`, a video's `.mp4`) is
    // drawn from its name, as the demo's SVGs are: only `.svg` names were, the others a broken image.
    if (!MEDIA_ID.test(file)) throw appError(404, 'MEDIA_NOT_FOUND', 'No such media file');
    c.header('Cache-Control', 'public, max-age=86400');
    return c.body(placeholderSvg(file.replace(/\.[^.]*$/, '')), 200, { 'Content-Type': 'image/svg+xml' });
  });

  for (const d of domains) d.routes(router, emu);

  app.notFound((c) => {
    // `/health` and `/media/…` are the app's own, outside the route table: GET there too.
    const own = /^\/(health|media\/[^/]+)$/.test(c.req.path) ? (['GET'] as const) : [];
    const allowed = [...new Set([...router.allowedMethods(c.req.path), ...own])];
    const err = allowed.length
      ? appError(
          405,
          'METHOD_NOT_ALLOWED',
          `${c.req.method} is not supported on ${c.req.path}; use ${allowed.join(' or ')}`,
        )
      : appError(404, 'NOT_FOUND', `No route for ${c.req.method} ${c.req.path}`);
    if (allowed.length) c.header('Allow', allowed.join(', '));
    return c.json(err.toJSON(), err.status as 404);
  });

  app.onError((error, c) => {
    if (error instanceof ApiError) {
      for (const [k, v] of Object.entries(error.headers)) c.header(k, v);
      return c.json(error.toJSON(), error.status as 400);
    }
    // Never leak a stack trace or driver message to the caller; log the gist for the developer.
    log(`[emulator] ${c.req.method} ${c.req.path} failed: ${(error as Error)?.message ?? String(error)}`);
    const requestId = c.res.headers.get('X-Wix-Request-Id');
    // The database is down or restarting, or it ended this request's transaction for a concurrent
    // one's sake (a deadlock, a serialization failure; rolled back, nothing written): a retryable
    // answer, so clients retry their reads, and a writer knows its write can be sent again.
    const conflict = transactionConflict(error);
    if (conflict || storageUnavailable(error)) {
      c.header('Retry-After', '1');
      const description = conflict
        ? 'A concurrent request conflicted with this one; nothing was changed, and it can be sent again'
        : 'Service unavailable';
      return c.json(
        {
          message: 'Service unavailable',
          details: { applicationError: { code: 'UNAVAILABLE', description, data: { requestId } } },
        },
        503,
      );
    }
    return c.json(
      {
        message: 'Internal error',
        details: {
          applicationError: { code: 'INTERNAL_ERROR', description: 'Internal error', data: { requestId } },
        },
      },
      500,
    );
  });

  return {
    app,
    emu,
    demo,
    routes: router.list(),
    setPublicUrl(url) {
      config.publicUrl = url.replace(/\/+$/, '');
    },
    close: () => db.close(),
  };
}

/**
 * Whether an origin may call the API from a browser (exact string match): one of the configured
 * allowed origins (`--allowed-origin`), or one an OAuth client allows, as for its redirects. When
 * the clients' origins cannot be read, only the configured ones are allowed.
 */
async function isAllowedOrigin(emu: Emulator, origin: string) {
  if (emu.config.allowedOrigins.includes(origin)) return true;
  return (await clientOrigins(emu).catch(() => new Set<string>())).has(origin);
}

async function loadSecret(db: Db): Promise<Buffer> {
  const fresh = randomBytes(32).toString('base64');
  await db.query(
    "INSERT INTO emulator_meta (key, value) VALUES ('secret', $1) ON CONFLICT (key) DO NOTHING",
    [fresh],
  );
  const rows = await db.query<{ value: string }>("SELECT value FROM emulator_meta WHERE key = 'secret'");
  return Buffer.from(rows[0]!.value, 'base64');
}

async function seedOnce(emu: Emulator, domains: Domain[], demo: boolean) {
  await emu.db.tx(async (sql) => {
    if (emu.db.kind === 'postgres') await sql.query('SELECT pg_advisory_xact_lock(4243)');
    // One marker per domain and kind, so a domain added later still seeds an older data directory,
    // and a store first started without the demo gets it on a later start with it.
    const steps = [
      ...domains.map((d) => ({ key: `base:${d.name}`, run: d.base, value: 'base' })),
      ...(demo ? domains.map((d) => ({ key: `seeded:${d.name}`, run: d.seed, value: 'demo' })) : []),
    ];
    for (const { key, run, value } of steps) {
      if (!run) continue;
      const seeded = await sql.query('SELECT 1 FROM emulator_meta WHERE key = $1', [key]);
      if (seeded.length) continue;
      await run(emu, sql);
      await sql.query('INSERT INTO emulator_meta (key, value) VALUES ($1, $2)', [key, value]);
    }
  });
}
