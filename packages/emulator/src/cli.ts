/**
 * `shopkit-emulator`: the emulator's command line.
 *
 *   --port <n>             port to listen on; 0 picks a free one (default 4000)
 *   --host <h>             address to bind (default 127.0.0.1)
 *   --db <spec>            memory | <data dir> | postgres://… (default .shopkit/data, or DATABASE_URL);
 *                          PostgreSQL needs a database of its own (33 tables: `events`, `products`, …)
 *   --seed demo|none       seed the demo store on first start (default demo)
 *   --allowed-origin <url> an origin allowed for CORS and OAuth redirects (repeatable)
 *   --json                 print one JSON line {url, clientId, apiKey, siteId} when ready (the
 *                          banner shows the API key only when stdout is a terminal)
 *   --webhook <url>        POST every lifecycle event to this URL as a signed JWT (repeatable); the
 *                          command-line subscriptions are the URLs given this time, others removed
 *   --webhook-retry-ms <n> first retry delay of a failed delivery (default 1000, at most 300000):
 *                          ½ to 1× it, doubling with each attempt up to 5 minutes
 *   --webhook-attempts <n> attempts before a delivery is dead-lettered (default 8)
 *   --help, -h / --version print the usage / the version and exit
 *
 * Exit codes: 0 after SIGTERM, SIGINT or SIGHUP (one during start-up stops it once started, a
 * second SIGINT at once with 130); 1 when it cannot start (port in use, storage unreachable,
 * refused or in use by another emulator); 2 for a bad command line.
 * @module
 */
import { readFileSync } from 'node:fs';
import { constants } from 'node:os';
import { parseArgs } from 'node:util';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import {
  DEFAULT_RETRY_MAX_MS,
  PUBLIC_KEY_PATH,
  receivers,
  webhookFlagProblem,
} from './domains/webhooks/index.ts';
import { type RunningEmulator, startEmulator } from './server.ts';

const USAGE = `Usage: shopkit-emulator [--port 4000] [--host 127.0.0.1] [--db memory|<dir>|postgres://…]
                        [--seed demo|none] [--allowed-origin <url>]… [--json]
                        [--webhook <url>]… [--webhook-retry-ms 1000] [--webhook-attempts 8]`;

const FLAGS = `  --port <n>             port to listen on, 0 to 65535; 0 picks a free one (default 4000)
  --host <h>             address to bind (default 127.0.0.1)
  --db <spec>            memory | <data dir> | postgres://… (default .shopkit/data, or DATABASE_URL)
  --seed demo|none       seed the demo store on first start (default demo)
  --allowed-origin <url> an origin allowed for CORS and OAuth redirects (repeatable)
  --json                 print one JSON line {url, clientId, apiKey, siteId} when ready
  --webhook <url>        POST every lifecycle event to this URL as a signed JWT (repeatable)
  --webhook-retry-ms <n> first retry delay of a failed delivery (default 1000, at most 300000)
  --webhook-attempts <n> attempts before a delivery is dead-lettered (default 8, at most 100)
  --help, -h             this text
  --version              the emulator's version

Exit codes: 0 after SIGTERM, SIGINT or SIGHUP; 1 when it cannot start; 2 for a bad command line.`;

/** A bad command line: the message and the usage, exit code 2. */
function fail(message: string): never {
  process.stderr.write(`shopkit-emulator: ${message}\n${USAGE}\n`);
  process.exit(2);
}

/** A good command line that could not run (port taken, storage unreachable or in use): exit code 1. */
function die(message: string): never {
  process.stderr.write(`shopkit-emulator: ${message}\n`);
  process.exit(1);
}

/** The options that take a value: `--port -1` is that value, not an unknown option `-1`. */
const VALUED = [
  'port',
  'host',
  'db',
  'seed',
  'allowed-origin',
  'webhook',
  'webhook-retry-ms',
  'webhook-attempts',
];
const args: string[] = [];
for (const arg of process.argv.slice(2)) {
  const last = args.at(-1);
  if (/^-\d/.test(arg) && last?.startsWith('--') && VALUED.includes(last.slice(2)))
    args[args.length - 1] += `=${arg}`;
  else args.push(arg);
}

