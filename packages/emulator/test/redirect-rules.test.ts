/**
 * Where the authorization server may send a browser, and how much of a request it reads, over raw
 * HTTP: a client with registered redirect URIs gets exactly those, a client with allowed origins
 * only gets any path on them, and both refuse fragments, user info, dot segments, backslashes and
 * odd spellings, with an error page and never a redirect (checklist 39); a page's `origin` is used
 * only when it is an http(s) origin (checklist 40); a redirect session is never cached (checklist
 * 42); a body over the cap is refused while it streams, whatever its headers say (checklist 49).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator, testBackends } from '../src/testing.ts';
import { jsonCalls, visitorToken } from './http.ts';

const SHOP = 'http://localhost:5173';
const CALLBACK = `${SHOP}/callback`;
/** RFC 7636 Appendix B's challenge: these tests never exchange a code. */
const CHALLENGE = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';

/** Refused for every client, in both modes: forms a browser or a client could read otherwise. */
const ALWAYS_REFUSED = [
  `${CALLBACK}#frag`,
  `${CALLBACK}#`,
  `${SHOP}/a/../callback`,
  `${SHOP}/anything/../else?q=1`,
  `${SHOP}/a/../../evil`,
  `${SHOP}/%2e%2e/callback`,
  `${SHOP}/./callback`,
  `${SHOP}\\callback`,
  `${SHOP}/callback\\`,
  `${SHOP}//evil.com`,
  '//evil.com',
  '/callback',
  `http://user@localhost:5173/callback`,
  `http://localhost:5173@evil.test/callback`,
  'https:evil.com',
  'http:localhost:5173/callback',
  'HTTP://localhost:5173/callback',
  'http://LOCALHOST:5173/callback',
  'http://localhost.evil.test:5173/callback',
  'http://evil-localhost:5173/callback',
  'https://localhost:5173/callback',
  'http://localhost:5174/callback',
  `${SHOP}/call\tback`,
  ` ${CALLBACK}`,
  `${CALLBACK} `,
  'javascript:alert(1)',
  'data:text/html,hi',
];

/** Refused when the client registered `CALLBACK`, allowed when it only allows `SHOP`. */
const EXACT_ONLY = [`${CALLBACK}/`, `${SHOP}/Callback`, `${CALLBACK}?x=1`, `${SHOP}/other`, `${SHOP}/`, SHOP];

