/**
 * Identity calls made from plain JavaScript without their parameters object, found by the tenth
 * audit: each was a TypeError out of the SDK, unreported, instead of the call's result or error
 * shape. Each test failed before its fix.
 */
import { describe, expect, it, vi } from 'vitest';
import { identityClient } from '../../test/identity-client.ts';
import { standInBrowser } from '../../test/stand-in-browser.ts';
import { ShopkitError, SystemError, ValidationError } from '../http/errors.ts';
import * as identity from './identity.ts';

/** A client whose calls are refused as the platform refuses a message without its fields. */
function refusing() {
  const fetch = vi.fn(async (_input: RequestInfo | URL, _init?: RequestInit) =>
    Response.json(
      {
        message: 'x',
        details: { validationError: { fieldViolations: [{ field: 'code', description: 'is required' }] } },
      },
      { status: 400 },
    ),
  );
  const onError = vi.fn();
  const client = identityClient(fetch as unknown as typeof globalThis.fetch).withOptions({ onError });
  return { client, fetch, onError };
}

/** Calls `f` as plain JavaScript would, with the arguments its types require left out. */
const untyped = (f: unknown) => f as (...args: unknown[]) => Promise<unknown>;

describe('called without their parameters object', () => {
  it('processVerification answers a FAILURE result, sending nothing without a pending verification', async () => {
    const { client, fetch } = refusing();
    expect(await untyped(identity.processVerification)(client)).toEqual({
      loginState: 'FAILURE',
      error: 'Unknown _state',
    });
    expect(fetch).not.toHaveBeenCalled();
  });

  it('processVerification with a verification pending answers the refusal as a result', async () => {
    const fetch = vi.fn(async (input: RequestInfo | URL) =>
      String(input).endsWith('/v2/register')
        ? Response.json({ state: 'REQUIRE_EMAIL_VERIFICATION', stateToken: 'st', identity: { id: 'm' } })
        : Response.json(
            {
              message: 'Bad code',
              details: { applicationError: { code: 'VERIFICATION_FAILED', description: 'Bad code' } },
            },
            { status: 400 },
          ),
    );
    const client = identityClient(fetch as unknown as typeof globalThis.fetch);
    await identity.register(client, { email: 'a@example.test', password: 'correct horse' });
    expect(await untyped(identity.processVerification)(client)).toMatchObject({
      loginState: 'FAILURE',
      errorCode: 'VERIFICATION_FAILED',
    });
  });

  it('signOn rejects with the platform’s ValidationError, not a TypeError thrown at once', async () => {
    const { client, onError } = refusing();
    let thrown: unknown;
    let promise: Promise<unknown> | undefined;
    try {
      promise = untyped(identity.signOn)(client, 'APIKEY.server');
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeUndefined();
    const err = await promise?.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ValidationError);
    expect(onError).toHaveBeenCalledWith(
      err,
      expect.objectContaining({ path: '/_api/iam/authentication/v2/sign-on' }),
    );
  });

  it('getAuthUrl is a ValidationError on `data`, reported, and no authorization is started', async () => {
    const { client, fetch, onError } = refusing();
    for (const data of [undefined, {}, { state: 's' }, { codeChallenge: 'c' }]) {
      const err = await untyped(identity.getAuthUrl)(client, data).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ValidationError);
      expect((err as ValidationError).violations.map((v) => v.field)).toEqual(['data']);
    }
    expect(fetch).not.toHaveBeenCalled();
    expect(onError).toHaveBeenCalledTimes(4);
  });

  it('getMemberTokens and getMemberTokensFromUrl fail with `Invalid _state`, no token request', async () => {
    const { client, fetch, onError } = refusing();
    const failures = [
      await untyped(identity.getMemberTokens)(client, 'code', 'state').catch((e: unknown) => e),
      await untyped(identity.getMemberTokensFromUrl)(
        client,
        undefined,
        'https://shop.test/cb#code=c&state=s',
      ).catch((e: unknown) => e),
      await untyped(identity.getMemberTokensFromUrl)(
        client,
        undefined,
        'https://shop.test/cb#error=access_denied&state=s',
      ).catch((e: unknown) => e),
    ];
    for (const err of failures) {
      expect(err).toBeInstanceOf(ShopkitError);
      expect(err).toMatchObject({ message: 'Invalid _state', code: 'INVALID_STATE' });
    }
    expect(fetch).not.toHaveBeenCalled();
    expect(onError).toHaveBeenCalledTimes(3);
  });

  it('logoutOnServer with null options sends the logout', async () => {
    const fetch = vi.fn(async () =>
      Response.json({ statusCode: 302, headers: [{ key: 'Location', value: 'https://shop.test/' }] }),
    );
    const client = identityClient(fetch as unknown as typeof globalThis.fetch);
    expect(await untyped(identity.logoutOnServer)(client, null)).toMatchObject({
      redirectUrl: 'https://shop.test/',
    });
    expect(fetch).toHaveBeenCalledTimes(1);
  });
});

