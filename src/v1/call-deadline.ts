/**
 * One v1 call's deadline: its own timeout, and the request's signal (the
 * caller gone, or the whole request's deadline past). Either calls `abort`
 * once, with the reason: a TimeoutError for the call's own timeout (named as
 * AbortSignal.timeout's reason is, which the v1 error mapping recognises as
 * v1's timeout), the request signal's reason otherwise.
 *
 * A callback, not a signal: the exchange (exchange.ts) aborts undici's own
 * request controller, so no AbortController, composite signal or listener on
 * undici's side is made per call. `AbortSignal.any([AbortSignal.timeout(ms),
 * parent])` cost ~3x this on every Get in a profile (weak references, a timer
 * no one clears); this one is released as soon as the call is done. A timeout
 * of Infinity sets no timer: the parent is the deadline.
 */
import type { CancelSignal } from '../cancellation.ts';

export type Release = () => void;

export function callDeadline(timeoutMs: number, parent: CancelSignal | undefined, abort: (reason: unknown) => void): Release {
  let done = false;
  const end = (reason: unknown): void => {
    if (done) return;
    done = true;
    release();
    abort(reason);
  };
  // An infinite timeout: the parent signal is the only deadline (a comparison's, shared by its calls).
  const timer = Number.isFinite(timeoutMs) ? setTimeout(() => end(new DOMException(`no answer within ${timeoutMs} ms`, 'TimeoutError')), timeoutMs) : undefined;
  const follow = (): void => end(parent!.reason);
  const release = (): void => {
    done = true;
    clearTimeout(timer);
    parent?.removeEventListener('abort', follow);
  };
  if (parent?.aborted) follow();
  else parent?.addEventListener('abort', follow, { once: true });
  return release;
}
