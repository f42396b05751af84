/**
 * Webhook subscriptions, audit 3: each installed app sees and manages only its own subscriptions
 * (the merchant's API key, the site's owner, sees and manages all of them), and creating the same
 * subscription again answers the one there is instead of making a second one that would deliver
 * every event twice, also when the creates race.
 */
import { createServer } from 'node:http';
import { text } from 'node:stream/consumers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator, testBackends } from '../src/testing.ts';
import { installedApp, jsonCalls, listen, visitorToken } from './http.ts';

const SUBS = '/_api/emulator/v1/webhooks/subscriptions';
const DELIVERIES = '/_api/emulator/v1/webhooks/deliveries';
const CREATED = 'wix.headless.v1.redirect_session_created';
const APP_URL = 'https://app.example.test/installed';

/** A loopback receiver that records the bodies it gets. */
async function receiver() {
  const bodies: string[] = [];
  const { port, close } = await listen(
    createServer((req, res) => {
      text(req).then((body) => {
        bodies.push(body);
        res.writeHead(200).end();
      });
    }),
  );
  return { bodies, url: `http://127.0.0.1:${port}/hook`, close };
}

describe.each(testBackends())('webhook subscriptions audit 3 (%s)', (backend) => {
  let emu: TestEmulator;
  let hooks: Awaited<ReturnType<typeof receiver>>[] = [];
  beforeAll(async () => {
    emu = await startTestEmulator(backend, { config: { webhookPollMs: 600_000 } });
    hooks = await Promise.all([receiver(), receiver(), receiver()]);
  });
  afterAll(async () => {
    await emu?.stop();
    await Promise.all(hooks.map((h) => h.close()));
  });
  const { call, owner } = jsonCalls(() => emu);

  /** A newly installed app's access token, from its install code. */
  async function appToken() {
    const app = await installedApp(emu, APP_URL);
    const res = await call('POST', '/oauth/access', {
      grant_type: 'authorization_code',
      code: app.code,
      client_id: app.appId,
      client_secret: app.appSecret,
    });
    expect(res.status).toBe(200);
    const authorization = res.body.access_token as string;
    return {
      appId: app.appId,
      as: (method: string, path: string, body?: object) => call(method, path, body, { authorization }),
    };
  }
  /** An event of type CREATED: a visitor's login redirect session. */
  async function fireEvent() {
    const res = await call(
      'POST',
      '/_api/redirects-api/v1/redirect-session',
      { login: {} },
      { authorization: await visitorToken(emu) },
    );
    expect(res.status).toBe(200);
  }
  const ids = (subs: { id: string }[]) => subs.map((s) => s.id).sort();

  describe('defect 1: an app sees and manages only its own subscriptions', () => {
    it("hides another app's subscriptions, and refuses to delete or redeliver them (404, as if unknown)", async () => {
      const a = await appToken();
      const b = await appToken();
      const mine = await a.as('POST', SUBS, { url: `${hooks[0]!.url}?app=a`, eventTypes: [CREATED] });
      expect(mine.status).toBe(200);
      const theirs = await b.as('POST', SUBS, { url: `${hooks[1]!.url}?app=b`, eventTypes: [CREATED] });
      expect(theirs.status).toBe(200);
      const aId = mine.body.subscription.id as string;
      const bId = theirs.body.subscription.id as string;

      // Each app lists its own only.
      expect(ids((await a.as('GET', SUBS)).body.subscriptions)).toEqual([aId]);
      expect(ids((await b.as('GET', SUBS)).body.subscriptions)).toEqual([bId]);
      // The merchant (site level) sees both, with the app each belongs to.
      const all = (await owner('GET', SUBS)).body.subscriptions as { id: string; appId?: string }[];
      expect(all.find((s) => s.id === aId)).toMatchObject({ appId: a.appId, source: 'API' });
      expect(all.find((s) => s.id === bId)).toMatchObject({ appId: b.appId, source: 'API' });

      // B can neither delete nor redeliver A's: the same 404 as for an id that does not exist.
      for (const res of [
        await b.as('DELETE', `${SUBS}/${aId}`),
        await b.as('POST', `${DELIVERIES}/redeliver`, { subscriptionId: aId }),
      ]) {
        expect(res.status).toBe(404);
        expect(res.body.details.applicationError.code).toBe('SUBSCRIPTION_NOT_FOUND');
      }
      expect(ids((await a.as('GET', SUBS)).body.subscriptions)).toEqual([aId]);

      // Deliveries: each app's go to its own receiver only, and each app sees only its own.
      await fireEvent();
      await emu.deliverWebhooks();
      expect(hooks[0]!.bodies).toHaveLength(1);
      expect(hooks[1]!.bodies).toHaveLength(1);
      const seenByB = (await b.as('GET', DELIVERIES)).body.deliveries as { subscriptionId: string }[];
      expect(seenByB.map((d) => d.subscriptionId)).toEqual([bId]);
      expect((await b.as('GET', `${DELIVERIES}?subscriptionId=${aId}`)).body.deliveries).toEqual([]);
      const seenByMerchant = (await owner('GET', DELIVERIES)).body.deliveries as { subscriptionId: string }[];
      expect(new Set(seenByMerchant.map((d) => d.subscriptionId))).toEqual(new Set([aId, bId]));

      // A deletes its own; the merchant may delete any subscription of the site.
      expect((await a.as('DELETE', `${SUBS}/${aId}`)).status).toBe(200);
      expect((await owner('DELETE', `${SUBS}/${bId}`)).status).toBe(200);
      expect((await b.as('GET', SUBS)).body.subscriptions).toEqual([]);
      hooks[0]!.bodies.length = 0;
      hooks[1]!.bodies.length = 0;
    });
  });

  describe('defect 2: creating the same subscription again answers the existing one', () => {
    it('one subscription per app, URL and event types (in any order): each event delivered once', async () => {
      const a = await appToken();
      const b = await appToken();
      const url = `${hooks[2]!.url}?same=1`;
      const first = await a.as('POST', SUBS, { url, eventTypes: [CREATED, 'wix.ecom.v1.cart_created'] });
      expect(first.status).toBe(200);
      const again = await a.as('POST', SUBS, {
        url,
        eventTypes: ['wix.ecom.v1.cart_created', CREATED, CREATED],
      });
      expect(again.status).toBe(200);
      expect(again.body.subscription).toEqual(first.body.subscription);
      expect((await a.as('GET', SUBS)).body.subscriptions).toHaveLength(1);
      // Another app's, or other event types, are other subscriptions.
      const other = await b.as('POST', SUBS, { url, eventTypes: [CREATED] });
      const wider = await a.as('POST', SUBS, { url });
      expect(new Set([first, other, wider].map((r) => r.body.subscription.id)).size).toBe(3);

      await fireEvent();
      await emu.deliverWebhooks();
      // A's two subscriptions and B's one: three deliveries, not four.
      expect(hooks[2]!.bodies).toHaveLength(3);
      for (const id of [first, other, wider].map((r) => r.body.subscription.id))
        expect((await owner('DELETE', `${SUBS}/${id}`)).status).toBe(200);
      hooks[2]!.bodies.length = 0;
    });

    it('the merchant too, and racing creates make one subscription that all of them answer', async () => {
      const url = `${hooks[2]!.url}?race=1`;
      const all = await Promise.all(
        Array.from({ length: 12 }, () => owner('POST', SUBS, { url, eventTypes: [CREATED] })),
      );
      expect(all.map((r) => r.status)).toEqual(all.map(() => 200));
      expect(new Set(all.map((r) => r.body.subscription.id)).size).toBe(1);
      const [n] = await emu.emu.db.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM webhook_subscriptions WHERE url = $1',
        [url],
      );
      expect(n!.n).toBe(1);
      await fireEvent();
      await emu.deliverWebhooks();
      expect(hooks[2]!.bodies).toHaveLength(1);
    });
  });
});
