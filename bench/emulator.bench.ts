/**
 * The emulator under load: requests per second and p50/p99 latency for get-cart, add-to-cart and a
 * product query at 1, 8 and 64 concurrent clients, on embedded storage and on PostgreSQL (when
 * SHOPKIT_BENCH_DATABASE_URL or SHOPKIT_TEST_DATABASE_URL is set), the emulator's memory at
 * rest and under load, and its start-up on an in-memory database. The emulator runs in its own
 * process, driven over loopback HTTP.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import pg from 'pg';

const root = resolve(import.meta.dirname, '..');
const SECONDS = Number(process.env.SHOPKIT_BENCH_SECONDS ?? 3);
const LEVELS = [1, 8, 64];
const PG = process.env.SHOPKIT_BENCH_DATABASE_URL ?? process.env.SHOPKIT_TEST_DATABASE_URL;
const STORES_APP = '215238eb-22a5-4c36-9e7b-e7c08025e04e';

function rssMiB(pid: number) {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : Number.NaN;
}

async function startEmulator(db: string, env: Record<string, string> = {}) {
  const child = spawn(
    process.execPath,
    [resolve(root, 'packages/emulator/bin/shopkit-emulator.mjs'), '--port', '0', '--db', db, '--json'],
    {
      stdio: ['ignore', 'pipe', 'ignore'],
      env: { ...process.env, ...env },
    },
  );
  const info = await new Promise<{ url: string; clientId: string; apiKey: string }>((ok, fail) => {
    createInterface({ input: child.stdout! }).once('line', (l) => ok(JSON.parse(l)));
    child.once('exit', (c) => fail(new Error(`emulator exited with ${c}`)));
  });
  return { child, ...info };
}

async function stop(child: ChildProcess) {
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
}

async function json(url: string, init: RequestInit = {}) {
  const res = await fetch(url, init);
  const body = await res.json();
  if (res.status !== 200) throw new Error(`${init.method ?? 'GET'} ${url} → ${res.status}: ${body.message}`);
  return body;
}

async function visitor(url: string, clientId: string) {
  const t = await json(`${url}/oauth2/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ clientId, grantType: 'anonymous' }),
  });
  return t.access_token as string;
}

const pct = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

/** Runs `concurrency` workers for SECONDS, each calling `call(worker)` in a loop. */
async function load(concurrency: number, call: (w: number) => Promise<Response>, sample: () => void) {
  const latencies: number[] = [];
  let errors = 0;
  const end = performance.now() + SECONDS * 1000;
  const timer = setInterval(sample, 200);
  await Promise.all(
    Array.from({ length: concurrency }, async (_, w) => {
      while (performance.now() < end) {
        const t0 = performance.now();
        const res = await call(w);
        await res.arrayBuffer();
        if (res.status !== 200) errors++;
        latencies.push(performance.now() - t0);
      }
    }),
  );
  clearInterval(timer);
  latencies.sort((a, b) => a - b);
  return { rps: latencies.length / SECONDS, p50: pct(latencies, 50), p99: pct(latencies, 99), errors };
}

