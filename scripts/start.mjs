#!/usr/bin/env node
// `npm start`: the emulator with the demo store on embedded storage, plus the storefront.
// Prints both URLs and the demo credentials (the API key only to a terminal; all of them in
// .shopkit/credentials.json); Ctrl-C stops both.
import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { connect, createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';

// Programs come from the repository; data (.shopkit/) goes to the working directory.
const root = join(import.meta.dirname, '..');
// Before `npm install`, a sentence that says so rather than a module-resolution stack trace.
let viteBin;
try {
  viteBin = join(dirname(createRequire(import.meta.url).resolve('vite/package.json')), 'bin/vite.js');
} catch {
  console.error('[shopkit] the dependencies are not installed: run `npm install` first, then `npm start`');
  process.exit(1);
}

const STORE_PORT = process.env.STOREFRONT_PORT || '5173';
const EMULATOR_PORT = process.env.EMULATOR_PORT || '4000';
const storeUrl = `http://127.0.0.1:${STORE_PORT}`;
const children = [];
let stopping = false;
/**
 * Stops both children and exits with `code`: the first reason to stop decides it (Ctrl-C: 0; a
 * child that died: its code). Waits for the children to finish (the emulator closes its
 * storage), at most 10 s, so that the prompt comes back with nothing left running.
 */
const stopAll = (code = 0) => {
  if (stopping) return;
  stopping = true;
  process.exitCode = code;
  const running = children.filter((c) => c.exitCode === null && c.signalCode === null);
  for (const c of running) c.kill('SIGTERM');
  Promise.all(running.map((c) => new Promise((resolve) => c.once('exit', resolve)))).then(() =>
    process.exit(code),
  );
  setTimeout(() => {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    process.exit(code);
  }, 10_000).unref();
};
const fatal = (message) => {
  console.error(`[shopkit] ${message}`);
  stopAll(1);
};
process.on('SIGINT', () => stopAll(0));
process.on('SIGTERM', () => stopAll(0));
// The terminal closed, or `kill -HUP`: without this the script died alone and left both running.
process.on('SIGHUP', () => stopAll(0));
// Anything unexpected here stops the children too: none is left running without this script.
process.on('uncaughtException', (e) => fatal(e.stack ?? String(e)));
process.on('unhandledRejection', (e) => fatal(e?.stack ?? String(e)));

for (const [variable, value, min] of [
  ['EMULATOR_PORT', EMULATOR_PORT, 0],
  ['STOREFRONT_PORT', STORE_PORT, 1],
])
  if (!/^\d{1,5}$/.test(value) || Number(value) < min || Number(value) > 65535) {
    console.error(`[shopkit] ${variable} must be a port number, ${min} to 65535; got ${value}`);
    process.exit(2);
  }

// Both ports are checked first: a port in use gets a sentence that says what to do, and the
// storefront's banner never points at someone else's server.
for (const [port, variable] of [
  [EMULATOR_PORT, 'EMULATOR_PORT'],
  [STORE_PORT, 'STOREFRONT_PORT'],
])
  if (Number(port) !== 0 && !(await portFree(Number(port)))) {
    console.error(
      `[shopkit] port ${port} on 127.0.0.1 is in use (another \`npm start\`?). Stop it, or choose another port: ${variable}=${Number(port) + 1} npm start`,
    );
    process.exit(1);
  }

// `--db` of the emulator: memory, a data directory, or a postgres:// URL.
const db = process.env.DATABASE_URL || '.shopkit/data';
const dbLabel = /^postgres(ql)?:\/\//.test(db)
  ? 'PostgreSQL (DATABASE_URL)'
  : db === 'memory'
    ? 'in memory (embedded PGlite; gone when this stops)'
    : `${db} (embedded PGlite)`;
// Each child gets an IPC channel and scripts/with-parent.mjs, so that it stops when this script
// is gone without stopping it (SIGKILL runs no handler here).
const withParent = ['--import', pathToFileURL(join(root, 'scripts/with-parent.mjs')).href];
const emulator = spawn(
  process.execPath,
  [
    ...withParent,
    join(root, 'packages/emulator/bin/shopkit-emulator.mjs'),
    '--json',
    '--port',
    EMULATOR_PORT,
    '--db',
    db,
    '--allowed-origin',
    storeUrl,
  ],
  { stdio: ['ignore', 'pipe', 'inherit', 'ipc'] },
);
children.push(emulator);
emulator.on('exit', (code, signal) => {
  if (!stopping) console.error(`[shopkit] emulator exited (${signal ?? code})`);
  stopAll(code || 1);
});

// Its first line, or nothing if it exits first (it has said why on stderr).
const first = await new Promise((resolve) => {
  createInterface({ input: emulator.stdout })
    .once('line', resolve)
    .once('close', () => resolve(undefined));
});
if (first === undefined) await new Promise(() => {}); // exiting: stopAll has the code
const info = JSON.parse(first);
// The demo credentials, API key included, go to a file only this user can read; the key itself is
// printed only to a terminal, never into a log file or a CI transcript. Written whole and renamed
// into place: a reader never sees half of it, and a file an earlier run left broken is replaced.
const CREDENTIALS = '.shopkit/credentials.json';
mkdirSync('.shopkit', { recursive: true });
const partial = `${CREDENTIALS}.${process.pid}.tmp`;
writeFileSync(partial, JSON.stringify(info, null, 2) + '\n', { mode: 0o600 });
chmodSync(partial, 0o600); // the mode of a new file is also masked by the umask
renameSync(partial, CREDENTIALS);
const apiKey = process.stdout.isTTY
  ? `${info.apiKey}   (merchant calls; stays on your machine)`
  : `in ${CREDENTIALS} (not printed: output is not a terminal)`;

const vite = spawn(
  process.execPath,
  [...withParent, viteBin, '--port', String(STORE_PORT), '--strictPort', '--host', '127.0.0.1'],
  {
    cwd: join(root, 'apps/storefront'),
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    env: { ...process.env, VITE_SHOPKIT_URL: info.url, VITE_SHOPKIT_CLIENT_ID: info.clientId },
  },
);
children.push(vite);
vite.on('exit', (code, signal) => {
  if (!stopping) console.error(`[shopkit] storefront exited (${signal ?? code})`);
  stopAll(code || 1);
});

// The banner goes out once the storefront answers: its address must work when it is shown.
await waitForPort(Number(STORE_PORT));
if (stopping) await new Promise(() => {});

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

/** Whether 127.0.0.1:`port` can be listened on now. */
function portFree(port) {
  return new Promise((resolve) => {
    const server = createServer()
      .once('error', () => resolve(false))
      .listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

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
