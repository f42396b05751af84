/**
 * Bundle budgets: the typical storefront entry and auth alone, bundled for browsers with esbuild,
 * minified and gzipped. The budgets hold today's figures so they cannot grow back unnoticed; the
 * typical entry's target in issue 8 (4 KB) is lower still, see docs/performance.md. And
 * tree-shaking: a bundle of one declared call holds that call's declaration and no other.
 */
import { describe, expect, it } from 'vitest';
import { AUTH, browserBundle, TYPICAL } from './entries.ts';

const root = new URL('../../../', import.meta.url).pathname;

/** Gzip bytes of an entry. */
const gzipSize = async (source: string) => (await browserBundle(source, root)).gzip;

// Measured 9007 B and 2503 B (esbuild 0.28). From 9012 for a shared read's key holding the call's
// timeout as it is, 0 included, not its JSON beside the headers (-5 B; sdk-audit15). From 9010 for paging metadata whose `total` is `null`
// (+2 B: read as unknown, not as 0 pages; sdk-audit14). From 9181 and 2526 for the size audit 12 (-171 B, auth
// -23 B, no behaviour dropped): the retry wait through `within` (no `sleep` of the engine's own), one
// backoff and one timeout reading shared by the engine and the token requests, a declared call's
// argument places made once by `op` (no WeakMap per call), a strategy without a client on
// `createClient().transport`, the rotated refresh token filled in place, one-letter keys for the
// engine's signal helper. From 9179 for the float scan's threshold back at
// 16384 (a digit more than 4096: +2 B). From 9087 and 2440 for the auth audit 11 (+92 B, auth
// +86 B): token requests of a derived client's calls sent through its own fetch (~31 B), another
// tab's login or logout in a shared storage moving the auth epoch once, and a renewal not (~25 B),
// an explicit logout of a member whose refresh is refused fetching no visitor token (~18 B), a
// refresh token that is no string read as none, not as no tokens at every call (+5 B), and new
// visitor tokens stored under the renewals' Web Lock, as `setTokens` is (+6 B). From 9072 for a
// query builder's find, pages, next and prev taking call options (+15 B). From 9058 and 2431 for a token request's retry wait
// past timers' range failing at once, as a call's does (+8 B, auth +9 B), a query page answered
// with `null` for its list or metadata read as an empty page, not a TypeError (+5 B), and an
// `expires_in` of `""` or 0 read as no lifetime, not a renewal before every call (+1 B). From 9054 for a retry wait past timers' range (2^31 ms)
// failing the call at once (a `Retry-After` of weeks with no limits was a retry after 1 ms: +4 B).
// From 9022 and 2400 for the tokens a strategy wrote
// while its storage answers none (a server's cookie jar that reads only the request's cookies, on a
// first visit: each call of the request was a new visitor: +32 B, auth +31 B). From 9007 and 2376 for `setTokens` under the
// renewals' Web Lock (a login or logout another tab stored between a renewal's compare and its set
// was overwritten: +15 B, auth +24 B). From 8977 and 2337 for a token request's timeout
// read as a call's is (`Infinity`, 2^31 ms or more, a fraction or a negative number threw or fired
// at once, and failed every call of the client: +30 B, auth +39 B). From 8962 for `prev()` on a first page refused as
// `next()` on a last one is (+15 B). From 8952 for a transport whose fetch drops the
// signal: the call's wait for its answer and body is raced with the deadline and abort (+10 B).
// From 8898 and 2254 for the review of those fixes:
// a token request with such a header fails the same way (+83 B auth), as does a header with a
// character past Latin-1; a timeout that is no number (null) is the default, not at once; a
// strategy's `onUnauthorized` may answer without a promise.
// From 8665 and 2198 for the client-hardening audit:
// a forced refresh after a 401 bounded by the call's timeout and abort (+49 B), a header with a
// line break or NUL failing without quoting it nor retrying (+63 B), an aborted call not sent,
// retry settings given as undefined read as the defaults, renewals shared per refresh token
// (checklist 21: +45 B, auth +45 B) and one-time codes sent once (+12 B, +9 B).
// From 8657 for a page of no items (limit 0) being
// page 0 of 0 (its NaN and Infinity pages let `while (page.hasPrev())` loop for ever: +8 B).
// From 8641 and 2182 for a leeway of at most half the
// last token's lifetime (a token living no longer than the leeway was renewed before every call:
// +16 B each). From 8631 and 2173 for stored tokens whose values
// are no strings, read as none (a numeric access token was sent, refused, and broke every call
// after: +10 B, +9 B). From 8580 and 2145 for the wire audit's findings: a
// visitor whose refresh is refused with any 4xx but 408 and 429 goes on as a new visitor instead of
// failing every call (auth +28 B), and a 5xx keeps the body's details and its `systemError` code
// (+23 B). Before, auth's budget went from 2135 to 2145 for a token
// answer whose access token is no string, refused like one without a token (+10 B; the typical
// entry +5 B, to 8580: within its budget). Before it, the budgets went from 8440 to 8580 and from
// 2045 to 2135 for the audit's leftovers: a call aborted or out of time while it waits for a token rejects
// at once (the strategies race their token wait with the call's signal, only when they wait: +76 B,
// auth +85 B); full deadline slots without calls
// in flight dropped from the chain (+32 B); error bodies of any shape parsed without a TypeError
// (+43 B); a token without expires_in kept until a 401 (+6 B, +10 B). Before them, 8418 B and
// 2040 B, with slack for esbuild version noise; the typical budget went from 8400 to 8440 for the
// fixes that took it past 8400: no deadline slot kept for a call without one (a timeout of
// Infinity grew memory without end, +17 B); no shared read across a write (its key a template, not an array joined, which was slower), and a negative
// Retry-After backs off (+13 B); or() leaves an empty side out
// (+11 B); no Web Lock for the default memory storage (+3 B, +4 B); a member without a refresh
// token logged out visibly, the renewal's check of the strategy's own writes, a null token answer
// read as a refusal (+13 B, +11 B). Before them: the strategy's own renewals and visitor tokens
// reported to onError (+42 B, +47 B), pages counted from an unaligned offset (+7 B), an unknown
// method refused as a validation error (+4 B); the token requests' retries and the compare-and-set
// of renewals (+137 B, +171 B), headers that override each other whatever their case (+41 B), and
// the engine's edges (the timeout of the whole call, aborts during a wait, `.` and `..` refused,
// Proxy messages, shared reads within one auth epoch, one renewal for late 401s: +290 B, +56 B), no
// next page past the last (+35 B).
const BUDGET = { typical: 9007, auth: 2503 };

