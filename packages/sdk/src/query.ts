/**
 * The platform query language and offset paging (spec point 9, wire §4): an immutable builder that
 * emits `{filter, sort, paging}`, and pages that know their neighbours and can be walked with
 * `for await`.
 * @module
 */

export type SortOrder = 'ASC' | 'DESC';
export interface Sorting {
  fieldName: string;
  order?: SortOrder;
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
/** Paging metadata of an offset-paged answer. */
export interface PagingMetadata {
  count?: number;
  offset?: number;
  total?: number;
  tooManyToCount?: boolean;
  cursors?: { next?: string | null; prev?: string | null };
}

/** Default page size and offset (spec point 9). */
export const DEFAULT_LIMIT = 50;

/** Runs one query and returns the items with their paging metadata. */
export type QueryRunner<T> = (query: PlatformQuery) => Promise<{ items: T[]; metadata?: PagingMetadata }>;

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
  hasPrev(): boolean;
  next(): Promise<QueryPage<T>>;
  prev(): Promise<QueryPage<T>>;
}

type Cond = Record<string, unknown>;

/**
 * Builds a platform query; every method returns a new builder.
 * @example
 * const page = await client.products.queryProducts()
 *   .startsWith('name', 'Linen').ge('price', 20).descending('price').limit(12).find();
 * for await (const product of client.products.queryProducts().hasSome('collectionIds', [id])) { … }
 */
export class QueryBuilder<T> {
  constructor(
    private readonly run: QueryRunner<T>,
    private readonly conds: Cond[] = [],
    private readonly sorts: Sorting[] = [],
    private readonly paging: { limit: number; offset: number } = { limit: DEFAULT_LIMIT, offset: 0 },
  ) {}

  private with(conds: Cond[], sorts = this.sorts, paging = this.paging) {
    return new QueryBuilder<T>(this.run, conds, sorts, paging);
  }
  private op(field: string, op: string, value: unknown) {
    return this.with([...this.conds, { [field]: op ? { [op]: value } : value }]);
  }

  eq(field: string, value: unknown) {
    return this.op(field, '', value === undefined ? null : value);
  }
  ne(field: string, value: unknown) {
    return this.op(field, '$ne', value);
  }
  gt(field: string, value: unknown) {
    return this.op(field, '$gt', value);
  }
  ge(field: string, value: unknown) {
    return this.op(field, '$gte', value);
  }
  lt(field: string, value: unknown) {
    return this.op(field, '$lt', value);
  }
  le(field: string, value: unknown) {
    return this.op(field, '$lte', value);
  }
  in(field: string, values: unknown[]) {
    return this.op(field, '$in', values);
  }
  hasSome(field: string, values: unknown[]) {
    return this.op(field, '$hasSome', values);
  }
  hasAll(field: string, values: unknown[]) {
    return this.op(field, '$hasAll', values);
  }
  startsWith(field: string, value: string) {
    return this.op(field, '$startsWith', value);
  }
  endsWith(field: string, value: string) {
    return this.op(field, '$endsWith', value);
  }
  contains(field: string, value: string) {
    return this.op(field, '$contains', value);
  }
  exists(field: string, value = true) {
    return this.op(field, '$exists', value);
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
  /** This builder's conditions OR the other's. */
  or(other: QueryBuilder<T>) {
    return this.with([{ $or: [this.filter(), other.filter()] }]);
  }
  /** This builder's conditions AND the other's. */
  and(other: QueryBuilder<T>) {
    return this.with([...this.conds, ...other.conds]);
  }
  /** This builder's conditions AND NOT the other's. */
  not(other: QueryBuilder<T>) {
    return this.with([...this.conds, { $not: other.filter() }]);
  }

  ascending(...fields: string[]) {
    return this.sortBy(fields, 'ASC');
  }
  descending(...fields: string[]) {
    return this.sortBy(fields, 'DESC');
  }
  private sortBy(fields: string[], order: SortOrder) {
    return this.with(this.conds, [...this.sorts, ...fields.map((fieldName) => ({ fieldName, order }))]);
  }
  /** Page size; keeps the offset. */
  limit(limit: number) {
    return this.with(this.conds, this.sorts, { ...this.paging, limit });
  }
  /** Offset; keeps the page size. */
  skip(offset: number) {
    return this.with(this.conds, this.sorts, { ...this.paging, offset });
  }

  /** The filter object: one condition as is, several joined by `$and`. */
  filter(): Record<string, unknown> {
    const flat = this.conds.flatMap((c) =>
      Array.isArray(c.$and) && Object.keys(c).length === 1 ? (c.$and as Cond[]) : [c],
    );
    return flat.length === 0 ? {} : flat.length === 1 ? flat[0]! : { $and: flat };
  }

  /** The query this builder sends. */
  build(): PlatformQuery {
    const q: PlatformQuery = { paging: { ...this.paging } };
    const filter = this.filter();
    if (Object.keys(filter).length) q.filter = filter;
    if (this.sorts.length) q.sort = [...this.sorts];
    return q;
  }

  /** Runs the query and returns the first page. */
  find(): Promise<QueryPage<T>> {
    return runPage(this.run, this.build());
  }

  /** Every page, in order. */
  async *pages(): AsyncGenerator<QueryPage<T>> {
    let page = await this.find();
    yield page;
    while (
      page.hasNext() ||
      (page.totalPages === undefined && page.items.length === page.pageSize && page.items.length > 0)
    ) {
      page = await runPage(this.run, {
        ...page.query,
        paging: { limit: page.pageSize, offset: (page.query.paging?.offset ?? 0) + page.pageSize },
      });
      if (!page.items.length) return;
      yield page;
    }
  }

  /** Every item of every page. */
  async *[Symbol.asyncIterator](): AsyncGenerator<T> {
    for await (const page of this.pages()) yield* page.items;
  }
}

/** Runs one page of a query and wraps the answer. */
export async function runPage<T>(run: QueryRunner<T>, query: PlatformQuery): Promise<QueryPage<T>> {
  const { items, metadata = {} } = await run(query);
  const limit = query.paging?.limit ?? DEFAULT_LIMIT;
  const offset = query.paging?.offset ?? metadata.offset ?? 0;
  const hidden = !!metadata.tooManyToCount;
  const total = hidden ? undefined : metadata.total;
  const totalPages = total === undefined ? undefined : Math.ceil(total / limit);
  const currentPage = Math.floor(offset / limit);
  const at = (delta: number) =>
    runPage(run, { ...query, paging: { limit, offset: Math.max(0, offset + delta * limit) } });
  return {
    items,
    totalCount: total,
    totalPages,
    currentPage,
    pageSize: limit,
    query,
    hasNext: () => totalPages !== undefined && currentPage < totalPages - 1,
    hasPrev: () => currentPage > 0,
    next: () => at(1),
    prev: () => at(-1),
  };
}
