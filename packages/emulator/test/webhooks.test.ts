/**
 * Webhook delivery across failures of the emulator itself: SIGKILL between a change and its
 * delivery (delivered after restart, nothing lost), a clean restart (nothing delivered twice), and
 * the outbox being transactional (a rolled-back change leaves no event, so nothing is sent).
 * Command-line subscriptions across restarts, the banner, `deliverWebhooks`, and the event types.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { text } from 'node:stream/consumers';
import { ApiKeyStrategy, createClient, products, webhooks } from '@shopkit/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DOMAINS } from '../src/domains/index.ts';
import {
  eventClaims,
  receivers,
  retryDelay,
  splitType,
  webhookSettings,
} from '../src/domains/webhooks/index.ts';
import { startTestEmulator, testBackends } from '../src/testing.ts';
import { exited, runCli, startCli } from './faults-cli.ts';
import { listen, until } from './http.ts';
import { lastingStore } from './stores.ts';

async function receiver() {
  const bodies: string[] = [];
  let status = 200;
  const server: Server = createServer((req, res) => {
    // A request cut off by its sender (an emulator killed mid-delivery) records nothing.
    text(req).then(
      (body) => {
        if (status === 200) bodies.push(body);
        res.writeHead(status).end();
      },
      () => {},
    );
  });
  const { port, close } = await listen(server);
  return {
    bodies,
    url: `http://127.0.0.1:${port}/hook`,
    set status(s: number) {
      status = s;
    },
    close,
  };
}

/**
 * A loopback port nobody listens on: bound on port 0, then closed. Not 9 (discard) or another port
 * fetch refuses: the emulator refuses receivers on those.
 */
async function closedPort() {
  const { port, close } = await listen(createServer());
  await close();
  return port;
}

interface Delivery {
  eventType: string;
  entityId: string;
  state: string;
  attempts: number;
  lastStatus?: number;
}
const deliveries = async (url: string, apiKey: string): Promise<Delivery[]> =>
  (
    await fetch(`${url}/_api/emulator/v1/webhooks/deliveries`, { headers: { authorization: apiKey } }).then(
      (r) => r.json(),
    )
  ).deliveries;

