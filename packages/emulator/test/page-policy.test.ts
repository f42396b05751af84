/**
 * The Content-Security-Policy of every kind of hosted page, over raw HTTP: nothing loads by
 * default (`default-src 'none'`, `base-uri 'none'`), each page's own stylesheet, script and images
 * are allowed by hash or exact origin only, no inline event handlers or style attributes, forms may
 * post to the page's own origin and be redirected on only to the origin the flow ends at, and
 * framing stays as checklist 41 says (`'none'`; the web_message answer by the asking origin only).
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator, testBackends } from '../src/testing.ts';
import { authorizeUrl, CHALLENGE, checkoutSession, jsonCalls, visitorToken } from './http.ts';

const SHOP = 'http://localhost:5173';
const CALLBACK = `${SHOP}/callback`;
const APP = 'https://app.example.test/installed';
/** RFC 7636 Appendix B's challenge: these tests never exchange a code. */

/** The policy's directives, each with its sources. */
function directives(res: Response): Map<string, string[]> {
  const header = res.headers.get('content-security-policy') ?? '';
  const out = new Map<string, string[]>();
  for (const part of header.split(';')) {
    const [name, ...sources] = part.trim().split(/\s+/);
    if (name) out.set(name, sources);
  }
  return out;
}

const sha256 = (text: string) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;
const inline = (html: string, tag: 'style' | 'script') =>
  [...html.matchAll(new RegExp(`<${tag}[^>]*>([\\s\\S]*?)</${tag}>`, 'g'))].map((m) => m[1]!);

interface Expected {
  /** `frame-ancestors` sources. */
  frames: string[];
  /** `form-action` sources. */
  forms: string[];
  /** `img-src` sources, when the page has images. */
  images?: string[];
}

/**
 * Checks a hosted page's policy and that the page needs nothing it does not allow: its `<style>`
 * and `<script>` elements are exactly those the hashes allow, and it has no inline handlers.
 */
async function expectStrict(res: Response, expected: Expected, label: string) {
  const html = await res.text();
  const d = directives(res);
  expect(d.get('default-src'), label).toEqual(["'none'"]);
  expect(d.get('base-uri'), label).toEqual(["'none'"]);
  expect(d.get('frame-ancestors'), label).toEqual(expected.frames);
  expect(d.get('form-action'), label).toEqual(expected.forms);
  expect(d.get('img-src'), label).toEqual(expected.images);
  expect(d.get('style-src') ?? [], label).toEqual(inline(html, 'style').map(sha256));
  expect(d.get('script-src') ?? [], label).toEqual(inline(html, 'script').map(sha256));
  const all = [...d.values()].flat();
  for (const loose of ["'unsafe-inline'", "'unsafe-eval'", '*', 'data:', 'http:', 'https:'])
    expect(all, `${label}: ${loose}`).not.toContain(loose);
  // No script outside the hashed elements: no handlers, no javascript: links; no style attributes.
  expect(html, label).not.toMatch(/\son[a-z]+\s*=|javascript:|\sstyle\s*=/i);
  return html;
}

