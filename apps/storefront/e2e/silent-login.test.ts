/**
 * Silent login in a real Chromium: the SDK's hidden frame with `web_message` against the emulator,
 * from a page on another origin. Success, a forged message from a foreign origin ignored, a server
 * error answered at once, the timeout, and nothing (frames, listeners) left behind.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { holdAuthorize, sdkShop, setupShopOrigin, withSdkClient } from './browser.ts';

const shop = setupShopOrigin(sdkShop);

/** A page on the shop origin with the SDK loaded and `message` listeners counted. */
async function shopPage(): Promise<Page> {
  const page = await shop.browser.newPage();
  await page.addInitScript(() => {
    const w = window as any;
    w.__listeners = 0;
    const add = window.addEventListener.bind(window);
    const remove = window.removeEventListener.bind(window);
    window.addEventListener = ((type: string, ...rest: any[]) => {
      if (type === 'message') w.__listeners++;
      return (add as any)(type, ...rest);
    }) as typeof window.addEventListener;
    window.removeEventListener = ((type: string, ...rest: any[]) => {
      if (type === 'message') w.__listeners--;
      return (remove as any)(type, ...rest);
    }) as typeof window.removeEventListener;
  });
  await page.goto(shop.origin);
  await withSdkClient(page, shop.emu);
  return page;
}

const leftovers = (page: Page) =>
  page.evaluate(() => ({
    frames: document.querySelectorAll('iframe').length,
    listeners: (window as any).__listeners,
  }));

let n = 0;
const register = (page: Page) =>
  page.evaluate(async (email) => {
    const r = await (window as any).client.identity.register({ email, password: 'long enough pw' });
    return r.data.sessionToken as string;
  }, `silent${++n}@example.test`);

describe('silent login in Chromium', () => {
  it('gets member tokens through the hidden frame and leaves nothing behind', async () => {
    const page = await shopPage();
    const sessionToken = await register(page);
    const role = await page.evaluate(async (t) => {
      const tokens = await (window as any).client.identity.getMemberTokensForDirectLogin(t);
      return tokens.refreshToken.role;
    }, sessionToken);
    expect(role).toBe('member');
    expect(await leftovers(page)).toEqual({ frames: 0, listeners: 0 });
    await page.close();
  });

  it('ignores a message with the right state from a foreign origin or another window', async () => {
    const page = await shopPage();
    const sessionToken = await register(page);
    // Hold the authorize answer until the forged messages have been posted.
    const release = await holdAuthorize(page);
    const result = page.evaluate(async (t) => {
      const client = (window as any).client;
      const seen = new Promise<string>((resolve) => {
        const obs = new MutationObserver(() => {
          const f = document.querySelector('iframe');
          if (f?.src) {
            obs.disconnect();
            resolve(new URL(f.src).searchParams.get('state')!);
          }
        });
        obs.observe(document.body, { childList: true });
      });
      const login = client.identity.getMemberTokensForDirectLogin(t);
      const state = await seen;
      // Same state, wrong origin (this page) and wrong source: both must be ignored.
      window.postMessage({ code: 'forged', state }, '*');
      (window as any).__forged = true;
      const tokens = await login;
      return tokens.refreshToken.role as string;
    }, sessionToken);
    await page.waitForFunction(() => (window as any).__forged === true);
    release();
    expect(await result).toBe('member');
    expect(await leftovers(page)).toEqual({ frames: 0, listeners: 0 });
    await page.close();
  });

  it('a server error arrives as a message and fails at once', async () => {
    const page = await shopPage();
    const error = await page.evaluate(async () => {
      try {
        // Default 120 s timeout: only the server's answer can end this within the test timeout.
        await (window as any).client.identity.getMemberTokensForDirectLogin('not-a-session-token');
        return 'resolved';
      } catch (e) {
        return `${(e as Error).message}|${(e as { code?: string }).code}`;
      }
    });
    expect(error).toBe('Silent login failed: login_required|login_required');
    expect(await leftovers(page)).toEqual({ frames: 0, listeners: 0 });
    await page.close();
  });

  it('times out with "OAuth flow timed out" when no answer comes', async () => {
    const page = await shopPage();
    const sessionToken = await register(page);
    await page.route('**/oauth2/authorize**', () => {
      // Never answered.
    });
    const error = await page.evaluate(async (t) => {
      try {
        await (window as any).client.identity.getMemberTokensForDirectLogin(t, { timeoutMs: 500 });
        return 'resolved';
      } catch (e) {
        return (e as Error).message;
      }
    }, sessionToken);
    expect(error).toBe('OAuth flow timed out');
    expect(await leftovers(page)).toEqual({ frames: 0, listeners: 0 });
    await page.close();
  });
});
