/**
 * A second audit of the member flows (identity module) over HTTP against the emulator: the
 * callback step fed a path (a server's `req.url`) or an unreadable URL, the return addresses of
 * the platform's logout and of the reset e-mail checked before anything is sent (checklist 13),
 * the identity's status and factors typed as the spec's enumerations, and a sweep of every failure
 * of the member flows for secrets in results, errors and fetched URLs (checklist 31).
 */
import { inspect } from 'node:util';
import { loginOnHostedPage, testBackends } from '@shopkit/emulator/testing';
import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  ApiKeyStrategy,
  call,
  createClient,
  FactorStatus,
  FactorType,
  IdentityStatus,
  identity,
  OAuthStrategy,
  type ShopkitError,
  StatusReason,
  ValidationError,
} from '../../src/index.ts';
import { failure, mailbox, setupEmulator } from './setup.ts';

const SHOP = 'http://shop.test:5173';
const CALLBACK = `${SHOP}/callback`;
const UNSAFE = [
  'javascript:alert(1)',
  '//evil.example/bye',
  'https:evil.example',
  '/\\evil.example',
  'https://shop.test@evil.example/',
  `${SHOP}/bye\n`,
];

/** Everything an error or result shows: its text, JSON, and `inspect` with causes and hidden fields. */
const shown = (x: unknown) =>
  [String(x), JSON.stringify(x) ?? '', inspect(x, { depth: 12, showHidden: true })].join('\n');

