/**
 * Compiles the platform query language (`$eq`, `$in`, `$hasSome`, `$startsWith`, `$and`, `$or`,
 * `$not`, …) to parameterised SQL over a declared set of fields. Values are always parameters,
 * never pasted. Unknown fields and operators, and values of the wrong type, are field violations.
 * @module
 */
import { ApiError, invalid, type Violation } from '../http/errors.ts';

export type FieldType = 'text' | 'number' | 'bool' | 'date' | 'array';

/** A queryable field: the SQL expression that reads it and its type. */
export interface FieldDef {
  sql: string;
  type: FieldType;
  /** Can be sorted on (default true, except arrays). */
  sortable?: boolean;
}
export type FieldMap = Record<string, FieldDef>;

/** One key of a query's order: what it reads, its type, and whether it runs descending. */
export interface SortKey {
  sql: string;
  type: FieldType;
  desc: boolean;
}

export interface CompiledQuery {
  where: string;
  orderBy: string;
  /** The keys of `orderBy`, the tie-breaking ids last: together they tell every row apart. */
  keys: SortKey[];
  limit: number;
  offset: number;
}

/**
 * How deeply `$and`, `$or` and `$not` may nest. Request bodies are already bounded in depth
 * (`MAX_JSON_DEPTH`), but a filter can also come from a decoded cursor; and SQL nested much deeper
 * than this exhausts the database's own stack.
 */
export const MAX_FILTER_DEPTH = 32;

/**
 * How many values a filter may compare with (`$in`'s list counts once). A request of 1 MiB holds
 * some 65 000 conditions (`{"$or": [{"id": "x"}, …]}`), past the 65 535 parameters a PostgreSQL
 * statement can have (their count wrapped, and the database refused the statement).
 */
export const MAX_FILTER_VALUES = 1000;

const CAST: Record<FieldType, string> = {
  text: 'text',
  number: 'numeric',
  bool: 'boolean',
  date: 'timestamptz',
  array: 'text',
};

/** Decimal numbers in a string, as both JavaScript and PostgreSQL read them. */
const DECIMAL = /^\s*[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?\s*$/i;
/** ISO 8601 dates and times (wire §2: timestamps travel as ISO strings); no offset reads as UTC. */
const ISO_DATE = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/;
/** A time without an offset: JavaScript would read it in the emulator's zone, PostgreSQL in its own. */
const NO_OFFSET = /T[\d:.]+$/;
/** 0001-01-01T00:00:00Z and 9999-12-31T23:59:59.999Z: years PostgreSQL and `toISOString` agree on. */
const MIN_DATE = Date.parse('0001-01-01T00:00:00Z');
const MAX_DATE = Date.parse('9999-12-31T23:59:59.999Z');

/**
 * Whether an ISO date's day is one of its month: JavaScript rolls a day past the month's last
 * over (`2021-02-30` read as 2 March), where PostgreSQL and the platform refuse it.
 */
function isCalendarDate(value: string) {
  const [y, m, d] = value.slice(0, 10).split('-').map(Number) as [number, number, number];
  const leap = y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1];
  return days !== undefined && d >= 1 && d <= days;
}

/*
 * Dotted query parameters (wire §1.4) carry every value as text and a one-item array as a single
 * key: as a number may come as its decimal text, a boolean may come as `true` or `false`, and a
 * list operator's one value on its own.
 */
/** `true` and `false` for their text, anything else undefined. */
const truth = (v: unknown) => (v === 'true' ? true : v === 'false' ? false : undefined);
/** A list operator's values: an array as it is, one value as a list of it. */
const listOf = (v: unknown): unknown[] => (Array.isArray(v) ? v : [v]);

/** Collects violations instead of stopping at the first. */
class Compiler {
  violations: Parameters<typeof invalid>[0] = [];
  constructor(
    private readonly fields: FieldMap,
    readonly params: unknown[],
    private readonly prefix: string,
  ) {}

  private bad(field: string, description: string, violatedRule = 'VALIDATION', data: Violation['data'] = {}) {
    this.violations.push({ field: this.prefix + field, description, violatedRule, data });
    return 'FALSE';
  }

