/**
 * The delivery worker. The `events` table is the outbox: every tick queues the events each
 * subscription has not seen yet into `webhook_deliveries`, claims the deliveries that are due
 * (only the oldest pending one per entity, so an entity's events arrive in order), starts POSTing
 * each as a signed JWT without waiting for the answers (a slow receiver holds back only its own
 * events), and records each outcome: delivered on 2xx, otherwise retried with exponential
 * backoff and jitter, dead after `maxAttempts`. All state is in the database, so a restart (or a
 * crash) picks up where it stopped; a delivery cut short is sent again (at least once).
 *
 * Queuing is exact without locking event writers: every event row carries the id of the
 * transaction that wrote it, and a subscription's cursor is the oldest transaction that was still
 * running at the last tick. Events of later transactions are scanned again (and de-duplicated)
 * until no running transaction can add one below the cursor. A subscription starts with the events
 * its creation's snapshot could not see: those of writes committed after it, whatever their `seq`.
 * @module
 */
import { changedFields } from '../../changes.ts';
import type { Emulator } from '../../context.ts';
import { type SigningKey, signingKey, signJwt } from '../../signing.ts';

export interface WebhookSettings {
  /** How often the worker looks for new events and due retries (ms). */
  pollMs: number;
  /** First retry delay (ms); doubles with each attempt, with jitter. */
  retryBaseMs: number;
  /** Longest retry delay (ms). */
  retryMaxMs: number;
  /** Attempts before a delivery is dead-lettered. */
  maxAttempts: number;
  /** How long a receiver has to answer (ms). */
  timeoutMs: number;
  /** Lifetime of a delivery's JWT (s). */
  tokenTtl: number;
}

/**
 * The longest delay a timer takes (about 24.8 days): Node fires a longer one at once, so a
 * `webhookPollMs` of `Infinity` (never poll: `deliverWebhooks()` only) polled every millisecond, and
 * a `webhookTimeoutMs` of `Infinity` failed every delivery (`AbortSignal.timeout` refuses it).
 */
const MAX_DELAY_MS = 2 ** 31 - 1;

/** A setting as a whole number from 0 to `MAX_DELAY_MS`, or `fallback` when it is not a number ≥ 0. */
const num = (v: unknown, fallback: number) =>
  typeof v === 'number' && v >= 0 ? Math.min(Math.round(v), MAX_DELAY_MS) : fallback;

/** The longest wait before a retry unless `webhookRetryMaxMs` says otherwise: 5 minutes. */
export const DEFAULT_RETRY_MAX_MS = 5 * 60_000;

/** Settings from the emulator config (`webhookPollMs`, `webhookRetryBaseMs`, …), with defaults. */
export function webhookSettings(emu: Emulator): WebhookSettings {
  const c = emu.config;
  return {
    pollMs: num(c.webhookPollMs, 250),
    retryBaseMs: num(c.webhookRetryBaseMs, 1000),
    retryMaxMs: num(c.webhookRetryMaxMs, DEFAULT_RETRY_MAX_MS),
    maxAttempts: Math.max(1, num(c.webhookMaxAttempts, 8)),
    timeoutMs: num(c.webhookTimeoutMs, 10_000),
    tokenTtl: num(c.webhookTokenTtl, 3600),
  };
}

/** Exponential backoff with jitter: a random delay in [½, 1] × base × 2^(attempt−1), capped. */
export function retryDelay(s: WebhookSettings, attempt: number, random = Math.random) {
  const full = Math.min(s.retryMaxMs, s.retryBaseMs * 2 ** Math.min(attempt - 1, 30));
  return Math.round(full / 2 + (random() * full) / 2);
}

/** A domain event's type: `wix.headless.v1.redirect_session_created` → fqdn `…v1.redirect_session`, slug `created`. */
export function splitType(type: string) {
  const dot = type.lastIndexOf('.');
  const last = type.slice(dot + 1);
  const m = /^(.+?)_(created|changed|updated|deleted)$/.exec(last);
  return m
    ? { fqdn: `${type.slice(0, dot + 1)}${m[1]}`, slug: m[2]! }
    : { fqdn: type.slice(0, dot), slug: last };
}

interface EventRow {
  seq: number;
  event_id: string;
  type: string;
  entity_id: string;
  entity: unknown;
  /** Who caused it (`EventIdentity`), when known. */
  identity?: unknown;
  created_at: Date | string;
}

/**
 * The top-level fields that differ between two versions of an entity, each with its value before
 * the change, as the platform's `modifiedFields` carries them (an object of field paths to "their
 * values before the event occurred", which the platform SDK transforms like the entity). A field
 * the entity did not have before is `null`, so that its name is still there.
 */
