/**
 * The hosted pages behind redirect sessions. `GET /redirect/{sessionId}` looks up the session and
 * hands it to the page registered for its intent. Domains register their pages here:
 * @example
 * import { intentPages, htmlPage, callbackUrl } from '../redirects/intents.ts';
 * intentPages.set('ecomCheckout', async ({ session, emu, c }) => htmlPage(c, 'Checkout', '<p>…</p>'));
 * @module
 */
import type { RedirectCallbacks } from '@shopkit/sdk/redirects';
import type { Context } from 'hono';
import type { Emulator } from '../../context.ts';
import type { Sql } from '../../db/index.ts';

/** The intents of a redirect session (wire §5.2); exactly one is set per session. */
export const INTENTS = [
  'bookingsCheckout',
  'ecomCheckout',
  'eventsCheckout',
  'paidPlansCheckout',
  'login',
  'logout',
  'auth',
  'storesProduct',
  'bookingsBook',
  'ecomOrderPaymentRequest',
] as const;
export type IntentName = (typeof INTENTS)[number];

/** Callback URLs of a redirect session: the SDK's type of the wire message (§5.2). */
export type { RedirectCallbacks };

/** A redirect session as stored (table `redirect_sessions`). */
export interface StoredRedirectSession {
  id: string;
  /** Which intent the session carries. */
  intent: IntentName;
  /** The intent's own message, e.g. `{checkoutId}` for `ecomCheckout` (secrets removed). */
  request: Record<string, any>;
  callbacks: RedirectCallbacks;
  preferences: Record<string, unknown>;
  /** `origin` of the request body, or the browser's `Origin` header. */
  origin: string | null;
  /** The OAuth client the session belongs to (from the intent, or the caller's token). */
  clientId: string | null;
  /** Who created it. */
  visitorId: string | null;
  memberId: string | null;
  createdAt: string;
}

export type IntentPage = (ctx: {
  session: StoredRedirectSession;
  emu: Emulator;
  c: Context;
}) => Promise<Response> | Response;

/** Hosted pages by intent name (`ecomCheckout`, `login`, …). */
export const intentPages = new Map<string, IntentPage>();

/** Escapes text for HTML content and attribute values. */
export const escapeHtml = (s: unknown) =>
  String(s ?? '').replace(
    /[&<>"']/g,
    (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[ch]!,
  );

/**
 * A hosted HTML page that may not be framed (checklist 41), sent with `no-store` and no referrer.
 * `body` is trusted HTML: escape every value with `escapeHtml`.
 */
export function htmlPage(c: Context, title: string, body: string, status = 200) {
  return c.html(
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${escapeHtml(title)}</title>` +
      '<style>body{font:16px/1.5 system-ui,sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem}' +
      'label{display:block;margin:.5rem 0}input{display:block;width:100%;padding:.4rem}button{margin-top:.8rem;padding:.4rem 1rem}' +
      '.error{color:#a00}</style></head><body>' +
      `<h1>${escapeHtml(title)}</h1>${body}</body></html>`,
    status as 200,
    {
      'Content-Security-Policy': "frame-ancestors 'none'; form-action 'self'",
      'X-Frame-Options': 'DENY',
      'Cache-Control': 'no-store',
      'Referrer-Policy': 'no-referrer',
      'X-Content-Type-Options': 'nosniff',
    },
  );
}

/** The origins allowed for a client: `--allowed-origin` values plus the client's stored list. */
export async function allowedOrigins(emu: Emulator, sql: Sql, clientId: string | null): Promise<string[]> {
  const out = new Set(emu.config.allowedOrigins);
  if (clientId) {
    const rows = await sql.query<{ allowed_origins: string[] }>(
      'SELECT allowed_origins FROM oauth_clients WHERE client_id = $1',
      [clientId],
    );
    for (const o of rows[0]?.allowed_origins ?? []) out.add(o);
  }
  return [...out];
}

/**
 * Whether a URL may be redirected to for a client: it equals (as a string) one of the client's
 * registered redirect URIs, or it is an absolute http(s) URL without user info whose origin is
 * exactly one of the allowed origins. Anything else (relative tricks, `javascript:`, other hosts,
 * near-miss origins) is refused.
 */
export async function isAllowedRedirect(
  emu: Emulator,
  sql: Sql,
  clientId: string | null,
  url: string | undefined,
): Promise<boolean> {
  if (!url) return false;
  if (clientId) {
    const rows = await sql.query<{ redirect_uris: string[] }>(
      'SELECT redirect_uris FROM oauth_clients WHERE client_id = $1',
      [clientId],
    );
    if ((rows[0]?.redirect_uris ?? []).includes(url)) return true;
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return false;
  if (parsed.username || parsed.password) return false;
  // The URL must start with its own origin (no backslashes or odd forms normalised by the parser).
  if (!url.startsWith(parsed.origin + '/') && url !== parsed.origin) return false;
  return (await allowedOrigins(emu, sql, clientId)).includes(parsed.origin);
}

/** A callback URL of the session when it is allowed for its client, else `undefined`. */
export async function callbackUrl(
  emu: Emulator,
  session: StoredRedirectSession,
  key: keyof RedirectCallbacks,
): Promise<string | undefined> {
  const url = session.callbacks[key];
  return (await isAllowedRedirect(emu, emu.db, session.clientId, url)) ? url : undefined;
}

/** The page for an intent the emulator has no page for: says so, links back when allowed. */
export async function unavailablePage(ctx: Parameters<IntentPage>[0]) {
  const back = await callbackUrl(ctx.emu, ctx.session, 'postFlowUrl');
  return htmlPage(
    ctx.c,
    'Not available in the emulator',
    `<p>The hosted page for <code>${escapeHtml(ctx.session.intent)}</code> is not available in the emulator.</p>` +
      (back ? `<p><a href="${escapeHtml(back)}">Back to the site</a></p>` : ''),
    501,
  );
}