describe('webhook delivery survives the emulator being killed', () => {
  const dir = mkdtempSync(join(tmpdir(), 'shopkit-webhooks-'));
  let hook: Awaited<ReturnType<typeof receiver>>;
  const children: ChildProcess[] = [];
  beforeAll(async () => {
    hook = await receiver();
  });
  afterAll(async () => {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    await hook?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('delivers, after a SIGKILL and a restart, the changes made before it', async () => {
    hook.status = 503; // the receiver refuses at first
    const args = ['--webhook', hook.url, '--webhook-retry-ms', '300'];
    const first = startCli(join(dir, 'data'), args);
    children.push(first.child);
    const info = await first.ready;
    await until(() =>
      first.stderr().includes(`public key at ${info.url}/_api/emulator/v1/webhooks/public-key`),
    );
    const key = await fetch(`${info.url}/_api/emulator/v1/webhooks/public-key`).then((r) => r.json());
    const merchant = createClient({
      baseUrl: info.url,
      auth: ApiKeyStrategy({ apiKey: info.apiKey, siteId: info.siteId }),
      modules: { products },
    });
    const { product } = await merchant.products.createProduct({
      name: 'Crash Teapot',
      productType: 'physical',
      priceData: { price: 30 },
    });
    // The first delivery has been tried and refused; then one more change, and the process dies.
    await until(async () =>
      (await deliveries(info.url, info.apiKey)).find(
        (d) => d.entityId === product.id && d.lastStatus === 503,
      ),
    );
    await merchant.products.updateProduct(product.id, { description: 'After the crash.' });
    first.child.kill('SIGKILL');
    await exited(first.child);
    expect(first.child.signalCode).toBe('SIGKILL');
    expect(hook.bodies).toEqual([]);

    hook.status = 200;
    const second = startCli(join(dir, 'data'), args);
    children.push(second.child);
    const again = await second.ready;
    const sameKey = await fetch(`${again.url}/_api/emulator/v1/webhooks/public-key`).then((r) => r.json());
    expect(sameKey.pem).toBe(key.pem);
    const got = await until(async () => {
      const events = await Promise.all(hook.bodies.map((b) => webhooks.process(b, { publicKey: key.pem })));
      const mine = events.filter((e) => e.entityId === product.id);
      return mine.length >= 2 && mine;
    });
    expect(got.map((e) => e.type)).toEqual([
      'com.wix.ecommerce.catalog.api.v1.ProductCreated',
      'com.wix.ecommerce.catalog.api.v1.ProductChanged',
    ]);
    expect(got[1]!.modifiedFields).toEqual(['description', 'lastUpdated']);
    const states = (await deliveries(again.url, again.apiKey)).filter((d) => d.entityId === product.id);
    expect(states.map((d) => d.state)).toEqual(['DELIVERED', 'DELIVERED']);

    second.child.kill('SIGTERM');
    await exited(second.child);
    expect(second.child.exitCode).toBe(0);
  }, 90_000);

  it('refuses a --webhook that is not an http(s) URL, without printing it (it may hold a secret)', async () => {
    const bad = startCli('memory', ['--webhook', 'ftp://hook:s3cr3t-pass@127.0.0.1/in?token=t0ken']);
    children.push(bad.child);
    const refused = await bad.ready.then(
      () => new Error('started'),
      (e: Error) => e,
    );
    expect(refused.message).toMatch(
      /--webhook must be an absolute http:\/\/ or https:\/\/ URL, got a ftp: URL/,
    );
    expect(refused.message).not.toMatch(/s3cr3t|t0ken/);
    await exited(bad.child);
    expect(bad.child.exitCode).toBe(2);
  });
});

describe('the outbox', () => {
  it('sends nothing for a rolled-back change, and nothing twice across a clean restart', async () => {
    const hook = await receiver();
    const dir = mkdtempSync(join(tmpdir(), 'shopkit-outbox-'));
    const options = { db: join(dir, 'data'), webhooks: [hook.url], config: { webhookPollMs: 25 } };
    try {
      const emu = await startTestEmulator('pglite', options);
      await expect(
        emu.emu.db.tx(async (sql) => {
          await emu.emu.recordEvent(sql, 'wix.ecom.v1.cart_created', 'rolled-back', { id: 'rolled-back' });
          throw new Error('the change failed after its event was written');
        }),
      ).rejects.toThrow('the change failed');
      await emu.emu.db.tx((sql) =>
        emu.emu.recordEvent(sql, 'wix.ecom.v1.cart_created', 'kept', { id: 'kept' }),
      );
      await until(() => hook.bodies.length >= 1);
      const key = await fetch(`${emu.url}/_api/emulator/v1/webhooks/public-key`).then((r) => r.json());
      const [event] = await Promise.all(hook.bodies.map((b) => webhooks.process(b, { publicKey: key.jwk })));
      expect(event!.entityId).toBe('kept');
      const stored = await emu.emu.db.query("SELECT 1 FROM events WHERE entity_id = 'rolled-back'");
      expect(stored).toEqual([]);
      await emu.stop();

      const again = await startTestEmulator('pglite', options);
      await again.emu.db.tx((sql) =>
        again.emu.recordEvent(sql, 'wix.ecom.v1.cart_updated', 'kept', { id: 'kept' }),
      );
      await until(() => hook.bodies.length >= 2);
      const all = await Promise.all(hook.bodies.map((b) => webhooks.process(b, { publicKey: key.pem })));
      expect(all.map((e) => e.type)).toEqual(['wix.ecom.v1.cart_created', 'wix.ecom.v1.cart_updated']);
      // One subscription for the repeated --webhook URL, its progress kept.
      const subs = await again.emu.db.query('SELECT id FROM webhook_subscriptions');
      expect(subs).toHaveLength(1);
      await again.stop();
      expect(hook.bodies).toHaveLength(2);
    } finally {
      await hook.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 90_000);
});

describe('delivery settings', () => {
  it('backs off exponentially with jitter between half and the whole step, capped', () => {
    const s = { ...webhookSettings({ config: {} } as never), retryBaseMs: 100, retryMaxMs: 1000 };
    expect([1, 2, 3, 4, 5].map((n) => retryDelay(s, n, () => 0))).toEqual([50, 100, 200, 400, 500]);
    expect([1, 2, 3, 4, 5].map((n) => retryDelay(s, n, () => 1))).toEqual([100, 200, 400, 800, 1000]);
    expect(retryDelay(s, 200, () => 0.5)).toBe(750);
  });

  it('names the entity and the slug of each domain event type', () => {
    expect(splitType('wix.headless.v1.redirect_session_created')).toEqual({
      fqdn: 'wix.headless.v1.redirect_session',
      slug: 'created',
    });
    expect(splitType('wix.ecom.v1.cart_deleted')).toEqual({ fqdn: 'wix.ecom.v1.cart', slug: 'deleted' });
  });
});

describe('the event envelope', () => {
  const at = new Date('2025-01-02T03:04:05.000Z');
  const PRODUCT_CHANGED = 'com.wix.ecommerce.catalog.api.v1.ProductChanged';
  const emu = { now: () => at, siteId: 'site-1', plainEventTypes: [PRODUCT_CHANGED] } as never;
  /** The envelope (the JWT's `data`) of one event row. */
  const envelope = (type: string, entity: unknown, previous?: unknown) => {
    const row = { seq: 7, event_id: 'evt-1', type, entity_id: 'c-1', entity, created_at: at };
    return JSON.parse(eventClaims(emu, row, previous, 60).data);
  };
  /** The domain event inside the claims of one event row. */
  const event = (type: string, entity: unknown, previous?: unknown) =>
    JSON.parse(envelope(type, entity, previous).data);

  it("sends a plain event (the catalog's) as its payload, with the emulator's ids and order beside it", () => {
    const payload = { productId: 'c-1', changedFields: ['name'], originatedFromVersion: 'V1_CATALOG' };
    // The platform SDK reads eventType, instanceId and data; the rest is the emulator's addition.
    expect(envelope(PRODUCT_CHANGED, payload, { id: 'c-1', name: 'Before' })).toEqual({
      eventType: PRODUCT_CHANGED,
      instanceId: 'site-1',
      data: JSON.stringify(payload),
      eventId: 'evt-1',
      entityId: 'c-1',
      eventTime: at.toISOString(),
      entityEventSequence: '7',
    });
    // A domain event's envelope carries the same additions.
    expect(envelope('wix.ecom.v1.cart_created', { id: 'c-1' })).toMatchObject({
      eventType: 'wix.ecom.v1.cart_created',
      eventId: 'evt-1',
      entityId: 'c-1',
      entityEventSequence: '7',
    });
  });

  it('says who caused the event as JSON text, as the platform does, and leaves it out for no one', () => {
    const member = { identityType: 'MEMBER', memberId: 'm-1' };
    const row = { seq: 7, event_id: 'evt-1', type: 'wix.ecom.v1.cart_created', entity_id: 'c-1', entity: {} };
    const claims = (identity: unknown) =>
      JSON.parse(eventClaims(emu, { ...row, identity, created_at: at }, undefined, 60).data);
    expect(claims(member).identity).toBe(JSON.stringify(member));
    expect(claims(null)).not.toHaveProperty('identity');
  });

  it('carries the entity both as the object the platform SDK reads and as JSON text', () => {
    const cart = { id: 'c-1', lineItems: [] };
    expect(event('wix.ecom.v1.cart_created', cart)).toMatchObject({
      id: 'evt-1',
      entityFqdn: 'wix.ecom.v1.cart',
      slug: 'created',
      entityId: 'c-1',
      eventTime: at.toISOString(),
      entityEventSequence: '7',
      createdEvent: { entity: cart, entityAsJson: JSON.stringify(cart) },
    });
    expect(event('wix.ecom.v1.cart_deleted', { id: 'c-1' }).deletedEvent).toEqual({
      deletedEntity: { id: 'c-1' },
      deletedEntityAsJson: '{"id":"c-1"}',
    });
    expect(event('wix.ecom.v1.order_paid', { id: 'p' }).actionEvent).toEqual({
      body: { id: 'p' },
      bodyAsJson: '{"id":"p"}',
    });
  });

  it('sends modifiedFields as the previous values of the top-level fields that changed', () => {
    const before = { id: 'c-1', buyerNote: 'door', lineItems: [{ id: 'l', quantity: 1 }], revision: '1' };
    const after = {
      id: 'c-1',
      buyerNote: 'door',
      lineItems: [{ id: 'l', quantity: 2 }],
      contactInfo: { address: { city: 'Oslo' } },
      revision: '2',
    };
    expect(event('wix.ecom.v1.cart_updated', after, before).updatedEvent).toEqual({
      currentEntity: after,
      currentEntityAsJson: JSON.stringify(after),
      // A field the cart did not have before is null: its name is still there.
      modifiedFields: { contactInfo: null, lineItems: [{ id: 'l', quantity: 1 }], revision: '1' },
    });
    // Without a previous state there is nothing to compare.
    expect(event('wix.ecom.v1.cart_updated', after).updatedEvent).toEqual({
      currentEntity: after,
      currentEntityAsJson: JSON.stringify(after),
    });
  });
});

const subscribeByApi = (url: string, apiKey: string, receiverUrl: string) =>
  fetch(`${url}/_api/emulator/v1/webhooks/subscriptions`, {
    method: 'POST',
    headers: { authorization: apiKey, 'content-type': 'application/json' },
    body: JSON.stringify({ url: receiverUrl }),
  }).then((r) => r.json());

describe.each(testBackends())('command-line subscriptions (%s)', (backend) => {
  it('belong to the option: a URL not given again is removed, with its deliveries; API ones stay', async () => {
    const [gone, kept, api] = await Promise.all([receiver(), receiver(), receiver()]);
    const store = await lastingStore(backend);
    // No polling during the test: `deliverWebhooks` sends what is due.
    const start = (urls: string[]) =>
      startTestEmulator(backend, { ...store.options, webhooks: urls, config: { webhookPollMs: 600_000 } });
    const cartEvent = (emu: Awaited<ReturnType<typeof start>>, id: string) =>
      emu.emu.db.tx((sql) => emu.emu.recordEvent(sql, 'wix.ecom.v1.cart_created', id, { id }));
    try {
      const first = await start([gone.url]);
      await subscribeByApi(first.url, first.demo.apiKey, api.url);
      await first.stop();

      const second = await start([kept.url]);
      expect(await receivers(second.emu)).toEqual([
        { url: kept.url, source: 'COMMAND_LINE' },
        { url: api.url, source: 'API' },
      ]);
      await cartEvent(second, 'after-first-restart');
      await second.deliverWebhooks();
      expect([gone.bodies.length, kept.bodies.length, api.bodies.length]).toEqual([0, 1, 1]);
      await second.stop();

      const third = await start([]);
      expect(await receivers(third.emu)).toEqual([{ url: api.url, source: 'API' }]);
      await cartEvent(third, 'after-second-restart');
      await third.deliverWebhooks();
      expect([gone.bodies.length, kept.bodies.length, api.bodies.length]).toEqual([0, 1, 2]);
      // The removed subscriptions' deliveries went with them.
      const left = await third.emu.db.query<{ url: string }>(
        'SELECT DISTINCT s.url FROM webhook_deliveries d JOIN webhook_subscriptions s ON s.id = d.subscription_id',
      );
      expect(left).toEqual([{ url: api.url }]);
      await third.stop();
    } finally {
      await Promise.all([gone.close(), kept.close(), api.close()]);
      await store.cleanup();
    }
  }, 90_000);
});

describe.each(testBackends())('the subscription cap (%s)', (backend) => {
  it('holds at 100 when creates race: 20 at once over 95 make 5, the others a 400 on url', async () => {
    const emu = await startTestEmulator(backend, { config: { webhookPollMs: 600_000 } });
    try {
      const nobody = `http://127.0.0.1:${await closedPort()}`;
      for (let i = 0; i < 95; i++) await subscribeByApi(emu.url, emu.demo.apiKey, `${nobody}/hook-${i}`);
      const all = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          fetch(`${emu.url}/_api/emulator/v1/webhooks/subscriptions`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', authorization: emu.demo.apiKey },
            body: JSON.stringify({ url: `${nobody}/race-${i}` }),
          }).then(async (r) => ({ status: r.status, body: await r.json() })),
        ),
      );
      expect(all.filter((r) => r.status === 200)).toHaveLength(5);
      for (const r of all.filter((r) => r.status !== 200)) {
        expect(r.status).toBe(400);
        expect(r.body.details.validationError.fieldViolations[0]).toMatchObject({
          field: 'url',
          violatedRule: 'MAX_SIZE',
          data: { max: 100 },
        });
      }
      const [n] = await emu.emu.db.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM webhook_subscriptions',
      );
      expect(n!.n).toBe(100);
    } finally {
      await emu.stop();
    }
  }, 60_000);
});

