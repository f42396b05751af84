/**
 * Request schemas (zod) and their failures as the platform's field violations, with
 * `violatedRule` and a `data` object on every violation.
 * @module
 */
import { z } from 'zod';
import { invalid, type Violation } from './errors.ts';

export { z };

const fieldName = (path: PropertyKey[]) =>
  path.reduce<string>(
    (acc, seg) => (typeof seg === 'number' ? `${acc}[${seg}]` : acc ? `${acc}.${String(seg)}` : String(seg)),
    '',
  );

function valueAt(obj: unknown, path: PropertyKey[]): unknown {
  let cur: any = obj;
  for (const seg of path) cur = cur?.[seg as any];
  return cur;
}

const SIZE_RULE: Record<string, [string, string, string]> = {
  // origin: [rule when too big, rule when too small, what is counted (one of it)]
  string: ['MAX_LENGTH', 'MIN_LENGTH', 'character'],
  array: ['MAX_SIZE', 'MIN_SIZE', 'item'],
  set: ['MAX_SIZE', 'MIN_SIZE', 'item'],
};

/** What a value of a zod type is called in a description: `an integer`, `a string`, … */
const A_TYPE: Record<string, string> = { int: 'an integer', object: 'an object', array: 'an array' };
const aType = (expected: string) => A_TYPE[expected] ?? `a ${expected}`;

/**
 * The message of an issue whose schema gave none. `parseMessage` has zod use it, so that a
 * schema's own message (`.regex(re, 'must be a media id …')`) can be told apart and kept.
 */
const NO_MESSAGE = '\u0000no schema message';

/**
 * Turns zod issues into platform violations. An issue's message is kept as the description
 * unless it is `NO_MESSAGE` (see `parseMessage`); the rule and `data` always come from the issue.
 */
export function toViolations(error: z.ZodError, input: unknown): Violation[] {
  const out: Violation[] = [];
  for (const issue of error.issues) {
    const field = fieldName(issue.path);
    const data: Record<string, unknown> = {};
    const own = issue.message === NO_MESSAGE ? undefined : issue.message;
    let description: string;
    let violatedRule = 'VALIDATION';
    let ruleName: string | undefined;
    switch (issue.code) {
      case 'invalid_type':
        if (valueAt(input, issue.path) === undefined) {
          description = 'is required';
          violatedRule = 'REQUIRED_FIELD';
        } else {
          description = own ?? `must be ${aType(issue.expected)}`;
          violatedRule = 'FORMAT';
        }
        data.type = issue.expected;
        break;
      case 'invalid_union':
        // A value of none of a union's types (the `qs` helpers: e.g. neither a number nor digits).
        description = own ?? 'is not of an accepted type';
        violatedRule = 'FORMAT';
        break;
      case 'too_big':
      case 'too_small': {
        const big = issue.code === 'too_big';
        const size = SIZE_RULE[issue.origin as string];
        const limit = big
          ? (issue as { maximum: number | bigint }).maximum
          : (issue as { minimum: number | bigint }).minimum;
        // `.positive()`, `.gt()` and `.lt()` are exclusive: 0 itself is refused by `.positive()`.
        const inclusive = (issue as { inclusive?: boolean }).inclusive !== false;
        violatedRule = size ? size[big ? 0 : 1]! : big ? 'MAX' : 'MIN';
        description =
          own ??
          (size
            ? `must have ${big ? 'at most' : 'at least'} ${limit} ${size[2]}${Number(limit) === 1 ? '' : 's'}`
            : `must be ${inclusive ? (big ? 'at most' : 'at least') : big ? 'less than' : 'greater than'} ${limit}`);
        data[big ? 'max' : 'min'] = Number(limit);
        if (!inclusive) data.exclusive = true;
        break;
      }
      case 'unrecognized_keys':
        for (const key of issue.keys)
          out.push({
            field: fieldName([...issue.path, key]),
            description: 'is not a known field',
            violatedRule: 'FIELD_NOT_ALLOWED',
            data: {},
          });
        continue;
      case 'invalid_value':
        description = own ?? `must be one of ${issue.values.map(String).join(', ')}`;
        violatedRule = 'INVALID_ENUM_VALUE';
        data.values = issue.values;
        break;
      case 'invalid_format':
        description =
          own ??
          (issue.format === 'regex' && issue.pattern
            ? `must match the pattern ${issue.pattern}`
            : `must be a valid ${issue.format}`);
        violatedRule = 'FORMAT';
        data.type = issue.format === 'email' ? 'EMAIL' : issue.format;
        break;
      default:
        // Wire §3.1: `ruleName` is a member of the violation itself, set when the rule is OTHER.
        description = own ?? 'is not valid';
        violatedRule = 'OTHER';
        ruleName = issue.code.toUpperCase();
    }
    const v: Violation = { field, description, violatedRule, ...(ruleName ? { ruleName } : {}), data };
    // One bound per field and side, the tighter: `.int()` adds the safe integers' bound to a
    // `.max(9999)`, and 1e300 was refused twice, with two maxima.
    const twin =
      violatedRule === 'MAX' || violatedRule === 'MIN'
        ? out.findIndex((o) => o.field === field && o.violatedRule === violatedRule)
        : -1;
    if (twin < 0) out.push(v);
    else if (violatedRule === 'MAX' ? data.max! < out[twin]!.data!.max! : data.min! > out[twin]!.data!.min!)
      out[twin] = v;
  }
  return out;
}

