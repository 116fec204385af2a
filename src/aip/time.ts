/**
 * Timestamps leave the gateway as RFC 3339 UTC with exactly millisecond
 * precision, whatever precision or offset v1 used (protojson trims to 0, 3, 6
 * or 9 fractional digits; a Postgres-backed server sends microseconds).
 */
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?([Zz]|[+-]\d{2}:\d{2})$/;

export function toMillisTimestamp(value: unknown): string | null {
  if (typeof value !== 'string' || value === '') return null;
  const m = RFC3339.exec(value);
  if (!m) return null;
  const [, y, mo, d, h, mi, s, frac = '', zone] = m;
  const millis = Number(frac.padEnd(3, '0').slice(0, 3));
  let epoch = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s), millis);
  if (zone && zone.toUpperCase() !== 'Z') {
    const sign = zone[0] === '-' ? -1 : 1;
    epoch -= sign * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(4, 6))) * 60_000;
  }
  const date = new Date(epoch);
  return Number.isNaN(date.getTime()) ? null : date.toISOString();
}

export function isRfc3339(value: string): boolean {
  return toMillisTimestamp(value) !== null;
}
