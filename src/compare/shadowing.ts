/**
 * Live comparison as the gateway runs it, built from the configuration: the
 * candidate client, the queue, the counters (in memory, or in the shared
 * PostgreSQL store), the metrics, the capture, and the tap that wraps the
 * runner. server.ts builds it only when `--compare-with` or `--capture` is set.
 */
import type { Registry } from 'prom-client';
import type { Binding } from '../contract/bindings.ts';
import type { Candidate, CandidateProtocol } from './candidate.ts';
import { openCandidate as makeCandidate } from './open-candidate.ts';
import { Capture } from './capture.ts';
import { CompareMetrics } from './metrics.ts';
import { ComparisonQueue } from './queue.ts';
import { memoryStore, postgresStore, type CounterStore } from './report-store.ts';
import { Samples } from './samples.ts';
import type { Interceptor, Runner } from '../port/runner.ts';
import { ComparingRunner } from './tap.ts';
import { report, type Report } from './tally.ts';

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
  /** The shared store's URL when it is PostgreSQL: the counters go there. */
  store?: string | undefined;
}

export interface ReportDocument extends Report {
  candidate: string | undefined;
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

  private constructor(settings: ShadowingSettings, candidate: Candidate | undefined, store: CounterStore, registry: Registry) {
    this.#settings = settings;
    this.#candidate = candidate;
    this.#store = store;
    this.#samples = new Samples(settings.compareSamples);
    this.#metrics = new CompareMetrics(registry);
    this.#capture = settings.capture ? new Capture(settings.capture) : undefined;
    this.queue = new ComparisonQueue({ capacity: settings.compareQueue, concurrency: settings.compareConcurrency, timeoutMs: settings.compareTimeoutMs });
  }

  static async start(settings: ShadowingSettings, registry: Registry): Promise<Shadowing> {
    const candidate = settings.compareWith ? await makeCandidate(settings.compareWith, settings.compareProtocol) : undefined;
    const shared = settings.compareWith && settings.store && /^postgres(ql)?:/.test(settings.store);
    const store = shared ? await postgresStore(settings.store!) : memoryStore();
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
      ...(this.#capture ? { onCall: (call: Parameters<Capture['write']>[0]) => this.#capture!.write(call) } : {}),
      onDropped: (method) => metrics.count(method, 'dropped'),
      onSkipped: (method) => metrics.count(method, 'skipped'),
    });
  }

  async report(): Promise<ReportDocument> {
    const counters = await this.#store.read();
    return {
      ...report(counters, { targetRate: this.#settings.compareTargetRate, samples: this.#samples.all }),
      candidate: this.#candidate?.url,
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
