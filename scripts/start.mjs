#!/usr/bin/env node
// `npm start`: the emulator with the demo store on embedded storage, plus the storefront.
// Prints both URLs and the demo credentials (the API key only to a terminal; all of them in
// .shopkit/credentials.json); Ctrl-C stops both.
import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { connect } from 'node:net';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';

// Programs come from the repository; data (.shopkit/) goes to the working directory.
const root = join(import.meta.dirname, '..');
const viteBin = join(dirname(createRequire(import.meta.url).resolve('vite/package.json')), 'bin/vite.js');

const STORE_PORT = Number(process.env.STOREFRONT_PORT ?? 5173);
const storeUrl = `http://127.0.0.1:${STORE_PORT}`;
const children = [];
const stopAll = (code = 0) => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGTERM');
  setTimeout(() => process.exit(code), 300).unref();
};
process.on('SIGINT', () => stopAll(0));
process.on('SIGTERM', () => stopAll(0));

// `--db` of the emulator: memory, a data directory, or a postgres:// URL.
const db = process.env.DATABASE_URL || '.shopkit/data';
const dbLabel = /^postgres(ql)?:\/\//.test(db)
  ? 'PostgreSQL (DATABASE_URL)'
  : db === 'memory'
    ? 'in memory (embedded PGlite; gone when this stops)'
    : `${db} (embedded PGlite)`;
const emulator = spawn(
  process.execPath,
  [
    join(root, 'packages/emulator/bin/shopkit-emulator.mjs'),
    '--json',
    '--port',
    process.env.EMULATOR_PORT ?? '4000',
    '--db',
    db,
    '--allowed-origin',
    storeUrl,
  ],
  { stdio: ['ignore', 'pipe', 'inherit'] },
);
children.push(emulator);
emulator.on('exit', (code) => {
  console.error(`[shopkit] emulator exited (${code})`);
  stopAll(code ?? 1);
});

const first = await new Promise((resolve) =>
  createInterface({ input: emulator.stdout }).once('line', resolve),
);
const info = JSON.parse(first);
// The demo credentials, API key included, go to a file only this user can read; the key itself is
// printed only to a terminal, never into a log file or a CI transcript.
const CREDENTIALS = '.shopkit/credentials.json';
mkdirSync('.shopkit', { recursive: true });
writeFileSync(CREDENTIALS, JSON.stringify(info, null, 2) + '\n', { mode: 0o600 });
chmodSync(CREDENTIALS, 0o600); // also when an earlier run left the file
const apiKey = process.stdout.isTTY
  ? `${info.apiKey}   (merchant calls; stays on your machine)`
  : `in ${CREDENTIALS} (not printed: output is not a terminal)`;

const vite = spawn(
  process.execPath,
  [viteBin, '--port', String(STORE_PORT), '--strictPort', '--host', '127.0.0.1'],
  {
    cwd: join(root, 'apps/storefront'),
    stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, VITE_SHOPKIT_URL: info.url, VITE_SHOPKIT_CLIENT_ID: info.clientId },
  },
);
children.push(vite);
vite.on('exit', (code) => {
  console.error(`[shopkit] storefront exited (${code})`);
  stopAll(code ?? 1);
});

// The banner goes out once the storefront answers: its address must work when it is shown.
await waitForPort(STORE_PORT);

console.log(`
  Shopkit is running.

  Storefront:  ${storeUrl}
  Merchant:    ${storeUrl}/merchant   (paste the API key)
  Emulator:    ${info.url}
  Client id:   ${info.clientId}
  Site id:     ${info.siteId}
  API key:     ${apiKey}
  Data:        ${dbLabel}

  Press Ctrl-C to stop.
`);

/** Resolves once something accepts connections on 127.0.0.1:`port` (tries every 100 ms). */
async function waitForPort(port) {
  for (;;) {
    const open = await new Promise((resolve) => {
      const socket = connect(port, '127.0.0.1');
      const done = (ok) => {
        socket.destroy();
        resolve(ok);
      };
      socket.once('connect', () => done(true));
      socket.once('error', () => done(false));
    });
    if (open) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
