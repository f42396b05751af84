/**
 * The browser entries whose bundle size is budgeted (test/size.test.ts) and compared with the
 * platform SDK (bench/client.bench.ts). They import `@shopkit/sdk` the way an application does, so
 * bundle them with the repository root as the resolve directory.
 */

import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

/**
 * An entry bundled for browsers the way the budgets and the bench measure it: esbuild, minified
 * ESM, level-9 gzip. Imports resolve from `resolveDir`; `name` names the entry among the inputs.
 */
export async function browserBundle(source: string, resolveDir: string, name = 'entry') {
  const out = await build({
    stdin: { contents: source, resolveDir, loader: 'ts', sourcefile: `${name}.ts` },
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    write: false,
    metafile: true,
    logLevel: 'silent',
  });
  const code = out.outputFiles[0]!.contents;
  return {
    raw: code.length,
    gzip: gzipSync(code, { level: 9 }).length,
    /** Every input file (the entry included) with the bytes it puts in the output. */
    inputs: Object.values(out.metafile.outputs)[0]!.inputs,
  };
}

/** What a storefront uses: client, visitor/member OAuth, the current cart, products, collections. */
export const TYPICAL = `import { createClient, OAuthStrategy } from '@shopkit/sdk';
import * as cart from '@shopkit/sdk/cart';
import * as products from '@shopkit/sdk/products';
import * as collections from '@shopkit/sdk/collections';
const c = createClient({ auth: OAuthStrategy({ clientId: 'x' }) });
globalThis.x = [c, cart.getCurrentCart, cart.addToCurrentCart, cart.updateCurrentCartLineItemQuantity,
  cart.removeLineItemsFromCurrentCart, cart.estimateCurrentCartTotals, cart.createCheckoutFromCurrentCart,
  products.queryProducts, products.getProduct, collections.queryCollections, collections.getCollectionBySlug];`;

/** The same modules bound whole (`client.products.…`), every call of them included. */
export const MODULES = `import { createClient, OAuthStrategy, cart, products, collections } from '@shopkit/sdk';
globalThis.x = createClient({ auth: OAuthStrategy({ clientId: 'x' }), modules: { cart, products, collections } });`;

/** A client with the visitor/member OAuth strategy and no calls. */
export const AUTH = `import { createClient, OAuthStrategy } from '@shopkit/sdk';
globalThis.x = createClient({ auth: OAuthStrategy({ clientId: 'x' }) });`;
