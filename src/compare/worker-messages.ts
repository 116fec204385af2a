/**
 * What the gateway's main thread and the comparison's worker thread (worker.ts,
 * off-thread.ts) say to each other. Each crosses by structured clone: plain
 * data only. A job carries the caller's Authorization for the candidate; no
 * message the worker sends back carries it.
 */
import type { Json } from '../vocabulary/json.ts';
import type { CandidateProtocol } from './candidate.ts';
import type { Finding } from './comparer.ts';
import type { Outcome } from './outcome.ts';

/** How the worker compares, fixed when it starts (its `workerData`). */
export interface WorkerSettings {
  /** The candidate's URL (it may hold a user and password: never logged). */
  readonly url: string;
  readonly protocol: CandidateProtocol;
  readonly capacity: number;
  readonly concurrency: number;
  readonly timeoutMs: number;
  readonly noise: boolean;
  readonly retryMs: number;
  readonly keepSamples: boolean;
  /** The longest a finished comparison's result waits to be sent with others, in ms. */
  readonly batchMs: number;
  /** Results sent at once when this many are waiting (at most half of `capacity` and `concurrency` together), without waiting out `batchMs`. */
  readonly batchSize: number;
}

/** One comparison to make: the call as the primary saw it (it crosses in a JobBatch). */
export interface JobMessage {
  readonly id: number;
  /** The method's name, `package.Service/Method` (request-of.ts). */
  readonly method: string;
  readonly request: Json;
  /**
   * The primary's outcome; an answer as the JSON text the caller got, where the tap has it (a string
   * crosses as one copy, where a document is cloned field by field), read by the worker only when needed.
   */
  readonly primary: Outcome | { readonly kind: 'text'; readonly text: string };
  readonly authorization: string;
  readonly readOnly: boolean;
  readonly protocol: string;
}

/**
 * One comparison's end, sent apart: what it found, which the counters read whole (a difference, noise, a
 * sample), or, with `--compare-noise`, any end (the main thread lets go of the job's way to ask by its id).
 */
export interface ResultMessage {
  readonly id: number;
  /** The method's name, as the job had it. */
  readonly method: string;
  /** Undefined: the worker's queue had no room for it. */
  readonly finding: Finding | undefined;
}

/**
 * Comparisons of one method that ended alike, sent as one finding and a count, not one object each: equal,
 * not answered, dropped by the worker's queue (finding undefined), or differing in the same fields the same
 * way with nothing else to tell (no sample, no noise, not transient), as a difference that persists does.
 */
export interface Tally {
  readonly method: string;
  /** Undefined: the worker's queue had no room for them. */
  readonly finding: Finding | undefined;
  readonly times: number;
}

/**
 * The jobs of one hand-over as one flat array, JOB_SLOTS values a job in `pushJob`'s order, a primary
 * answer known as text as that string: a structured clone writes each object's keys and builds each
 * object again on the other side, where an array of plain values is copied value by value.
 */
export type JobBatch = unknown[];

const JOB_SLOTS = 7;

/** Adds a job (a JobMessage's fields; `primary` a string: the answer's text) to `batch`; how many it now holds. */
export function pushJob(batch: JobBatch, id: number, method: string, request: Json, primary: Outcome | string, authorization: string, readOnly: boolean, protocol: string): number {
  return batch.push(id, method, request, primary, authorization, readOnly, protocol) / JOB_SLOTS;
}

/** The jobs `batch` holds, one by one. */
export function readJobs(batch: JobBatch, each: (job: JobMessage) => void): void {
  for (let i = 0; i + JOB_SLOTS <= batch.length; i += JOB_SLOTS) {
    const primary = batch[i + 3] as Outcome | string;
    each({
      id: batch[i] as number,
      method: batch[i + 1] as string,
      request: batch[i + 2] as Json,
      primary: typeof primary === 'string' ? { kind: 'text', text: primary } : primary,
      authorization: batch[i + 4] as string,
      readOnly: batch[i + 5] as boolean,
      protocol: batch[i + 6] as string,
    });
  }
}

/** Each job of `batch` as a batch of its own, with its id and method (a batch that would not clone, sent job by job). */
export function eachJob(batch: JobBatch): Array<{ id: number; method: string; alone: JobBatch }> {
  const jobs = [];
  for (let i = 0; i + JOB_SLOTS <= batch.length; i += JOB_SLOTS) jobs.push({ id: batch[i] as number, method: batch[i + 1] as string, alone: batch.slice(i, i + JOB_SLOTS) });
  return jobs;
}

export type ToWorker =
  /** The comparisons the main thread chose within one hand-over (tap.ts, HANDOVER_MS): the batch alone, no object around it. */
  | JobBatch
  /** The primary's answer when asked again (`ask`), for the comparison that asked. */
  | { readonly kind: 'answer'; readonly ask: number; readonly outcome: Outcome }
  /** Send every result as soon as the comparisons under way end (a drain is awaited). */
  | { readonly kind: 'drain' };

export type FromWorker =
  /** Loaded, its candidate's client made: comparisons start at once. */
  | { readonly kind: 'ready' }
  | { readonly kind: 'results'; readonly results: readonly ResultMessage[]; readonly tallies: readonly Tally[] }
  /** Ask the primary again for job `id` (noise, a re-read): only the main thread holds its runner. */
  | { readonly kind: 'ask'; readonly ask: number; readonly id: number };
