/**
 * Webhooks and GraphQL, audit 15.
 *
 * A `webhookPollMs` or `webhookTimeoutMs` of `Infinity` (or past Node's timer limit, 2^31 − 1 ms):
 * Node fires such a timer at once, so the worker polled every millisecond, and
 * `AbortSignal.timeout` refuses it, so every delivery failed (and the claim's lease was an invalid
 * date, which failed the pass and `deliverWebhooks()`).
 *
 * A subscription has at most 16 deliveries in flight (docs/webhooks.md, "Polling"). A pass left out
 * only the subscriptions with 16 already in flight: one with 15 (a slow receiver that had answered
 * one) was given a whole new batch of 16, 31 in flight at once.
 *
 * The GraphQL schema "mirrors the REST entities field for field" (README, GraphQL), but a product
 * had no `ribbons`, `additionalInfoSections`, `customTextFields`, `manageVariants`,
 * `pricePerUnitData`, `productDimensions`, `packageDimensions`, `weightRange`, `costRange`,
 * `convertedPriceData`, `inventoryItemId` or `seoData` (a variant no `convertedPriceData` or
 * dimensions), and a collection's `media` no `items`: a storefront on GraphQL could not show a
 * product's info sections, text fields or unit price. A cart had no `appliedDiscounts` (a cart page
 * could not name the coupon it shows the discount of), `buyerInfo`, `weightUnit`, its languages
 * and currencies, `contactInfo`, `selectedShippingOption` or `businessLocationId`, and a line no
 * `priceBeforeDiscounts`, `paymentOption`, `customLineItem`, `priceUndetermined` or `fixedQuantity`.
 * The totals had no `calculatedLineItems`, `taxSummary`, `payNow`, `payLater`, `calculationErrors`
 * (a coupon that does not apply said nothing), a shipping option's `otherCharges` (a handling fee
 * added to the total without a word), `deliveryTimeSlot` or a pickup's `pickupDetails` (its address).
 */
import { createServer, type ServerResponse } from 'node:http';
import { text } from 'node:stream/consumers';
import { type GraphQLObjectType, getNamedType, isObjectType } from 'graphql';
import { describe, expect, it } from 'vitest';
import { STORES_APP_ID } from '../src/domains/catalog/lookup.ts';
import { buildGraphqlSchema } from '../src/domains/graphql/schema.ts';
import { startTestEmulator, testBackends } from '../src/testing.ts';
import { jsonCalls, listen, until, visitorToken } from './http.ts';

describe.each(testBackends())('webhooks audit 15 (%s)', (backend) => {
  it('keeps a slow receiver to 16 deliveries in flight, also once it has answered some', async () => {
    // The receiver answers the first request and holds every later one unanswered.
    const held: ServerResponse[] = [];
    let answered = 0;
    const server = createServer((req, res) => {
      text(req).then(() => {
        if (!answered) {
          answered++;
          res.writeHead(200).end();
        } else held.push(res);
      });
    });
    const { port, close } = await listen(server);
    const emu = await startTestEmulator(backend, {
      seed: 'none',
      webhooks: [`http://127.0.0.1:${port}/hook`],
      // A lease of ten minutes: a delivery in flight is one leased far past now.
      config: { webhookPollMs: 10, webhookTimeoutMs: 600_000 },
    });
    try {
      await emu.emu.db.tx(async (sql) => {
        for (let i = 0; i < 40; i++)
          await emu.emu.recordEvent(sql, 'wix.ecom.v1.cart_created', `slow-${i}`, { id: `slow-${i}` });
      });
      // The first answered, the pass after it has sent another: 16 in flight again.
      await until(() => held.length >= 16);
      const [row] = await emu.emu.db.query<{ n: number }>(
        `SELECT COUNT(*)::int AS n FROM webhook_deliveries
          WHERE state = 'PENDING' AND next_attempt_at > now() + interval '5 minutes'`,
      );
      expect(row?.n).toBe(16);
    } finally {
      for (const res of held) res.writeHead(200).end();
      await emu.stop();
      await close();
    }
  });
});

