/**
 * Every failure path leaks no secret (issue 8, security checklist). With known secret values in
 * play (access and refresh tokens, authorization codes, code verifiers, passwords, API keys,
 * session tokens, app secrets, recovery and state tokens, verification codes), the SDK is driven
 * through every failure it has: against a scripted fake `fetch` (network error, timeout, abort,
 * 401 then a failed refresh, 400/401/403/404/409/429/500/503 envelopes, answers without an
 * envelope, non-JSON and cut-off bodies, proxy pages that echo the request, every token grant
 * failing, silent login, PKCE and webhook verification errors), and against a live emulator on
 * each backend. No secret may appear in any error (message, description, `String`, JSON of the
 * error and of its details and data, stack, `util.inspect` with its causes), in a login result,
 * in an error handed to `onError`, in any console or process output, in the emulator's log, or in
 * any URL the SDK fetched or was given to open.
 */
import { generateKeyPairSync, randomBytes, createSign as sign } from 'node:crypto';
import { inspect } from 'node:util';
import {
  loginOnHostedPage,
  startTestEmulator,
  type TestEmulator,
  testBackends,
} from '@shopkit/emulator/testing';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  ApiKeyStrategy,
  AppStrategy,
  type AuthStrategy,
  cart,
  collections,
  createClient,
  generateChallenge,
  generateState,
  generateVerifier,
  graphql,
  identity,
  OAuthStrategy,
  type PlatformQuery,
  products,
  redirects,
  requireAccess,
  TokenRole,
  type Tokens,
  webhooks,
} from '../src/index.ts';
import { standInBrowser } from './stand-in-browser.ts';

// Hundreds of paths per test, and emulators on a shared machine: generous limits, no timings asserted.
vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

// ---- the secrets, and where they must never show up ----

/** Every secret value in play, with what it is (findings name the kind, never the value). */
const secrets = new Map<string, string>();
const keep = (value: string, kind: string) => {
  if (value && value.length >= 6 && !secrets.has(value)) secrets.set(value, kind);
  return value;
};
const secret = (kind: string) =>
  keep(`${kind.replace(/\W+/g, '-')}-${randomBytes(12).toString('hex')}`, kind);

/** Names of the secrets that `text` contains. */
const leaked = (text: string | undefined) =>
  text ? [...secrets].filter(([v]) => text.includes(v)).map(([, kind]) => kind) : [];

/** What the SDK fetched, console and process output, errors given to `onError`, emulator log lines. */
const fetchedUrls: string[] = [];
const shownUrls: { where: string; url: string }[] = [];
const output: string[] = [];
const reported: { where: string; error: unknown }[] = [];
const emulatorLog: string[] = [];

/** A finding per field of a thrown error that carries a secret. */
function errorLeaks(label: string, e: unknown): string[] {
  const found: string[] = [];
  const look = (field: string, text: string | undefined) => {
    for (const kind of leaked(text)) found.push(`${label}: ${field} contains the ${kind}`);
  };
  const err = e as Error & { description?: unknown; details?: unknown; data?: unknown };
  look('String(error)', String(e));
  look('util.inspect(error), causes included', inspect(e, { depth: 12 }));
  if (e instanceof Error) {
    look('message', err.message);
    look('description', typeof err.description === 'string' ? err.description : undefined);
    look('JSON.stringify(error)', JSON.stringify(err));
    look('JSON.stringify(error.details)', JSON.stringify(err.details ?? null));
    look('JSON.stringify(error.data)', JSON.stringify(err.data ?? null));
    look('stack', err.stack);
  }
  return found;
}

/** Runs one failure path: it must fail (reject, or a FAILURE login result) and leak nothing. */
async function expectFailure(label: string, run: () => Promise<unknown>): Promise<{ found: string[] }> {
  try {
    const out = (await run()) as { loginState?: string; error?: unknown } | undefined;
    if (out?.loginState === 'FAILURE')
      return {
        found: leaked(JSON.stringify(out)).map((kind) => `${label}: the FAILURE result contains the ${kind}`),
      };
    return { found: [`${label}: did not fail (${JSON.stringify(out)?.slice(0, 120)})`] };
  } catch (e) {
    return { found: errorLeaks(label, e) };
  }
}

/** Runs a path that may succeed or fail (the emulator decides); whatever comes out leaks nothing. */
async function settle(label: string, run: () => Promise<unknown>): Promise<string[]> {
  try {
    return leaked(JSON.stringify(await run())).map((kind) => `${label}: the result contains the ${kind}`);
  } catch (e) {
    return errorLeaks(label, e);
  }
}

// Console and process output of the whole run (the emulator runs in this process too).
const realFetch = globalThis.fetch.bind(globalThis);
const restores: (() => void)[] = [];
beforeAll(() => {
  for (const m of ['log', 'info', 'warn', 'error', 'debug', 'trace'] as const) {
    const spy = vi.spyOn(console, m).mockImplementation((...args: unknown[]) => {
      output.push(`console.${m}: ${args.map((a) => (typeof a === 'string' ? a : inspect(a))).join(' ')}`);
    });
    restores.push(() => spy.mockRestore());
  }
  for (const stream of [process.stdout, process.stderr]) {
    const write = stream.write;
    stream.write = function (this: NodeJS.WriteStream, chunk: unknown, ...rest: unknown[]) {
      output.push(String(chunk));
      return (write as (...a: unknown[]) => boolean).call(this, chunk, ...rest);
    } as typeof stream.write;
    restores.push(() => {
      stream.write = write;
    });
  }
  // Anything that reaches for the global fetch is recorded too.
  globalThis.fetch = (input, init) => {
    fetchedUrls.push(input instanceof Request ? input.url : String(input));
    return realFetch(input, init);
  };
  restores.push(() => {
    globalThis.fetch = realFetch;
  });
});
afterAll(() => {
  for (const r of restores.reverse()) r();
});

const MODULES = { cart, collections, identity, products, redirects };
const nowSeconds = () => Math.floor(Date.now() / 1000);
const SHOP = 'http://shop.test:5173';

// ---- the scripted fake fetch ----

interface Sent {
  url: URL;
  method: string;
  headers: Headers;
  body: string;
}
type Answer = (sent: Sent, signal?: AbortSignal) => Response | Promise<Response>;

const encoder = new TextEncoder();
const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json', 'x-wix-request-id': 'req-fake', ...headers },
  });