  private param(value: unknown, type: FieldType) {
    this.params.push(value);
    return `$${this.params.length}::${CAST[type]}`;
  }

  /**
   * The value as the parameter PostgreSQL reads, or undefined when it is not a value of `type`.
   * Numbers and dates are normalised here, so that both storages read them alike and never fail
   * on one (a failure would be a 500): numbers are decimals (not the hexadecimal that PostgreSQL 16
   * reads and 15 refuses), dates are ISO 8601 instants between the years 1 and 9999, sent as UTC.
   * (Text holding U+0000, which PostgreSQL cannot take, never gets here: the router refuses it.)
   */
  private valueOf(value: unknown, type: FieldType): string | number | boolean | undefined {
    switch (type) {
      case 'text':
      case 'array':
        return typeof value === 'string' ? value : undefined;
      case 'number': {
        const n =
          typeof value === 'number'
            ? value
            : typeof value === 'string' && DECIMAL.test(value)
              ? Number(value)
              : NaN;
        return Number.isFinite(n) ? n : undefined;
      }
      case 'bool':
        return typeof value === 'boolean' ? value : truth(value);
      case 'date': {
        if (typeof value !== 'string' || !ISO_DATE.test(value) || !isCalendarDate(value)) return undefined;
        const ms = Date.parse(NO_OFFSET.test(value) ? `${value}Z` : value);
        return ms >= MIN_DATE && ms <= MAX_DATE ? new Date(ms).toISOString() : undefined;
      }
    }
  }

  /** What a value of `type` must be (a scalar). */
  private describe(type: FieldType) {
    return `must be a ${type} value${this.hint(type)}`;
  }

  /** The rule a value of `type` (or a list's item) must keep, beyond its JSON type. */
  private hint(type: FieldType) {
    if (type === 'date') return ' (an ISO 8601 date or time from the year 1 to 9999)';
    if (type === 'number') return ' (a finite decimal number)';
    return '';
  }

  /** `depth` counts the `$and`, `$or` and `$not` around `f`. */
  filter(f: unknown, path: string, depth = 0): string {
    if (f === undefined || f === null) return 'TRUE';
    if (typeof f !== 'object' || Array.isArray(f)) return this.bad(path || 'filter', 'must be an object');
    const parts: string[] = [];
    for (const [key, value] of Object.entries(f as Record<string, unknown>)) {
      const at = path ? `${path}.${key}` : `filter.${key}`;
      if ((key === '$and' || key === '$or' || key === '$not') && depth >= MAX_FILTER_DEPTH) {
        const description = `must not nest $and, $or and $not more than ${MAX_FILTER_DEPTH} levels deep`;
        parts.push(this.bad(at, description, 'FORMAT', { maxDepth: MAX_FILTER_DEPTH }));
      } else if (key === '$and' || key === '$or') {
        if (!Array.isArray(value) || value.length === 0) {
          parts.push(this.bad(at, 'must be a non-empty array of filters'));
          continue;
        }
        const subs = value.map((v, i) => this.filter(v, `${at}[${i}]`, depth + 1));
        parts.push(`(${subs.join(key === '$and' ? ' AND ' : ' OR ')})`);
      } else if (key === '$not') {
        parts.push(`NOT COALESCE((${this.filter(value, at, depth + 1)}), FALSE)`);
      } else if (key.startsWith('$')) {
        parts.push(this.bad(at, `is not a known logical operator`, 'INVALID_ENUM_VALUE'));
      } else {
        parts.push(this.field(key, value, at));
      }
    }
    return parts.length ? parts.join(' AND ') : 'TRUE';
  }

  /** The field of that name: own keys only (a filter on `constructor` named Object's). */
  private def(name: unknown) {
    return typeof name === 'string' && Object.hasOwn(this.fields, name) ? this.fields[name] : undefined;
  }

  private field(name: string, cond: unknown, at: string): string {
    const def = this.def(name);
    if (!def)
      return this.bad(
        at,
        `is not a field that can be queried (fields: ${Object.keys(this.fields).join(', ')})`,
        'FIELD_NOT_ALLOWED',
      );
    if (
      cond !== null &&
      typeof cond === 'object' &&
      !Array.isArray(cond) &&
      Object.keys(cond).some((k) => k.startsWith('$'))
    ) {
      const parts = Object.entries(cond as Record<string, unknown>).map(([op, v]) =>
        this.op(def, op, v, `${at}.${op}`),
      );
      return parts.join(' AND ');
    }
    return this.op(def, '$eq', cond, at);
  }

