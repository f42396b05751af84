/**
 * The platform query of the catalog's query endpoints (products, store variants, collections v2)
 * and its two ways of paging (wire §4): offset `paging`, or `cursorPaging`, whose cursor carries
 * the query it continues. One implementation for every endpoint that pages by cursor.
 * @module
 */
import type { QueryInput } from '../../db/filter.ts';
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

/** What a cursor holds: the filter and sort of the query it continues, and its page's offset. */
interface CursorState {
  f?: unknown;
  s?: unknown;
  o: number;
}

const cursorOf = (state: CursorState) => Buffer.from(JSON.stringify(state)).toString('base64url');

function fromCursor(cursor: string): CursorState {
  try {
    const s = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    // A forged cursor is not bounded by the body's depth check, and its state is stringified again.
    if (s && typeof s === 'object' && Number.isSafeInteger(s.o) && s.o >= 0 && !nestsDeeperThan(s))
      return s as CursorState;
  } catch {}
  throw invalid([
    {
      field: 'query.cursorPaging.cursor',
      description: 'is not a cursor this service issued',
      violatedRule: 'FORMAT',
    },
  ]);
}

/** A query with its paging resolved to an offset page (for `compileQuery`), and how it was asked. */
export interface PagedQuery {
  query: QueryInput;
  byCursor: boolean;
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
  const state = cp.cursor ? fromCursor(cp.cursor) : { f: q.filter, s: q.sort, o: 0 };
  return { query: { filter: state.f, sort: state.s, paging: { limit, offset: state.o } }, byCursor: true };
}

/**
 * The paging metadata of a page: `count`, `offset` and `total` always (the platform SDK's pager
 * needs `total`, wire §4), and for a cursor query `cursors.next`/`prev` (null at either end).
 * Past the count limit (`tooManyToCount`) a full page is taken to have a next one.
 */
export function pageMetadata(
  paged: PagedQuery,
  page: { offset: number; limit: number; count: number; total: number; tooManyToCount?: boolean },
) {
  const { offset, limit, count, total, tooManyToCount } = page;
  const metadata = { count, offset, total, ...(tooManyToCount ? { tooManyToCount: true } : {}) };
  if (!paged.byCursor) return metadata;
  const at = (o: number) => cursorOf({ f: paged.query.filter, s: paged.query.sort, o });
  const more = limit > 0 && (tooManyToCount ? count === limit : offset + count < total);
  return {
    ...metadata,
    cursors: {
      next: more ? at(offset + limit) : null,
      prev: offset > 0 ? at(Math.max(0, offset - limit)) : null,
    },
  };
}
