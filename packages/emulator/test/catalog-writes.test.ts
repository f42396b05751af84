/**
 * Catalog writes given input the platform's typings refuse, over raw HTTP on both storages: each is
 * a 400 naming the field, never a 500 and never stored, and the database (events included) is left
 * as it was. Unit-price quantities (`@min 0.01 @max 999999999.99`), an amount off above the largest
 * price, a collection's main image that no reader can answer, an over-long media URL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator, testBackends } from '../src/testing.ts';
import { fingerprintQuery, jsonCalls } from './http.ts';

describe.each(testBackends())('catalog writes (%s)', (backend) => {
  let emu: TestEmulator;
  let fingerprint: string;
  beforeAll(async () => {
    emu = await startTestEmulator(backend);
    fingerprint = await fingerprintQuery(emu);
  });
  afterAll(() => emu?.stop());

  const { owner } = jsonCalls(() => emu);
  const snapshot = () => emu.emu.db.query(fingerprint);
  let n = 0;
  const product = (fields: Record<string, unknown> = {}) => ({
    name: `Write product ${++n}`,
    productType: 'physical',
    priceData: { price: 10 },
    ...fields,
  });
  /** Sends the write and expects a 400 with exactly these violations (field and rule), nothing stored. */
  const refused = async (
    method: string,
    path: string,
    body: object,
    violations: { field: string; violatedRule: string }[],
  ) => {
    const before = await snapshot();
    const res = await owner(method, path, body);
    expect(res.status).toBe(400);
    expect(
      res.body.details.validationError.fieldViolations.map((v: { field: string; violatedRule: string }) => ({
        field: v.field,
        violatedRule: v.violatedRule,
      })),
    ).toEqual(violations);
    expect(await snapshot()).toEqual(before);
  };

  describe('unit prices', () => {
    const ppu = (totalQuantity: number, baseQuantity = 1, baseMeasurementUnit = 'G') => ({
      pricePerUnitData: { totalQuantity, totalMeasurementUnit: 'G', baseQuantity, baseMeasurementUnit },
    });

    it('refuses quantities below 0.01 (a unit price over a quantity rounded to 0 was a 500)', async () => {
      await refused('POST', '/stores/v1/products', { product: product(ppu(0.0001)) }, [
        { field: 'product.pricePerUnitData.totalQuantity', violatedRule: 'MIN' },
      ]);
      await refused('POST', '/stores/v1/products', { product: product(ppu(1, 0.001)) }, [
        { field: 'product.pricePerUnitData.baseQuantity', violatedRule: 'MIN' },
      ]);
    });

    it('refuses quantities above 999999999.99 (an infinite unit price was a 500, or null)', async () => {
      await refused('POST', '/stores/v1/products', { product: product(ppu(1e308)) }, [
        { field: 'product.pricePerUnitData.totalQuantity', violatedRule: 'MAX' },
      ]);
      await refused('POST', '/stores/v1/products', { product: product(ppu(1, 1e308, 'KG')) }, [
        { field: 'product.pricePerUnitData.baseQuantity', violatedRule: 'MAX' },
      ]);
      const created = await owner('POST', '/stores/v1/products', { product: product() });
      const id = created.body.product.id;
      await refused('PATCH', `/stores/v1/products/${id}`, { product: ppu(0.001) }, [
        { field: 'product.pricePerUnitData.totalQuantity', violatedRule: 'MIN' },
      ]);
    });

    it('takes the limits themselves and answers a finite unit price', async () => {
      for (const [total, base, unit] of [
        [0.01, 999_999_999.99, 'G'],
        [0.01, 999_999_999.99, 'KG'],
        [999_999_999.99, 0.01, 'MG'],
      ] as const) {
        const res = await owner('POST', '/stores/v1/products', {
          product: product({ priceData: { price: 999_999_999.99 }, ...ppu(total, base, unit) }),
        });
        expect(res.status).toBe(200);
        expect(Number.isFinite(res.body.product.priceData.pricePerUnit)).toBe(true);
      }
    });
  });

  it('refuses an amount off above the largest price as MAX, not as decimal places', async () => {
    for (const value of [1e15, 1_000_000_000])
      await refused(
        'POST',
        '/stores/v1/products',
        { product: product({ discount: { type: 'AMOUNT', value } }) },
        [{ field: 'product.discount.value', violatedRule: 'MAX' }],
      );
    const res = await owner('POST', '/stores/v1/products', {
      product: product({ discount: { type: 'AMOUNT', value: 999_999_999.99 } }),
    });
    expect(res.status).toBe(200);
    expect(res.body.product.priceData.discountedPrice).toBe(0);
  });

  it('refuses a discount of "NaN" or "Infinity" as not finite, as every other float field', async () => {
    for (const value of ['NaN', 'Infinity', '-Infinity']) {
      const res = await owner('POST', '/stores/v1/products', {
        product: product({ discount: { type: 'PERCENT', value } }),
      });
      expect(res.status).toBe(400);
      expect(res.body.message).toContain('"product.discount.value" must be a finite number');
    }
  });

  describe("a collection's main image", () => {
    const image = (img: Record<string, unknown>) => ({ media: { mainMedia: { image: img } } });

    it('refuses a URL that is neither http(s) nor a path, on create and update', async () => {
      for (const url of [
        'javascript:alert(1)',
        'data:image/svg+xml,<svg/>',
        '//elsewhere.example/x.png',
        'x.png',
      ])
        await refused(
          'POST',
          '/stores/v1/collections',
          { collection: { name: 'Bad image', ...image({ url }) } },
          [{ field: 'collection.media.mainMedia.image.url', violatedRule: 'OTHER' }],
        );
      await refused(
        'PATCH',
        '/stores/v1/collections/col-sale',
        { collection: image({ url: 'javascript:alert(1)' }) },
        [{ field: 'collection.media.mainMedia.image.url', violatedRule: 'OTHER' }],
      );
    });

    it('refuses sizes that are not whole pixels and items that are not a list (GraphQL failed on them)', async () => {
      await refused(
        'POST',
        '/stores/v1/collections',
        { collection: { name: 'Bad size', ...image({ url: '/media/x.svg', width: 'wide', height: -5 }) } },
        [
          { field: 'collection.media.mainMedia.image.width', violatedRule: 'FORMAT' },
          { field: 'collection.media.mainMedia.image.height', violatedRule: 'MIN' },
        ],
      );
      await refused(
        'POST',
        '/stores/v1/collections',
        { collection: { name: 'Bad items', media: { items: 'x' } } },
        [{ field: 'collection.media.items', violatedRule: 'FORMAT' }],
      );
    });

    it('takes back the media a read answered, and GraphQL reads the collection', async () => {
      const read = await owner('GET', '/v2/collections/col-sale');
      const media = read.body.collection.media;
      const created = await owner('POST', '/stores/v1/collections', { collection: { name: 'Echo', media } });
      expect(created.status).toBe(200);
      expect(created.body.collection.media).toEqual(media);
      const patched = await owner('PATCH', `/stores/v1/collections/${created.body.collection.id}`, {
        collection: { media: { ...media, mainMedia: { image: { ...media.mainMedia.image, width: 10 } } } },
      });
      expect(patched.status).toBe(200);
      expect(patched.body.collection.media.mainMedia.image.width).toBe(10);
      const gql = await owner('POST', '/graphql/alpha', {
        query: `{ collection(id: "${created.body.collection.id}") { media { mainMedia { image { url width } } } } }`,
      });
      expect(gql.body.errors).toBeUndefined();
      expect(gql.body.data.collection.media.mainMedia.image).toEqual({
        url: media.mainMedia.image.url,
        width: 10,
      });
    });
  });

  it('refuses a product media URL longer than 2000 characters', async () => {
    const created = await owner('POST', '/stores/v1/products', { product: product() });
    await refused(
      'POST',
      `/stores/v1/products/${created.body.product.id}/media`,
      { media: [{ url: `https://cdn.example/${'a'.repeat(2000)}.png` }] },
      [{ field: 'media[0].url', violatedRule: 'MAX_LENGTH' }],
    );
  });
});
