/**
 * Apps against the emulator over HTTP (wire §5.6, §6): the installer page and its one-shot code,
 * `exchangeAppInstallCode` at the legacy endpoint `/oauth/access`, `AppStrategy` with the refresh
 * token it gives, with a handed access token (`strip_bound_session`) and with an instance; each
 * refusal in the platform's error shape, without a secret in any message.
 */
import { testBackends } from '@shopkit/emulator/testing';
import { describe, expect, it } from 'vitest';
import {
  AppStrategy,
  call,
  createClient,
  exchangeAppInstallCode,
  identity,
  type OpSpec,
} from '../../src/index.ts';
import { failure, merchantClient, postForm, setupEmulator, visitorClient } from './setup.ts';

const APP_SITE = 'https://app.example.test';
const REDIRECT = `${APP_SITE}/installed`;

/** An elevated call any app token may make: the site's settings. */
const SETTINGS: OpSpec = { method: 'GET', path: '/_api/emulator/v1/settings', elevated: true };

describe.each(testBackends())('apps (%s)', (backend) => {
  const emu = setupEmulator(backend);
  /** A client without credentials: the token calls carry their own. */
  const bare = () => createClient({ baseUrl: emu.url });
  const newApp = (redirectUrls = [REDIRECT]) =>
    call<{ appId: string; appSecret: string; instanceId: string }>(
      merchantClient(emu),
      { method: 'POST', path: '/_api/emulator/v1/apps', args: ['m:'] },
      [{ name: 'Pricing & <Co>', redirectUrls }],
    );
  const installer = (params: Record<string, string>) =>
    `${emu.url}/installer/install?${new URLSearchParams(params)}`;
  const tokenInfo = (token: string) => identity.getTokenInfo(bare(), token);
  /** A token endpoint's raw answer: its status and its whole text, to search for leaked secrets. */
  const post = async (path: string, body: unknown) => {
    const res = await fetch(`${emu.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: res.status, headers: res.headers, text: await res.text() };
  };

  /** Installs an app through the installer page: the code and instance id it sends back. */
  async function install(appId: string, state = 'st-9') {
    const page = await fetch(installer({ appId, redirectUrl: REDIRECT, state }));
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('Pricing &amp; &lt;Co&gt;'); // the app's name, escaped
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    const res = await postForm(
      `${emu.url}/installer/install`,
      new URLSearchParams({ appId, redirectUrl: REDIRECT, state }).toString(),
    );
    expect(res.status).toBe(302);
    const back = new URL(res.headers.get('location')!);
    expect(back.origin + back.pathname).toBe(REDIRECT);
    expect(back.searchParams.get('state')).toBe(state);
    return { code: back.searchParams.get('code')!, instanceId: back.searchParams.get('instanceId')! };
  }

  it('installs an app: the code gives a refresh token that AppStrategy acts with, on the instance', async () => {
    const app = await newApp();
    const { code, instanceId } = await install(app.appId);
    expect(instanceId).toBe(app.instanceId);

    const tokens = await exchangeAppInstallCode(bare(), { ...app, code });
    expect(tokens.refreshToken).toBeTruthy();
    expect(await tokenInfo(tokens.accessToken)).toMatchObject({
      active: true,
      subjectType: 'APP',
      subjectId: app.appId,
      instanceId,
    });

    const client = createClient({
      baseUrl: emu.url,
      auth: AppStrategy({ appId: app.appId, appSecret: app.appSecret, refreshToken: tokens.refreshToken }),
    });
    const s = await call<{ settings: Record<string, boolean> }>(client, SETTINGS, []);
    expect(s.settings).toHaveProperty('captchaRequired');
    // The strategy's own token belongs to the same instance.
    const sent = await client.auth.getAuthHeaders(client.transport);
    expect(await tokenInfo(sent.Authorization!)).toMatchObject({ subjectId: app.appId, instanceId });
  });

  it('a code works once, for its own app; a replayed code revokes the refresh token it gave', async () => {
    const app = await newApp();
    const other = await newApp();
    const { code } = await install(app.appId);

    const access = (who: { appId: string; appSecret: string }, more: object) =>
      post('/oauth/access', { client_id: who.appId, client_secret: who.appSecret, ...more });
    const byCode = { grant_type: 'authorization_code', code };

    // Another app's credentials cannot use the code (and do not spend it), nor a wrong secret.
    const stolen = await failure(exchangeAppInstallCode(bare(), { ...other, code }));
    expect(stolen).toMatchObject({ status: 400, code: 'invalid_grant' });
    const wrongSecret = await failure(
      exchangeAppInstallCode(bare(), { ...app, appSecret: 'APPSECRET.wrong', code }),
    );
    expect(wrongSecret).toMatchObject({ status: 401, code: 'invalid_client' });
    const refusals = [
      await access(other, byCode),
      await access({ ...app, appSecret: 'APPSECRET.wrong' }, byCode),
    ];

    const { refreshToken } = await exchangeAppInstallCode(bare(), { ...app, code });
    const byRefresh = { grant_type: 'refresh_token', refresh_token: refreshToken };
    // The refresh token works, and comes back unchanged.
    const renewed = await access(app, byRefresh);
    expect(renewed.status).toBe(200);
    expect(JSON.parse(renewed.text)).toMatchObject({ refresh_token: refreshToken });

    const replay = await failure(exchangeAppInstallCode(bare(), { ...app, code }));
    expect(replay).toMatchObject({ status: 400, code: 'invalid_grant' });
    // The refresh token of a replayed code no longer works.
    const revoked = await access(app, byRefresh);
    expect(revoked.status).toBe(400);
    expect(JSON.parse(revoked.text).details.applicationError.code).toBe('invalid_grant');

    // No refusal repeats a secret it was sent (the answer's whole text, not only the SDK's message).
    refusals.push(await access(app, byCode), revoked);
    for (const r of refusals) {
      expect(r.status).toBeGreaterThanOrEqual(400);
      for (const secret of [code, app.appSecret, other.appSecret, refreshToken])
        expect(r.text).not.toContain(secret);
    }
  });

  it('the installer sends codes only to a redirect URL the app registered', async () => {
    const app = await newApp();
    for (const redirectUrl of [
      `${APP_SITE}/elsewhere`,
      `${REDIRECT}/`,
      `${REDIRECT}?x=1`,
      `${REDIRECT}#frag`,
      'https://evil.example/installed',
    ]) {
      const page = await fetch(installer({ appId: app.appId, redirectUrl }));
      expect(page.status, redirectUrl).toBe(400);
      const post = await postForm(
        `${emu.url}/installer/install`,
        new URLSearchParams({ appId: app.appId, redirectUrl }).toString(),
      );
      expect(post.status, redirectUrl).toBe(400);
      expect(post.headers.get('location')).toBeNull();
    }
    expect((await fetch(installer({ appId: 'no-such-app', redirectUrl: REDIRECT }))).status).toBe(400);
    // A page on another site cannot post the consent form for the owner.
    const form = new URLSearchParams({ appId: app.appId, redirectUrl: REDIRECT }).toString();
    for (const headers of <Record<string, string>[]>[
      { 'sec-fetch-site': 'cross-site' },
      { 'sec-fetch-site': 'same-site' },
      { origin: 'https://evil.example' },
    ]) {
      const post = await postForm(`${emu.url}/installer/install`, form, headers);
      expect(post.status, JSON.stringify(headers)).toBe(403);
      expect(post.headers.get('location')).toBeNull();
    }
    // From the page itself it goes through.
    const own = await postForm(`${emu.url}/installer/install`, form, {
      'sec-fetch-site': 'same-origin',
      origin: emu.url,
    });
    expect(own.status).toBe(302);
    // An app without registered URLs cannot be installed through the page at all.
    const bare = await newApp([]);
    expect((await fetch(installer({ appId: bare.appId, redirectUrl: REDIRECT }))).status).toBe(400);
    // Unsafe URLs are refused when the app is created.
    const refused = await failure(newApp(['javascript:alert(1)']));
    expect(refused).toMatchObject({ status: 400, code: 'INVALID_ARGUMENT' });
  });

  it('strip_bound_session trades an app token for a new one of the same app and instance', async () => {
    const app = await newApp();
    const handed = createClient({
      baseUrl: emu.url,
      auth: AppStrategy({ appId: app.appId, appSecret: app.appSecret, instanceId: app.instanceId }),
    });
    const { Authorization: accessToken } = await handed.auth.getAuthHeaders(handed.transport);

    const client = createClient({
      baseUrl: emu.url,
      auth: AppStrategy({ appId: app.appId, appSecret: app.appSecret, accessToken: accessToken! }),
    });
    await call(client, SETTINGS, []);
    const own = (await client.auth.getAuthHeaders(client.transport)).Authorization!;
    expect(own).not.toBe(accessToken);
    expect(await tokenInfo(own)).toMatchObject({ subjectId: app.appId, instanceId: app.instanceId });

    // The wrong secret, a visitor's token, or nonsense: refused, and the call fails clearly.
    const visitor = visitorClient(emu);
    const visitorToken = (await visitor.auth.getAuthHeaders(visitor.transport)).Authorization!;
    for (const [secret, token, code] of [
      ['APPSECRET.wrong', accessToken!, 'invalid_client'],
      [app.appSecret, visitorToken, 'invalid_grant'],
      [app.appSecret, 'OauthNG.nonsense', 'invalid_grant'],
    ] as const) {
      const c = createClient({
        baseUrl: emu.url,
        auth: AppStrategy({ appId: app.appId, appSecret: secret, accessToken: token }),
      });
      const e = await failure(call(c, SETTINGS, []));
      expect(e).toMatchObject({ message: 'something went wrong', code });
      // The endpoint's own answer repeats neither the token nor the secret it was sent.
      const r = await post('/oauth2/token', {
        grant_type: 'strip_bound_session',
        client_secret: secret,
        access_token: token,
      });
      expect(r.status).toBeGreaterThanOrEqual(400);
      expect(r.text).not.toContain(token);
      expect(r.text).not.toContain(secret);
    }
  });

  it('the legacy endpoint refuses bad requests in the platform error shape', async () => {
    const app = await newApp();
    const missing = await post('/oauth/access', { grant_type: 'authorization_code', client_id: app.appId });
    expect(missing.status).toBe(400);
    expect(JSON.parse(missing.text).details.validationError.fieldViolations.length).toBeGreaterThan(0);
    const unknownGrant = await post('/oauth/access', {
      grant_type: 'password',
      client_id: app.appId,
      client_secret: 'x',
    });
    expect(unknownGrant.status).toBe(400);
    const badCode = await post('/oauth/access', {
      grant_type: 'authorization_code',
      code: 'OAC.nonsense',
      client_id: app.appId,
      client_secret: app.appSecret,
    });
    expect(badCode.status).toBe(400);
    expect(JSON.parse(badCode.text).details.applicationError.code).toBe('invalid_grant');
    expect(badCode.headers.get('cache-control')).toContain('no-store');
  });
});
