/**
 * google.protobuf.Timestamp on the wire. The real v1 backend stores times in
 * PostgreSQL (microsecond precision) and protojson prints 0, 3, 6 or 9
 * fractional digits as needed, so most emulator timestamps carry six digits
 * and the gateway's normalisation is exercised on every read.
 */

export interface Instant {
  /** Whole seconds since the Unix epoch. */
  seconds: number;
  /** 0 ≤ nanos < 1e9. */
  nanos: number;
}

/** Microseconds since the Unix epoch, as a PostgreSQL-backed server would see them. */
export type MicrosClock = () => number;

export function systemClock(): MicrosClock {
  // Strictly increasing, so two writes in the same microsecond still order.
  let last = 0;
  return () => {
    const now = Math.floor((performance.timeOrigin + performance.now()) * 1000);
    last = Math.max(now, last + 1);
    return last;
  };
}

export function instantFromMicros(micros: number): Instant {
  const seconds = Math.floor(micros / 1e6);
  return { seconds, nanos: (micros - seconds * 1e6) * 1000 };
}

/** protojson's fractional seconds: none, or 3, 6 or 9 digits, whichever is shortest and exact. */
function fraction(nanos: number): string {
  if (nanos === 0) return '';
  const digits = String(nanos).padStart(9, '0');
  return `.${nanos % 1e6 === 0 ? digits.slice(0, 3) : nanos % 1e3 === 0 ? digits.slice(0, 6) : digits}`;
}

export function formatTimestamp({ seconds, nanos }: Instant): string {
  return `${new Date(seconds * 1000).toISOString().slice(0, 19)}${fraction(nanos)}Z`;
}

export function formatMicros(micros: number): string {
  return formatTimestamp(instantFromMicros(micros));
}

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})$/;

/** RFC 3339 as protojson accepts it (any offset, up to nine fractional digits); undefined when invalid. */
export function parseTimestamp(text: string): Instant | undefined {
  const m = RFC3339.exec(text);
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s, frac = '', zone] = m;
  const fields = [y, mo, d, h, mi, s].map(Number) as [number, number, number, number, number, number];
  const [year, month, day, hour, minute, second] = fields;
  const check = new Date(Date.UTC(2000, month - 1, day, hour, minute, second));
  check.setUTCFullYear(year); // Date.UTC maps years 0-99 to 1900-1999
  const ms = check.getTime();
  if (check.getUTCDate() !== day || check.getUTCMonth() !== month - 1 || hour > 23 || minute > 59 || second > 59) return undefined;
  let offset = 0;
  if (zone !== 'Z') {
    const sign = zone!.startsWith('-') ? -1 : 1;
    offset = sign * (Number(zone!.slice(1, 3)) * 3600 + Number(zone!.slice(4, 6)) * 60);
  }
  const seconds = Math.floor(ms / 1000) - offset;
  // protojson's valid range is years 0001 through 9999 in UTC.
  if (seconds < -62135596800 || seconds > 253402300799) return undefined;
  return { seconds, nanos: Number(frac.padEnd(9, '0')) };
}

/** Orders two protojson timestamps by instant (their text does not sort: "…40Z" vs "…40.5Z"). */
export function compareTimestamps(a: string, b: string): number {
  const x = parseTimestamp(a);
  const y = parseTimestamp(b);
  if (!x || !y) throw new Error(`not a timestamp: ${x ? b : a}`);
  return x.seconds - y.seconds || x.nanos - y.nanos;
}

export function microsOf(text: string): number {
  const at = parseTimestamp(text);
  if (!at) throw new Error(`not a timestamp: ${text}`);
  return at.seconds * 1e6 + Math.floor(at.nanos / 1e3);
}

// ---------------------------------------------------------------- google.protobuf.Duration

/** protojson's Duration range: ±10,000 years in seconds. */
const MAX_DURATION_SECONDS = 315_576_000_000;

const DURATION = /^(-)?(\d+)(?:\.(\d{1,9}))?s$/;

/** A Duration as protojson prints it ("3600s", "1.500s", "-0.000000001s"); undefined when invalid. */
export function canonicalDuration(text: string): string | undefined {
  const m = DURATION.exec(text);
  if (!m) return undefined;
  const [, minus = '', whole, frac = ''] = m;
  const seconds = Number(whole);
  if (seconds > MAX_DURATION_SECONDS) return undefined;
  const nanos = Number(frac.padEnd(9, '0'));
  return seconds === 0 && nanos === 0 ? '0s' : `${minus}${seconds}${fraction(nanos)}s`;
}

/** Microseconds in a canonical Duration (sub-microsecond digits dropped, as PostgreSQL would). */
export function durationMicros(canonical: string): number {
  const m = DURATION.exec(canonical);
  if (!m) throw new Error(`not a duration: ${canonical}`);
  const [, minus, whole, frac = ''] = m;
  const micros = Number(whole) * 1e6 + Math.floor(Number(frac.padEnd(9, '0')) / 1e3);
  return minus ? -micros : micros;
}