async function benchStorage(name: string, db: string) {
  const emu = await startEmulator(db);
  const lines: string[] = [];
  try {
    const tokens = await Promise.all(Array.from({ length: 64 }, () => visitor(emu.url, emu.clientId)));
    const page = await json(`${emu.url}/stores-reader/v1/products/query-platformized`, {
      method: 'POST',
      headers: { authorization: tokens[0]!, 'content-type': 'application/json' },
      body: JSON.stringify({ query: { paging: { limit: 100 } } }),
    });
    const simple = page.products.filter(
      (p: any) => !(p.productOptions ?? []).length && p.stock?.inStock !== false,
    );
    if (!simple.length) throw new Error('the demo catalog has no in-stock product without options');
    const lineItems = simple
      .slice(0, 10)
      .map((p: any) => ({ catalogReference: { appId: STORES_APP, catalogItemId: p.id }, quantity: 1 }));
    await Promise.all(
      tokens.map((t) =>
        json(`${emu.url}/ecom/v1/carts/current/add-to-cart`, {
          method: 'POST',
          headers: { authorization: t, 'content-type': 'application/json' },
          body: JSON.stringify({ lineItems }),
        }),
      ),
    );
    const rest = rssMiB(emu.child.pid!);
    let peak = rest;
    const sample = () => {
      peak = Math.max(peak, rssMiB(emu.child.pid!));
    };
    const query = Buffer.from(
      JSON.stringify({
        query: { paging: { limit: 50, offset: 0 }, sort: [{ fieldName: 'name', order: 'ASC' }] },
      }),
    ).toString('base64url');
    const calls: Record<string, (w: number) => Promise<Response>> = {
      'get-cart (10 items)': (w) =>
        fetch(`${emu.url}/ecom/v1/carts/current`, { headers: { authorization: tokens[w]! } }),
      'add-to-cart': (w) =>
        fetch(`${emu.url}/ecom/v1/carts/current/add-to-cart`, {
          method: 'POST',
          headers: { authorization: tokens[w]!, 'content-type': 'application/json' },
          body: JSON.stringify({ lineItems: [lineItems[w % lineItems.length]] }),
        }),
      'query products (50, sorted)': (w) =>
        fetch(`${emu.url}/stores-reader/v1/products/query-platformized?.r=${query}`, {
          headers: { authorization: tokens[w]! },
        }),
    };
    lines.push(
      `### ${name}`,
      '',
      '| call | clients | req/s | p50 | p99 | errors |',
      '|---|---|---|---|---|---|',
    );
    for (const [label, call] of Object.entries(calls))
      for (const c of LEVELS) {
        const r = await load(c, call, sample);
        lines.push(
          `| ${label} | ${c} | ${r.rps.toFixed(0)} | ${r.p50.toFixed(1)} ms | ${r.p99.toFixed(1)} ms | ${r.errors} |`,
        );
      }
    lines.push(
      '',
      `Emulator memory (RSS): ${rest.toFixed(0)} MiB at rest after seeding, ${peak.toFixed(0)} MiB peak under load.`,
      '',
    );
  } finally {
    await stop(emu.child);
  }
  return lines;
}

/**
 * Start-up of the CLI on an in-memory database, from spawn to its ready line: with the cached copy
 * of a fresh PGlite cluster (src/db/snapshot.ts) and without it (initdb every time).
 */
async function startup(runs = 5) {
  const cache = mkdtempSync(join(tmpdir(), 'shopkit-bench-cache-'));
  const once = async (env: Record<string, string>) => {
    const t = performance.now();
    const emu = await startEmulator('memory', env);
    const ms = performance.now() - t;
    const rss = rssMiB(emu.child.pid!);
    await stop(emu.child);
    return { ms, rss };
  };
  try {
    const settings = [
      { name: 'initdb every time (`SHOPKIT_PGLITE_CACHE=off`)', env: { SHOPKIT_PGLITE_CACHE: 'off' } },
      { name: 'from the cached copy (the default)', env: { SHOPKIT_PGLITE_CACHE: cache } },
    ];
    await once(settings[1]!.env); // makes the copy
    const median = (xs: number[]) => xs.sort((a, b) => a - b)[xs.length >> 1]!;
    const rows = [];
    for (const { name, env } of settings) {
      const got = [];
      for (let i = 0; i < runs; i++) got.push(await once(env));
      rows.push(
        `| ${name} | ${median(got.map((g) => g.ms)).toFixed(0)} ms | ${median(got.map((g) => g.rss)).toFixed(0)} MiB |`,
      );
    }
    return [
      `### Start-up on an in-memory database (\`--db memory\`, median of ${runs}; spawn to ready, demo store seeded)`,
      '',
      '| PGlite cluster | ready after | RSS when ready |',
      '|---|---:|---:|',
      ...rows,
      '',
    ];
  } finally {
    rmSync(cache, { recursive: true, force: true });
  }
}

const out = [
  `## Emulator under load (\`bench/emulator.bench.ts\`, ${SECONDS} s per row, loopback HTTP, load generator in a second process)`,
  '',
];
out.push(...(await startup()));
out.push(...(await benchStorage('Embedded storage (PGlite, in memory)', 'memory')));
if (PG) {
  const schema = `bench_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: PG });
  await admin.connect();
  await admin.query(`CREATE SCHEMA "${schema}"`);
  try {
    const url = new URL(PG);
    url.searchParams.set('options', `-c search_path=${schema}`);
    out.push(...(await benchStorage('PostgreSQL (local server)', url.toString())));
  } finally {
    await admin.query(`DROP SCHEMA "${schema}" CASCADE`);
    await admin.end();
  }
} else
  out.push('PostgreSQL: not measured (set SHOPKIT_BENCH_DATABASE_URL or SHOPKIT_TEST_DATABASE_URL).', '');
console.log(out.join('\n'));
