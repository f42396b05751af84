/**
 * `shopkit-emulator`: the emulator's command line.
 *
 *   --port <n>             port to listen on; 0 picks a free one (default 4000)
 *   --host <h>             address to bind (default 127.0.0.1)
 *   --db <spec>            memory | <data dir> | postgres://… (default .shopkit/data, or DATABASE_URL)
 *   --seed demo|none       seed the demo store on first start (default demo)
 *   --allowed-origin <url> an origin allowed for CORS and OAuth redirects (repeatable)
 *   --json                 print one JSON line {url, clientId, apiKey, siteId} when ready (the
 *                          banner shows the API key only when stdout is a terminal)
 *   --webhook <url>        POST every lifecycle event to this URL as a signed JWT (repeatable)
 *   --webhook-retry-ms <n> first retry delay of a failed delivery, doubling each time (default 1000)
 *   --webhook-attempts <n> attempts before a delivery is dead-lettered (default 8)
 * @module
 */
import { parseArgs } from 'node:util';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { PUBLIC_KEY_PATH } from './domains/webhooks/index.ts';
import { startEmulator } from './server.ts';

const USAGE = `Usage: shopkit-emulator [--port 4000] [--host 127.0.0.1] [--db memory|<dir>|postgres://…]
                        [--seed demo|none] [--allowed-origin <url>]… [--json]
                        [--webhook <url>]… [--webhook-retry-ms 1000] [--webhook-attempts 8]`;

function fail(message: string): never {
  process.stderr.write(`shopkit-emulator: ${message}\n${USAGE}\n`);
  process.exit(2);
}

let values: Record<string, string | boolean | string[] | undefined>;
try {
  ({ values } = parseArgs({
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
    },
    strict: true,
  }));
} catch (e) {
  fail((e as Error).message);
}
if (values.help) {
  process.stdout.write(USAGE + '\n');
  process.exit(0);
}
const port = Number(values.port);
if (!Number.isInteger(port) || port < 0 || port > 65535)
  fail(`--port must be 0 to 65535, got ${values.port}`);
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
for (const h of hooks)
  if (!URL.canParse(h) || !/^https?:$/.test(new URL(h).protocol))
    fail(`--webhook must be an absolute http:// or https:// URL, got ${h}`);
const retryMs = Number(values['webhook-retry-ms']);
if (!Number.isInteger(retryMs) || retryMs < 1 || retryMs > 3_600_000)
  fail(`--webhook-retry-ms must be 1 to 3600000, got ${values['webhook-retry-ms']}`);
const attempts = Number(values['webhook-attempts']);
if (!Number.isInteger(attempts) || attempts < 1 || attempts > 100)
  fail(`--webhook-attempts must be 1 to 100, got ${values['webhook-attempts']}`);
const db = (values.db as string | undefined) ?? process.env.DATABASE_URL ?? '.shopkit/data';

const running = await startEmulator({
  port,
  host: values.host as string,
  db,
  seed: values.seed as 'demo' | 'none',
  allowedOrigins: origins,
  webhooks: hooks,
  config: { webhookRetryBaseMs: retryMs, webhookMaxAttempts: attempts },
}).catch((e: Error) => fail(`could not start: ${e.message}`));

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
if (values.json) {
  process.stdout.write(
    JSON.stringify({ url, clientId: demo.clientId, apiKey: demo.apiKey, siteId: demo.siteId }) + '\n',
  );
  process.stderr.write(`webhooks: ${hooks.length} receiver(s); public key at ${url}${PUBLIC_KEY_PATH}\n`);
} else {
  const where = /^postgres/.test(db) ? db.replace(/\/\/[^@/]*@/, '//***@') : db;
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
      `  webhooks:  ${hooks.length ? hooks.join(', ') : 'none'}; state at ${url}/webhooks`,
      `             signed RS256; public key (PEM and JWK) at ${url}${PUBLIC_KEY_PATH}`,
      '',
    ].join('\n'),
  );
}

let stopping = false;
for (const signal of ['SIGTERM', 'SIGINT'] as const)
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    running.stop().then(
      () => process.exit(0),
      (e: Error) => {
        process.stderr.write(`shopkit-emulator: shutdown failed: ${e.message}\n`);
        process.exit(1);
      },
    );
  });
