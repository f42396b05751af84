/**
 * Catalog query throughput: `queryProducts` through the SDK against the emulator over HTTP, and the
 * SDK's overhead against raw `fetch` + `JSON.parse` of the same response, on a 50-product page.
 *
 * Two measurements, rounds interleaved so that drift hits both sides alike:
 * - live: both sides send the same GET (`.r` query) to a running emulator;
 * - client only: both sides read the same recorded 50-product body from an in-memory fetch, so the
 *   figure is the SDK's own work (encoding, headers, transforms of floats and dates).
 * Prints Markdown; asserts nothing.
 */
import { performance } from 'node:perf_hooks';
import { startEmulator } from '@shopkit/emulator';
import { ApiKeyStrategy, createClient, OAuthStrategy, products } from '@shopkit/sdk';

const emu = await startEmulator({ port: 0, db: 'memory', log: () => {} });
try {
  const merchant = createClient({
    baseUrl: emu.url,
    auth: ApiKeyStrategy({ apiKey: emu.demo.apiKey }),
    modules: { products },
  });
  for (let i = 0; i < 40; i++)
    await merchant.products.createProduct({
      name: `Bench Product ${String(i).padStart(2, '0')}`,
      productType: 'physical',
      priceData: { price: 10 + i + 0.99 },
      costAndProfitData: { itemCost: 4 },
      discount: { type: 'PERCENT', value: 10 },
      weight: 0.25,
      productOptions: [
        { name: 'Size', choices: [{ description: 'S' }, { description: 'M' }, { description: 'L' }] },
        {
          name: 'Color',
          optionType: 'color',
          choices: [
            { description: 'Red', value: '#aa0000' },
            { description: 'Blue', value: '#0000aa' },
          ],
        },
      ],
    });

  const visitor = createClient({
    baseUrl: emu.url,
    auth: OAuthStrategy({ clientId: emu.demo.clientId }),
    modules: { products },
  });
  const query = { paging: { limit: 50, offset: 0 }, sort: [{ fieldName: 'name', order: 'ASC' as const }] };
  const first = await visitor.products.queryProducts(query);
  if (first.products.length !== 50)
    throw new Error(`expected a 50-product page, got ${first.products.length}`);
  const token = (await visitor.auth.getTokens()).accessToken.value;

  // The exact URL the SDK sends, captured once.
  let url = '';
  const capture = createClient({
    baseUrl: emu.url,
    auth: { getAuthHeaders: async () => ({ Authorization: token }) },
    fetch: async (input, init) => {
      url = String(input);
      return fetch(input, init);
    },
    modules: { products },
  });
  const sample = await capture.products.queryProducts(query);
  const body = await (await fetch(url, { headers: { Authorization: token } })).text();
  const bytes = Buffer.byteLength(body);

  async function rounds(n: number, a: () => Promise<unknown>, b: () => Promise<unknown>) {
    let ta = 0;
    let tb = 0;
    for (let i = 0; i < n; i++) {
      const s0 = performance.now();
      await a();
      const s1 = performance.now();
      await b();
      const s2 = performance.now();
      ta += s1 - s0;
      tb += s2 - s1;
    }
    return { a: ta / n, b: tb / n };
  }

  const live = {
    sdk: () => capture.products.queryProducts(query),
    raw: async () => JSON.parse(await (await fetch(url, { headers: { Authorization: token } })).text()),
  };
  await rounds(30, live.sdk, live.raw); // warm-up
  const l = await rounds(300, live.sdk, live.raw);

  const recorded = async () =>
    new Response(body, { status: 200, headers: { 'content-type': 'application/json' } });
  const memClient = createClient({
    baseUrl: emu.url,
    auth: { getAuthHeaders: async () => ({ Authorization: token }) },
    fetch: recorded,
    modules: { products },
  });
  const mem = {
    sdk: () => memClient.products.queryProducts(query),
    raw: async () => JSON.parse(await (await recorded()).text()),
  };
  await rounds(200, mem.sdk, mem.raw);
  const m = await rounds(3000, mem.sdk, mem.raw);

  const pct = (x: { a: number; b: number }) => `${(((x.a - x.b) / x.b) * 100).toFixed(1)} %`;
  const ms = (v: number) => `${v.toFixed(3)} ms`;
  const rps = (v: number) => `${Math.round(1000 / v)} /s`;
  console.log(`## Catalog: query products (50-product page)

One page of 50 products (${(bytes / 1024).toFixed(1)} KiB of JSON, ${sample.products.length} products with prices, ranges,
options and media), sorted by name, as a visitor. Rounds alternate SDK and raw calls.

| measurement | SDK \`queryProducts\` | raw \`fetch\` + \`JSON.parse\` | SDK overhead |
| --- | --- | --- | --- |
| live, emulator over HTTP (300 rounds) | ${ms(l.a)} (${rps(l.a)}) | ${ms(l.b)} (${rps(l.b)}) | ${pct(l)} |
| client only, recorded body (3000 rounds) | ${ms(m.a)} | ${ms(m.b)} | ${pct(m)} (${ms(m.a - m.b)} per page) |

Target: the SDK adds under 10 % to a live 50-product query.
`);
} finally {
  await emu.stop();
}
