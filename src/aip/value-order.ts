/**
 * One total order over the JSON values a sort key can hold. Strings compare by
 * code unit (not locale) so that every replica, and SQL with a binary
 * collation, agrees; absent values sort first.
 */
const TYPE_RANK: Record<string, number> = { undefined: 0, object: 0, boolean: 1, number: 2, string: 3 };

export function compareValues(a: unknown, b: unknown): number {
  // The common case, first: a List compares two strings thousands of times a page. Told apart by `<`
  // before `===`: two strings that differ (most) are then compared once or twice, not always twice.
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a === b ? 0 : 1;
  if (a === b) return 0;
  const ra = a === null ? 0 : (TYPE_RANK[typeof a] ?? 4);
  const rb = b === null ? 0 : (TYPE_RANK[typeof b] ?? 4);
  if (ra !== rb) return ra - rb;
  if (ra === 0) return 0;
  return (a as string | number | boolean) < (b as string | number | boolean) ? -1 : 1;
}
