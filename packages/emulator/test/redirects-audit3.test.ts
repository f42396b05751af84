/**
 * Redirect sessions made through `POST …/v1/redirect-session`, audit 3: they are bounded per
 * caller (visitor, member, app or API key) as plain authorization requests are per client. A
 * caller's expired sessions go first; at the cap, a new session replaces the caller's oldest one
 * nobody opened, then its least recently used, never another caller's. The clock is the test's.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUTH_SESSION_TTL_MS, REDIRECT_SESSIONS_PER_CALLER } from '../src/domains/redirects/index.ts';
import { startTestEmulator, type TestEmulator, testBackends } from '../src/testing.ts';
import { jsonCalls, visitorToken } from './http.ts';

const SHOP = 'http://localhost:5173';
const PATH = '/_api/redirects-api/v1/redirect-session';
const MINUTE = 60_000;

describe.each(testBackends())('redirect sessions per caller (%s)', (backend) => {
  let emu: TestEmulator;
  let clock = Date.parse('2026-04-01T00:00:00Z');
  beforeAll(async () => {
    emu = await startTestEmulator(backend, {
      allowedOrigins: [SHOP],
      now: () => new Date(clock),
      config: { webhookPollMs: 600_000 },
    });
  });
  afterAll(() => emu?.stop());
  const { call } = jsonCalls(() => emu);

  /** A login session made by `authorization` (each a tick of the clock after the last). */
  const create = async (authorization: string, body: object = { login: {} }) => {
    clock += 1000;
    const res = await call('POST', PATH, body, { authorization });
    expect(res.status).toBe(200);
    return res.body.redirectSession.id as string;
  };
  const stored = async (ids: string[]) =>
    (
      await emu.emu.db.query<{ id: string }>('SELECT id FROM redirect_sessions WHERE id = ANY($1::text[])', [
        ids,
      ])
    ).map((r) => r.id);
  /** Opens a session's hosted page: the session is in use from then on. */
  const open = async (id: string) => expect((await fetch(`${emu.url}/redirect/${id}`)).status).toBe(200);

  it(`keeps at most ${REDIRECT_SESSIONS_PER_CALLER} per caller: the oldest unopened go first, then the least recently used`, async () => {
    expect(REDIRECT_SESSIONS_PER_CALLER).toBe(100);
    const visitor = await visitorToken(emu);
    const bystander = await visitorToken(emu);
    const theirs = await create(bystander);
    const mine: string[] = [];
    for (let i = 0; i < REDIRECT_SESSIONS_PER_CALLER; i++) mine.push(await create(visitor));
    // Three of the oldest are in use (a buyer came back to them); the first of them longest ago.
    for (const i of [3, 4, 5]) await open(mine[i]!);
    expect(await stored(mine)).toHaveLength(REDIRECT_SESSIONS_PER_CALLER);

    const more: string[] = [];
    for (let i = 0; i < 10; i++) more.push(await create(visitor));
    const kept = new Set(await stored([...mine, ...more]));
    expect(kept.size).toBe(REDIRECT_SESSIONS_PER_CALLER);
    // The ten unopened oldest made room (0-2 and 6-12); the opened ones and every new one stay.
    expect(mine.filter((id) => !kept.has(id))).toEqual([...mine.slice(0, 3), ...mine.slice(6, 13)]);
    for (const id of [...mine.slice(3, 6), ...more]) expect(kept.has(id)).toBe(true);
    // Another caller's session is not the visitor's to push out.
    expect(await stored([theirs])).toEqual([theirs]);

    // With only opened sessions left to go, the least recently used of them goes.
    await emu.emu.db.query('UPDATE redirect_sessions SET loads = 1 WHERE id = ANY($1::text[])', [[...kept]]);
    await open(mine[3]!);
    await create(visitor);
    const after = new Set(await stored([...kept]));
    // The oldest never opened since (made, not opened again) is mine[13]; mine[3..5] were opened later.
    expect([...kept].filter((id) => !after.has(id))).toEqual([mine[13]]);
  });

  it("deletes the caller's expired sessions when it makes a new one", async () => {
    const visitor = await visitorToken(emu);
    const auth = await create(visitor, {
      auth: {
        authRequest: {
          clientId: emu.demo.clientId,
          responseType: 'code',
          redirectUri: `${SHOP}/callback`,
          state: 'st',
          codeChallenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
          codeChallengeMethod: 'S256',
        },
      },
    });
    const login = await create(visitor);
    clock += AUTH_SESSION_TTL_MS + MINUTE;
    const next = await create(visitor);
    // The hour-long auth session expired and is gone; the 30-day login session stays.
    expect((await stored([auth, login, next])).sort()).toEqual([login, next].sort());
  });

  it('holds the bound when one caller makes sessions at once', async () => {
    const visitor = await visitorToken(emu);
    for (let i = 0; i < REDIRECT_SESSIONS_PER_CALLER - 10; i++) await create(visitor);
    const all = await Promise.all(
      Array.from({ length: 30 }, () => call('POST', PATH, { login: {} }, { authorization: visitor })),
    );
    expect(all.map((r) => r.status)).toEqual(all.map(() => 200));
    const [n] = await emu.emu.db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM redirect_sessions WHERE doc->>'visitorId' = (SELECT doc->>'visitorId' FROM redirect_sessions WHERE id = $1)",
      [all[0]!.body.redirectSession.id],
    );
    expect(n!.n).toBe(REDIRECT_SESSIONS_PER_CALLER);
  });
});
