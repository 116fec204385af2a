/**
 * The comparisons the tap chooses (tap.ts), made on a worker thread
 * (worker.ts): the main thread, the caller's, only hands each job over and
 * counts each finding when it comes back. Both ways go in batches, since each
 * message wakes the receiving thread's event loop: the jobs the tap offers in
 * one run leave in one message (HANDOVER_JOBS at most) when it hands them over,
 * and the tap offers the calls of its hand-over's time (tap.ts's
 * HANDOVER_MS) in one run; the worker sends its findings every `batchMs` or
 * once `batchSize` are waiting. Each way carries as little as it can: a REST
 * answer as the text the caller got (a string is one copy; a document is
 * walked into a clone here and built again there), and the comparisons that
 * ended alike (equal, unanswered, dropped, or differing the same way with
 * nothing more to tell) as one finding and a count.
 *
 * Bounded as the queue was on the main thread: at most `capacity` waiting and
 * `concurrency` running are handed over and not yet ended (counted, by
 * method); one more is dropped, never waited for. With `--compare-noise` (the
 * only time the primary is asked again, at first and at a re-read) a job
 * keeps its way to ask (the operation and the caller's context) in a map
 * until its finding arrives by id, so nothing is kept past its comparison.
 *
 * A worker that cannot start or that dies takes no call down: the
 * comparisons it had count as errors, those offered until another has started
 * as dropped (none wait for it), and another is started after a back-off
 * (worker-restart.ts). Each stop and each return is logged and told to the
 * metrics, and the comparisons a stop took are told apart (`stopTook`), so
 * the report shows them and the verdict counts against them.
 */
import { Worker } from 'node:worker_threads';
import type { Json } from '../vocabulary/json.ts';
import { WORKER_NAME } from './worker-name.ts';
import type { Finding } from './comparer.ts';
import type { Outcome } from './outcome.ts';
import { eachJob, pushJob, type FromWorker, type JobBatch, type ToWorker, type WorkerSettings } from './worker-messages.ts';
import { RestartBackoff, type RestartPolicy } from './worker-restart.ts';

/** A comparison the tap chose: the call as the primary saw it. */
export interface ShadowJob {
  /** `package.Service/Method` (request-of.ts). */
  readonly name: string;
  readonly request: Json;
  readonly primary: Outcome;
  /** The primary's answer as the JSON text the caller got (RequestContext.sentText, kept by the REST routes), where it is known: handed over instead of `primary`. */
  readonly primaryText?: string | undefined;
  readonly authorization: string;
  readonly readOnly: boolean;
  readonly protocol: string;
  /** Asks the primary again, as the caller did. */
  readonly askPrimary: () => Promise<Outcome>;
}

/**
 * Where the tap hands a comparison; false: dropped (too many under way), for the tap to count. The jobs
 * offered leave together when the tap says its run of offers is over (`handOver`).
 */
export interface Comparisons {
  offer(job: ShadowJob): boolean;
  handOver(): void;
}

export interface OffThreadOptions {
  readonly settings: WorkerSettings;
  /** A finding of `times` comparisons, counted (comparer.ts's recordFinding). */
  readonly record: (name: string, finding: Finding, times: number) => void;
  /** `times` comparisons the worker's queue had no room for. */
  readonly dropped: (name: string, times: number) => void;
  /**
   * Of the comparisons counted (`record`'s errors, the tap's dropped), `times` a stop of the worker took: under
   * way when it stopped (`errors`), or offered while none was running (`dropped`, what `offer`'s false says).
   */
  readonly stopTook?: (name: string, result: 'errors' | 'dropped', times: number) => void;
  /** Told when a worker has loaded (true) and when it stopped (false); `restarted` when another is started after a stop. */
  readonly health?: WorkerHealth;
  /** Each stop of the worker, and when it will start again: never a token or an answer. */
  readonly warn: (message: string) => void;
  /** A worker started again has loaded. */
  readonly info?: (message: string) => void;
  /** When a stopped worker starts again (worker-restart.ts's RESTART unless a test says). */
  readonly restart?: RestartPolicy;
  /** The worker's entry (a test's own, to see what a failing worker does). */
  readonly entry?: URL;
}

