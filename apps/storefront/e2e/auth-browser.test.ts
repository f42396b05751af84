/**
 * Browser-side security checklist items in a real Chromium, with the SDK bundled for the browser
 * on a page of its own origin and the emulator on another (see docs/security.md):
 * 11, after `parseFromUrl` the address bar holds neither `code=` nor `state=` (hosted login, query
 * and fragment, and SSO through the hosted page's provider link), and 29, the default client
 * writes neither localStorage nor cookies; 15 and 16, a message with the right origin and state
 * from another window, and unrelated messages, are ignored; 19, two concurrent direct logins
 * use two frames and each gets its own member; 22, two tabs sharing one token store renew with
 * one refresh request thanks to Web Locks (and, as the control, send the same refresh token twice
 * without them); and an SSO session token used for the hidden-frame direct login.
 */
import type { BrowserContext, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { holdAuthorize, ownerCall, sdkShop, setupShopOrigin } from './browser.ts';

const shop = setupShopOrigin(sdkShop);
const PASSWORD = 'long enough pw';

/**
 * A page of the shop (`path` on its origin) with the SDK loaded and `window.client` made: memory
 * storage, or, when `shared`, a token store in IndexedDB shared by the pages of one browser
 * context. (IndexedDB, not localStorage: Chromium hands localStorage writes to other tabs
 * asynchronously, so a tab can read stale tokens right after another released the lock; see
 * docs/security.md, item 22.)
 */
async function shopPage(ctx: BrowserContext, path = '/', shared: boolean | 'local' = false): Promise<Page> {
  const page = await ctx.newPage();
  await page.goto(shop.origin + path);
  await makeClient(page, shared);
  return page;
}

async function makeClient(page: Page, shared: boolean | 'local' = false) {
  await page.waitForFunction(() => !!(window as any).sdk);
  await page.evaluate(
    ({ baseUrl, clientId, shared }) => {
      const sdk = (window as any).sdk;
      /** A TokenStorage over IndexedDB: every read and write is a transaction of the browser's one store. */
      const indexedDbStore = (key: string) => {
        const db = new Promise<IDBDatabase>((resolve, reject) => {
          const r = indexedDB.open('shop-tokens', 1);
          r.onupgradeneeded = () => r.result.createObjectStore('tokens');
          r.onsuccess = () => resolve(r.result);
          r.onerror = () => reject(r.error);
        });
        const run = async (mode: IDBTransactionMode, op: (s: IDBObjectStore) => IDBRequest) => {
          const tx = (await db).transaction('tokens', mode);
          const req = op(tx.objectStore('tokens'));
          return new Promise<any>((resolve, reject) => {
            tx.oncomplete = () => resolve(req.result);
            tx.onerror = () => reject(tx.error);
          });
        };
        return {
          getTokens: () => run('readonly', (s) => s.get(key)),
          setTokens: async (t: unknown) => {
            await run('readwrite', (s) => s.put(t, key));
          },
        };
      };
      (window as any).client = sdk.createClient({
        baseUrl,
        auth: sdk.OAuthStrategy({
          clientId,
          storage:
            shared === 'local'
              ? sdk.webStorage(localStorage, clientId)
              : shared
                ? indexedDbStore(`shopkit:${clientId}:tokens`)
                : undefined,
        }),
        modules: { identity: sdk.identity, collections: sdk.collections },
      });
    },
    { baseUrl: shop.emu.url, clientId: shop.emu.demo.clientId, shared },
  );
}

let n = 0;
const newEmail = () => `browser${++n}@example.test`;
/** Registers a member from the page; returns its session token and identity id. */
const register = (page: Page, email = newEmail()) =>
  page.evaluate(
    async ({ email, password }) => {
      const r = await (window as any).client.identity.register({ email, password });
      return { sessionToken: r.data.sessionToken as string, id: r.data.identity.id as string, email };
    },
    { email, password: PASSWORD },
  );

/** An owner call with the API key, from Node. */
const owner = (path: string, body: object) => ownerCall(shop.emu, path, body);

/** On the callback page: parse, read the address bar, exchange the code. */
const finishAtCallback = (page: Page, responseMode: 'query' | 'fragment') =>
  page.evaluate(async (mode) => {
    const client = (window as any).client;
    const before = location.href;
    const p = client.identity.parseFromUrl(undefined, mode);
    const after = location.href;
    const data = JSON.parse(sessionStorage.getItem('oauth')!);
    const tokens = await client.identity.getMemberTokens(p.code, p.state, data);
    // Stored as an application does, then used by a call: the member's tokens in the strategy.
    await client.auth.setTokens(tokens);
    const subject = (await client.identity.getTokenInfo(tokens.accessToken.value)).subjectId as string;
    const held = (await client.auth.getTokens()).refreshToken.role as string;
    return {
      before,
      after,
      // The default client keeps tokens in memory only (checklist 29), the member's included.
      localStorageKeys: localStorage.length,
      cookie: document.cookie,
      error: p.error,
      role: tokens.refreshToken.role as string,
      held,
      subject,
    };
  }, responseMode);

/** Starts the hosted login from the shop: OAuth data in sessionStorage, then the authorize page. */
async function startHostedLogin(page: Page, responseMode: 'query' | 'fragment') {
  const authUrl = await page.evaluate(async (mode) => {
    const client = (window as any).client;
    const data = await client.identity.generateOAuthData(`${location.origin}/callback?keep=1`, location.href);
    sessionStorage.setItem('oauth', JSON.stringify(data));
    return (await client.identity.getAuthUrl(data, { responseMode: mode })).authUrl as string;
  }, responseMode);
  await page.goto(authUrl);
}

describe('checklist 11: code and state leave the address bar', () => {
  for (const mode of ['fragment', 'query'] as const)
    it(`after parseFromUrl (${mode}) location.href holds neither code= nor state=`, async () => {
      const ctx = await shop.browser.newContext();
      const page = await shopPage(ctx);
      const who = await register(page);
      await startHostedLogin(page, mode);
      await page.fill('input[name=email]', who.email);
      await page.fill('input[name=password]', PASSWORD);
      await Promise.all([page.waitForURL(`${shop.origin}/callback**`), page.click('button[value=login]')]);
      await makeClient(page);
      const r = await finishAtCallback(page, mode);
      expect(r.before).toMatch(/code=.+state=|state=.+code=/);
      expect(r.after).not.toMatch(/code=|state=/);
      expect(r.after).toBe(`${shop.origin}/callback?keep=1`);
      expect(page.url()).toBe(`${shop.origin}/callback?keep=1`);
      expect(r).toMatchObject({
        role: 'member',
        held: 'member',
        subject: who.id,
        localStorageKeys: 0,
        cookie: '',
      });
      await ctx.close();
    });

  it('the same after SSO through the hosted page’s provider link', async () => {
    const { idpConnection } = await owner('/_api/emulator/v1/idp-connections', { name: 'Acme ID' });
    const ctx = await shop.browser.newContext();
    const page = await shopPage(ctx);
    await startHostedLogin(page, 'fragment');
    await Promise.all([page.waitForURL(`${shop.emu.url}/idp/**`), page.click('text=Log in with Acme ID')]);
    const email = newEmail();
    await page.fill('input[name=email]', email);
    await Promise.all([
      page.waitForURL(`${shop.origin}/callback**`),
      page.click('button:has-text("Continue")'),
    ]);
    await makeClient(page);
    const r = await finishAtCallback(page, 'fragment');
    expect(r.before).toContain('#code=');
    expect(r.after).toBe(`${shop.origin}/callback?keep=1`);
    expect(r.role).toBe('member');
    const identity = (
      await shop.emu.emu.db.query('SELECT id, connections FROM members WHERE email = $1', [email])
    )[0]!;
    expect(r.subject).toBe(identity.id);
    expect(identity.connections[0].idpConnection.idpConnectionId).toBe(idpConnection.id);
    await ctx.close();
  });
});

describe('checklists 15 and 16: only the login frame’s own answer counts', () => {
  it('the right origin and state from another window, and unrelated messages, are ignored', async () => {
    const ctx = await shop.browser.newContext();
    const page = await shopPage(ctx);
    const who = await register(page);
    // Another frame on the authorize page's origin: the right origin, the wrong window.
    await page.evaluate((url) => {
      const f = document.createElement('iframe');
      f.name = 'other';
      f.src = url;
      document.body.appendChild(f);
    }, `${shop.emu.url}/health`);
    await expect
      .poll(() => page.frame({ name: 'other' })?.url(), { timeout: 30_000 })
      .toBe(`${shop.emu.url}/health`);
    const other = page.frame({ name: 'other' })!;
    // Hold the login frame's answer until the forged messages have been handled.
    const release = await holdAuthorize(page);
    const result = page.evaluate(async (t) => {
      const w = window as any;
      w.__settled = false;
      addEventListener('message', (ev) => {
        if (ev.data?.marker) w.__marker = true;
      });
      const obs = new MutationObserver(() => {
        const f = [...document.querySelectorAll('iframe')].find((x) => x.src.includes('/oauth2/authorize'));
        if (f) {
          obs.disconnect();
          w.__state = new URL(f.src).searchParams.get('state');
        }
      });
      obs.observe(document.body, { childList: true });
      const login = w.client.identity.getMemberTokensForDirectLogin(t).finally(() => {
        w.__settled = true;
      });
      // Unrelated traffic from this window too.
      window.postMessage({ foo: 1 }, '*');
      const tokens = await login;
      return {
        role: tokens.refreshToken.role as string,
        subject: (await w.client.identity.getTokenInfo(tokens.accessToken.value)).subjectId as string,
        loginFrames: [...document.querySelectorAll('iframe')].filter((x) =>
          x.src.includes('/oauth2/authorize'),
        ).length,
      };
    }, who.sessionToken);
    const state = await (await page.waitForFunction(() => (window as any).__state)).jsonValue();
    await other.evaluate((s) => {
      parent.postMessage({ code: 'forged', state: s }, '*');
      parent.postMessage({ error: 'access_denied', state: s }, '*');
      parent.postMessage({ foo: 1 }, '*');
      parent.postMessage(null, '*');
      parent.postMessage('text', '*');
      parent.postMessage({ marker: true }, '*');
    }, state);
    await page.waitForFunction(() => (window as any).__marker === true);
    expect(await page.evaluate(() => (window as any).__settled)).toBe(false);
    release();
    expect(await result).toEqual({ role: 'member', subject: who.id, loginFrames: 0 });
    await ctx.close();
  });
});

describe('checklist 19: concurrent direct logins are isolated', () => {
  it('two concurrent direct logins use two frames, and each resolves with its own member', async () => {
    const ctx = await shop.browser.newContext();
    const page = await shopPage(ctx);
    const a = await register(page);
    const b = await register(page);
    // Hold both authorize answers until both frames asked, so the two flows overlap.
    let asked = 0;
    let release!: () => void;
    const both = new Promise<void>((r) => {
      release = r;
    });
    await page.route('**/oauth2/authorize**', async (route) => {
      if (++asked === 2) release();
      await both;
      await route.continue();
    });
    const r = await page.evaluate(
      async ([ta, tb]) => {
        const client = (window as any).client;
        const states: string[] = [];
        let most = 0;
        const obs = new MutationObserver((records) => {
          for (const rec of records)
            for (const node of rec.addedNodes)
              if (node instanceof HTMLIFrameElement)
                states.push(new URL(node.src).searchParams.get('state')!);
          most = Math.max(most, document.querySelectorAll('iframe').length);
        });
        obs.observe(document.body, { childList: true });
        const [x, y] = await Promise.all([
          client.identity.getMemberTokensForDirectLogin(ta),
          client.identity.getMemberTokensForDirectLogin(tb),
        ]);
        obs.disconnect();
        const subject = async (t: any) => (await client.identity.getTokenInfo(t.accessToken.value)).subjectId;
        return {
          most,
          states,
          first: await subject(x),
          second: await subject(y),
          left: document.querySelectorAll('iframe').length,
        };
      },
      [a.sessionToken, b.sessionToken],
    );
    expect(r.most).toBe(2);
    expect(new Set(r.states).size).toBe(2);
    expect(r.first).toBe(a.id);
    expect(r.second).toBe(b.id);
    expect(r.left).toBe(0);
    await ctx.close();
  });
});

describe('checklist 22: tabs sharing storage renew once', () => {
  /**
   * Two tabs of one browser context share a token store; a visitor pair with an expired access
   * token is stored. Tab A's refresh is held at the network until tab B is renewing too (waiting
   * for the Web Lock, or, without Web Locks, sending its own refresh). Returns how many refresh
   * requests went out, and how many of them carried the stored refresh token.
   */
  async function race(withLocks: boolean, store: true | 'local' = true) {
    const ctx = await shop.browser.newContext();
    if (!withLocks)
      await ctx.addInitScript(() => {
        Object.defineProperty(Navigator.prototype, 'locks', { get: () => undefined, configurable: true });
      });
    const lockName = `shopkit:${shop.emu.demo.clientId}:tokens`;
    const a = await shopPage(ctx, '/', store);
    const b = await shopPage(ctx, '/', store);
    const rt0 = await a.evaluate(async () => {
      const auth = (window as any).client.auth;
      const t = await auth.generateVisitorTokens();
      await auth.setTokens({ ...t, accessToken: { value: t.accessToken.value, expiresAt: 0 } });
      return t.refreshToken.value as string;
    });
    let refreshes = 0;
    let withRt0 = 0;
    let firstArrived!: () => void;
    const arrived = new Promise<void>((r) => {
      firstArrived = r;
    });
    let releaseFirst!: () => void;
    const held = new Promise<void>((r) => {
      releaseFirst = r;
    });
    await ctx.route('**/oauth2/token', async (route) => {
      const body = route.request().postDataJSON();
      if (body?.grantType === 'refresh_token' && body.refreshToken === rt0) withRt0++;
      if (body?.grantType === 'refresh_token' && ++refreshes === 1) {
        firstArrived();
        await held;
      }
      await route.continue();
    });
    const call = (page: Page) =>
      page.evaluate(() =>
        (window as any).client.collections.getCollectionBySlug('summer-linen').then(
          () => 'ok',
          (e: Error) => e.message,
        ),
      );
    const ra = call(a);
    await arrived;
    const rb = call(b);
    if (withLocks)
      await b.waitForFunction(
        async (name) => !!(await navigator.locks.query()).pending?.some((l) => l.name === name),
        lockName,
      );
    else await expect.poll(() => refreshes, { timeout: 30_000 }).toBe(2);
    releaseFirst();
    const results = [await ra, await rb];
    const inB = await b.evaluate(
      async () => (await (window as any).client.auth.getTokens()).accessToken.value,
    );
    const inA = await a.evaluate(
      async () => (await (window as any).client.auth.getTokens()).accessToken.value,
    );
    await ctx.close();
    return { refreshes, withRt0, results, same: inB === inA };
  }

  it('two clients on one storage with Web Locks: exactly one refresh request', async () => {
    const r = await race(true);
    expect(r.results).toEqual(['ok', 'ok']);
    expect(r.refreshes).toBe(1);
    expect(r.withRt0).toBe(1);
    expect(r.same).toBe(true);
  });

  it('the same with webStorage(localStorage), which hands writes to other tabs late: one refresh', async () => {
    for (let round = 0; round < 3; round++) {
      const r = await race(true, 'local');
      expect(r.results).toEqual(['ok', 'ok']);
      expect(r.refreshes).toBe(1);
      expect(r.withRt0).toBe(1);
      expect(r.same).toBe(true);
    }
  });

  it('the control: without Web Locks the same race sends the same refresh token twice', async () => {
    const r = await race(false);
    expect(r.withRt0).toBe(2);
  });
});

describe('SSO and the direct login', () => {
  it('a session token from login-with-token-params logs in through the hidden frame', async () => {
    const { idpConnection } = await owner('/_api/emulator/v1/idp-connections', { name: 'Native ID' });
    const email = newEmail();
    const { idToken } = await owner(`/_api/emulator/v1/idp-connections/${idpConnection.id}/id-tokens`, {
      email,
    });
    const ctx = await shop.browser.newContext();
    const page = await shopPage(ctx);
    const r = await page.evaluate(
      async ({ idp, idToken }) => {
        const client = (window as any).client;
        const login = await client.identity.loginWithTokenParams(idp, { id_token: idToken });
        const tokens = await client.identity.getMemberTokensForDirectLogin(login.data.sessionToken);
        return {
          state: login.loginState as string,
          role: tokens.refreshToken.role as string,
          subject: (await client.identity.getTokenInfo(tokens.accessToken.value)).subjectId as string,
          id: login.data.identity.id as string,
        };
      },
      { idp: idpConnection.id as string, idToken: idToken as string },
    );
    expect(r.state).toBe('SUCCESS');
    expect(r.role).toBe('member');
    expect(r.subject).toBe(r.id);
    await ctx.close();
  });
});
