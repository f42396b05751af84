/**
 * What a change touched, field by field: the webhooks' `modifiedFields` on domain events and the
 * catalog's `changedFields` on its v1 events are both the top-level fields that differ between two
 * versions of an entity as the API returns it.
 * @module
 */

/** The top-level fields whose values differ between two versions of an object, sorted. */
export function changedFields(before: object, after: object): string[] {
  const a = before as Record<string, unknown>;
  const b = after as Record<string, unknown>;
  return [...new Set([...Object.keys(a), ...Object.keys(b)])]
    .filter((k) => canonical(a[k]) !== canonical(b[k]))
    .sort();
}

/**
 * JSON with every object's keys in one order: a value stored (jsonb keeps its keys in an order of
 * its own) and the same value as a request gave it compare equal. `undefined` fields drop out, as
 * in JSON.
 */
const canonical = (value: unknown) =>
  JSON.stringify(value, (_, v) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0)))
      : v,
  );
