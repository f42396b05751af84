/**
 * Apps and their tokens (wire §5.6, §6): the client-credentials grant, `strip_bound_session`
 * (a token of the app's in place of one it was handed), the installer page that adds an app to the
 * site and sends the browser back to the app's registered redirect URL with a one-shot code, and
 * the legacy token endpoint `POST /oauth/access`, which trades that code (or the refresh token it
 * gave) for an access token. Every app is installed on the one site this emulator serves; its
 * instance id is the site id.
 * @module
 */
import type { Context, Hono } from 'hono';
import type { Emulator } from '../../context.ts';
import { hashToken, newToken, safeEqual } from '../../crypto.ts';
import type { Sql } from '../../db/index.ts';
import { limitBody } from '../../http/decode.ts';
import { appError } from '../../http/errors.ts';
import { FAMILY, MAX_FORM_BYTES, noStore, type Router } from '../../http/router.ts';
import { z } from '../../http/validate.ts';
import { grants, invalidGrant } from '../platform/index.ts';
import {
  crossSiteRefusal,
  escapeHtml,
  hasSafeRedirectForm,
  htmlPage,
  invalidOrMissing,
  isCrossSitePost,
  refusalPage,
} from '../redirects/intents.ts';

/** The instance id of an app installed on this emulator's site: the site id. */
export const appInstanceId = (emu: Emulator) => emu.siteId;

/** Install codes live 10 minutes and work once. */
const APP_CODE_TTL_MS = 10 * 60 * 1000;
/** The installer page's path (the platform serves it on `www.wix.com`; the emulator on its own origin). */
export const INSTALLER_PATH = '/installer/install';

const invalidClient = () => appError(401, 'invalid_client', 'The app id or secret is wrong');

interface AppRow {
  app_id: string;
  name: string;
  secret_hash: string;
  redirect_urls: string[];
}

const appById = async (sql: Sql, appId: string) =>
  (await sql.query<AppRow>('SELECT * FROM apps WHERE app_id = $1', [appId]))[0];

/** The app whose id and secret these are; anything else is `invalid_client` (401). */
async function authenticateApp(sql: Sql, appId: unknown, secret: unknown): Promise<AppRow> {
  if (typeof appId !== 'string' || typeof secret !== 'string' || !appId || !secret)
    throw appError(400, 'invalid_client', 'client_id and client_secret are required');
  const app = await appById(sql, appId);
  if (!app || !safeEqual(app.secret_hash, hashToken(secret))) throw invalidClient();
  return app;
}

/** A new access token for an app on an instance (`instanceId` null: the app itself, no instance). */
async function issueAppToken(emu: Emulator, sql: Sql, appId: string, instanceId: string | null) {
  const access = newToken('OauthNG.');
  const ttl = emu.config.accessTokenTtl;
  await sql.query(
    `INSERT INTO access_tokens (token_hash, client_id, subject_type, app_id, instance_id, expires_at, created_at)
     VALUES ($1,$2,'APP',$2,$3,$4,$5)`,
    [hashToken(access), appId, instanceId, new Date(emu.now().getTime() + ttl * 1000), emu.now()],
  );
  return { access_token: access, expires_in: ttl, token_type: 'Bearer' };
}

/** Grants of `/oauth2/token` for apps. */
function appGrants() {
  grants.set('client_credentials', async (emu, body) => {
    const { clientId, clientSecret, instanceId } = body;
    if (instanceId !== undefined && typeof instanceId !== 'string')
      throw appError(400, 'invalid_request', 'instance_id must be a string');
    const app = await authenticateApp(emu.db, clientId, clientSecret);
    // Apps are installed on the one site this emulator serves, whose instance id is the site id
    // (as in webhook envelopes); a token for another instance cannot be granted here.
    if (instanceId && instanceId !== appInstanceId(emu))
      throw invalidGrant('The app is not installed on this instance');
    return issueAppToken(emu, emu.db, app.app_id, instanceId || null);
  });

  // `AppStrategy` with an `accessToken` (wire §5.6): the token an app was handed (by a dashboard
  // page, say) traded for one of the app's own on the same instance. The emulator binds no token to
  // a user session, so the new token differs from the old only in being new.
  grants.set('strip_bound_session', async (emu, body) => {
    const { accessToken, clientSecret } = body;
    if (typeof accessToken !== 'string' || !accessToken)
      throw appError(400, 'invalid_request', 'access_token is required');
    const [token] = await emu.db.query<{ app_id: string | null; instance_id: string | null }>(
      "SELECT app_id, instance_id FROM access_tokens WHERE token_hash = $1 AND expires_at > $2 AND subject_type = 'APP'",
      [hashToken(accessToken), emu.now()],
    );
    if (!token?.app_id) throw invalidGrant("The access token is not a valid app's token");
    const app = await authenticateApp(emu.db, token.app_id, clientSecret);
    return issueAppToken(emu, emu.db, app.app_id, token.instance_id);
  });
}

/** The legacy token endpoint's request (wire §5.6): an install code, or the refresh token it gave. */
const accessSchema = z.discriminatedUnion('grant_type', [
  z.object({
    grant_type: z.literal('authorization_code'),
    code: z.string().min(1).max(512),
    client_id: z.string().min(1).max(256),
    client_secret: z.string().min(1).max(512),
  }),
  z.object({
    grant_type: z.literal('refresh_token'),
    refresh_token: z.string().min(1).max(512),
    client_id: z.string().min(1).max(256),
    client_secret: z.string().min(1).max(512),
  }),
]);

/** The installer's form and query: which app, where it goes back to, and the app's own state. */
const installSchema = z.object({
  appId: z.string().min(1).max(256),
  redirectUrl: z.string().min(1).max(2048),
  state: z.string().max(1024).optional(),
  /** The platform's installer takes the token it gave the app's URL; the emulator needs none. */
  token: z.string().max(4096).optional(),
});
type Install = z.output<typeof installSchema>;