describe('a redirect session answered without its URL', () => {
  // `redirectSession.fullUrl` read from an answer without `redirectSession` was a TypeError out of
  // the login flows (and, in `logout`, a TypeError as its `warning`); one without `fullUrl` gave an
  // `authUrl` of `undefined`, which a browser sent to `/undefined`.
  const bodies = [
    {},
    { redirectSession: null },
    { redirectSession: { id: 'r' } },
    { redirectSession: { fullUrl: 'no url' } },
  ];

  it.each(bodies.map((b) => [JSON.stringify(b), b]))(
    '(%s): getAuthUrl fails with INVALID_RESPONSE, reported',
    async (_, body) => {
      const onError = vi.fn();
      const client = identityClient((async () => Response.json(body)) as unknown as typeof fetch).withOptions(
        { onError },
      );
      const data = await identity.generateOAuthData(client, 'https://shop.test/callback');
      const err = await identity.getAuthUrl(client, data).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(SystemError);
      expect(err).toMatchObject({ code: 'INVALID_RESPONSE', status: 200 });
      expect(onError).toHaveBeenCalledWith(err, {
        method: 'POST',
        path: '/_api/redirects-api/v1/redirect-session',
      });
    },
  );

  it('logout still clears the tokens, and warns with INVALID_RESPONSE', async () => {
    const client = identityClient((async () => Response.json({})) as unknown as typeof fetch);
    await client.auth.setTokens({
      accessToken: { value: 'member', expiresAt: Math.floor(Date.now() / 1000) + 3600 },
      refreshToken: { value: 'mr', role: 'member' },
    });
    const out = await identity.logout(client, 'https://shop.test/');
    expect(out.logoutUrl).toBeUndefined();
    expect(out.warning).toBeInstanceOf(SystemError);
    expect(out.warning).toMatchObject({ code: 'INVALID_RESPONSE' });
    expect(await client.auth.loggedIn()).toBe(false);
  });

  it('the silent login fails with INVALID_RESPONSE, no frame made', async () => {
    const loads: string[] = [];
    const restore = standInBrowser((url) => {
      loads.push(url);
      return undefined;
    });
    try {
      const client = identityClient((async () =>
        Response.json({ redirectSession: {} })) as unknown as typeof fetch);
      const err = await identity.getMemberTokensForDirectLogin(client, 'session').catch((e: unknown) => e);
      expect(err).toBeInstanceOf(SystemError);
      expect(err).toMatchObject({ code: 'INVALID_RESPONSE' });
      expect(loads).toEqual([]);
    } finally {
      restore();
    }
  });
});

describe('the result-answering identity calls take call options last, as every call does', () => {
  // README: "each call also takes {signal, timeoutMs, headers, apiKey} as its last argument". These
  // wrappers took none: a login could not be aborted nor given a timeout, and options passed
  // from plain JavaScript were dropped without a word.
  const calls: [
    string,
    (c: ReturnType<typeof identityClient>, o: { headers: Record<string, string> }) => Promise<unknown>,
  ][] = [
    ['register', (c, o) => identity.register(c, { email: 'a@example.test', password: 'pw-12345678' }, o)],
    ['login', (c, o) => identity.login(c, { email: 'a@example.test', password: 'pw-12345678' }, o)],
    [
      'processVerification',
      (c, o) => identity.processVerification(c, { code: '123456', stateToken: 'st' }, o),
    ],
    ['recover', (c, o) => identity.recover(c, 'recovery', 'pw-12345678', o)],
    ['ssoCallback', (c, o) => identity.ssoCallback(c, { state: 's', sessionToken: 't' }, o)],
    ['loginWithTokenParams', (c, o) => identity.loginWithTokenParams(c, 'idp', { id_token: 'x' }, o)],
    [
      'getAuthUrl',
      async (c, o) =>
        identity.getAuthUrl(c, await identity.generateOAuthData(c, 'https://shop.test/cb'), {}, o),
    ],
    [
      'logout',
      async (c, o) => {
        await c.auth.setTokens({
          accessToken: { value: 'member', expiresAt: Math.floor(Date.now() / 1000) + 3600 },
          refreshToken: { value: 'mr', role: 'member' },
        });
        return identity.logout(c, 'https://shop.test/', o);
      },
    ],
  ];

  it.each(calls)('%s sends the call’s headers', async (_, run) => {
    const sent: (string | null)[] = [];
    const client = identityClient((async (_input: unknown, init?: RequestInit) => {
      sent.push(new Headers(init?.headers).get('x-trace'));
      return Response.json({
        state: 'SUCCESS',
        sessionToken: 's',
        redirectSession: { id: 'r', fullUrl: 'https://shop.test/r' },
      });
    }) as unknown as typeof fetch);
    await run(client, { headers: { 'x-trace': 'trace-1' } });
    expect(sent).toEqual(['trace-1']);
  });

  it('an aborted login sends nothing and answers a network FAILURE', async () => {
    const fetch = vi.fn(async () => Response.json({ state: 'SUCCESS', sessionToken: 's' }));
    const client = identityClient(fetch as unknown as typeof globalThis.fetch);
    const r = await identity.login(
      client,
      { email: 'a@example.test', password: 'pw-12345678' },
      { signal: AbortSignal.abort() },
    );
    expect(r).toMatchObject({ loginState: 'FAILURE', errorCode: 'network' });
    expect(fetch).not.toHaveBeenCalled();
  });
});

describe('a trusted server’s API key that is missing (an environment variable left unset)', () => {
  // It went as the text `undefined` after the visitor token (`Authorization: <token>,undefined`), or
  // not at all for sign-on, and the platform's refusal did not say why.
  it.each([undefined, ''])('(%j) is a ValidationError on apiKey, reported, nothing sent', async (apiKey) => {
    const { client, fetch, onError } = refusing();
    const errors = [
      await identity
        .getMemberTokensForExternalLogin(client, 'member-1', apiKey as string)
        .catch((e: unknown) => e),
      await identity.signOn(client, apiKey as string, { email: 'a@example.test' }).catch((e: unknown) => e),
    ];
    for (const err of errors) {
      expect(err).toBeInstanceOf(ValidationError);
      expect((err as ValidationError).violations.map((v) => v.field)).toEqual(['apiKey']);
    }
    expect(fetch).not.toHaveBeenCalled();
    expect(onError.mock.calls.map(([e, c]) => [e, c.path])).toEqual([
      [errors[0], '/oauth2/token'],
      [errors[1], '/_api/iam/authentication/v2/sign-on'],
    ]);
  });
});
