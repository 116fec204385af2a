/**
 * The comparisons waiting to run, off the caller's path: a few at a time, at
 * most `capacity` waiting; one that finds the queue full is dropped (and the
 * caller told, to count it), never waited for. Each job gets a deadline of
 * `timeoutMs` to 1.1 times it: the jobs started within the same tenth of
 * `timeoutMs` share one signal, so a busy queue sets one timer a tenth, not
 * one a job.
 */
export type Job = (signal: AbortSignal) => Promise<void>;

export interface QueueOptions {
  capacity: number;
  concurrency: number;
  timeoutMs: number;
}

export class ComparisonQueue {
  readonly #options: QueueOptions;
  readonly #waiting: Job[] = [];
  #running = 0;
  #idle: (() => void)[] = [];
  /** The signal jobs started now get, and until when (ms, performance.now()) it is handed out. */
  #deadline: { signal: AbortSignal; until: number } | undefined;

  constructor(options: QueueOptions) {
    this.#options = options;
  }

  /** False when the queue is full and the job was dropped. */
  offer(job: Job): boolean {
    if (this.#waiting.length >= this.#options.capacity) return false;
    this.#waiting.push(job);
    this.#next();
    return true;
  }

  get pending(): number {
    return this.#waiting.length + this.#running;
  }

  /** Resolves once nothing is queued or running (tests, shutdown, a replay's end). */
  drained(): Promise<void> {
    if (this.pending === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idle.push(resolve));
  }

  #signal(): AbortSignal {
    const now = performance.now();
    if (!this.#deadline || now >= this.#deadline.until) {
      const slice = this.#options.timeoutMs / 10;
      this.#deadline = { signal: AbortSignal.timeout(this.#options.timeoutMs + slice), until: now + slice };
    }
    return this.#deadline.signal;
  }

  #next(): void {
    while (this.#running < this.#options.concurrency && this.#waiting.length > 0) {
      const job = this.#waiting.shift()!;
      this.#running++;
      // A job's own failure is its business (it counts it); the queue only keeps going.
      job(this.#signal()).then(this.#ended, this.#ended);
    }
  }

  /** One handler for a job's end however it ends: no promise of its own, as catch and finally each make. */
  readonly #ended = (): void => {
    this.#running--;
    this.#next();
    if (this.pending === 0) for (const resolve of this.#idle.splice(0)) resolve();
  };
}
