/**
 * The hosted pages behind redirect sessions. `GET /redirect/{sessionId}` looks up the session and
 * hands it to the page registered for its intent. Domains register their pages here:
 * @example
 * import { intentPages, htmlPage, callbackUrl } from '../redirects/intents.ts';
 * intentPages.set('ecomCheckout', async ({ session, emu, c }) => htmlPage(c, 'Checkout', '<p>…</p>'));
 * @module
 */
import { createHash } from 'node:crypto';
import type { RedirectCallbacks } from '@shopkit/sdk/redirects';
import type { Context } from 'hono';
import type { Emulator } from '../../context.ts';
import type { Sql } from '../../db/index.ts';
import { z } from '../../http/validate.ts';

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
  /**
   * `origin` of the request body, or the browser's `Origin` header when it is an http(s) origin
   * (`isWebOrigin`); sessions stored by older emulators may hold anything, so check before use.
   */
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
 * The stylesheet of every hosted page (allowed by its hash, not `'unsafe-inline'`). `border-box`:
 * a full-width field's padding and border stayed outside its 100%, wider than a 360 px phone (the
 * page scrolled sideways); long words (a link in a mail) wrap instead.
 */
const PAGE_STYLE =
  '*{box-sizing:border-box}' +
  'body{font:16px/1.5 system-ui,sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem;overflow-wrap:anywhere}' +
  'label{display:block;margin:.5rem 0}input{display:block;width:100%;padding:.4rem}button{margin-top:.8rem;padding:.4rem 1rem}' +
  '.error{color:#a00}';

/**
 * The script of every hosted page with a form that posts (allowed by its hash): a second submit
 * of a form while the first is on its way is dropped. Browsers sent both (a double click), and
 * the second answer was the one shown: a code or reset link spent by the first was "invalid", a
 * sign-up "already exists". Cleared when the page comes back from the history cache.
 */
const SUBMIT_ONCE =
  "document.addEventListener('submit',function(e){var f=e.target;if(f.dataset.sent)e.preventDefault();else f.dataset.sent='1'});" +
  "addEventListener('pageshow',function(){document.querySelectorAll('form').forEach(function(f){delete f.dataset.sent})})";

/** A CSP hash source for the exact text of an inline `<style>` or `<script>` element. */
export const cspHash = (text: string) =>
  `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

/** What a hosted page may load or send beyond nothing (see `pagePolicy`). */
export interface PagePolicy {
  /** Origins a form of the page may be redirected to after it posts (besides the page's own). */
  formTargets?: Array<string | undefined>;
  /** Origins the page's images come from. */
  images?: Array<string | undefined>;
  /** The page's inline stylesheets and scripts, allowed by hash. */
  styles?: string[];
  scripts?: string[];
  /** Who may frame the page: `'none'` unless an origin is given (the web_message answer). */
  frameAncestors?: string;
  /** `form-action` when the page has no form at all: `'none'`. */
  noForms?: boolean;
}

/**
 * The Content-Security-Policy of a hosted page: nothing by default (`default-src 'none'`, no
 * `<base>`), its own inline stylesheets and scripts by hash only, images only from the origins
 * given, forms only to itself and then to the origins its flow ends at (browsers check
 * `form-action` on each redirect after a submission too), framed by no one (checklist 41) or by
 * exactly the one origin given. Only http(s) origins become sources.
 */
export function pagePolicy(p: PagePolicy = {}): string {
  const origins = (list: Array<string | undefined> = []) =>
    [
      ...new Set(list.filter((o): o is string => !!o && URL.canParse(o)).map((o) => new URL(o).origin)),
    ].filter(isWebOrigin);
  const images = origins(p.images);
  const styles = (p.styles ?? []).map(cspHash);
  const scripts = (p.scripts ?? []).map(cspHash);
  return [
    "default-src 'none'",
    ...(styles.length ? [`style-src ${styles.join(' ')}`] : []),
    ...(scripts.length ? [`script-src ${scripts.join(' ')}`] : []),
    ...(images.length ? [`img-src ${images.join(' ')}`] : []),
    "base-uri 'none'",
    `form-action ${p.noForms ? "'none'" : ["'self'", ...origins(p.formTargets)].join(' ')}`,
    `frame-ancestors ${p.frameAncestors && isWebOrigin(p.frameAncestors) ? p.frameAncestors : "'none'"}`,
  ].join('; ');
}

/**
 * The body of a page whose session is unknown or expired: no site is known to link back to, so it
 * says how to go on.
 */
export const EXPIRED_LINK =
  "<p>This link is unknown or has expired.</p><p>Go back to the shop's site and start again from there.</p>";

/**
 * A hosted HTML page that may not be framed (checklist 41), sent with `no-store`, no referrer and
 * a strict policy (`pagePolicy`): `policy` names the form targets, image origins and any extra
 * stylesheet the page needs. `body` is trusted HTML: escape every value with `escapeHtml`; it may
 * hold no `<style>`, `<script>`, event handler or `style` attribute (the policy refuses them).
 */
export function htmlPage(
  c: Context,
  title: string,
  body: string,
  status = 200,
  policy: Omit<PagePolicy, 'styles' | 'scripts' | 'frameAncestors'> & {
    style?: string;
    /** The page shows a form again with what was wrong: its title says so first (`Error: …`). */
    error?: boolean;
  } = {},
) {
  const { style, error, ...rest } = policy;
  const styles = [PAGE_STYLE, ...(style ? [style] : [])];
  const scripts = /<form method="post"/.test(body) ? [SUBMIT_ONCE] : [];
  return c.html(
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${error ? 'Error: ' : ''}${escapeHtml(title)}</title>` +
      `${styles.map((s) => `<style>${s}</style>`).join('')}</head><body>` +
      `<h1>${escapeHtml(title)}</h1>${body}${scripts.map((s) => `<script>${s}</script>`).join('')}</body></html>`,
    status as 200,
    {
      'Content-Security-Policy': pagePolicy({ ...rest, styles, scripts }),
      'X-Frame-Options': 'DENY',
      'Cache-Control': 'no-store',
      'Referrer-Policy': 'no-referrer',
      'X-Content-Type-Options': 'nosniff',
      'Set-Cookie': `${PAGE_COOKIE}; Path=/; HttpOnly; SameSite=Strict`,
    },
  );
}

