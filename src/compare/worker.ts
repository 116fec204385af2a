/**
 * The comparison's worker thread (`node:worker_threads`), started by
 * off-thread.ts: the candidate asked over its own connections, the answers
 * diffed, a differing answer read again after the back-off, and the sample
 * redacted, all off the gateway's event loop; a job never to be sent (the
 * primary refused it as malformed, or its path climbs) is counted as refused.
 * It takes jobs in batches, runs them through the same bounded queue and the
 * same comparer as a replay
 * (queue.ts, comparer.ts), and sends the findings back in batches (the
 * ones that ended alike as one finding and a count): the counters, samples and
 * metrics stay the main thread's. A primary's answer that came as text is
 * parsed only when the candidate's answer is not those very bytes. Asking the
 * primary again goes through the main thread, which holds its runner.
 *
 * Imports only what a comparison needs: no Fastify, no store, no logger.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { climbsPath } from './candidate-rest.ts';
import { openCandidate } from './open-candidate.ts';
import type { DescMethod } from '@bufbuild/protobuf';
import type { Candidate } from './candidate.ts';
import { findDifferences, type ComparisonInput, type Finding } from './comparer.ts';
import type { Json } from '../vocabulary/json.ts';
import { refusedAsMalformed, type Outcome } from './outcome.ts';
import { ComparisonQueue } from './queue.ts';
import { methodByName } from './request-of.ts';
import { readJobs, type FromWorker, type JobMessage, type ResultMessage, type ToWorker, type WorkerSettings } from './worker-messages.ts';

if (!parentPort) throw new Error('src/compare/worker.ts runs as a worker thread (off-thread.ts starts it)');
const port = parentPort;
const settings = workerData as WorkerSettings;
const candidate = openCandidate(settings.url, settings.protocol);
// A client that cannot be made fails each job that awaits it (counted as not answered), not the thread.
candidate.catch(() => {});
const queue = new ComparisonQueue({ capacity: settings.capacity, concurrency: settings.concurrency, timeoutMs: settings.timeoutMs });
const findOptions = { noise: settings.noise, retryMs: settings.retryMs, keepSample: settings.keepSamples };
/**
 * Results sent at once when this many wait: the batch's size, but never more than half of what the main
 * thread hands over at most (a result not yet sent still holds its job's place there, and a small queue
 * must not drop offers while its ended comparisons wait out the batch's time).
 */
const batchSize = Math.max(1, Math.min(settings.batchSize, Math.floor((settings.capacity + settings.concurrency) / 2)));
const UNANSWERED: Finding = { result: 'errors', differences: [] };
const REFUSED: Finding = { result: 'refused', differences: [] };

/** The primary's answers awaited, by ask. */
const asks = new Map<number, (outcome: Outcome) => void>();
let nextAsk = 1;
/** Ended comparisons not yet sent: those with something of their own to tell, and the rest counted by how they ended. */
let waiting: ResultMessage[] = [];
let tallies = new Map<string, Map<string, { method: string; finding: Finding | undefined; times: number }>>();
let ended = 0;
/** The batch's timer: one, re-armed by the first comparison of each batch; left armed when a batch leaves before it, it then finds none. */
let timer: NodeJS.Timeout | undefined;

const send = (message: FromWorker): void => port.postMessage(message);

function flush(): void {
  if (ended === 0) return;
  send({ kind: 'results', results: waiting, tallies: [...tallies.values()].flatMap((byEnd) => [...byEnd.values()]) });
  waiting = [];
  tallies = new Map();
  ended = 0;
}

/**
 * A comparison ended (finding undefined: the queue had no room for it). One that ended as others of its
 * method did, with nothing else to tell, is counted with them (one finding, a count); the rest are sent
 * whole, by id. Either waits for others (each message wakes the main thread's loop) a batch's time at most.
 */
