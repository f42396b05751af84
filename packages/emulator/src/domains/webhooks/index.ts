/**
 * Webhooks: subscriptions (from `--webhook <url>` or the elevated endpoint, optionally limited to
 * some of the event types the emulator records), the signing key's public half, delivery state as
 * JSON and as a page, and the delivery worker (`worker.ts`) that the server starts and stops.
 *
 *   GET    /_api/emulator/v1/webhooks/public-key            public: `{alg, kid, pem, jwk}`
 *   POST   /_api/emulator/v1/webhooks/subscriptions         elevated: `{url, eventTypes?}`, idempotent
 *   GET    /_api/emulator/v1/webhooks/subscriptions         elevated: with delivery counts
 *   DELETE /_api/emulator/v1/webhooks/subscriptions/{id}    elevated
 *   GET    /_api/emulator/v1/webhooks/deliveries            elevated: `?subscriptionId&state&limit`
 *   POST   /_api/emulator/v1/webhooks/deliveries/redeliver  elevated: dead deliveries back to pending
 *   GET    /webhooks                                        the same state as a page
 *
 * A subscription made with an app's token belongs to that app: the app lists, deletes and
 * redelivers only its own (another's is a 404, as if unknown), and gets only its own deliveries.
 * The merchant's API key acts for the whole site: it sees and manages every subscription.
 * @module
 */
import type { Domain, Emulator, Identity } from '../../context.ts';
import { newId } from '../../crypto.ts';
import type { Sql } from '../../db/index.ts';
import { invalid, notFound } from '../../http/errors.ts';
import { FAMILY } from '../../http/router.ts';
import { qs, z } from '../../http/validate.ts';
import { signingKey } from '../../signing.ts';
import { REDIRECT_SESSION_CREATED } from '../redirects/index.ts';
import { escapeHtml, htmlPage } from '../redirects/intents.ts';
import { refusedPort, startWorker, type WebhookWorker } from './worker.ts';

export {
  DEFAULT_RETRY_MAX_MS,
  eventClaims,
  refusedPort,
  retryDelay,
  splitType,
  webhookSettings,
} from './worker.ts';

export const webhookMigrations = [
  {
    id: '0400_webhooks',
    sql: `
      -- The writing transaction of every event, so the worker can tell when none can appear any more.
      ALTER TABLE events ADD COLUMN txid bigint NOT NULL DEFAULT (pg_current_xact_id()::text::bigint);
      CREATE INDEX events_txid ON events (txid);
      CREATE INDEX events_entity ON events (entity_id, seq);
      CREATE TABLE webhook_keys (
        id text PRIMARY KEY,
        private_pem text NOT NULL,
        public_pem text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE TABLE webhook_subscriptions (
        id text PRIMARY KEY,
        url text NOT NULL,
        event_types jsonb,
        source text NOT NULL,
        start_seq bigint NOT NULL,
        cursor_txid bigint NOT NULL,
        created_at timestamptz NOT NULL
      );
      CREATE UNIQUE INDEX webhook_subscriptions_cli ON webhook_subscriptions (url) WHERE source = 'cli';
      CREATE TABLE webhook_deliveries (
        subscription_id text NOT NULL REFERENCES webhook_subscriptions (id) ON DELETE CASCADE,
        seq bigint NOT NULL,
        entity_id text NOT NULL,
        state text NOT NULL DEFAULT 'PENDING',
        attempts int NOT NULL DEFAULT 0,
        next_attempt_at timestamptz NOT NULL,
        last_attempt_at timestamptz,
        last_status int,
        last_error text,
        delivered_at timestamptz,
        PRIMARY KEY (subscription_id, seq)
      );
      CREATE INDEX webhook_deliveries_due ON webhook_deliveries (state, next_attempt_at);
      CREATE INDEX webhook_deliveries_entity ON webhook_deliveries (subscription_id, entity_id, seq);
    `,
  },
  {
    // The catalog's events took the platform's catalog v1 names: a subscription to the old names
    // follows them (kept sorted, as subscribe stores them).
    id: '0410_catalog_v1_event_types',
    sql: `
      UPDATE webhook_subscriptions s
         SET event_types = (
           SELECT jsonb_agg(COALESCE(r.new, t.type) ORDER BY COALESCE(r.new, t.type) COLLATE "C")
             FROM jsonb_array_elements_text(s.event_types) AS t(type)
             LEFT JOIN (VALUES
               ('wix.stores.catalog.v1.product_created', 'com.wix.ecommerce.catalog.api.v1.ProductCreated'),
               ('wix.stores.catalog.v1.product_changed', 'com.wix.ecommerce.catalog.api.v1.ProductChanged'),
               ('wix.stores.catalog.v1.product_deleted', 'com.wix.ecommerce.catalog.api.v1.ProductDeleted'),
               ('wix.stores.catalog.v1.product_variants_changed', 'com.wix.ecommerce.catalog.api.v1.VariantsChanged'),
               ('wix.stores.catalog.v1.collection_created', 'com.wix.ecommerce.catalog.api.v1.CollectionCreated'),
               ('wix.stores.catalog.v1.collection_changed', 'com.wix.ecommerce.catalog.api.v1.CollectionChanged'),
               ('wix.stores.catalog.v1.collection_deleted', 'com.wix.ecommerce.catalog.api.v1.CollectionDeleted')
             ) AS r(old, new) ON r.old = t.type)
       WHERE s.event_types IS NOT NULL;
    `,
  },
  {
    // Where a subscription starts: the events its creation could not see (see `subscribe`). Older
    // subscriptions (NULL) keep starting after `start_seq`.
    id: '0420_subscription_snapshot',
    sql: 'ALTER TABLE webhook_subscriptions ADD COLUMN start_snapshot pg_snapshot;',
  },
];

