/**
 * Where a flow sends the browser afterwards, checked before it can become an open redirect
 * (security checklist 13).
 *
 * - A post-login target (`originalUri`, which only the application ever follows) is a path on this
 *   site (`/account`) or a URL of an allowed origin: this page's, or the redirect URI's.
 * - A callback URL the platform follows after a hosted flow (`postFlowUrl`, `cartPageUrl`, …) is an
 *   absolute http(s) URL; which origins may receive it is the platform's allow-list.
 *
 * Both refuse what a browser reads as another site or as script: `//evil.example`,
 * `/\evil.example`, `https:evil.example`, `https://shop.example@evil.example`, `javascript:…`, and
 * whitespace, control characters or backslashes anywhere (browsers drop or rewrite those).
 * @module
 */

/** The call that takes a flow's callback URLs (`postFlowUrl`, logout's return URL), checked here first. */
export const REDIRECT_SESSION_PATH = '/_api/redirects-api/v1/redirect-session';

/** An http(s) URL written with `//`, whose authority holds no credentials and no backslash. */
const ABSOLUTE = /^https?:\/\/[^/\\?#@]+(?:[/?#]|$)/i;

/** A URL's origin, or `undefined` for text the URL parser refuses (`https://exa%mple.com`). */
const originOf = (v: string) => {
  try {
    return new URL(v).origin;
  } catch {}
};

/**
 * What is wrong with a return URL, or `undefined` when it is fine. With `allowedOrigins`, a path on
 * this site is fine and an absolute URL must be on one of them; without, the URL must be absolute.
 */
export function returnUrlProblem(value: unknown, allowedOrigins?: readonly string[]): string | undefined {
  if (typeof value !== 'string' || !value) return 'must be a non-empty string';
  // Browsers strip tabs and newlines and read `\` as `/`: `/\t/evil.example` is `//evil.example`.
  if ([...value].some((c) => c <= ' ' || c === '\x7f' || c === '\\'))
    return 'must not hold whitespace, control characters or backslashes';
  if (value[0] === '/') {
    if (value[1] === '/') return 'must not start with "//", which names another site';
    return allowedOrigins ? undefined : 'must be an absolute http(s) URL';
  }
  // `https://shop.example@evil.example` goes to evil.example: say why it is refused.
  if (/^https?:\/\/[^/?#]*@/i.test(value)) return 'must not hold a user name or password before "@"';
  if (!ABSOLUTE.test(value))
    return allowedOrigins
      ? 'must be a path on this site or an http(s) URL'
      : 'must be an absolute http(s) URL';
  const origin = originOf(value);
  // (a host the parser refuses threw its `TypeError` out of the flow that checked it)
  if (!origin) return 'must be a valid URL';
  if (allowedOrigins && !allowedOrigins.includes(origin))
    return allowedOrigins.length
      ? `must be a path on this site or a URL on ${allowedOrigins.join(' or ')}`
      : 'must be a path on this site';
  return undefined;
}

/** The origins a post-login target may name: this page's and the redirect URI's. */
export function allowedReturnOrigins(redirectUri?: string): string[] {
  const origins = [(globalThis as { location?: Location }).location?.origin];
  if (redirectUri && ABSOLUTE.test(redirectUri)) origins.push(originOf(redirectUri));
  return origins.filter((o): o is string => !!o && o !== 'null');
}
