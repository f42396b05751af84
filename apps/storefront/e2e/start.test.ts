/**
 * The quick start's main job, `npm start` (scripts/start.mjs), as a user runs it: the emulator with
 * the demo store on embedded storage and the storefront's dev server, both started by the script,
 * the shop loaded in a real Chromium, and Ctrl-C stopping both. It runs in a fresh working
 * directory, so the data and the credentials file land there and not in the repository.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, it } from 'vitest';
import { launchChromium, newPage } from './browser.ts';

const script = fileURLToPath(new URL('../../../scripts/start.mjs', import.meta.url));
const cwd = mkdtempSync(join(tmpdir(), 'shopkit-start-'));
let child: ChildProcess | undefined;
afterAll(() => {
  // The script's own group: its emulator and dev server too, should the test fail half-way.
  if (child?.pid && child.exitCode === null) process.kill(-child.pid, 'SIGKILL');
  rmSync(cwd, { recursive: true, force: true });
});

/** A port nobody listens on now (the storefront's port must be known before it starts). */
async function freePort() {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

it('starts the emulator and the storefront, serves the demo shop, keeps the API key out of its output, and stops both on Ctrl-C', async () => {
  const port = await freePort();
  const env: NodeJS.ProcessEnv = { ...process.env, EMULATOR_PORT: '0', STOREFRONT_PORT: String(port) };
  delete env.DATABASE_URL;
  child = spawn(process.execPath, [script], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => {
    out += d;
  });
  child.stderr!.on('data', (d: Buffer) => {
    out += d;
  });
  const exited = new Promise<number | null>((resolve) => child!.once('exit', resolve));
  await Promise.race([
    new Promise<void>((resolve) =>
      child!.stdout!.on('data', () => out.includes('Press Ctrl-C') && resolve()),
    ),
    exited.then((code) => {
      throw new Error(`npm start exited early (${code}):\n${out}`);
    }),
  ]);

  // The banner names the shop; the key is in a file only this user can read, not in the output.
  const storefront = `http://127.0.0.1:${port}`;
  expect(out).toContain(`Storefront:  ${storefront}`);
  expect(out).toContain('Data:        .shopkit/data (embedded PGlite)');
  const credentials = join(cwd, '.shopkit/credentials.json');
  const info = JSON.parse(readFileSync(credentials, 'utf8'));
  expect(Object.keys(info).sort()).toEqual(['apiKey', 'clientId', 'siteId', 'url']);
  expect(statSync(credentials).mode & 0o777).toBe(0o600);
  expect(out).toContain(`Client id:   ${info.clientId}`);
  expect(out).toContain('API key:     in .shopkit/credentials.json (not printed: output is not a terminal)');
  expect(out).not.toContain(info.apiKey);
  expect(statSync(join(cwd, '.shopkit/data')).isDirectory()).toBe(true);

  // The shop loads in Chromium from the dev server, through the SDK, against that emulator.
  const browser = await launchChromium();
  try {
    const { page, errors } = await newPage(browser);
    await page.goto(storefront);
    const list = page.getByRole('list', { name: 'Collections' });
    await list.waitFor();
    expect(await list.getByRole('heading').allTextContents()).toContain('Summer Linen');
    expect(errors).toEqual([]);
  } finally {
    await browser.close();
  }

  // Ctrl-C stops both: the script exits with 0, and neither the shop nor the emulator answers.
  child.kill('SIGINT');
  expect(await exited).toBe(0);
  for (const url of [storefront, `${info.url}/health`])
    await expect
      .poll(
        () =>
          fetch(url).then(
            () => 'up',
            () => 'down',
          ),
        { timeout: 10_000 },
      )
      .toBe('down');
}, 120_000);
