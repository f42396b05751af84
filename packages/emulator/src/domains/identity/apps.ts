/**
 * Apps and their tokens (wire §5.6, §6): the client-credentials grant, `strip_bound_session`
 * (a token of the app's in place of one it was handed), the installer page that adds an app to the
 * site and sends the browser back to the app's registered redirect URL with a one-shot code, and
 * the legacy token endpoint `POST /oauth/access`, which trades that code (or the refresh token it
 * gave) for an access token. Every app is installed on the one site this emulator serves; its
 * instance id is the site id.
 * @module
 */
import type { Context } from 'hono';
import type { Emulator } from '../../context.ts';
import { hashToken, safeEqual } from '../../crypto.ts';
import type { Sql } from '../../db/index.ts';
import { appError } from '../../http/errors.ts';
import { FAMILY, noStore, type Router } from '../../http/router.ts';
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
import {
  type AppRow,
  appById,
  appTokenOwner,
  issueAppToken,
  newInstallCode,
  redeemInstallCode,
  refreshAppToken,
} from './app-store.ts';

/** The instance id of an app installed on this emulator's site: the site id. */
export const appInstanceId = (emu: Emulator) => emu.siteId;

/** The installer page's path (the platform serves it on `www.wix.com`; the emulator on its own origin). */
export const INSTALLER_PATH = '/installer/install';

const invalidClient = () => appError(401, 'invalid_client', 'The app id or secret is wrong');

/** The app whose id and secret these are; anything else is `invalid_client` (401). */
async function authenticateApp(sql: Sql, appId: unknown, secret: unknown): Promise<AppRow> {
  if (typeof appId !== 'string' || typeof secret !== 'string' || !appId || !secret)
    throw appError(400, 'invalid_client', 'client_id and client_secret are required');
  const app = await appById(sql, appId);
  if (!app || !safeEqual(app.secret_hash, hashToken(secret))) throw invalidClient();
  return app;
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
    const token = await appTokenOwner(emu, accessToken);
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
    200,
    // The consent ends with a redirect to the app's registered URL, which `form-action` must allow.
    { formTargets: [install.redirectUrl] },
  );
}

export function appRoutes(router: Router, emu: Emulator) {
  appGrants();

  router.page('GET', INSTALLER_PATH, async (c) => {
    const t = await installTarget(emu, c.req.query());
    if ('refused' in t) return refusalPage(c, 'Cannot add this app', t.refused);
    return installerPage(c, t.app, t.install);
  });

  // The owner's consent: the app is added and the browser goes back with a one-shot code.
  // A post from another site is refused: a page elsewhere must not install an app unseen.
  router.page('POST', INSTALLER_PATH, async (c) => {
    if (isCrossSitePost(emu, c)) return crossSiteRefusal(c);
    const form = (await c.req.parseBody()) as Record<string, unknown>;
    const t = await installTarget(emu, form);
    if ('refused' in t) return refusalPage(c, 'Cannot add this app', t.refused);
    const instanceId = appInstanceId(emu);
    const code = await newInstallCode(emu, t.app.app_id, instanceId);
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
        const { app_id } = await authenticateApp(sql, msg.client_id, msg.client_secret);
        return msg.grant_type === 'refresh_token'
          ? refreshAppToken(emu, sql, app_id, msg.refresh_token)
          : redeemInstallCode(emu, sql, app_id, msg.code);
      });
      if ('error' in out) throw invalidGrant(out.error);
      return out.tokens;
    },
  });
}
