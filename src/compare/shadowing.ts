/**
 * Live comparison as the gateway runs it, built from the configuration: the
 * candidate client, the queue, the counters (in the gateway's store when
 * comparing, store/compare-counters.ts), the metrics, the capture, and the tap
 * that wraps the runner. server.ts builds it only when `--compare-with` or `--capture` is set.
 */
import type { Registry } from 'prom-client';
import type { Binding } from '../contract/bindings.ts';
import type { Candidate, CandidateProtocol } from './candidate.ts';
import { openCandidate as makeCandidate } from './open-candidate.ts';
import { Capture } from './capture.ts';
import { CompareMetrics } from './metrics.ts';
import { ComparisonQueue } from './queue.ts';
import { memoryStore, sharedStore, type CounterStore } from './report-store.ts';
import type { ComparisonCounterStore } from '../store/types.ts';
import { Samples } from './samples.ts';
import type { Interceptor, Runner } from '../port/runner.ts';
import { ComparingRunner } from './tap.ts';
import { report, type Report } from './tally.ts';
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

export class Shadowing {
  readonly queue: ComparisonQueue;
  readonly #settings: ShadowingSettings;
  readonly #candidate: Candidate | undefined;
  readonly #store: CounterStore;
  readonly #samples: Samples;
  readonly #metrics: CompareMetrics;
  readonly #capture: Capture | undefined;
  /** The digest of the samples reader's secret; undefined: samples are neither kept nor shown. */
  readonly #samplesKey: Buffer | undefined;
  readonly #teamExpected: readonly ExpectedDifference[];
  #expectations = new Expectations([]);

  private constructor(settings: ShadowingSettings, candidate: Candidate | undefined, store: CounterStore, registry: Registry) {
    this.#settings = settings;
    this.#candidate = candidate;
    this.#store = store;
    this.#samplesKey = settings.compareSamplesTokenFile ? samplesKey(settings.compareSamplesTokenFile) : undefined;
    this.#teamExpected = settings.compareExpect ? readExpectations(settings.compareExpect) : [];
    this.#samples = new Samples(this.#samplesKey ? settings.compareSamples : 0);
    this.#metrics = new CompareMetrics(registry);
    this.#capture = settings.capture ? new Capture(settings.capture) : undefined;
    this.queue = new ComparisonQueue({ capacity: settings.compareQueue, concurrency: settings.compareConcurrency, timeoutMs: settings.compareTimeoutMs });
  }

  /** `counts`: the gateway's store, where comparisons count (replicas sharing it add up). */
  static async start(settings: ShadowingSettings, registry: Registry, counts: ComparisonCounterStore): Promise<Shadowing> {
    const candidate = settings.compareWith ? await makeCandidate(settings.compareWith, settings.compareProtocol) : undefined;
    const store = candidate ? sharedStore(counts, settings.compareRun ?? '') : memoryStore();
    return new Shadowing(settings, candidate, store, registry);
  }

  get comparing(): boolean {
    return this.#candidate !== undefined;
  }

  /** The comparison tap as a step of the request's chain (port/runner.ts). */
  tap(bindings: readonly Binding[], budgetMs: number): Interceptor {
    return (runner) => this.#tapped(runner, bindings, budgetMs);
  }

  #tapped(runner: Runner, bindings: readonly Binding[], budgetMs: number): Runner {
    const s = this.#settings;
    const metrics = this.#metrics;
    this.#expectations = new Expectations([...this.#teamExpected, ...declaredExpectations(bindings)]);
    return new ComparingRunner(runner, {
      bindings,
      candidate: this.#candidate,
      queue: this.queue,
      sample: s.compareSample,
      unsafe: s.compareUnsafe,
      budgetMs,
      comparer: {
        counters: this.#store.counters,
        samples: this.#samples,
        noise: s.compareNoise,
        retryMs: s.compareRetryMs,
        onResult: (method, result) => metrics.count(method, result),
      },
      ...(this.#capture ? { onCall: (call: Parameters<Capture['write']>[0], input: Parameters<Capture['write']>[1]) => this.#capture!.write(call, input) } : {}),
      onDropped: (method) => metrics.count(method, 'dropped'),
      onSkipped: (method) => metrics.count(method, 'skipped'),
    });
  }

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
      candidate: this.#candidate?.url,
      run: this.#settings.compareRun,
      sample: this.#settings.compareSample,
      targetRate: this.#settings.compareTargetRate,
      generatedAt: new Date().toISOString(),
    };
  }

  async close(): Promise<void> {
    await this.queue.drained();
    await this.#candidate?.close();
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