  private op(def: FieldDef, op: string, v: unknown, at: string): string {
    const { sql, type } = def;
    const scalar = (value: unknown) => {
      const v = this.valueOf(value, type);
      return v === undefined ? undefined : this.param(v, type);
    };
    const list = (value: unknown) => {
      const vs = listOf(value).map((x) => this.valueOf(x, type));
      if (vs.some((x) => x === undefined)) return undefined;
      this.params.push(vs.map(String));
      return `$${this.params.length}::${CAST[type]}[]`;
    };
    const like = (value: unknown, pattern: (s: string) => string) => {
      if (typeof value !== 'string' || (type !== 'text' && type !== 'array'))
        return this.bad(at, 'needs a string value on a text field');
      this.params.push(pattern(value.replace(/[\\%_]/g, '\\$&')));
      return `${sql} ILIKE $${this.params.length} ESCAPE '\\'`;
    };
    if (type === 'array' && !['$hasSome', '$hasAll', '$exists', '$eq', '$isEmpty'].includes(op))
      return this.bad(at, 'array fields support $hasSome, $hasAll and $exists only', 'FIELD_NOT_ALLOWED');
    switch (op) {
      case '$eq':
      case '$ne': {
        if (v === null) return `${sql} IS ${op === '$eq' ? '' : 'NOT '}NULL`;
        if (type === 'array')
          return this.bad(at, 'array fields support $hasSome, $hasAll and $exists only', 'FIELD_NOT_ALLOWED');
        const p = scalar(v);
        if (!p) return this.bad(at, this.describe(type), 'FORMAT');
        return op === '$eq' ? `${sql} = ${p}` : `${sql} IS DISTINCT FROM ${p}`;
      }
      case '$gt':
      case '$gte':
      case '$lt':
      case '$lte': {
        const p = scalar(v);
        if (!p || type === 'bool') return this.bad(at, this.describe(type), 'FORMAT');
        return `${ordered({ sql, type })} ${{ $gt: '>', $gte: '>=', $lt: '<', $lte: '<=' }[op]} ${p}`;
      }
      case '$in':
      case '$nin': {
        const p = list(v);
        if (!p) return this.bad(at, `must be an array of ${type} values${this.hint(type)}`, 'FORMAT');
        // A field without a value is not in the list: `$nin` keeps it, as `$ne` and `$not`/`$in` do.
        return op === '$in' ? `${sql} = ANY(${p})` : `NOT COALESCE(${sql} = ANY(${p}), FALSE)`;
      }
      case '$hasSome':
      case '$hasAll': {
        if (type !== 'array') return this.bad(at, `${op} applies to array fields only`, 'FIELD_NOT_ALLOWED');
        const items = listOf(v);
        if (!items.every((x) => typeof x === 'string'))
          return this.bad(at, 'must be an array of strings', 'FORMAT');
        this.params.push(items);
        return `${sql} ${op === '$hasSome' ? '?|' : '?&'} $${this.params.length}::text[]`;
      }
      case '$startsWith':
        return like(v, (s) => `${s}%`);
      case '$endsWith':
        return like(v, (s) => `%${s}`);
      case '$contains':
        return like(v, (s) => `%${s}%`);
      case '$exists': {
        const yes = typeof v === 'boolean' ? v : truth(v);
        if (yes === undefined) return this.bad(at, 'must be true or false', 'FORMAT');
        return type === 'array'
          ? `COALESCE(jsonb_array_length(${sql}), 0) ${yes ? '>' : '='} 0`
          : `${sql} IS ${yes ? 'NOT ' : ''}NULL`;
      }
      default:
        return this.bad(at, 'is not a known operator', 'INVALID_ENUM_VALUE');
    }
  }