/**
 * The cookie every hosted page sets, `SameSite=Strict`: browsers send it with a form post from a
 * page of this site, never with one from another site. It tells a post of the pages' own from a
 * forged one where no `Sec-Fetch-Site` says so (Chromium sends none over plain http to a host other
 * than localhost, as a LAN address or a container name is) and the origin is `null`, as it is for
 * the pages' own posts (they send no referrer) and for an attacker's page that sends none either.
 */
const PAGE_COOKIE = 'shopkit_page=1';
const hasPageCookie = (c: Context) => /(?:^|;)\s*shopkit_page=1\s*(?:;|$)/.test(c.req.header('cookie') ?? '');

/**
 * Whether a hosted page's form post came from another site: such a post is refused (the forms
 * post back to their own page). Browsers say so in `Sec-Fetch-Site`; without it, a real `Origin`
 * must be this emulator's, and an `Origin: null` (the pages send no referrer, so their own posts
 * may carry it) must come with the pages' `SameSite=Strict` cookie. A post without `Origin` is
 * no browser's (they all send one with a POST), so no visitor's browser can be made to send it.
 */
export function isCrossSitePost(emu: Emulator, c: Context): boolean {
  const site = c.req.header('sec-fetch-site');
  if (site) return site !== 'same-origin' && site !== 'none';
  const origin = c.req.header('origin');
  if (!origin) return false;
  if (origin === 'null') return !hasPageCookie(c);
  return ![new URL(c.req.url).origin, new URL(emu.config.publicUrl).origin].includes(origin);
}

/** A hosted page's refusal of a request it cannot serve (400): `reason` is text, escaped here. */
export const refusalPage = (c: Context, title: string, reason: string) =>
  htmlPage(c, title, `<p class="error">${escapeHtml(reason)}</p>`, 400);

/** What a hosted page says of a request that fails its schema: the fields at fault. */
export const invalidOrMissing = (error: z.ZodError) =>
  `Invalid or missing: ${error.issues.map((i) => i.path.join('.')).join(', ')}.`;

/** The page a refused cross-site form post gets (403). */
export const crossSiteRefusal = (c: Context) =>
  htmlPage(c, 'Not allowed', '<p class="error">This form can only be sent from its own page.</p>', 403);

/** An absolute http(s) URL of safe form (`hasSafeRedirectForm`), for stored redirect URLs. */
export const safeRedirectUrl = () =>
  z
    .string()
    .max(2048)
    .refine(
      (u) => hasSafeRedirectForm(u),
      'must be an absolute http(s) URL without user info, fragment, dot segments or backslashes',
    );

/**
 * Whether a value is a serialized http(s) origin (`https://shop.example`, `http://localhost:5173`):
 * scheme, host and port as the URL parser writes them, nothing else. Only such a value may become a
 * `postMessage` target or a `frame-ancestors` source: `*`, `null`, paths, `;` or line breaks never.
 */
