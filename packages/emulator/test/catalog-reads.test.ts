/**
 * The catalog's read paths over raw HTTP, on both storages: filter values PostgreSQL cannot read
 * are the platform's 400 (never a 500), and read the same on PGlite and PostgreSQL; `$nin` keeps
 * the products without a value, as `$ne` and `$not`/`$in` do; paging through a catalog whose
 * sort keys tie yields every product once, by offset and by cursor.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator, testBackends } from '../src/testing.ts';
import { jsonCalls, visitorToken } from './http.ts';

const QUERY = '/stores-reader/v1/products/query-platformized';
const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');

describe.each(testBackends())('catalog reads (%s)', (backend) => {
  let emu: TestEmulator;
  let token: string;
  beforeAll(async () => {
    emu = await startTestEmulator(backend);
    token = await visitorToken(emu);
  });
  afterAll(() => emu?.stop());

  const { call: raw, owner } = jsonCalls(() => emu);
  /** As an anonymous visitor. */
  const visitor = (method: string, path: string, body?: object) =>
    raw(method, path, body, { authorization: token });
  const products = (query: object, extra: object = {}) => visitor('POST', QUERY, { query, ...extra });
  /** Expects the platform's validation envelope naming `field`. */
  const expectViolation = (res: { status: number; body: any }, field: string) => {
    expect(res.status).toBe(400);
    expect(res.body.details.validationError.fieldViolations.map((v: any) => v.field)).toContain(field);
  };

  let n = 0;
  const create = async (fields: Record<string, unknown> = {}) => {
    const res = await owner('POST', '/stores/v1/products', {
      product: { name: `Read product ${++n}`, productType: 'physical', priceData: { price: 10 }, ...fields },
    });
    expect(res.status).toBe(200);
    return res.body.product as { id: string; lastUpdated: string; name: string };
  };

  describe('filter values', () => {
    it('refuses a date PostgreSQL cannot read with a 400, in a comparison and in $in', async () => {
      for (const value of ['1', 'hello 2020', '+100000-01-01T00:00:00Z'])
        expectViolation(
          await products({ filter: { lastUpdated: { $gt: value } } }),
          'query.filter.lastUpdated.$gt',
        );
      expectViolation(
        await products({ filter: { createdDate: { $in: ['1'] } } }),
        'query.filter.createdDate.$in',
      );
    });

    it('reads ISO dates with and without an offset, as the same instant on both storages', async () => {
      const p = await create();
      const at = Date.parse(p.lastUpdated);
      const ids = async (filter: object) =>
        (await products({ filter: { ...filter, name: p.name } })).body.products.map((x: any) => x.id);
      expect(await ids({ lastUpdated: p.lastUpdated })).toEqual([p.id]);
      // The same instant two hours east of UTC.
      const east = new Date(at + 2 * 3600_000).toISOString().replace('Z', '+02:00');
      expect(await ids({ lastUpdated: east })).toEqual([p.id]);
      expect(await ids({ lastUpdated: { $lt: east } })).toEqual([]);
      const day = p.lastUpdated.slice(0, 10);
      expect(await ids({ lastUpdated: { $gte: day } })).toEqual([p.id]);
    });

    it('reads number values as decimals, refusing hexadecimal on both storages alike', async () => {
      expectViolation(await products({ filter: { price: { $gt: '0x10' } } }), 'query.filter.price.$gt');
      expectViolation(await products({ filter: { price: { $in: ['0x10'] } } }), 'query.filter.price.$in');
      const all = (await products({ paging: { limit: 0 } })).body.metadata.total;
      const res = await products({ filter: { price: { $gte: '1e-100000' } }, paging: { limit: 0 } });
      expect(res.status).toBe(200);
      expect(res.body.metadata.total).toBe(all);
      const tiny = await products({ filter: { price: { $gt: ' 17.5 ' } }, paging: { limit: 100 } });
      expect(tiny.status).toBe(200);
      expect(tiny.body.products.every((x: any) => x.price.price > 17.5)).toBe(true);
    });

    it('refuses text holding the NUL character with a 400, in every operator', async () => {
      expectViolation(await products({ filter: { name: 'a\u0000b' } }), 'query.filter.name');
      expectViolation(
        await products({ filter: { name: { $contains: '\u0000' } } }),
        'query.filter.name.$contains',
      );
      expectViolation(
        await products({ filter: { sku: { $in: ['LS', '\u0000'] } } }),
        'query.filter.sku.$in[1]',
      );
      expectViolation(
        await products({ filter: { collectionIds: { $hasSome: ['\u0000'] } } }),
        'query.filter.collectionIds.$hasSome[0]',
      );
      expectViolation(
        await visitor('POST', '/v2/collections/query', { query: { filter: { name: { $in: ['\u0000'] } } } }),
        'query.filter.name.$in[0]',
      );
      expectViolation(
        await visitor('POST', '/stores-reader/v1/variants/query', {
          query: { filter: { variantName: 'a\u0000' } },
        }),
        'query.filter.variantName',
      );
    });

    it('keeps products without a value in $nin, as $ne and $not of $in do', async () => {
      const bare = await create();
      const count = async (filter: object) => {
        const res = await products({ filter: { ...filter, name: bare.name } });
        expect(res.status).toBe(200);
        return res.body.products.map((x: any) => x.id);
      };
      expect(await count({ sku: { $ne: 'LS' } })).toEqual([bare.id]);
      expect(await count({ $not: { sku: { $in: ['LS'] } } })).toEqual([bare.id]);
      expect(await count({ sku: { $nin: ['LS'] } })).toEqual([bare.id]);
      expect(await count({ sku: { $nin: [] } })).toEqual([bare.id]);
    });
  });

  describe('lookups by id and slug', () => {
    it('answers 400, not 500, to an id or slug holding the NUL character', async () => {
      for (const [path, field] of [
        ['/stores-reader/v1/products/a%00b', 'id'],
        ['/v2/collections/a%00b', 'id'],
        ['/v2/collections/slug/a%00b', 'slug'],
        ['/stores-reader/v1/collections/slug/a%00b', 'slug'],
        ['/stores-reader/v1/variants/a%00b-00000000-0000-0000-0000-000000000000', 'id'],
      ])
        expectViolation(await visitor('GET', path!), field!);
    });
  });

  describe('paging', () => {
    it('refuses an offset past the integers it can count, from dotted parameters and from a cursor', async () => {
      expectViolation(
        await visitor('GET', `${QUERY}?query.paging.offset=99999999999999999999`),
        'query.paging.offset',
      );
      expectViolation(
        await visitor('GET', `/v2/collections/query?query.paging.offset=99999999999999999999`),
        'query.paging.offset',
      );
      const forged = b64({ o: 1e20 });
      expectViolation(await products({ cursorPaging: { cursor: forged } }), 'query.cursorPaging.cursor');
      expectViolation(
        await visitor('GET', `${QUERY}?.r=${b64({ query: { cursorPaging: { cursor: forged } } })}`),
        'query.cursorPaging.cursor',
      );
    });

    it('pages through products whose sort keys tie, each once, by offset and by cursor', async () => {
      const tag = `Tie ${backend}`;
      const made: string[] = [];
      for (let i = 0; i < 7; i++)
        made.push((await create({ name: `${tag} ${i % 2}`, priceData: { price: 5 } })).id);
      const filter = { name: { $startsWith: tag } };
      const sort = [
        { fieldName: 'price', order: 'DESC' },
        { fieldName: 'name', order: 'ASC' },
      ];
      const byOffset: string[] = [];
      for (let offset = 0; ; offset += 2) {
        const res = await products({ filter, sort, paging: { limit: 2, offset } });
        expect(res.status).toBe(200);
        expect(res.body.metadata).toMatchObject({ total: 7, offset, count: res.body.products.length });
        byOffset.push(...res.body.products.map((p: any) => p.id));
        if (offset + 2 >= res.body.metadata.total) break;
      }
      expect([...byOffset].sort()).toEqual([...made].sort());
      const byCursor: string[] = [];
      let res = await products({ filter, sort, cursorPaging: { limit: 3 } });
      for (;;) {
        expect(res.status).toBe(200);
        byCursor.push(...res.body.products.map((p: any) => p.id));
        const next = res.body.metadata.cursors.next;
        if (!next) break;
        res = await products({ cursorPaging: { limit: 3, cursor: next } });
      }
      expect(byCursor).toEqual(byOffset);
    });
  });
});
