/**
 * Soak (long: `npm run test:long`): 64 simulated visitors for 60 s (SHOPKIT_SOAK_SECONDS) doing
 * browse → add → estimate → checkout through the SDK against the emulator on PostgreSQL (embedded
 * storage when no PostgreSQL is configured). Zero errors, and afterwards every cart's subtotal is
 * exactly the sum of its line items.
 */
import { startTestEmulator, type TestEmulator, testBackends } from '@shopkit/emulator/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { cart, createClient, OAuthStrategy, products } from '../src/index.ts';

const SECONDS = Number(process.env.SHOPKIT_SOAK_SECONDS ?? 60);
const VISITORS = 64;
const STORES_APP = '215238eb-22a5-4c36-9e7b-e7c08025e04e';
const backend = testBackends().includes('postgres') ? 'postgres' : 'pglite';
if (backend !== 'postgres')
  console.warn(
    '[soak] SHOPKIT_TEST_DATABASE_URL is not set: soaking embedded storage instead of PostgreSQL.',
  );

/** "12.50" → 1250 (exact; no floating point). */
const cents = (amount: string) => {
  const [whole, frac = ''] = amount.split('.');
  return Number(whole) * 100 + Math.sign(Number(`${whole}1`)) * Number((frac + '00').slice(0, 2));
};

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator(backend);
});
afterAll(() => emu?.stop());

const address = {
  country: 'US',
  subdivision: 'US-NY',
  city: 'New York',
  postalCode: '10001',
  addressLine1: '1 Main St',
};

it(
  `${VISITORS} visitors browse, add, estimate and check out for ${SECONDS} s with no errors and consistent totals`,
  async () => {
    const clients = Array.from({ length: VISITORS }, () =>
      createClient({
        baseUrl: emu.url,
        auth: OAuthStrategy({ clientId: emu.demo.clientId }),
        retry: { attempts: 1 },
      }),
    );
    const catalog = (await products.queryProducts(clients[0]!, { paging: { limit: 100 } })).products.filter(
      (p: any) => !(p.productOptions ?? []).length && p.stock?.inStock !== false,
    );
    expect(catalog.length).toBeGreaterThan(0);
    const errors: string[] = [];
    let journeys = 0;
    const end = Date.now() + SECONDS * 1000;
    await Promise.all(
      clients.map(async (client, v) => {
        for (let i = 0; Date.now() < end; i++) {
          try {
            await products.queryProducts(client, { paging: { limit: 12, offset: (v + i) % 3 } });
            const product = catalog[(v + i) % catalog.length] as { id: string };
            await cart.addToCurrentCart(client, {
              lineItems: [
                { catalogReference: { appId: STORES_APP, catalogItemId: product.id }, quantity: 1 },
              ],
            } as never);
            await cart.estimateCurrentCartTotals(client, { shippingAddress: address } as never);
            if (i % 3 === 2) {
              // A trip ends in a checkout; the next trip starts a new cart, as after an order.
              await cart.createCheckoutFromCurrentCart(client, {
                shippingAddress: address,
                email: `v${v}@example.com`,
              } as never);
              await cart.deleteCurrentCart(client);
            }
            journeys++;
          } catch (e) {
            errors.push(`visitor ${v}: ${(e as Error).message}`);
          }
        }
      }),
    );
    expect(errors.slice(0, 5)).toEqual([]);
    expect(journeys).toBeGreaterThan(VISITORS);
    for (const [v, client] of clients.entries()) {
      // Every visitor ends with a cart to check, whatever step their last trip stopped at.
      const product = catalog[v % catalog.length] as { id: string };
      await cart.addToCurrentCart(client, {
        lineItems: [{ catalogReference: { appId: STORES_APP, catalogItemId: product.id }, quantity: 1 }],
      } as never);
      const estimate = (await cart.estimateCurrentCartTotals(client, {
        shippingAddress: address,
      } as never)) as any;
      const items = estimate.cart.lineItems as Array<{ quantity: number; price: { amount: string } }>;
      const sum = items.reduce((s, li) => s + cents(li.price.amount) * li.quantity, 0);
      expect(cents(estimate.priceSummary.subtotal.amount)).toBe(sum);
      const total =
        cents(estimate.priceSummary.subtotal.amount) +
        cents(estimate.priceSummary.shipping.amount) +
        cents(estimate.priceSummary.tax.amount) -
        cents(estimate.priceSummary.discount.amount);
      expect(cents(estimate.priceSummary.total.amount)).toBe(total);
    }
  },
  (SECONDS + 240) * 1000,
);
