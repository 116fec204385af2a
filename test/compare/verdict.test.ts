/** The verdict's statistics and the report worked out from counters, noise included. */
import { describe, expect, it } from 'vitest';
import { verdict, wilson } from '../../src/compare/verdict.ts';
import { add, KEY, methodReport, signatureKey, type Counters } from '../../src/compare/tally.ts';

describe('verdict', () => {
  it('bounds the rate with Wilson\'s interval', () => {
    const { lower, upper } = wilson(5, 8);
    expect(lower).toBeCloseTo(0.3057, 3);
    expect(upper).toBeCloseTo(0.8632, 3);
    expect(wilson(0, 2).upper).toBeGreaterThan(0.6);
  });
  it('decides nothing on two equal samples, and says how many more a 1 % bound needs', () => {
    const v = verdict(0, 2, 0.01);
    expect(v).toMatchObject({ mismatchRate: 0, decision: 'undecided' });
    expect(wilson(0, 2 + v.samplesNeeded!).upper).toBeLessThanOrEqual(0.01);
    expect(wilson(0, 2 + v.samplesNeeded! - 1).upper).toBeGreaterThan(0.01);
  });
  it('passes under the target, fails clearly over it, and needs no more samples either way', () => {
    expect(verdict(0, 1000, 0.01)).toMatchObject({ decision: 'pass', samplesNeeded: 0 });
    expect(verdict(5, 8, 0.01)).toMatchObject({ mismatchRate: 0.625, upperBound95: 0.8632, decision: 'fail', samplesNeeded: 0 });
  });
});

describe('the report from counters', () => {
  const M = 'svc/Get';
  function counters(noise: { trials: number; times: number } | undefined): Counters {
    const c: Counters = new Map();
    for (let i = 0; i < 100; i++) add(c, M, KEY.compared);
    for (let i = 0; i < 30; i++) add(c, M, signatureKey(c, M, [{ path: 'updateTime', class: 'value' }]));
    for (let i = 0; i < 10; i++) add(c, M, signatureKey(c, M, [{ path: 'updateTime', class: 'value' }, { path: 'name', class: 'value' }]));
    add(c, M, KEY.transient, 5);
    if (noise) {
      add(c, M, KEY.noiseTrials, noise.trials);
      add(c, M, KEY.noise + 'updateTime', noise.times);
    }
    return c;
  }
  it('keeps compared = equal + transient + the sum of different', () => {
    const r = methodReport(M, counters(undefined).get(M)!, { targetRate: 0.01 });
    expect(r).toMatchObject({ compared: 100, equal: 55, transient: 5, different: { value: 40 } });
    expect(r.fields).toEqual([{ path: 'updateTime', class: 'value', count: 40 }, { path: 'name', class: 'value', count: 10 }]);
  });
  it('leaves out a field that differs as often between the primary and itself', () => {
    const r = methodReport(M, counters({ trials: 100, times: 45 }).get(M)!, { targetRate: 0.01 });
    expect(r).toMatchObject({ compared: 100, equal: 85, transient: 5, different: { value: 10 } });
    expect(r.fields[0]).toEqual({ path: 'updateTime', class: 'value', count: 40, noise: true });
  });
  it('keeps a field that differs clearly more often against the candidate than against itself', () => {
    const r = methodReport(M, counters({ trials: 100, times: 1 }).get(M)!, { targetRate: 0.01 });
    expect(r.different.value).toBe(40);
    expect(r.fields[0]!.noise).toBeUndefined();
  });
});
