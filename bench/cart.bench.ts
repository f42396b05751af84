/**
 * Cart throughput: `addToCurrentCart` and `getCurrentCart` through the SDK against the emulator
 * over HTTP, on embedded storage (PGlite) and, when `SHOPKIT_TEST_DATABASE_URL` (or
 * `DATABASE_URL`) names a PostgreSQL server, on PostgreSQL in a schema of its own.
 * 16 visitors, 8 calls in flight; every add merges into one of three lines of the visitor's cart.
 * Prints Markdown with calls per second and p50/p99 latency; asserts nothing.
 */
import { performance } from 'node:perf_hooks';
import { startTestEmulator } from '@shopkit/emulator/testing';
import { ApiKeyStrategy, cart, createClient, OAuthStrategy, op, STORES_APP_ID } from '@shopkit/sdk';

const VISITORS = 16;
const IN_FLIGHT = 8;
const CALLS = 800;
const WARMUP = 80;

const queryProducts = op<[query: unknown], { products: Array<{ id: string; slug: string }> }>({
  method: 'POST',
  path: '/stores-reader/v1/products/query-platformized',
  args: ['query'],
});

const pct = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

/** Runs `n` calls with `IN_FLIGHT` at a time; returns calls per second and sorted latencies. */
async function measure(n: number, call: (i: number) => Promise<unknown>) {
  const latencies: number[] = [];
  let next = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      for (let i = next++; i < n; i = next++) {
        const t0 = performance.now();
        await call(i);
        latencies.push(performance.now() - t0);
      }
    }),
  );
  const seconds = (performance.now() - start) / 1000;
  return { perSecond: n / seconds, sorted: latencies.sort((a, b) => a - b) };
}

const backends: Array<'pglite' | 'postgres'> = ['pglite'];
// (Not `??=`: assigning `undefined` to process.env stores the string "undefined".)
const pgUrl = process.env.SHOPKIT_TEST_DATABASE_URL || process.env.DATABASE_URL;
if (pgUrl) {
  process.env.SHOPKIT_TEST_DATABASE_URL = pgUrl;
  backends.push('postgres');
}

const rows: string[] = [];
for (const backend of backends) {
  const emu = await startTestEmulator(backend);
  try {
    const admin = createClient({ baseUrl: emu.url, auth: ApiKeyStrategy({ apiKey: emu.demo.apiKey }) });
    const { products } = await queryProducts(admin, { paging: { limit: 100 } });
    const slugs = ['linen-tea-towels', 'gift-card', 'dinner-plate'];
    const ids = slugs.map((s) => products.find((p) => p.slug === s)!.id);
    const visitors = Array.from({ length: VISITORS }, () =>
      createClient({
        baseUrl: emu.url,
        auth: OAuthStrategy({ clientId: emu.demo.clientId }),
        modules: { cart },
      }),
    );
    const add = (i: number) =>
      visitors[i % VISITORS]!.cart.addToCurrentCart({
        lineItems: [
          { catalogReference: { appId: STORES_APP_ID, catalogItemId: ids[i % ids.length]! }, quantity: 1 },
        ],
      });
    const get = (i: number) => visitors[i % VISITORS]!.cart.getCurrentCart();
    await measure(WARMUP, add);
    await measure(WARMUP, get);
    for (const [name, fn] of [
      ['addToCurrentCart', add],
      ['getCurrentCart', get],
    ] as const) {
      const r = await measure(CALLS, fn);
      rows.push(
        `| ${backend === 'pglite' ? 'embedded (PGlite)' : 'PostgreSQL'} | \`${name}\` | ${CALLS} | ${r.perSecond.toFixed(0)} | ${pct(r.sorted, 50).toFixed(2)} | ${pct(r.sorted, 99).toFixed(2)} |`,
      );
    }
    // Every add landed: 16 carts of 3 lines whose quantities sum to all the adds made.
    const units = (await Promise.all(visitors.map((v) => v.cart.getCurrentCart()))).reduce(
      (a, c) => a + c.lineItems.reduce((b, l) => b + l.quantity, 0),
      0,
    );
    if (units !== WARMUP + CALLS)
      throw new Error(`expected ${WARMUP + CALLS} units in the carts, found ${units}`);
  } finally {
    await emu.stop();
  }
}

console.log(
  [
    '## Cart (bench/cart.bench.ts)',
    '',
    `SDK → HTTP → emulator, ${VISITORS} visitors, ${IN_FLIGHT} calls in flight, each add merging into a cart of 3 lines${backends.length === 1 ? '; PostgreSQL skipped (set SHOPKIT_TEST_DATABASE_URL)' : ''}.`,
    '',
    '| storage | call | calls | calls/s | p50 ms | p99 ms |',
    '| --- | --- | ---: | ---: | ---: | ---: |',
    ...rows,
    '',
  ].join('\n'),
);
