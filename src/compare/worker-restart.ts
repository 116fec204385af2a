/**
 * When the comparison's worker thread starts again after it stopped
 * (off-thread.ts): after a wait that doubles with each stop in a row, from
 * `firstMs` up to `maxMs`, and starts over from `firstMs` once a worker has
 * run `healthyMs` after it loaded (it was not crash-looping).
 *
 * It never gives up: at the cap it tries once a `maxMs`. A worker that keeps
 * failing costs one thread start and one log line a minute, while a cause that
 * passes (memory pressure, a file descriptor limit, a bad moment at start)
 * would, were it given up on, leave the comparison dead until someone restarts
 * the gateway, which is what an operator watching the verdict cannot see
 * coming. The restarts metric and the log say it keeps failing.
 */
export interface RestartPolicy {
  /** The first wait after a stop, in ms. */
  readonly firstMs: number;
  /** The longest wait, in ms: the waits double up to it and stay there. */
  readonly maxMs: number;
  /** A worker that ran this long after loading was healthy: the next stop waits `firstMs` again. */
  readonly healthyMs: number;
}

export const RESTART: RestartPolicy = { firstMs: 1000, maxMs: 60_000, healthyMs: 60_000 };

export class RestartBackoff {
  readonly #policy: RestartPolicy;
  /** Stops in a row since the last healthy run, as far as they still double the wait. */
  #stops = 0;

  constructor(policy: RestartPolicy = RESTART) {
    this.#policy = policy;
  }

  /** The wait before the next start, after a stop; `ranMs`: how long the worker ran after loading (undefined: it never loaded). */
  next(ranMs: number | undefined): number {
    const { firstMs, maxMs, healthyMs } = this.#policy;
    if (ranMs !== undefined && ranMs >= healthyMs) this.#stops = 0;
    const wait = Math.min(maxMs, firstMs * 2 ** this.#stops);
    if (wait < maxMs) this.#stops++;
    return wait;
  }
}