/** The issues a `null` where the schema takes no null gives, whatever the field's type. */
const NULL_REFUSALS = new Set(['invalid_type', 'invalid_value', 'invalid_union']);

/**
 * `msg` without the object members that are `null` where the schema refused a null, or `msg` itself
 * when there are none. Array items stay: a null in a list is not an unset field.
 */
function withoutRefusedNulls(msg: unknown, error: z.ZodError): unknown {
  const unset = error.issues.filter(
    (i) => NULL_REFUSALS.has(i.code) && typeof i.path.at(-1) === 'string' && valueAt(msg, i.path) === null,
  );
  if (!unset.length) return msg;
  const copy = structuredClone(msg);
  for (const { path } of unset)
    delete (valueAt(copy, path.slice(0, -1)) as Record<string, unknown>)[path.at(-1) as string];
  return copy;
}

/**
 * Parses a message with a schema or throws the platform's 400 with every violation.
 *
 * A `null` on a field whose schema takes none means the field is not set, as in proto3's JSON
 * mapping, which the platform's servers read with: the platform SDK's typings allow `null` on most
 * optional fields (`couponCode`, `ribbon`, `weight`, address parts …) and send it. Such nulls are
 * dropped and the message is parsed again; a field that is required is then `is required`. Where a
 * schema takes any value (a query filter, where `{ribbon: null}` asks for products without one), a
 * null is a value and stays. Zod reports every refused null in one pass; further rounds only serve
 * schemas that stop early (a refinement that runs once the fields beneath it parse).
 */
export function parseMessage<T>(schema: z.ZodType<T>, msg: unknown): T {
  for (let round = 0; ; round++) {
    const r = schema.safeParse(msg, { error: () => NO_MESSAGE });
    if (r.success) return r.data;
    const next = round < MAX_NULL_ROUNDS ? withoutRefusedNulls(msg, r.error) : msg;
    if (next === msg) throw invalid(toViolations(r.error, msg));
    msg = next;
  }
}
/** Rounds of dropping nulls before the violations stand (see `parseMessage`). */
const MAX_NULL_ROUNDS = 8;

/**
 * Violations of the items of `list` (named `field`) that repeat an earlier one: `field[i]` repeats
 * `field[j]`. For lists that name things to act on once each.
 */
export function repeated(list: readonly string[], field: string) {
  const first = new Map<string, number>();
  return list.flatMap((item, i) => {
    const j = first.get(item);
    if (j === undefined) first.set(item, i);
    return j === undefined ? [] : [{ field: `${field}[${i}]`, description: `repeats ${field}[${j}]` }];
  });
}

/** The wire's spellings of non-finite numbers (wire §2). */
const NON_FINITE = new Set(['NaN', 'Infinity', '-Infinity']);

/**
 * A float field as clients send it: a number, or a non-finite one spelled `"NaN"`, `"Infinity"` or
 * `"-Infinity"` (wire §2, as the platform's SDKs and ours write it), which is read as what it is
 * and refused as `must be a finite number`, not as a string where a number belongs. `schema` adds
 * the field's range.
 */
export const float = (schema: z.ZodNumber = z.number()) =>
  z
    .unknown()
    .superRefine((v, ctx) => {
      if (typeof v === 'string' && NON_FINITE.has(v))
        ctx.addIssue({ code: 'custom', message: 'must be a finite number', input: v });
    })
    .pipe(schema);

/** Query-string helpers: GET messages arrive as strings. */
export const qs = {
  bool: () =>
    z.union([z.boolean(), z.enum(['true', 'false']).transform((v) => v === 'true')], {
      error: 'must be true or false',
    }),
  int: () =>
    z.union(
      [
        z.number().int(),
        z
          .string()
          .regex(/^-?\d+$/, 'must be an integer')
          .transform(Number),
      ],
      { error: 'must be an integer' },
    ),
  /** Arrays of scalars travel as repeated keys (wire §1.4), so a single value arrives as a string. */
  list: <T extends z.ZodType<string>>(item: T) =>
    z.union([z.array(item), item.transform((v) => [v])], {
      error: 'must be a string or an array of strings',
    }),
};

/**
 * `query.fields`, which the runtime's QueryBuilder can add (wire §4): accepted and ignored, so
 * whole entities come back. No endpoint declares it, its effect on the platform is unconfirmed
 * (wire §9), and a partial entity would break clients that read the fields they always get.
 */
export const queryFields = () => qs.list(z.string()).optional();
