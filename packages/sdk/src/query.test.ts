import { describe, expect, it } from 'vitest';
import { type PlatformQuery, QueryBuilder, type QueryRunner, runPage } from './query.ts';

/** A runner over `n` numbered items that records the queries it receives. */
function fake(n: number, meta: { hideTotal?: boolean; noTotal?: boolean } = {}) {
  const seen: PlatformQuery[] = [];
  const run: QueryRunner<number> = async (q) => {
    seen.push(q);
    const { limit = 50, offset = 0 } = q.paging ?? {};
    const items = Array.from({ length: n }, (_, i) => i).slice(offset, offset + limit);
    return {
      items,
      metadata: meta.noTotal
        ? { count: items.length, offset }
        : { count: items.length, offset, total: n, tooManyToCount: meta.hideTotal },
    };
  };
  return { run, seen, q: () => new QueryBuilder(run) };
}

describe('QueryBuilder (spec point 9)', () => {
  const { q } = fake(0);

  it('starts with the default paging and no filter or sort', () => {
    expect(q().build()).toEqual({ paging: { limit: 50, offset: 0 } });
    expect(q().filter()).toEqual({});
  });

  it('maps each condition method to its operator', () => {
    const cases: [QueryBuilder<number>, Record<string, unknown>][] = [
      [q().eq('a', 1), { a: 1 }],
      [q().eq('a', undefined), { a: null }],
      [q().ne('a', 1), { a: { $ne: 1 } }],
      [q().gt('a', 1), { a: { $gt: 1 } }],
      [q().ge('a', 1), { a: { $gte: 1 } }],
      [q().lt('a', 1), { a: { $lt: 1 } }],
      [q().le('a', 1), { a: { $lte: 1 } }],
      [q().in('a', [1, 2]), { a: { $in: [1, 2] } }],
      [q().hasSome('a', [1]), { a: { $hasSome: [1] } }],
      [q().hasAll('a', [1]), { a: { $hasAll: [1] } }],
      [q().startsWith('a', 'x'), { a: { $startsWith: 'x' } }],
      [q().endsWith('a', 'x'), { a: { $endsWith: 'x' } }],
      [q().contains('a', 'x'), { a: { $contains: 'x' } }],
      [q().exists('a'), { a: { $exists: true } }],
      [q().exists('a', false), { a: { $exists: false } }],
      [q().isEmpty('a'), { a: null }],
      [q().isNotEmpty('a'), { a: { $ne: null } }],
      [q().between('a', 1, 5), { $and: [{ a: { $gte: 1 } }, { a: { $lt: 5 } }] }],
    ];
    for (const [b, filter] of cases) {
      expect(b).toBeInstanceOf(QueryBuilder);
      expect(b.filter()).toStrictEqual(filter);
    }
  });

  it('is immutable: every method returns a new builder', () => {
    const base = q().eq('a', 1);
    const more = base.gt('b', 2).descending('b').limit(5).skip(10);
    expect(more).not.toBe(base);
    expect(base.build()).toEqual({ filter: { a: 1 }, paging: { limit: 50, offset: 0 } });
    expect(more.build()).toStrictEqual({
      paging: { limit: 5, offset: 10 },
      filter: { $and: [{ a: 1 }, { b: { $gt: 2 } }] },
      sort: [{ fieldName: 'b', order: 'DESC' }],
    });
  });

  it('combines builders with or, and, not', () => {
    const a = q().eq('a', 1).ascending('a');
    const b = q().eq('b', 2).gt('c', 3);
    expect(a.or(b).build()).toStrictEqual({
      paging: { limit: 50, offset: 0 },
      filter: { $or: [{ a: 1 }, { $and: [{ b: 2 }, { c: { $gt: 3 } }] }] },
      sort: [{ fieldName: 'a', order: 'ASC' }],
    });
    expect(a.and(b).filter()).toStrictEqual({ $and: [{ a: 1 }, { b: 2 }, { c: { $gt: 3 } }] });
    expect(a.not(b).filter()).toStrictEqual({
      $and: [{ a: 1 }, { $not: { $and: [{ b: 2 }, { c: { $gt: 3 } }] } }],
    });
  });

  it('flattens chained or() into one $or (wire §4)', () => {
    const c = q().eq('c', 3);
    expect(q().eq('a', 1).or(q().eq('b', 2)).or(c).filter()).toStrictEqual({
      $or: [{ a: 1 }, { b: 2 }, { c: 3 }],
    });
    expect(c.or(q().eq('a', 1).or(q().eq('b', 2))).filter()).toStrictEqual({
      $or: [{ c: 3 }, { a: 1 }, { b: 2 }],
    });
  });

  it('or() with an empty side is the other side: an empty filter would match everything', () => {
    // Building an OR up step by step from an empty query (the platform SDK sends just `b` too).
    expect(q().or(q().eq('b', 2)).filter()).toStrictEqual({ b: 2 });
    expect(q().eq('a', 1).or(q()).filter()).toStrictEqual({ a: 1 });
    expect(q().or(q()).build()).toStrictEqual({ paging: { limit: 50, offset: 0 } });
    expect(q().or(q().eq('b', 2)).or(q().eq('c', 3)).filter()).toStrictEqual({ $or: [{ b: 2 }, { c: 3 }] });
  });

  it('flattens a lone $and condition into the filter', () => {
    const b = new QueryBuilder(fake(0).run, [{ $and: [{ a: 1 }, { b: 2 }] }, { c: 3 }]);
    expect(b.filter()).toStrictEqual({ $and: [{ a: 1 }, { b: 2 }, { c: 3 }] });
  });

  it('sorts by several fields in order; limit keeps the offset and skip the page size', () => {
    const b = q().ascending('a', 'b').descending('c').skip(20).limit(10);
    expect(b.build()).toStrictEqual({
      paging: { limit: 10, offset: 20 },
      sort: [
        { fieldName: 'a', order: 'ASC' },
        { fieldName: 'b', order: 'ASC' },
        { fieldName: 'c', order: 'DESC' },
      ],
    });
  });

  it('shares the condition methods on the prototype', () => {
    const a = q();
    expect(Object.keys(a).some((k) => k === 'eq')).toBe(false);
    expect(a.eq).toBe(q().eq);
    expect(a.startsWith).toBe(QueryBuilder.prototype.startsWith);
  });
});

