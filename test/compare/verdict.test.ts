/** The verdict's statistics and the report worked out from counters, noise included. */
import { describe, expect, it } from 'vitest';
import { verdict, wilson } from '../../src/compare/verdict.ts';
import { add, KEY, methodReport, signatureKey, type Counters } from '../../src/compare/tally.ts';
import { declaredExpectations, Expectations } from '../../src/compare/expected.ts';
import { bindContract } from '../../src/contract/bindings.ts';
import { apiServices } from '../../src/contract/registry.ts';
import { MAPPINGS } from '../../mappings/index.ts';

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

describe('expected differences', () => {
  const M = 'chainguard.platform.registry.v2beta1.Registry/GetRepo';
  const expectations = new Expectations([{ method: 'chainguard.platform.registry.v2beta1.Registry/Get*', field: 'updateTime', reason: 'v1 keeps none' }]);
  it('counts a comparison whose only difference is expected apart, with its reason, out of the verdict', () => {
    const c: Counters = new Map();
    for (let i = 0; i < 1000; i++) add(c, M, KEY.compared);
    for (let i = 0; i < 900; i++) add(c, M, signatureKey(c, M, [{ path: 'updateTime', class: 'dataLoss' }]));
    const r = methodReport(M, c.get(M)!, { targetRate: 0.01, expectations });
    expect(r).toMatchObject({ compared: 1000, equal: 100, expected: 900, different: { access: 0, dataLoss: 0, value: 0, cosmetic: 0 } });
    expect(r.fields).toEqual([{ path: 'updateTime', class: 'expected', reason: 'v1 keeps none', count: 900 }]);
    expect(r.verdict).toMatchObject({ mismatchRate: 0, decision: 'pass' });
    // Without the declaration the same counts fail.
    expect(methodReport(M, c.get(M)!, { targetRate: 0.01 }).verdict.decision).toBe('fail');
  });
  it('stays narrow: the same method differing in another field still fails, another method with the same field too', () => {
    const c: Counters = new Map();
    for (let i = 0; i < 100; i++) add(c, M, KEY.compared);
    for (let i = 0; i < 50; i++) add(c, M, signatureKey(c, M, [{ path: 'updateTime', class: 'dataLoss' }, { path: 'name', class: 'value' }]));
    const r = methodReport(M, c.get(M)!, { targetRate: 0.01, expectations });
    expect(r).toMatchObject({ compared: 100, equal: 50, expected: 0, different: { value: 50 } });
    expect(r.verdict.decision).toBe('fail');
    expect(r.fields.map((f) => [f.path, f.class])).toEqual([['name', 'value'], ['updateTime', 'expected']]);
    const other = 'chainguard.platform.registry.v2beta1.Registry/ListRepos';
    add(c, other, KEY.compared);
    add(c, other, signatureKey(c, other, [{ path: 'updateTime', class: 'dataLoss' }]));
    expect(methodReport(other, c.get(other)!, { targetRate: 0.01, expectations })).toMatchObject({ expected: 0, different: { dataLoss: 1 } });
  });
  it('declares the gateway\'s own beside the mappings, on the Get and on the List\'s rows', () => {
    const declared = declaredExpectations(bindContract(apiServices(), MAPPINGS));
    expect(declared).toContainEqual({ method: 'chainguard.platform.iam.v2beta1.IdentityProvidersService/ListIdentityProviders', field: 'identityProviders[].scim.endpointUrl', reason: expect.stringContaining('SCIM') });
    expect(declared).toContainEqual({ method: 'chainguard.platform.iam.v2beta1.IdentityProvidersService/GetIdentityProvider', field: 'scim.endpointUrl', reason: expect.stringContaining('SCIM') });
  });
});

describe('not compared', () => {
  it('is the verdict of a method with nothing compared (a write skipped), with no samples needed', () => {
    const c: Counters = new Map();
    add(c, 'svc/CreateGroup', KEY.skipped, 381);
    expect(methodReport('svc/CreateGroup', c.get('svc/CreateGroup')!, { targetRate: 0.01 }).verdict).toMatchObject({ decision: 'not compared', samplesNeeded: null });
  });
});