function modifiedFields(before: unknown, after: unknown): Record<string, unknown> | undefined {
  if (!before || !after || typeof before !== 'object' || typeof after !== 'object') return undefined;
  const a = before as Record<string, unknown>;
  if (!('id' in a) || !('id' in after)) return undefined;
  return Object.fromEntries(changedFields(a, after).map((k) => [k, a[k] ?? null]));
}

/**
 * What the emulator adds to every envelope, beside the platform's `eventType`, `instanceId` and
 * `data`: a domain event's metadata, so that receivers of plain events (which carry none) can drop
 * duplicates (`eventId`) and keep each entity's order (`entityEventSequence`). The platform SDK
 * reads only `eventType`, `instanceId`, `identity`, `accountInfo` and `data`, and ignores them.
 */
function envelopeAdditions(e: EventRow) {
  return {
    eventId: e.event_id,
    entityId: e.entity_id,
    eventTime: new Date(e.created_at).toISOString(),
    entityEventSequence: String(e.seq),
  };
}

/**
 * The domain event of one event row. It carries its entity twice: as the object the platform SDK
 * reads (`createdEvent.entity`, `updatedEvent.currentEntity`, `deletedEvent.deletedEntity`,
 * `actionEvent.body`) and as the JSON string of the same name with `AsJson` (`entityAsJson`, …) that
 * other receivers read; which of the two the platform itself sends is not confirmed, so a receiver
 * written for either works.
 */
function domainEvent(e: EventRow, previous: unknown) {
  const { fqdn, slug } = splitType(e.type);
  const entity = e.entity ?? {};
  const json = JSON.stringify(entity);
  const body =
    slug === 'created'
      ? { createdEvent: { entity, entityAsJson: json } }
      : slug === 'changed' || slug === 'updated'
        ? {
            updatedEvent: {
              currentEntity: entity,
              currentEntityAsJson: json,
              modifiedFields: modifiedFields(previous, e.entity),
            },
          }
        : slug === 'deleted'
          ? { deletedEvent: { deletedEntity: entity, deletedEntityAsJson: json } }
          : { actionEvent: { body: entity, bodyAsJson: json } };
  const { eventId, ...metadata } = envelopeAdditions(e);
  return { id: eventId, entityFqdn: fqdn, slug, ...metadata, triggeredByAnonymizeRequest: false, ...body };
}

/**
 * The JWT claims of one event, in the platform's webhook envelope: `data` is a JSON string of
 * `{eventType, instanceId, data}` and the emulator's additions, whose `data` is a JSON string of the
 * event: a plain event's payload as it was recorded (`Domain.plainEvents`), else the domain event.
 */
export function eventClaims(emu: Emulator, e: EventRow, previous: unknown, ttl: number) {
  const data = emu.plainEventTypes.includes(e.type) ? e.entity : domainEvent(e, previous);
  const iat = Math.floor(emu.now().getTime() / 1000);
  return {
    data: JSON.stringify({
      eventType: e.type,
      instanceId: emu.siteId,
      data: JSON.stringify(data),
      // As the platform sends it: a JSON string, left out when no one is known.
      ...(e.identity ? { identity: JSON.stringify(e.identity) } : {}),
      ...envelopeAdditions(e),
    }),
    iat,
    exp: iat + ttl,
    iss: 'shopkit-emulator',
  };
}

/**
 * Queues, for every subscription, the events written since its cursor. Returns how many.
 *
 * One statement, so one snapshot: the cursors advance to the oldest transaction still running for
 * exactly the subscriptions the queuing saw (one committed between two statements would have its
 * cursor moved past events never queued for it). An event is a subscription's when its
 * subscription's creation could not see it (`start_snapshot`; older subscriptions: after
 * `start_seq`). The subscriptions are read locked against deletion (`FOR KEY SHARE`): one deleted
 * meanwhile is left out, where the foreign key of its new deliveries failed the whole pass.
 */
