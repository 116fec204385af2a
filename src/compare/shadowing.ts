/**
 * Live comparison as the gateway runs it, built from the configuration: the
 * comparisons on their worker thread (off-thread.ts, which asks the candidate
 * and diffs there), the counters (in the gateway's store when comparing,
 * store/compare-counters.ts), the samples and metrics the findings count in
 * here, the capture, and the tap that wraps the runner. server.ts builds it
 * only when `--compare-with` or `--capture` is set.
 */
import type { Registry } from 'prom-client';
import type { Binding } from '../contract/bindings.ts';
import { safeUrl, type CandidateProtocol } from './candidate.ts';
import { Capture } from './capture.ts';
import { recordFinding } from './comparer.ts';
import { CompareMetrics, CompareWorkerMetrics } from './metrics.ts';
import { OffThreadComparisons } from './off-thread.ts';
import { memoryStore, sharedStore, type CounterStore } from './report-store.ts';
import type { ComparisonCounterStore } from '../store/types.ts';
import { Samples } from './samples.ts';
import type { Interceptor, Runner } from '../port/runner.ts';
import { ComparingRunner } from './tap.ts';
import { add, KEY, report, type Report } from './tally.ts';
import { declaredExpectations, Expectations, readExpectations, type ExpectedDifference } from './expected.ts';
import { createHash, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';

export interface ShadowingSettings {
  compareWith?: string | undefined;
  compareProtocol: CandidateProtocol;
  compareSample: number;
  compareUnsafe: boolean;
  compareNoise: boolean;
  compareTargetRate: number;
  compareQueue: number;
  compareConcurrency: number;
  compareTimeoutMs: number;
  compareRetryMs: number;
  compareSamples: number;
  capture?: string | undefined;
  /** Samples are kept and shown only to a reader bearing this file's secret. */
  compareSamplesTokenFile?: string | undefined;
  /** A team's expected differences (compare/expected.ts). */
  compareExpect?: string | undefined;
  /** The run the counters belong to (the store keeps each run apart). */
  compareRun?: string | undefined;
}

export interface ReportDocument extends Report {
  candidate: string | undefined;
  run: string | undefined;
  sample: number;
  targetRate: number;
  generatedAt: string;
}

/** Where the comparison's worker thread's stops (warn) and returns (info) are told: the gateway's log. */
export interface ShadowingLog {
  warn(message: string): void;
  info(message: string): void;
}

const SILENT: ShadowingLog = { warn: () => {}, info: () => {} };

/**
 * Results come back from the worker at most this long after their comparison ends (the counters reach the
 * store once a second too), or sooner when this many wait: each batch wakes the gateway's thread, which
 * then counts them, and a busy gateway's batches leave by their number, not their time.
 */
const BATCH_MS = 1000;
const BATCH_SIZE = 256;

export class Shadowing {
  /** The comparisons under way; undefined when only capturing. */
  readonly comparisons: OffThreadComparisons | undefined;
  readonly #settings: ShadowingSettings;
  /** The candidate's URL as the report shows it (no user or password). */
  readonly #candidateUrl: string | undefined;
  readonly #store: CounterStore;
  readonly #samples: Samples;
  readonly #metrics: CompareMetrics;
  readonly #capture: Capture | undefined;
  /** The digest of the samples reader's secret; undefined: samples are neither kept nor shown. */
  readonly #samplesKey: Buffer | undefined;
  readonly #teamExpected: readonly ExpectedDifference[];
  #expectations = new Expectations([]);
  /** The tap, once made: the calls it has noted and not yet considered are considered before a drain or a close. */
  #tap: ComparingRunner | undefined;

  private constructor(settings: ShadowingSettings, store: CounterStore, registry: Registry, log: ShadowingLog) {
    this.#settings = settings;
    this.#candidateUrl = settings.compareWith ? safeUrl(settings.compareWith) : undefined;
    this.#store = store;
    this.#samplesKey = settings.compareSamplesTokenFile ? samplesKey(settings.compareSamplesTokenFile) : undefined;
    this.#teamExpected = settings.compareExpect ? readExpectations(settings.compareExpect) : [];
    this.#samples = new Samples(this.#samplesKey ? settings.compareSamples : 0);
    this.#metrics = new CompareMetrics(registry);
    this.#capture = settings.capture ? new Capture(settings.capture) : undefined;
    const counting = { counters: store.counters, samples: this.#samples, onResult: (method: string, result: string, times: number) => this.#metrics.count(method, result, times) };
    this.comparisons = settings.compareWith
      ? new OffThreadComparisons({
        settings: {
          url: settings.compareWith,
          protocol: settings.compareProtocol,
          capacity: settings.compareQueue,
          concurrency: settings.compareConcurrency,
          timeoutMs: settings.compareTimeoutMs,
          noise: settings.compareNoise,
          retryMs: settings.compareRetryMs,
          keepSamples: this.#samples.keeping,
          batchMs: BATCH_MS,
          batchSize: BATCH_SIZE,
        },
        record: (name, finding, times) => recordFinding(name, finding, counting, times),
        dropped: this.#dropped,
        stopTook: (name, result, times) => add(store.counters, name, result === 'errors' ? KEY.workerStopErrors : KEY.workerStopDropped, times),
        health: new CompareWorkerMetrics(registry),
        warn: (message) => log.warn(message),
        info: (message) => log.info(message),
      })
      : undefined;
  }

  /**
   * `counts`: the gateway's store, where comparisons count (replicas sharing it add up).
   * `log`: the gateway's, told each time the comparison's worker thread stops and runs again.
   */
  static async start(settings: ShadowingSettings, registry: Registry, counts: ComparisonCounterStore, log: ShadowingLog = SILENT): Promise<Shadowing> {
    const store = settings.compareWith ? sharedStore(counts, settings.compareRun ?? '') : memoryStore();
    const shadowing = new Shadowing(settings, store, registry, log);
    await shadowing.comparisons?.ready();
    return shadowing;
  }

  get comparing(): boolean {
    return this.comparisons !== undefined;
  }

  /** The comparison tap as a step of the request's chain (port/runner.ts). */
  tap(bindings: readonly Binding[], budgetMs: number): Interceptor {
    return (runner) => this.#tapped(runner, bindings, budgetMs);
  }

  #tapped(runner: Runner, bindings: readonly Binding[], budgetMs: number): Runner {
    const s = this.#settings;
    const metrics = this.#metrics;
    this.#expectations = new Expectations([...this.#teamExpected, ...declaredExpectations(bindings)]);
    return this.#tap = new ComparingRunner(runner, {
      bindings,
      comparisons: this.comparisons,
      counters: this.#store.counters,
      sample: s.compareSample,
      unsafe: s.compareUnsafe,
      budgetMs,
      ...(this.#capture ? { onCall: (call: Parameters<Capture['write']>[0], input: Parameters<Capture['write']>[1]) => this.#capture!.write(call, input) } : {}),
      onDropped: this.#dropped,
      onSkipped: (method) => metrics.count(method, 'skipped'),
    });
  }

  /** Comparisons dropped, by the tap or by the worker's queue: counted and in the metrics. */
  readonly #dropped = (method: string, times = 1): void => {
    add(this.#store.counters, method, KEY.dropped, times);
    this.#metrics.count(method, 'dropped', times);
  };

  /** Whether a request's Authorization bears the samples reader's secret. */
  maySeeSamples(authorization: string | undefined): boolean {
    if (!this.#samplesKey || !authorization) return false;
    const bearer = /^Bearer (.+)$/i.exec(authorization.trim())?.[1];
    return bearer !== undefined && timingSafeEqual(digest(bearer), this.#samplesKey);
  }

  /** The report; kept samples (callers' requests and answers) only when `withSamples`. */
  async report(withSamples = false): Promise<ReportDocument> {
    const counters = await this.#store.read();
    return {
      ...report(counters, { targetRate: this.#settings.compareTargetRate, samples: withSamples ? this.#samples.all : undefined, expectations: this.#expectations }),
      candidate: this.#candidateUrl,
      run: this.#settings.compareRun,
      sample: this.#settings.compareSample,
      targetRate: this.#settings.compareTargetRate,
      generatedAt: new Date().toISOString(),
    };
  }

  /** Resolves once every comparison under way has ended and counted here (tests, shutdown). */
  async drained(): Promise<void> {
    this.#tap?.considerSettled();
    await this.comparisons?.drained();
  }

  async close(): Promise<void> {
    this.#tap?.considerSettled();
    await this.comparisons?.close();
    await this.#capture?.close();
    await this.#store.close();
  }
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

/** The samples reader's secret, as its digest; a secret too short to resist guessing is refused. */
function samplesKey(path: string): Buffer {
  const secret = readFileSync(path, 'utf8').trim();
  if (secret.length < 16) throw new Error(`--compare-samples-token-file ${path}: the secret must be 16 characters or more`);
  return digest(secret);
}
