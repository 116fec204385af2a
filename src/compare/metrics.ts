/**
 * The comparison's figures for Prometheus: one counter by method and result (a class, equal, transient,
 * skipped, errors, dropped), and, when comparing, whether its worker thread runs and how often it was started
 * again after a stop (off-thread.ts).
 */
import { Counter, Gauge, type Registry } from 'prom-client';
import type { WorkerHealth, WorkerPhase } from './off-thread.ts';

export class CompareMetrics {
  readonly #results: Counter<'method' | 'result'>;

  constructor(registry: Registry) {
    this.#results = new Counter({
      name: 'v2gw_compare_total',
      help: 'Side-by-side comparisons by method and result: equal, transient, access, dataLoss, value, cosmetic, errors (the target did not answer), skipped (a write not sent), dropped (the queue was full).',
      labelNames: ['method', 'result'],
      registers: [registry],
    });
  }

  count(method: string, result: string, times = 1): void {
    this.#results.inc({ method, result }, times);
  }
}

export class CompareWorkerMetrics implements WorkerHealth {
  readonly #up: Gauge;
  readonly #restarts: Counter<'after'>;

  constructor(registry: Registry) {
    this.#up = new Gauge({
      name: 'v2gw_compare_worker_up',
      help: 'Whether the comparison\'s worker thread is loaded and taking comparisons (1) or not (0: starting, or stopped and waiting to start again).',
      registers: [registry],
    });
    this.#restarts = new Counter({
      name: 'v2gw_compare_worker_restarts_total',
      help: 'Times the comparison\'s worker thread was started again after it stopped, by where the one before stopped: starting (before it loaded) or running.',
      labelNames: ['after'],
      registers: [registry],
    });
    // Both series from the start, so a rate over them is defined before the first restart.
    for (const after of ['starting', 'running'] satisfies WorkerPhase[]) this.#restarts.inc({ after }, 0);
  }

  up(loaded: boolean): void {
    this.#up.set(loaded ? 1 : 0);
  }

  restarted(after: WorkerPhase): void {
    this.#restarts.inc({ after });
  }
}