  /**
   * The keys of a sort, then the ids that break its ties. A field sorted on again adds nothing to
   * the order (its first place decides), so it is kept once: a keyset condition grows with the keys.
   */
  sort(sort: unknown, ids: Omit<SortKey, 'desc'>[]): SortKey[] {
    const keys: SortKey[] = [];
    if (sort !== undefined && sort !== null && !Array.isArray(sort)) this.bad('sort', 'must be an array');
    else
      (sort ?? []).forEach((s: unknown, i: number) => {
        const at = `sort[${i}]`;
        // A null order is the default, as proto3 JSON reads null (and GraphQL's explicit null).
        const { fieldName, order: given } = (s ?? {}) as { fieldName?: unknown; order?: unknown };
        const order = given ?? 'ASC';
        const def = this.def(fieldName);
        if (!def || def.sortable === false || def.type === 'array')
          this.bad(`${at}.fieldName`, 'is not a field that can be sorted on', 'FIELD_NOT_ALLOWED');
        else if (order !== 'ASC' && order !== 'DESC')
          this.bad(`${at}.order`, 'must be ASC or DESC', 'INVALID_ENUM_VALUE');
        else keys.push({ sql: def.sql, type: def.type, desc: order === 'DESC' });
      });
    for (const id of ids) keys.push({ ...id, desc: false });
    return keys.filter((k, i) => keys.findIndex((x) => x.sql === k.sql) === i);
  }
}

/**
 * A field as it is ordered and compared: text by its bytes (UTF-8's order is the code points'),
 * on every storage. PGlite's locale is `C`; PostgreSQL's is the database's own, and a database made
 * with a language's collation (`en-US`: `apple`, `Äpfel`, `Banana`) sorted, paged and compared names
 * in another order than embedded storage (`Banana`, `apple`, `Äpfel`).
 */
const ordered = (k: { sql: string; type: FieldType }) =>
  k.type === 'text' ? `(${k.sql}) COLLATE "C"` : k.sql;

/**
 * The `ORDER BY` of sort keys, or its exact reverse (`backward`): nulls sort last either way, so
 * they come first when reversed.
 */
export const orderOf = (keys: SortKey[], backward = false) =>
  keys
    .map((k) => `${ordered(k)} ${k.desc === backward ? 'ASC' : 'DESC'} NULLS ${backward ? 'FIRST' : 'LAST'}`)
    .join(', ');

/**
 * A key's value as text that reads back exactly: numbers and flags as PostgreSQL writes them,
 * times as ISO 8601 in UTC with their microseconds (a `Date` would keep milliseconds only, and a
 * row whose time has more would compare as after itself).
 */
export const keyText = (k: SortKey) =>
  k.type === 'date'
    ? `to_char((${k.sql}) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`
    : `(${k.sql})::text`;

/** A number as PostgreSQL writes a numeric or an integer: no exponent, bounded digits. */
const KEY_NUMBER = /^-?\d{1,40}(\.\d{1,40})?$/;
/** A time as {@link keyText} writes it. */
const KEY_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/;

/**
 * Whether `v` is a value {@link keyText} could have written for a key of `type` (or null): only
 * those, since PostgreSQL refuses some that JavaScript reads (a 29 February of a common year,
 * a decimal of 16 384 places), which would be a 500.
 */
function isKeyText(v: unknown, type: FieldType) {
  if (v === null) return true;
  if (typeof v !== 'string') return false;
  if (type === 'number') return KEY_NUMBER.test(v);
  if (type === 'bool') return v === 'true' || v === 'false';
  if (type === 'date') {
    const ms = Date.parse(v);
    // A calendar date and time that exists: it reads back as written (to the second).
    return (
      KEY_TIME.test(v) &&
      ms >= MIN_DATE &&
      ms <= MAX_DATE &&
      new Date(ms).toISOString().slice(0, 19) === v.slice(0, 19)
    );
  }
  return true;
}

/**
 * The condition on rows that come after the row whose keys read `values` in the order of `keys`
 * (a keyset, as a cursor carries it), or before it (`backward`); `inclusive` takes that row too.
 * Nested as `k1 after OR (k1 same AND (k2 after OR …))`, so it grows with the keys, not their
 * square. Undefined when `values` are not such keys (a forged cursor): a value the database cannot
 * read as its key's type would fail the query.
 */