describe.each(testBackends())('webhooks audit 15, settings (%s)', (backend) => {
  it('takes Infinity for the poll and the timeout: never polls, never times out', async () => {
    const bodies: string[] = [];
    const { port, close } = await listen(
      createServer((req, res) => {
        text(req).then((body) => {
          bodies.push(body);
          res.writeHead(200).end();
        });
      }),
    );
    const warnings: string[] = [];
    const warned = (w: Error) => warnings.push(w.name);
    process.on('warning', warned);
    const emu = await startTestEmulator(backend, {
      seed: 'none',
      webhooks: [`http://127.0.0.1:${port}/hook`],
      config: { webhookPollMs: Number.POSITIVE_INFINITY, webhookTimeoutMs: Number.POSITIVE_INFINITY },
    });
    try {
      await emu.emu.db.tx((sql) =>
        emu.emu.recordEvent(sql, 'wix.ecom.v1.cart_created', 'inf', { id: 'inf' }),
      );
      // The worker's first pass has ended and it has set its next poll by the time this resolves.
      await emu.deliverWebhooks();
      await new Promise((resolve) => setImmediate(resolve));
      expect(bodies).toHaveLength(1);
      // Node said it would fire the poll's timer at once ("does not fit into a 32-bit signed integer").
      expect(warnings).not.toContain('TimeoutOverflowWarning');
    } finally {
      process.off('warning', warned);
      await emu.stop();
      await close();
    }
  });
});

/**
 * Every field of `type` but those named in `except`, nested objects with all of theirs: what a query
 * must ask to get it all.
 */
function everything(type: GraphQLObjectType, except: string[] = []): string {
  return Object.values(type.getFields())
    .filter((f) => !except.includes(f.name))
    .map((f) => {
      const inner = getNamedType(f.type);
      return isObjectType(inner) ? `${f.name} { ${everything(inner)} }` : f.name;
    })
    .join(' ');
}

/** `v` without the `null`s GraphQL answers for the fields REST leaves out. */
const withoutNulls = (v: unknown): unknown =>
  Array.isArray(v)
    ? v.map(withoutNulls)
    : v && typeof v === 'object'
      ? Object.fromEntries(
          Object.entries(v)
            .filter(([, x]) => x !== null)
            .map(([k, x]) => [k, withoutNulls(x)]),
        )
      : v;

describe.each(testBackends())('GraphQL audit 15 (%s)', (backend) => {
  it('answers every field of the REST product and collection', async () => {
    const emu = await startTestEmulator(backend, { config: { webhookPollMs: 600_000 } });
    const { owner } = jsonCalls(() => emu);
    try {
      const made = await owner('POST', '/stores/v1/products', {
        product: {
          name: 'Audit15 every field',
          productType: 'physical',
          priceData: { price: 22 },
          costAndProfitData: { itemCost: 7 },
          weight: 0.5,
          ribbon: 'New',
          brand: 'Audit',
          manageVariants: true,
          productOptions: [{ name: 'Size', choices: [{ value: 'S', description: 'S' }] }],
          pricePerUnitData: {
            totalQuantity: 200,
            totalMeasurementUnit: 'G',
            baseQuantity: 100,
            baseMeasurementUnit: 'G',
          },
          productDimensions: { length: '10', width: '20', height: '30', unit: 'CM' },
          packageDimensions: { length: '12', width: '22', height: '32', unit: 'CM' },
          additionalInfoSections: [{ title: 'Care', description: 'Wash cold.' }],
          customTextFields: [{ title: 'Engraving', maxLength: 20, mandatory: false }],
          seoData: { tags: [{ type: 'title', children: 'Audit' }], settings: { preventAutoRedirect: true } },
        },
      });
      expect(made.status, JSON.stringify(made.body)).toBe(200);

      const schema = buildGraphqlSchema();
      const product = schema.getType('Product') as GraphQLObjectType;
      const collection = schema.getType('Collection') as GraphQLObjectType;
      const gql = await owner('POST', '/graphql/alpha', {
        query: `{ products(includeHiddenProducts: true, includeMerchantSpecificData: true, paging: {limit: 100}) {
          products { ${everything(product)} } }
          collections(paging: {limit: 100}) { collections { ${everything(collection)} } } }`,
      });
      expect(gql.body.errors).toBeUndefined();
      const rest = await owner('POST', '/stores-reader/v1/products/query-platformized', {
        query: { paging: { limit: 100 } },
        includeVariants: true,
        includeHiddenProducts: true,
        includeMerchantSpecificData: true,
      });
      expect(rest.status).toBe(200);
      expect(rest.body.products.some((p: { id: string }) => p.id === made.body.product.id)).toBe(true);
      expect(withoutNulls(gql.body.data.products.products)).toEqual(rest.body.products);
      const collections = await owner('POST', '/v2/collections/query', { query: { paging: { limit: 100 } } });
      expect(withoutNulls(gql.body.data.collections.collections)).toEqual(collections.body.collections);
    } finally {
      await emu.stop();
    }
  });
});

