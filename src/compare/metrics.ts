/** The comparison's figures for Prometheus: one counter by method and result (a class, equal, transient, skipped, errors, dropped). */
import { Counter, type Registry } from 'prom-client';

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