/**
 * The app and redirect URL of an install request, or why it cannot go on. The redirect URL must
 * be one the app registered, compared as strings, and of safe form (no fragment, no user info, no
 * dot segments): the code goes wherever it points.
 */
async function installTarget(
  emu: Emulator,
  input: Record<string, unknown>,
): Promise<{ refused: string } | { app: AppRow; install: Install }> {
  const parsed = installSchema.safeParse(input);
  if (!parsed.success) return { refused: invalidOrMissing(parsed.error) };
  const app = await appById(emu.db, parsed.data.appId);
  if (!app) return { refused: 'No app has this id.' };
  if (!hasSafeRedirectForm(parsed.data.redirectUrl) || !app.redirect_urls.includes(parsed.data.redirectUrl))
    return { refused: 'The redirect URL is not registered for this app.' };
  return { app, install: parsed.data };
}

function installerPage(c: Context, app: AppRow, install: Install) {
  const hidden = Object.entries(install)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `<input type="hidden" name="${escapeHtml(k)}" value="${escapeHtml(v)}">`)
    .join('');
  return htmlPage(
    c,
    `Add ${app.name} to your site`,
    `<p>${escapeHtml(app.name)} asks to be added to this site. It will be able to act on the site as an app.</p>` +
      `<form method="post" action="${INSTALLER_PATH}">${hidden}<button type="submit">Add to site</button></form>`,
  );
}

export function appRoutes(router: Router, emu: Emulator) {
  const app = (router as unknown as { app: Hono }).app;
  appGrants();

  app.get(INSTALLER_PATH, async (c) => {
    const t = await installTarget(emu, c.req.query());
    if ('refused' in t) return refusalPage(c, 'Cannot add this app', t.refused);
    return installerPage(c, t.app, t.install);
  });

  // The owner's consent: the app is added and the browser goes back with a one-shot code.
  // A post from another site is refused: a page elsewhere must not install an app unseen.
  app.post(INSTALLER_PATH, limitBody(MAX_FORM_BYTES), async (c) => {
    if (isCrossSitePost(emu, c)) return crossSiteRefusal(c);
    const form = (await c.req.parseBody()) as Record<string, unknown>;
    const t = await installTarget(emu, form);
    if ('refused' in t) return refusalPage(c, 'Cannot add this app', t.refused);
    const code = newToken('OAC.');
    const instanceId = appInstanceId(emu);
    await emu.db.query(
      'INSERT INTO app_codes (code_hash, app_id, instance_id, expires_at) VALUES ($1, $2, $3, $4)',
      [hashToken(code), t.app.app_id, instanceId, new Date(emu.now().getTime() + APP_CODE_TTL_MS)],
    );
    const back = new URL(t.install.redirectUrl);
    back.searchParams.set('code', code);
    back.searchParams.set('instanceId', instanceId);
    if (t.install.state !== undefined) back.searchParams.set('state', t.install.state);
    noStore(c);
    c.header('Referrer-Policy', 'no-referrer');
    return c.redirect(back.toString(), 302);
  });

  router.route({
    method: 'POST',
    family: FAMILY.oauth,
    path: '/oauth/access',
    access: 'public',
    body: 'json-or-form',
    schema: accessSchema,
    async handler({ msg, c }) {
      noStore(c);
      const out = await emu.db.tx(async (sql) => {
        const app = await authenticateApp(sql, msg.client_id, msg.client_secret);
        if (msg.grant_type === 'refresh_token') {
          const [rt] = await sql.query<{ app_id: string; instance_id: string; revoked_at: Date | null }>(
            'SELECT app_id, instance_id, revoked_at FROM app_refresh_tokens WHERE token_hash = $1',
            [hashToken(msg.refresh_token)],
          );
          if (!rt || rt.revoked_at || rt.app_id !== app.app_id)
            return { error: 'The refresh token is invalid or revoked' };
          // The legacy endpoint's refresh tokens last until revoked, and come back unchanged.
          const token = await issueAppToken(emu, sql, app.app_id, rt.instance_id);
          return { tokens: { ...token, refresh_token: msg.refresh_token } };
        }
        const codeHash = hashToken(msg.code);
        const [row] = await sql.query<{
          app_id: string;
          instance_id: string;
          expires_at: Date;
          used_at: Date | null;
        }>('SELECT * FROM app_codes WHERE code_hash = $1 FOR UPDATE', [codeHash]);
        if (!row || row.app_id !== app.app_id) return { error: 'The authorization code is invalid' };
        if (row.used_at) {
          // Replay: the refresh token the code gave is revoked too (as for member codes, checklist 36).
          await sql.query('UPDATE app_refresh_tokens SET revoked_at = $2 WHERE code_hash = $1', [
            codeHash,
            emu.now(),
          ]);
          return { error: 'The authorization code was already used' };
        }
        if (new Date(row.expires_at) <= emu.now()) return { error: 'The authorization code has expired' };
        await sql.query('UPDATE app_codes SET used_at = $2 WHERE code_hash = $1', [codeHash, emu.now()]);
        const refresh = newToken('OauthNG.');
        await sql.query(
          'INSERT INTO app_refresh_tokens (token_hash, app_id, instance_id, code_hash, created_at) VALUES ($1, $2, $3, $4, $5)',
          [hashToken(refresh), app.app_id, row.instance_id, codeHash, emu.now()],
        );
        const token = await issueAppToken(emu, sql, app.app_id, row.instance_id);
        return { tokens: { ...token, refresh_token: refresh } };
      });
      if ('error' in out) throw invalidGrant(out.error!);
      return out.tokens;
    },
  });
}
