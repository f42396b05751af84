#!/usr/bin/env node
// `npm start`: the emulator with the demo store on embedded storage, plus the storefront.
// Prints both URLs and the demo credentials; Ctrl-C stops both.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

const STORE_PORT = Number(process.env.STOREFRONT_PORT ?? 5173);
const storeUrl = `http://127.0.0.1:${STORE_PORT}`;
const children = [];
const stopAll = (code = 0) => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGTERM');
  setTimeout(() => process.exit(code), 300).unref();
};
process.on('SIGINT', () => stopAll(0));
process.on('SIGTERM', () => stopAll(0));

const emulator = spawn(
  process.execPath,
  [
    'packages/emulator/bin/shopkit-emulator.mjs',
    '--json',
    '--port',
    process.env.EMULATOR_PORT ?? '4000',
    '--db',
    process.env.DATABASE_URL ?? '.shopkit/data',
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

const vite = spawn('npx', ['vite', '--port', String(STORE_PORT), '--strictPort', '--host', '127.0.0.1'], {
  cwd: 'apps/storefront',
  stdio: ['ignore', 'ignore', 'inherit'],
  env: { ...process.env, VITE_SHOPKIT_URL: info.url, VITE_SHOPKIT_CLIENT_ID: info.clientId },
});
children.push(vite);
vite.on('exit', (code) => {
  console.error(`[shopkit] storefront exited (${code})`);
  stopAll(code ?? 1);
});

console.log(`
  Shopkit is running.

  Storefront:  ${storeUrl}
  Merchant:    ${storeUrl}/merchant   (paste the API key below)
  Emulator:    ${info.url}
  Client id:   ${info.clientId}
  Site id:     ${info.siteId}
  API key:     ${info.apiKey}   (merchant calls; stays on your machine)
  Data:        ${process.env.DATABASE_URL ? 'PostgreSQL (DATABASE_URL)' : '.shopkit/data (embedded PGlite)'}

  Press Ctrl-C to stop.
`);