export function isWebOrigin(value: unknown): value is string {
  if (typeof value !== 'string' || !URL.canParse(value)) return false;
  const u = new URL(value);
  return (u.protocol === 'http:' || u.protocol === 'https:') && u.origin === value;
}

/** A request field that must be a web origin (`isWebOrigin`). */
export const webOrigin = () =>
  z
    .string()
    .max(300)
    .refine(isWebOrigin, 'must be an http(s) origin: scheme, host and port only, as https://shop.example');

/**
 * Whether a URL is written so that every reader sees the same place (checklist 39): an absolute
 * http(s) URL whose scheme, host, port and path are exactly as the URL parser writes them, with no
 * user info, backslash, whitespace or control character, no dot segment (`/a/../b`, `%2e%2e`) and
 * no empty segment (`//evil.example`). A fragment is refused unless `fragment` is `'allowed'`
 * (callback URLs may carry one; an OAuth redirect URI must not, RFC 6749 §3.1.2).
 */
export function hasSafeRedirectForm(url: string, fragment: 'refused' | 'allowed' = 'refused'): boolean {
  // Browsers strip tabs and newlines and read `\` as `/`: what they follow is not what was checked.
  if ([...url].some((ch) => ch <= ' ' || ch === '\x7f' || ch === '\\')) return false;
  if ((fragment === 'refused' && url.includes('#')) || !URL.canParse(url)) return false;
  const u = new URL(url);
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return false;
  if (u.username || u.password) return false;
  if (url === u.origin) return true;
  // `HTTP://`, `https:host`, `host:80` and the like do not start with the origin the parser writes.
  if (!url.startsWith(`${u.origin}/`)) return false;
  // The parser resolves dot segments and re-encodes odd characters: any difference means one was there.
  const path = url.slice(u.origin.length).split(/[?#]/, 1)[0];
  return path === u.pathname && !path.includes('//');
}

/** What a client may be sent back to: its registered redirect URIs and its allowed origins. */
interface RedirectRules {
  /** Registered redirect URIs: when there are any, OAuth redirect URIs must equal one of them. */
  uris: string[];
  /** `--allowed-origin` values plus the client's stored list. */
  origins: string[];
}

async function redirectRules(emu: Emulator, sql: Sql, clientId: string | null): Promise<RedirectRules> {
  const rows = clientId
    ? await sql.query<{ allowed_origins: string[]; redirect_uris: string[] }>(
        'SELECT allowed_origins, redirect_uris FROM oauth_clients WHERE client_id = $1',
        [clientId],
      )
    : [];
  return {
    uris: rows[0]?.redirect_uris ?? [],
    origins: [...new Set([...emu.config.allowedOrigins, ...(rows[0]?.allowed_origins ?? [])])],
  };
}

/** The origins allowed for a client: `--allowed-origin` values plus the client's stored list. */
export async function allowedOrigins(emu: Emulator, sql: Sql, clientId: string | null): Promise<string[]> {
  return (await redirectRules(emu, sql, clientId)).origins;
}

/**
 * Whether an OAuth redirect URI is allowed for a client (checklist 39). A client that registered
 * redirect URIs gets exactly those, compared as strings (RFC 9700 §2.1): no trailing slash, other
 * case, extra query or other path. A client with allowed origins only (the platform's "allowed
 * redirect domains", and the demo client with `--allowed-origin`) gets any URL on one of them.
 * Either way the URL must pass `hasSafeRedirectForm`, fragment refused.
 */
export async function isAllowedRedirectUri(
  emu: Emulator,
  sql: Sql,
  clientId: string | null,
  uri: string | undefined,
): Promise<boolean> {
  if (!uri || !hasSafeRedirectForm(uri)) return false;
  const rules = await redirectRules(emu, sql, clientId);
  return rules.uris.length ? rules.uris.includes(uri) : rules.origins.includes(new URL(uri).origin);
}

/**
 * Whether the platform may send a browser to a callback URL of a client (`postFlowUrl`, a
 * recovery or logout return address): a URL of safe form (`hasSafeRedirectForm`; a fragment is
 * fine) that is one of the client's registered redirect URIs or lies on one of its allowed
 * origins. Anything else (relative tricks, `javascript:`, other hosts, near-miss origins) is
 * refused.
 */
export async function isAllowedRedirect(
  emu: Emulator,
  sql: Sql,
  clientId: string | null,
  url: string | undefined,
): Promise<boolean> {
  if (!url || !hasSafeRedirectForm(url, 'allowed')) return false;
  const rules = await redirectRules(emu, sql, clientId);
  return rules.uris.includes(url) || rules.origins.includes(new URL(url).origin);
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
