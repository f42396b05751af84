/**
 * Leftovers of an audit of the platform and webhooks domains, over raw HTTP: revoking an app's
 * refresh token (`POST /oauth2/revoke`) left it and the access tokens of its install code working;
 * a webhook receiver URL on a port fetch refuses (the Fetch Standard's "bad ports") was accepted,
 * and then every delivery failed; every plain `GET /oauth2/authorize` stored a session for an
 * hour, so that a flood of them grew the table without bound within that hour; and (a later
 * security audit) the public `/webhooks` page showed redirect sessions' ids, their pages' addresses.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PLAIN_SESSIONS_PER_CLIENT } from '../src/domains/redirects/index.ts';
import { startTestEmulator, type TestEmulator, testBackends } from '../src/testing.ts';
import { exited, startCli } from './faults-cli.ts';
import { authorizeUrl, checkoutSession, installedApp, jsonCalls } from './http.ts';

const SHOP = 'http://localhost:5173';
const APP_URL = 'https://app.example.test/installed';
const WEBHOOKS = '/_api/emulator/v1/webhooks';
const BAD_PORT_6000 =
  'must not use port 6000: fetch refuses to connect to it (a "bad port" of the Fetch Standard); receive on another port';

describe.each(testBackends())('platform audit 2 (%s)', (backend) => {
  let emu: TestEmulator;
  beforeAll(async () => {
    emu = await startTestEmulator(backend, {
      allowedOrigins: [SHOP],
      config: { webhookPollMs: 600_000, webhookRetryBaseMs: 600_000 },
    });
  });
  afterAll(() => emu?.stop());
  const { call, owner } = jsonCalls(() => emu);

  describe('RFC 7009: an app revokes its refresh token', () => {
    /** The app installed, its code traded: the code's tokens and one more from its refresh token. */
    async function appTokens() {
      const app = await installedApp(emu, APP_URL);
      const creds = { client_id: app.appId, client_secret: app.appSecret };
      const first = await call('POST', '/oauth/access', {
        grant_type: 'authorization_code',
        code: app.code,
        ...creds,
      });
      expect(first.status).toBe(200);
      const refresh = () =>
        call('POST', '/oauth/access', {
          grant_type: 'refresh_token',
          refresh_token: first.body.refresh_token,
          ...creds,
        });
      const renewed = await refresh();
      expect(renewed.status).toBe(200);
      return { app, first: first.body, renewed: renewed.body, refresh };
    }
    const active = async (token: string) =>
      (await call('POST', '/oauth2/token-info', { token })).body.active as boolean;
    /** An RFC 7009 revocation request: a form. */
    const revoke = (form: Record<string, string>) =>
      fetch(`${emu.url}/oauth2/revoke`, { method: 'POST', body: new URLSearchParams(form) });

    it('the refresh token stops working, and so do the access tokens of its install code; other app tokens do not', async () => {
      const { app, first, renewed, refresh } = await appTokens();
      const own = await call('POST', '/oauth2/token', {
        grant_type: 'client_credentials',
        client_id: app.appId,
        client_secret: app.appSecret,
      });
      expect(own.status).toBe(200);

      const res = await revoke({
        token: first.refresh_token,
        token_type_hint: 'refresh_token',
        client_id: app.appId,
      });
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({});
      const again = await refresh();
      expect(again.status).toBe(400);
      expect(again.body.details.applicationError.code).toBe('invalid_grant');
      expect(await active(first.access_token)).toBe(false);
      expect(await active(renewed.access_token)).toBe(false);
      // A token the app got with its secret alone is of no install code.
      expect(await active(own.body.access_token)).toBe(true);
      // Revoking it again, or a token that is no one's, still answers 200 (RFC 7009 §2.2).
      expect((await revoke({ token: first.refresh_token })).status).toBe(200);
      expect((await revoke({ token: 'OauthNG.no-such-token' })).status).toBe(200);
    });

    it('a request naming another client leaves the app its tokens (and still answers 200)', async () => {
      const { first, renewed, refresh } = await appTokens();
      const other = await installedApp(emu, APP_URL);
      for (const clientId of [other.appId, emu.demo.clientId]) {
        const res = await revoke({ token: first.refresh_token, client_id: clientId });
        expect(res.status).toBe(200);
      }
      expect((await refresh()).status).toBe(200);
      expect(await active(renewed.access_token)).toBe(true);
    });
  });

  describe('webhook receivers on a port fetch refuses to connect to', () => {
    const subscriptions = async () =>
      (await owner('GET', `${WEBHOOKS}/subscriptions`)).body.subscriptions as { url: string }[];

    it.each([
      ['http://127.0.0.1:6000/in?key=s3cret', 6000],
      ['https://hooks.example.test:10080/in', 10080],
      ['http://localhost:6667/', 6667],
    ])('refuses %s with a 400 on url naming the port, not the URL', async (url, port) => {
      const before = await subscriptions();
      const res = await owner('POST', `${WEBHOOKS}/subscriptions`, { url });
      expect(res.status).toBe(400);
      expect(res.body.details.validationError.fieldViolations).toEqual([
        expect.objectContaining({
          field: 'url',
          description: expect.stringContaining(`must not use port ${port}:`),
        }),
      ]);
      expect(JSON.stringify(res.body)).not.toContain('s3cret');
      expect(await subscriptions()).toEqual(before);
    });

    it("accepts other ports, and a scheme's default port written out", async () => {
      for (const url of [
        'http://127.0.0.1:8080/in',
        'http://127.0.0.1:80/in',
        'https://hooks.example.test:443/in',
      ]) {
        const res = await owner('POST', `${WEBHOOKS}/subscriptions`, { url });
        expect(res.status).toBe(200);
        expect(
          (await owner('DELETE', `${WEBHOOKS}/subscriptions/${encodeURIComponent(res.body.subscription.id)}`))
            .status,
        ).toBe(200);
      }
    });

    it('refuses one given to startEmulator (`--webhook`), without the URL', async () => {
      await expect(
        startTestEmulator(backend, { webhooks: ['http://127.0.0.1:6000/in?token=s3cret'] }),
      ).rejects.toThrow(new Error(`--webhook ${BAD_PORT_6000}`));
    });

    it('a subscription stored before (by an older emulator) still says why its deliveries fail', async () => {
      await emu.emu.db.query(
        `INSERT INTO webhook_subscriptions (id, url, event_types, source, start_seq, cursor_txid, created_at)
         SELECT 'stored-before', 'http://127.0.0.1:6000/in?key=s3cret', NULL, 'api', COALESCE(MAX(seq), 0),
                pg_snapshot_xmin(pg_current_snapshot())::text::bigint, now() FROM events`,
      );
      try {
        await emu.emu.db.tx((sql) =>
          emu.emu.recordEvent(sql, 'wix.ecom.v1.cart_created', 'c1', { id: 'c1' }),
        );
        await emu.deliverWebhooks();
        const { body } = await owner('GET', `${WEBHOOKS}/deliveries?subscriptionId=stored-before`);
        expect(body.deliveries).toMatchObject([{ entityId: 'c1', state: 'PENDING', attempts: 1 }]);
        expect(body.deliveries[0].lastError).toBe(
          'could not reach the receiver: fetch refuses to connect to port 6000 (a "bad port" of the Fetch Standard); receive on another port',
        );
        // The public page says it too, without the URL's secret.
        const page = await fetch(`${emu.url}/webhooks`).then((r) => r.text());
        expect(page).toContain('fetch refuses to connect to port 6000');
        expect(page).not.toContain('s3cret');
      } finally {
        await owner('DELETE', `${WEBHOOKS}/subscriptions/stored-before`);
      }
    });
  });

  it("the public /webhooks page does not show a redirect session's id, which opens its page", async () => {
    // A security audit: the page listed every delivery's entity id, and a redirect session's id is
    // the address of its hosted page, so anyone who could load the page could place a buyer's order.
    const sub = await owner('POST', `${WEBHOOKS}/subscriptions`, { url: 'http://127.0.0.1:59999/hook' });
    expect(sub.status).toBe(200);
    try {
      const { checkoutId, session } = await checkoutSession(emu);
      await emu.deliverWebhooks();
      const page = await fetch(`${emu.url}/webhooks`).then((r) => r.text());
      expect(page).toContain('wix.headless.v1.redirect_session_created');
      expect(page).not.toContain(session.id);
      // Other entities' ids are still shown, the checkout's among them.
      expect(page).toContain(checkoutId);
      // Its subscriber gets the id, in the payload the API lists for the merchant too.
      const { body } = await owner(
        'GET',
        `${WEBHOOKS}/deliveries?subscriptionId=${sub.body.subscription.id}`,
      );
      expect(body.deliveries.map((d: { entityId: string }) => d.entityId)).toContain(session.id);
    } finally {
      await owner('DELETE', `${WEBHOOKS}/subscriptions/${sub.body.subscription.id}`);
    }
  });

  describe('sessions of plain authorization requests are capped per client', () => {
    const plainRows = async () =>
      (
        await emu.emu.db.query<{ n: number }>(
          "SELECT count(*)::int AS n FROM redirect_sessions WHERE intent = 'auth' AND doc->>'clientId' = $1",
          [emu.demo.clientId],
        )
      )[0]!.n;
    /** A plain authorization request, as anyone may send: the login page's session id. */
    const authorize = async () => {
      const res = await fetch(authorizeUrl(emu, `${SHOP}/callback`));
      expect(res.status).toBe(200);
      return /name="redirect_session_id" value="([^"]+)"/.exec(await res.text())![1]!;
    };
    /** Posts the hosted login form of a session, from the page itself. */
    const submit = (session: string, form: Record<string, string>) =>
      fetch(`${emu.url}/oauth2/authorize/submit`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'sec-fetch-site': 'same-origin' },
        body: new URLSearchParams({ redirect_session_id: session, ...form }),
      });

    it('a flood of requests keeps at most the cap, and a login in progress goes on', async () => {
      // A visitor's login in progress: the page, a first (wrong) try, the page again.
      const inProgress = await authorize();
      const wrong = await submit(inProgress, {
        action: 'login',
        email: 'nobody@example.test',
        password: 'wrong password',
      });
      expect(wrong.status).toBe(200);
      const first = await authorize();
      for (let i = 0; i < PLAIN_SESSIONS_PER_CLIENT + 20; i++) await authorize();
      expect(await plainRows()).toBe(PLAIN_SESSIONS_PER_CLIENT);
      // The oldest one never come back to is gone; the login in progress is not.
      expect((await submit(first, { action: 'login', email: 'a@example.test', password: 'x' })).status).toBe(
        400,
      );
      const done = await submit(inProgress, {
        action: 'register',
        email: 'flooded@example.test',
        password: 'long enough pw',
      });
      expect(done.status).toBe(302);
      expect(done.headers.get('location')).toMatch(/^http:\/\/localhost:5173\/callback\?code=/);
    }, 120_000);
  });
});

describe('the --webhook flag', () => {
  it('refuses a URL on a port fetch refuses to connect to, without printing the URL', async () => {
    const bad = startCli('memory', ['--webhook', 'http://127.0.0.1:6000/in?token=s3cret']);
    const refused = await bad.ready.then(
      () => new Error('started'),
      (e: Error) => e,
    );
    expect(refused.message).toContain(`--webhook ${BAD_PORT_6000}`);
    expect(refused.message).not.toContain('s3cret');
    await exited(bad.child);
    // A usage error, found before anything starts.
    expect(bad.child.exitCode).toBe(2);
  });
});