describe.each(testBackends())('member flows, second audit (%s)', (backend) => {
  let n = 0;
  const email = () => `audit2-${++n}-${backend}@example.test`;
  const emu = setupEmulator(backend, { allowedOrigins: [SHOP] });

  /** A client whose requests are recorded (URL and method) before they go to the emulator. */
  const recorded = (onError?: (e: ShopkitError) => void) => {
    const sent: { method: string; url: string }[] = [];
    const client = createClient({
      baseUrl: emu.url,
      auth: OAuthStrategy({ clientId: emu.demo.clientId }),
      modules: { identity },
      onError,
      fetch: (input, init) => {
        sent.push({ method: init?.method ?? 'GET', url: String(input) });
        return fetch(input, init);
      },
    });
    return { client, sent };
  };
  const admin = () => createClient({ baseUrl: emu.url, auth: ApiKeyStrategy({ apiKey: emu.demo.apiKey }) });
  const settings = (s: Record<string, boolean>) =>
    call(admin(), { method: 'POST', path: '/_api/emulator/v1/settings', args: ['s:'] }, [s]);

  /** A member registered, then logged in on the hosted page: the callback URL with code and state. */
  async function callback(client: ReturnType<typeof recorded>['client'], who = email()) {
    await client.identity.register({ email: who, password: 'long enough pw' });
    const data = await client.identity.generateOAuthData(CALLBACK);
    const { authUrl } = await client.identity.getAuthUrl(data, { responseMode: 'query' });
    const { answer } = await loginOnHostedPage(authUrl, { email: who, password: 'long enough pw' });
    const location = answer.headers.get('location')!;
    expect(location.startsWith(`${CALLBACK}?code=`)).toBe(true);
    return { data, location, who };
  }

  it("the callback step reads a path (a server's req.url); an unreadable URL fails naming neither code nor state", async () => {
    const reported: ShopkitError[] = [];
    const { client } = recorded((e) => reported.push(e));
    const { data, location } = await callback(client);
    const { pathname, search } = new URL(location);
    const url = new URL(location);
    const code = url.searchParams.get('code')!;
    const state = url.searchParams.get('state')!;
    // A URL no parser reads (port out of range): a ValidationError that holds neither secret,
    // reported to onError, and the state is not spent by it.
    const unreadable = location.replace('shop.test:5173', 'shop.test:99999');
    const bad = await failure(client.identity.getMemberTokensFromUrl(data, unreadable, 'query'));
    expect(bad).toBeInstanceOf(ValidationError);
    expect((bad as ValidationError).violations.map((v) => v.field)).toEqual(['url']);
    expect(reported).toEqual([bad]);
    expect(() => client.identity.parseFromUrl(unreadable, 'query')).toThrow(ValidationError);
    for (const text of [shown(bad), ...reported.map(shown)]) {
      expect(text).not.toContain(code);
      expect(text).not.toContain(state);
    }
    // The path and query of the callback, as a Node server sees the request: member tokens.
    const tokens = await client.identity.getMemberTokensFromUrl(data, pathname + search, 'query');
    expect(tokens.refreshToken.role).toBe('member');
    expect(client.identity.parseFromUrl(`${pathname}#code=a&state=b`)).toMatchObject({
      code: 'a',
      state: 'b',
    });
  });

  it('logoutOnServer refuses an unsafe postLogoutRedirectUri before sending, as logout does (checklist 13)', async () => {
    const reported: ShopkitError[] = [];
    const { client, sent } = recorded((e) => reported.push(e));
    const logoutCalls = () => sent.filter((s) => new URL(s.url).pathname.endsWith('/v1/logout')).length;
    for (const bad of UNSAFE) {
      const err = await failure(client.identity.logoutOnServer({ postLogoutRedirectUri: bad }));
      expect(err, bad).toBeInstanceOf(ValidationError);
      expect(
        (err as ValidationError).violations.map((v) => v.field),
        bad,
      ).toEqual(['options.postLogoutRedirectUri']);
    }
    expect(logoutCalls()).toBe(0);
    expect(reported).toHaveLength(UNSAFE.length);
    // An allowed absolute URL goes, and the platform answers where to go.
    const ok = await client.identity.logoutOnServer({ postLogoutRedirectUri: `${SHOP}/bye` });
    expect(ok.response.statusCode).toBe(302);
    expect(logoutCalls()).toBe(1);
    // Without a return address, nothing to check.
    expect((await client.identity.logoutOnServer()).response.statusCode).toBeGreaterThan(0);
  });

  it('the reset e-mail refuses an unsafe return address before sending; an absolute one is linked', async () => {
    const reported: ShopkitError[] = [];
    const { client, sent } = recorded((e) => reported.push(e));
    const who = email();
    await client.identity.register({ email: who, password: 'long enough pw' });
    const sends = () =>
      sent.filter((s) => new URL(s.url).pathname.endsWith('/recovery/v1/send-email')).length;
    for (const bad of UNSAFE) {
      for (const redirect of [bad, { redirectUri: bad, language: 'en' }]) {
        const err = await failure(client.identity.sendPasswordResetEmail(who, redirect));
        expect(err, bad).toBeInstanceOf(ValidationError);
        expect(
          (err as ValidationError).violations.map((v) => v.field),
          bad,
        ).toEqual(['redirectUri']);
      }
    }
    expect(sends()).toBe(0);
    expect(await mailbox(emu, who)).toEqual([]);
    expect(reported).toHaveLength(UNSAFE.length * 2);
    await client.identity.sendPasswordResetEmail(who, `${SHOP}/after-reset`);
    expect(sends()).toBe(1);
    expect(await mailbox(emu, who)).toHaveLength(1);
  });

  it("an identity's status and factors are the spec's enumerations, in the types and on the wire", async () => {
    const { client } = recorded();
    const r = await client.identity.register({ email: email(), password: 'long enough pw' });
    const id = r.data!.identity!;
    expectTypeOf(id.status!.name).toEqualTypeOf<IdentityStatus>();
    expectTypeOf(id.status!.reasons).toEqualTypeOf<StatusReason[]>();
    type Factor = NonNullable<typeof id.factors>[number];
    expectTypeOf<Factor['type']>().toEqualTypeOf<FactorType>();
    expectTypeOf<Factor['status']>().toEqualTypeOf<FactorStatus>();
    expect(Object.values(IdentityStatus)).toContain(id.status!.name);
    for (const reason of id.status!.reasons) expect(Object.values(StatusReason)).toContain(reason);
    for (const f of id.factors ?? []) {
      expect(Object.values(FactorType)).toContain(f.type);
      expect(Object.values(FactorStatus)).toContain(f.status);
    }
    // The state-machine answer of the low-level calls is a named, exported type.
    expectTypeOf<identity.StateResponse['identity']>().toEqualTypeOf<identity.Identity | undefined>();
    expectTypeOf(client.identity.verifyFactor).returns.resolves.toEqualTypeOf<identity.StateResponse>();
  });

  it('no password, code, token, verifier or captcha token in any failure of the member flows (checklist 31)', async () => {
    const reported: ShopkitError[] = [];
    const { client, sent } = recorded((e) => reported.push(e));
    const S = {
      password: 'pw-secret-4b1c9e',
      longPassword: `long-secret-${'x'.repeat(300)}`,
      recovery: 'recovery-secret-77aa',
      code: '918273',
      stateToken: 'state-token-secret-5d5d',
      captcha: 'captcha-secret-e0e0',
      idToken: 'id-token-secret-a1a1',
      newPassword: 'new-pw-secret-c3c3',
      token: 'access-token-secret-f4f4',
      verifier: 'verifier-secret-'.padEnd(43, 'v'),
    };
    const { data, who } = await callback(client);
    const outcomes: unknown[] = [
      await client.identity.register({ email: email(), password: S.longPassword }),
      await client.identity.register({ email: 'not-an-email', password: S.password }),
      await client.identity.register({ email: who, password: S.password }),
      await client.identity.login({ email: who, password: S.password }),
      await client.identity.login({ email: email(), password: S.password }),
      await client.identity.login({ email: who, password: S.longPassword }),
      await client.identity.recover(S.recovery, S.password),
      await client.identity.processVerification({ code: S.code, stateToken: S.stateToken }),
      await client.identity.loginWithTokenParams('no-such-connection', { id_token: S.idToken }),
      await failure(client.identity.resendVerification(S.stateToken)),
      await failure(
        client.identity.verifyFactor('EMAIL', { stateToken: S.stateToken, emailData: { code: S.code } }),
      ),
      await failure(client.identity.changePassword(S.newPassword)),
      await failure(client.identity.verifyDuringAuthentication(S.code, { stateToken: S.stateToken })),
      await failure(
        client.identity.getMemberTokens(S.code, data.state, { ...data, codeVerifier: S.verifier }),
      ),
      await client.identity.getTokenInfo(S.token),
    ];
    await settings({ captchaRequired: true });
    try {
      outcomes.push(
        await client.identity.login({
          email: who,
          password: S.password,
          captchaTokens: { recaptchaToken: S.captcha },
        }),
        await client.identity.register({
          email: email(),
          password: S.password,
          captchaTokens: { invisibleRecaptchaToken: S.captcha },
        }),
      );
    } finally {
      await settings({ captchaRequired: false });
    }
    // Each was refused (a FAILURE result or a thrown error), and showed none of the secrets.
    for (const o of outcomes.slice(0, 9)) expect((o as { loginState: string }).loginState).toBe('FAILURE');
    for (const o of outcomes.slice(-2)) expect((o as { loginState: string }).loginState).toBe('FAILURE');
    expect(reported.length).toBeGreaterThanOrEqual(5);
    const text = [...outcomes, ...reported].map(shown).join('\n');
    const urls = sent.map((s) => s.url).join('\n');
    for (const [kind, value] of Object.entries(S)) {
      expect(text.includes(value), `${kind} in a result or error`).toBe(false);
      expect(urls.includes(value), `${kind} in a URL`).toBe(false);
    }
  });
});