let values: Record<string, string | boolean | string[] | undefined>;
try {
  ({ values } = parseArgs({
    args,
    options: {
      port: { type: 'string', default: '4000' },
      host: { type: 'string', default: '127.0.0.1' },
      db: { type: 'string' },
      seed: { type: 'string', default: 'demo' },
      'allowed-origin': { type: 'string', multiple: true, default: [] },
      json: { type: 'boolean', default: false },
      webhook: { type: 'string', multiple: true, default: [] },
      'webhook-retry-ms': { type: 'string', default: '1000' },
      'webhook-attempts': { type: 'string', default: '8' },
      help: { type: 'boolean', short: 'h', default: false },
      version: { type: 'boolean', default: false },
    },
    strict: true,
  }));
} catch (e) {
  fail((e as Error).message);
}
if (values.help) {
  process.stdout.write(`${USAGE}\n\n${FLAGS}\n`);
  process.exit(0);
}
if (values.version) {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  process.stdout.write(`shopkit-emulator ${pkg.version}\n`);
  process.exit(0);
}
/** A flag's value as a whole number in [min, max], written in digits (not '', 1e3 or 0x10). */
function int(flag: string, min: number, max: number): number {
  const raw = values[flag] as string;
  const n = /^\d{1,16}$/.test(raw) ? Number(raw) : Number.NaN;
  if (!(n >= min && n <= max)) fail(`--${flag} must be ${min} to ${max}, got ${raw || '""'}`);
  return n;
}

const port = int('port', 0, 65535);
// An empty host (an unset variable expanded) bound every interface and printed `http://:PORT`.
if (!(values.host as string).trim()) fail('--host must be an address such as 127.0.0.1 or 0.0.0.0, got ""');
if (values.seed !== 'demo' && values.seed !== 'none') fail(`--seed must be demo or none, got ${values.seed}`);
const origins = values['allowed-origin'] as string[];
for (const o of origins) {
  try {
    if (new URL(o).origin !== o) throw new Error();
  } catch {
    fail(`--allowed-origin must be an origin such as http://localhost:5173, got ${o}`);
  }
}
const hooks = values.webhook as string[];
// The API's checks (control characters, length, bad ports): a URL it would refuse is a bad
// command line (exit 2), not a start that fails (exit 1, "could not start").
for (const h of hooks) {
  const problem = webhookFlagProblem(h);
  if (problem) fail(problem);
}
// Delays are capped at 5 minutes: a first delay beyond it would be the cap anyway.
const retryMs = int('webhook-retry-ms', 1, DEFAULT_RETRY_MAX_MS);
const attempts = int('webhook-attempts', 1, 100);
// An empty DATABASE_URL is unset; an empty --db is a mistake.
const fromEnv = values.db === undefined && !!process.env.DATABASE_URL;
const db = (values.db as string | undefined) ?? (process.env.DATABASE_URL || '.shopkit/data');
const dbFlag = fromEnv ? 'DATABASE_URL' : '--db';
if (!db.trim()) fail(`${dbFlag} must be memory, a data directory or a postgres:// URL, got ""`);
// `mysql://x` or `sqlite:x` is not a directory to create: a URL of another database is refused.
// (One-letter schemes stay paths: `C:\data` on Windows.)
if (/^[a-z][a-z0-9+.-]+:/i.test(db) && !/^postgres(ql)?:\/\//.test(db))
  fail(`${dbFlag} must be memory, a data directory or a postgres:// URL, got ${redactDb(db)}`);

// Signals are handled from here on, start-up included. One during start-up (Ctrl-C while a new
// data directory is initialised) stops the emulator as soon as it has started, storage closed
// and exit code 0, as after it; before, the signal's default ended the process mid-write. A
// second SIGINT (Ctrl-C pressed again, by a person) ends it at once: `npm start` sends SIGTERM
// to a child that the terminal's Ctrl-C has already reached, so only SIGINT counts twice.
let running: RunningEmulator | undefined;
let stopping = false;
const stop = () =>
  running!.stop().then(
    () => process.exit(0),
    (e: Error) => {
      process.stderr.write(`shopkit-emulator: shutdown failed: ${e.message}\n`);
      process.exit(1);
    },
  );
for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const)
  process.on(signal, () => {
    if (stopping) {
      if (signal === 'SIGINT') process.exit(128 + constants.signals.SIGINT);
      return;
    }
    stopping = true;
    if (running) stop();
    else process.stderr.write('shopkit-emulator: stopping once started (Ctrl-C again stops at once)\n');
  });