describe.each(testBackends())(
  'a subscription made before the catalog events were renamed (%s)',
  (backend) => {
    it("takes the platform's names of the catalog v1 events in place of the old ones", async () => {
      const store = await lastingStore(backend);
      const OLD = ['wix.ecom.v1.cart_created', 'wix.stores.catalog.v1.product_variants_changed'];
      try {
        const first = await startTestEmulator(backend, { ...store.options, seed: 'none' });
        // A subscription stored as the emulator stored it before the rename, and the rename not yet run.
        await first.emu.db.query(
          `INSERT INTO webhook_subscriptions (id, url, event_types, source, start_seq, cursor_txid, created_at)
         VALUES ('old', 'http://127.0.0.1:9/hook', $1, 'api', 0, 0, now())`,
          [JSON.stringify(OLD)],
        );
        await first.emu.db.query("DELETE FROM _migrations WHERE id = '0410_catalog_v1_event_types'");
        await first.stop();
        const again = await startTestEmulator(backend, { ...store.options, seed: 'none' });
        const [sub] = await again.emu.db.query<{ event_types: string[] }>(
          "SELECT event_types FROM webhook_subscriptions WHERE id = 'old'",
        );
        expect(sub!.event_types).toEqual([
          'com.wix.ecommerce.catalog.api.v1.VariantsChanged',
          'wix.ecom.v1.cart_created',
        ]);
        await again.stop();
      } finally {
        await store.cleanup();
      }
    });
  },
);

