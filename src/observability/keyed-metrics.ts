/**
 * Labelled Prometheus counters and histograms for the request path, whose series are found by their label
 * values in declared order. prom-client's own copy each call's labels object, check every name against
 * the declared ones and build a hash string from the names and values before counting (~0.45 µs an
 * observation in isolation); at two to four labelled observations a request that was 5–8 % of a Get's
 * CPU (callgrind and `/proc` CPU; README.md, Benchmarks). Here the values lead to their series through a
 * map per label, checked once, when the series is made (~0.03 µs an observation).
 *
 * They register in a prom-client `Registry` beside its own metrics and hand it the same values its
 * Counter and Histogram would, so `/metrics` reads the same (test/observability/keyed-metrics.test.ts compares
 * the two). The Registry takes any object with a name, a help, a type and `get()`.
 */
import type { Metric, Registry } from 'prom-client';

/** A label's value; undefined leaves the label off the series, as omitting it from prom-client's labels does. */
export type LabelValue = string | number | undefined;

type Labels = Record<string, string | number>;

/** One sample as a prom-client Registry reads it: `metricName` when not the metric's own (`_bucket`, `_sum`, `_count`). */
interface Sample {
  labels: Labels;
  value: number;
  metricName?: string;
  /** The series' labels, written after `labels` (a histogram's text exposition only). */
  sharedLabels?: Labels;
  /** Kept as prom-client keeps it on histogram buckets (null: no exemplars here). */
  exemplar?: null;
}

/** What a prom-client Registry reads of a metric. */
interface Exposed {
  name: string;
  help: string;
  type: 'counter' | 'histogram';
  values: Sample[];
  aggregator: 'sum';
}

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

interface KeyedConfig {
  name: string;
  help: string;
  labelNames?: readonly string[];
  registers?: readonly Registry[];
}

/** The key of an absent label value. */
const ABSENT = Symbol('absent');

/** One level of the series tree: the next label's values, and the series the values so far name. */
interface Branch<S> {
  readonly next: Map<string | symbol, Branch<S>>;
  series?: S;
}

/** The series of one metric by their label values, and what registering it takes. */
abstract class KeyedMetric<S extends { readonly labels: Labels }> {
  readonly name: string;
  readonly help: string;
  readonly aggregator = 'sum' as const;
  abstract readonly type: 'counter' | 'histogram';
  readonly #labelNames: readonly string[];
  #root: Branch<S> = { next: new Map() };
  /** Every series, in the order they were made (the order prom-client exposes its own in). */
  #series: S[] = [];

  constructor(config: KeyedConfig) {
    if (!METRIC_NAME.test(config.name)) throw new TypeError(`invalid metric name: ${config.name}`);
    const labelNames = config.labelNames ?? [];
    for (const label of labelNames) if (!LABEL_NAME.test(label)) throw new TypeError(`invalid label name: ${label}`);
    this.name = config.name;
    this.help = config.help;
    this.#labelNames = labelNames;
  }

  /**
   * Adds this metric to the registries (once the subclass has set itself up). A metric without labels
   * has its one series from the start, at zero, as prom-client's has, so a scrape finds it before any
   * observation.
   */
  protected register(registers: readonly Registry[] = []): void {
    if (this.#labelNames.length === 0) this.seriesOf([]);
    for (const registry of registers) registry.registerMetric(this as unknown as Metric);
  }

  /** The series of these label values, made on first use. */
  protected seriesOf(values: readonly LabelValue[]): S {
    // A tree of maps, a level per label: no key string built per observation. A number is its string, as
    // prom-client reads it (200 and '200' are one series); an absent value has a key no string can be.
    let branch = this.#root;
    for (let at = 0; at < values.length; at++) {
      const value = values[at];
      const key = value === undefined ? ABSENT : typeof value === 'string' ? value : String(value);
      let next = branch.next.get(key);
      if (next === undefined) {
        next = { next: new Map() };
        branch.next.set(key, next);
      }
      branch = next;
    }
    if (branch.series === undefined) {
      branch.series = this.newSeries(this.#labelsOf(values));
      this.#series.push(branch.series);
    }
    return branch.series;
  }

  #labelsOf(values: readonly LabelValue[]): Labels {
    if (values.length !== this.#labelNames.length) {
      throw new TypeError(`${this.name}: ${values.length} label values for labels ${this.#labelNames.join(', ')}`);
    }
    const labels: Labels = {};
    this.#labelNames.forEach((name, at) => {
      const value = values[at];
      if (value !== undefined) labels[name] = value;
    });
    return labels;
  }

  protected abstract newSeries(labels: Labels): S;

  protected allSeries(): readonly S[] {
    return this.#series;
  }

  reset(): void {
    this.#root = { next: new Map() };
    this.#series = [];
  }
}

