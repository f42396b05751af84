/**
 * Redirect sessions against the emulator: one intent exactly, the stored session and its event,
 * the hosted pages (registered, logout, not available), and callback URLs only when allowed.
 */
import { testBackends } from '@shopkit/emulator/testing';
import { describe, expect, it } from 'vitest';
import { redirects, ValidationError } from '../../src/index.ts';
import { rawRedirectSession, setupEmulator, visitorClient } from './setup.ts';

const SHOP = 'http://shop.test:5173';

describe.each(testBackends())('redirect sessions (%s)', (backend) => {
  const emu = setupEmulator(backend, { allowedOrigins: [SHOP] });

  const visitor = () => visitorClient(emu, { redirects });

  it('creates a session for an intent, stores it and records the event in one go', async () => {
    const client = visitor();
    const { redirectSession: s } = await client.redirects.createRedirectSession({
      ecomCheckout: { checkoutId: 'chk-1' },
      callbacks: { postFlowUrl: `${SHOP}/cart` },
    });
    expect(s.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(s.fullUrl).toBe(`${emu.url}/redirect/${s.id}`);
    expect(s.urlDetails.endpoint).toBe(s.fullUrl);
    expect(s.sessionToken).toBeTruthy();
    expect(s.shortUrl).toBe(`${emu.url}/r/${s.id}`);
    const events = await emu.emu.db.query('SELECT type, entity FROM events WHERE entity_id = $1', [s.id]);
    expect(events.map((e) => e.type)).toEqual(['wix.headless.v1.redirect_session_created']);
    const rows = await emu.emu.db.query('SELECT intent, doc FROM redirect_sessions WHERE id = $1', [s.id]);
    expect(rows[0]!.intent).toBe('ecomCheckout');
    expect(rows[0]!.doc.request).toEqual({ checkoutId: 'chk-1' });
  });

  it('serves the custom-host path too', async () => {
    const client = visitor();
    await client.redirects.createRedirectSession({ login: {} }); // gets a token
    const { accessToken } = await client.auth.getTokens();
    const res = await fetch(`${emu.url}/headless/v1/redirect-session`, {
      method: 'POST',
      headers: { authorization: accessToken.value, 'content-type': 'application/json' },
      body: JSON.stringify({ storesProduct: { productSlug: 'linen-shirt' } }),
    });
    expect(res.status).toBe(200);
    expect((await res.json()).redirectSession.fullUrl).toMatch(/\/redirect\//);
  });

  it('refuses no intent and two intents with a field violation, and stores nothing', async () => {
    const client = visitor();
    const before = await emu.emu.db.query('SELECT count(*)::int AS n FROM redirect_sessions');
    const none = await client.redirects.createRedirectSession({} as never).catch((e) => e);
    expect(none).toBeInstanceOf(ValidationError);
    expect(none.message).toMatch(/exactly one intent/);
    const two = await client.redirects
      .createRedirectSession({ login: {}, storesProduct: { productSlug: 'x' } } as never)
      .catch((e) => e);
    expect(two).toBeInstanceOf(ValidationError);
    expect(two.message).toMatch(/must be the only intent/);
    const bad = await client.redirects.createRedirectSession({ ecomCheckout: {} } as never).catch((e) => e);
    expect(bad).toBeInstanceOf(ValidationError);
    expect(bad.message).toMatch(/checkoutId/);
    const after = await emu.emu.db.query('SELECT count(*)::int AS n FROM redirect_sessions');
    expect(after[0]!.n).toBe(before[0]!.n);
  });

  it('needs a caller token', async () => {
    const res = await fetch(`${emu.url}/_api/redirects-api/v1/redirect-session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ login: {} }),
    });
    expect(res.status).toBe(401);
  });

  it('an intent without a page says so and links back only to an allowed URL', async () => {
    const client = visitor();
    const ok = await client.redirects.createRedirectSession({
      bookingsBook: { resourceId: 'r1' },
      callbacks: { postFlowUrl: `${SHOP}/back` },
    });
    const page = await fetch(ok.redirectSession.fullUrl);
    const html = await page.text();
    expect(html).toContain('not available in the emulator');
    expect(html).toContain(`href="${SHOP}/back"`);
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    for (const evil of [
      'https://evil.test/x',
      `${SHOP}.evil.test/x`,
      'javascript:alert(1)',
      `http://u@shop.test:5173/`,
    ]) {
      const s = await rawRedirectSession(client, {
        bookingsBook: { resourceId: 'r1' },
        callbacks: { postFlowUrl: evil },
      });
      const text = await (await fetch(s.redirectSession.fullUrl)).text();
      expect(text).not.toContain('href=');
    }
  });

  it('an unknown session id is a 404 page', async () => {
    const res = await fetch(`${emu.url}/redirect/00000000-0000-4000-a000-000000000000`);
    expect(res.status).toBe(404);
  });

  it('the auth intent points at the authorize endpoint without secrets in the URL', async () => {
    const client = visitor();
    const { redirectSession: s } = await client.redirects.createRedirectSession({
      auth: {
        authRequest: {
          clientId: emu.demo.clientId,
          responseType: 'code',
          redirectUri: `${SHOP}/callback`,
          scope: 'offline_access',
          state: 'st-123',
          responseMode: 'query',
          codeChallenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
          codeChallengeMethod: 'S256',
          sessionToken: 'secret-session-token',
        },
        prompt: 'login',
      },
    });
    expect(s.urlDetails.endpoint).toBe(`${emu.url}/oauth2/authorize`);
    expect(s.urlDetails.searchParams).toMatchObject({
      client_id: emu.demo.clientId,
      state: 'st-123',
      code_challenge_method: 'S256',
      redirect_uri: `${SHOP}/callback`,
    });
    expect(s.fullUrl).not.toContain('secret-session-token');
    const rows = await emu.emu.db.query('SELECT doc FROM redirect_sessions WHERE id = $1', [s.id]);
    expect(JSON.stringify(rows[0]!.doc)).not.toContain('secret-session-token');
  });

  it('the auth intent refuses the plain method and a missing challenge', async () => {
    const client = visitor();
    const base = {
      clientId: emu.demo.clientId,
      responseType: 'code' as const,
      redirectUri: `${SHOP}/callback`,
      state: 's',
    };
    const plain = await client.redirects
      .createRedirectSession({
        auth: {
          authRequest: { ...base, codeChallenge: 'x'.repeat(43), codeChallengeMethod: 'plain' as never },
        },
      })
      .catch((e) => e);
    expect(plain).toBeInstanceOf(ValidationError);
    const missing = await client.redirects
      .createRedirectSession({ auth: { authRequest: { ...base, codeChallengeMethod: 'S256' } as never } })
      .catch((e) => e);
    expect(missing).toBeInstanceOf(ValidationError);
    expect(missing.message).toMatch(/codeChallenge/);
  });
});
