/**
 * When a read to v1 is tried again. Reads are safe to repeat, so a stale
 * keep-alive socket, a reset or a brief 502/503 should not reach the client:
 * up to two more tries, backing off 25 ms then 50 ms (at most 200 ms).
 *
 * What undici's own policy does not do, and this one does: respect v1's
 * `Retry-After`. v1 asking for more time than a request may idle (over
 * 200 ms) is not retried sooner than it asked: its answer, and with it the
 * delay as RetryInfo, goes to the caller, whose retry is the one that waits.
 */
import type { RetryHandler } from 'undici';
import { parseRetryAfter } from './errors.ts';

const RETRIED_STATUSES: readonly number[] = [502, 503];
/** Connection-level failures worth another try (undici's socket error included). */
const RETRIED_ERRORS: readonly string[] = [
  'ECONNRESET', 'ECONNREFUSED', 'ENOTFOUND', 'ENETDOWN', 'ENETUNREACH', 'EHOSTDOWN', 'EHOSTUNREACH', 'EPIPE', 'UND_ERR_SOCKET',
];
const MAX_RETRIES = 2;
const FIRST_WAIT_MS = 25;
/** The longest a read waits before trying again, v1's Retry-After included. */
export const MAX_RETRY_WAIT_MS = 200;

interface AttemptFailure {
  readonly statusCode?: number;
  readonly code?: string;
  readonly headers?: Record<string, string | string[] | undefined>;
}

/** How long to wait before the next try, or undefined for none: pure, so the rules are tested apart from sockets. */
export function retryDelayMs(failure: AttemptFailure, method: string, attempt: number): number | undefined {
  if (method !== 'GET' || attempt > MAX_RETRIES) return undefined;
  if (failure.statusCode !== undefined) {
    if (!RETRIED_STATUSES.includes(failure.statusCode)) return undefined;
    const asked = parseRetryAfter(failure.headers?.['retry-after']);
    if (asked !== undefined) return asked * 1000 > MAX_RETRY_WAIT_MS ? undefined : asked * 1000;
  } else if (failure.code !== 'UND_ERR_REQ_RETRY' && !RETRIED_ERRORS.includes(failure.code ?? '')) {
    return undefined;
  }
  return Math.min(FIRST_WAIT_MS * 2 ** (attempt - 1), MAX_RETRY_WAIT_MS);
}

/** The policy in the form undici's retry interceptor calls. */
export const readRetryPolicy: RetryHandler.RetryCallback = (error, { state, opts }, done) => {
  const delay = retryDelayMs(error as AttemptFailure, opts.method, state.counter);
  if (delay === undefined) {
    done(error);
    return;
  }
  setTimeout(() => done(null), delay);
};