describe('comparisons a worker stop took', () => {
  it('count against a pass as mismatches when they were under way, so a pass reads clean only if it holds whatever they were', () => {
    expect(verdict(0, 1000, 0.01).decision).toBe('pass');
    // One lost among a thousand: even as a mismatch the bound holds.
    expect(verdict(0, 1000, 0.01, { candidate: 0, underWay: 1, offered: 0 })).toMatchObject({ decision: 'pass', upperBound95: Math.round(wilson(1, 1001).upper * 1e4) / 1e4 });
    // Ten lost: the bound, counting them, is over the target; more comparisons would settle it.
    const v = verdict(0, 1000, 0.01, { candidate: 0, underWay: 10, offered: 0 });
    expect(v).toMatchObject({ decision: 'undecided', mismatchRate: 0, lowerBound95: 0 });
    expect(v.upperBound95).toBeGreaterThan(0.01);
    expect(wilson(10, 1010 + v.samplesNeeded!).upper).toBeLessThanOrEqual(0.01);
    expect(wilson(10, 1010 + v.samplesNeeded! - 1).upper).toBeGreaterThan(0.01);
  });
  it('leave a fail a fail, and a pass over offered ones a pass (none was under way: they are a loss in time, not in kind)', () => {
    expect(verdict(5, 8, 0.01, { candidate: 0, underWay: 3, offered: 0 }).decision).toBe('fail');
    expect(verdict(0, 1000, 0.01, { candidate: 0, underWay: 0, offered: 5000 }).decision).toBe('pass');
  });
  it('make a method whose chosen calls were all lost undecided, not "not compared"', () => {
    expect(verdict(0, 0, 0.01, { candidate: 0, underWay: 0, offered: 3 })).toMatchObject({ decision: 'undecided', samplesNeeded: verdict(0, 1, 0.01).samplesNeeded! + 1 });
    expect(verdict(0, 0, 0.01, { candidate: 0, underWay: 2, offered: 0 }).decision).toBe('undecided');
  });
  it('show in the report as the stop\'s, and reach the verdict from the counters', () => {
    const c: Counters = new Map();
    const M = 'svc/Get';
    add(c, M, KEY.compared, 1000);
    add(c, M, KEY.errors, 12);
    add(c, M, KEY.workerStopErrors, 10);
    add(c, M, KEY.dropped, 7);
    add(c, M, KEY.workerStopDropped, 4);
    const r = methodReport(M, c.get(M)!, { targetRate: 0.01 });
    expect(r).toMatchObject({ compared: 1000, errors: 12, dropped: 7, workerStop: { errors: 10, dropped: 4 }, verdict: { decision: 'undecided' } });
    // The same errors not the stop's are the candidate's: they count against a pass all the same.
    c.get(M)!.delete(KEY.workerStopErrors);
    expect(methodReport(M, c.get(M)!, { targetRate: 0.01 }).verdict.decision).toBe('undecided');
    c.get(M)!.delete(KEY.errors);
    expect(methodReport(M, c.get(M)!, { targetRate: 0.01 }).verdict.decision).toBe('pass');
  });
});

describe('calls the candidate did not answer', () => {
  const none = { candidate: 0, underWay: 0, offered: 0 };
  it('count against a pass as mismatches: a candidate that cannot answer is not shown to answer right', () => {
    // One unanswered among a thousand equal: even as a mismatch the bound holds.
    expect(verdict(0, 1000, 0.01, { ...none, candidate: 1 })).toMatchObject({ decision: 'pass', upperBound95: Math.round(wilson(1, 1001).upper * 1e4) / 1e4 });
    const v = verdict(0, 1000, 0.01, { ...none, candidate: 10 });
    expect(v).toMatchObject({ decision: 'undecided', mismatchRate: 0, lowerBound95: 0, upperBound95: Math.round(wilson(10, 1010).upper * 1e4) / 1e4 });
    // More samples bring more unanswered calls at the rate seen (1 in 100): the bound settles once 1 % of those count too.
    const n = 1000 + v.samplesNeeded!;
    expect(wilson(n / 100, n + n / 100).upper).toBeLessThanOrEqual(0.01 + 1e-9);
  });
  it('leave a real mismatch class as it is: the lower bound, and so a fail, is the compared calls\' alone', () => {
    expect(verdict(5, 8, 0.01, { ...none, candidate: 3 })).toMatchObject({ decision: 'fail', lowerBound95: verdict(5, 8, 0.01).lowerBound95 });
  });
  it('keep a candidate that times out on 30 % of its calls from passing, with no number of samples that would settle it', () => {
    expect(verdict(0, 700, 0.01, { ...none, candidate: 300 })).toMatchObject({ decision: 'undecided', samplesNeeded: null });
  });
  it('make a method whose every chosen call the candidate never answered undecided, not "not compared"', () => {
    expect(verdict(0, 0, 0.01, { ...none, candidate: 5 })).toMatchObject({ decision: 'undecided', samplesNeeded: null });
    const c: Counters = new Map();
    add(c, 'svc/Get', KEY.errors, 5);
    expect(methodReport('svc/Get', c.get('svc/Get')!, { targetRate: 0.01 })).toMatchObject({ compared: 0, errors: 5, workerStop: { errors: 0 }, verdict: { decision: 'undecided' } });
  });
  it('are not a full queue\'s drops: those stay out of the verdict, a method with nothing else still "not compared"', () => {
    const c: Counters = new Map();
    add(c, 'svc/Get', KEY.dropped, 50);
    expect(methodReport('svc/Get', c.get('svc/Get')!, { targetRate: 0.01 }).verdict.decision).toBe('not compared');
    add(c, 'svc/Get', KEY.compared, 1000);
    expect(methodReport('svc/Get', c.get('svc/Get')!, { targetRate: 0.01 }).verdict.decision).toBe('pass');
  });
});