running = await startEmulator({
  port,
  host: values.host as string,
  db,
  seed: values.seed as 'demo' | 'none',
  allowedOrigins: origins,
  webhooks: hooks,
  config: { webhookRetryBaseMs: retryMs, webhookMaxAttempts: attempts },
}).catch((e: NodeJS.ErrnoException) =>
  die(
    `could not start: ${
      e.code === 'EADDRINUSE'
        ? `port ${port} on ${values.host} is in use; stop what holds it, or pick another with --port (0 = any free port)`
        : e.code === 'EACCES' && e.syscall === 'listen'
          ? `port ${port} on ${values.host} needs privileges this user lacks (ports below 1024); pick another with --port`
          : e.code === 'ENOTFOUND' || e.code === 'EADDRNOTAVAIL'
            ? `cannot listen on --host ${values.host}: not an address of this machine (127.0.0.1 is this machine alone, 0.0.0.0 every interface)`
            : (e.message ?? String(e))
    }`,
  ),
);

// Asked to stop while starting: stop now, without a ready line.
if (stopping) await stop();

// When PGlite runs initdb (a new data directory, or a memory database without the cached copy of
// db/snapshot.ts), it does so in a scratch instance whose WASM memory (about 300 MiB, all
// resident) is garbage once the database is up, but V8 frees it only at its next full
// collection, which an idle emulator may never reach. This process is ours, so ask for one
// collection now (the way jest-leak-detector reaches `gc` without a command-line flag).
if (!/^postgres/.test(db)) {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}

const { url, demo } = running;
// Everyone who will receive events: these --webhook URLs and the subscriptions made through the
// API, which persist with the data. URLs without their query (it may carry the receiver's secret).
const subscribed = await receivers(running.emu);
if (values.json) {
  process.stdout.write(
    JSON.stringify({ url, clientId: demo.clientId, apiKey: demo.apiKey, siteId: demo.siteId }) + '\n',
  );
  process.stderr.write(
    `webhooks: ${subscribed.length} receiver(s); public key at ${url}${PUBLIC_KEY_PATH}\n`,
  );
} else {
  const where = redactDb(db);
  const listed = subscribed.map((r) => (r.source === 'API' ? `${r.url} (API)` : r.url));
  // The API key is a secret: it is shown to a person at a terminal, never written into a log file
  // or a CI transcript (stdout redirected). `--json` prints it for programs that ask.
  const key = process.stdout.isTTY ? demo.apiKey : 'not printed (output is not a terminal; --json prints it)';
  process.stdout.write(
    [
      `Shopkit emulator listening on ${url}`,
      `  storage:   ${where}`,
      `  client id: ${demo.clientId}   (visitor/member OAuth)`,
      `  site id:   ${demo.siteId}`,
      `  API key:   ${key}   (merchant calls; keep it on a server)`,
      `  webhooks:  ${listed.length ? listed.join(', ') : 'none'}; state at ${url}/webhooks`,
      `             signed RS256; public key (PEM and JWK) at ${url}${PUBLIC_KEY_PATH}`,
      '',
    ].join('\n'),
  );
}

/** A storage spec as the banner shows it: a URL's user, password and query left out. */
function redactDb(spec: string) {
  if (!/^[a-z][a-z0-9+.-]+:\/\//i.test(spec)) return spec;
  // User info runs to the authority's last `@` (as URL parsers read it): a password may hold one.
  return spec.replace(/\/\/[^/?#]*@/, '//***@').replace(/\?.*$/s, '?…');
}
