/**
 * The platform query language and offset paging (spec point 9, wire §4): an immutable builder that
 * emits `{filter, sort, paging}`, and pages that know their neighbours and can be walked with
 * `for await`.
 * @module
 */
import type { CallOptions } from './http/op.ts';
import { float } from './transforms.ts';

export type SortOrder = 'ASC' | 'DESC';
export interface Sorting {
  fieldName: string;
  order?: SortOrder;
  /** A distance sort's origin (sent as floats: `NaN` and `Infinity` travel as strings). */
  origin?: { latitude: number; longitude: number };
}
export interface Paging {
  limit?: number;
  offset?: number;
}
/** A platform query: filter in the `$`-operator grammar, sort, offset paging. */
export interface PlatformQuery {
  filter?: Record<string, unknown>;
  sort?: Sorting[];
  paging?: Paging;
}
/**
 * A platform query paged by cursor instead of offset (wire §4): the first page sends `filter`,
 * `sort` and `cursorPaging: {limit}`; a next one only `cursorPaging: {cursor, limit}`, with the
 * cursor from `metadata.cursors.next` (or `prev`), which carries the filter and sort.
 * @example
 * const first = await client.products.queryProducts({ filter: { visible: true }, cursorPaging: { limit: 20 } });
 * const cursor = first.metadata.cursors?.next;
 * if (cursor) await client.products.queryProducts({ cursorPaging: { limit: 20, cursor } });
 */
export interface CursorQuery extends PlatformQuery {
  cursorPaging?: { limit?: number; cursor?: string };
}
/** Paging metadata of an offset-paged answer. */
export interface PagingMetadata {
  count?: number;
  offset?: number;
  total?: number;
  tooManyToCount?: boolean;
  cursors?: { next?: string | null; prev?: string | null };
}

/** A query request's transformed fields: a distance sort's origin is floats (wire §5.3). */
export const QUERY_REQ = { query: { sort: { origin: { latitude: float, longitude: float } } } };

/** Default page size and offset (spec point 9). */
export const DEFAULT_LIMIT = 50;

/** Runs one query and returns the items with their paging metadata. */
/** Runs one page of a query, with the call options (signal, timeout, headers) of that page's call. */
export type QueryRunner<T> = (
  query: PlatformQuery,
  options?: CallOptions,
) => Promise<{ items: T[]; metadata?: PagingMetadata }>;

/** One page of results. */
export interface QueryPage<T> {
  items: T[];
  /** Total matches, or `undefined` when the server says there are too many to count. */
  totalCount: number | undefined;
  /** Pages in all, or `undefined` when too many to count. */
  totalPages: number | undefined;
  /** 0-based index of this page. */
  currentPage: number;
  pageSize: number;
  /** Exact query that produced this page. */
  query: PlatformQuery;
  /** True only while the current page is below total pages minus one. */
  hasNext(): boolean;
  /** True on any page after the first. */
  hasPrev(): boolean;
  /**
   * The next page; rejects with a `RangeError` on the last one (while `hasNext()` is false). Takes
   * call options of its own (a signal, a timeout), as `find` does: not those of this page's call.
   */
  next(options?: CallOptions): Promise<QueryPage<T>>;
  /** The previous page; rejects with a `RangeError` on the first one (while `hasPrev()` is false). */
  prev(options?: CallOptions): Promise<QueryPage<T>>;
}

type Cond = Record<string, unknown>;
type State<T> = { r: QueryRunner<T>; c: Cond[]; s: Sorting[]; p: { limit: number; offset: number } };

/**
 * Builds a platform query; every method returns a new builder.
 * @example
 * const page = await client.products.queryProducts()
 *   .startsWith('name', 'Linen').ge('price', 20).descending('price').limit(12).find();
 * for await (const product of client.products.queryProducts().hasSome('collectionIds', [id])) { … }
 */
// biome-ignore lint/suspicious/noUnsafeDeclarationMerging: the interface below types the condition methods built from a table
export class QueryBuilder<T> {
  // `declare`: assigned in the constructor, so no class-field code is emitted
  declare private readonly r: QueryRunner<T>;
  declare private readonly c: Cond[];
  declare private readonly s: Sorting[];
  declare private readonly p: { limit: number; offset: number };

