/**
 * The main thread's side of the least comparison on a worker (bench/least-comparison-worker.ts): the least
 * hand-over a Node process can make. Each answer's JSON text (already made for the response) and the
 * caller's Authorization go onto one flat array of strings, which leaves in one postMessage per window:
 * each message wakes the worker's event loop (on both threads, more than a job's strings cost), so jobs
 * wait for others a short while (`windowMs`, as the gateway's hand-over does), which gathers more than an
 * event-loop turn holds (0: until the end of this turn, setImmediate). Nothing comes back:
 * the worker counts in a SharedArrayBuffer read here only when asked.
 */
import { Worker } from 'node:worker_threads';
import { FLOOR_COMPARISON_THREAD } from './floor-comparison-thread.ts';
import { COUNT_BYTES, countSlots, countsOf, type ComparisonCounts } from './least-comparison.ts';

export interface OnWorker {
  /** Hands one comparison over: the answer's JSON text, and the caller's Authorization. */
  offer(text: string, authorization: string | undefined): void;
  counts(): ComparisonCounts;
}

export interface OnWorkerOptions {
  /** The worker's entry (bench/least-comparison-worker.ts, or its build). */
  readonly entry: URL;
  readonly url: string;
  readonly path: string;
  readonly windowMs: number;
}

export function compareOnWorker({ entry, url, path, windowMs }: OnWorkerOptions): OnWorker {
  const shared = new SharedArrayBuffer(COUNT_BYTES);
  const slots = countSlots(shared);
  // No 'error' listener: a worker that fails takes the floor down, so a run cannot read a floor that compares nothing.
  const worker = new Worker(entry, { name: FLOOR_COMPARISON_THREAD, workerData: { url, path, counts: shared } });
  // The server keeps the process up while it serves; the worker must not once it has stopped.
  worker.unref();
  let outgoing: string[] = [];
  const flush = (): void => {
    const batch = outgoing;
    outgoing = [];
    worker.postMessage(batch);
  };
  return {
    offer(text, authorization) {
      if (outgoing.push(text, authorization ?? '') > 2) return;
      if (windowMs === 0) setImmediate(flush);
      else setTimeout(flush, windowMs);
    },
    counts: () => countsOf(slots),
  };
}
