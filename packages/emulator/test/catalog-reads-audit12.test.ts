/**
 * The twelfth audit of the catalog's reads, over raw HTTP on each storage: a date filter on a day
 * its month does not have (`2021-02-30`, `2023-02-29`) was read as a day of the next month (the
 * way JavaScript rolls it over) and answered, where the platform and PostgreSQL refuse it; a
 * product made without a description reads `description: ""`, yet a filter on `""` missed it (and
 * found one whose description was cleared), while `$exists: false` found it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator, testBackends } from '../src/testing.ts';
import { jsonCalls, visitorToken } from './http.ts';

const R = '/stores-reader/v1';

describe.each(testBackends())('catalog reads audit 12 (%s)', (backend) => {
  let emu: TestEmulator;
  beforeAll(async () => {
    emu = await startTestEmulator(backend);
  });
  afterAll(() => emu?.stop());
  const { call, owner } = jsonCalls(() => emu);
  const products = async (query: object) =>
    call('POST', `${R}/products/query-platformized`, { query }, { authorization: await visitorToken(emu) });
  const dateViolation = (field: string) => ({
    field,
    description: expect.stringContaining('must be'),
    violatedRule: 'FORMAT',
    data: {},
  });

  it('refuses a date filter on a day its month does not have, as a 400 naming the field', async () => {
    for (const [filter, field] of [
      [{ lastUpdated: { $gt: '2021-02-30' } }, 'query.filter.lastUpdated.$gt'],
      [{ lastUpdated: { $lt: '2023-02-29T10:00:00Z' } }, 'query.filter.lastUpdated.$lt'],
      [{ createdDate: '2021-04-31T00:00:00.000Z' }, 'query.filter.createdDate'],
      // 2100 is no leap year (a century), though divisible by 4.
      [{ createdDate: { $gte: '2100-02-29' } }, 'query.filter.createdDate.$gte'],
      [{ lastUpdated: { $in: ['2021-01-01', '2021-06-31'] } }, 'query.filter.lastUpdated.$in'],
      [
        { $or: [{ name: 'x' }, { lastUpdated: { $lte: '2021-11-31T23:59:59+02:00' } }] },
        'query.filter.$or[1].lastUpdated.$lte',
      ],
    ] as const) {
      const answer = await products({ filter });
      expect(answer.status, JSON.stringify(filter)).toBe(400);
      expect(answer.body.details.validationError.fieldViolations).toEqual([dateViolation(field)]);
    }
    // Over GET, as dotted query parameters.
    const dotted = await call(
      'GET',
      `${R}/products/query-platformized?query.filter.lastUpdated.$gt=2021-02-30`,
      undefined,
      { authorization: await visitorToken(emu) },
    );
    expect(dotted.status).toBe(400);
    expect(dotted.body.details.validationError.fieldViolations).toEqual([
      dateViolation('query.filter.lastUpdated.$gt'),
    ]);
  });

  it('still takes every day a month has, leap days of leap years included (guard)', async () => {
    const all = (await products({})).body.metadata.total as number;
    expect(all).toBeGreaterThan(0);
    for (const day of ['2024-02-29', '2000-02-29T12:00:00Z', '2021-01-31', '2021-04-30T23:59:59.999+02:00']) {
      const answer = await products({ filter: { lastUpdated: { $gt: day }, createdDate: { $gt: day } } });
      expect(answer.status, day).toBe(200);
      expect(answer.body.metadata.total).toBe(all);
    }
  });

  it('filters a description as it reads: none and a cleared one are both ""', async () => {
    const make = async (name: string, extra: object = {}) => {
      const made = await owner('POST', '/stores/v1/products', {
        product: { name, productType: 'physical', priceData: { price: 5 }, ...extra },
      });
      expect(made.status).toBe(200);
      return made.body.product as { id: string; description: string };
    };
    const none = await make('Audit12 no description');
    const cleared = await make('Audit12 cleared description', { description: 'Soon gone.' });
    expect(
      (await owner('PATCH', `/stores/v1/products/${cleared.id}`, { product: { description: '' } })).status,
    ).toBe(200);
    const described = await make('Audit12 described', { description: 'Here.' });
    const ids = [none.id, cleared.id, described.id];
    const found = async (filter: object) => {
      const answer = await products({ filter: { $and: [{ id: { $in: ids } }, filter] } });
      expect(answer.status).toBe(200);
      return (answer.body.products as { id: string; description: string }[]).map((p) => p.id).sort();
    };
    // Both read the same.
    const read = await products({ filter: { id: { $in: [none.id, cleared.id] } } });
    expect(read.body.products.map((p: { description: string }) => p.description)).toEqual(['', '']);
    expect(await found({ description: '' })).toEqual([none.id, cleared.id].sort());
    expect(await found({ description: { $ne: '' } })).toEqual([described.id]);
    // Every product reads a description, so none lacks one.
    expect(await found({ description: { $exists: false } })).toEqual([]);
    expect(await found({ description: { $exists: true } })).toEqual([...ids].sort());
  });
});
