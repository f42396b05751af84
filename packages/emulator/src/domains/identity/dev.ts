/**
 * Development endpoints and pages of the identity service: site settings, the mailbox (JSON and
 * a page), captcha tokens, owner approval, forced password resets, apps and OAuth clients, and
 * the hosted reset-password page the recovery e-mails link to.
 * @module
 */
import type { Context } from 'hono';
import type { Emulator } from '../../context.ts';
import { hashToken, newId, newToken } from '../../crypto.ts';
import { notFound } from '../../http/errors.ts';
import { FAMILY, noStore, type Router } from '../../http/router.ts';
import { z } from '../../http/validate.ts';
import { forgetClientOrigins, revokeMemberTokens } from '../platform/index.ts';
import {
  crossSiteRefusal,
  escapeHtml,
  htmlPage,
  isCrossSitePost,
  safeRedirectUrl,
  webOrigin,
} from '../redirects/intents.ts';
import { appInstanceId } from './apps.ts';
import { loginPagePath, recover } from './auth.ts';
import { authSession } from './oauth.ts';
import {
  canRecover,
  closeMemberChallenges,
  emailKey,
  getSettings,
  identityOf,
  MAX_PASSWORD,
  type MemberRow,
  MIN_PASSWORD,
  newCaptchaToken,
  setSettings,
} from './store.ts';

const E = FAMILY.none;

