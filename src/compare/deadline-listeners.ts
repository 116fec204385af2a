/**
 * A comparison's deadline as its candidate calls follow it. The queue hands the comparisons started within
 * a tenth of the deadline one AbortSignal (queue.ts); a call listening to it itself adds a listener to that
 * EventTarget and takes it off again, a call each. Here the signal gets one listener, the first time a call
 * follows it, which aborts a Cancellation (cancellation.ts) the calls listen to instead: each call adds an
 * entry to an array and takes it out.
 */
import { Cancellation, type CancelSignal } from '../cancellation.ts';

/** Each signal's follower, kept only as long as the signal is. */
const followers = new WeakMap<AbortSignal, CancelSignal>();

/** What aborts, with the same reason, when `signal` does (already, when it has). */
export function follower(signal: AbortSignal): CancelSignal {
  let follows = followers.get(signal);
  if (follows === undefined) {
    const made = new Cancellation();
    if (signal.aborted) made.abort(signal.reason);
    else signal.addEventListener('abort', () => made.abort(signal.reason), { once: true });
    followers.set(signal, (follows = made));
  }
  return follows;
}