export async function enqueue(emu: Emulator): Promise<number> {
  const [row] = await emu.db.query<{ queued: number }>(
    `WITH subs AS (
       SELECT id, event_types, start_seq, start_snapshot, cursor_txid FROM webhook_subscriptions
          FOR KEY SHARE),
     snap AS (SELECT pg_snapshot_xmin(pg_current_snapshot())::text::bigint AS xmin),
     queued AS (
       INSERT INTO webhook_deliveries (subscription_id, seq, entity_id, next_attempt_at)
       SELECT s.id, e.seq, e.entity_id, $1
         FROM subs s
         JOIN events e ON e.txid >= s.cursor_txid
          AND CASE WHEN s.start_snapshot IS NULL THEN e.seq > s.start_seq
                   ELSE NOT pg_visible_in_snapshot(e.txid::text::xid8, s.start_snapshot) END
        WHERE s.event_types IS NULL OR s.event_types ? e.type
       ON CONFLICT DO NOTHING
       RETURNING seq),
     moved AS (
       UPDATE webhook_subscriptions w SET cursor_txid = snap.xmin FROM snap, subs s
        WHERE w.id = s.id AND s.cursor_txid < snap.xmin
       RETURNING 1)
     SELECT (SELECT COUNT(*) FROM queued)::int AS queued, (SELECT COUNT(*) FROM moved)::int AS moved`,
    [emu.now()],
  );
  return row!.queued;
}

interface Claimed {
  subscription_id: string;
  seq: number;
  attempts: number;
  url: string;
}

/**
 * Claims up to `limit` due deliveries (the oldest pending one per entity) with a lease, leaving out
 * those this worker is sending (`sending`, as `subscriptionId:seq`) and, per subscription, no more
 * than it has room for: `PER_SUBSCRIPTION` less what it has in flight (`busy`, subscription id to
 * count). Leaving out only the subscriptions already full gave one with 15 in flight 16 more.
 */
async function claim(
  emu: Emulator,
  s: WebhookSettings,
  limit: number,
  sending: string[] = [],
  busy: ReadonlyMap<string, number> = new Map(),
): Promise<Claimed[]> {
  const now = emu.now();
  const lease = new Date(now.getTime() + s.timeoutMs + 1000);
  return emu.db.tx((sql) =>
    sql.query<Claimed>(
      `WITH candidates AS (
         SELECT d.subscription_id, d.seq,
                row_number() OVER (PARTITION BY d.subscription_id ORDER BY d.seq) AS rank
           FROM webhook_deliveries d
          WHERE d.state = 'PENDING' AND d.next_attempt_at <= $1
            AND NOT ((d.subscription_id || ':' || d.seq::text) = ANY($4::text[]))
            AND NOT EXISTS (
              SELECT 1 FROM webhook_deliveries p
               WHERE p.subscription_id = d.subscription_id AND p.entity_id = d.entity_id
                 AND p.state = 'PENDING' AND p.seq < d.seq)),
       due AS (
         SELECT d.subscription_id, d.seq FROM webhook_deliveries d
          WHERE (d.subscription_id, d.seq) IN (
                  SELECT c.subscription_id, c.seq
                    FROM candidates c
                    LEFT JOIN unnest($5::text[], $6::int[]) AS b(id, n) ON b.id = c.subscription_id
                   WHERE c.rank <= $7 - COALESCE(b.n, 0))
            AND d.state = 'PENDING' AND d.next_attempt_at <= $1
          ORDER BY d.seq
          LIMIT $3
          FOR UPDATE SKIP LOCKED)
       UPDATE webhook_deliveries d SET next_attempt_at = $2
         FROM due, webhook_subscriptions s
        WHERE d.subscription_id = due.subscription_id AND d.seq = due.seq AND s.id = d.subscription_id
       RETURNING d.subscription_id, d.seq, d.attempts, s.url`,
      [now, lease, limit, sending, [...busy.keys()], [...busy.values()], PER_SUBSCRIPTION],
    ),
  );
}

async function loadEvent(emu: Emulator, seq: number) {
  const [e] = await emu.db.query<EventRow>(
    'SELECT seq, event_id, type, entity_id, entity, identity, created_at FROM events WHERE seq = $1',
    [seq],
  );
  if (!e) return undefined;
  // A plain event's payload already says what changed.
  if (emu.plainEventTypes.includes(e.type)) return { e, previous: undefined };
  const { fqdn } = splitType(e.type);
  // The entity's state before this event, for `modifiedFields`: the last earlier event of the same
  // entity that carries all of it. Deleted and action events, and partial entities, are not a state.
  const [prev] = await emu.db.query<{ entity: unknown }>(
    `SELECT entity FROM events
      WHERE entity_id = $1 AND seq < $2 AND type = ANY($3::text[])
        AND jsonb_typeof(entity) = 'object' AND entity ? 'id'
      ORDER BY seq DESC LIMIT 1`,
    [e.entity_id, seq, STATE_SLUGS.map((slug) => `${fqdn}_${slug}`)],
  );
  return { e, previous: prev?.entity };
}

