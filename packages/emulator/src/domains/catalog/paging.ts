/**
 * The platform query of the catalog's query endpoints (products, store variants, collections v2)
 * and its two ways of paging (wire §4): offset `paging`, or `cursorPaging`, whose cursor carries
 * the query it continues. One implementation for every endpoint that pages by cursor.
 * @module
 */

import { type CompiledQuery, keysetCondition, keyText, orderOf, type QueryInput } from '../../db/filter.ts';
import type { Sql } from '../../db/index.ts';
import { nestsDeeperThan } from '../../http/decode.ts';
import { invalid, type Violation } from '../../http/errors.ts';
import { float, qs, queryFields, z } from '../../http/validate.ts';

/** The largest page (the typings' `@max 100` on `paging.limit` and `cursorPaging.limit`). */
export const MAX_LIMIT = 100;
const DEFAULT_LIMIT = 50;

/** `PlatformQuery` of the typings: filter, sort, and offset or cursor paging. */
export const platformQuery = z
  .object({
    filter: z.record(z.string(), z.unknown()).optional(),
    sort: z
      .array(
        z
          .object({
            fieldName: z.string(),
            order: z.enum(['ASC', 'DESC']).optional(),
            // A distance sort's origin: no catalog field is a GEO field, so it orders nothing here.
            origin: z
              .object({ latitude: float().optional(), longitude: float().optional() })
              .strict()
              .optional(),
          })
          .strict(),
      )
      .optional(),
    // Plain dotted query parameters arrive as strings (wire §8.3).
    paging: z.object({ limit: qs.int().optional(), offset: qs.int().optional() }).strict().optional(),
    cursorPaging: z
      .object({
        limit: qs.int().pipe(z.number().min(0).max(MAX_LIMIT)).optional(),
        cursor: z.string().optional(),
      })
      .strict()
      .optional(),
    fields: queryFields(),
  })
  .strict();
export type PlatformQuery = z.output<typeof platformQuery>;

/**
 * What a cursor holds: the filter and sort of the query it continues, and where its page starts.
 * A cursor from a page holds that page's first or last row's sort keys (`k`, as `keyText` reads
 * them): the next page is the rows after its last one, the previous page the rows before its first
 * (`b`), so rows written or deleted meanwhile neither repeat nor skip one (an offset would move
 * with them). `i` takes the row itself as well (the way back from an empty page). `o` is where the
 * page is expected to start, for `metadata.offset` only.
 */
interface CursorState {
  f?: unknown;
  s?: unknown;
  o: number;
  k?: (string | null)[];
  b?: 1;
  i?: 1;
}

const cursorOf = (state: CursorState) => Buffer.from(JSON.stringify(state)).toString('base64url');

const notOurCursor = () =>
  invalid([
    {
      field: 'query.cursorPaging.cursor',
      description: 'is not a cursor this service issued',
      violatedRule: 'FORMAT',
    },
  ]);

function fromCursor(cursor: string): CursorState {
  try {
    const s = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    // A forged cursor is not bounded by the body's depth check, and its state is stringified again;
    // nor is its text checked for U+0000 as a body's is (PostgreSQL cannot take it).
    if (
      s &&
      typeof s === 'object' &&
      Number.isSafeInteger(s.o) &&
      s.o >= 0 &&
      !nestsDeeperThan(s) &&
      !JSON.stringify(s).includes('\\u0000')
    )
      return s as CursorState;
  } catch {}
  throw notOurCursor();
}

/** A query with its paging resolved (for `compileQuery`), and how it was asked. */
export interface PagedQuery {
  query: QueryInput;
  byCursor: boolean;
  /** The cursor a cursor page continues from (none for the first page). */
  from?: CursorState;
}

/**
 * Resolves a query's paging. A cursor stands for the whole query, so a request with one carries
 * nothing but `cursorPaging` (wire §4; the typings: "`cursorPaging.cursor` can not be used together
 * with `filter` or `sort`"), and offset and cursor paging exclude each other (a `oneof`). Both are
 * refused as field violations rather than one silently winning. Both clients (ours and the
 * platform SDK) send the cursor alone.
 */
export function resolvePaging(query: PlatformQuery | undefined): PagedQuery {
  const q = query ?? {};
  const cp = q.cursorPaging;
  if (!cp) return { query: { filter: q.filter, sort: q.sort, paging: q.paging }, byCursor: false };
  const bad: Omit<Violation, 'data'>[] = [];
  if (q.paging)
    bad.push({
      field: 'query.paging',
      description: 'cannot be sent with cursorPaging: a query pages one way',
      violatedRule: 'ONE_OF_ALIGNMENT',
    });
  if (cp.cursor)
    for (const key of ['filter', 'sort'] as const)
      if (q[key] !== undefined)
        bad.push({
          field: `query.${key}`,
          description: 'cannot be sent with a cursor, which continues the query it was issued for',
          violatedRule: 'VALIDATION',
        });
  if (bad.length) throw invalid(bad);
  const limit = cp.limit ?? DEFAULT_LIMIT;
  const from = cp.cursor ? fromCursor(cp.cursor) : undefined;
  return {
    query: {
      filter: from ? from.f : q.filter,
      sort: from ? from.s : q.sort,
      paging: { limit, offset: from?.o ?? 0 },
    },
    byCursor: true,
    ...(from ? { from } : {}),
  };
}

