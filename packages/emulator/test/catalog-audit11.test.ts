/**
 * The eleventh catalog audit, over raw HTTP on each storage: a post of the hosted checkout form
 * for another buyer's checkout got a "not found" page without the way back its GET has (and a
 * post's referrer, the page itself, was linked as the way back); the store-variants and
 * collections queries counted every matching row, past the `catalogCountLimit` the products query
 * stops at; a store-variants page whose product was deleted while it was read was a 500; a name of
 * letters NFKD leaves whole (`ß`, `ø`, `ł`, `æ`) lost them from its slug (`ß` alone slugged as
 * `item`); the hosted product page showed the product's price beside the first variant's image and
 * stock, and "Out of stock" when only its first variant was sold out.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { slugify } from '../src/domains/catalog/store.ts';
import { adjustInventory } from '../src/domains/catalog/writes.ts';
import { CHECKOUT_FORM, startTestEmulator, type TestEmulator, testBackends } from '../src/testing.ts';
import { checkoutSession, formFields, jsonCalls, visitorToken } from './http.ts';

const W = '/stores/v1';
const SHOP = 'https://shop.example';

describe('slugs of names with letters NFKD leaves whole', () => {
  it('spells them as the common slug libraries do', () => {
    expect(slugify('ß')).toBe('ss');
    expect(slugify('Straße')).toBe('strasse');
    expect(slugify('GROẞ')).toBe('gross');
    expect(slugify('Smørrebrød')).toBe('smorrebrod');
    expect(slugify('Łódź')).toBe('lodz');
    expect(slugify('Æblegrød')).toBe('aeblegrod');
    expect(slugify('Œuvre')).toBe('oeuvre');
    expect(slugify('Þór')).toBe('thor');
    // Letters with marks lose them, as before; another script alone is still `item`.
    expect(slugify('Ärger Öl')).toBe('arger-ol');
    expect(slugify('Crème brûlée & ﬁsh')).toBe('creme-brulee-and-fish');
    expect(slugify('Чай')).toBe('item');
  });
});

describe.each(testBackends())('catalog audit 11 (%s)', (backend) => {
  let emu: TestEmulator;
  beforeAll(async () => {
    emu = await startTestEmulator(backend, { allowedOrigins: [SHOP] });
  });
  afterAll(() => emu?.stop());
  const { call, owner } = jsonCalls(() => emu);

  it('another buyer’s checkout: its form posted gets the “not found” page with the way back, as opened', async () => {
    const { checkoutId } = await checkoutSession(emu);
    // Another visitor's redirect session for that checkout, with a cart page to go back to.
    const other = await call(
      'POST',
      '/_api/redirects-api/v1/redirect-session',
      { ecomCheckout: { checkoutId }, callbacks: { cartPageUrl: `${SHOP}/cart` } },
      { authorization: await visitorToken(emu) },
    );
    expect(other.status).toBe(200);
    const url = other.body.redirectSession.fullUrl as string;
    const opened = await fetch(url);
    expect(opened.status).toBe(404);
    const openedHtml = await opened.text();
    expect(openedHtml).toContain(`<a href="${SHOP}/cart">Back to the site</a>`);
    const posted = await fetch(url, {
      method: 'POST',
      redirect: 'manual',
      body: new URLSearchParams({ ...formFields(openedHtml), ...CHECKOUT_FORM }),
    });
    expect(posted.status).toBe(404);
    const postedHtml = await posted.text();
    expect(postedHtml).toContain('This checkout does not exist.');
    expect(postedHtml).toContain(`<a href="${SHOP}/cart">Back to the site</a>`);
    // Nothing was placed.
    expect(await emu.emu.db.query('SELECT 1 FROM orders WHERE checkout_id = $1', [checkoutId])).toEqual([]);
  });

  it('another buyer’s checkout posted from its own page: no link back to that page itself', async () => {
    const { checkoutId } = await checkoutSession(emu);
    const other = await call(
      'POST',
      '/_api/redirects-api/v1/redirect-session',
      { ecomCheckout: { checkoutId } },
      { authorization: await visitorToken(emu) },
    );
    const url = other.body.redirectSession.fullUrl as string;
    const posted = await fetch(url, {
      method: 'POST',
      redirect: 'manual',
      headers: { referer: url },
      body: new URLSearchParams(CHECKOUT_FORM),
    });
    expect(posted.status).toBe(404);
    const html = await posted.text();
    expect(html).not.toContain('<a href=');
    expect(html).toContain('Back button');
    // Opened from another page of the emulator's, the way back is that page.
    const product = `${emu.url}/product-page/dinner-plate`;
    const opened = await fetch(url, { headers: { referer: product } });
    expect(await opened.text()).toContain(`<a href="${product}">Back to the site</a>`);
  });

  it('the hosted product page shows the price of the variant whose image and stock it shows', async () => {
    const made = await owner('POST', `${W}/products`, {
      product: {
        name: 'Audit11 variant priced',
        productType: 'physical',
        priceData: { price: 20 },
        discount: { type: 'PERCENT', value: 10 },
        productOptions: [{ name: 'Size', choices: [{ description: 'S' }, { description: 'M' }] }],
      },
    });
    expect(made.status).toBe(200);
    const { id, slug } = made.body.product;
    const priced = await owner('PATCH', `${W}/products/${id}/variants`, {
      variants: [{ choices: { Size: 'S' }, price: 30 }],
    });
    expect(priced.status).toBe(200);
    const shown = async () => {
      const page = await fetch(`${emu.url}/product-page/${slug}`);
      expect(page.status).toBe(200);
      return /data-testid="price">([^<]*(?:<s>[^<]*<\/s>)?)<\/p>/.exec(await page.text())?.[1];
    };
    // S, the first variant: 30 less 10 %, as the cart charges it.
    expect(await shown()).toBe('$27.00 <s>$30.00</s>');
    // S hidden: M, the first visible variant, at the product's price.
    await owner('PATCH', `${W}/products/${id}/variants`, {
      variants: [{ choices: { Size: 'S' }, visible: false }],
    });
    expect(await shown()).toBe('$18.00 <s>$20.00</s>');
  });

  it('the hosted product page says “In stock” for a product whose first variant is sold out and another is not', async () => {
    const made = await owner('POST', `${W}/products`, {
      product: {
        name: 'Audit11 partly sold out',
        productType: 'physical',
        priceData: { price: 10 },
        stock: { trackInventory: true, quantity: 0 },
        productOptions: [{ name: 'Size', choices: [{ description: 'S' }, { description: 'M' }] }],
      },
    });
    expect(made.status).toBe(200);
    const { id, slug } = made.body.product;
    const variants = (await owner('POST', `/stores-reader/v1/products/${id}/variants/query`, {})).body
      .variants;
    const m = variants.find((v: any) => v.choices.Size === 'M');
    const stocked = await owner('PATCH', `${W}/products/${id}/variants`, {
      variants: [{ variantIds: [m.id], price: 12 }],
    });
    expect(stocked.status).toBe(200);
    // M gets units (the stock of one variant, through the inventory an order also takes from).
    await emu.emu.db.tx(async (sql) => {
      expect(await adjustInventory(emu.emu, sql, [{ productId: id, variantId: m.id, delta: 3 }])).toEqual([]);
    });
    const product = (await owner('GET', `/stores-reader/v1/products/${id}`)).body.product;
    expect(product.stock).toMatchObject({ inStock: true, inventoryStatus: 'PARTIALLY_OUT_OF_STOCK' });
    const page = await (await fetch(`${emu.url}/product-page/${slug}`)).text();
    expect(page).toContain('<p>In stock</p>');
    // The price shown is that of the variant in stock.
    expect(page).toContain('<p data-testid="price">$12.00</p>');
  });

  it('a product or collection named with ß, ø, ł or æ keeps them in its slug', async () => {
    const p = await owner('POST', `${W}/products`, {
      product: { name: 'Weißbier Smørrebrød', productType: 'physical', priceData: { price: 5 } },
    });
    expect(p.status).toBe(200);
    expect(p.body.product.slug).toBe('weissbier-smorrebrod');
    const c = await owner('POST', `${W}/collections`, { collection: { name: 'Łakocie Ænglish' } });
    expect(c.status).toBe(200);
    expect(c.body.collection.slug).toBe('lakocie-aenglish');
  });

  it('a store-variants page whose product is deleted while it is read leaves it out, not a 500', async () => {
    const made = await owner('POST', `${W}/products`, {
      product: {
        name: 'Audit11 deleted while read',
        productType: 'physical',
        priceData: { price: 3 },
        productOptions: [{ name: 'Size', choices: [{ description: 'S' }, { description: 'M' }] }],
      },
    });
    const id = made.body.product.id as string;
    const db = emu.emu.db;
    const query = db.query.bind(db);
    // Between the page's rows and the products read for them, a merchant deletes the product.
    const spy = vi.spyOn(db, 'query').mockImplementation(async (text: string, params?: unknown[]) => {
      if (/FROM products p WHERE p\.id = ANY/.test(text)) {
        spy.mockRestore();
        await query('DELETE FROM products WHERE id = $1', [id]);
      }
      return query(text, params) as Promise<any>;
    });
    try {
      const page = await owner('POST', '/stores-reader/v1/variants/query', {
        query: { filter: { productId: id } },
      });
      expect(page.status).toBe(200);
      expect(page.body.variants).toEqual([]);
    } finally {
      spy.mockRestore();
    }
  });

  describe('every catalog query stops counting at catalogCountLimit', () => {
    const withLimit = async <T>(limit: number, fn: () => Promise<T>) => {
      const was = emu.emu.config.catalogCountLimit;
      emu.emu.config.catalogCountLimit = limit;
      try {
        return await fn();
      } finally {
        emu.emu.config.catalogCountLimit = was;
      }
    };
    const cases = [
      ['store variants', '/stores-reader/v1/variants/query'],
      ['collections', '/v2/collections/query'],
      ['products', '/stores-reader/v1/products/query-platformized'],
    ] as const;
    it.each(cases)('%s', async (_, path) => {
      const all = await owner('POST', path, { query: { paging: { limit: 1 } } });
      expect(all.status).toBe(200);
      // Enough rows that a limit of 2 is passed.
      expect(all.body.metadata.total).toBeGreaterThan(2);
      expect(all.body.metadata.tooManyToCount).toBeUndefined();
      const capped = await withLimit(2, () => owner('POST', path, { query: { paging: { limit: 1 } } }));
      expect(capped.status).toBe(200);
      expect(capped.body.metadata).toMatchObject({ count: 1, total: 2, tooManyToCount: true });
      // At the limit exactly, the count is whole.
      const exact = await withLimit(all.body.metadata.total, () =>
        owner('POST', path, { query: { paging: { limit: 1 } } }),
      );
      expect(exact.body.metadata.total).toBe(all.body.metadata.total);
      expect(exact.body.metadata.tooManyToCount).toBeUndefined();
    });
  });
});