/** Where the worker's comings and goings are counted (compare/metrics.ts). */
export interface WorkerHealth {
  up(loaded: boolean): void;
  /** Another worker is started; `after`: whether the one before stopped while `starting` or `running`. */
  restarted(after: WorkerPhase): void;
}

/** Where a worker was when it stopped: not yet loaded, or loaded and taking comparisons. */
export type WorkerPhase = 'starting' | 'running';

/**
 * The worker's entry: worker.ts beside this file when run from the sources (`node src/cli.ts`,
 * vitest); in the bundle, dist/src/compare-worker.js, where every chunk sits (scripts/build.ts).
 */
const ENTRY = import.meta.url.endsWith('.ts') ? new URL('./worker.ts', import.meta.url) : new URL('./compare-worker.js', import.meta.url);

export { WORKER_NAME } from './worker-name.ts';

/**
 * Each message wakes the worker's event loop, which costs about what a comparison's own work does: the jobs
 * offered in one run of the tap leave together, once it ends (`handOver`), HANDOVER_JOBS at most a message.
 */
const HANDOVER_JOBS = 32;

const LOST: Finding = { result: 'errors', differences: [] };
const NOT_KEPT: Outcome = { kind: 'unanswered', why: 'the primary is asked again only with --compare-noise' };
const UNCLONED: Outcome = { kind: 'unanswered', why: 'the primary\'s answer could not be handed over' };

export class OffThreadComparisons implements Comparisons {
  readonly #options: OffThreadOptions;
  /** Jobs handed over at most: the queue's capacity and the comparisons running. */
  readonly #limit: number;
  /** Whether jobs may ask the primary again (`--compare-noise`), so their way to ask is kept. */
  readonly #asksAgain: boolean;
  /** The worker now (starting or loaded); undefined while none runs (stopped, its next start not yet due). */
  #worker: Worker | undefined;
  /** When the worker now loaded (performance.now()); undefined while it has not. */
  #loadedAt: number | undefined;
  readonly #backoff: RestartBackoff;
  /** The next start, due after a stop's back-off. */
  #restart: NodeJS.Timeout | undefined;
  /** Workers started again after a stop, since this began. */
  #restarts = 0;
  /** Jobs handed over (or about to be) whose finding has not come back. */
  #open = 0;
  /** The same jobs, by method: what a worker that stops had under way. */
  readonly #openByName = new Map<string, number>();
  /** With `--compare-noise`, each open job's way to ask the primary again, by id. */
  readonly #asks = new Map<number, () => Promise<Outcome>>();
  /** The jobs offered and not yet handed over, flat (worker-messages.ts's JobBatch). */
  #outgoing: JobBatch = [];
  #nextId = 1;
  #idle: (() => void)[] = [];
  /** Closing: a worker that stops is not started again. */
  #closing = false;
  /** The worker is being ended by close(). */
  #terminating = false;
  /** Settled once the first worker has loaded, or is gone. */
  readonly #ready: Promise<void>;
  #readied!: () => void;

  constructor(options: OffThreadOptions) {
    this.#options = options;
    this.#ready = new Promise((resolve) => (this.#readied = resolve));
    const { capacity, concurrency, noise } = options.settings;
    this.#limit = capacity + concurrency;
    this.#asksAgain = noise;
    this.#backoff = new RestartBackoff(options.restart);
    options.health?.up(false);
    this.#start();
  }