export function keysetCondition(
  keys: SortKey[],
  values: unknown,
  params: unknown[],
  { backward = false, inclusive = false } = {},
): string | undefined {
  if (!Array.isArray(values) || values.length !== keys.length) return undefined;
  if (!keys.every((k, i) => isKeyText(values[i], k.type))) return undefined;
  let tail = inclusive ? 'TRUE' : 'FALSE';
  for (let i = keys.length - 1; i >= 0; i--) {
    const k = keys[i]!;
    const x = `(${ordered(k)})`;
    const v = values[i] as string | null;
    let beyond: string;
    let same: string;
    if (v === null) {
      // Nulls sort last: after a null only other nulls, which tie; before it, every value.
      beyond = backward ? `${x} IS NOT NULL` : 'FALSE';
      same = `${x} IS NULL`;
    } else {
      params.push(v);
      const p = `$${params.length}::${CAST[k.type]}`;
      // Ascending and forward, or descending and backward: greater; otherwise smaller.
      beyond = `${x} ${k.desc === backward ? '>' : '<'} ${p}${backward ? '' : ` OR ${x} IS NULL`}`;
      same = `${x} = ${p}`;
    }
    tail = `(${beyond} OR (${same} AND ${tail}))`;
  }
  return tail;
}

export interface QueryInput {
  filter?: unknown;
  sort?: unknown;
  paging?: { limit?: unknown; offset?: unknown };
}

/**
 * Compiles a platform query. `params` is appended to (so callers can add their own conditions
 * first); `prefix` names the query in violations (e.g. `query.`).
 * @throws ApiError 400 with every violation found.
 */
export function compileQuery(
  query: QueryInput | undefined,
  fields: FieldMap,
  params: unknown[],
  opts: { prefix?: string; ids?: Omit<SortKey, 'desc'>[]; maxLimit?: number } = {},
): CompiledQuery {
  const c = new Compiler(fields, params, opts.prefix ?? 'query.');
  const q = query ?? {};
  const before = params.length;
  const where = c.filter(q.filter, '');
  if (params.length - before > MAX_FILTER_VALUES)
    c.violations.push({
      field: `${opts.prefix ?? 'query.'}filter`,
      description: `compares with more than ${MAX_FILTER_VALUES} values: give one field's values as one $in list`,
      violatedRule: 'MAX_SIZE',
      data: { max: MAX_FILTER_VALUES },
    });
  const keys = c.sort(q.sort, opts.ids ?? [{ sql: 'id', type: 'text' }]);
  const limit = q.paging?.limit ?? 50;
  const offset = q.paging?.offset ?? 0;
  const max = opts.maxLimit ?? 100;
  const prefix = opts.prefix ?? 'query.';
  // Safe integers only: a larger one (digits in a query parameter, a forged cursor) is no exact
  // count, and past 2^63 the database refuses it (a 500).
  const isInt = (n: unknown): n is number => typeof n === 'number' && Number.isSafeInteger(n);
  // The broken bound goes in `data`, as in the schemas' MIN and MAX violations (http/validate.ts).
  const range = `must be an integer from 0 to ${max}`;
  if (!isInt(limit))
    c.violations.push({
      field: `${prefix}paging.limit`,
      description: range,
      violatedRule: 'FORMAT',
      data: { type: 'int' },
    });
  else if (limit < 0 || limit > max)
    c.violations.push({
      field: `${prefix}paging.limit`,
      description: range,
      ...(limit < 0 ? { violatedRule: 'MIN', data: { min: 0 } } : { violatedRule: 'MAX', data: { max } }),
    });
  if (!isInt(offset) || offset < 0)
    c.violations.push({
      field: `${prefix}paging.offset`,
      description: 'must be a non-negative integer',
      ...(isInt(offset)
        ? { violatedRule: 'MIN', data: { min: 0 } }
        : { violatedRule: 'FORMAT', data: { type: 'int' } }),
    });
  if (c.violations.length) throw invalid(c.violations);
  return { where, orderBy: orderOf(keys), keys, limit: limit as number, offset: offset as number };
}

export { ApiError };