describe.each(testBackends())('deliverWebhooks (%s)', (backend) => {
  it('sends what is due now, in order per entity, without waiting for a poll; not retries', async () => {
    const hook = await receiver();
    const emu = await startTestEmulator(backend, {
      webhooks: [hook.url],
      config: { webhookPollMs: 600_000, webhookRetryBaseMs: 60_000 },
    });
    try {
      const key = await fetch(`${emu.url}/_api/emulator/v1/webhooks/public-key`).then((r) => r.json());
      const record = (type: string, id: string) =>
        emu.emu.db.tx((sql) => emu.emu.recordEvent(sql, type, id, { id }));
      await record('wix.ecom.v1.cart_created', 'a');
      await record('wix.ecom.v1.cart_updated', 'a');
      await record('wix.ecom.v1.cart_created', 'b');
      await record('wix.ecom.v1.cart_deleted', 'a');
      await emu.deliverWebhooks();
      const got = await Promise.all(hook.bodies.map((b) => webhooks.process(b, { publicKey: key.pem })));
      expect(got.filter((e) => e.entityId === 'a').map((e) => e.type)).toEqual([
        'wix.ecom.v1.cart_created',
        'wix.ecom.v1.cart_updated',
        'wix.ecom.v1.cart_deleted',
      ]);
      expect(got.map((e) => e.entityId).sort()).toEqual(['a', 'a', 'a', 'b']);

      // A refused delivery is tried once; its retry, half a minute or more later, is not waited for.
      hook.status = 503;
      await record('wix.ecom.v1.cart_updated', 'b');
      await emu.deliverWebhooks();
      const [latest] = await deliveries(emu.url, emu.demo.apiKey);
      expect(latest).toMatchObject({ entityId: 'b', state: 'PENDING', attempts: 1, lastStatus: 503 });
    } finally {
      await emu.stop();
      await hook.close();
    }
  });
});