  constructor(
    run: QueryRunner<T>,
    conds: Cond[] = [],
    sorts: Sorting[] = [],
    paging: { limit: number; offset: number } = { limit: DEFAULT_LIMIT, offset: 0 },
  ) {
    Object.assign(this, { r: run, c: conds, s: sorts, p: paging });
  }

  /** A copy of this builder with some of its state replaced (the constructor has nothing else to do). */
  private w(state: Partial<State<T>>): QueryBuilder<T> {
    return Object.assign(Object.create(QueryBuilder.prototype), this, state);
  }
  /** A copy with more conditions. */
  private a(...conds: Cond[]) {
    return this.w({ c: [...this.c, ...conds] });
  }

  isEmpty(field: string) {
    return this.eq(field, null);
  }
  isNotEmpty(field: string) {
    return this.ne(field, null);
  }
  /** `from` inclusive, `to` exclusive. */
  between(field: string, from: unknown, to: unknown) {
    return this.ge(field, from).lt(field, to);
  }
  /** This builder's conditions OR the other's; an `$or` on either side is flattened into this one. */
  or(other: QueryBuilder<T>) {
    // An empty side is left out: `{}` would match everything (an OR built up from an empty query).
    const $or = [this.filter(), other.filter()].flatMap((f) =>
      Array.isArray(f.$or) && Object.keys(f).length === 1
        ? (f.$or as Cond[])
        : Object.keys(f).length
          ? [f]
          : [],
    );
    return this.w({ c: $or.length > 1 ? [{ $or }] : $or });
  }
  /** This builder's conditions AND the other's. */
  and(other: QueryBuilder<T>) {
    return this.a(...other.c);
  }
  /** This builder's conditions AND NOT the other's. */
  not(other: QueryBuilder<T>) {
    return this.a({ $not: other.filter() });
  }

  ascending(...fields: string[]) {
    return this.o(fields, 'ASC');
  }
  descending(...fields: string[]) {
    return this.o(fields, 'DESC');
  }
  private o(fields: string[], order: SortOrder) {
    return this.w({ s: [...this.s, ...fields.map((fieldName) => ({ fieldName, order }))] });
  }
  /** Page size; keeps the offset. */
  limit(limit: number) {
    return this.w({ p: { ...this.p, limit } });
  }
  /** Offset; keeps the page size. */
  skip(offset: number) {
    return this.w({ p: { ...this.p, offset } });
  }

  /** The filter object: one condition as is, several joined by `$and`. */
  filter(): Record<string, unknown> {
    const flat = this.c.flatMap((c) =>
      Array.isArray(c.$and) && Object.keys(c).length === 1 ? (c.$and as Cond[]) : [c],
    );
    return flat.length > 1 ? { $and: flat } : (flat[0] ?? {});
  }

  /** The query this builder sends. */
  build(): PlatformQuery {
    const q: PlatformQuery = { paging: { ...this.p } };
    const filter = this.filter();
    if (Object.keys(filter).length) q.filter = filter;
    if (this.s.length) q.sort = [...this.s];
    return q;
  }

  /** Runs the query and returns the first page; `options` (a signal, a timeout) as every call takes. */
  find(options?: CallOptions): Promise<QueryPage<T>> {
    return runPage(this.r, this.build(), options);
  }

  /**
   * Every page, in order: the first always, then each next one while there may be more and it is
   * not empty; each page's call with `options`.
   */
  async *pages(options?: CallOptions): AsyncGenerator<QueryPage<T>> {
    let page = await this.find(options);
    yield page;
    while (
      page.hasNext() ||
      (page.totalPages === undefined && page.items.length === page.pageSize && page.items.length > 0)
    ) {
      page = await page.next(options);
      if (!page.items.length) return;
      yield page;
    }
  }

  /** Every item of every page. */
  async *[Symbol.asyncIterator](): AsyncGenerator<T> {
    for await (const page of this.pages()) yield* page.items;
  }
}