const MAX_SUBSCRIPTIONS = 100;

/** Whether `s` holds a C0 control character or DEL. */
function hasControlCharacter(s: string) {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c === 0x7f) return true;
  }
  return false;
}

/**
 * Whether `u` is an absolute http(s) URL. Control characters (NUL cannot even be stored) are no
 * part of a URL: the URL parser would drop or encode them, so the URL stored would not be the one fetched.
 */
const isHttpUrl = (u: string) =>
  !hasControlCharacter(u) && URL.canParse(u) && /^https?:$/.test(new URL(u).protocol);

/** Why a receiver on `port` gets nothing: every delivery would fail before leaving. */
export const badPort = (port: number) =>
  `must not use port ${port}: fetch refuses to connect to it (a "bad port" of the Fetch Standard); receive on another port`;

/** The longest receiver URL taken. */
const MAX_URL_LENGTH = 2048;

/**
 * Why `u` cannot be a receiver URL (as a violation's description, e.g. `must be an absolute
 * http:// or https:// URL`), or `undefined` when it can: the API's check and `--webhook`'s, so
 * that the command line refuses what the API would (as a bad command line).
 */
export function receiverUrlProblem(u: string): string | undefined {
  if (!isHttpUrl(u)) return 'must be an absolute http:// or https:// URL';
  const port = refusedPort(u);
  if (port) return badPort(port);
  if (u.length > MAX_URL_LENGTH || receiverUrl(u).length > MAX_URL_LENGTH)
    return `must be at most ${MAX_URL_LENGTH} characters long`;
  return undefined;
}

/** What is wrong with a `--webhook` URL, in a sentence that does not show it, or `undefined`. */
export function webhookFlagProblem(u: string): string | undefined {
  const problem = receiverUrlProblem(u);
  if (!problem) return undefined;
  return `--webhook ${problem}${isHttpUrl(u) ? '' : `, got ${describeUrl(u)}`}`;
}

/**
 * A receiver URL as stored, compared and fetched: the URL parser's serialisation without the
 * fragment, so that two spellings of one receiver (`HTTP://LOCALHOST:3000/hook`,
 * `http://localhost:3000/./hook`, `http://localhost:80/…`, surrounding spaces, `…/hook#a`) are one
 * subscription, not one delivering every event twice. A fragment is never sent over HTTP: the
 * receiver of `…/hook#a` is the receiver of `…/hook`.
 */
const receiverUrl = (u: string) => {
  const url = new URL(u);
  url.hash = '';
  return url.href;
};

const urlSchema = z
  .string()
  .max(MAX_URL_LENGTH)
  .superRefine((u, ctx) => {
    // (Too long is `max`'s violation, MAX_LENGTH with its `data.max`.)
    if (u.length > MAX_URL_LENGTH) return;
    const problem = receiverUrlProblem(u);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  })
  .transform(receiverUrl);