interface CounterSeries {
  readonly labels: Labels;
  value: number;
}

/** A Prometheus counter (prom-client's `Counter`, positional label values). */
export class KeyedCounter extends KeyedMetric<CounterSeries> {
  readonly type = 'counter' as const;

  constructor(config: KeyedConfig) {
    super(config);
    this.register(config.registers);
  }

  /** Adds `amount` (≥ 0) to the series of these label values, in the declared order. */
  inc(amount: number, ...values: LabelValue[]): void {
    if (!(amount >= 0) || !Number.isFinite(amount)) throw new TypeError(`${this.name}: a counter only grows, by a finite amount (got ${amount})`);
    this.seriesOf(values).value += amount;
  }

  protected newSeries(labels: Labels): CounterSeries {
    return { labels, value: 0 };
  }

  async get(): Promise<Exposed> {
    const values = this.allSeries().map(({ labels, value }) => ({ labels: { ...labels }, value }));
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }
}

interface HistogramSeries {
  readonly labels: Labels;
  /** Observations per bucket, each bucket's alone (not cumulative); those above the last bound are in `count` only. */
  readonly buckets: Float64Array;
  sum: number;
  count: number;
}

/** A Prometheus histogram (prom-client's `Histogram`, positional label values). */
export class KeyedHistogram extends KeyedMetric<HistogramSeries> {
  readonly type = 'histogram' as const;
  readonly #bounds: readonly number[];

  constructor(config: KeyedConfig & { buckets: readonly number[] }) {
    super(config);
    if (config.labelNames?.includes('le')) throw new TypeError('le is the histogram\'s own label');
    if (config.buckets.some((bound, at) => at > 0 && !(bound > config.buckets[at - 1]!))) throw new TypeError(`${config.name}: bucket bounds must ascend`);
    this.#bounds = [...config.buckets];
    this.register(config.registers);
  }

  /** Counts `value` in the series of these label values, in the declared order. */
  observe(value: number, ...values: LabelValue[]): void {
    if (!Number.isFinite(value)) throw new TypeError(`${this.name}: not a finite number: ${value}`);
    const series = this.seriesOf(values);
    series.sum += value;
    series.count += 1;
    const bounds = this.#bounds;
    for (let at = 0; at < bounds.length; at++) {
      if (value <= bounds[at]!) {
        series.buckets[at]! += 1;
        return;
      }
    }
  }

  protected newSeries(labels: Labels): HistogramSeries {
    return { labels, buckets: new Float64Array(this.#bounds.length), sum: 0, count: 0 };
  }

  /**
   * As prom-client's Histogram hands them to the Registry for the text exposition: each value's own label
   * (`le`) apart from the series' labels (`sharedLabels`), which the Registry writes after it.
   */
  async getForPromString(): Promise<Exposed> {
    // `exemplar: null` on the buckets as prom-client's have it (none kept here), so its JSON reads the same too.
    const values: Sample[] = [];
    const bucket = `${this.name}_bucket`;
    for (const series of this.allSeries()) {
      const shared = series.labels;
      let cumulative = 0;
      this.#bounds.forEach((bound, at) => {
        cumulative += series.buckets[at]!;
        values.push({ labels: { le: bound }, sharedLabels: shared, value: cumulative, metricName: bucket, exemplar: null });
      });
      values.push(
        { labels: { le: '+Inf' }, sharedLabels: shared, value: series.count, metricName: bucket, exemplar: null },
        { labels: {}, sharedLabels: shared, value: series.sum, metricName: `${this.name}_sum` },
        { labels: {}, sharedLabels: shared, value: series.count, metricName: `${this.name}_count` },
      );
    }
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }

  /** As prom-client's Histogram answers `get()` (and the Registry's JSON): every value with all its labels. */
  async get(): Promise<Exposed> {
    const data = await this.getForPromString();
    const values = data.values.map(({ sharedLabels, labels, ...rest }) => ({ ...rest, labels: { ...labels, ...sharedLabels } }));
    return { ...data, values };
  }
}