describe('event types', () => {
  const emitted = DOMAINS.flatMap((d) => d.events ?? []).sort();

  it('docs/webhooks.md lists every type the emulator sends, and no other', () => {
    const docs = readFileSync(new URL('../../../docs/webhooks.md', import.meta.url), 'utf8');
    const listed = [...docs.matchAll(/^\| [^|]+\| `((?:com\.)?wix\.[A-Za-z0-9_.]+)` +\|/gm)]
      .map((m) => m[1])
      .sort();
    expect(listed).toEqual(emitted);
    expect(emitted).toContain('wix.iam.v1.identity_created');
    expect(emitted).toContain('com.wix.ecommerce.catalog.api.v1.VariantsChanged');
  });

  it('refuses to record a type no domain declares', async () => {
    const emu = await startTestEmulator('pglite', { seed: 'none' });
    try {
      expect(emu.emu.eventTypes).toEqual(emitted);
      await expect(
        emu.emu.db.tx((sql) => emu.emu.recordEvent(sql, 'wix.ecom.v1.cart_updatd', 'x', { id: 'x' })),
      ).rejects.toThrow('Event type wix.ecom.v1.cart_updatd is not declared by any domain');
    } finally {
      await emu.stop();
    }
  });
});

describe('the --webhook flag', () => {
  const dir = mkdtempSync(join(tmpdir(), 'shopkit-webhook-flag-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('names the receivers in the banner without their secrets, and a restart keeps only the URLs given again', async () => {
    const data = join(dir, 'data');
    const port = await closedPort();
    const first = startCli(data, ['--webhook', `http://127.0.0.1:${port}/first?token=s3cret`]);
    const info = await first.ready;
    await until(() => first.stderr().includes('webhooks: 1 receiver(s)'));
    await subscribeByApi(info.url, info.apiKey, `http://api:hunter2@127.0.0.1:${port}/api?key=k3y#frag`);
    first.child.kill('SIGTERM');
    await exited(first.child);

    // The banner (output piped): the flag's URL and the API subscription, query strings left out.
    const second = runCli([
      '--port',
      '0',
      '--db',
      data,
      '--webhook',
      `http://127.0.0.1:${port}/second?token=s3cret`,
    ]);
    const banner = await second.printed('public key');
    second.child.kill('SIGTERM');
    await exited(second.child);
    expect(banner).toMatch(
      new RegExp(
        `webhooks: +http://127\\.0\\.0\\.1:${port}/second\\?…, http://127\\.0\\.0\\.1:${port}/api\\?… \\(API\\); state at `,
      ),
    );
    for (const secret of ['s3cret', 'k3y', 'hunter2', 'frag', '/first']) expect(banner).not.toContain(secret);

    // Without the flag, only the API subscription receives events; the count says so.
    const third = startCli(data);
    const again = await third.ready;
    await until(() => /webhooks: \d+ receiver\(s\)/.test(third.stderr()));
    expect(third.stderr()).toContain('webhooks: 1 receiver(s)');
    const { subscriptions } = await fetch(`${again.url}/_api/emulator/v1/webhooks/subscriptions`, {
      headers: { authorization: again.apiKey },
    }).then((r) => r.json());
    expect(subscriptions.map((s: { source: string }) => s.source)).toEqual(['API']);
    third.child.kill('SIGTERM');
    await exited(third.child);
  }, 120_000);
});