describe('pages', () => {
  it('find runs the built query and wraps the answer', async () => {
    const { run, seen } = fake(7);
    const page = await new QueryBuilder(run).gt('x', 0).limit(3).find();
    expect(seen).toEqual([{ paging: { limit: 3, offset: 0 }, filter: { x: { $gt: 0 } } }]);
    expect(page).toMatchObject({
      items: [0, 1, 2],
      totalCount: 7,
      totalPages: 3,
      currentPage: 0,
      pageSize: 3,
    });
    expect([page.hasPrev(), page.hasNext()]).toEqual([false, true]);
    const next = await page.next();
    expect(next).toMatchObject({ items: [3, 4, 5], currentPage: 1 });
    expect(next.query).toEqual({ paging: { limit: 3, offset: 3 }, filter: { x: { $gt: 0 } } });
    expect((await next.prev()).items).toEqual([0, 1, 2]);
    // The first page has none before it: refused, as the platform SDK's iterator refuses it.
    expect(page.hasPrev()).toBe(false);
    await expect(page.prev()).rejects.toThrow(new RangeError('This is the first page'));
  });

  it('hides the totals when there are too many to count', async () => {
    const page = await new QueryBuilder(fake(7, { hideTotal: true }).run).limit(3).find();
    expect(page).toMatchObject({ totalCount: undefined, totalPages: undefined });
    expect(page.hasNext()).toBe(false);
  });

  it('runPage takes the offset from the metadata when the query has none', async () => {
    const run: QueryRunner<number> = async () => ({ items: [1], metadata: { offset: 20, total: 100 } });
    const page = await runPage(run, { paging: { limit: 10 } });
    expect(page).toMatchObject({ currentPage: 2, totalPages: 10, pageSize: 10 });
    expect((await runPage(run, {})).pageSize).toBe(50);
  });

  it('walks every page with counted totals', async () => {
    const { run, seen } = fake(7);
    const pages = [];
    for await (const p of new QueryBuilder(run).limit(3).pages()) pages.push(p.items);
    expect(pages).toEqual([[0, 1, 2], [3, 4, 5], [6]]);
    expect(seen.map((s) => s.paging?.offset)).toEqual([0, 3, 6]);
  });

  it('without totals walks while pages are full and stops at an empty one', async () => {
    const { run, seen } = fake(6, { noTotal: true });
    const items = [];
    for await (const n of new QueryBuilder(run).limit(3)) items.push(n);
    expect(items).toEqual([0, 1, 2, 3, 4, 5]);
    expect(seen.map((s) => s.paging?.offset)).toEqual([0, 3, 6]);
  });

  it('refuses a next page past the last when the totals are known, without a request (spec 9)', async () => {
    const { run, seen } = fake(7);
    const last = await (await (await new QueryBuilder(run).limit(3).find()).next()).next();
    expect(last.items).toEqual([6]);
    expect(last.hasNext()).toBe(false);
    await expect(last.next()).rejects.toThrow('This is the last page');
    expect(seen).toHaveLength(3);
    // With the totals hidden, no page is known to be the last.
    const hidden = fake(3, { noTotal: true });
    const first = await new QueryBuilder(hidden.run).limit(3).find();
    expect((await first.next()).items).toEqual([]);
  });

  it('makes a page of no items (limit 0, for the total alone) page 0 of 0, with nowhere to go', async () => {
    for (const meta of [{}, { hideTotal: true }]) {
      const { q, seen } = fake(14, meta);
      for (const skip of [0, 5]) {
        const page = await q().skip(skip).limit(0).find();
        expect([page.currentPage, page.totalPages, page.hasNext(), page.hasPrev()]).toEqual([
          0,
          meta.hideTotal ? undefined : 0,
          false,
          false,
        ]);
        expect(page.totalCount).toBe(meta.hideTotal ? undefined : 14);
        await expect(page.next()).rejects.toThrow('This is the last page');
      }
      expect(seen).toHaveLength(2);
    }
  });

  it('counts pages from an offset that is not a multiple of the page size (skip then limit)', async () => {
    // 22 items, from the 6th, 10 at a time: 5–14, 15–21 and no third page; the 5 items before the
    // offset are a page of their own.
    const { run, seen } = fake(22);
    const pages = [];
    for await (const p of new QueryBuilder(run).skip(5).limit(10).pages())
      pages.push([p.items[0], p.items.at(-1), p.currentPage, p.totalPages, p.hasPrev(), p.hasNext()]);
    expect(pages).toEqual([
      [5, 14, 1, 3, true, true],
      [15, 21, 2, 3, true, false],
    ]);
    expect(seen.map((s) => s.paging?.offset)).toEqual([5, 15]);
    // 14 items from the 6th fit one page: it is the last, and next() asks for nothing.
    const short = fake(14);
    const only = await new QueryBuilder(short.run).skip(5).limit(10).find();
    expect([only.items.length, only.currentPage, only.totalPages, only.hasNext()]).toEqual([9, 1, 2, false]);
    await expect(only.next()).rejects.toThrow('This is the last page');
    expect(short.seen).toHaveLength(1);
    // Back from the offset: the first page of the usual size, whose next one is aligned.
    const first = await only.prev();
    expect([first.query.paging, first.currentPage, first.hasPrev()]).toEqual([
      { limit: 10, offset: 0 },
      0,
      false,
    ]);
    expect((await first.next()).items).toEqual([10, 11, 12, 13]);
  });

  it('yields an empty first page once', async () => {
    const pages = [];
    for await (const p of new QueryBuilder(fake(0).run).pages()) pages.push(p.items);
    expect(pages).toEqual([[]]);
  });
});
