/**
 * Security checklist items of the silent login whose unit tests a mutation audit found missing
 * (docs/security.md), run against the emulator's real `web_message` answer: unrelated messages
 * from the login frame neither resolve nor reject the login (16), and every outcome (success, the
 * server's error, the timeout) leaves no `message` listener and no frame behind (17).
 *
 * The stand-in browser's hidden frame really loads the authorize page from the emulator and posts
 * what its script posts, to the origin the script names; the page that asked is `SHOP` (the
 * redirect-session request carries it as `Origin`, as a browser's would).
 */
import { testBackends } from '@shopkit/emulator/testing';
import { describe, expect, it } from 'vitest';
import { identity } from '../../src/index.ts';
import { setupEmulator, visitorClient } from './setup.ts';

const SHOP = 'http://shop.test:5173';

interface Frame {
  contentWindow: object;
  removed: boolean;
}

/**
 * Installs a stand-in `window` and `document`. A frame whose `src` is set fetches the page, reads
 * the `postMessage(payload, target)` of its script, and, when the target is `SHOP`, posts first
 * `before` (unrelated messages, from the frame's own window and the page's origin), then the
 * page's own payload. `answer: false` loads the page and posts nothing. Counts the listeners.
 */
function standInBrowser(before: unknown[], answer = true) {
  const g = globalThis as { window?: unknown; document?: unknown };
  const win = new EventTarget();
  const listeners = new Set<unknown>();
  const add = win.addEventListener.bind(win);
  const remove = win.removeEventListener.bind(win);
  win.addEventListener = (type: string, l: EventListenerOrEventListenerObject | null, o?: unknown) => {
    if (type === 'message') listeners.add(l);
    add(type, l, o as AddEventListenerOptions);
  };
  win.removeEventListener = (type: string, l: EventListenerOrEventListenerObject | null, o?: unknown) => {
    if (type === 'message') listeners.delete(l);
    remove(type, l, o as EventListenerOptions);
  };
  const frames: Frame[] = [];
  const loads: Promise<void>[] = [];
  const post = (origin: string, source: object, data: unknown) =>
    win.dispatchEvent(Object.assign(new Event('message'), { origin, source, data }));
  g.window = win;
  g.document = {
    body: { appendChild() {} },
    createElement() {
      const frame: Frame & { style: object; remove(): void; src: string } = {
        style: {},
        contentWindow: {},
        removed: false,
        remove() {
          frame.removed = true;
        },
        set src(url: string) {
          loads.push(
            (async () => {
              const html = await (await fetch(url)).text();
              const m = /postMessage\((.*),("[^"]*")\);<\/script>/.exec(html);
              if (!m || JSON.parse(m[2]!) !== SHOP || !answer) return;
              const origin = new URL(url).origin;
              for (const data of before) post(origin, frame.contentWindow, data);
              post(origin, frame.contentWindow, JSON.parse(m[1]!));
            })(),
          );
        },
      };
      frames.push(frame);
      return frame;
    },
  };
  return {
    listeners,
    frames,
    loads,
    restore() {
      delete g.window;
      delete g.document;
    },
  };
}

describe.each(testBackends())('silent login, security audit 2 (%s)', (backend) => {
  const emu = setupEmulator(backend, { allowedOrigins: [SHOP] });
  let n = 0;
  /** A visitor client whose redirect-session request carries `Origin: SHOP`, as a browser's would. */
  const shopClient = () =>
    visitorClient(
      emu,
      { identity },
      {
        fetch: (input, init) =>
          fetch(input, {
            ...init,
            headers: { ...(init?.headers as Record<string, string>), origin: SHOP },
          }),
      },
    );
  /** A new member's session token, from a registration on `client`. */
  const sessionToken = async (client: ReturnType<typeof shopClient>) => {
    const r = await client.identity.register({
      email: `audit2-${++n}-${backend}@example.test`,
      password: 'long enough pw',
    });
    return r.data!.sessionToken!;
  };

  it('checklist 16: unrelated messages from the login frame neither resolve nor reject; the real answer then resolves', async () => {
    const client = shopClient();
    const token = await sessionToken(client);
    const browser = standInBrowser([
      { foo: 1 },
      null,
      'a string',
      { error: 'login_required' },
      { state: 'another flow', error: 'login_required' },
      { state: 'another flow', code: 'not this one' },
    ]);
    try {
      const tokens = await client.identity.getMemberTokensForDirectLogin(token, { timeoutMs: 10_000 });
      expect(tokens.refreshToken.role).toBe('member');
      expect(tokens.accessToken.value).toBeTruthy();
    } finally {
      await Promise.all(browser.loads);
      browser.restore();
    }
  });

  it('checklist 17: success, the server’s error and the timeout each leave no message listener and no frame', async () => {
    const client = shopClient();
    const token = await sessionToken(client);
    const outcomes: string[] = [];
    const run = async (answer: boolean, timeoutMs: number) => {
      const browser = standInBrowser([], answer);
      try {
        outcomes.push(
          await client.identity
            .getMemberTokensForDirectLogin(token, { timeoutMs })
            .then((t) => `tokens of a ${t.refreshToken.role}`)
            .catch((e: { code?: string }) => `failed: ${e.code}`),
        );
        await Promise.all(browser.loads);
        expect(browser.frames.length).toBe(1);
        expect(browser.frames.every((f) => f.removed)).toBe(true);
        expect(browser.listeners.size).toBe(0);
      } finally {
        browser.restore();
      }
    };
    await run(true, 10_000); // the session token logs in once
    await run(true, 10_000); // used: the page posts login_required
    await run(false, 50); // the page posts nothing: the configured timeout ends the wait
    expect(outcomes).toEqual(['tokens of a member', 'failed: login_required', 'failed: TIMEOUT']);
  });
});
