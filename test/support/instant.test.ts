import { describe, expect, it } from 'vitest';
import { nanosOf } from './instant.ts';

describe('nanosOf', () => {
  it('orders timestamps of different precision by time, where their strings do not', () => {
    const whole = '2026-11-29T04:00:05Z';
    const later = '2026-11-29T04:00:05.000000001Z';
    expect(whole > later).toBe(true);
    expect(nanosOf(later) - nanosOf(whole)).toBe(1n);
    expect(nanosOf('2026-11-29T04:00:05.120Z')).toBe(nanosOf('2026-11-29T04:00:05.12Z'));
    expect(nanosOf('2026-11-29T05:00:05+01:00')).toBe(nanosOf(whole));
  });

  it('refuses what is not a timestamp', () => {
    expect(() => nanosOf('yesterday')).toThrow(/RFC 3339/);
    expect(() => nanosOf('2026-11-29T04:00:05.1234567890Z')).toThrow(/RFC 3339/);
  });
});
