/**
 * When a read to v1 is tried again, and the trying. Reads are safe to repeat,
 * so a stale keep-alive socket, a reset or a brief 502/503 should not reach
 * the client: up to two more tries, backing off 25 ms then 50 ms (at most
 * 200 ms), all within the call's one timeout.
 *
 * v1's `Retry-After` is respected: v1 asking for more time than a request may
 * idle (over 200 ms) is not retried sooner than it asked: its answer, and with
 * it the delay as RetryInfo, goes to the caller, whose retry is the one that
 * waits.
 *
 * A loop around the exchange, not undici's retry interceptor: that wraps every
 * call's handler in a RetryHandler (its state, its copy of the options, its
 * checks of every answer's headers) whether or not the call fails, ~1 KB and
 * a few % of a Get's instructions. Here a call that succeeds pays nothing.
 */
import { parseRetryAfter } from './errors.ts';
import type { CancelSignal } from '../cancellation.ts';

const RETRIED_STATUSES: readonly number[] = [502, 503];
/** Connection-level failures worth another try (undici's socket error included). */
const RETRIED_ERRORS: readonly string[] = [
  'ECONNRESET', 'ECONNREFUSED', 'ENOTFOUND', 'ENETDOWN', 'ENETUNREACH', 'EHOSTDOWN', 'EHOSTUNREACH', 'EPIPE', 'UND_ERR_SOCKET',
];
const MAX_RETRIES = 2;
const FIRST_WAIT_MS = 25;
/** The longest a read waits before trying again, v1's Retry-After included. */
export const MAX_RETRY_WAIT_MS = 200;

/** What a try ended with, as the policy reads it: v1's answer (its status and headers), or the error it threw. */
export interface AttemptFailure {
  readonly statusCode?: number;
  readonly code?: unknown;
  readonly headers?: Readonly<Record<string, string | string[] | undefined>>;
}

/** How long to wait before retry number `attempt` (from 1), or undefined for none: pure, so the rules are tested apart from sockets. */
export function retryDelayMs(failure: AttemptFailure, method: string, attempt: number): number | undefined {
  if (method !== 'GET' || attempt > MAX_RETRIES) return undefined;
  if (failure.statusCode !== undefined) {
    if (!RETRIED_STATUSES.includes(failure.statusCode)) return undefined;
    const asked = parseRetryAfter(failure.headers?.['retry-after']);
    if (asked !== undefined) return asked * 1000 > MAX_RETRY_WAIT_MS ? undefined : asked * 1000;
  } else if (typeof failure.code !== 'string' || !RETRIED_ERRORS.includes(failure.code)) {
    return undefined;
  }
  return Math.min(FIRST_WAIT_MS * 2 ** (attempt - 1), MAX_RETRY_WAIT_MS);
}

/**
 * Runs `attempt` (given the milliseconds left of `timeoutMs`) and tries it again while the policy says
 * so and the wait still leaves time; answers the last answer, or throws the last error. The request's
 * signal ends a wait at once, with its reason.
 */
export async function withReadRetries<A extends AttemptFailure & { statusCode: number }>(
  method: string,
  timeoutMs: number,
  signal: CancelSignal | undefined,
  attempt: (timeoutMs: number) => Promise<A>,
): Promise<A> {
  const started = Date.now();
  for (let retry = 1; ; retry++) {
    // The first try has the whole timeout (the caller's limits are then used as they are).
    const left = retry === 1 ? timeoutMs : timeoutMs - (Date.now() - started);
    // No object made per try to hold its outcome: a call that succeeds (nearly all) allocates nothing here.
    let answer: A | undefined;
    let error: unknown;
    let failed = false;
    try {
      answer = await attempt(left);
    } catch (thrown) {
      error = thrown;
      failed = true;
    }
    const delay = retryDelayMs(failed ? (error as AttemptFailure) : answer!, method, retry);
    if (delay === undefined || signal?.aborted || Date.now() - started + delay >= timeoutMs) {
      if (failed) throw error;
      return answer!;
    }
    await pause(delay, signal);
  }
}

/** Resolves after `ms`, or rejects with the signal's reason as soon as it is aborted. */
function pause(ms: number, signal: CancelSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const aborted = (): void => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', aborted);
      resolve();
    }, ms);
    signal?.addEventListener('abort', aborted, { once: true });
  });
}
