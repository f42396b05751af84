/**
 * The fifteenth audit of the catalog, as a merchant over raw HTTP on each storage: a product image
 * added by the URL of one of this emulator's own images (a read product's `image.url`, copied to
 * another product) was stored with the emulator's origin, and pointed at a dead origin once it
 * served on another port or host (a collection's own image is kept as its path since audit 6); its
 * `ext-` id put in a cart line's image named no media file the emulator serves. An in-stock flag sent
 * for a product that tracks inventory was stored though its units decide: the write moved
 * `lastUpdated` with a `ProductChanged` naming nothing else, and the flag came back when tracking
 * was turned off (a product with units read out of stock). And `/media` served `.svg` names only:
 * an image added by a platform-style id or by an outside URL (its `ext-` id) was a broken image.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STORES_APP_ID } from '../src/domains/catalog/lookup.ts';
import { startTestEmulator, type TestEmulator, testBackends } from '../src/testing.ts';
import { jsonCalls, visitorToken } from './http.ts';

const W = '/stores/v1';
const R = '/stores-reader/v1';

describe.each(testBackends())('catalog audit 15 (%s)', (backend) => {
  let emu: TestEmulator;
  beforeAll(async () => {
    emu = await startTestEmulator(backend);
  });
  afterAll(() => emu?.stop());
  const { owner, call } = jsonCalls(() => emu);
  const read = async (id: string) => (await owner('GET', `${R}/products/${id}`)).body.product;
  async function product(name: string, extra: object = {}) {
    const created = await owner('POST', `${W}/products`, {
      product: { name, productType: 'physical', priceData: { price: 20 }, ...extra },
    });
    expect(created.status).toBe(200);
    return created.body.product.id as string;
  }
  /** The events recorded for a product, oldest first: the type's last part and the payload. */
  const events = async (id: string) =>
    (
      await emu.emu.db.query<{ type: string; entity: any }>(
        'SELECT type, entity FROM events WHERE entity_id = $1 ORDER BY seq',
        [id],
      )
    ).map((e) => ({ type: e.type.split('.').pop(), entity: e.entity }));
  /** A moment, so that a write that stores anything stores another time. */
  const tick = () => new Promise((r) => setTimeout(r, 5));
  /** The media items as stored in the product's row. */
  const storedMedia = async (id: string) =>
    (await emu.emu.db.query<{ doc: any }>('SELECT doc FROM products WHERE id = $1', [id]))[0]!.doc.media as {
      id: string;
      url: string;
    }[];

  it("keeps an image of the emulator's own, added by its URL, as that media item; another site's URL whole", async () => {
    const shirt = (
      await owner('POST', `${R}/products/query-platformized`, { query: { filter: { slug: 'linen-shirt' } } })
    ).body.products[0];
    const copied = shirt.media.items[0].image.url as string;
    expect(copied).toBe(`${emu.url}/media/linen-shirt.svg`);
    const id = await product('Audit15 copied media');
    const elsewhere = 'https://images.example.test/a.png';
    // Not a media file of the emulator's (a query string): kept as a path of its own.
    const versioned = `${emu.url}/media/linen-shirt.svg?v=2`;
    const added = await owner('POST', `${W}/products/${id}/media`, {
      id,
      media: [{ url: copied }, { url: elsewhere }, { url: versioned }],
    });
    expect(added.status).toBe(200);
    const stored = await storedMedia(id);
    expect(stored.map((m) => m.url)).toEqual([
      '/media/linen-shirt.svg',
      elsewhere,
      '/media/linen-shirt.svg?v=2',
    ]);
    expect(stored[0]!.id).toBe('linen-shirt.svg');
    // Read, each is an absolute URL of the emulator as it serves now.
    const media = (await read(id)).media.items;
    expect(media.map((m: any) => m.image.url)).toEqual([copied, elsewhere, versioned]);
    // A cart line's image is loaded by its id from the emulator's media (the storefront's mediaUrl).
    const visitor = await visitorToken(emu);
    const line = { catalogReference: { appId: STORES_APP_ID, catalogItemId: id }, quantity: 1 };
    const cart = await call(
      'POST',
      '/ecom/v1/carts/current/add-to-cart',
      { lineItems: [line] },
      { authorization: visitor },
    );
    expect(cart.status).toBe(200);
    const image = cart.body.cart.lineItems[0].image;
    expect(image.id).toBe('linen-shirt.svg');
    expect((await fetch(`${emu.url}/media/${image.id}`)).status).toBe(200);
    // Added again by its id, it is the same item, not a second one.
    await owner('POST', `${W}/products/${id}/media`, { id, media: [{ mediaId: 'linen-shirt.svg' }] });
    expect((await storedMedia(id)).map((m) => m.id)).toEqual(stored.map((m) => m.id));
    const removed = await owner('POST', `${W}/products/${id}/media/delete`, { id, mediaIds: [media[0].id] });
    expect(removed.status).toBe(200);
    expect((await storedMedia(id)).map((m) => m.url)).toEqual([elsewhere, '/media/linen-shirt.svg?v=2']);
  });
  it('serves every media id it takes: a platform-style id drawn, an image added by URL sent to its URL', async () => {
    // Only `.svg` names were served: an image added by a platform-style id (`…~mv2.jpg`) and one added
    // by an outside URL (its `ext-` id, which a cart line's image names) showed broken in a shop.
    const id = await product('Audit15 served media');
    const elsewhere = 'https://images.example.test/b.png';
    const added = await owner('POST', `${W}/products/${id}/media`, {
      id,
      media: [{ mediaId: '22e53e_a1b2~mv2.jpg' }, { url: elsewhere }, { url: `${emu.url}/media/x.svg?v=3` }],
    });
    expect(added.status).toBe(200);
    const [platformStyle, byUrl, ownPath] = await storedMedia(id);
    const drawn = await fetch(`${emu.url}/media/${platformStyle!.id}`);
    expect(drawn.status).toBe(200);
    expect(drawn.headers.get('content-type')).toBe('image/svg+xml');
    expect(await drawn.text()).toContain('<svg');
    for (const [item, to] of [
      [byUrl!, elsewhere],
      [ownPath!, '/media/x.svg?v=3'],
    ] as const) {
      expect(item.id).toMatch(/^ext-/);
      const sent = await fetch(`${emu.url}/media/${item.id}`, { redirect: 'manual' });
      expect(sent.status).toBe(302);
      expect(sent.headers.get('location')).toBe(to);
    }
    // An `ext-` id no product holds, and a name that is no media id, are still 404s.
    expect((await fetch(`${emu.url}/media/ext-${'0'.repeat(20)}`)).status).toBe(404);
    expect((await fetch(`${emu.url}/media/a%20b.svg`)).status).toBe(404);
  });
  it('stores no in-stock flag sent for a tracked product: nothing changes, nothing is told, and it stays in stock untracked', async () => {
    const id = await product('Audit15 tracked', { stock: { trackInventory: true, quantity: 4 } });
    const was = await read(id);
    const before = await events(id);
    await tick();
    const sent = await owner('PATCH', `${W}/products/${id}`, { product: { stock: { inStock: false } } });
    expect(sent.status).toBe(200);
    // Its four units keep it in stock: the write changed nothing, and says nothing.
    expect(sent.body.product.stock).toEqual(was.stock);
    expect(sent.body.product.lastUpdated).toBe(was.lastUpdated);
    expect(await events(id)).toEqual(before);
    // Tracking turned off, it is in stock as it read: the flag sent earlier does not come back.
    const off = await owner('PATCH', `${W}/products/${id}`, {
      product: { stock: { trackInventory: false } },
    });
    expect(off.status).toBe(200);
    expect(off.body.product.stock).toEqual({
      trackInventory: false,
      inStock: true,
      inventoryStatus: 'IN_STOCK',
    });
    // Untracked, the flag is the product's to set.
    const sold = await owner('PATCH', `${W}/products/${id}`, { product: { stock: { inStock: false } } });
    expect(sold.body.product.stock).toMatchObject({ inStock: false, inventoryStatus: 'OUT_OF_STOCK' });
  });
});
