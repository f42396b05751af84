/**
 * Webhook subscriptions, audit 10: a subscription starts with the events that commit after it is
 * made. Its start was the highest `sequence` committed then, so on PostgreSQL the event of a write
 * still running when it was made (whose `sequence` is lower than that of a later write that
 * committed first) was never delivered to it, though it committed after the subscription. And a
 * subscription that committed while the worker was queuing had its cursor moved past events the
 * queuing never saw for it (the cursors advanced in a statement of their own, after the queuing);
 * and a subscription deleted while the worker queued its events failed the worker's whole pass (and
 * `deliverWebhooks()`) on the deliveries' foreign key.
 */
import { createServer } from 'node:http';
import { text } from 'node:stream/consumers';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator, testBackends } from '../src/testing.ts';
import { jsonCalls, listen } from './http.ts';

const SUBS = '/_api/emulator/v1/webhooks/subscriptions';
const DELIVERIES = '/_api/emulator/v1/webhooks/deliveries';
const CHANGED = 'com.wix.ecommerce.catalog.api.v1.ProductChanged';

describe.each(testBackends())('webhook subscriptions audit 10 (%s)', (backend) => {
  let emu: TestEmulator;
  let hook: { url: string; bodies: string[]; close: () => Promise<void> };
  beforeAll(async () => {
    emu = await startTestEmulator(backend, { config: { webhookPollMs: 600_000 } });
    const bodies: string[] = [];
    const { port, close } = await listen(
      createServer((req, res) => {
        text(req).then((body) => {
          bodies.push(body);
          res.writeHead(200).end();
        });
      }),
    );
    hook = { url: `http://127.0.0.1:${port}/hook`, bodies, close };
  });
  afterAll(async () => {
    await emu?.stop();
    await hook?.close();
  });
  const { owner } = jsonCalls(() => emu);

  async function product(name: string) {
    const res = await owner('POST', '/stores/v1/products', {
      product: { name, productType: 'physical', priceData: { price: 10 } },
    });
    expect(res.status).toBe(200);
    return res.body.product.id as string;
  }
  const rename = async (id: string, name: string) =>
    expect((await owner('PATCH', `/stores/v1/products/${id}`, { product: { name } })).status).toBe(200);
  /** The ids of the events delivered to subscription `id`, oldest first. */
  async function delivered(id: string) {
    await emu.deliverWebhooks();
    const res = await owner('GET', `${DELIVERIES}?subscriptionId=${id}`);
    expect(res.status).toBe(200);
    return (res.body.deliveries as { eventId: string; state: string; sequence: number }[])
      .sort((a, b) => a.sequence - b.sequence)
      .map((d) => [d.eventId, d.state]);
  }
  /** The id of the last event of entity `id`. */
  const lastEvent = async (id: string) =>
    (
      await emu.emu.db.query<{ event_id: string }>(
        'SELECT event_id FROM events WHERE entity_id = $1 ORDER BY seq DESC LIMIT 1',
        [id],
      )
    )[0]!.event_id;

  it('delivers the events committed after the subscription, and none committed before it', async () => {
    const p = await product('Audit10 before');
    await rename(p, 'Audit10 before, renamed');
    const sub = await owner('POST', SUBS, { url: `${hook.url}?t=plain`, eventTypes: [CHANGED] });
    expect(sub.status).toBe(200);
    await rename(p, 'Audit10 after');
    expect(await delivered(sub.body.subscription.id)).toEqual([[await lastEvent(p), 'DELIVERED']]);
  });

  if (backend === 'postgres')
    it("delivers the event of a write still running when it subscribed, though a later write's committed first", async () => {
      const held = await product('Audit10 held');
      const quick = await product('Audit10 quick');
      const other = new pg.Client({ connectionString: process.env.SHOPKIT_TEST_DATABASE_URL });
      await other.connect();
      try {
        await other.query(`SET search_path = "${emu.schema}"`);
        // A write that has recorded its event and not committed yet: its `seq` is taken.
        await other.query('BEGIN');
        await other.query(
          `INSERT INTO events (event_id, type, entity_id, entity) VALUES ('audit10-held', $1, $2, $3)`,
          [CHANGED, held, { productId: held, changedFields: ['name'], originatedFromVersion: 'V1_CATALOG' }],
        );
        // A later write commits first, with a higher `seq`: it happened before the subscription.
        await rename(quick, 'Audit10 quick, renamed');
        const before = await lastEvent(quick);
        const sub = await owner('POST', SUBS, { url: `${hook.url}?t=race`, eventTypes: [CHANGED] });
        expect(sub.status).toBe(200);
        const id = sub.body.subscription.id as string;
        // Nothing yet: the held write has not committed, and the quick one is older than the subscription.
        expect(await delivered(id)).toEqual([]);
        await other.query('COMMIT');
        await rename(quick, 'Audit10 quick, after');
        const after = await lastEvent(quick);
        const got = await delivered(id);
        expect(got).toEqual([
          ['audit10-held', 'DELIVERED'],
          [after, 'DELIVERED'],
        ]);
        expect(got.map(([e]) => e)).not.toContain(before);
      } finally {
        await other.query('ROLLBACK').catch(() => {});
        await other.end();
      }
    });

  if (backend === 'postgres')
    it('queues for a subscription that commits while the worker queues the events it has not seen', async () => {
      const p = await product('Audit10 cursor');
      const first = await owner('POST', SUBS, { url: `${hook.url}?t=first`, eventTypes: [CHANGED] });
      expect(first.status).toBe(200);
      await rename(p, 'Audit10 cursor, renamed');
      const [queued] = await emu.emu.db.query<{ seq: string; entity_id: string }>(
        'SELECT seq::text AS seq, entity_id FROM events WHERE entity_id = $1 ORDER BY seq DESC LIMIT 1',
        [p],
      );
      const connect = async () => {
        const c = new pg.Client({ connectionString: process.env.SHOPKIT_TEST_DATABASE_URL });
        await c.connect();
        await c.query(`SET search_path = "${emu.schema}"`);
        return c;
      };
      const [writer, subscriber, blocker] = await Promise.all([connect(), connect(), connect()]);
      try {
        // A write records its event and has not committed yet.
        await writer.query('BEGIN');
        await writer.query(
          `INSERT INTO events (event_id, type, entity_id, entity) VALUES ('audit10-cursor', $1, $2, $3)`,
          [CHANGED, p, { productId: p, changedFields: ['name'], originatedFromVersion: 'V1_CATALOG' }],
        );
        // A subscription is inserted as \`subscribe\` inserts one, and its transaction stays open.
        await subscriber.query('BEGIN');
        const [sub] = (
          await subscriber.query(
            `INSERT INTO webhook_subscriptions (id, url, event_types, source, start_seq, cursor_txid, created_at)
             VALUES ('audit10-late', $1, $2, 'api', (SELECT COALESCE(MAX(seq), 0) FROM events),
                     pg_snapshot_xmin(pg_current_snapshot())::text::bigint, now())
             RETURNING id`,
            [`${hook.url}?t=late`, JSON.stringify([CHANGED])],
          )
        ).rows;
        await writer.query('COMMIT');
        // The worker's queuing waits on a delivery another transaction is inserting.
        await blocker.query('BEGIN');
        await blocker.query(
          `INSERT INTO webhook_deliveries (subscription_id, seq, entity_id, next_attempt_at) VALUES ($1, $2, $3, now())`,
          [first.body.subscription.id, queued!.seq, queued!.entity_id],
        );
        const pass = emu.deliverWebhooks();
        for (let waiting = false; !waiting; ) {
          await new Promise((r) => setTimeout(r, 20));
          const rows = await blocker.query(
            `SELECT 1 FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock'`,
            [`shopkit-emulator:${emu.schema}`],
          );
          waiting = rows.rowCount! > 0;
        }
        // The subscription commits while the queuing waits, and then the queuing goes on.
        await subscriber.query('COMMIT');
        await blocker.query('ROLLBACK');
        await pass;
        expect(await delivered(sub.id)).toEqual([['audit10-cursor', 'DELIVERED']]);
      } finally {
        for (const c of [writer, subscriber, blocker]) {
          await c.query('ROLLBACK').catch(() => {});
          await c.end();
        }
      }
    });

  if (backend === 'postgres')
    it('goes on delivering when a subscription is deleted while the worker queues its events', async () => {
      const p = await product('Audit10 deleted');
      const gone = await owner('POST', SUBS, { url: `${hook.url}?t=gone`, eventTypes: [CHANGED] });
      const kept = await owner('POST', SUBS, { url: `${hook.url}?t=kept`, eventTypes: [CHANGED] });
      expect([gone.status, kept.status]).toEqual([200, 200]);
      await rename(p, 'Audit10 deleted, renamed');
      const deleter = new pg.Client({ connectionString: process.env.SHOPKIT_TEST_DATABASE_URL });
      await deleter.connect();
      try {
        await deleter.query(`SET search_path = "${emu.schema}"`);
        // The subscription's deletion (as DELETE /subscriptions/{id} runs it) has not committed yet.
        await deleter.query('BEGIN');
        await deleter.query('DELETE FROM webhook_subscriptions WHERE id = $1', [gone.body.subscription.id]);
        const pass = emu.deliverWebhooks();
        for (let waiting = false; !waiting; ) {
          await new Promise((r) => setTimeout(r, 20));
          const rows = await deleter.query(
            `SELECT 1 FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock'`,
            [`shopkit-emulator:${emu.schema}`],
          );
          waiting = rows.rowCount! > 0;
        }
        await deleter.query('COMMIT');
        await expect(pass).resolves.toBeUndefined();
        expect(await delivered(kept.body.subscription.id)).toEqual([[await lastEvent(p), 'DELIVERED']]);
      } finally {
        await deleter.query('ROLLBACK').catch(() => {});
        await deleter.end();
      }
    });
});