/** A subscription id as a caller sends it. */
const subscriptionId = z.string().min(1).max(200);
/** Event types to subscribe to: exact types the emulator records (a typo would never fire). */
const eventTypes = (known: readonly string[]) =>
  z
    .array(
      z
        .string()
        .max(200)
        .refine((t) => /^[a-z][a-z0-9]*(\.[A-Za-z0-9_]+)+$/.test(t), {
          message: 'must be an event type such as wix.ecom.v1.cart_created',
        })
        .pipe(
          z.enum(known as [string, ...string[]], {
            error: `is not an event type the emulator sends (it sends ${known.join(', ')})`,
          }),
        ),
    )
    .min(1)
    .max(50);

interface SubscriptionRow {
  id: string;
  url: string;
  event_types: string[] | null;
  /** Who made it and owns it: see {@link Source}. */
  source: string;
  created_at: Date | string;
}

/**
 * A subscription's `source`, which also says whom it belongs to: `cli` (the command line), `api`
 * (the site: made with the merchant's API key) or `app:<appId>` (made with that app's token). The
 * owner lives in `source` rather than a column of its own because a migration in this domain's
 * reserved range would run before `0400_webhooks` makes the table (migrations run in id order).
 */
type Source = 'cli' | 'api' | `app:${string}`;

const APP_SOURCE = 'app:';

/** The `source` of the subscriptions `who` makes. */
const sourceOf = (who: Identity): Source =>
  who.type === 'APP' ? `${APP_SOURCE}${who.appId ?? who.clientId}` : 'api';

/**
 * The subscriptions `who` may see and manage: an app, those of its own `source`; the site (the
 * merchant's API key), every one (`null`).
 */
const scopeOf = (who: Identity): Source | null => (who.type === 'APP' ? sourceOf(who) : null);

const renderSubscription = (r: SubscriptionRow) => ({
  id: r.id,
  url: r.url,
  ...(r.event_types ? { eventTypes: r.event_types } : {}),
  source: r.source === 'cli' ? 'COMMAND_LINE' : 'API',
  ...(r.source.startsWith(APP_SOURCE) ? { appId: r.source.slice(APP_SOURCE.length) } : {}),
  createdDate: new Date(r.created_at).toISOString(),
});

/**
 * Adds a subscription that starts with the next event. `cli` ones are unique by URL.
 *
 * "Next" is by commit, not by sequence number: the subscription gets every event its creation
 * could not see (the snapshot of the insert, kept in `start_snapshot`), so an event of a write
 * still running when it is made is delivered even if a later write, with a higher `seq`, committed
 * first; one that committed before it is not. (A start taken as `MAX(seq)` skipped the former.)
 * `start_seq` is that MAX, kept for subscriptions made before `start_snapshot` existed.
 */
async function subscribe(emu: Emulator, sql: Sql, url: string, types: string[] | null, source: Source) {
  const rows = await sql.query<SubscriptionRow>(
    `INSERT INTO webhook_subscriptions
       (id, url, event_types, source, start_seq, cursor_txid, start_snapshot, created_at)
     VALUES ($1, $2, $3, $4, (SELECT COALESCE(MAX(seq), 0) FROM events),
             pg_snapshot_xmin(pg_current_snapshot())::text::bigint, pg_current_snapshot(), $5)
     ON CONFLICT (url) WHERE source = 'cli' DO NOTHING
     RETURNING *`,
    [newId(), url, types ? JSON.stringify(types) : null, source, emu.now()],
  );
  return rows[0];
}

/**
 * Makes the command-line subscriptions (`--webhook`, the `webhooks` option) exactly `urls`: a URL
 * given again keeps its subscription and its progress; one not given again is removed, with its
 * deliveries. Subscriptions made through the API are left alone.
 */
export async function subscribeCommandLine(emu: Emulator, given: string[]) {
  for (const url of given) {
    const problem = webhookFlagProblem(url);
    if (problem) throw new Error(problem);
  }
  const urls = [...new Set(given.map(receiverUrl))];
  await emu.db.tx(async (sql) => {
    // One kept per URL given, by its serialisation: one stored in another spelling (by an older
    // emulator) keeps its progress under the URL's serialisation; a second spelling of it goes.
    const stored = await sql.query<{ id: string; url: string }>(
      "SELECT id, url FROM webhook_subscriptions WHERE source = 'cli' ORDER BY created_at, id",
    );
    const href = (u: string) => (URL.canParse(u) ? receiverUrl(u) : undefined);
    const kept = new Set<string>();
    for (const row of stored.sort((a, b) => Number(href(b.url) === b.url) - Number(href(a.url) === a.url))) {
      const url = href(row.url);
      if (!url || !urls.includes(url) || kept.has(url)) {
        await sql.query('DELETE FROM webhook_subscriptions WHERE id = $1', [row.id]);
        continue;
      }
      kept.add(url);
      if (url !== row.url)
        await sql.query('UPDATE webhook_subscriptions SET url = $2 WHERE id = $1', [row.id, url]);
    }
    for (const url of urls) await subscribe(emu, sql, url, null, 'cli');
  });
}