describe.each(testBackends())('hosted page policy (%s)', (backend) => {
  let emu: TestEmulator;
  let exactClient: string;
  beforeAll(async () => {
    emu = await startTestEmulator(backend, { allowedOrigins: [SHOP] });
    const made = await owner('POST', '/_api/emulator/v1/oauth-clients', {
      name: 'exact',
      redirectUris: [CALLBACK],
    });
    exactClient = made.body.clientId;
  });
  afterAll(() => emu?.stop());
  const { call, owner } = jsonCalls(() => emu);

  const authorize = (params: Record<string, string>) =>
    fetch(authorizeUrl(emu, CALLBACK, { client_id: exactClient, ...params }), { redirect: 'manual' });

  /** A visitor's checkout of the dinner plate and its redirect session's URL. */
  const checkoutPage = async (callbacks: Record<string, string>) =>
    (await checkoutSession(emu, { callbacks })).session.fullUrl;

  it('the checkout page: its form may end at the post-flow URL’s origin, nothing more', async () => {
    const page = await fetch(
      await checkoutPage({ postFlowUrl: `${SHOP}/thanks`, cartPageUrl: `${SHOP}/cart` }),
    );
    expect(page.status).toBe(200);
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    const html = await expectStrict(page, { frames: ["'none'"], forms: ["'self'", SHOP] }, 'checkout');
    expect(html).toContain(`<a href="${SHOP}/cart">Back to cart</a>`);
  });

  it('a checkout page with no callback to follow goes back by a link to the referring site, or says how, without script', async () => {
    const url = await checkoutPage({});
    const page = await fetch(url.replace(/\/redirect\/[^?]+/, '/redirect/no-such-session'));
    expect(page.status).toBe(404);
    await expectStrict(page, { frames: ["'none'"], forms: ["'self'"] }, 'unknown session');
    const order = await fetch(url);
    await expectStrict(order, { frames: ["'none'"], forms: ["'self'"] }, 'checkout without callbacks');
    // A checkout of another buyer: "not found", with the way back.
    const missing = await call(
      'POST',
      '/_api/redirects-api/v1/redirect-session',
      {
        ecomCheckout: { checkoutId: 'no-such-checkout' },
      },
      { authorization: await visitorToken(emu) },
    );
    const notFound = await fetch(missing.body.redirectSession.fullUrl, {
      headers: { referer: `${SHOP}/cart` },
    });
    expect(notFound.status).toBe(404);
    const html = await expectStrict(
      notFound,
      { frames: ["'none'"], forms: ["'self'"] },
      'checkout not found',
    );
    expect(html).toContain(`<a href="${SHOP}/cart">Back to the site</a>`);
    // A referrer the client may not be sent to is not linked; the page says how to go back.
    const elsewhere = await fetch(missing.body.redirectSession.fullUrl, {
      headers: { referer: 'https://evil.example/x' },
    });
    const text = await expectStrict(elsewhere, { frames: ["'none'"], forms: ["'self'"] }, 'foreign referrer');
    expect(text).not.toContain('evil.example');
    expect(text).toContain('Back button');
  });

  it('the product page: images from the image’s origin only', async () => {
    const page = await fetch(`${emu.url}/product-page/dinner-plate`);
    expect(page.status).toBe(200);
    const html = await expectStrict(
      page,
      { frames: ["'none'"], forms: ["'self'"], images: [new URL(emu.url).origin] },
      'product page',
    );
    expect(html).toContain('<img src=');
  });

  it('the hosted login page: its form may end at the redirect URI’s origin; never framed', async () => {
    const page = await authorize({ response_mode: 'query' });
    expect(page.status).toBe(200);
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    const html = await expectStrict(page, { frames: ["'none'"], forms: ["'self'", SHOP] }, 'login page');
    expect(html).toContain('name="redirect_session_id"');
    // A refused request's error page: no form target beyond its own origin.
    const refused = await authorize({ redirect_uri: `${SHOP}/other` });
    expect(refused.status).toBe(400);
    await expectStrict(refused, { frames: ["'none'"], forms: ["'self'"] }, 'refused login');
  });

  it('the web_message answer: its one script by hash, framed only by the origin that asked', async () => {
    const page = await authorize({
      client_id: emu.demo.clientId,
      redirect_uri: '',
      response_mode: 'web_message',
      prompt: 'none',
    });
    // No redirect URI and no origin: the page that asked is unknown, an error page.
    expect(page.status).toBe(400);
    const visitor = await visitorToken(emu);
    const rs = await call(
      'POST',
      '/_api/redirects-api/v1/redirect-session',
      {
        auth: {
          authRequest: {
            clientId: emu.demo.clientId,
            responseType: 'code',
            state: 'st',
            responseMode: 'web_message',
            codeChallenge: CHALLENGE,
            codeChallengeMethod: 'S256',
          },
          prompt: 'none',
        },
        origin: SHOP,
      },
      { authorization: visitor },
    );
    const answer = await fetch(rs.body.redirectSession.fullUrl);
    expect(answer.status).toBe(200);
    const html = await expectStrict(answer, { frames: [SHOP], forms: ["'none'"] }, 'web_message');
    expect(inline(html, 'script')).toHaveLength(1);
    expect(html).toContain('login_required');
  });

  it('the identity provider’s page: its form may end at the login’s redirect URI origin', async () => {
    const conn = (await owner('POST', '/_api/emulator/v1/idp-connections', { name: 'Policy ID' })).body
      .idpConnection.id as string;
    const login = await authorize({ response_mode: 'query' });
    const html = await login.text();
    const href = new RegExp(`href="([^"]+/sso/login/[^"]+/${conn}\\?[^"]+)"`).exec(html)![1]!;
    const start = await fetch(new URL(href.replace(/&amp;/g, '&'), emu.url), {
      headers: { accept: 'text/html' },
      redirect: 'manual',
    });
    expect(start.status).toBe(302);
    const provider = await fetch(new URL(start.headers.get('location')!, emu.url));
    expect(provider.status).toBe(200);
    await expectStrict(provider, { frames: ["'none'"], forms: ["'self'", SHOP] }, 'provider page');
    const expired = await fetch(`${emu.url}/idp/${conn}/authorize?state=nothing`);
    expect(expired.status).toBe(400);
    await expectStrict(expired, { frames: ["'none'"], forms: ["'self'"] }, 'provider expired');
  });

  it('the app installer: its form may end at the app’s registered redirect URL origin', async () => {
    const made = await owner('POST', '/_api/emulator/v1/apps', { name: 'Policy app', redirectUrls: [APP] });
    expect(made.status).toBe(200);
    const page = await fetch(
      `${emu.url}/installer/install?${new URLSearchParams({ appId: made.body.appId, redirectUrl: APP })}`,
    );
    expect(page.status).toBe(200);
    await expectStrict(page, { frames: ["'none'"], forms: ["'self'", new URL(APP).origin] }, 'installer');
    const refused = await fetch(
      `${emu.url}/installer/install?appId=nope&redirectUrl=${encodeURIComponent(APP)}`,
    );
    expect(refused.status).toBe(400);
    await expectStrict(refused, { frames: ["'none'"], forms: ["'self'"] }, 'installer refused');
  });

  it('the mailbox, the reset page and the other redirect pages', async () => {
    for (const path of ['/mailbox', '/reset-password?token=x', '/product-page/no-such-product']) {
      const res = await fetch(emu.url + path);
      await expectStrict(res, { frames: ["'none'"], forms: ["'self'"] }, path);
    }
    const reset = await fetch(`${emu.url}/reset-password`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'same-origin' },
      body: 'token=x&password=long+enough+pw',
    });
    expect(reset.status).toBe(400);
    await expectStrict(reset, { frames: ["'none'"], forms: ["'self'"] }, 'reset posted');
    for (const intent of [
      { login: {} },
      { paidPlansCheckout: { planId: 'p' } },
      { storesProduct: { productSlug: 'nope' } },
    ]) {
      const rs = await call(
        'POST',
        '/_api/redirects-api/v1/redirect-session',
        {
          ...intent,
          callbacks: { postFlowUrl: `${SHOP}/back` },
        },
        { authorization: await visitorToken(emu) },
      );
      const res = await fetch(rs.body.redirectSession.fullUrl);
      const html = await expectStrict(
        res,
        { frames: ["'none'"], forms: ["'self'"] },
        Object.keys(intent)[0]!,
      );
      expect(html).toContain(`${SHOP}/back`);
    }
  });

  it('the webhooks page: its own stylesheet by hash', async () => {
    const res = await fetch(`${emu.url}/webhooks`);
    expect(res.status).toBe(200);
    const html = await expectStrict(res, { frames: ["'none'"], forms: ["'self'"] }, 'webhooks');
    expect(inline(html, 'style').length).toBe(2);
  });
});
