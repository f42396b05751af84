/**
 * Security checklist items whose tests a mutation audit found missing (docs/security.md): CORS
 * answers vary by origin and a preflight from any other origin gets no CORS header at all (46);
 * the anonymous grant's rate limit is per socket address, whatever forwarding headers say (55);
 * the authorize endpoint's answers that carry a code (the web_message page, the redirect to the
 * app) are never cached and send no referrer (42, RFC 9700 §4.2.4).
 * The emulator's clock stands still, so a bucket never refills while a test waits on the machine.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator, testBackends } from '../src/testing.ts';
import { CHALLENGE, jsonCalls, visitorToken } from './http.ts';

const SHOP = 'http://shop.test:5173';

describe.each(testBackends())('security audit 2 (%s)', (backend) => {
  let emu: TestEmulator;
  const clock = Date.now();
  beforeAll(async () => {
    emu = await startTestEmulator(backend, { allowedOrigins: [SHOP], now: () => new Date(clock) });
  });
  afterAll(() => emu?.stop());

  const { call, owner } = jsonCalls(() => emu);
  let n = 0;

  /**
   * A new member's session token, bound to the demo client, and the URL of a prompt=none
   * authorization for it answered with `mode` (the page that asked is `SHOP`).
   */
  async function promptNone(mode: 'web_message' | 'query' | 'fragment') {
    const auth = { authorization: await visitorToken(emu) };
    const reg = await call(
      'POST',
      '/_api/iam/authentication/v2/register',
      { loginId: { email: `audit2-${++n}-${backend}@example.test` }, password: 'long enough pw' },
      auth,
    );
    expect(reg.status).toBe(200);
    const session = await call(
      'POST',
      '/_api/redirects-api/v1/redirect-session',
      {
        auth: {
          authRequest: {
            clientId: emu.demo.clientId,
            responseType: 'code',
            responseMode: mode,
            ...(mode === 'web_message' ? {} : { redirectUri: `${SHOP}/callback` }),
            state: 'st',
            codeChallenge: CHALLENGE,
            codeChallengeMethod: 'S256',
            sessionToken: reg.body.sessionToken,
          },
          prompt: 'none',
        },
      },
      { ...auth, origin: SHOP },
    );
    expect(session.status).toBe(200);
    return session.body.redirectSession.fullUrl as string;
  }

  describe('checklist 42: answers that carry an authorization code are not cached', () => {
    it('the web_message page that posts the code is no-store and sends no referrer', async () => {
      const res = await fetch(await promptNone('web_message'));
      expect(res.status).toBe(200);
      expect(await res.text()).toMatch(/"code":"[^"]+"/);
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    });

    it('the redirect that carries the code in the query or the fragment is no-store and sends no referrer', async () => {
      for (const mode of ['query', 'fragment'] as const) {
        const res = await fetch(await promptNone(mode), { redirect: 'manual' });
        expect(res.status, mode).toBe(302);
        expect(res.headers.get('location'), mode).toMatch(
          new RegExp(`^${SHOP}/callback[?#](.*&)?code=[^&]+`),
        );
        expect(res.headers.get('cache-control'), mode).toBe('no-store');
        expect(res.headers.get('referrer-policy'), mode).toBe('no-referrer');
      }
    });
  });

  describe('checklist 46: CORS only for allowed origins', () => {
    it('answers that vary by origin say so (Vary: Origin), the preflight and the call', async () => {
      const preflight = await fetch(`${emu.url}/oauth2/token`, {
        method: 'OPTIONS',
        headers: { origin: SHOP, 'access-control-request-method': 'POST' },
      });
      const call = await fetch(`${emu.url}/health`, { headers: { origin: SHOP } });
      for (const res of [preflight, call]) {
        expect(res.headers.get('access-control-allow-origin')).toBe(SHOP);
        expect(res.headers.get('vary') ?? '').toMatch(/(^|,\s*)Origin(\s*,|$)/i);
      }
      await call.body?.cancel();
    });

    it('a preflight from any other origin gets no Access-Control header at all', async () => {
      for (const origin of ['http://evil.test', 'http://shop.test:5174', 'null']) {
        const res = await fetch(`${emu.url}/oauth2/token`, {
          method: 'OPTIONS',
          headers: {
            origin,
            'access-control-request-method': 'POST',
            'access-control-request-headers': 'authorization, content-type',
          },
        });
        const cors = [...res.headers.keys()].filter((k) => k.startsWith('access-control-'));
        expect(cors, origin).toEqual([]);
      }
    });
  });

  describe('checklist 55: the anonymous grant is limited per socket address', () => {
    it('X-Forwarded-For, X-Real-IP and Forwarded do not give a caller new buckets', async () => {
      // A client of its own, so that no other test's grants share its bucket.
      const { body } = await owner('POST', '/_api/emulator/v1/oauth-clients', { name: 'Audit shop' });
      const clientId = body.clientId as string;
      expect(clientId).toBeTruthy();
      expect(
        (await owner('POST', '/_api/emulator/v1/settings', { anonymousTokensPerMinute: 3 })).status,
      ).toBe(200);
      try {
        const statuses: number[] = [];
        for (let i = 1; i <= 6; i++) {
          const ip = `203.0.113.${i}`;
          const res = await fetch(`${emu.url}/oauth2/token`, {
            method: 'POST',
            headers: {
              'content-type': 'application/json',
              'x-forwarded-for': ip,
              'x-real-ip': ip,
              forwarded: `for=${ip}`,
            },
            body: JSON.stringify({ clientId, grantType: 'anonymous' }),
          });
          await res.body?.cancel();
          statuses.push(res.status);
        }
        expect(statuses).toEqual([200, 200, 200, 429, 429, 429]);
      } finally {
        await owner('POST', '/_api/emulator/v1/settings', { anonymousTokensPerMinute: 300 });
      }
    });
  });
});