describe.each(testBackends())('GraphQL audit 15, the cart (%s)', (backend) => {
  it('answers every field of the REST cart', async () => {
    const emu = await startTestEmulator(backend, { config: { webhookPollMs: 600_000 } });
    const { call } = jsonCalls(() => emu);
    try {
      const authorization = await visitorToken(emu);
      const asVisitor = (method: string, path: string, body?: object) =>
        call(method, path, body, { authorization });
      const { body: listed } = await asVisitor('POST', '/stores-reader/v1/products/query-platformized', {
        query: { filter: { productType: 'physical' }, paging: { limit: 2 } },
      });
      const lineItems = listed.products.map(
        (p: { id: string; productOptions: { name: string; choices: { description: string }[] }[] }) => ({
          quantity: 1,
          catalogReference: {
            appId: STORES_APP_ID,
            catalogItemId: p.id,
            ...(p.productOptions.length
              ? {
                  options: {
                    options: Object.fromEntries(
                      p.productOptions.map((o) => [o.name, o.choices[0]!.description]),
                    ),
                  },
                }
              : {}),
          },
        }),
      );
      expect((await asVisitor('POST', '/ecom/v1/carts/current/add-to-cart', { lineItems })).status).toBe(200);
      const updated = await asVisitor('PATCH', '/ecom/v1/carts/current', {
        couponCode: 'SAVE10',
        cartInfo: {
          buyerNote: 'Ring twice',
          contactInfo: { contactDetails: { firstName: 'Ada' } },
          selectedShippingOption: { code: 'standard' },
        },
      });
      expect(updated.status, JSON.stringify(updated.body)).toBe(200);
      const rest = await asVisitor('GET', '/ecom/v1/carts/current');
      expect(rest.body.cart.appliedDiscounts).toHaveLength(1);
      const cart = buildGraphqlSchema().getType('Cart') as GraphQLObjectType;
      const gql = await asVisitor('POST', '/graphql/alpha', {
        query: `{ currentCart { ${everything(cart)} } }`,
      });
      expect(gql.body.errors).toBeUndefined();
      expect(withoutNulls(gql.body.data.currentCart)).toEqual(rest.body.cart);

      // The totals, a handling fee and tax included (their cart is the one above: left out, as a
      // query of it all would pass the limit of 300 fields).
      const shippingAddress = { country: 'US', subdivision: 'US-NY', postalCode: '10001' };
      const selectedShippingOption = { code: 'express' };
      const estimate = await asVisitor('POST', '/ecom/v1/carts/current/estimate-totals', {
        shippingAddress,
        selectedShippingOption,
      });
      expect(estimate.status).toBe(200);
      expect(estimate.body.shippingInfo.selectedCarrierServiceOption.otherCharges).toHaveLength(1);
      const totals = buildGraphqlSchema().getType('Totals') as GraphQLObjectType;
      // In two queries, each under the limit of 300 fields: the shipping, and the rest.
      const estimated: Record<string, unknown> = {};
      for (const selection of [
        everything(totals, ['cart', 'shippingInfo']),
        `shippingInfo { ${everything(getNamedType(totals.getFields().shippingInfo!.type) as GraphQLObjectType)} }`,
      ]) {
        const res = await asVisitor('POST', '/graphql/alpha', {
          query: `query($a: AddressInput, $o: ShippingOptionInput) {
            estimateCurrentCartTotals(shippingAddress: $a, selectedShippingOption: $o) { ${selection} } }`,
          variables: { a: shippingAddress, o: selectedShippingOption },
        });
        expect(res.body.errors).toBeUndefined();
        Object.assign(estimated, res.body.data.estimateCurrentCartTotals);
      }
      const { cart: _, ...estimateWithoutCart } = estimate.body;
      expect(withoutNulls(estimated)).toEqual(estimateWithoutCart);
    } finally {
      await emu.stop();
    }
  });
});