/** One page's rows, where it starts, and for a cursor page its cursors (null at either end). */
export interface Page {
  rows: Record<string, any>[];
  offset: number;
  cursors?: { next: string | null; prev: string | null };
}

/**
 * Reads one page of `SELECT columns from WHERE where`, in the compiled query's order: by offset
 * for offset paging, by keyset for cursor paging (see {@link CursorState}). A cursor page reads one
 * row more than it shows, to tell whether there is a next one (or, going back, a previous one).
 */
export async function readPage(
  sql: Sql,
  paged: PagedQuery,
  q: CompiledQuery,
  params: unknown[],
  sel: { columns: string; from: string; where: string },
): Promise<Page> {
  const { columns, from, where } = sel;
  if (!paged.byCursor) {
    const rows = await sql.query(
      `SELECT ${columns} ${from} WHERE ${where} ORDER BY ${q.orderBy} LIMIT ${q.limit} OFFSET ${q.offset}`,
      params,
    );
    return { rows, offset: q.offset };
  }
  const at = paged.from;
  const back = !!at?.b;
  let after = 'TRUE';
  // A cursor of the offset kind (issued before cursors held keys) reads on from its offset.
  const skip = at && !at.k ? at.o : 0;
  if (at?.k) {
    const cond = keysetCondition(q.keys, at.k, params, { backward: back, inclusive: !!at.i });
    if (!cond) throw notOurCursor();
    after = cond;
  }
  const keyColumns = q.keys.map((k, n) => `${keyText(k)} AS "_k${n}"`).join(', ');
  const rows = await sql.query(
    `SELECT ${columns}, ${keyColumns} ${from} WHERE (${where}) AND ${after}
     ORDER BY ${orderOf(q.keys, back)} LIMIT ${q.limit + 1} OFFSET ${skip}`,
    params,
  );
  const more = rows.length > q.limit;
  const page = rows.slice(0, q.limit);
  if (back) page.reverse();
  const keysOf = (row: Record<string, any> | undefined) =>
    q.keys.map((_, n) => (row?.[`_k${n}`] ?? null) as string | null);
  const first = keysOf(page[0]);
  const last = keysOf(page.at(-1));
  for (const row of page) for (let n = 0; n < q.keys.length; n++) delete row[`_k${n}`];
  // Going back, a page with nothing before it starts the list.
  const offset = back ? (more ? Math.max(1, at!.o) : 0) : (at?.o ?? 0);
  const base = { f: paged.query.filter, s: paged.query.sort };
  const cursor = (state: Omit<CursorState, 'f' | 's'>) => cursorOf({ ...base, ...state });
  const count = page.length;
  // Going back, the page came from the rows after it; going on, from those before it.
  const ahead = back || more;
  const behind = back ? more : offset > 0;
  // From an empty page (its rows deleted meanwhile), the way on or back starts at the cursor's
  // own row, which the page it came from showed (or, for a cursor of the offset kind, at an offset).
  const around = (o: number, b?: 1) => cursor(at?.k ? { o, k: at.k, i: 1, ...(b ? { b } : {}) } : { o });
  const prevAt = Math.max(0, offset - q.limit);
  return {
    rows: page,
    offset,
    cursors: {
      next: q.limit === 0 || !ahead ? null : count ? cursor({ o: offset + count, k: last }) : around(offset),
      // A page of no items (`limit` 0) has no place to go on or back from.
      prev:
        q.limit === 0 || !behind ? null : count ? cursor({ o: prevAt, k: first, b: 1 }) : around(prevAt, 1),
    },
  };
}

/**
 * How many rows `from … where` holds, counted up to the store's `catalogCountLimit` (config,
 * default 100 000) and no further: past it, `total` is the limit and `tooManyToCount` is set, for
 * every catalog query alike (a count of every row of a large store on each page read is none).
 */
export async function countRows(
  limit: unknown,
  sql: Sql,
  from: string,
  where: string,
  params: unknown[],
): Promise<{ total: number; tooManyToCount: boolean }> {
  const countLimit = Number(limit ?? 100_000);
  const counted = await sql.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM (SELECT 1 ${from} WHERE ${where} LIMIT ${countLimit + 1}) t`,
    params,
  );
  const n = Number(counted[0]?.n ?? 0);
  return n > countLimit ? { total: countLimit, tooManyToCount: true } : { total: n, tooManyToCount: false };
}

/**
 * The paging metadata of a page: `count`, `offset` and `total` always (the platform SDK's pager
 * needs `total`, wire §4), and for a cursor page its `cursors.next`/`prev`.
 */
export function pageMetadata(
  page: Page,
  { count, total, tooManyToCount }: { count: number; total: number; tooManyToCount?: boolean },
) {
  return {
    count,
    offset: page.offset,
    total,
    ...(tooManyToCount ? { tooManyToCount: true } : {}),
    ...(page.cursors ? { cursors: page.cursors } : {}),
  };
}
