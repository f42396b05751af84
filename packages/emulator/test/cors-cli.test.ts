import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator } from '../src/testing.ts';
import { exited, runCli, startCli } from './faults-cli.ts';

describe('CORS for allowed origins only', () => {
  let emu: TestEmulator;
  beforeAll(async () => {
    emu = await startTestEmulator('pglite', { allowedOrigins: ['http://shop.test:5173'] });
  });
  afterAll(() => emu?.stop());

  it('answers a preflight from an allowed origin, exposing the request id', async () => {
    const res = await fetch(`${emu.url}/oauth2/token`, {
      method: 'OPTIONS',
      headers: {
        origin: 'http://shop.test:5173',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type',
      },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe('http://shop.test:5173');
    expect(res.headers.get('access-control-allow-headers')).toMatch(/Authorization/);
    const real = await fetch(`${emu.url}/health`, { headers: { origin: 'http://shop.test:5173' } });
    expect(real.headers.get('access-control-expose-headers')).toMatch(/X-Wix-Request-Id/);
  });

  it('puts the request id and CORS headers on every response, a Response of the route’s own included', async () => {
    const SHOP = 'http://shop.test:5173';
    const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
    const calls = [
      ...emu.routes.map((r) => ({ method: r.method, path: r.path.replace(/:[A-Za-z_]+/g, 'x') })),
      { method: 'GET', path: '/health' },
      { method: 'GET', path: '/media/x.svg' },
      { method: 'GET', path: '/no/such/route' },
    ];
    // GET /graphql/alpha answers the SDL as a plain `Response`: the case that had no request id.
    expect(calls).toContainEqual({ method: 'GET', path: '/graphql/alpha' });
    for (const { method, path } of calls) {
      const body = method === 'GET' || method === 'DELETE' ? undefined : '{}';
      const res = await fetch(`${emu.url}${path}`, {
        method,
        headers: {
          authorization: emu.demo.apiKey,
          origin: SHOP,
          ...(body ? { 'content-type': 'application/json' } : {}),
        },
        body,
        redirect: 'manual',
      });
      await res.body?.cancel();
      expect(res.headers.get('x-wix-request-id'), `${method} ${path}`).toMatch(uuid);
      // The authorize page is the one place that never answers cross-origin calls.
      if (!path.startsWith('/oauth2/authorize'))
        expect(res.headers.get('access-control-allow-origin'), `${method} ${path}`).toBe(SHOP);
    }
  });

  it('gives no CORS headers to any other origin, however close', async () => {
    for (const origin of [
      'http://evil.test',
      'http://shop.test:5174',
      'http://shop.test:5173.evil.test',
      'https://shop.test:5173',
    ]) {
      const res = await fetch(`${emu.url}/oauth2/token`, {
        method: 'OPTIONS',
        headers: { origin, 'access-control-request-method': 'POST' },
      });
      expect(res.headers.get('access-control-allow-origin')).toBeNull();
    }
  });
});

describe('the shopkit-emulator command', () => {
  const dir = mkdtempSync(join(tmpdir(), 'shopkit-cli-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('prints one JSON line when ready, stops cleanly on SIGTERM, keeps its data, and keeps the API key out of a piped banner', async () => {
    const first = startCli(join(dir, 'data'));
    const info = await first.ready;
    expect(Object.keys(info).sort()).toEqual(['apiKey', 'clientId', 'siteId', 'url']);
    const token = await fetch(`${info.url}/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ clientId: info.clientId, grantType: 'anonymous' }),
    }).then((r) => r.json());
    first.child.kill('SIGTERM');
    await exited(first.child);
    expect(first.child.exitCode).toBe(0);

    const second = startCli(join(dir, 'data'));
    const again = await second.ready;
    expect(again.clientId).toBe(info.clientId);
    expect(again.apiKey).toBe(info.apiKey);
    // The refresh token issued before the restart still works: nothing was lost.
    const refreshed = await fetch(`${again.url}/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        clientId: info.clientId,
        grantType: 'refresh_token',
        refreshToken: token.refresh_token,
      }),
    });
    expect(refreshed.status).toBe(200);
    second.child.kill('SIGTERM');
    await exited(second.child);
    expect(second.child.exitCode).toBe(0);

    // Without --json, into a pipe (a log file, CI): the banner names everything but the API key.
    const plain = runCli(['--port', '0', '--db', join(dir, 'data')]);
    const banner = await plain.printed('public key');
    plain.child.kill('SIGTERM');
    await exited(plain.child);
    expect(banner).toContain(info.clientId);
    expect(banner).toMatch(/API key: +not printed \(output is not a terminal; --json prints it\)/);
    expect(banner).not.toContain(info.apiKey);
  }, 180_000);

  it('refuses bad flags with a usage message and exit code 2', async () => {
    const bad = runCli(['--port', 'abc']);
    await expect(bad.printed('\n')).rejects.toThrow('exited early with 2');
    expect(bad.child.exitCode).toBe(2);
    expect(bad.stderr()).toMatch(/--port must be 0 to 65535, got abc\nUsage: shopkit-emulator/);
  });

  it('refuses an empty or non-decimal number, a URL of another database, and a retry delay past the cap', async () => {
    // In a directory of their own, to see that nothing is created there.
    const cwd = mkdtempSync(join(tmpdir(), 'shopkit-cli-flags-'));
    const env = { ...process.env, DATABASE_URL: undefined };
    const cases: Array<[args: string[], message: string, env?: NodeJS.ProcessEnv]> = [
      [['--port', ''], '--port must be 0 to 65535, got ""'],
      [['--port', '1e3'], '--port must be 0 to 65535, got 1e3'],
      [['--port', '0x10'], '--port must be 0 to 65535, got 0x10'],
      [['--db', ''], '--db must be memory, a data directory or a postgres:// URL, got ""'],
      [['--db', 'mysql://x'], '--db must be memory, a data directory or a postgres:// URL, got mysql://x'],
      [
        [],
        'DATABASE_URL must be memory, a data directory or a postgres:// URL, got mysql://***@db/app',
        { ...env, DATABASE_URL: 'mysql://app:secret@db/app' },
      ],
      [['--webhook-retry-ms', '300001'], '--webhook-retry-ms must be 1 to 300000, got 300001'],
      [['--webhook-retry-ms', '1e3'], '--webhook-retry-ms must be 1 to 300000, got 1e3'],
      [['--webhook-attempts', ' 8'], '--webhook-attempts must be 1 to 100, got  8'],
    ];
    const children: ChildProcess[] = [];
    try {
      await Promise.all(
        cases.map(async ([args, message, withEnv]) => {
          const bad = runCli(['--port', '0', ...args], { cwd, env: withEnv ?? env });
          children.push(bad.child);
          await expect(bad.printed('\n'), args.join(' ')).rejects.toThrow('exited early with 2');
          expect(bad.stderr(), args.join(' ')).toMatch(/^shopkit-emulator: .*\nUsage: shopkit-emulator/);
          expect(bad.stderr().split('\n')[0], args.join(' ')).toBe(`shopkit-emulator: ${message}`);
        }),
      );
      expect(readdirSync(cwd)).toEqual([]);
      expect(existsSync(join(cwd, 'mysql:'))).toBe(false);
    } finally {
      // One that started after all must not outlive the test.
      for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
      rmSync(cwd, { recursive: true, force: true });
    }
  });
});
