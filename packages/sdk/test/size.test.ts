/**
 * Bundle budgets: the typical storefront entry and auth alone, bundled for browsers with esbuild,
 * minified and gzipped. The budgets hold today's figures so they cannot grow back unnoticed; the
 * targets of issue 8 (4 KB and 2.5 KB) are lower still, see docs/performance.md.
 */
import { expect, it } from 'vitest';
import { AUTH, browserBundle, TYPICAL } from './entries.ts';

const root = new URL('../../../', import.meta.url).pathname;

/** Gzip bytes of an entry. */
const gzipSize = async (source: string) => (await browserBundle(source, root)).gzip;

// Measured 7900 B and 3960 B (esbuild 0.28); under 1% of slack for esbuild version noise.
const BUDGET = { typical: 7940, auth: 3990 };

it('keeps the typical storefront entry within its budget', async () => {
  const size = await gzipSize(TYPICAL);
  console.log(`typical entry: ${size} B gzip (budget ${BUDGET.typical})`);
  expect(size).toBeLessThanOrEqual(BUDGET.typical);
});

it('keeps auth alone within its budget', async () => {
  const size = await gzipSize(AUTH);
  console.log(`auth alone: ${size} B gzip (budget ${BUDGET.auth})`);
  expect(size).toBeLessThanOrEqual(BUDGET.auth);
});
