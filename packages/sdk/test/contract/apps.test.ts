/**
 * Apps against the emulator over HTTP (wire §5.6, §6): the installer page and its one-shot code,
 * `exchangeAppInstallCode` at the legacy endpoint `/oauth/access`, `AppStrategy` with the refresh
 * token it gives, with a handed access token (`strip_bound_session`) and with an instance; each
 * refusal in the platform's error shape, without a secret in any message.
 */
import { testBackends } from '@shopkit/emulator/testing';
import { describe, expect, it } from 'vitest';
import {
  ApiKeyStrategy,
  AppStrategy,
  call,
  createClient,
  exchangeAppInstallCode,
  identity,
  type OpSpec,
} from '../../src/index.ts';
import { failure, postForm, setupEmulator, visitorClient } from './setup.ts';

const APP_SITE = 'https://app.example.test';
const REDIRECT = `${APP_SITE}/installed`;

/** An elevated call any app token may make: the site's settings. */
const SETTINGS: OpSpec = { method: 'GET', path: '/_api/emulator/v1/settings', elevated: true };

describe.each(testBackends())('apps (%s)', (backend) => {
  const emu = setupEmulator(backend);
  const admin = () => createClient({ baseUrl: emu.url, auth: ApiKeyStrategy({ apiKey: emu.demo.apiKey }) });
  const newApp = (redirectUrls = [REDIRECT]) =>
    call<{ appId: string; appSecret: string; instanceId: string }>(
      admin(),
      { method: 'POST', path: '/_api/emulator/v1/apps', args: ['m:'] },
      [{ name: 'Pricing & <Co>', redirectUrls }],
    );
  const installer = (params: Record<string, string>) =>
    `${emu.url}/installer/install?${new URLSearchParams(params)}`;
  const tokenInfo = (token: string) => identity.getTokenInfo(createClient({ baseUrl: emu.url }), token);

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

    const tokens = await exchangeAppInstallCode({ ...app, code }, { baseUrl: emu.url });
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

    // Another app's credentials cannot use the code (and do not spend it).
    const stolen = await failure(exchangeAppInstallCode({ ...other, code }, { baseUrl: emu.url }));
    expect(stolen).toMatchObject({ status: 400, code: 'invalid_grant' });
    const wrongSecret = await failure(
      exchangeAppInstallCode({ ...app, appSecret: 'APPSECRET.wrong', code }, { baseUrl: emu.url }),
    );
    expect(wrongSecret).toMatchObject({ status: 401, code: 'invalid_client' });

    const { refreshToken } = await exchangeAppInstallCode({ ...app, code }, { baseUrl: emu.url });
    const replay = await failure(exchangeAppInstallCode({ ...app, code }, { baseUrl: emu.url }));
    expect(replay.status).toBe(400);
    for (const e of [stolen, wrongSecret, replay]) {
      const said = JSON.stringify({ message: e.message, details: e.details, description: e.description });
      for (const secret of [code, app.appSecret, other.appSecret, refreshToken])
        expect(said).not.toContain(secret);
    }

    // The refresh token of a replayed code no longer works.
    const res = await fetch(`${emu.url}/oauth/access`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        grant_type: 'refresh_token',
        refresh_token: refreshToken,
        client_id: app.appId,
        client_secret: app.appSecret,
      }),
    });
    expect(res.status).toBe(400);
    expect((await res.json()).details.applicationError.code).toBe('invalid_grant');
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
      expect(JSON.stringify({ m: e.message, d: e.details })).not.toContain(token);
    }
  });

  it('the legacy endpoint refuses bad requests in the platform error shape', async () => {
    const app = await newApp();
    const post = (body: unknown) =>
      fetch(`${emu.url}/oauth/access`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const missing = await post({ grant_type: 'authorization_code', client_id: app.appId });
    expect(missing.status).toBe(400);
    expect((await missing.json()).details.validationError.fieldViolations.length).toBeGreaterThan(0);
    const unknownGrant = await post({ grant_type: 'password', client_id: app.appId, client_secret: 'x' });
    expect(unknownGrant.status).toBe(400);
    const badCode = await post({
      grant_type: 'authorization_code',
      code: 'OAC.nonsense',
      client_id: app.appId,
      client_secret: app.appSecret,
    });
    expect(badCode.status).toBe(400);
    expect((await badCode.json()).details.applicationError.code).toBe('invalid_grant');
    expect(badCode.headers.get('cache-control')).toContain('no-store');
  });
});
