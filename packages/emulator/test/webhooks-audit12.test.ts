/**
 * A webhook delivery in flight when the emulator stops (SIGTERM, `stop()`): it stays pending and
 * the next start sends it at once. Its lease used to stay, so a restart sent it only once the
 * lease (the delivery timeout and a second) had run out.
 */
import { createServer, type ServerResponse } from 'node:http';
import { text } from 'node:stream/consumers';
import { describe, expect, it } from 'vitest';
import { startTestEmulator, testBackends } from '../src/testing.ts';
import { listen, until } from './http.ts';
import { lastingStore } from './stores.ts';

describe.each(testBackends())('a delivery cut short by a stop (%s)', (backend) => {
  it('is sent again by the next start at once, not after its lease', async () => {
    // The receiver holds the first request unanswered; later ones are answered 200.
    const held: ServerResponse[] = [];
    const bodies: string[] = [];
    const server = createServer((req, res) => {
      if (!held.length) {
        held.push(res);
        return;
      }
      text(req).then((body) => {
        bodies.push(body);
        res.writeHead(200).end();
      });
    });
    const { port, close } = await listen(server);
    const store = await lastingStore(backend);
    // A lease of ten minutes: without it given back, the restart below would send nothing.
    const options = {
      ...store.options,
      seed: 'none' as const,
      webhooks: [`http://127.0.0.1:${port}/hook`],
      config: { webhookPollMs: 3_600_000, webhookTimeoutMs: 600_000 },
    };
    try {
      const first = await startTestEmulator(backend, options);
      await first.emu.db.tx((sql) =>
        first.emu.recordEvent(sql, 'wix.ecom.v1.cart_created', 'held', { id: 'held' }),
      );
      const flushing = first.deliverWebhooks();
      await until(() => held.length > 0);
      await first.stop();
      await flushing.catch(() => {});

      const second = await startTestEmulator(backend, options);
      try {
        await second.deliverWebhooks();
        expect(bodies).toHaveLength(1);
        const [delivery] = (
          await fetch(`${second.url}/_api/emulator/v1/webhooks/deliveries`, {
            headers: { authorization: second.demo.apiKey },
          }).then((r) => r.json())
        ).deliveries;
        expect(delivery).toMatchObject({ entityId: 'held', state: 'DELIVERED', attempts: 1 });
      } finally {
        await second.stop();
      }
    } finally {
      for (const res of held) res.destroy();
      await close();
      await store.cleanup();
    }
  }, 60_000);
});
