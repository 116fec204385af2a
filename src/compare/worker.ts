/**
 * The comparison's worker thread (`node:worker_threads`), started by
 * off-thread.ts: the candidate asked over its own connections, the answers
 * diffed, a differing answer read again after the back-off, and the sample
 * redacted, all off the gateway's event loop. It takes jobs in batches,
 * runs them through the same bounded queue and the same comparer as a replay
 * (queue.ts, comparer.ts), and sends the findings back in batches: the
 * counters, samples and metrics stay the main thread's. Asking the primary
 * again goes through the main thread, which holds its runner.
 *
 * Imports only what a comparison needs: no Fastify, no store, no logger.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { openCandidate } from './open-candidate.ts';
import { findDifferences, type Finding } from './comparer.ts';
import type { Outcome } from './outcome.ts';
import { ComparisonQueue } from './queue.ts';
import { methodByName } from './request-of.ts';
import type { FromWorker, JobMessage, ResultMessage, ToWorker, WorkerSettings } from './worker-messages.ts';

if (!parentPort) throw new Error('src/compare/worker.ts runs as a worker thread (off-thread.ts starts it)');
const port = parentPort;
const settings = workerData as WorkerSettings;
const candidate = openCandidate(settings.url, settings.protocol);
// A client that cannot be made fails each job that awaits it (counted as not answered), not the thread.
candidate.catch(() => {});
const queue = new ComparisonQueue({ capacity: settings.capacity, concurrency: settings.concurrency, timeoutMs: settings.timeoutMs });
const findOptions = { noise: settings.noise, retryMs: settings.retryMs, keepSample: settings.keepSamples };
const UNANSWERED: Finding = { result: 'errors', differences: [] };

/** The primary's answers awaited, by ask. */
const asks = new Map<number, (outcome: Outcome) => void>();
let nextAsk = 1;
let waiting: ResultMessage[] = [];
let timer: NodeJS.Timeout | undefined;

const send = (message: FromWorker): void => port.postMessage(message);

function flush(): void {
  if (timer) clearTimeout(timer);
  timer = undefined;
  if (waiting.length === 0) return;
  send({ kind: 'results', results: waiting });
  waiting = [];
}

/** A result waits for others (each message wakes the main thread's loop) a batch's time at most. */
function done(result: ResultMessage): void {
  waiting.push(result);
  if (waiting.length >= settings.batchSize) flush();
  else timer ??= setTimeout(flush, settings.batchMs);
}

function askPrimary(id: number): Promise<Outcome> {
  const ask = nextAsk++;
  send({ kind: 'ask', ask, id });
  return new Promise((resolve) => asks.set(ask, resolve));
}

function start(job: JobMessage): void {
  const method = methodByName(job.method);
  const accepted = method !== undefined && queue.offer(async (signal) => {
    let finding: Finding;
    try {
      const target = await candidate;
      finding = await findDifferences({
        method,
        name: job.method,
        request: job.request,
        primary: job.primary,
        askPrimary: () => askPrimary(job.id),
        askCandidate: (s) => target.ask(method, job.request, job.authorization, s),
        readOnly: job.readOnly,
        protocol: job.protocol,
      }, findOptions, signal);
    } catch {
      // Whatever failed (the candidate's client could not be made), the job ends, counted as not answered.
      finding = UNANSWERED;
    }
    done({ id: job.id, finding });
  });
  if (!accepted) done({ id: job.id, dropped: true });
}

// Told once loaded: the gateway says it is ready only when its comparisons can start.
void candidate.finally(() => send({ kind: 'ready' })).catch(() => {});

port.on('message', (message: ToWorker) => {
  switch (message.kind) {
    case 'jobs':
      for (const job of message.jobs) start(job);
      break;
    case 'answer':
      asks.get(message.ask)?.(message.outcome);
      asks.delete(message.ask);
      break;
    case 'drain':
      void queue.drained().then(flush);
      break;
  }
});
