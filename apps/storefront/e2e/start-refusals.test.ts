/**
 * `npm start` (scripts/start.mjs) when it cannot run: a port in use, a bad port number, or an
 * emulator that stops before it is ready. Each is a sentence saying what to do and a failing exit
 * code, with no banner (which would point at someone else's server) and nothing left running.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, it } from 'vitest';

const script = fileURLToPath(new URL('../../../scripts/start.mjs', import.meta.url));
const cwd = mkdtempSync(join(tmpdir(), 'shopkit-start-refusals-'));
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

/** Runs the script to its end; resolves with its exit code and everything it printed. */
function start(env: NodeJS.ProcessEnv) {
  const full = { ...process.env, ...env };
  delete full.DATABASE_URL;
  const child = spawn(process.execPath, [script], { cwd, env: full, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d: Buffer) => {
    out += d;
  });
  child.stderr.on('data', (d: Buffer) => {
    out += d;
  });
  return new Promise<{ code: number | null; out: string }>((resolve) =>
    child.once('close', (code) => resolve({ code, out })),
  );
}

async function listening() {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as { port: number }).port };
}

it('refuses a storefront or emulator port in use, naming the variable to change', async () => {
  const { server, port } = await listening();
  try {
    const store = await start({ EMULATOR_PORT: '0', STOREFRONT_PORT: String(port) });
    expect(store.code).toBe(1);
    expect(store.out).toContain(`[shopkit] port ${port} on 127.0.0.1 is in use`);
    expect(store.out).toContain(`STOREFRONT_PORT=${port + 1} npm start`);
    expect(store.out).not.toContain('Shopkit is running');
    const emulator = await start({ EMULATOR_PORT: String(port), STOREFRONT_PORT: String(port) });
    expect(emulator.code).toBe(1);
    expect(emulator.out).toContain(`EMULATOR_PORT=${port + 1} npm start`);
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
});

it('refuses a port that is not a number', async () => {
  const run = await start({ EMULATOR_PORT: 'abc' });
  expect(run.code).toBe(2);
  expect(run.out).toContain('[shopkit] EMULATOR_PORT must be a port number, 0 to 65535; got abc');
});

it('fails with the emulator’s own reason and code when the emulator stops before it is ready', async () => {
  // A data directory the emulator cannot use: a file where the directory should be.
  mkdirSync(join(cwd, '.shopkit'), { recursive: true });
  writeFileSync(join(cwd, '.shopkit/data'), 'not a directory');
  const { port } = await listening().then(async ({ server, port }) => {
    await new Promise((resolve) => server.close(resolve));
    return { port };
  });
  try {
    const run = await start({ EMULATOR_PORT: '0', STOREFRONT_PORT: String(port) });
    expect(run.out).toMatch(/shopkit-emulator: could not start: .*\.shopkit\/data/);
    expect(run.out).toContain('[shopkit] emulator exited (1)');
    expect(run.out).not.toContain('Shopkit is running');
    expect(run.code).toBe(1);
  } finally {
    rmSync(join(cwd, '.shopkit'), { recursive: true, force: true });
  }
}, 60_000);