describe.each(testBackends())('redirect rules (%s)', (backend) => {
  let emu: TestEmulator;
  /** A client that registered `CALLBACK` (exact mode); the demo client only allows `SHOP`. */
  let exactClient: string;
  beforeAll(async () => {
    emu = await startTestEmulator(backend, { allowedOrigins: [SHOP] });
    const res = await owner('POST', '/_api/emulator/v1/oauth-clients', {
      name: 'Exact shop',
      allowedOrigins: [SHOP],
      redirectUris: [CALLBACK],
    });
    expect(res.status).toBe(200);
    exactClient = res.body.clientId;
  });
  afterAll(() => emu?.stop());
  const { owner } = jsonCalls(() => emu);

  /** A plain OAuth authorization request, not followed. */
  const authorize = (clientId: string, redirectUri: string, extra: Record<string, string> = {}) =>
    fetch(
      `${emu.url}/oauth2/authorize?${new URLSearchParams({
        client_id: clientId,
        response_type: 'code',
        redirect_uri: redirectUri,
        state: 'st',
        code_challenge: CHALLENGE,
        code_challenge_method: 'S256',
        response_mode: 'query',
        ...extra,
      })}`,
      { redirect: 'manual' },
    );

  /** Expects the authorize endpoint's error page: 400, HTML, no `Location`, no code. */
  const expectRefused = async (res: Response, label: string) => {
    expect(res.status, label).toBe(400);
    expect(res.headers.get('location'), label).toBeNull();
    expect(res.headers.get('content-type'), label).toMatch(/^text\/html/);
    expect(await res.text(), label).not.toMatch(/code=|name="redirect_session_id"/);
  };

  /** A visitor token of the demo client and a one-shot login session token of a new member. */
  let n = 0;
  const login = async () => {
    const visitor = await visitorToken(emu);
    const reg = await fetch(`${emu.url}/_api/iam/authentication/v2/register`, {
      method: 'POST',
      headers: { authorization: visitor, 'content-type': 'application/json' },
      body: JSON.stringify({
        loginId: { email: `rr${++n}-${backend}@example.test` },
        password: 'long enough pw',
      }),
    });
    expect(reg.status).toBe(200);
    return { visitor, sessionToken: (await reg.json()).sessionToken as string };
  };

  /** `POST …/v1/redirect-session` with an `auth` intent of the demo client. */
  const authSession = (
    visitor: string,
    authRequest: Record<string, unknown>,
    extra: { origin?: string; headers?: Record<string, string>; prompt?: string } = {},
  ) =>
    fetch(`${emu.url}/_api/redirects-api/v1/redirect-session`, {
      method: 'POST',
      headers: { authorization: visitor, 'content-type': 'application/json', ...extra.headers },
      body: JSON.stringify({
        auth: {
          authRequest: {
            clientId: emu.demo.clientId,
            responseType: 'code',
            state: 'st',
            codeChallenge: CHALLENGE,
            codeChallengeMethod: 'S256',
            ...authRequest,
          },
          prompt: extra.prompt ?? 'none',
        },
        ...(extra.origin === undefined ? {} : { origin: extra.origin }),
      }),
    });

  describe('checklist 39: redirect URIs', () => {
    it('a client with registered redirect URIs gets exactly those; every near miss is an error page', async () => {
      const ok = await authorize(exactClient, CALLBACK);
      expect(ok.status).toBe(200);
      expect(await ok.text()).toContain('name="redirect_session_id"');
      for (const bad of [...ALWAYS_REFUSED, ...EXACT_ONLY])
        await expectRefused(await authorize(exactClient, bad), bad);
    });

    it('a client with allowed origins only gets any path on them, with the same refusals', async () => {
      for (const good of [CALLBACK, ...EXACT_ONLY]) {
        const res = await authorize(emu.demo.clientId, good);
        expect(res.status, good).toBe(200);
        expect(await res.text(), good).toContain('name="redirect_session_id"');
      }
      for (const bad of ALWAYS_REFUSED) await expectRefused(await authorize(emu.demo.clientId, bad), bad);
    });

    it('no code leaves for a refused redirect URI: prompt=none with a session token, and the login form', async () => {
      const codesBefore = (await emu.emu.db.query('SELECT redirect_uri FROM auth_codes')).map(
        (r) => r.redirect_uri,
      );
      for (const bad of [`${SHOP}/anything/../else?q=1`, `${CALLBACK}#x`, 'http://user@localhost:5173/cb']) {
        const { visitor, sessionToken } = await login();
        const created = await authSession(visitor, { redirectUri: bad, responseMode: 'query', sessionToken });
        expect(created.status, bad).toBe(200);
        const { fullUrl, id } = (await created.json()).redirectSession;
        await expectRefused(await fetch(fullUrl, { redirect: 'manual' }), bad);
        const submit = await fetch(`${emu.url}/oauth2/authorize/submit`, {
          method: 'POST',
          redirect: 'manual',
          body: new URLSearchParams({ redirect_session_id: id, action: 'login', email: 'x@example.test' }),
        });
        await expectRefused(submit, bad);
      }
      const codes = await emu.emu.db.query('SELECT redirect_uri FROM auth_codes');
      expect(codes.map((r) => r.redirect_uri)).toEqual(codesBefore);
    });

    it('registration refuses redirect URIs and origins that could never be used safely', async () => {
      const register = (body: object) =>
        owner('POST', '/_api/emulator/v1/oauth-clients', { name: 'Bad shop', ...body });
      for (const redirectUris of [[`${CALLBACK}#f`], [`${SHOP}/a/../cb`], ['javascript:alert(1)'], ['/cb']]) {
        const res = await register({ redirectUris });
        expect(res.status, redirectUris[0]).toBe(400);
        expect(res.body.details.validationError.fieldViolations[0].field).toBe('redirectUris[0]');
      }
      for (const allowedOrigins of [['*'], [`${SHOP}/`], ['null'], ['https://evil.test; script-src *']]) {
        const res = await register({ allowedOrigins });
        expect(res.status, allowedOrigins[0]).toBe(400);
        expect(res.body.details.validationError.fieldViolations[0].field).toBe('allowedOrigins[0]');
      }
    });
  });

  describe('checklist 40: the origin of the page that asked', () => {
    it('a body origin that is not an http(s) origin is refused with the envelope, not echoed', async () => {
      const { visitor } = await login();
      for (const origin of [
        '*',
        'https://evil.test; script-src *',
        'https://evil.test\r\nX-Injected: 1',
        'https://evil.test\nframe-ancestors *',
        'null',
        `${SHOP}/`,
        `${SHOP}/path`,
        'HTTP://LOCALHOST:5173',
        'http://user@localhost:5173',
        'javascript:alert(1)',
        'file:///etc',
        '',
      ]) {
        const res = await authSession(visitor, { responseMode: 'web_message' }, { origin });
        expect(res.status, JSON.stringify(origin)).toBe(400);
        expect(res.headers.get('content-type')).toMatch(/^application\/json/);
        const body = await res.json();
        expect(body.details.validationError.fieldViolations[0].field).toBe('origin');
        if (origin.length > 1)
          expect(JSON.stringify(body)).not.toContain(JSON.stringify(origin).slice(1, -1));
        expect(JSON.stringify(body)).not.toContain('*');
      }
    });

    it('a valid but unlisted origin gets the error posted to exactly it, with no code', async () => {
      const { visitor, sessionToken } = await login();
      const created = await authSession(
        visitor,
        { responseMode: 'web_message', sessionToken },
        { origin: 'https://evil.test' },
      );
      const page = await fetch((await created.json()).redirectSession.fullUrl);
      const html = await page.text();
      expect(html).toContain('"error":"redirect_uri_not_allowed"');
      expect(html).toContain(',"https://evil.test")');
      expect(html).not.toMatch(/"code"|"\*"/);
      expect(page.headers.get('content-security-policy')).toMatch(/; frame-ancestors https:\/\/evil\.test$/);
    });

    it('an Origin header that is not an http(s) origin is not used: an error page, no message', async () => {
      const { visitor, sessionToken } = await login();
      const created = await authSession(
        visitor,
        { responseMode: 'web_message', sessionToken },
        { headers: { origin: 'null' } },
      );
      expect(created.status).toBe(200);
      const page = await fetch((await created.json()).redirectSession.fullUrl);
      expect(page.status).toBe(400);
      const html = await page.text();
      expect(html).not.toContain('postMessage');
      expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    });

    it('a stored session whose origin is not an http(s) origin gets an error page, never postMessage to it', async () => {
      for (const bad of ['*', 'https://evil.test; script-src *', 'https://evil.test\nX: 1']) {
        const { visitor, sessionToken } = await login();
        const created = await authSession(
          visitor,
          { responseMode: 'web_message', sessionToken },
          { origin: SHOP },
        );
        const { id, fullUrl } = (await created.json()).redirectSession;
        // A session stored before origins were checked (a data directory of an older emulator).
        await emu.emu.db.query(
          `UPDATE redirect_sessions SET doc = jsonb_set(doc, '{origin}', $2) WHERE id = $1`,
          [id, JSON.stringify(bad)],
        );
        const page = await fetch(fullUrl);
        expect(page.status, bad).toBe(400);
        const html = await page.text();
        expect(html, bad).not.toMatch(/postMessage|"code"/);
        expect(html, bad).not.toContain('evil');
        expect(page.headers.get('content-security-policy'), bad).toContain("frame-ancestors 'none'");
      }
    });
  });

  describe('checklist 42: redirect sessions are not cached', () => {
    it('the redirect-session answer (it may carry a session token) has no-store and no-cache', async () => {
      const { visitor, sessionToken } = await login();
      const auth = await authSession(
        visitor,
        { responseMode: 'web_message', sessionToken },
        { origin: SHOP },
      );
      const other = await fetch(`${emu.url}/headless/v1/redirect-session`, {
        method: 'POST',
        headers: { authorization: visitor, 'content-type': 'application/json' },
        body: JSON.stringify({ login: {}, callbacks: { postFlowUrl: `${SHOP}/` } }),
      });
      for (const res of [auth, other]) {
        expect(res.status).toBe(200);
        expect((await res.json()).redirectSession.sessionToken).toBeTruthy();
        expect(res.headers.get('cache-control')).toBe('no-store');
        expect(res.headers.get('pragma')).toBe('no-cache');
      }
    });
  });

  describe('checklist 49: request bodies are capped while they stream', () => {
    const CHUNK = 64 * 1024;
    const TOTAL_CHUNKS = 1024; // 64 MiB

    /**
     * Posts a chunked body (no Content-Length) of `chunks` × 64 KiB; counts the stream's pulls. The
     * server answers and closes while the client still writes, so the client may meet the closed
     * connection (EPIPE, a reset) before it reads the answer, on a loaded machine: such a try says
     * nothing of the answer and is made again (its pulls are still held to the bound).
     */
    async function chunkedPost(path: string, contentType: string, chunks = TOTAL_CHUNKS) {
      for (let attempt = 1; ; attempt++) {
        let pulls = 0;
        const body = new ReadableStream<Uint8Array>({
          pull(controller) {
            pulls++;
            if (pulls > chunks) controller.close();
            else controller.enqueue(new Uint8Array(CHUNK).fill(0x61));
          },
        });
        try {
          const res = await fetch(`${emu.url}${path}`, {
            method: 'POST',
            headers: { 'content-type': contentType },
            body,
            duplex: 'half',
          } as RequestInit);
          const text = await res.text();
          // Whatever the client still had buffered: the server must not go on reading.
          await new Promise((r) => setTimeout(r, 300));
          return { res, text, pulls: () => pulls };
        } catch (e) {
          const code = (e as { cause?: { code?: string } }).cause?.code;
          if (attempt === 5 || !['EPIPE', 'ECONNRESET', 'UND_ERR_SOCKET'].includes(code ?? '')) throw e;
          expect(pulls).toBeLessThan(TOTAL_CHUNKS / 4);
        }
      }
    }

    it.each([
      ['/oauth2/token', 'application/json'],
      ['/_api/iam/authentication/v2/login', 'application/json'],
      ['/oauth2/authorize/submit', 'application/x-www-form-urlencoded'],
      ['/reset-password', 'application/x-www-form-urlencoded'],
      ['/idp/any/authorize', 'application/x-www-form-urlencoded'],
      ['/oauth2/revoke', 'application/x-www-form-urlencoded'],
      ['/redirect/any', 'multipart/form-data; boundary=x'],
    ])(
      'a 64 MiB chunked POST to %s (%s) gets the 413 envelope and is not read to the end',
      async (path, type) => {
        const { res, text, pulls } = await chunkedPost(path, type);
        expect(res.status).toBe(413);
        expect(res.headers.get('x-wix-request-id')).toBeTruthy();
        // The rest of the body stays unread, so the connection cannot carry another request.
        expect(res.headers.get('connection')).toBe('close');
        expect(JSON.parse(text).details.applicationError.code).toBe('PAYLOAD_TOO_LARGE');
        // The cap is 1 MiB (16 chunks) and socket buffers hold a few MiB more (about 64 chunks in
        // all here); reading the body to its end is 1 024.
        expect(pulls()).toBeLessThan(TOTAL_CHUNKS / 4);
      },
    );

    it('the hosted pages’ forms have a smaller cap, streamed or declared', async () => {
      for (const path of ['/oauth2/authorize/submit', '/reset-password']) {
        const streamed = await chunkedPost(path, 'application/x-www-form-urlencoded', 2);
        expect(streamed.res.status, path).toBe(413);
        expect(JSON.parse(streamed.text).details.applicationError.code).toBe('PAYLOAD_TOO_LARGE');
        const declared = await fetch(`${emu.url}${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: `token=${'a'.repeat(128 * 1024)}`,
        });
        expect(declared.status, path).toBe(413);
        expect((await declared.json()).details.applicationError.code).toBe('PAYLOAD_TOO_LARGE');
      }
    });

    it('a body under the cap still arrives whole, chunked or not', async () => {
      const grant = JSON.stringify({ clientId: emu.demo.clientId, grantType: 'anonymous' });
      const bytes = new TextEncoder().encode(grant);
      const chunked = await fetch(`${emu.url}/oauth2/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: new ReadableStream({
          start(controller) {
            controller.enqueue(bytes.slice(0, 10));
            controller.enqueue(bytes.slice(10));
            controller.close();
          },
        }),
        duplex: 'half',
      } as RequestInit);
      expect(chunked.status).toBe(200);
      expect((await chunked.json()).access_token).toBeTruthy();
      const plain = await fetch(`${emu.url}/oauth2/token`, { method: 'POST', body: grant });
      expect(plain.status).toBe(200);
    });
  });
});