const envelope = (status: number, code: string, description: string, headers?: Record<string, string>) =>
  json(
    status,
    { message: description, details: { applicationError: { code, description, data: {} } } },
    headers,
  );
/** A body that stops half-way (the connection dropped). */
const cutOff = (status: number, start: string) =>
  new Response(
    new ReadableStream({
      start(c) {
        c.enqueue(encoder.encode(start));
        c.error(new TypeError('terminated'));
      },
    }),
    { status, headers: { 'content-type': 'application/json' } },
  );
/**
 * Never answers; rejects like fetch when the request is aborted. A request sent without a signal
 * (nothing could ever stop it) fails like a dropped connection after a while instead, so that the
 * sweep goes on.
 */
const hang = (signal?: AbortSignal) =>
  new Promise<Response>((_, reject) => {
    if (!signal) setTimeout(() => reject(new TypeError('fetch failed')), 100);
    else if (signal.aborted) reject(signal.reason);
    else signal.addEventListener('abort', () => reject(signal.reason));
  });
/** The whole request as a misconfigured proxy's error page would print it. */
const echo = (s: Sent) =>
  `${s.method} ${s.url} ${[...s.headers].map(([k, v]) => `${k}: ${v}`).join('; ')} ${s.body}`;

/** Failure answers of an API call. */
const API_FAILURES: Record<string, Answer> = {
  'network error': () => {
    throw new TypeError('fetch failed');
  },
  timeout: (_, signal) => hang(signal),
  '400 validation envelope': () =>
    json(400, {
      message: 'INVALID_ARGUMENT: "password" must have at least 8 characters',
      details: {
        validationError: {
          fieldViolations: [
            { field: 'password', description: 'must have at least 8 characters', violatedRule: 'MIN_LENGTH' },
          ],
        },
      },
    }),
  '401 envelope (and the refresh fails)': () =>
    envelope(401, 'UNAUTHENTICATED', 'The access token is invalid or expired'),
  '403 envelope': () => envelope(403, 'PERMISSION_DENIED', 'Insufficient permissions'),
  '404 envelope': () => envelope(404, 'NOT_FOUND', 'Not found'),
  '409 envelope': () => envelope(409, '-19995', 'A member with this e-mail already exists'),
  '429 envelope': () => envelope(429, 'THROTTLED', 'Too many requests', { 'retry-after': '0' }),
  '500 envelope': () => envelope(500, 'INTERNAL_ERROR', 'Internal error'),
  '503 envelope': () => envelope(503, 'UNAVAILABLE', 'Service unavailable', { 'retry-after': '0' }),
  '418 without an envelope': () => new Response('<html>no</html>', { status: 418 }),
  '502 page echoing the request': (s) => new Response(`<html><pre>${echo(s)}</pre></html>`, { status: 502 }),
  '400 JSON echoing the request, no envelope': (s) => json(400, { request: echo(s) }),
  '200 that is not JSON, echoing the request': (s) =>
    new Response(`<html>${echo(s)}</html>`, { status: 200 }),
  '200 JSON that is not an object': () => new Response('"ok"', { status: 200 }),
  '200 body cut off': (s) => cutOff(200, `{"echo":"${echo(s)}`),
  '500 body cut off': (s) => cutOff(500, `{"message":"${echo(s)}`),
};

/** Failure answers of the token endpoint. No timeout here: token requests have none (see report). */
const TOKEN_FAILURES: Record<string, Answer> = {
  'network error': () => {
    throw new TypeError('fetch failed');
  },
  '400 invalid_grant': () => envelope(400, 'invalid_grant', 'The grant is invalid or expired'),
  '401 invalid_client': () => envelope(401, 'invalid_client', 'The app id or secret is wrong'),
  '403 envelope': () => envelope(403, 'PERMISSION_DENIED', 'Insufficient permissions'),
  '429 envelope': () => envelope(429, 'THROTTLED', 'Too many requests', { 'retry-after': '0' }),
  '500 envelope': () => envelope(500, 'INTERNAL_ERROR', 'Internal error'),
  '503 envelope': () => envelope(503, 'UNAVAILABLE', 'Service unavailable', { 'retry-after': '0' }),
  '400 JSON echoing the request': (s) => json(400, { error: 'invalid_grant', request: echo(s) }),
  '502 page echoing the request': (s) => new Response(`<html>${echo(s)}</html>`, { status: 502 }),
  '200 that is not JSON, echoing the request': (s) => new Response(echo(s), { status: 200 }),
  '200 without an access token, echoing the request': (s) => json(200, { echo: echo(s) }),
  '200 body cut off': (s) => cutOff(200, `{"access_token":"${echo(s)}`),
};

