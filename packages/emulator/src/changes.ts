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
    .filter((k) => JSON.stringify(a[k]) !== JSON.stringify(b[k]))
    .sort();
}
