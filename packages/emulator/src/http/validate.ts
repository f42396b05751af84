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
  // origin: [rule when too big, rule when too small, what is counted]
  string: ['MAX_LENGTH', 'MIN_LENGTH', 'characters'],
  array: ['MAX_SIZE', 'MIN_SIZE', 'items'],
  set: ['MAX_SIZE', 'MIN_SIZE', 'items'],
};

/** Turns zod issues into platform violations. */
export function toViolations(error: z.ZodError, input: unknown): Violation[] {
  const out: Violation[] = [];
  for (const issue of error.issues) {
    const field = fieldName(issue.path);
    const data: Record<string, unknown> = {};
    let description = issue.message;
    let violatedRule = 'VALIDATION';
    switch (issue.code) {
      case 'invalid_type':
        if (valueAt(input, issue.path) === undefined) {
          description = 'is required';
          violatedRule = 'REQUIRED_FIELD';
        } else {
          description = `must be ${issue.expected === 'object' ? 'an object' : issue.expected === 'array' ? 'an array' : `a ${issue.expected}`}`;
          violatedRule = 'FORMAT';
        }
        data.type = issue.expected;
        break;
      case 'too_big':
      case 'too_small': {
        const big = issue.code === 'too_big';
        const size = SIZE_RULE[issue.origin as string];
        const limit = big
          ? (issue as { maximum: number | bigint }).maximum
          : (issue as { minimum: number | bigint }).minimum;
        violatedRule = size ? size[big ? 0 : 1]! : big ? 'MAX' : 'MIN';
        description = size
          ? `must have ${big ? 'at most' : 'at least'} ${limit} ${size[2]}`
          : `must be ${big ? 'at most' : 'at least'} ${limit}`;
        data[big ? 'max' : 'min'] = Number(limit);
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
        description = `must be one of ${issue.values.map(String).join(', ')}`;
        violatedRule = 'INVALID_ENUM_VALUE';
        data.values = issue.values;
        break;
      case 'invalid_format':
        description = `must be a valid ${issue.format}`;
        violatedRule = 'FORMAT';
        data.type = issue.format === 'email' ? 'EMAIL' : issue.format;
        break;
      default:
        violatedRule = 'OTHER';
        data.ruleName = issue.code;
    }
    out.push({ field, description, violatedRule, data });
  }
  return out;
}

/** Parses a message with a schema or throws the platform's 400 with every violation. */
export function parseMessage<T>(schema: z.ZodType<T>, msg: unknown): T {
  const r = schema.safeParse(msg);
  if (!r.success) throw invalid(toViolations(r.error, msg));
  return r.data;
}

/** Query-string helpers: GET messages arrive as strings. */
export const qs = {
  bool: () => z.union([z.boolean(), z.enum(['true', 'false']).transform((v) => v === 'true')]),
  int: () =>
    z.union([
      z.number().int(),
      z
        .string()
        .regex(/^-?\d+$/)
        .transform(Number),
    ]),
};