describe('the SDK against a scripted fetch', () => {
  const S = {
    access: secret('access token'),
    refresh: secret('refresh token'),
    issuedAccess: secret('issued access token'),
    issuedRefresh: secret('issued refresh token'),
    code: secret('authorization code'),
    verifier: keep(generateVerifier(64), 'code verifier'),
    password: secret('password'),
    apiKey: secret('API key'),
    session: secret('session token'),
    appSecret: secret('app secret'),
    recovery: secret('recovery token'),
    stateToken: secret('state token'),
    verification: secret('verification code'),
  };
  const BASE = 'https://api.shop.test';
  const issued = () =>
    json(200, { access_token: S.issuedAccess, refresh_token: S.issuedRefresh, expires_in: 14_400 });
  const tokens = (role: TokenRole = TokenRole.VISITOR, usable = true): Tokens => ({
    accessToken: { value: S.access, expiresAt: usable ? nowSeconds() + 3600 : 0 },
    refreshToken: { value: S.refresh, role },
  });

  /** A fake server: the token endpoint, a few paths that answer well, everything else `api`. */
  function server(api: Answer, token: Answer = issued, ok: Record<string, () => Response> = {}) {
    const sent: Sent[] = [];
    const f: typeof fetch = async (input, init = {}) => {
      const url = input instanceof Request ? input.url : String(input);
      fetchedUrls.push(url);
      const s: Sent = {
        url: new URL(url),
        method: init.method ?? 'GET',
        headers: new Headers(init.headers),
        body: typeof init.body === 'string' ? init.body : '',
      };
      sent.push(s);
      const signal = init.signal ?? undefined;
      if (signal?.aborted) throw signal.reason;
      if (s.url.pathname === '/oauth2/token') return token(s, signal);
      for (const [path, answer] of Object.entries(ok)) if (s.url.pathname.endsWith(path)) return answer();
      return api(s, signal);
    };
    /** Whether a secret was sent (headers or body): the path really had it in play. */
    const carried = (value: string) =>
      sent.some((s) => s.body.includes(value) || [...s.headers.values()].some((h) => h.includes(value)));
    return { fetch: f, sent, carried };
  }

  const client = (f: typeof fetch, auth?: AuthStrategy) =>
    createClient({
      baseUrl: BASE,
      fetch: f,
      auth,
      timeoutMs: 50,
      retry: { attempts: 2, baseDelayMs: 1, maxDelayMs: 5 },
      onError: (error, call) => reported.push({ where: `onError of ${call.method} ${call.path}`, error }),
      modules: MODULES,
    });
  const oauth = (t?: Tokens) => OAuthStrategy({ clientId: 'client-fake', tokens: t });

  /** Drives `run` against a fake server; checks the failure, and that `inPlay` secrets were sent. */
  async function path(
    label: string,
    inPlay: string[],
    run: (f: typeof fetch) => Promise<unknown>,
    answers: { api?: Answer; token?: Answer; ok?: Record<string, () => Response>; mayResolve?: boolean },
  ) {
    const fake = server(answers.api ?? (() => json(200, {})), answers.token, answers.ok);
    const found = answers.mayResolve
      ? await settle(label, () => run(fake.fetch))
      : (await expectFailure(label, () => run(fake.fetch))).found;
    for (const value of inPlay)
      if (!fake.carried(value))
        found.push(`${label}: the ${secrets.get(value)} was never sent (proves nothing)`);
    return { found };
  }

  /** Calls whose failures come back as thrown errors; `signal` is for the abort path. */
  const THROWING: Record<string, [string[], (f: typeof fetch, signal?: AbortSignal) => Promise<unknown>]> = {
    'visitor GET current cart': [
      [S.access],
      (f, signal) => client(f, oauth(tokens())).cart.getCurrentCart({ signal }),
    ],
    'member POST change-password': [
      [S.access, S.password],
      (f, signal) =>
        client(f, oauth(tokens(TokenRole.MEMBER))).identity.changePassword(S.password, { signal }),
    ],
    'POST token-info': [[S.access], (f, signal) => client(f).identity.getTokenInfo(S.access, { signal })],
    'GraphQL with a password in its variables': [
      [S.access, S.password],
      (f, signal) =>
        graphql(
          client(f, oauth(tokens())),
          'mutation ($p: String!) { changePassword(p: $p) }',
          { p: S.password },
          { signal },
        ),
    ],
    'verify a factor with a code': [
      [S.stateToken, S.verification],
      (f, signal) =>
        client(f, oauth(tokens())).identity.verifyFactor(
          'EMAIL',
          { stateToken: S.stateToken, emailData: { code: S.verification } },
          { signal },
        ),
    ],
    'verify during authentication': [
      [S.stateToken, S.verification],
      (f, signal) =>
        client(f, oauth(tokens())).identity.verifyDuringAuthentication(
          S.verification,
          { stateToken: S.stateToken },
          { signal },
        ),
    ],
    'resend a verification code': [
      [S.stateToken],
      (f, signal) => client(f, oauth(tokens())).identity.resendVerification(S.stateToken, { signal }),
    ],
    'merchant POST collection (API key)': [
      [S.apiKey],
      (f, signal) =>
        client(f, ApiKeyStrategy({ apiKey: S.apiKey, siteId: 'site-1' })).products.createCollection(
          { name: 'Sale' },
          { signal },
        ),
    ],
    "a buyer's cart with a trusted server's API key": [
      [S.access, S.apiKey],
      (f, signal) =>
        client(f, oauth(tokens())).cart.updateCurrentCart(
          { merchantDiscounts: [{ amount: '1.00' }] },
          { apiKey: S.apiKey, signal },
        ),
    ],
    'app POST collection (app secret)': [
      [S.appSecret],
      (f, signal) =>
        client(f, AppStrategy({ appId: 'app-1', appSecret: S.appSecret })).products.createCollection(
          { name: 'Sale' },
          { signal },
        ),
    ],
    'redirect session carrying a session token': [
      [S.session],
      async (f, signal) =>
        client(f, oauth(tokens())).redirects.createRedirectSession(
          {
            auth: {
              authRequest: {
                clientId: 'client-fake',
                responseType: 'code',
                codeChallenge: await generateChallenge(S.verifier),
                codeChallengeMethod: 'S256',
                state: generateState(),
                sessionToken: S.session,
                responseMode: 'web_message',
              },
              prompt: 'none',
            },
          },
          { signal },
        ),
    ],
    'getAuthUrl with a session token': [
      [S.session],
      async (f) => {
        const c = client(f, oauth(tokens()));
        const data = await c.identity.generateOAuthData(`${SHOP}/callback`);
        return c.identity.getAuthUrl(data, { sessionToken: S.session });
      },
    ],
    'signOn with an API key': [
      [S.apiKey],
      (f, signal) =>
        client(f, oauth(tokens())).identity.signOn(S.apiKey, { email: 'a@shop.test' }, { signal }),
    ],
    'requireAccess with a token': [
      [S.access],
      (f) => requireAccess(client(f), 'anyone', `${S.access},${S.apiKey}`),
    ],
  };
  /** Calls whose failures come back as FAILURE results. */
  const RESULTS: Record<string, [string[], (f: typeof fetch) => Promise<unknown>]> = {
    login: [
      [S.password],
      (f) => client(f, oauth(tokens())).identity.login({ email: 'a@shop.test', password: S.password }),
    ],
    register: [
      [S.password],
      (f) => client(f, oauth(tokens())).identity.register({ email: 'a@shop.test', password: S.password }),
    ],
    recover: [
      [S.recovery, S.password],
      (f) => client(f, oauth(tokens())).identity.recover(S.recovery, S.password),
    ],
  };

  it('API failures of every kind, for every call that carries a secret', async () => {
    const found: string[] = [];
    for (const [answer, api] of Object.entries(API_FAILURES)) {
      const token: Answer = answer.startsWith('401') ? TOKEN_FAILURES['400 invalid_grant']! : issued;
      for (const [name, [inPlay, run]] of Object.entries(THROWING))
        found.push(...(await path(`${name}, ${answer}`, inPlay, (f) => run(f), { api, token })).found);
      for (const [name, [inPlay, run]] of Object.entries(RESULTS))
        found.push(...(await path(`${name}, ${answer}`, inPlay, run, { api, token })).found);
      // Logout swallows the failure of its redirect session and clears the tokens anyway.
      const member = oauth(tokens(TokenRole.MEMBER));
      found.push(
        ...(
          await path(`logout, ${answer}`, [S.access], (f) => client(f, member).identity.logout(SHOP), {
            api,
            token,
            mayResolve: true,
          })
        ).found,
      );
      if (await member.loggedIn()) found.push(`logout, ${answer}: the member is still logged in`);
    }
    expect(found).toEqual([]);
  });

  it('abort: a call aborted by its caller', async () => {
    const found: string[] = [];
    for (const [name, [inPlay, run]] of Object.entries(THROWING)) {
      if (name.startsWith('getAuthUrl') || name.startsWith('requireAccess')) continue;
      const ctl = new AbortController();
      // Aborted once the call is sent (with its secrets), not on a timer: on a busy machine a timer
      // fired before sending, and a call aborted by then is not sent at all.
      const r = await path(`${name}, aborted`, inPlay, (f) => run(f, ctl.signal), {
        api: (_, signal) => {
          setTimeout(() => ctl.abort(), 5);
          return hang(signal);
        },
        token: issued,
      });
      found.push(...r.found);
    }
    expect(found).toEqual([]);
  });

  it('e-mail verification failing after a login that asked for it', async () => {
    const found: string[] = [];
    for (const [answer, api] of Object.entries(API_FAILURES)) {
      const r = await path(
        `processVerification, ${answer}`,
        [S.verification],
        async (f) => {
          const c = client(f, oauth(tokens()));
          const first = await c.identity.login({ email: 'a@shop.test', password: S.password });
          if (first.loginState !== 'EMAIL_VERIFICATION_REQUIRED')
            throw new Error('the script did not ask for a code');
          return c.identity.processVerification({ code: S.verification });
        },
        {
          api,
          ok: {
            '/v2/login': () => json(200, { state: 'REQUIRE_EMAIL_VERIFICATION', stateToken: S.stateToken }),
          },
        },
      );
      found.push(...r.found);
    }
    expect(found).toEqual([]);
  });

  it('token endpoint failures: anonymous, refresh, 401 then refresh, code exchange, member exchange, app credentials', async () => {
    const found: string[] = [];
    for (const [answer, token] of Object.entries(TOKEN_FAILURES)) {
      const runs: Record<string, [string[], (f: typeof fetch) => Promise<unknown>]> = {
        'anonymous grant': [[], (f) => client(f, oauth()).cart.getCurrentCart()],
        'generateVisitorTokens()': [
          [],
          (f) => {
            const strategy = oauth();
            client(f, strategy); // attached: its token requests go through this client's fetch
            return strategy.generateVisitorTokens();
          },
        ],
        'visitor refresh grant': [
          [S.refresh],
          (f) => client(f, oauth(tokens(TokenRole.VISITOR, false))).cart.getCurrentCart(),
        ],
        'member refresh grant': [
          [S.refresh],
          (f) => client(f, oauth(tokens(TokenRole.MEMBER, false))).cart.getCurrentCart(),
        ],
        'renewToken()': [
          [S.refresh],
          (f) => {
            const strategy = oauth(tokens(TokenRole.MEMBER));
            client(f, strategy);
            return strategy.renewToken();
          },
        ],
        '401 then a failed refresh': [
          [S.access, S.refresh],
          (f) => client(f, oauth(tokens(TokenRole.MEMBER))).cart.getCurrentCart(),
        ],
        'authorization code exchange': [
          [S.code, S.verifier],
          async (f) => {
            const c = client(f, oauth(tokens()));
            const data = {
              ...(await c.identity.generateOAuthData(`${SHOP}/callback`)),
              codeVerifier: S.verifier,
            };
            return c.identity.getMemberTokens(S.code, data.state, data);
          },
        ],
        'member token exchange (authorized_client)': [
          [S.apiKey],
          (f) => client(f, oauth(tokens())).identity.getMemberTokensForExternalLogin('member-1', S.apiKey),
        ],
        'app client credentials': [
          [S.appSecret],
          (f) =>
            client(f, AppStrategy({ appId: 'app-1', appSecret: S.appSecret })).products.createCollection({
              name: 'Sale',
            }),
        ],
      };
      for (const [name, [inPlay, run]] of Object.entries(runs)) {
        const api: Answer = name.startsWith('401')
          ? API_FAILURES['401 envelope (and the refresh fails)']!
          : () => json(200, {});
        found.push(...(await path(`${name}, ${answer}`, inPlay, run, { api, token })).found);
      }
    }
    expect(found).toEqual([]);
  });

  it('silent login (getMemberTokensForDirectLogin): redirect session, frame answers, timeout, code exchange', async () => {
    const found: string[] = [];
    const AUTHORIZE = 'https://auth.shop.test/oauth2/authorize?redirect_session_id=rs-1';
    /** The hidden frame "loads" its URL and posts what `reply` says, from the authorize origin. */
    const browser = (reply: (state: string) => object | undefined, stateOf: () => string) =>
      standInBrowser((url, frame) => {
        shownUrls.push({ where: 'silent login frame', url });
        const data = reply(stateOf());
        return data && { origin: new URL(url).origin, source: frame, data };
      });
    const session = () => json(200, { redirectSession: { id: 'rs-1', fullUrl: AUTHORIZE } });
    type Case = [label: string, api: Answer, reply: (state: string) => object | undefined, token: Answer];
    const cases: Case[] = [
      ...Object.entries(API_FAILURES).map(
        ([answer, api]): Case => [`redirect session ${answer}`, api, () => undefined, issued],
      ),
      [
        'the frame answers login_required',
        session,
        (state) => ({ state, error: 'login_required', error_description: 'No session' }),
        issued,
      ],
      ['the frame answers nothing (timeout)', session, () => undefined, issued],
      ...Object.entries(TOKEN_FAILURES).map(
        ([answer, token]): Case => [
          `code exchange ${answer}`,
          session,
          (state) => ({ state, code: S.code }),
          token,
        ],
      ),
    ];
    for (const [label, api, reply, token] of cases) {
      const fake = server(api, token);
      const stateOf = () => {
        const body = fake.sent.find((s) => s.url.pathname.endsWith('/redirect-session'))?.body;
        return body ? JSON.parse(body).auth.authRequest.state : '';
      };
      const restore = browser(reply, stateOf);
      try {
        const c = client(fake.fetch, oauth(tokens()));
        const r = await expectFailure(`silent login, ${label}`, () =>
          c.identity.getMemberTokensForDirectLogin(S.session, { timeoutMs: 30 }),
        );
        found.push(...r.found);
        if (!fake.carried(S.session)) found.push(`silent login, ${label}: the session token was never sent`);
        if (label.startsWith('code exchange') && !fake.carried(S.code))
          found.push(`silent login, ${label}: the code was never sent`);
      } finally {
        restore();
      }
    }
    // Outside a browser it refuses at once.
    found.push(
      ...(
        await expectFailure('silent login without a browser', () =>
          client(server(() => json(200, {})).fetch, oauth(tokens())).identity.getMemberTokensForDirectLogin(
            S.session,
          ),
        )
      ).found,
    );
    expect(found).toEqual([]);
  });

  it('PKCE and state errors', async () => {
    const c = client(server(() => json(200, {}), issued).fetch, oauth(tokens()));
    const data = { ...(await c.identity.generateOAuthData(`${SHOP}/callback`)), codeVerifier: S.verifier };
    const found: string[] = [];
    const paths: [string, () => Promise<unknown>][] = [
      ['a verifier too short', async () => generateVerifier(42)],
      ['a verifier too long', async () => generateVerifier(129)],
      ['no code', () => c.identity.getMemberTokens(undefined, data.state, data)],
      ['no state', () => c.identity.getMemberTokens(S.code, undefined, data)],
      ['a wrong state', () => c.identity.getMemberTokens(S.code, S.stateToken, data)],
      [
        'a state used twice',
        async () => {
          await c.identity.getMemberTokens(S.code, data.state, data);
          return c.identity.getMemberTokens(S.code, data.state, data);
        },
      ],
      [
        'an OAuth call on a client without OAuthStrategy',
        () => client(server(() => json(200, {})).fetch).identity.getMemberTokens(S.code, data.state, data),
      ],
      ['an elevated call on a visitor client', () => c.products.createCollection({ name: S.password })],
    ];
    for (const [label, run] of paths) found.push(...(await expectFailure(label, run)).found);
    expect(found).toEqual([]);
  });

  it('webhook verification failures', async () => {
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const other = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const pem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
    const b64 = (v: unknown) =>
      Buffer.from(typeof v === 'string' ? v : JSON.stringify(v)).toString('base64url');
    const jwt = (claims: unknown, key = privateKey, header: unknown = { alg: 'RS256', typ: 'JWT' }) => {
      const head = `${b64(header)}.${b64(claims)}`;
      return `${head}.${sign('RSA-SHA256').update(head).sign(key).toString('base64url')}`;
    };
    const now = nowSeconds();
    // An event that carries secrets, as a cart or redirect-session event could.
    const data = JSON.stringify({
      eventType: 'wix.headless.v1.redirect_session_created',
      instanceId: 'site-1',
      data: JSON.stringify({
        id: 'e1',
        entityId: 'rs-1',
        createdEvent: { entity: { sessionToken: S.session, password: S.password, appSecret: S.appSecret } },
      }),
    });
    const bodies: [string, string, string | JsonWebKey][] = [
      ['the body is the app secret, not a JWT', S.appSecret, pem],
      ['parts that are not JSON', `${b64(S.password)}.${b64(S.session)}.${b64('x')}`, pem],
      ['alg none', `${b64({ alg: 'none' })}.${b64({ data, secret: S.apiKey })}.`, pem],
      ['alg HS256', jwt({ data }, privateKey, { alg: 'HS256' }), pem],
      ['signed by another key', jwt({ data, exp: now + 60 }, other.privateKey), pem],
      [
        'a tampered payload',
        jwt({ data, exp: now + 60 }).replace(/\.[^.]+\./, `.${b64({ data, x: S.access })}.`),
        pem,
      ],
      ['expired', jwt({ data, exp: now - 3600 }), pem],
      ['not valid yet', jwt({ data, nbf: now + 3600 }), pem],
      ['exp not a number', jwt({ data, exp: S.refresh }), pem],
      ['no event in it', jwt({ data: `{"eventType":"x","data":"${S.password}"}`, exp: now + 60 }), pem],
      [
        'an entity that is not JSON',
        jwt({
          data: JSON.stringify({
            eventType: 'wix.ecom.v1.cart_created',
            data: JSON.stringify({ createdEvent: { entityAsJson: `{"token":"${S.access}` } }),
          }),
          exp: now + 60,
        }),
        pem,
      ],
      ['the app secret given as the public key', jwt({ data, exp: now + 60 }), S.appSecret],
      [
        'a private key given as the public key',
        jwt({ data, exp: now + 60 }),
        keep(privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), 'webhook private key'),
      ],
      [
        'a symmetric JWK as the public key',
        jwt({ data, exp: now + 60 }),
        { kty: 'oct', k: b64(S.appSecret), alg: 'HS256' },
      ],
    ];
    const found: string[] = [];
    for (const [label, body, key] of bodies)
      found.push(
        ...(await expectFailure(`webhook ${label}`, () => webhooks.process(body, { publicKey: key }))).found,
      );
    // A handler that throws: the error is the handler's, and nothing of the event is added to it.
    found.push(
      ...(
        await expectFailure('webhook handler throwing', () =>
          webhooks.process(jwt({ data, exp: now + 60 }), {
            publicKey: pem,
            onRedirectSessionCreated: () => {
              throw new Error('handler failed');
            },
          }),
        )
      ).found,
    );
    expect(found).toEqual([]);
  });
});