export function devRoutes(router: Router, emu: Emulator) {
  router.route({
    method: 'GET',
    family: E,
    path: '/_api/emulator/v1/settings',
    access: 'elevated',
    handler: async () => ({ settings: await getSettings(emu, emu.db) }),
  });
  router.route({
    method: 'POST',
    family: E,
    path: '/_api/emulator/v1/settings',
    access: 'elevated',
    schema: z
      .object({
        emailVerificationRequired: z.boolean().optional(),
        ownerApprovalRequired: z.boolean().optional(),
        captchaRequired: z.boolean().optional(),
        hideAccountExistence: z.boolean().optional(),
        anonymousTokensPerMinute: z.number().int().min(0).max(1_000_000).optional(),
        rotateRefreshTokens: z.boolean().optional(),
      })
      .strict(),
    async handler({ msg }) {
      await emu.db.tx((sql) => setSettings(sql, msg));
      return { settings: await getSettings(emu, emu.db) };
    },
  });

  router.route({
    method: 'GET',
    family: E,
    path: '/_api/emulator/v1/mailbox',
    access: 'public',
    schema: z.object({ to: z.string().max(254).optional() }),
    async handler({ msg, c }) {
      // Its mails carry verification codes and reset links: never kept by a cache, as the
      // mailbox page is not (checklist 42).
      noStore(c);
      return { messages: await mails(emu, msg.to) };
    },
  });

  router.route({
    method: 'POST',
    family: E,
    path: '/_api/emulator/v1/captcha-token',
    access: 'public',
    async handler({ c }) {
      noStore(c);
      return { token: await newCaptchaToken(emu, emu.db) };
    },
  });

  /** An owner action on a member; `endsSessions` also revokes every token the member holds. */
  const memberChange = (path: string, sqlSet: string, opts: { endsSessions?: boolean } = {}) =>
    router.route({
      method: 'POST',
      family: E,
      path,
      access: 'elevated',
      async handler({ msg }) {
        const row = await emu.db.tx(async (sql) => {
          // The member row first, then its tokens: the order the grants lock them in.
          const rows = await sql.query<MemberRow>(
            `UPDATE members SET ${sqlSet}, revision = revision + 1, updated_at = $2 WHERE id = $1 RETURNING *`,
            [String((msg as { id: string }).id), emu.now()],
          );
          if (rows[0] && opts.endsSessions) {
            await revokeMemberTokens(emu, sql, rows[0].id);
            await closeMemberChallenges(emu, sql, rows[0].id);
          }
          return rows[0];
        });
        if (!row) throw notFound('IDENTITY_NOT_FOUND', 'No identity with this id');
        return { identity: identityOf(row) };
      },
    });
  // The owner approves a pending member (owner-approval setting).
  memberChange(
    '/_api/emulator/v1/members/{id}/approve',
    `status_reasons = (SELECT coalesce(jsonb_agg(r), '[]'::jsonb) FROM jsonb_array_elements_text(status_reasons) r WHERE r <> 'PENDING_ADMIN_APPROVAL_REQUIRED'),
     status = CASE WHEN status_reasons <@ '["PENDING_ADMIN_APPROVAL_REQUIRED"]'::jsonb AND status = 'PENDING' THEN 'ACTIVE' ELSE status END`,
  );
  memberChange('/_api/emulator/v1/members/{id}/require-password-reset', 'reset_required = true');
  // A blocked member is logged out everywhere: access tokens stop working, refresh tokens are refused.
  memberChange('/_api/emulator/v1/members/{id}/block', "status = 'BLOCKED'", { endsSessions: true });

  router.route({
    method: 'POST',
    family: E,
    path: '/_api/emulator/v1/apps',
    access: 'elevated',
    schema: z.object({
      name: z.string().min(1).max(200),
      /** Where the installer page may send the owner back with an install code (exact URLs). */
      redirectUrls: z.array(safeRedirectUrl()).max(20).optional(),
    }),
    async handler({ msg, c }) {
      // The app's secret: never kept by a cache (checklist 42).
      noStore(c);
      const appId = newId();
      const appSecret = newToken('APPSECRET.');
      await emu.db.query(
        'INSERT INTO apps (app_id, secret_hash, name, redirect_urls) VALUES ($1, $2, $3, $4)',
        [appId, hashToken(appSecret), msg.name, JSON.stringify(msg.redirectUrls ?? [])],
      );
      // The instance of the app on this site, for AppStrategy's `instanceId`.
      return { appId, appSecret, instanceId: appInstanceId(emu) };
    },
  });

  router.route({
    method: 'POST',
    family: E,
    path: '/_api/emulator/v1/oauth-clients',
    access: 'elevated',
    schema: z.object({
      name: z.string().min(1).max(200),
      // Only what the redirect rules can ever accept (checklists 39, 40): stored junk would be echoed.
      allowedOrigins: z.array(webOrigin()).max(50).default([]),
      redirectUris: z.array(safeRedirectUrl()).max(50).default([]),
    }),
    async handler({ msg }) {
      const clientId = newId();
      await emu.db.query(
        'INSERT INTO oauth_clients (client_id, name, allowed_origins, redirect_uris) VALUES ($1,$2,$3,$4)',
        [clientId, msg.name, JSON.stringify(msg.allowedOrigins), JSON.stringify(msg.redirectUris)],
      );
      // CORS reads the clients' origins from a cache; this client's count from now on.
      forgetClientOrigins(emu);
      return { clientId };
    },
  });

  router.page('GET', '/mailbox', async (c) => {
    const to = c.req.query('to');
    const list = await mails(emu, to);
    const rows = list
      .map(
        (m) =>
          `<article><h2>${escapeHtml(m.subject)}</h2><p><small>to ${escapeHtml(m.to)}, ${escapeHtml(m.createdDate)}</small></p>` +
          `<p>${escapeHtml(m.text)}</p>${m.link ? `<p><a href="${escapeHtml(m.link)}">Open the link</a></p>` : ''}</article>`,
      )
      .join('');
    return htmlPage(
      c,
      'Development mailbox',
      `<p>Every e-mail the emulator sends lands here.</p><form><label>To<input name="to" value="${escapeHtml(to ?? '')}"></label><button>Filter</button></form>${rows || '<p>No e-mails.</p>'}`,
    );
  });

  const resetForm = (c: Context, token: string, error?: string) =>
    htmlPage(
      c,
      'Choose a new password',
      (error ? `<p class="error" role="alert" id="form-error">${escapeHtml(error)}</p>` : '') +
        `<form method="post" action="/reset-password"><input type="hidden" name="token" value="${escapeHtml(token)}">` +
        `<label>New password<input name="password" type="password" autocomplete="new-password" minlength="${MIN_PASSWORD}" maxlength="${MAX_PASSWORD}" required autofocus` +
        `${error ? ' aria-invalid="true" aria-describedby="form-error"' : ''}></label>` +
        '<button>Save</button></form>',
      200,
      { error: !!error },
    );
  /**
   * The link out of a finished reset: back to the hosted login page the reset was asked for on
   * (its login goes on there, to a code and the state of its request) while that login is still
   * open, else nothing to follow but the advice; or to the site's return address.
   */
  const wayBack = async (redirectUrl: string | null) => {
    const login = redirectUrl?.startsWith('/oauth2/authorize?')
      ? new URLSearchParams(redirectUrl.slice(redirectUrl.indexOf('?'))).get('redirect_session_id')
      : undefined;
    if (login === undefined)
      return redirectUrl ? `<p><a href="${escapeHtml(redirectUrl)}">Back to the site</a></p>` : '';
    if (login && (await authSession(emu, login)))
      return `<p><a href="${escapeHtml(loginPagePath(login))}">Back to log in</a></p>`;
    return '<p>Go back to the site to log in with your new password.</p>';
  };
  const linkExpired = (c: Context) =>
    htmlPage(c, 'Link expired', '<p class="error">This reset link is invalid, used or expired.</p>', 400);
  // A dead link (used, expired, unknown) says so at once: its form took a new password only to
  // refuse it after.
  router.page('GET', '/reset-password', async (c) => {
    const token = c.req.query('token') ?? '';
    return (await canRecover(emu, emu.db, token)) ? resetForm(c, token) : linkExpired(c);
  });
  router.page('POST', '/reset-password', async (c) => {
    // Posted from the reset page itself; another site's post is refused, as on the other forms.
    if (isCrossSitePost(emu, c)) return crossSiteRefusal(c);
    const form = (await c.req.parseBody()) as Record<string, string>;
    const token = String(form.token ?? '');
    const pw = String(form.password ?? '');
    // A link that died after its form was shown (used in another tab, replaced by a newer mail, a
    // password change, its hour over) says so now, not after a password of the right length.
    if (!(await canRecover(emu, emu.db, token))) return linkExpired(c);
    if (pw.length < MIN_PASSWORD || pw.length > MAX_PASSWORD)
      return resetForm(c, token, `The password must have ${MIN_PASSWORD} to ${MAX_PASSWORD} characters.`);
    try {
      const { redirectUrl } = await recover(emu, token, pw, { type: 'NONE', siteId: emu.siteId });
      return htmlPage(c, 'Password changed', `<p>Your password is changed.</p>${await wayBack(redirectUrl)}`);
    } catch {
      return linkExpired(c);
    }
  });
}

async function mails(emu: Emulator, to: string | undefined) {
  const rows = await emu.db.query(
    `SELECT id, to_email, subject, body, code, link, created_at FROM mailbox
      ${to?.trim() ? 'WHERE lower(to_email) = $1' : ''} ORDER BY seq DESC LIMIT 200`,
    // Compared as member lookups compare addresses (`emailKey`): case and outer spaces aside.
    to?.trim() ? [emailKey(to)] : [],
  );
  return rows.map((r) => ({
    id: r.id as string,
    to: r.to_email as string,
    subject: r.subject as string,
    text: r.body as string,
    code: (r.code as string | null) ?? undefined,
    link: (r.link as string | null) ?? undefined,
    createdDate: new Date(r.created_at).toISOString(),
  }));
}
