/**
 * The hosted forms refuse another site's post in a real Chromium where the browser sends no
 * `Sec-Fetch-Site`: the emulator served over plain http on a host that is not localhost (a LAN
 * address, a container's name; here `*.test` mapped to 127.0.0.1). There a page's post says only
 * `Origin`, and an attacker's page that sends no referrer makes it `null`, as the hosted pages'
 * own posts are (they send no referrer either): the pages' `SameSite=Strict` cookie tells the two
 * apart. Before it, a forged sign-up on the attacker's own login session was taken (a member made
 * in the victim's browser, sent on with a code minted for the attacker).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTestEmulator, type TestEmulator } from '@shopkit/emulator/testing';
import type { Browser, Request } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { launchChromium } from './browser.ts';

const SHOP = 'http://shop.test:5173';
const PASSWORD = 'long enough pw';

let emu: TestEmulator;
let browser: Browser;
let evil: Server;
let EMU: string;
let EVIL: string;

beforeAll(async () => {
  emu = await startTestEmulator('pglite', { allowedOrigins: [SHOP] });
  EMU = `http://emu.test:${new URL(emu.url).port}`;
  emu.emu.config.publicUrl = EMU;
  // The attacker's page: a form of the fields given, posted at once, with or without a referrer.
  evil = createServer((req, res) => {
    const u = new URL(req.url!, 'http://x');
    const fields = JSON.parse(u.searchParams.get('f')!) as Record<string, string>;
    const inputs = Object.entries(fields)
      .map(([k, v]) => `<input name="${k}" value="${v}">`)
      .join('');
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(
      `<!doctype html><html><head>${u.searchParams.get('noref') ? '<meta name="referrer" content="no-referrer">' : ''}</head>` +
        `<body><form id="x" method="post" action="${u.searchParams.get('action')}">${inputs}</form>` +
        '<script>x.submit()</script></body></html>',
    );
  });
  await new Promise<void>((r) => evil.listen(0, '127.0.0.1', r));
  EVIL = `http://evil.test:${(evil.address() as AddressInfo).port}`;
  browser = await launchChromium(['--host-resolver-rules=MAP *.test 127.0.0.1']);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  evil?.close();
  await emu?.stop();
});

/** A login session of the demo client's (the attacker's own, for the forged posts). */
async function loginPage() {
  const authUrl = `${EMU}/oauth2/authorize?${new URLSearchParams({
    client_id: emu.demo.clientId,
    response_type: 'code',
    redirect_uri: `${SHOP}/callback`,
    state: 'st',
    code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    code_challenge_method: 'S256',
  })}`;
  const html = await (await fetch(authUrl.replace(EMU, emu.url))).text();
  return { authUrl, session: /name="redirect_session_id" value="([^"]+)"/.exec(html)![1]! };
}

const memberExists = async (email: string) =>
  (await emu.emu.db.query('SELECT id FROM members WHERE email_lower = $1', [email])).length === 1;

const isSubmit = (r: { url(): string }) => r.url().includes('/oauth2/authorize/submit');

it("takes the login page's own sign-up, and refuses another site's, where no Sec-Fetch-Site is sent", async () => {
  const context = await browser.newContext();
  const page = await context.newPage();
  try {
    // The page's own post: Origin `null`, no Sec-Fetch-Site (the premise), the page's cookie.
    const own = 'own-csrf@example.test';
    await page.goto((await loginPage()).authUrl);
    await page.fill('input[name=email]', own);
    await page.fill('input[name=password]', PASSWORD);
    const [answer] = await Promise.all([
      page.waitForResponse(isSubmit),
      page.click('button[value=register]'),
    ]);
    const sent = await (answer.request() as Request).allHeaders();
    expect(sent['sec-fetch-site']).toBeUndefined();
    expect(sent.origin).toBe('null');
    expect(answer.status()).toBe(302);
    expect(answer.headers().location).toMatch(new RegExp(`^${SHOP}/callback\\?code=`));
    expect(await memberExists(own)).toBe(true);

    // Another site's posts, with and without a referrer: refused, no member made.
    for (const noref of ['', '1']) {
      const victim = `forged${noref}-csrf@example.test`;
      const { session } = await loginPage();
      const fields = { redirect_session_id: session, action: 'register', email: victim, password: PASSWORD };
      // In a tab of its own in the same browser (the pages' cookie is there): the first tab may
      // still be on its way to the callback, which no server answers here.
      const tab = await context.newPage();
      const [forged] = await Promise.all([
        tab.waitForResponse(isSubmit),
        tab.goto(
          `${EVIL}/?${new URLSearchParams({ noref, action: `${EMU}/oauth2/authorize/submit`, f: JSON.stringify(fields) })}`,
          // The page posts its form as soon as it is parsed: wait only for it to arrive.
          { waitUntil: 'commit' },
        ),
      ]);
      expect((await (forged.request() as Request).allHeaders())['sec-fetch-site']).toBeUndefined();
      expect(forged.status()).toBe(403);
      expect(await memberExists(victim)).toBe(false);
      await tab.close();
    }
  } finally {
    await context.close();
  }
});
