/**
 * Timestamps leave the gateway as RFC 3339 UTC with exactly millisecond
 * precision, whatever precision or offset v1 used (protojson trims to 0, 3, 6
 * or 9 fractional digits; a Postgres-backed server sends microseconds).
 */
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?([Zz]|[+-]\d{2}:\d{2})$/;

/**
 * Answers by input, bounded: the same rows, so the same times, render on every page of a
 * List and every Get of a resource, and the parse and calendar check cost a microsecond each.
 */
const REMEMBERED = new Map<string, string | null>();
const MAX_REMEMBERED = 20_000;

export function toMillisTimestamp(value: unknown): string | null {
  if (typeof value !== 'string' || value === '') return null;
  let answer = REMEMBERED.get(value);
  if (answer === undefined) {
    answer = parseTimestamp(value);
    // Dropped all at once when full: simpler than an LRU, and refilled within one page of a List.
    if (REMEMBERED.size >= MAX_REMEMBERED) REMEMBERED.clear();
    REMEMBERED.set(value, answer);
  }
  return answer;
}

function parseTimestamp(value: string): string | null {
  const m = RFC3339.exec(value);
  if (!m) return null;
  const [, y, mo, d, h, mi, s, frac = '', zone = 'Z'] = m;
  const [year, month, day, hour, minute, second] = [y, mo, d, h, mi, s].map(Number) as [number, number, number, number, number, number];
  // Date.UTC rolls 2024-02-30 over to March 1st; a timestamp that is not a real instant is refused instead.
  if (hour > 23 || minute > 59 || second > 59) return null;
  const millis = Number(frac.padEnd(3, '0').slice(0, 3));
  let epoch = Date.UTC(year, month - 1, day, hour, minute, second, millis);
  const calendar = new Date(epoch);
  if (calendar.getUTCMonth() !== month - 1 || calendar.getUTCDate() !== day) return null;
  if (zone.toUpperCase() !== 'Z') {
    const [offsetHours, offsetMinutes] = [Number(zone.slice(1, 3)), Number(zone.slice(4, 6))];
    if (offsetHours > 23 || offsetMinutes > 59) return null;
    epoch -= (zone[0] === '-' ? -1 : 1) * (offsetHours * 60 + offsetMinutes) * 60_000;
  }
  const date = new Date(epoch);
  return Number.isNaN(date.getTime()) ? null : date.toISOString();
}

export function isRfc3339(value: string): boolean {
  return toMillisTimestamp(value) !== null;
}