it('keeps the typical storefront entry within its budget', async () => {
  const size = await gzipSize(TYPICAL);
  console.log(`typical entry: ${size} B gzip (budget ${BUDGET.typical})`);
  expect(size).toBeLessThanOrEqual(BUDGET.typical);
});

it('keeps auth alone within its budget, without the request engine', async () => {
  const { gzip, inputs } = await browserBundle(AUTH, root);
  console.log(`auth alone: ${gzip} B gzip (budget ${BUDGET.auth})`);
  expect(gzip).toBeLessThanOrEqual(BUDGET.auth);
  // A client that makes no call carries neither the engine nor the call layer.
  const files = Object.keys(inputs).map((f) => f.replace(/^.*packages\/sdk\/src\//, ''));
  expect(files).not.toContain('http/engine.ts');
  expect(files).not.toContain('http/op.ts');
});

describe.each(['cart', 'products', 'collections'])('one call of @shopkit/sdk/%s', (mod) => {
  it('bundles its own declaration and no other', async () => {
    const exports = await import(`../src/modules/${mod}.ts`);
    const calls = Object.keys(exports).filter((k) => typeof exports[k] === 'function');
    expect(calls.length).toBeGreaterThan(2);
    const leaks: string[] = [];
    for (const name of calls) {
      const { text } = await bundleText(
        `import { ${name} } from '@shopkit/sdk/${mod}'; globalThis.x = ${name};`,
      );
      // Declarations keep their path strings in the minified output: one call, one path.
      const paths = [...text.matchAll(/path:"([^"]+)"/g)].map((m) => m[1]);
      if (paths.length !== 1) leaks.push(`${name}: ${paths.join(', ') || 'no declaration'}`);
    }
    expect(leaks).toEqual([]);
  });
});

async function bundleText(source: string) {
  const { build } = await import('esbuild');
  const out = await build({
    stdin: { contents: source, resolveDir: root, loader: 'ts' },
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    write: false,
    logLevel: 'silent',
  });
  return { text: out.outputFiles[0]!.text };
}
