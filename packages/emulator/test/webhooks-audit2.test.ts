/**
 * Webhook receivers as their developer sets them up: a receiver URL on a port that fetch never
 * connects to (the Fetch Standard's "bad ports": 6000, 6665 to 6669, …) fails every delivery
 * before it leaves, and the delivery's error says so rather than a bare `TypeError`.
 */
import { describe, expect, it } from 'vitest';
import { startTestEmulator, testBackends } from '../src/testing.ts';
import { jsonCalls } from './http.ts';

const BASE = '/_api/emulator/v1/webhooks';

describe.each(testBackends())('webhook receiver ports (%s)', (backend) => {
  it('says a failed delivery went to a port fetch refuses to connect to, naming the port, not the URL', async () => {
    const emu = await startTestEmulator(backend, {
      config: { webhookPollMs: 600_000, webhookRetryBaseMs: 600_000 },
    });
    try {
      const { owner } = jsonCalls(() => emu);
      const sub = await owner('POST', `${BASE}/subscriptions`, {
        url: 'http://127.0.0.1:6000/in?key=s3cret',
      });
      expect(sub.status).toBe(200);
      await emu.emu.db.tx((sql) => emu.emu.recordEvent(sql, 'wix.ecom.v1.cart_created', 'c1', { id: 'c1' }));
      await emu.deliverWebhooks();
      const { body } = await owner('GET', `${BASE}/deliveries`);
      expect(body.deliveries).toMatchObject([{ entityId: 'c1', state: 'PENDING', attempts: 1 }]);
      expect(body.deliveries[0].lastError).toBe(
        'could not reach the receiver: fetch refuses to connect to port 6000 (a "bad port" of the Fetch Standard); receive on another port',
      );
      const page = await fetch(`${emu.url}/webhooks`).then((r) => r.text());
      expect(page).toContain('fetch refuses to connect to port 6000');
      expect(page).not.toContain('s3cret');
    } finally {
      await emu.stop();
    }
  });
});