  #start(): void {
    const options = this.#options;
    try {
      const worker = new Worker(options.entry ?? ENTRY, { name: WORKER_NAME, workerData: options.settings });
      // A worker that stopped is no longer this one: whatever it still says (an exit after its error, a late
      // batch) must not count against the jobs of the next.
      worker.on('message', (message: FromWorker) => {
        if (this.#worker === worker) this.#received(message);
      });
      worker.on('error', (error) => {
        if (this.#worker === worker) this.#lost(error);
      });
      worker.on('exit', (code) => {
        if (this.#worker === worker) this.#lost(new WorkerExit(code));
      });
      // The gateway's servers keep the process up; the worker alone must not, once loaded (until then a
      // gateway's start awaits the first, ready(), with nothing else yet to keep the process up). One started
      // again never holds the process up.
      if (this.#restarts === 0) void this.#ready.then(() => worker.unref());
      else worker.unref();
      this.#worker = worker;
    } catch (error) {
      this.#lost(error);
    }
  }

  /**
   * Resolves once the first worker has loaded (its first comparisons then start at once), or is gone, or
   * after `waitMs`: a slow start delays the gateway's only so long, the jobs waiting for it meanwhile.
   */
  ready(waitMs = 10_000): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, waitMs)));
    return Promise.race([this.#ready, late]).finally(() => clearTimeout(timer));
  }

  offer(job: ShadowJob): boolean {
    if (!this.#worker) {
      // No worker until the next start: dropped, not kept for it (a wait of up to a minute holds no queue).
      if (!this.#closing) this.#options.stopTook?.(job.name, 'dropped', 1);
      return false;
    }
    if (this.#open >= this.#limit) return false;
    const id = this.#nextId++;
    this.#open++;
    this.#openByName.set(job.name, (this.#openByName.get(job.name) ?? 0) + 1);
    if (this.#asksAgain) this.#asks.set(id, job.askPrimary);
    if (pushJob(this.#outgoing, id, job.name, job.request, job.primaryText ?? job.primary, job.authorization, job.readOnly, job.protocol) >= HANDOVER_JOBS) this.#flush();
    return true;
  }

  /** The jobs offered since the last hand-over leave, in one message (the tap's run of offers is over). */
  handOver(): void {
    this.#flush();
  }

  /** Comparisons handed over and not yet counted. */
  get pending(): number {
    return this.#open;
  }

  /** Workers started again after a stop, so far. */
  get restarts(): number {
    return this.#restarts;
  }

  /** Resolves once every comparison handed over has ended and been counted here (tests, shutdown). */
  drained(): Promise<void> {
    if (this.#open === 0) return Promise.resolve();
    this.#flush();
    this.#send({ kind: 'drain' });
    return new Promise((resolve) => this.#idle.push(resolve));
  }

  /** Waits for the comparisons handed over, then ends the worker; one that stops meanwhile is not started again. */
  async close(): Promise<void> {
    this.#closing = true;
    await this.drained();
    clearTimeout(this.#restart);
    this.#restart = undefined;
    // Its exit is this close's doing: nothing to tell.
    this.#terminating = true;
    await this.#worker?.terminate();
  }

  /** The jobs waiting, handed over: the batch itself is the message (an array; every other message is an object). */
  #flush(): void {
    if (this.#outgoing.length === 0) return;
    const jobs = this.#outgoing;
    this.#outgoing = [];
    if (this.#send(jobs)) return;
    // Something in a job would not clone (requests and answers are JSON: it should not happen): it fails alone.
    for (const { id, method, alone } of eachJob(jobs)) if (!this.#send(alone)) this.#end(method, id, LOST);
    this.#settle();
  }

  /** False when the message could not be cloned; a worker gone meanwhile is #lost's to tell. */
  #send(message: ToWorker): boolean {
    try {
      this.#worker?.postMessage(message);
      return true;
    } catch {
      return false;
    }
  }

  #received(message: FromWorker): void {
    if (message.kind === 'ready') return this.#loaded();
    if (message.kind === 'ask') {
      const askPrimary = this.#asks.get(message.id);
      const answer = (outcome: Outcome) => this.#send({ kind: 'answer', ask: message.ask, outcome }) || this.#send({ kind: 'answer', ask: message.ask, outcome: UNCLONED });
      if (askPrimary) void askPrimary().then(answer);
      else answer(NOT_KEPT);
      return;
    }
    for (const { method, finding, times } of message.tallies) this.#ended(method, times, finding);
    for (const result of message.results) this.#end(result.method, result.id, result.finding);
    this.#settle();
  }

  #loaded(): void {
    this.#loadedAt = performance.now();
    this.#options.health?.up(true);
    if (this.#restarts > 0) this.#options.info?.(`comparison: its worker thread is running again (restart ${this.#restarts}); comparing again`);
    this.#readied();
  }

  /** A job ended: its finding counted (undefined: the worker's queue dropped it), its way to ask the primary let go. */
  #end(name: string, id: number, finding: Finding | undefined): void {
    if (this.#asksAgain) this.#asks.delete(id);
    this.#ended(name, 1, finding);
  }

  /**
   * `times` jobs of one method ended alike, counted (finding undefined: the worker's queue dropped them).
   * A tally's jobs hold no way to ask: with `--compare-noise` every job ends by id (worker.ts).
   */
  #ended(name: string, times: number, finding: Finding | undefined): void {
    const open = this.#openByName.get(name) ?? 0;
    // Never more than were handed over: a worker's counts are trusted no further.
    const counted = Math.min(times, open);
    if (counted === 0) return;
    this.#open -= counted;
    if (open === counted) this.#openByName.delete(name);
    else this.#openByName.set(name, open - counted);
    if (finding) this.#options.record(name, finding, counted);
    else this.#options.dropped(name, counted);
  }

  /**
   * The worker now is gone (an error is followed by its exit: only the first is heard): what it had counts as
   * errors, nothing is handed over until the next one starts, and that start is due after the back-off.
   */
  #lost(error: unknown): void {
    const options = this.#options;
    const loadedAt = this.#loadedAt;
    const phase: WorkerPhase = loadedAt === undefined ? 'starting' : 'running';
    this.#worker = undefined;
    this.#loadedAt = undefined;
    options.health?.up(false);
    let underWay = 0;
    for (const [name, open] of this.#openByName) {
      underWay += open;
      options.record(name, LOST, open);
      options.stopTook?.(name, 'errors', open);
    }
    this.#openByName.clear();
    this.#asks.clear();
    this.#open = 0;
    this.#outgoing = [];
    this.#settle();
    this.#readied();
    if (this.#closing) {
      if (!this.#terminating) options.warn(`comparison: its worker thread stopped while the gateway closes (${cause(error)}); ${underWay} comparison(s) under way count as errors`);
      return;
    }
    const waitMs = this.#backoff.next(loadedAt === undefined ? undefined : performance.now() - loadedAt);
    options.warn(`comparison: its worker thread stopped while ${phase} (${cause(error)}); ${underWay} comparison(s) under way count as errors, `
      + `and those offered until it runs again as dropped; starting it again in ${waitMs / 1000} s`);
    this.#restart = setTimeout(() => {
      this.#restart = undefined;
      this.#restarts++;
      options.health?.restarted(phase);
      this.#start();
    }, waitMs).unref();
  }

  #settle(): void {
    if (this.#open === 0) for (const resolve of this.#idle.splice(0)) resolve();
  }
}

/** A worker's exit, as its stop's cause. */
class WorkerExit extends Error {
  readonly exitCode: number;

  constructor(exitCode: number) {
    super(`it exited with code ${exitCode}`);
    this.exitCode = exitCode;
  }
}

/**
 * Why a worker stopped, as the log may show it: its exit code, or its error's name and code, never its
 * message (an error thrown on the worker may quote what it was reading: a caller's answer, a token).
 */
function cause(error: unknown): string {
  if (error instanceof WorkerExit) return `exited with code ${error.exitCode}`;
  if (!(error instanceof Error)) return typeof error;
  const code = 'code' in error && typeof error.code === 'string' ? ` ${error.code}` : '';
  return `${error.name}${code}`;
}
