/**
 * The platform's own published SDK (`@wix/sdk` and the generated modules a storefront uses), pinned
 * in `bench/baseline/package-lock.json` and installed only there, on first use: the client
 * benchmarks compare against it, and the emulator's conformance test
 * (`packages/emulator/test/platform-sdk.test.ts`) drives it. No Shopkit package depends on it.
 * @module
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The folder the platform SDK is installed in. */
export const BASELINE_DIR = fileURLToPath(new URL('./baseline/', import.meta.url));

/**
 * Installs the pinned platform SDK into `bench/baseline` unless it is there. It needs the npm
 * registry, as `npm install` does; without it this throws, with npm's own report on stderr.
 */
export function ensurePlatformSdk() {
  if (existsSync(join(BASELINE_DIR, 'node_modules/@wix/sdk/package.json'))) return;
  console.error('[platform-sdk] installing the platform SDK into bench/baseline (pinned, not a dependency)…');
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--workspaces=false'], {
    cwd: BASELINE_DIR,
    // npm's report goes to stderr: a benchmark's stdout is the Markdown of docs/performance.md.
    stdio: ['ignore', process.stderr, 'inherit'],
  });
}

/** The installed path of one of the platform SDK's packages, as its own `import` would find it. */
export function resolvePlatformSdk(id: string): string {
  return createRequire(join(BASELINE_DIR, 'package.json')).resolve(id);
}

/**
 * The platform SDK's client and modules, installed first when missing. Typed loosely: the
 * package's own types are not part of this repository's build.
 */
export async function importPlatformSdk() {
  ensurePlatformSdk();
  const load = (id: string): Promise<any> => import(resolvePlatformSdk(id));
  const [sdk, currentCart, products, collections, redirects, identity] = await Promise.all([
    load('@wix/sdk'),
    load('@wix/auto_sdk_ecom_current-cart'),
    load('@wix/auto_sdk_stores_products'),
    load('@wix/auto_sdk_stores_collections'),
    load('@wix/auto_sdk_redirects_redirects'),
    load('@wix/identity'),
  ]);
  return { sdk, currentCart, products, collections, redirects, identity };
}
