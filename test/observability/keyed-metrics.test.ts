import { Counter, Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { KeyedCounter, KeyedHistogram, type LabelValue } from '../../src/observability/keyed-metrics.ts';
import { prng } from '../support/prng.ts';

const BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 1, 10];
const LABEL_NAMES = ['method', 'route', 'code'] as const;
// Values a label takes, with the characters the exposition escapes and ones a naive key would confuse.
const VALUES: LabelValue[][] = [
  ['GET', 'POST', 'DELETE'],
  ['/iam/v2beta1/groups/{uid=**}', 'a|b', 'a', '1:a|', 'quote"back\\slash\nline'],
  [200, 404, '200', undefined],
];

/** The same observations through prom-client's metric and ours, each in a registry of its own. */
function twin(seed: number, observations: number): { theirs: Registry; ours: Registry } {
  const theirs = new Registry();
  const ours = new Registry();
  const histogram = new Histogram({ name: 'duration_seconds', help: 'How long.', labelNames: LABEL_NAMES, buckets: BUCKETS, registers: [theirs] });
  const counter = new Counter({ name: 'calls_total', help: 'How many.', labelNames: LABEL_NAMES, registers: [theirs] });
  const keyedHistogram = new KeyedHistogram({ name: 'duration_seconds', help: 'How long.', labelNames: LABEL_NAMES, buckets: BUCKETS, registers: [ours] });
  const keyedCounter = new KeyedCounter({ name: 'calls_total', help: 'How many.', labelNames: LABEL_NAMES, registers: [ours] });
  const random = prng(seed);
  const pick = <T>(from: readonly T[]): T => from[Math.floor(random() * from.length)]!;
  for (let i = 0; i < observations; i++) {
    const values = VALUES.map(pick);
    const labels: Record<string, string | number> = {};
    LABEL_NAMES.forEach((name, at) => {
      if (values[at] !== undefined) labels[name] = values[at]!;
    });
    // On a bound, between bounds, above the last one, zero.
    const value = pick([0, 0.005, 0.0072, 0.05, 0.3, 10, 42.5, random() * 2]);
    histogram.observe(labels, value);
    keyedHistogram.observe(value, ...values);
    const amount = pick([1, 1, 2, 0.5]);
    counter.inc(labels, amount);
    keyedCounter.inc(amount, ...values);
  }
  return { theirs, ours };
}

describe('keyed counters and histograms', () => {
  it('expose exactly what prom-client exposes for the same observations', async () => {
    for (let seed = 1; seed <= 50; seed++) {
      const { theirs, ours } = twin(seed, 1 + (seed % 7) * 40);
      expect(await ours.metrics(), `seed ${seed}`).toBe(await theirs.metrics());
      expect(await ours.getMetricsAsJSON(), `seed ${seed}`).toEqual(await theirs.getMetricsAsJSON());
    }
  });

  it('expose a metric without labels at zero before any observation, as prom-client does', async () => {
    const theirs = new Registry();
    const ours = new Registry();
    new Histogram({ name: 'calls_per_request', help: 'Calls.', buckets: [0, 1, 2], registers: [theirs] });
    new Counter({ name: 'refused_total', help: 'Refused.', registers: [theirs] });
    new KeyedHistogram({ name: 'calls_per_request', help: 'Calls.', buckets: [0, 1, 2], registers: [ours] });
    new KeyedCounter({ name: 'refused_total', help: 'Refused.', registers: [ours] });
    expect(await ours.metrics()).toBe(await theirs.metrics());
    expect(await ours.metrics()).toContain('calls_per_request_count 0');
  });

  it('keep apart label values that a joined key would run together', async () => {
    const registry = new Registry();
    const counter = new KeyedCounter({ name: 'c_total', help: 'c', labelNames: ['a', 'b'], registers: [registry] });
    counter.inc(1, 'x|', 'y');
    counter.inc(1, 'x', '|y');
    counter.inc(1, '1:x|', '');
    expect((await counter.get()).values.map((v) => v.value)).toEqual([1, 1, 1]);
  });

  it('read the same after a reset as a fresh metric', async () => {
    const registry = new Registry();
    const histogram = new KeyedHistogram({ name: 'h', help: 'h', labelNames: ['a'], buckets: [1], registers: [registry] });
    histogram.observe(0.5, 'x');
    registry.resetMetrics();
    expect(await registry.metrics()).toBe('# HELP h h\n# TYPE h histogram\n');
  });

  it('refuse what prom-client refuses', () => {
    const histogram = new KeyedHistogram({ name: 'h', help: 'h', labelNames: ['a'], buckets: [1, 2] });
    expect(() => histogram.observe(Number.NaN, 'x')).toThrow(TypeError);
    expect(() => histogram.observe(1)).toThrow(/1 label values|0 label values/);
    expect(() => new KeyedHistogram({ name: 'h', help: 'h', labelNames: ['le'], buckets: [1] })).toThrow(/le/);
    expect(() => new KeyedHistogram({ name: 'h', help: 'h', buckets: [2, 1] })).toThrow(/ascend/);
    expect(() => new KeyedCounter({ name: 'bad-name', help: 'c' })).toThrow(/metric name/);
    expect(() => new KeyedCounter({ name: 'c', help: 'c', labelNames: ['bad-label'] })).toThrow(/label name/);
    const counter = new KeyedCounter({ name: 'c', help: 'c' });
    expect(() => counter.inc(-1)).toThrow(/only grows/);
  });
});
