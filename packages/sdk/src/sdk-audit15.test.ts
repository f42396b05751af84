/**
 * Findings of the fifteenth SDK audit (the wire protocol, the product spec and the security
 * checklist read section by section against the engine, the auth flows and the modules): each
 * test failed before its fix.
 */
import { describe, expect, it } from 'vitest';
import { standInBrowser } from '../test/stand-in-browser.ts';
import { ApiKeyStrategy } from './auth/api-key.ts';
import { getMemberTokensForDirectLogin } from './auth/silent.ts';
import { createClient } from './client.ts';
import { request } from './http/engine.ts';
import type { ShopkitError } from './http/errors.ts';
import * as identity from './modules/identity.ts';

describe('identical reads in flight', () => {
  // A read with `timeoutMs: 0` shared its key with reads of the client's timeout (`0` read as
  // "no timeout of its own"): a read made meanwhile joined it and timed out with it at once.
  it('share only with reads of the same timeout, 0 included', async () => {
    let sent = 0;
    const client = createClient({
      baseUrl: 'http://h',
      fetch: (async (_url: string, init: RequestInit) => {
        sent++;
        // Answers once the event loop has turned a few times, unless the call's signal ended it.
        await new Promise((r) => setTimeout(r, 30));
        init.signal!.throwIfAborted();
        return Response.json({ ok: true });
      }) as typeof fetch,
    });
    const quick = request(client, 'GET', '/t/v1/things', { timeoutMs: 0 }).catch((e) => e.code);
    const usual = request(client, 'GET', '/t/v1/things');
    expect(await quick).toBe('TIMEOUT');
    expect(await usual).toEqual({ ok: true });
    expect(sent).toBe(2);
  });
});

describe('silent login on a client without OAuthStrategy', () => {
  // Checklist 34: auth helpers never throw incidental TypeErrors. Without a strategy it was a
  // `TypeError` reading the client id, past `onError`; with an API key's, a redirect session was
  // sent with no client id (and the key), and the frame's code exchanged by no strategy.
  it.each([
    ['no auth', undefined],
    ['an API key', ApiKeyStrategy({ apiKey: 'key-1' })],
  ])('is refused as OAUTH_REQUIRED before anything is sent (%s)', async (_, auth) => {
    const sent: string[] = [];
    const frames: string[] = [];
    const heard: [string, string][] = [];
    const restore = standInBrowser((url, frame) => {
      frames.push(url);
      return { origin: new URL(url).origin, source: frame, data: { state: 'x', code: 'c' } };
    });
    try {
      const client = createClient({
        baseUrl: 'http://h',
        auth,
        fetch: (async (url: string) => {
          sent.push(url);
          return Response.json({ redirectSession: { id: 's', fullUrl: 'http://h/authorize' } });
        }) as typeof fetch,
        onError: (e, call) => heard.push([e.code, call.path]),
      });
      const err = (await getMemberTokensForDirectLogin(client, 'session', { timeoutMs: 50 }).catch(
        (e: unknown) => e,
      )) as ShopkitError;
      expect(err).toMatchObject({ name: 'ShopkitError', code: 'OAUTH_REQUIRED' });
      expect(heard).toEqual([['OAUTH_REQUIRED', '/_api/redirects-api/v1/redirect-session']]);
      expect(sent).toEqual([]);
      expect(frames).toEqual([]);
    } finally {
      restore();
    }
  });
});

describe('identity calls that need OAuthStrategy, on a client without it', () => {
  // Spec 7: every call's failure goes to the error hook and is rethrown. `OAUTH_REQUIRED` was
  // thrown past `onError`, unlike every other refusal of these calls.
  it('report OAUTH_REQUIRED to onError as the call they stop, then throw it', async () => {
    const heard: [string, string][] = [];
    const client = createClient({
      baseUrl: 'http://h',
      auth: ApiKeyStrategy({ apiKey: 'key-1' }),
      fetch: (async () => Response.json({})) as typeof fetch,
      onError: (e, call) => heard.push([e.code, call.path]),
    });
    const data = await identity.generateOAuthData(client, 'https://shop.test/callback');
    const codes = await Promise.all([
      identity.getAuthUrl(client, data).catch((e: ShopkitError) => e.code),
      identity.logout(client).catch((e: ShopkitError) => e.code),
      identity.getMemberTokens(client, 'code', data.state, data).catch((e: ShopkitError) => e.code),
      identity
        .sendPasswordResetEmail(client, 'ada@example.com', 'https://shop.test/reset')
        .catch((e: ShopkitError) => e.code),
    ]);
    expect(codes).toEqual(['OAUTH_REQUIRED', 'OAUTH_REQUIRED', 'OAUTH_REQUIRED', 'OAUTH_REQUIRED']);
    expect(heard).toEqual([
      ['OAUTH_REQUIRED', '/_api/redirects-api/v1/redirect-session'],
      ['OAUTH_REQUIRED', '/_api/redirects-api/v1/redirect-session'],
      ['OAUTH_REQUIRED', '/oauth2/token'],
      ['OAUTH_REQUIRED', '/_api/iam/recovery/v1/send-email'],
    ]);
  });
});

describe("parseFromUrl's address-bar cleanup", () => {
  // Checklist 11 takes the code and state out of the address bar. It rewrote the page's other
  // parameters too, re-encoded by `URLSearchParams` (`a%20b` became `a+b`, `flag` became `flag=`),
  // which a page that reads its own address may not read the same.
  it.each(['query', 'fragment'] as const)('takes out only the OAuth parameters (%s)', (mode) => {
    const g = globalThis as { location?: unknown; history?: unknown };
    const mark = mode === 'query' ? '?' : '#';
    const page = `https://shop.test/account${mark}q=a%20b&flag&code=C0DE&state=ST&x=%2F~`;
    const replaced: string[] = [];
    g.location = { href: page };
    g.history = { state: null, replaceState: (_s: unknown, _t: string, url: string) => replaced.push(url) };
    try {
      const client = createClient({ baseUrl: 'http://h' });
      expect(identity.parseFromUrl(client, undefined, mode)).toMatchObject({ code: 'C0DE', state: 'ST' });
      expect(replaced).toEqual([`https://shop.test/account${mark}q=a%20b&flag&x=%2F~`]);
    } finally {
      delete g.location;
      delete g.history;
    }
  });
});