/** Who receives events now: every subscription, command-line ones first, URLs redacted. */
export async function receivers(emu: Emulator): Promise<{ url: string; source: 'COMMAND_LINE' | 'API' }[]> {
  const rows = await emu.db.query<SubscriptionRow>(
    "SELECT * FROM webhook_subscriptions ORDER BY source = 'cli' DESC, created_at, id",
  );
  return rows.map((r) => ({ url: redactUrl(r.url), source: r.source === 'cli' ? 'COMMAND_LINE' : 'API' }));
}

/** Registers the command-line subscriptions and starts the delivery worker. */
export async function startWebhooks(emu: Emulator, urls: string[] = []): Promise<WebhookWorker> {
  await subscribeCommandLine(emu, urls);
  return startWorker(emu);
}

/** The public key's path on the emulator. */
export const PUBLIC_KEY_PATH = '/_api/emulator/v1/webhooks/public-key';

const STATES = ['PENDING', 'DELIVERED', 'DEAD'] as const;

interface DeliveryRow {
  subscription_id: string;
  url: string;
  seq: number;
  event_id: string;
  type: string;
  entity_id: string;
  state: string;
  attempts: number;
  next_attempt_at: Date | string;
  last_attempt_at: Date | string | null;
  last_status: number | null;
  last_error: string | null;
  delivered_at: Date | string | null;
}

const iso = (d: Date | string | null) => (d ? new Date(d).toISOString() : undefined);

/** Deliveries, newest first; `scope` (see `scopeOf`) limits them to one owner's subscriptions. */
async function listDeliveries(
  emu: Emulator,
  f: { subscriptionId?: string; state?: string; limit: number },
  scope: Source | null = null,
): Promise<DeliveryRow[]> {
  return emu.db.query<DeliveryRow>(
    `SELECT d.*, s.url, e.event_id, e.type
       FROM webhook_deliveries d
       JOIN webhook_subscriptions s ON s.id = d.subscription_id
       JOIN events e ON e.seq = d.seq
      WHERE ($1::text IS NULL OR d.subscription_id = $1) AND ($2::text IS NULL OR d.state = $2)
        AND ($4::text IS NULL OR s.source = $4)
      ORDER BY d.seq DESC, s.created_at
      LIMIT $3`,
    [f.subscriptionId ?? null, f.state ?? null, f.limit, scope],
  );
}

/** Subscriptions with their delivery counts; `scope` (see `scopeOf`) limits them to one owner's. */
async function listSubscriptions(emu: Emulator, scope: Source | null = null) {
  const subs = await emu.db.query<SubscriptionRow & { pending: number; delivered: number; dead: number }>(
    `SELECT s.*,
            COUNT(*) FILTER (WHERE d.state = 'PENDING')::int AS pending,
            COUNT(*) FILTER (WHERE d.state = 'DELIVERED')::int AS delivered,
            COUNT(*) FILTER (WHERE d.state = 'DEAD')::int AS dead
       FROM webhook_subscriptions s LEFT JOIN webhook_deliveries d ON d.subscription_id = s.id
      WHERE $1::text IS NULL OR s.source = $1
      GROUP BY s.id ORDER BY s.created_at, s.id`,
    [scope],
  );
  return subs.map((s) => ({
    ...renderSubscription(s),
    deliveries: { pending: s.pending, delivered: s.delivered, dead: s.dead },
  }));
}

const renderDelivery = (d: DeliveryRow) => ({
  subscriptionId: d.subscription_id,
  url: d.url,
  eventId: d.event_id,
  eventType: d.type,
  entityId: d.entity_id,
  sequence: Number(d.seq),
  state: d.state,
  attempts: d.attempts,
  ...(d.last_status != null ? { lastStatus: d.last_status } : {}),
  ...(d.last_error ? { lastError: d.last_error } : {}),
  ...(d.state === 'PENDING' ? { nextAttemptDate: iso(d.next_attempt_at) } : {}),
  ...(d.last_attempt_at ? { lastAttemptDate: iso(d.last_attempt_at) } : {}),
  ...(d.delivered_at ? { deliveredDate: iso(d.delivered_at) } : {}),
});

