/**
 * `shopkit-emulator`: the emulator's command line.
 *
 *   --port <n>             port to listen on; 0 picks a free one (default 4000)
 *   --host <h>             address to bind (default 127.0.0.1)
 *   --db <spec>            memory | <data dir> | postgres://… (default .shopkit/data, or DATABASE_URL)
 *   --seed demo|none       seed the demo store on first start (default demo)
 *   --allowed-origin <url> an origin allowed for CORS and OAuth redirects (repeatable)
 *   --json                 print one JSON line {url, clientId, apiKey, siteId} when ready
 * @module
 */
import { parseArgs } from 'node:util';
import { startEmulator } from './server.ts';

const USAGE = `Usage: shopkit-emulator [--port 4000] [--host 127.0.0.1] [--db memory|<dir>|postgres://…]
                        [--seed demo|none] [--allowed-origin <url>]… [--json]`;

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
const db = (values.db as string | undefined) ?? process.env.DATABASE_URL ?? '.shopkit/data';

const running = await startEmulator({
  port,
  host: values.host as string,
  db,
  seed: values.seed as 'demo' | 'none',
  allowedOrigins: origins,
}).catch((e: Error) => fail(`could not start: ${e.message}`));

const { url, demo } = running;
if (values.json) {
  process.stdout.write(
    JSON.stringify({ url, clientId: demo.clientId, apiKey: demo.apiKey, siteId: demo.siteId }) + '\n',
  );
} else {
  const where = /^postgres/.test(db) ? db.replace(/\/\/[^@/]*@/, '//***@') : db;
  process.stdout.write(
    [
      `Shopkit emulator listening on ${url}`,
      `  storage:   ${where}`,
      `  client id: ${demo.clientId}   (visitor/member OAuth)`,
      `  site id:   ${demo.siteId}`,
      `  API key:   ${demo.apiKey}   (merchant calls; keep it on a server)`,
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
