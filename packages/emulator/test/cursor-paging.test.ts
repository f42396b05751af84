/**
 * Cursor paging by keyset, on both storages: a cursor holds its page's last (or first) row's sort
 * keys, so products, store variants and collections written or deleted between pages neither
 * repeat nor skip a row that was there throughout; `prev` leads to the rows just before a page;
 * sort keys that tie, are null, or are times with microseconds page like an offset listing; and a
 * cursor whose keys the emulator did not write is the platform's 400, never a 500.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator, testBackends } from '../src/testing.ts';
import { jsonCalls, visitorToken } from './http.ts';

const PRODUCTS = '/stores-reader/v1/products/query-platformized';
const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
const unb64 = (s: string) => JSON.parse(Buffer.from(s, 'base64url').toString('utf8'));

describe.each(testBackends())('cursor paging (%s)', (backend) => {
  let emu: TestEmulator;
  let token: string;
  beforeAll(async () => {
    emu = await startTestEmulator(backend);
    token = await visitorToken(emu);
  });
  afterAll(() => emu?.stop());

  const { call: raw, owner } = jsonCalls(() => emu);
  const visitor = (method: string, path: string, body?: object) =>
    raw(method, path, body, { authorization: token });

  let n = 0;
  const create = async (fields: Record<string, unknown>) => {
    const res = await owner('POST', '/stores/v1/products', {
      product: {
        name: `Cursor product ${++n}`,
        productType: 'physical',
        priceData: { price: 10 },
        ...fields,
      },
    });
    expect(res.status).toBe(200);
    return res.body.product as { id: string; name: string };
  };
  const remove = async (id: string) =>
    expect((await owner('DELETE', `/stores/v1/products/${id}`)).status).toBe(200);

  /** One page of a query as a visitor: its rows' `key` and its metadata. */
  const page = async (path: string, items: string, query: object, key = 'id') => {
    const res = await visitor('POST', path, { query });
    expect(res.status).toBe(200);
    return { keys: res.body[items].map((x: any) => x[key]) as string[], metadata: res.body.metadata };
  };
  const products = (query: object) => page(PRODUCTS, 'products', query, 'name');

  /** Every page from the first query on, by `next` cursors. */
  const everyPage = async (first: object, limit: number, at = products) => {
    const pages: string[][] = [];
    let p = await at({ ...first, cursorPaging: { limit } });
    for (;;) {
      pages.push(p.keys);
      const next = p.metadata.cursors.next;
      if (!next) return pages;
      p = await at({ cursorPaging: { limit, cursor: next } });
    }
  };

  it('pages on after rows are created and deleted before the cursor, none repeated or skipped', async () => {
    const tag = `Keyset ${backend} A`;
    const made = new Map<string, string>();
    for (const c of 'bdfhjlnp') made.set(c, (await create({ name: `${tag} ${c}` })).id);
    const query = { filter: { name: { $startsWith: tag } }, sort: [{ fieldName: 'name' }] };
    const first = await products({ ...query, cursorPaging: { limit: 3 } });
    expect(first.keys).toEqual(['b', 'd', 'f'].map((c) => `${tag} ${c}`));
    expect(first.metadata).toMatchObject({ count: 3, offset: 0, total: 8, cursors: { prev: null } });
    // Before the cursor: two products more, one less (an offset would now show `f` again).
    await create({ name: `${tag} a` });
    await create({ name: `${tag} c` });
    await remove(made.get('d')!);
    // After it: one more, which the next pages show in its place.
    await create({ name: `${tag} k` });
    const second = await products({ cursorPaging: { limit: 3, cursor: first.metadata.cursors.next } });
    expect(second.keys).toEqual(['h', 'j', 'k'].map((c) => `${tag} ${c}`));
    expect(second.metadata).toMatchObject({ count: 3, offset: 3, total: 10 });
    const third = await products({ cursorPaging: { limit: 3, cursor: second.metadata.cursors.next } });
    expect(third.keys).toEqual(['l', 'n', 'p'].map((c) => `${tag} ${c}`));
    expect(third.metadata.cursors.next).toBeNull();
    // Back from the third page: the rows just before its first, as they are now.
    const back = await products({ cursorPaging: { limit: 3, cursor: third.metadata.cursors.prev } });
    expect(back.keys).toEqual(['h', 'j', 'k'].map((c) => `${tag} ${c}`));
    const before = await products({ cursorPaging: { limit: 3, cursor: back.metadata.cursors.prev } });
    expect(before.keys).toEqual(['b', 'c', 'f'].map((c) => `${tag} ${c}`));
    // The products created before the first page's cursor are there on the way back.
    const front = await products({ cursorPaging: { limit: 3, cursor: before.metadata.cursors.prev } });
    expect(front.keys).toEqual([`${tag} a`]);
    expect(front.metadata).toMatchObject({ offset: 0, cursors: { prev: null, next: expect.any(String) } });
  });

  it('pages like an offset listing through ties, nulls and microsecond times, both ways', async () => {
    const tag = `Keyset ${backend} B`;
    for (let i = 0; i < 9; i++)
      await create({
        name: `${tag} ${i}`,
        priceData: { price: 10 + (i % 3) },
        ...(i % 4 ? { sku: `SKU-${backend}-${i % 2}` } : {}),
      });
    const filter = { name: { $startsWith: tag } };
    for (const sort of [
      [{ fieldName: 'sku' }, { fieldName: 'price', order: 'DESC' }],
      [{ fieldName: 'sku', order: 'DESC' }],
      [{ fieldName: 'lastUpdated', order: 'DESC' }],
      [{ fieldName: 'price' }, { fieldName: 'price', order: 'DESC' }, { fieldName: 'sku' }],
    ]) {
      const all = (await products({ filter, sort, paging: { limit: 100 } })).keys;
      expect(all).toHaveLength(9);
      const pages = await everyPage({ filter, sort }, 2);
      expect(pages.flat(), JSON.stringify(sort)).toEqual(all);
      // And back again from the last page, by `prev` cursors.
      const backwards: string[][] = [];
      let p = await products({
        cursorPaging: { limit: 2, cursor: (await lastPage({ filter, sort }, 2)).metadata.cursors.prev },
      });
      for (;;) {
        backwards.unshift(p.keys);
        const prev = p.metadata.cursors.prev;
        if (!prev) break;
        p = await products({ cursorPaging: { limit: 2, cursor: prev } });
      }
      expect([...backwards.flat(), ...pages.at(-1)!], JSON.stringify(sort)).toEqual(all);
    }
  });

  /** The last page of a query, by `next` cursors. */
  const lastPage = async (first: object, limit: number) => {
    let p = await products({ ...first, cursorPaging: { limit } });
    while (p.metadata.cursors.next)
      p = await products({ cursorPaging: { limit, cursor: p.metadata.cursors.next } });
    return p;
  };

  it('leads back from a page whose rows were all deleted, and on from it to nothing', async () => {
    const tag = `Keyset ${backend} C`;
    const made = [];
    for (let i = 0; i < 5; i++) made.push(await create({ name: `${tag} ${i}` }));
    const query = { filter: { name: { $startsWith: tag } }, sort: [{ fieldName: 'name' }] };
    const first = await products({ ...query, cursorPaging: { limit: 2 } });
    for (const p of made.slice(2)) await remove(p.id);
    const empty = await products({ cursorPaging: { limit: 2, cursor: first.metadata.cursors.next } });
    expect(empty.keys).toEqual([]);
    expect(empty.metadata.cursors.next).toBeNull();
    const back = await products({ cursorPaging: { limit: 2, cursor: empty.metadata.cursors.prev } });
    expect(back.keys).toEqual([`${tag} 0`, `${tag} 1`]);
    expect(back.metadata).toMatchObject({ offset: 0, cursors: { prev: null } });
  });

  it('keeps store variants and collections in place when rows are written between pages', async () => {
    const tag = `Keyset ${backend} D`;
    const sized = (name: string) =>
      create({
        name,
        manageVariants: true,
        productOptions: [{ name: 'Size', choices: [{ description: 'S' }, { description: 'M' }] }],
      });
    const a = await sized(`${tag} 1`);
    const b = await sized(`${tag} 2`);
    const variants = (query: object) => page('/stores-reader/v1/variants/query', 'variants', query);
    const filter = { productName: { $startsWith: tag } };
    const first = await variants({ filter, cursorPaging: { limit: 3 } });
    expect(first.keys).toHaveLength(3);
    // The product whose variants the first page showed, deleted: an offset would now skip one of b's.
    await remove(a.id);
    const rest = await variants({ cursorPaging: { limit: 3, cursor: first.metadata.cursors.next } });
    const all = (await variants({ filter, paging: { limit: 100 } })).keys;
    expect(all.every((id) => id.startsWith(b.id))).toBe(true);
    expect([...first.keys, ...rest.keys].filter((id) => id.startsWith(b.id))).toEqual(all);
    expect(rest.metadata.cursors.next).toBeNull();

    const collection = async (name: string) =>
      (await owner('POST', '/stores/v1/collections', { collection: { name } })).body.collection.id as string;
    for (const c of 'bdf') await collection(`${tag} ${c}`);
    const collections = (query: object) => page('/v2/collections/query', 'collections', query, 'name');
    const sort = [{ fieldName: 'name', order: 'DESC' }];
    const top = await collections({
      filter: { name: { $startsWith: tag } },
      sort,
      cursorPaging: { limit: 2 },
    });
    expect(top.keys).toEqual([`${tag} f`, `${tag} d`]);
    await collection(`${tag} e`);
    const next = await collections({ cursorPaging: { limit: 2, cursor: top.metadata.cursors.next } });
    expect(next.keys).toEqual([`${tag} b`]);
  });

  it('gives a page of no items (limit 0) no cursors, wherever it is read', async () => {
    const first = await products({ sort: [{ fieldName: 'name' }], cursorPaging: { limit: 3 } });
    const second = await products({ cursorPaging: { limit: 3, cursor: first.metadata.cursors.next } });
    for (const cursor of [undefined, second.metadata.cursors.next, second.metadata.cursors.prev]) {
      const none = await products({ cursorPaging: { limit: 0, ...(cursor ? { cursor } : {}) } });
      expect(none.keys).toEqual([]);
      expect(none.metadata.cursors).toEqual({ next: null, prev: null });
    }
  });

  it('refuses a cursor whose keys it did not write with a 400, for every key type', async () => {
    const first = await products({ sort: [{ fieldName: 'lastUpdated' }], cursorPaging: { limit: 1 } });
    const state = unb64(first.metadata.cursors.next);
    expect(state.k).toHaveLength(2);
    const forged = (k: unknown) => b64({ ...state, k });
    for (const k of [
      ['not a time', state.k[1]],
      ['2026-01-01T00:00:00', state.k[1]],
      // Read by JavaScript, refused by PostgreSQL: a day that does not exist, a decimal too long.
      ['2023-02-29T00:00:00.000000Z', state.k[1]],
      ['2024-04-31T12:00:00.000000Z', state.k[1]],
      [state.k[0], `0.${'0'.repeat(16_384)}1`],
      [state.k[0], '1e-1001'],
      [state.k[0], 'twelve'],
      [state.k[0], '0x10'],
      [state.k[0]],
      [state.k[0], state.k[1], 'x'],
      'keys',
      [state.k[0], 7],
    ]) {
      const res = await visitor('POST', PRODUCTS, { query: { cursorPaging: { cursor: forged(k) } } });
      expect(res.status, JSON.stringify(k)).toBe(400);
      expect(res.body.details.validationError.fieldViolations.map((v: any) => v.field)).toEqual([
        'query.cursorPaging.cursor',
      ]);
    }
    const byName = await products({ sort: [{ fieldName: 'name' }], cursorPaging: { limit: 1 } });
    const named = unb64(byName.metadata.cursors.next);
    for (const k of [
      ['a\u0000b', named.k[1]],
      [true, named.k[1]],
    ]) {
      const res = await visitor('POST', PRODUCTS, {
        query: { cursorPaging: { cursor: b64({ ...named, k }) } },
      });
      expect(res.status, JSON.stringify(k)).toBe(400);
    }
    // The cursor as written still works, over GET too.
    const again = await visitor(
      'GET',
      `${PRODUCTS}?.r=${b64({ query: { cursorPaging: { limit: 1, cursor: first.metadata.cursors.next } } })}`,
    );
    expect(again.status).toBe(200);
    expect(again.body.products).toHaveLength(1);
  });
});
