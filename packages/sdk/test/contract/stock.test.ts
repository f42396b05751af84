/**
 * Stock through an order: a buyer's cart becomes a checkout (SDK), a redirect session opens its
 * hosted page, and the form POST places the order. The ordered units leave the catalog's stock in
 * the order's transaction (tracked products and variants only; an in-stock flag is left alone), at
 * zero the item is out of stock, a buyer whose last unit was sold meanwhile is refused with nothing
 * written, and two buyers racing for one last unit get exactly one order.
 */
import { testBackends } from '@shopkit/emulator/testing';
import { describe, expect, it } from 'vitest';
import {
  ApplicationError,
  cart,
  type Product,
  type ProductInput,
  products,
  redirects,
  STORES_APP_ID,
} from '../../src/index.ts';
import { CHECKOUT_FORM, failure, merchantClient, postForm, setupEmulator, visitorClient } from './setup.ts';

const SHOP = 'https://shop.example';
const CHANGED = 'com.wix.ecommerce.catalog.api.v1.ProductChanged';
const FORM = new URLSearchParams(CHECKOUT_FORM).toString();

/** One line of a buyer's cart: `quantity` of a product, or of one of its variants. */
interface Line {
  product: Product;
  quantity: number;
  variantId?: string;
}

describe.each(testBackends())('stock taken by orders (%s)', (backend) => {
  const emu = setupEmulator(backend, { allowedOrigins: [SHOP] });

  const merchant = () => merchantClient(emu, { products }).products;
  const visitor = () => visitorClient(emu, { cart, products, redirects });

  let made = 0;
  /** A new product of this test's own, so that every test starts from known stock. */
  const newProduct = async (name: string, extra: ProductInput = {}) =>
    (
      await merchant().createProduct({
        name: `${name} ${++made}`,
        productType: 'physical',
        priceData: { price: 10 },
        ...extra,
      })
    ).product;
  const variantOf = (p: Product, size: string) => p.variants!.find((v) => v.choices.Size === size)!.id;
  const sized = (name: string, quantity: number) =>
    newProduct(name, {
      stock: { trackInventory: true, quantity },
      productOptions: [{ name: 'Size', choices: [{ description: 'S' }, { description: 'M' }] }],
    });

  /** A buyer with `lines` in the cart, a checkout of it and a redirect session to its hosted page. */
  async function buyer(lines: Line[]) {
    const c = visitor();
    await c.cart.addToCurrentCart({
      lineItems: lines.map((l) => ({
        catalogReference: {
          appId: STORES_APP_ID,
          catalogItemId: l.product.id,
          ...(l.variantId ? { options: { variantId: l.variantId } } : {}),
        },
        quantity: l.quantity,
      })),
    });
    const { checkoutId } = await c.cart.createCheckoutFromCurrentCart();
    const { redirectSession } = await c.redirects.createRedirectSession({
      ecomCheckout: { checkoutId },
      callbacks: { postFlowUrl: `${SHOP}/thanks` },
    });
    /** Posts the hosted checkout form, as the page's "Place order" button does. */
    const placeOrder = () => postForm(redirectSession.fullUrl, FORM);
    return { client: c, checkoutId, placeOrder };
  }

  /** The product as a visitor reads it, by id and through a query. */
  async function read(p: Product) {
    const { product } = await visitor().products.getProduct(p.id);
    const queried = (await visitor().products.queryProducts().eq('id', p.id).find()).items[0]!;
    expect(queried.stock).toEqual(product.stock);
    return product;
  }
  const stockOf = async (p: Product) => (await read(p)).stock;
  const variantStock = async (p: Product, size: string) =>
    (await read(p)).variants!.find((v) => v.choices.Size === size)!.stock;

  const count = async (sql: string, params: unknown[] = []) =>
    Number((await emu.emu.db.query<{ n: number }>(sql, params))[0]!.n);
  const ordersOf = (...checkoutIds: string[]) =>
    count('SELECT count(*)::int AS n FROM orders WHERE checkout_id = ANY($1::text[])', [checkoutIds]);
  const changedEvents = (p: Product) =>
    emu.emu.db.query<{ seq: number; entity: any }>(
      'SELECT seq, entity FROM events WHERE entity_id = $1 AND type = $2 ORDER BY seq',
      [p.id, CHANGED],
    );

  it('takes the ordered units from tracked products and variants, and leaves untracked ones alone', async () => {
    const lamp = await newProduct('Stock Lamp', { stock: { trackInventory: true, quantity: 5 } });
    const scarf = await sized('Stock Scarf', 4);
    const print = await newProduct('Stock Print');
    expect(await stockOf(lamp)).toEqual({
      trackInventory: true,
      quantity: 5,
      inStock: true,
      inventoryStatus: 'IN_STOCK',
    });
    expect(await stockOf(scarf)).toMatchObject({ trackInventory: true, quantity: 8 });
    const printBefore = await read(print);
    expect(printBefore.stock).toEqual({ trackInventory: false, inStock: true, inventoryStatus: 'IN_STOCK' });

    const b = await buyer([
      { product: lamp, quantity: 2 },
      { product: scarf, variantId: variantOf(scarf, 'S'), quantity: 3 },
      { product: print, quantity: 7 },
    ]);
    const res = await b.placeOrder();
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(`${SHOP}/thanks`);
    expect(await ordersOf(b.checkoutId)).toBe(1);

    expect(await stockOf(lamp)).toEqual({
      trackInventory: true,
      quantity: 3,
      inStock: true,
      inventoryStatus: 'IN_STOCK',
    });
    expect(await stockOf(scarf)).toEqual({
      trackInventory: true,
      quantity: 5,
      inStock: true,
      inventoryStatus: 'IN_STOCK',
    });
    expect(await variantStock(scarf, 'S')).toEqual({ trackQuantity: true, quantity: 1, inStock: true });
    expect(await variantStock(scarf, 'M')).toEqual({ trackQuantity: true, quantity: 4, inStock: true });
    // The untracked product is exactly as it was, down to its last-updated date.
    expect(await read(print)).toEqual(printBefore);

    // One ProductChanged per tracked product, naming its stock, after the order's own event and
    // before its cart goes; none for the untracked product.
    const [order] = await emu.emu.db.query<{ id: string; cart_id: string }>(
      'SELECT o.id, c.cart_id FROM orders o JOIN checkouts c ON c.id = o.checkout_id WHERE o.checkout_id = $1',
      [b.checkoutId],
    );
    const seqOf = async (entityId: string, type: string) =>
      Number(
        (
          await emu.emu.db.query<{ seq: number }>(
            'SELECT seq FROM events WHERE entity_id = $1 AND type = $2',
            [entityId, type],
          )
        )[0]!.seq,
      );
    const created = await seqOf(order!.id, 'wix.ecom.v1.order_created');
    const deleted = await seqOf(order!.cart_id, 'wix.ecom.v1.cart_deleted');
    for (const p of [lamp, scarf]) {
      const events = await changedEvents(p);
      expect(events).toHaveLength(1);
      expect(Number(events[0]!.seq)).toBeGreaterThan(created);
      expect(Number(events[0]!.seq)).toBeLessThan(deleted);
      expect(events[0]!.entity.changedFields).toEqual(expect.arrayContaining(['stock', 'variants']));
    }
    expect(await changedEvents(print)).toEqual([]);
  });

  it('goes out of stock at zero: inStock false and the inventory status the catalog computes', async () => {
    const lamp = await newProduct('Stock Lamp', { stock: { trackInventory: true, quantity: 2 } });
    const scarf = await sized('Stock Scarf', 1);

    const first = await buyer([
      { product: lamp, quantity: 2 },
      { product: scarf, variantId: variantOf(scarf, 'S'), quantity: 1 },
    ]);
    expect((await first.placeOrder()).status).toBe(303);
    expect(await stockOf(lamp)).toEqual({
      trackInventory: true,
      quantity: 0,
      inStock: false,
      inventoryStatus: 'OUT_OF_STOCK',
    });
    const half = await read(scarf);
    expect(half.stock).toEqual({
      trackInventory: true,
      quantity: 1,
      inStock: true,
      inventoryStatus: 'PARTIALLY_OUT_OF_STOCK',
    });
    expect(half.variants!.find((v) => v.choices.Size === 'S')!.stock).toEqual({
      trackQuantity: true,
      quantity: 0,
      inStock: false,
    });
    expect(half.productOptions![0]!.choices!.map((c) => [c.description, c.inStock])).toEqual([
      ['S', false],
      ['M', true],
    ]);

    const second = await buyer([{ product: scarf, variantId: variantOf(scarf, 'M'), quantity: 1 }]);
    expect((await second.placeOrder()).status).toBe(303);
    expect(await stockOf(scarf)).toEqual({
      trackInventory: true,
      quantity: 0,
      inStock: false,
      inventoryStatus: 'OUT_OF_STOCK',
    });

    // Sold out: a new cart holding it cannot become a checkout.
    const late = visitor();
    await late.cart.addToCurrentCart({
      lineItems: [{ catalogReference: { appId: STORES_APP_ID, catalogItemId: lamp.id }, quantity: 1 }],
    });
    const e = await failure(late.cart.createCheckoutFromCurrentCart());
    expect(e).toBeInstanceOf(ApplicationError);
    expect(e).toMatchObject({ status: 400, code: 'LINE_ITEMS_NOT_AVAILABLE' });
  });

  it('refuses a buyer whose last unit was sold meanwhile (409), writing nothing', async () => {
    const last = await newProduct('Stock Vase', { stock: { trackInventory: true, quantity: 1 } });
    const plenty = await newProduct('Stock Bowl', { stock: { trackInventory: true, quantity: 10 } });
    const a = await buyer([{ product: last, quantity: 1 }]);
    // B's checkout is made while the unit is still there.
    const b = await buyer([
      { product: plenty, quantity: 2 },
      { product: last, quantity: 1 },
    ]);
    expect((await a.placeOrder()).status).toBe(303);
    expect(await stockOf(last)).toMatchObject({ quantity: 0, inStock: false });

    const events = await count('SELECT count(*)::int AS n FROM events');
    const plentyBefore = await read(plenty);
    const refused = await b.placeOrder();
    expect(refused.status).toBe(409);
    const html = await refused.text();
    expect(html).toContain('role="alert"');
    expect(html).toContain(`${last.name} is out of stock.`);

    // Nothing of B's order was written: no order, the checkout still open, the cart intact, no
    // event, and the other item's stock untouched.
    expect(await ordersOf(b.checkoutId)).toBe(0);
    expect((await emu.emu.db.query('SELECT status FROM checkouts WHERE id = $1', [b.checkoutId]))[0]).toEqual(
      { status: 'CREATED' },
    );
    expect((await b.client.cart.getCurrentCart()).lineItems.map((l) => l.quantity)).toEqual([2, 1]);
    expect(await count('SELECT count(*)::int AS n FROM events')).toBe(events);
    expect(await read(plenty)).toEqual(plentyBefore);
    expect(plentyBefore.stock).toMatchObject({ quantity: 10 });
    expect(await stockOf(last)).toMatchObject({ quantity: 0, inStock: false });
  });

  it('two buyers racing for the last unit: exactly one order, and the stock never below zero', async () => {
    for (let round = 0; round < 3; round++) {
      const last = await newProduct('Stock Clock', { stock: { trackInventory: true, quantity: 1 } });
      const [a, b] = await Promise.all([
        buyer([{ product: last, quantity: 1 }]),
        buyer([{ product: last, quantity: 1 }]),
      ]);
      const results = await Promise.all([a.placeOrder(), b.placeOrder()]);
      expect(results.map((r) => r.status).sort()).toEqual([303, 409]);
      const loser = results.find((r) => r.status === 409)!;
      expect(await loser.text()).toContain(`${last.name} is out of stock.`);
      expect(await ordersOf(a.checkoutId, b.checkoutId)).toBe(1);
      expect(await stockOf(last)).toEqual({
        trackInventory: true,
        quantity: 0,
        inStock: false,
        inventoryStatus: 'OUT_OF_STOCK',
      });
      expect(await changedEvents(last)).toHaveLength(1);
    }
  });

  it('one checkout posted twice at once is one order, taking its units once', async () => {
    const lamp = await newProduct('Stock Lamp', { stock: { trackInventory: true, quantity: 5 } });
    const b = await buyer([{ product: lamp, quantity: 2 }]);
    const results = await Promise.all([b.placeOrder(), b.placeOrder()]);
    expect(results.map((r) => r.status)).toEqual([303, 303]);
    expect(await ordersOf(b.checkoutId)).toBe(1);
    expect(await stockOf(lamp)).toMatchObject({ quantity: 3, inStock: true });
    expect(await changedEvents(lamp)).toHaveLength(1);
  });
});
