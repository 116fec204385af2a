/**
 * What a List works out from one reading of a v1 list, kept with that reading. A reading that the scan
 * memo (v1/list-scan-memo.ts) gives again stands for byte-identical rows, so whatever was worked out from
 * those rows alone, for the same query (which rows match, their sort keys, the page they make), holds
 * again and is not worked out twice. A reading nothing keeps is dropped, and all that was kept with it.
 *
 * Kept values are shared by every request that gets the reading: their users read them, never change them.
 */

/** Values kept per reading: for a query or two, the rows lacking kept times, the matching rows and a page. */
const PER_READING = 8;

const KEPT = new WeakMap<object, Map<string, unknown>>();

/** `make()`, or what it made before for this reading and key. */
export function keptWith<T>(reading: object, key: string, make: () => T): T {
  let kept = KEPT.get(reading);
  if (kept === undefined) KEPT.set(reading, (kept = new Map()));
  if (kept.has(key)) {
    const value = kept.get(key) as T;
    // Used again: moved to the end, so the least recently used goes first (a Map iterates in insertion order).
    kept.delete(key);
    kept.set(key, value);
    return value;
  }
  const value = make();
  if (kept.size >= PER_READING) kept.delete(kept.keys().next().value as string);
  kept.set(key, value);
  return value;
}

/** Whether a value is kept for this reading and key (without making one). */
export function isKept(reading: object, key: string): boolean {
  return KEPT.get(reading)?.has(key) ?? false;
}

/** How many values a reading may keep (its least recently used goes first past this). */
export const VALUES_PER_READING = PER_READING;
