/**
 * The browser entries whose bundle size is budgeted (test/size.test.ts) and compared with the
 * platform SDK (bench/client.bench.ts). They import `@shopkit/sdk` the way an application does, so
 * bundle them with the repository root as the resolve directory.
 */

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
