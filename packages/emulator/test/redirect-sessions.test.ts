/**
 * Redirect sessions do not pile up: each lives a while after its last use (an `auth` session an
 * hour, like the login it serves; every other intent, a checkout above all, 30 days), an expired
 * one is refused at once, and expired rows are deleted when new sessions are made (every plain
 * `GET /oauth2/authorize` makes one). The emulator's clock is the test's.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUTH_SESSION_TTL_MS, REDIRECT_SESSION_TTL_MS } from '../src/domains/redirects/index.ts';
import { startTestEmulator, type TestEmulator, testBackends } from '../src/testing.ts';
import { authorizeUrl, checkoutSession } from './http.ts';

const SHOP = 'http://localhost:5173';
const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

describe.each(testBackends())('redirect session lifetimes (%s)', (backend) => {
  let emu: TestEmulator;
  let clock = Date.parse('2026-03-01T00:00:00Z');
  beforeAll(async () => {
    emu = await startTestEmulator(backend, { allowedOrigins: [SHOP], now: () => new Date(clock) });
  });
  afterAll(() => emu?.stop());
  const rows = async (intent: string) =>
    Number(
      (
        await emu.emu.db.query<{ n: number }>(
          'SELECT count(*)::int AS n FROM redirect_sessions WHERE intent = $1',
          [intent],
        )
      )[0]!.n,
    );
  const exists = async (id: string) =>
    (await emu.emu.db.query('SELECT 1 FROM redirect_sessions WHERE id = $1', [id])).length === 1;

  /** A plain authorization request, as anyone may send: the login page and its session id. */
  const authorize = async () => {
    const res = await fetch(authorizeUrl(emu, `${SHOP}/callback`));
    expect(res.status).toBe(200);
    return /name="redirect_session_id" value="([^"]+)"/.exec(await res.text())![1]!;
  };
  /** Posts the login form of a session (a wrong password: the page again, or "expired"). */
  const postLogin = (session: string) =>
    fetch(`${emu.url}/oauth2/authorize/submit`, {
      method: 'POST',
      headers: { 'sec-fetch-site': 'same-origin' },
      body: new URLSearchParams({
        redirect_session_id: session,
        action: 'login',
        email: 'nobody@example.test',
        password: 'wrong password',
      }),
    });

  it('the lifetimes: an auth session an hour after its last use, any other 30 days', () => {
    expect(AUTH_SESSION_TTL_MS).toBe(60 * MINUTE);
    expect(REDIRECT_SESSION_TTL_MS).toBe(30 * DAY);
  });

  it('sessions of plain authorization requests are deleted once expired, when new ones are made', async () => {
    const events = () =>
      emu.emu.db.query("SELECT 1 FROM events WHERE type = 'wix.headless.v1.redirect_session_created'");
    const eventsBefore = (await events()).length;
    const before = await rows('auth');
    for (let i = 0; i < 20; i++) await authorize();
    expect(await rows('auth')).toBe(before + 20);
    // Nor do they leave events behind: a plain authorization request is no API-made session.
    expect((await events()).length).toBe(eventsBefore);
    clock += AUTH_SESSION_TTL_MS - MINUTE;
    const young = await authorize();
    // Not yet expired: nothing is deleted.
    expect(await rows('auth')).toBe(before + 21);
    clock += 2 * MINUTE;
    const last = await authorize();
    // The twenty are gone; the two made within the hour stay.
    expect(await rows('auth')).toBe(2);
    expect(await exists(young)).toBe(true);
    expect(await exists(last)).toBe(true);
  });

  it('an auth session in use lives on; an unused one is refused, even before it is deleted', async () => {
    const session = await authorize();
    for (let i = 0; i < 3; i++) {
      // Each use starts its hour again: 50 minutes at a time it outlives its first hour.
      clock += 50 * MINUTE;
      const page = await postLogin(session);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain(`name="redirect_session_id" value="${session}"`);
    }
    clock += AUTH_SESSION_TTL_MS + MINUTE;
    // Still stored (nothing was created since), but expired: the login form is refused.
    expect(await exists(session)).toBe(true);
    const late = await postLogin(session);
    expect(late.status).toBe(400);
    expect(await late.text()).toContain('This login link is unknown or has expired.');
    const again = await fetch(`${emu.url}/oauth2/authorize?redirect_session_id=${session}`);
    expect(again.status).toBe(400);
    await authorize();
    expect(await exists(session)).toBe(false);
  });

  it('a checkout session lives 30 days after its last use, so a buyer can come back to it', async () => {
    const { session } = await checkoutSession(emu);
    const { id, fullUrl, shortUrl } = session;
    for (let i = 0; i < 2; i++) {
      clock += 29 * DAY;
      // Sessions made meanwhile delete expired ones, not this one.
      await authorize();
      expect(await exists(id)).toBe(true);
      const page = await fetch(fullUrl);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('<h1>Checkout</h1>');
    }
    clock += REDIRECT_SESSION_TTL_MS + MINUTE;
    const expired = await fetch(fullUrl);
    expect(expired.status).toBe(404);
    const said = await expired.text();
    expect(said).toContain('This link is unknown or has expired.');
    // No site is known to link back to: it says how to go on.
    expect(said).toContain("Go back to the shop's site and start again from there.");
    // Its short URL, which a browser follows too, says the same (not a JSON body).
    const short = await fetch(shortUrl, { redirect: 'manual' });
    expect(short.status).toBe(404);
    expect(short.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await short.text()).toContain('This link is unknown or has expired.');
    await authorize();
    expect(await exists(id)).toBe(false);
  });
});