// The condition methods, typed here and built below from one table.
export interface QueryBuilder<T> {
  /** `field` equals `value` (`undefined` is sent as `null`). */
  eq(field: string, value: unknown): QueryBuilder<T>;
  /** `field` differs from `value`. */
  ne(field: string, value: unknown): QueryBuilder<T>;
  /** `field` > `value`. */
  gt(field: string, value: unknown): QueryBuilder<T>;
  /** `field` >= `value`. */
  ge(field: string, value: unknown): QueryBuilder<T>;
  /** `field` < `value`. */
  lt(field: string, value: unknown): QueryBuilder<T>;
  /** `field` <= `value`. */
  le(field: string, value: unknown): QueryBuilder<T>;
  /** `field` is one of `values`. */
  in(field: string, values: unknown[]): QueryBuilder<T>;
  /** The array `field` holds at least one of `values`. */
  hasSome(field: string, values: unknown[]): QueryBuilder<T>;
  /** The array `field` holds every one of `values`. */
  hasAll(field: string, values: unknown[]): QueryBuilder<T>;
  startsWith(field: string, value: string): QueryBuilder<T>;
  endsWith(field: string, value: string): QueryBuilder<T>;
  contains(field: string, value: string): QueryBuilder<T>;
  /** `field` is present (`true`, the default) or absent (`false`). */
  exists(field: string, value?: boolean): QueryBuilder<T>;
}

// `name` or `name:operator`: the operator is `$name` unless given; `eq` has none (`{field: value}`).
for (const entry of 'eq: ne gt ge:gte lt le:lte in hasSome hasAll startsWith endsWith contains exists'.split(
  ' ',
)) {
  const [name, op = name] = entry.split(':') as [string, string?];
  (QueryBuilder.prototype as unknown as Record<string, unknown>)[name] = function (
    this: { a(cond: Cond): unknown },
    field: string,
    // a missing `exists` value means true, a missing `eq` value means null
    value = name === 'exists' || undefined,
  ) {
    return this.a({ [field]: op ? { [`$${op}`]: value } : (value ?? null) });
  };
}

/** Runs one page of a query and wraps the answer. */
export async function runPage<T>(
  run: QueryRunner<T>,
  query: PlatformQuery,
  options?: CallOptions,
): Promise<QueryPage<T>> {
  // An answer may leave out an empty list (the platform SDK reads `items ?? []` too), or send
  // `null` for it or for its metadata: an empty page, not a TypeError.
  let { items, metadata } = await run(query, options);
  items ??= [];
  metadata ??= {};
  const limit = query.paging?.limit ?? DEFAULT_LIMIT;
  const offset = query.paging?.offset ?? metadata.offset ?? 0;
  // A `total` of `null` (the typings' `number | null`) is unknown, as a missing one is: not 0, which
  // made a first full page the last one and stopped `pages()` there.
  const totalCount = metadata.tooManyToCount ? undefined : (metadata.total ?? undefined);
  // Pages are counted from this page's offset, which `skip(n)` need not have made a multiple of the
  // page size: the items before it fill `ceil(offset / limit)` pages. With an aligned offset these
  // are the spec's `offset / limit` and `ceil(total / limit)`; with another, the last page is the one
  // that reaches the total (`offset + limit >= total`), not one past it.
  // A page of no items (`limit(0)`, to read the total alone) is page 0 of 0: no next, no previous.
  const currentPage = limit && Math.ceil(offset / limit);
  const totalPages =
    totalCount === undefined
      ? undefined
      : limit && Math.max(0, currentPage + Math.ceil((totalCount - offset) / limit));
  // A page to go to when `ok`; otherwise a refusal, as the platform SDK's iterator refuses one.
  const at = (ok: unknown, delta: number, end: string) => (o?: CallOptions) =>
    ok
      ? runPage(run, { ...query, paging: { limit, offset: Math.max(0, offset + delta * limit) } }, o)
      : Promise.reject(new RangeError(`This is the ${end} page`));
  return {
    items,
    totalCount,
    totalPages,
    currentPage,
    pageSize: limit,
    query,
    // false while the total pages are unknown: the comparison with NaN is false
    hasNext: () => currentPage < totalPages! - 1,
    hasPrev: () => currentPage > 0,
    // Spec 9: a next page only below the last one; with the totals hidden no page is known last.
    next: at(limit && (totalPages === undefined || currentPage < totalPages - 1), 1, 'last'),
    prev: at(currentPage > 0, -1, 'first'),
  };
}
