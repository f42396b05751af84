import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator } from '../src/testing.ts';

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
  const bin = fileURLToPath(new URL('../bin/shopkit-emulator.mjs', import.meta.url));
  const dir = mkdtempSync(join(tmpdir(), 'shopkit-cli-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  function start(args: string[]) {
    const child = spawn(process.execPath, [bin, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    const ready = new Promise<Record<string, string>>((resolve, reject) => {
      createInterface({ input: child.stdout! }).once('line', (line) => resolve(JSON.parse(line)));
      child.once('exit', (code) => reject(new Error(`exited early with ${code}`)));
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    return { child, ready, exited };
  }

  it('prints one JSON line when ready, stops cleanly on SIGTERM, keeps its data, and keeps the API key out of a piped banner', async () => {
    const first = start(['--port', '0', '--db', join(dir, 'data'), '--json']);
    const info = await first.ready;
    expect(Object.keys(info).sort()).toEqual(['apiKey', 'clientId', 'siteId', 'url']);
    const token = await fetch(`${info.url}/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ clientId: info.clientId, grantType: 'anonymous' }),
    }).then((r) => r.json());
    first.child.kill('SIGTERM');
    expect(await first.exited).toBe(0);

    const second = start(['--port', '0', '--db', join(dir, 'data'), '--json']);
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
    expect(await second.exited).toBe(0);

    // Without --json, into a pipe (a log file, CI): the banner names everything but the API key.
    const plain = spawn(process.execPath, [bin, '--port', '0', '--db', join(dir, 'data')], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let banner = '';
    plain.stdout.on('data', (d: Buffer) => {
      banner += d;
    });
    await new Promise<void>((resolve, reject) => {
      plain.stdout.on('data', () => banner.includes('public key') && resolve());
      plain.once('exit', (code) => reject(new Error(`exited early with ${code}: ${banner}`)));
    });
    plain.kill('SIGTERM');
    expect(banner).toContain(info.clientId);
    expect(banner).toMatch(/API key: +not printed \(output is not a terminal; --json prints it\)/);
    expect(banner).not.toContain(info.apiKey);
  }, 180_000);

  it('refuses bad flags with a usage message and exit code 2', async () => {
    const bad = start(['--port', 'abc']);
    await expect(bad.ready).rejects.toThrow('exited early with 2');
    expect(await bad.exited).toBe(2);
  });
});