// ---- the live emulator ----

describe.each(testBackends())('the SDK against the emulator (%s)', (backend) => {
  let emu: TestEmulator;
  let n = 0;
  const email = () => `secrets-${++n}-${backend}-${randomBytes(3).toString('hex')}@example.test`;
  const CALLBACK = `${SHOP}/callback`;
  beforeAll(async () => {
    emu = await startTestEmulator(backend, {
      allowedOrigins: [SHOP],
      log: (line) => emulatorLog.push(line),
    });
    keep(emu.demo.apiKey, 'demo API key');
  });
  afterAll(() => emu?.stop());

  /** A fetch that records every URL, optionally failing or delaying some calls. */
  const recording =
    (alter?: (url: string, init?: RequestInit) => Promise<Response> | undefined): typeof fetch =>
    (input, init) => {
      const url = input instanceof Request ? input.url : String(input);
      fetchedUrls.push(url);
      return alter?.(url, init) ?? realFetch(input, init);
    };
  const client = (
    auth?: AuthStrategy,
    more: { fetch?: typeof fetch; baseUrl?: string; timeoutMs?: number } = {},
  ) =>
    createClient({
      baseUrl: more.baseUrl ?? emu.url,
      fetch: more.fetch ?? recording(),
      auth,
      timeoutMs: more.timeoutMs,
      retry: { attempts: 2, baseDelayMs: 1, maxDelayMs: 5 },
      onError: (error, call) => reported.push({ where: `onError of ${call.method} ${call.path}`, error }),
      modules: MODULES,
    });
  /** An OAuth strategy whose every token becomes a known secret. */
  const oauth = (tokens?: Tokens, clientId = emu.demo.clientId) => {
    const s = OAuthStrategy({ clientId, tokens });
    s.on('tokensChanged', (t) => {
      keep(t.accessToken.value, 'issued access token');
      keep(t.refreshToken.value, 'issued refresh token');
    });
    return s;
  };
  const secretTokens = (role: TokenRole, usable = true): Tokens => ({
    accessToken: { value: secret('access token'), expiresAt: usable ? nowSeconds() + 3600 : 0 },
    refreshToken: { value: secret('refresh token'), role },
  });
  const owner = async (path: string, body: object) =>
    (
      await realFetch(emu.url + path, {
        method: 'POST',
        headers: { authorization: emu.demo.apiKey, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      })
    ).json();
  const mailbox = async (to: string) =>
    (await (await realFetch(`${emu.url}/_api/emulator/v1/mailbox?to=${encodeURIComponent(to)}`)).json())
      .messages as { link?: string; code?: string }[];

  /** A member with a known password, and the session token of a login. */
  async function member() {
    const who = { email: email(), password: secret('password') };
    const c = client(oauth());
    const r = await c.identity.register(who);
    if (r.loginState !== 'SUCCESS') throw new Error(`could not register: ${r.error}`);
    keep(r.data!.sessionToken!, 'session token');
    return { ...who, id: r.data!.identity!.id, sessionToken: r.data!.sessionToken! };
  }

  /** The hosted page's code flow by hand: a real authorization code for `who`. */
  async function realCode(who: { email: string; password: string }) {
    const c = client(oauth());
    const data = await c.identity.generateOAuthData(CALLBACK);
    keep(data.codeVerifier, 'code verifier');
    const { authUrl } = await c.identity.getAuthUrl(data, { responseMode: 'query' });
    shownUrls.push({ where: 'getAuthUrl', url: authUrl });
    const { answer: res } = await loginOnHostedPage(authUrl, who, realFetch);
    const p = c.identity.parseFromUrl(res.headers.get('location')!, 'query');
    keep(p.code!, 'authorization code');
    return { c, data, code: p.code!, state: p.state! };
  }

  it('401 then a refused refresh, refused member refresh, unknown client', async () => {
    const found: string[] = [];
    // A visitor's stale tokens: 401, refresh refused, a new visitor: the call goes through.
    const visitor = oauth(secretTokens(TokenRole.VISITOR));
    found.push(
      ...(await settle('stale visitor tokens', () =>
        client(visitor).collections.getCollectionBySlug('summer-linen'),
      )),
    );
    // A member's refused refresh is a visible logout.
    const m = oauth(secretTokens(TokenRole.MEMBER, false));
    let expired = 0;
    m.on('sessionExpired', () => expired++);
    found.push(
      ...(await settle('refused member refresh', () =>
        client(m).collections.getCollectionBySlug('summer-linen'),
      )),
    );
    expect(expired).toBe(1);
    // Nothing works for an unknown client id: every grant fails.
    for (const [label, t] of [
      ['unknown client, no tokens', undefined],
      ['unknown client, stale tokens', secretTokens(TokenRole.VISITOR)],
      ['unknown client, expired member tokens', secretTokens(TokenRole.MEMBER, false)],
    ] as const)
      found.push(
        ...(await expectFailure(label, () => client(oauth(t, 'no-such-client')).cart.getCurrentCart())).found,
      );
    expect(found).toEqual([]);
  });

  it('token grants refused: code exchange, member exchange, app credentials', async () => {
    const who = await member();
    const found: string[] = [];
    // A made-up code with a real verifier.
    {
      const c = client(oauth());
      const data = await c.identity.generateOAuthData(CALLBACK);
      keep(data.codeVerifier, 'code verifier');
      found.push(
        ...(
          await expectFailure('made-up code', () =>
            c.identity.getMemberTokens(secret('authorization code'), data.state, data),
          )
        ).found,
      );
    }
    // A real code with the wrong verifier: refused (and the code is burnt).
    {
      const { c, data, code, state } = await realCode(who);
      const wrong = { ...data, codeVerifier: keep(generateVerifier(), 'code verifier') };
      found.push(
        ...(
          await expectFailure('real code, wrong verifier', () =>
            c.identity.getMemberTokens(code, state, wrong),
          )
        ).found,
      );
    }
    // A real code with its verifier, but the wrong redirect URI.
    {
      const { c, data, code, state } = await realCode(who);
      const moved = { ...data, redirectUri: `${SHOP}/elsewhere` };
      found.push(
        ...(
          await expectFailure('real code, other redirect URI', () =>
            c.identity.getMemberTokens(code, state, moved),
          )
        ).found,
      );
    }
    // Member tokens for a trusted server: wrong API key; unknown member; no API key at all.
    const c = client(oauth());
    found.push(
      ...(
        await expectFailure('authorized_client, wrong API key', () =>
          c.identity.getMemberTokensForExternalLogin(who.id, secret('API key')),
        )
      ).found,
    );
    found.push(
      ...(
        await expectFailure('authorized_client, unknown member', () =>
          c.identity.getMemberTokensForExternalLogin('no-such-member', emu.demo.apiKey),
        )
      ).found,
    );
    found.push(
      ...(
        await expectFailure('authorized_client, no API key', () =>
          c.identity.getMemberTokensForExternalLogin(who.id, ''),
        )
      ).found,
    );
    found.push(
      ...(
        await expectFailure('sign-on, wrong API key', () =>
          c.identity.signOn(secret('API key'), { email: email() }),
        )
      ).found,
    );
    // Apps: a real app id with a wrong secret, and a real secret with an unknown app id.
    const app = (await owner('/_api/emulator/v1/apps', { name: 'Secrets app' })) as {
      appId: string;
      appSecret: string;
    };
    keep(app.appSecret, 'app secret');
    found.push(
      ...(
        await expectFailure('app, wrong secret', () =>
          client(
            AppStrategy({ appId: app.appId, appSecret: secret('app secret') }),
          ).products.createCollection({ name: 'A' }),
        )
      ).found,
    );
    found.push(
      ...(
        await expectFailure('app, unknown app id', () =>
          client(AppStrategy({ appId: 'no-such-app', appSecret: app.appSecret })).products.createCollection({
            name: 'A',
          }),
        )
      ).found,
    );
    expect(found).toEqual([]);
  });

  it('identity failures: register, login, throttling, recovery, verification, password change, guard', async () => {
    const who = await member();
    const found: string[] = [];
    const c = client(oauth());
    const fail = async (label: string, run: () => Promise<unknown>) =>
      found.push(...(await expectFailure(label, run)).found);
    await fail('register, e-mail taken (409)', () =>
      c.identity.register({ email: who.email, password: secret('password') }),
    );
    await fail('register, invalid e-mail', () =>
      c.identity.register({ email: 'not-an-email', password: secret('password') }),
    );
    const short = keep(
      `Qz${randomBytes(6)
        .toString('base64')
        .replace(/[^g-zG-Z]/g, 'q')
        .slice(0, 5)}`,
      'short password',
    );
    await fail('register, short password', () => c.identity.register({ email: email(), password: short }));
    await fail('login, unknown e-mail', () =>
      c.identity.login({ email: email(), password: secret('password') }),
    );
    for (let i = 0; i < 6; i++)
      await fail(`login, wrong password ${i + 1} (throttled at the end)`, () =>
        c.identity.login({ email: who.email, password: secret('password') }),
      );
    await fail('login, right password while throttled (429)', () => c.identity.login(who));
    await fail('recover, made-up token', () =>
      c.identity.recover(secret('recovery token'), secret('password')),
    );
    await c.identity.sendPasswordResetEmail(who.email);
    const link = (await mailbox(who.email)).find((m) => m.link?.includes('token='))?.link;
    expect(link, 'a reset e-mail with a link').toBeTruthy();
    const recovery = keep(new URL(link!).searchParams.get('token')!, 'recovery token');
    await fail('recover, real token, short password', () => c.identity.recover(recovery, short));
    await fail('processVerification without a pending login', () =>
      c.identity.processVerification({ code: secret('verification code') }),
    );
    await fail('changePassword as a visitor', () => c.identity.changePassword(secret('password')));
    await fail('silent login outside a browser', () =>
      c.identity.getMemberTokensForDirectLogin(who.sessionToken),
    );
    const server = client();
    await fail('guard, made-up token', () => requireAccess(server, 'anyone', secret('access token')));
    const visitor = oauth();
    client(visitor);
    await visitor.generateVisitorTokens();
    const vt = (await visitor.getTokens()).accessToken.value;
    await fail('guard, visitor token for admin', () =>
      requireAccess(server, 'admin', `${vt},${secret('API key')}`),
    );
    found.push(
      ...(await settle('token info of a made-up token', () =>
        c.identity.getTokenInfo(secret('access token')),
      )),
    );
    expect(found).toEqual([]);
  });

  it('redirect sessions carrying a session token, and the URLs they give', async () => {
    const who = await member();
    const found: string[] = [];
    const c = client(oauth());
    const challenge = await generateChallenge(keep(generateVerifier(), 'code verifier'));
    const auth = (over: object) => ({
      auth: {
        authRequest: {
          clientId: emu.demo.clientId,
          responseType: 'code' as const,
          codeChallenge: challenge,
          codeChallengeMethod: 'S256' as const,
          state: generateState(),
          sessionToken: who.sessionToken,
          responseMode: 'query' as const,
          redirectUri: `${SHOP}/callback`,
          ...over,
        },
        prompt: 'none' as const,
      },
    });
    for (const [label, over] of [
      ['unknown client', { clientId: 'no-such-client' }],
      ['redirect URI not allowed', { redirectUri: 'https://elsewhere.test/cb' }],
      ['bad challenge', { codeChallenge: 'short' }],
      ['fine', {}],
    ] as const) {
      try {
        const { redirectSession } = await c.redirects.createRedirectSession(auth(over) as never);
        shownUrls.push({ where: `redirect session (${label})`, url: redirectSession.fullUrl });
        // What the browser would load: the answer must not carry the session token either.
        const page = await realFetch(redirectSession.fullUrl, { redirect: 'manual' });
        shownUrls.push({ where: `authorize answer (${label})`, url: page.headers.get('location') ?? '' });
        for (const kind of leaked(await page.text()))
          found.push(`authorize page (${label}) contains the ${kind}`);
      } catch (e) {
        found.push(...errorLeaks(`redirect session, ${label}`, e));
      }
    }
    const data = await c.identity.generateOAuthData(`${SHOP}/callback`);
    keep(data.codeVerifier, 'code verifier');
    const { authUrl } = await c.identity.getAuthUrl(data, { sessionToken: who.sessionToken, prompt: 'none' });
    shownUrls.push({ where: 'getAuthUrl with a session token', url: authUrl });
    expect(found).toEqual([]);
  });

  it('envelopes with secrets in play: 400, 401, 403, 404, 409 from the emulator', async () => {
    const found: string[] = [];
    const merchant = client(ApiKeyStrategy({ apiKey: emu.demo.apiKey }));
    const fail = async (label: string, run: () => Promise<unknown>) =>
      found.push(...(await expectFailure(label, run)).found);
    await fail('404 unknown product', () => merchant.products.getProduct('no-such-product'));
    await fail('400 collection without a name', () => merchant.products.createCollection({} as never));
    const slug = `secret-sale-${randomBytes(3).toString('hex')}`;
    await merchant.products.createCollection({ name: 'Sale', slug } as never);
    await fail('4xx collection with a taken slug', () =>
      merchant.products.createCollection({ name: 'Sale', slug } as never),
    );
    await fail('401 wrong API key', () =>
      client(ApiKeyStrategy({ apiKey: secret('API key') })).products.createCollection({ name: 'A' }),
    );
    await fail('403 visitor on a member call', () =>
      client(oauth()).identity.changePassword(secret('password')),
    );
    await fail('400 query with a bad filter', () =>
      client(oauth(secretTokens(TokenRole.VISITOR))).products.queryProducts({
        filter: { 'priceData.price': { $nope: 1 } },
      } as PlatformQuery),
    );
    expect(found).toEqual([]);
  });

  it('network error, timeout and abort', async () => {
    const found: string[] = [];
    const fail = async (label: string, run: () => Promise<unknown>) =>
      found.push(...(await expectFailure(label, run)).found);
    await fail('connection refused', () =>
      client(oauth(secretTokens(TokenRole.MEMBER)), { baseUrl: 'http://127.0.0.1:9' }).cart.getCurrentCart(),
    );
    await fail('token endpoint unreachable', () =>
      client(oauth(secretTokens(TokenRole.VISITOR, false)), {
        baseUrl: 'http://127.0.0.1:9',
      }).cart.getCurrentCart(),
    );
    const slow = recording((url, init) =>
      url.includes('/oauth2/')
        ? undefined
        : new Promise((r) => setTimeout(r, 200)).then(() => realFetch(url, init)),
    );
    await fail('timeout', () =>
      client(oauth(secretTokens(TokenRole.VISITOR)), { fetch: slow, timeoutMs: 50 }).cart.getCurrentCart(),
    );
    const ctl = new AbortController();
    setTimeout(() => ctl.abort(), 20);
    await fail('abort', () =>
      client(oauth(secretTokens(TokenRole.VISITOR)), { fetch: slow }).cart.getCurrentCart({
        signal: ctl.signal,
      }),
    );
    expect(found).toEqual([]);
  });

  it('the emulator failing inside (its storage gone): 503 envelopes, and a log line without secrets', async () => {
    const who = await member();
    const db = emu.emu.db as unknown as Record<'query' | 'exec' | 'tx', unknown>;
    const saved = { query: db.query, exec: db.exec, tx: db.tx };
    const logged = emulatorLog.length;
    const found: string[] = [];
    const fail = async (label: string, run: () => Promise<unknown>) =>
      found.push(...(await expectFailure(label, run)).found);
    // What a driver says when the database goes away under a running emulator.
    const gone = async () => {
      throw new Error('Connection terminated unexpectedly');
    };
    // A visitor with fresh tokens, so that its calls reach their routes.
    const visitor = oauth();
    const c = client(visitor);
    await visitor.generateVisitorTokens();
    Object.assign(db, { query: gone, exec: gone, tx: gone });
    try {
      await fail('login', () => c.identity.login({ email: who.email, password: who.password }));
      await fail('register', () => c.identity.register({ email: email(), password: secret('password') }));
      await fail('refresh grant', () =>
        client(oauth(secretTokens(TokenRole.MEMBER, false))).cart.getCurrentCart(),
      );
      await fail('401 and refresh', () =>
        client(oauth(secretTokens(TokenRole.VISITOR))).cart.getCurrentCart(),
      );
      const data = await c.identity.generateOAuthData(CALLBACK);
      keep(data.codeVerifier, 'code verifier');
      await fail('code exchange', () =>
        c.identity.getMemberTokens(secret('authorization code'), data.state, data),
      );
      await fail('merchant call', () =>
        client(ApiKeyStrategy({ apiKey: emu.demo.apiKey })).products.createCollection({ name: 'A' }),
      );
      await fail('change password', () =>
        client(oauth(secretTokens(TokenRole.MEMBER))).identity.changePassword(secret('password')),
      );
      await fail('redirect session with a session token', () =>
        c.identity.getAuthUrl(data, { sessionToken: who.sessionToken, prompt: 'none' }),
      );
      // A raw request with secrets in its query string and headers: the log names the path only.
      const raw = await realFetch(
        `${emu.url}/oauth2/authorize?redirect_session_id=${secret('session token')}&code=${secret('authorization code')}`,
        { headers: { authorization: secret('access token'), cookie: `session=${secret('session token')}` } },
      );
      expect(raw.status).toBe(503); // storage unavailable: retryable, with Retry-After
      expect(raw.headers.get('retry-after')).toBe('1');
    } finally {
      Object.assign(db, saved);
    }
    const lines = emulatorLog.slice(logged).filter((l) => l.startsWith('[emulator]'));
    expect(lines.length, 'the emulator logged the failures').toBeGreaterThanOrEqual(5);
    for (const route of ['GET /oauth2/authorize', '/v2/login', '/v2/register', '/redirect-session'])
      expect(
        lines.some((l) => l.includes(route)),
        route,
      ).toBe(true);
    for (const line of lines)
      for (const kind of leaked(line)) found.push(`emulator log line contains the ${kind}`);
    expect(found).toEqual([]);
  });
});

// ---- afterwards: everything the run printed, fetched, logged or reported ----

describe('after every path above', () => {
  it('no secret in console or process output, fetched or shown URLs, errors given to onError, or the emulator log', () => {
    const found: string[] = [];
    for (const line of output)
      for (const kind of leaked(line)) found.push(`console/process output contains the ${kind}`);
    for (const url of fetchedUrls)
      for (const kind of leaked(url))
        found.push(`a fetched URL (${new URL(url).pathname}) contains the ${kind}`);
    for (const { where, url } of shownUrls)
      for (const kind of leaked(url)) found.push(`the URL of ${where} contains the ${kind}`);
    for (const { where, error } of reported) found.push(...errorLeaks(where, error));
    for (const line of emulatorLog)
      for (const kind of leaked(line)) found.push(`the emulator log contains the ${kind}`);
    expect([...new Set(found)]).toEqual([]);
    // The sweep looked at something: URLs, reported errors and secrets of every kind.
    expect(fetchedUrls.length).toBeGreaterThan(100);
    expect(reported.length).toBeGreaterThan(100);
    expect(new Set(secrets.values()).size).toBeGreaterThanOrEqual(12);
    expect(
      emulatorLog.some((l) => l.includes('mail to')),
      'the emulator log was captured',
    ).toBe(true);
  });
});
