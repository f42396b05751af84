/**
 * Webhook receivers: URLs with user info (sent as Basic credentials), NUL characters in the
 * webhook endpoints' input, and a slow receiver beside a fast one.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { text } from 'node:stream/consumers';
import { webhooks } from '@shopkit/sdk';
import { describe, expect, it } from 'vitest';
import { startTestEmulator, testBackends } from '../src/testing.ts';
import { listen, until } from './http.ts';

interface Received {
  body: string;
  authorization?: string;
}

/** A receiver; `answer` decides when (and with what) each request is answered. */
async function receiver(
  answer: (req: Received, res: ServerResponse) => void = (_, res) => res.writeHead(200).end(),
) {
  const got: Received[] = [];
  const server: Server = createServer((req: IncomingMessage, res) => {
    text(req).then(
      (body) => {
        const r = { body, authorization: req.headers.authorization };
        got.push(r);
        answer(r, res);
      },
      () => {},
    );
  });
  return { got, ...(await listen(server)) };
}

const BASE = '/_api/emulator/v1/webhooks';

describe.each(testBackends())('webhook receivers (%s)', (backend) => {
  it('delivers to a receiver URL with user info, sending it as Basic credentials', async () => {
    const hook = await receiver();
    const emu = await startTestEmulator(backend, { config: { webhookPollMs: 600_000 } });
    try {
      const sub = await fetch(`${emu.url}${BASE}/subscriptions`, {
        method: 'POST',
        headers: { authorization: emu.demo.apiKey, 'content-type': 'application/json' },
        body: JSON.stringify({ url: `http://hook%40shop:s3cr%3At@127.0.0.1:${hook.port}/h?k=1` }),
      });
      expect(sub.status).toBe(200);
      await emu.emu.db.tx((sql) => emu.emu.recordEvent(sql, 'wix.ecom.v1.cart_created', 'c1', { id: 'c1' }));
      await emu.deliverWebhooks();
      const { deliveries } = await fetch(`${emu.url}${BASE}/deliveries`, {
        headers: { authorization: emu.demo.apiKey },
      }).then((r) => r.json());
      expect(deliveries).toMatchObject([
        { entityId: 'c1', state: 'DELIVERED', attempts: 1, lastStatus: 200 },
      ]);
      expect(hook.got).toHaveLength(1);
      // The user info, percent-decoded, as the `Authorization` header: `hook@shop:s3cr:t`.
      expect(hook.got[0]!.authorization).toBe(`Basic ${Buffer.from('hook@shop:s3cr:t').toString('base64')}`);
      const key = await fetch(`${emu.url}${BASE}/public-key`).then((r) => r.json());
      const event = await webhooks.process(hook.got[0]!.body, { publicKey: key.pem });
      expect(event.entityId).toBe('c1');
    } finally {
      await emu.stop();
      await hook.close();
    }
  });

  it('answers a NUL character in a URL or a subscription id with 400, never 500', async () => {
    const emu = await startTestEmulator(backend, { config: { webhookPollMs: 600_000 } });
    try {
      const call = (method: string, path: string, body?: unknown) =>
        fetch(`${emu.url}${path}`, {
          method,
          headers: { authorization: emu.demo.apiKey, 'content-type': 'application/json' },
          body: body === undefined ? undefined : JSON.stringify(body),
        }).then(async (r) => ({ status: r.status, body: await r.json() }));
      const bad = await call('POST', `${BASE}/subscriptions`, { url: 'http://127.0.0.1:9/\u0000' });
      expect(bad.status).toBe(400);
      expect(bad.body.details.validationError.fieldViolations[0].field).toBe('url');
      expect((await call('GET', `${BASE}/deliveries?subscriptionId=%00`)).status).toBe(400);
      expect((await call('DELETE', `${BASE}/subscriptions/%00`)).status).toBe(400);
      expect((await call('POST', `${BASE}/deliveries/redeliver`, { subscriptionId: 'a\u0000' })).status).toBe(
        400,
      );
      expect((await call('GET', `${BASE}/subscriptions`)).body).toEqual({ subscriptions: [] });
    } finally {
      await emu.stop();
    }
  });

  it("sends to a fast receiver while a slow one has not answered yet: one receiver does not hold back another's events", async () => {
    let fastGotSecond!: () => void;
    const secondArrived = new Promise<void>((r) => {
      fastGotSecond = r;
    });
    // The slow receiver answers only once the fast one has had the second event.
    const slow = await receiver((_, res) => {
      secondArrived.then(() => res.writeHead(200).end());
    });
    const fast = await receiver((r, res) => {
      res.writeHead(200).end();
      // The token's claims (not verified here: the test verifies every body below).
      if (
        Buffer.from(r.body.split('.')[1] ?? '', 'base64url')
          .toString()
          .includes('second')
      )
        fastGotSecond();
    });
    const emu = await startTestEmulator(backend, {
      webhooks: [`http://127.0.0.1:${slow.port}/slow`, `http://127.0.0.1:${fast.port}/fast`],
      config: { webhookPollMs: 25, webhookTimeoutMs: 600_000 },
    });
    try {
      const record = (id: string) =>
        emu.emu.db.tx((sql) => emu.emu.recordEvent(sql, 'wix.ecom.v1.cart_created', id, { id }));
      await record('first');
      await until(() => slow.got.length === 1 && fast.got.length === 1);
      await record('second');
      await secondArrived;
      await until(() => slow.got.length === 2);
      const key = await fetch(`${emu.url}${BASE}/public-key`).then((r) => r.json());
      const ids = async (got: Received[]) =>
        Promise.all(got.map(async (r) => (await webhooks.process(r.body, { publicKey: key.jwk })).entityId));
      expect(await ids(fast.got)).toEqual(['first', 'second']);
      expect(await ids(slow.got)).toEqual(['first', 'second']);
      await emu.deliverWebhooks();
      const { subscriptions } = await fetch(`${emu.url}${BASE}/subscriptions`, {
        headers: { authorization: emu.demo.apiKey },
      }).then((r) => r.json());
      expect(subscriptions.map((s: { deliveries: unknown }) => s.deliveries)).toEqual([
        { pending: 0, delivered: 2, dead: 0 },
        { pending: 0, delivered: 2, dead: 0 },
      ]);
    } finally {
      fastGotSecond();
      await emu.stop();
      await slow.close();
      await fast.close();
    }
  }, 30_000);
});