function done(method: string, id: number, finding: Finding | undefined): void {
  // With --compare-noise the main thread holds each job's way to ask the primary until its end comes by id.
  const end = settings.noise ? undefined : finding === undefined ? 'dropped' : endOf(finding);
  if (end !== undefined) {
    let byEnd = tallies.get(method);
    if (!byEnd) tallies.set(method, (byEnd = new Map()));
    const alike = byEnd.get(end);
    if (alike) alike.times++;
    else byEnd.set(end, { method, finding, times: 1 });
  } else waiting.push({ id, method, finding });
  if (++ended >= batchSize) flush();
  else if (ended === 1) timer = timer?.refresh() ?? setTimeout(flush, settings.batchMs);
}

/**
 * What a finding counts as where the counters read it (comparer.ts's recordFinding): its result and each
 * difference's path, class and odd target; undefined when it carries more than a count can (a sample, noise,
 * a transient's time), so it is sent whole.
 */
function endOf(finding: Finding): string | undefined {
  if (finding.noisePaths !== undefined || finding.sample !== undefined || finding.transientMs !== undefined) return undefined;
  let end: string = finding.result;
  for (const d of finding.differences) end += `\t${d.path}\t${d.class}\t${d.odd ?? ''}`;
  return end;
}

/**
 * A job as the comparer reads it. A primary answer that came as text is parsed only when read (a
 * candidate answering its very bytes never reads it); its bytes are what the candidate's answer is
 * held against. A class, so the getter and the asks are its prototype's, not made again for each job.
 */
class JobInput implements ComparisonInput {
  readonly method: DescMethod;
  readonly name: string;
  readonly request: Json;
  readonly primaryBytes: Uint8Array | undefined;
  readonly readOnly: boolean;
  readonly protocol: string;
  readonly #job: JobMessage;
  readonly #target: Candidate;
  #primary: Outcome | undefined;

  constructor(job: JobMessage, method: DescMethod, target: Candidate) {
    this.method = method;
    this.name = job.method;
    this.request = job.request;
    this.readOnly = job.readOnly;
    this.protocol = job.protocol;
    this.#job = job;
    this.#target = target;
    const given = job.primary;
    this.primaryBytes = given.kind === 'text' ? Buffer.from(given.text) : undefined;
    this.#primary = given.kind === 'text' ? undefined : given;
  }

  get primary(): Outcome {
    // Unset only when the answer came as text: the constructor keeps any other outcome as it is.
    this.#primary ??= { kind: 'answer', message: JSON.parse((this.#job.primary as { readonly text: string }).text) as Json };
    return this.#primary;
  }

  askPrimary(): Promise<Outcome> {
    return askPrimary(this.#job.id);
  }

  askCandidate(signal: AbortSignal, primaryBytes?: Uint8Array): Promise<Outcome> {
    return this.#target.ask(this.method, this.request, this.#job.authorization, signal, primaryBytes);
  }
}

function askPrimary(id: number): Promise<Outcome> {
  const ask = nextAsk++;
  send({ kind: 'ask', ask, id });
  return new Promise((resolve) => asks.set(ask, resolve));
}

function start(job: JobMessage): void {
  const method = methodByName(job.method);
  // Never sent, counted under `refused`: a request the primary refused as malformed, or whose path would
  // climb out of its route. Judged here, from what crosses anyway, not on the caller's thread.
  if (method !== undefined && ((job.primary.kind === 'error' && refusedAsMalformed(job.primary)) || climbsPath(method, job.request))) return done(job.method, job.id, REFUSED);
  const accepted = method !== undefined && queue.offer(async (signal) => {
    let finding: Finding;
    try {
      const target = await candidate;
      finding = await findDifferences(new JobInput(job, method, target), findOptions, signal);
    } catch {
      // Whatever failed (the candidate's client could not be made), the job ends, counted as not answered.
      finding = UNANSWERED;
    }
    done(job.method, job.id, finding);
  });
  if (!accepted) done(job.method, job.id, undefined);
}

// Told once loaded: the gateway says it is ready only when its comparisons can start.
void candidate.finally(() => send({ kind: 'ready' })).catch(() => {});

port.on('message', (message: ToWorker) => {
  if (Array.isArray(message)) return readJobs(message, start);
  switch (message.kind) {
    case 'answer':
      asks.get(message.ask)?.(message.outcome);
      asks.delete(message.ask);
      break;
    case 'drain':
      void queue.drained().then(flush);
      break;
  }
});
