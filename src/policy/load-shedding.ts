/**
 * Load shedding: while the process is overloaded — its event loop lagging or
 * its memory past a limit — new API calls are refused at once with
 * UNAVAILABLE and a RetryInfo (and `Retry-After` on REST), so a client backs
 * off or moves to another replica instead of queueing behind a process that
 * cannot answer in time. Health, readiness and metrics are never shed: an
 * orchestrator must still see the process, and a probe that failed for load
 * would restart the one replica that is busiest.
 *
 * Written here rather than with @fastify/under-pressure because the gate must
 * sit in front of both transports: gRPC calls are answered by ConnectRPC
 * before Fastify sees them. The measures are Node's own: the mean event-loop
 * delay over the last interval (perf_hooks) and the resident set size.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { unavailable, type ApiError } from '../aip/errors.ts';

export interface SheddingLimits {
  /** Mean event-loop delay over an interval past which calls are shed, in ms; 0: never. */
  maxEventLoopDelayMs: number;
  /** Resident set size past which calls are shed, in bytes; 0: never. */
  maxRssBytes: number;
  /** What RetryInfo and Retry-After advise, in seconds. */
  retryAfterSeconds?: number;
  /** How often the measures are taken, in ms. */
  intervalMs?: number;
}

const RESOLUTION_MS = 10;

type IntervalHistogram = ReturnType<typeof monitorEventLoopDelay>;

export class LoadShedder {
  readonly #limits: SheddingLimits;
  readonly #histogram: IntervalHistogram | undefined;
  readonly #timer: NodeJS.Timeout | undefined;
  /** Why calls are shed now; undefined while they are not. */
  #overload: string | undefined;

  constructor(limits: SheddingLimits) {
    this.#limits = limits;
    if (!limits.maxEventLoopDelayMs && !limits.maxRssBytes) return;
    if (limits.maxEventLoopDelayMs) {
      this.#histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
      this.#histogram.enable();
    }
    this.#measure();
    this.#timer = setInterval(() => this.#measure(), limits.intervalMs ?? 1000);
    this.#timer.unref();
  }

  /** Why the process is overloaded, or undefined. */
  get overload(): string | undefined {
    return this.#overload;
  }

  /** The refusal for a call arriving now, or undefined when it may go on. */
  refusal(): ApiError | undefined {
    if (!this.#overload) return undefined;
    return unavailable(`the gateway is overloaded (${this.#overload}); retry later, or on another replica`, this.#limits.retryAfterSeconds ?? 1);
  }

  close(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#histogram?.disable();
  }

  #measure(): void {
    const { maxEventLoopDelayMs, maxRssBytes } = this.#limits;
    let overload: string | undefined;
    if (this.#histogram && maxEventLoopDelayMs) {
      // The histogram counts the timer's own resolution as delay; an empty one (no sample yet) reads NaN.
      const delayMs = Math.max(0, this.#histogram.mean / 1e6 - RESOLUTION_MS) || 0;
      this.#histogram.reset();
      if (delayMs > maxEventLoopDelayMs) overload = `event-loop delay ${Math.round(delayMs)} ms, limit ${maxEventLoopDelayMs} ms`;
    }
    if (!overload && maxRssBytes) {
      const rss = process.memoryUsage.rss();
      if (rss > maxRssBytes) overload = `resident memory ${Math.round(rss / 1048576)} MiB, limit ${Math.round(maxRssBytes / 1048576)} MiB`;
    }
    this.#overload = overload;
  }
}