/** Slugs of events whose entity is the whole entity as the change left it. */
const STATE_SLUGS = ['created', 'changed', 'updated'];

/** POSTs one claimed delivery and records the outcome. */
async function deliver(
  emu: Emulator,
  s: WebhookSettings,
  key: SigningKey,
  d: Claimed,
  stop: AbortSignal,
): Promise<void> {
  const found = await loadEvent(emu, d.seq);
  let status: number | null = null;
  let error: string | null = null;
  if (!found) error = 'the event no longer exists';
  else {
    const jwt = signJwt(key, eventClaims(emu, found.e, found.previous, s.tokenTtl));
    try {
      const { href, authorization } = requestTarget(d.url);
      const res = await fetch(href, {
        method: 'POST',
        headers: {
          'content-type': 'text/plain',
          'user-agent': 'shopkit-emulator-webhooks',
          ...(authorization ? { authorization } : {}),
        },
        body: jwt,
        redirect: 'manual',
        signal: AbortSignal.any([stop, AbortSignal.timeout(s.timeoutMs)]),
      });
      status = res.status;
      await res.body?.cancel().catch(() => {});
      if (status < 200 || status > 299) error = `the receiver answered HTTP ${status}`;
    } catch (e) {
      // Stopping: the delivery stays pending and gives its lease back, so that the next start
      // sends it again at once, not once the lease (the timeout and a second) has run out.
      if (stop.aborted) {
        await emu.db
          .query(
            `UPDATE webhook_deliveries SET next_attempt_at = $3
              WHERE subscription_id = $1 AND seq = $2 AND state = 'PENDING'`,
            [d.subscription_id, d.seq, emu.now()],
          )
          .catch(() => {});
        return;
      }
      const err = e as Error & { cause?: { code?: string } };
      const port = refusedPort(d.url);
      error =
        err.name === 'TimeoutError'
          ? `no answer within ${s.timeoutMs} ms`
          : port
            ? `could not reach the receiver: fetch refuses to connect to port ${port} (a "bad port" of the Fetch Standard); receive on another port`
            : `could not reach the receiver (${err.cause?.code ?? err.name})`;
    }
  }
  const attempts = d.attempts + 1;
  const now = emu.now();
  const state = !error ? 'DELIVERED' : attempts >= s.maxAttempts || !found ? 'DEAD' : 'PENDING';
  const next = new Date(now.getTime() + (state === 'PENDING' ? retryDelay(s, attempts) : 0));
  await emu.db.query(
    `UPDATE webhook_deliveries
        SET state = $3, attempts = $4, next_attempt_at = $5, last_status = $6, last_error = $7,
            last_attempt_at = $8, delivered_at = CASE WHEN $3 = 'DELIVERED' THEN $8 ELSE delivered_at END
      WHERE subscription_id = $1 AND seq = $2 AND state = 'PENDING'`,
    [d.subscription_id, d.seq, state, attempts, next, status, error, now],
  );
  // The receiver's origin only: a receiver URL often carries a key in its path or query.
  if (state === 'DEAD') emu.log(`[webhooks] gave up on event ${d.seq} for ${originOf(d.url)}: ${error}`);
}

const decode = (s: string) => {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
};

/**
 * Where to POST a receiver URL and with what credentials: user info (`https://user:pass@host/…`)
 * goes, percent-decoded, as Basic credentials in `Authorization`, as HTTP clients send it (fetch
 * refuses a URL that carries it, so such a receiver would never get an event).
 */
export function requestTarget(url: string): { href: string; authorization?: string } {
  const u = new URL(url);
  if (!u.username && !u.password) return { href: url };
  const credentials = `${decode(u.username)}:${decode(u.password)}`;
  u.username = '';
  u.password = '';
  return { href: u.href, authorization: `Basic ${Buffer.from(credentials).toString('base64')}` };
}

/**
 * The ports fetch refuses to connect to (the Fetch Standard's "bad ports", Node's list too): a
 * delivery to one fails before leaving, with nothing but a `TypeError` to say why.
 */
const BAD_PORTS = new Set([
  1, 7, 9, 11, 13, 15, 17, 19, 20, 21, 22, 23, 25, 37, 42, 43, 53, 69, 77, 79, 87, 95, 101, 102, 103, 104,
  109, 110, 111, 113, 115, 117, 119, 123, 135, 137, 139, 143, 161, 179, 389, 427, 465, 512, 513, 514, 515,
  526, 530, 531, 532, 540, 548, 554, 556, 563, 587, 601, 636, 989, 990, 993, 995, 1719, 1720, 1723, 2049,
  3659, 4045, 4190, 5060, 5061, 6000, 6566, 6665, 6666, 6667, 6668, 6669, 6679, 6697, 10080,
]);

