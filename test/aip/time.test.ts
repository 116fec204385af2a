import { describe, it, expect } from 'vitest';
import { isRfc3339, toMillisTimestamp } from '../../src/aip/time.ts';

describe('toMillisTimestamp: normalises to YYYY-MM-DDTHH:MM:SS.mmmZ', () => {
  it.each([
    ['no fraction', '2024-05-06T07:08:09Z', '2024-05-06T07:08:09.000Z'],
    ['one fractional digit', '2024-05-06T07:08:09.1Z', '2024-05-06T07:08:09.100Z'],
    ['two fractional digits', '2024-05-06T07:08:09.12Z', '2024-05-06T07:08:09.120Z'],
    ['milliseconds', '2024-05-06T07:08:09.123Z', '2024-05-06T07:08:09.123Z'],
    ['microseconds (Postgres)', '2024-05-06T07:08:09.123456Z', '2024-05-06T07:08:09.123Z'],
    ['nanoseconds (protojson)', '2024-05-06T07:08:09.123456789Z', '2024-05-06T07:08:09.123Z'],
    ['sub-millisecond digits are truncated, not rounded', '2024-05-06T07:08:09.999999999Z', '2024-05-06T07:08:09.999Z'],
    ['zero fraction', '2024-05-06T07:08:09.000000Z', '2024-05-06T07:08:09.000Z'],
    ['lowercase t and z', '2024-05-06t07:08:09.5z', '2024-05-06T07:08:09.500Z'],
    ['+00:00 offset', '2024-05-06T07:08:09+00:00', '2024-05-06T07:08:09.000Z'],
    ['positive offset', '2024-05-06T07:08:09.250+02:00', '2024-05-06T05:08:09.250Z'],
    ['negative offset with minutes', '2024-05-06T07:08:09-05:30', '2024-05-06T12:38:09.000Z'],
    ['offset crossing midnight backwards', '2024-01-01T01:00:00+02:00', '2023-12-31T23:00:00.000Z'],
    ['offset crossing midnight forwards', '2024-12-31T23:30:00.123456-01:00', '2025-01-01T00:30:00.123Z'],
    ['offset with microseconds', '2024-02-29T12:00:00.000001+05:45', '2024-02-29T06:15:00.000Z'],
    ['leap day', '2024-02-29T00:00:00Z', '2024-02-29T00:00:00.000Z'],
    ['epoch', '1970-01-01T00:00:00Z', '1970-01-01T00:00:00.000Z'],
  ])('%s: %s', (_label, input, expected) => {
    expect(toMillisTimestamp(input)).toBe(expected);
  });

  it('is idempotent on its own output', () => {
    const once = toMillisTimestamp('2024-05-06T07:08:09.123456+01:00')!;
    expect(toMillisTimestamp(once)).toBe(once);
  });
});

describe('toMillisTimestamp: invalid input is null', () => {
  it.each([
    ['undefined', undefined],
    ['null', null],
    ['empty', ''],
    ['number', 1714979289000],
    ['Date object', new Date('2024-05-06T07:08:09Z')],
    ['object', { seconds: 1, nanos: 0 }],
    ['free text', 'yesterday'],
    ['date only', '2024-05-06'],
    ['no zone', '2024-05-06T07:08:09'],
    ['no zone with fraction', '2024-05-06T07:08:09.123'],
    ['offset without colon', '2024-05-06T07:08:09+0200'],
    ['hour-only offset', '2024-05-06T07:08:09+02'],
    ['dot without digits', '2024-05-06T07:08:09.Z'],
    ['comma fraction', '2024-05-06T07:08:09,123Z'],
    ['short year', '24-05-06T07:08:09Z'],
    ['leading space', ' 2024-05-06T07:08:09Z'],
    ['trailing garbage', '2024-05-06T07:08:09Zjunk'],
    ['seconds since epoch as text', '1714979289'],
  ])('%s', (_label, input) => {
    expect(toMillisTimestamp(input)).toBeNull();
  });

  const OUT_OF_RANGE: [string, string][] = [
    ['month 13', '2024-13-01T00:00:00Z'],
    ['month 00', '2024-00-10T00:00:00Z'],
    ['day 32', '2024-01-32T00:00:00Z'],
    ['day 00', '2024-01-00T00:00:00Z'],
    ['30 February', '2024-02-30T00:00:00Z'],
    ['29 February in a common year', '2023-02-29T00:00:00Z'],
    ['31 April', '2024-04-31T00:00:00Z'],
    ['hour 24', '2024-01-01T24:00:00Z'],
    ['hour 25', '2024-01-01T25:00:00Z'],
    ['minute 60', '2024-01-01T10:60:00Z'],
    ['second 61', '2024-01-01T10:00:61Z'],
    ['offset hour 24', '2024-01-01T10:00:00+24:00'],
    ['offset minute 60', '2024-01-01T10:00:00+01:60'],
  ];

  it('out-of-range calendar or clock fields are null, not rolled over into the next unit', () => {
    const results = Object.fromEntries(OUT_OF_RANGE.map(([label, input]) => [`${label} ${input}`, toMillisTimestamp(input)]));
    expect(results).toEqual(Object.fromEntries(OUT_OF_RANGE.map(([label, input]) => [`${label} ${input}`, null])));
  });
});

describe('isRfc3339', () => {
  it('accepts what toMillisTimestamp accepts', () => {
    expect(isRfc3339('2024-05-06T07:08:09.123456Z')).toBe(true);
    expect(isRfc3339('2024-05-06T07:08:09-07:00')).toBe(true);
  });

  it('refuses what toMillisTimestamp refuses', () => {
    expect(isRfc3339('')).toBe(false);
    expect(isRfc3339('2024-05-06')).toBe(false);
    expect(isRfc3339('2024-02-30T00:00:00Z')).toBe(false);
  });
});