/**
 * What a refused receiver URL is, for a message, without the URL itself (it may carry a
 * receiver's secret): `a file: URL`, `text that is not a URL`, or one with control characters.
 */
export function describeUrl(u: string) {
  if (hasControlCharacter(u)) return 'a URL with control characters';
  return URL.canParse(u) ? `a ${new URL(u).protocol} URL` : 'text that is not a URL';
}

/**
 * A receiver URL as the `/webhooks` page and the banner show it: without user info, query and
 * fragment (they may carry a receiver's secret), `?…` marking a query that was left out.
 */
export function redactUrl(u: string) {
  const url = new URL(u);
  return url.origin + url.pathname + (url.search ? '?…' : '');
}

const E = FAMILY.none;
const BASE = '/_api/emulator/v1/webhooks';
/** The webhooks page's own stylesheet (wide tables), after the hosted pages' one. */
const WEBHOOKS_PAGE_STYLE =
  'body{max-width:72rem}table{border-collapse:collapse;font-size:14px}td,th{border:1px solid #ccc;padding:.2rem .4rem;text-align:left}.dead{background:#fdd}.pending{background:#ffd}';

export const webhooks: Domain = {
  name: 'webhooks',
  migrations: webhookMigrations,
  routes(router, emu) {
    router.route({
      method: 'GET',
      family: E,
      path: PUBLIC_KEY_PATH,
      access: 'public',
      async handler() {
        const key = await signingKey(emu);
        return { alg: 'RS256', kid: key.kid, pem: key.publicPem, jwk: key.publicJwk };
      },
    });

    router.route({
      method: 'POST',
      family: E,
      path: `${BASE}/subscriptions`,
      access: 'elevated',
      schema: z.object({ url: urlSchema, eventTypes: eventTypes(emu.eventTypes).optional() }).strict(),
      async handler({ msg, identity }) {
        const types = msg.eventTypes ? [...new Set(msg.eventTypes)].sort() : null;
        const source = sourceOf(identity);
        const sub = await emu.db.tx(async (sql) => {
          // Creates take turns until their transactions end, so that two cannot both count 99 and
          // both insert, nor both find no twin and both insert it (on PGlite, whose transactions
          // already run one at a time, the lock is free).
          await sql.query("SELECT pg_advisory_xact_lock(hashtext('webhook_subscriptions.cap'))");
          // The same subscription again (same owner, URL and event types) is the one there is: a
          // second would deliver every event twice. Answering it (200) rather than a 409 makes the
          // create safe to retry and to run at every start of an app, with no error to tell apart.
          const [twin] = await sql.query<SubscriptionRow>(
            `SELECT * FROM webhook_subscriptions
              WHERE source = $1 AND url = $2 AND event_types IS NOT DISTINCT FROM $3::jsonb
              ORDER BY created_at, id LIMIT 1`,
            [source, msg.url, types ? JSON.stringify(types) : null],
          );
          if (twin) return twin;
          const [n] = await sql.query<{ n: number }>('SELECT COUNT(*)::int AS n FROM webhook_subscriptions');
          if (n!.n >= MAX_SUBSCRIPTIONS)
            throw invalid([
              {
                field: 'url',
                description: `cannot be added: the emulator holds at most ${MAX_SUBSCRIPTIONS} subscriptions`,
                violatedRule: 'MAX_SIZE',
                data: { max: MAX_SUBSCRIPTIONS },
              },
            ]);
          return subscribe(emu, sql, msg.url, types, source);
        });
        return { subscription: renderSubscription(sub!) };
      },
    });

    router.route({
      method: 'GET',
      family: E,
      path: `${BASE}/subscriptions`,
      access: 'elevated',
      handler: async ({ identity }) => ({ subscriptions: await listSubscriptions(emu, scopeOf(identity)) }),
    });

    router.route({
      method: 'DELETE',
      family: E,
      path: `${BASE}/subscriptions/{id}`,
      access: 'elevated',
      schema: z.object({ id: subscriptionId }),
      async handler({ msg, identity }) {
        // Another app's subscription is a 404, as one that does not exist: its id says nothing.
        const gone = await emu.db.query(
          'DELETE FROM webhook_subscriptions WHERE id = $1 AND ($2::text IS NULL OR source = $2) RETURNING id',
          [msg.id, scopeOf(identity)],
        );
        if (!gone.length)
          throw notFound(
            'SUBSCRIPTION_NOT_FOUND',
            `Webhook subscription ${JSON.stringify(msg.id)} not found`,
            {
              subscriptionId: msg.id,
            },
          );
        return {};
      },
    });

    router.route({
      method: 'GET',
      family: E,
      path: `${BASE}/deliveries`,
      access: 'elevated',
      schema: z.object({
        subscriptionId: subscriptionId.optional(),
        state: z.enum(STATES).optional(),
        limit: qs.int().pipe(z.number().int().min(1).max(1000)).default(100),
      }),
      async handler({ msg, identity }) {
        return { deliveries: (await listDeliveries(emu, msg, scopeOf(identity))).map(renderDelivery) };
      },
    });

    router.route({
      method: 'POST',
      family: E,
      path: `${BASE}/deliveries/redeliver`,
      access: 'elevated',
      schema: z.object({ subscriptionId }).strict(),
      async handler({ msg, identity }) {
        return emu.db.tx(async (sql) => {
          const sub = await sql.query(
            'SELECT 1 FROM webhook_subscriptions WHERE id = $1 AND ($2::text IS NULL OR source = $2)',
            [msg.subscriptionId, scopeOf(identity)],
          );
          if (!sub.length)
            throw notFound(
              'SUBSCRIPTION_NOT_FOUND',
              `Webhook subscription ${JSON.stringify(msg.subscriptionId)} not found`,
              { subscriptionId: msg.subscriptionId },
            );
          const rows = await sql.query(
            `UPDATE webhook_deliveries SET state = 'PENDING', attempts = 0, next_attempt_at = $2
              WHERE subscription_id = $1 AND state = 'DEAD' RETURNING seq`,
            [msg.subscriptionId, emu.now()],
          );
          return { redelivering: rows.length };
        });
      },
    });

    router.route({
      method: 'GET',
      family: E,
      path: '/webhooks',
      access: 'public',
      async handler({ c }) {
        const subs = await listSubscriptions(emu);
        const recent = await listDeliveries(emu, { limit: 200 });
        const cell = (v: unknown) => `<td>${escapeHtml(v == null ? '' : String(v))}</td>`;
        // The page is public: an entity id that opens something (a redirect session's id is its
        // page's address: a checkout to place, a logout) is for the subscriber's payload only.
        const entity = (d: DeliveryRow) =>
          d.type === REDIRECT_SESSION_CREATED ? '<td><i>not shown</i></td>' : cell(d.entity_id);
        const subRows = subs
          .map(
            (s) =>
              `<tr>${cell(redactUrl(s.url))}${cell(s.eventTypes?.join(', ') ?? 'every event')}${cell(s.source)}` +
              `${cell(s.deliveries.pending)}${cell(s.deliveries.delivered)}${cell(s.deliveries.dead)}</tr>`,
          )
          .join('');
        const deliveryRows = recent
          .map(
            (d) =>
              `<tr class="${d.state.toLowerCase()}">${cell(d.seq)}${cell(d.type)}${entity(d)}${cell(redactUrl(d.url))}` +
              `${cell(d.state)}${cell(d.attempts)}${cell(d.last_error ?? (d.last_status ? `HTTP ${d.last_status}` : ''))}` +
              `${cell(d.state === 'PENDING' ? iso(d.next_attempt_at) : iso(d.delivered_at))}</tr>`,
          )
          .join('');
        return htmlPage(
          c,
          'Webhooks',
          `<p>Events are POSTed as RS256 JWTs; the public key is at <a href="${PUBLIC_KEY_PATH}">${PUBLIC_KEY_PATH}</a>.</p>` +
            '<h2>Subscriptions</h2><table><thead><tr><th>URL</th><th>Events</th><th>Source</th><th>Pending</th><th>Delivered</th><th>Dead</th></tr></thead>' +
            `<tbody>${subRows || '<tr><td colspan="6">No subscriptions</td></tr>'}</tbody></table>` +
            '<h2>Recent deliveries</h2><table><thead><tr><th>#</th><th>Event</th><th>Entity</th><th>URL</th><th>State</th><th>Attempts</th><th>Last error</th><th>Next attempt / delivered</th></tr></thead>' +
            `<tbody>${deliveryRows || '<tr><td colspan="8">No deliveries</td></tr>'}</tbody></table>`,
          200,
          { style: WEBHOOKS_PAGE_STYLE },
        );
      },
    });
  },
};