/** The port of a receiver URL when fetch refuses to connect to it (a scheme's default never is). */
export function refusedPort(url: string): number | undefined {
  const port = URL.canParse(url) ? Number(new URL(url).port) : 0;
  return BAD_PORTS.has(port) ? port : undefined;
}

function originOf(url: string) {
  try {
    return new URL(url).origin;
  } catch {
    return 'an invalid receiver URL';
  }
}

export interface WebhookWorker {
  /**
   * Runs passes (queue, claim, deliver) now, each waiting for the answers of every delivery in
   * flight, until one finds nothing to send: every event written before the call has been queued,
   * and every delivery that could go has been answered or has failed (an entity's next event goes
   * in the pass after its previous one). Retries scheduled for later are not waited for. Rejects
   * if a pass or a delivery fails (storage down).
   */
  flush(): Promise<void>;
  /** Stops polling, abandons in-flight posts (they stay pending) and waits for them and the pass to end. */
  stop(): Promise<void>;
}

const BATCH = 16;
/** Deliveries one subscription may have in flight: a slow receiver ties up no more than this. */
const PER_SUBSCRIPTION = BATCH;
/** Deliveries in flight at once, every subscription together. */
const MAX_IN_FLIGHT = 8 * BATCH;

/** Starts delivering in the background. */
export function startWorker(emu: Emulator): WebhookWorker {
  const s = webhookSettings(emu);
  const halt = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let running: Promise<number> | undefined;
  /**
   * The deliveries being sent, by `subscriptionId:seq`. A pass starts them and does not wait for
   * their answers, so a receiver that is slow to answer holds back only its own events (an
   * entity's next event waits, in the database, for its previous one to be answered), not those
   * of the other subscriptions.
   */
  const inflight = new Map<string, { subscription: string; done: Promise<void> }>();

  /** One pass: queues, claims and starts deliveries; resolves with how many it claimed. */
  async function pass(): Promise<number> {
    // Most emulators have no subscriber: one cheap query per poll then.
    const [any] = await emu.db.query('SELECT 1 FROM webhook_subscriptions LIMIT 1');
    if (!any) return 0;
    await enqueue(emu);
    const room = Math.min(BATCH, MAX_IN_FLIGHT - inflight.size);
    if (room <= 0) return 0;
    const busy = new Map<string, number>();
    for (const f of inflight.values()) busy.set(f.subscription, (busy.get(f.subscription) ?? 0) + 1);
    const due = await claim(emu, s, room, [...inflight.keys()], busy);
    if (!due.length) return 0;
    const key = await signingKey(emu);
    for (const d of due) {
      const id = `${d.subscription_id}:${d.seq}`;
      const done = deliver(emu, s, key, d, halt.signal).finally(() => inflight.delete(id));
      // Storage down: logged here; `flush` rejects with it.
      done.catch((e: Error) => {
        if (!halt.signal.aborted) emu.log(`[webhooks] delivery of event ${d.seq} failed: ${e.message}`);
      });
      inflight.set(id, { subscription: d.subscription_id, done });
    }
    return due.length;
  }

  /** The pass running now, or a new one: never two at once. */
  function run(): Promise<number> {
    running ??= pass().finally(() => {
      running = undefined;
    });
    return running;
  }
  const settled = () => running?.catch(() => 0);

  function schedule(delay: number) {
    if (halt.signal.aborted) return;
    timer = setTimeout(async () => {
      const claimed = await run().catch((e: Error) => {
        if (!halt.signal.aborted) emu.log(`[webhooks] delivery pass failed: ${e.message}`);
        return 0;
      });
      schedule(claimed === BATCH ? 0 : s.pollMs);
    }, delay);
    timer.unref?.();
  }
  schedule(0);

  return {
    async flush() {
      // A pass already running may have queued before the caller's events were written.
      await settled();
      while (!halt.signal.aborted) {
        const claimed = await run();
        // Every delivery in flight answered (or failed): an entity's next event can go next pass.
        const sending = [...inflight.values()].map((f) => f.done);
        await Promise.all(sending);
        if (!claimed && !sending.length) break;
      }
    },
    async stop() {
      halt.abort();
      clearTimeout(timer);
      await settled();
      await Promise.allSettled([...inflight.values()].map((f) => f.done));
    },
  };
}
