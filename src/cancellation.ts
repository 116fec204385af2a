/**
 * A request's cancellation: aborted once, with a reason, telling whoever
 * listens. It does for a request what an AbortController and its AbortSignal
 * did, without their weight: those are EventTargets, and every request made
 * two of them (the caller's, the request context's) and four listeners on them
 * (the deadline's release, the caller, the race in execute.ts, each v1 call's
 * deadline). A request lives across young-generation collections under load,
 * so what it holds is promoted and left for the old generation's collection,
 * which let the heap grow between collections (bench/README.md, Memory).
 *
 * Code below the transport reads a CancelSignal, which an AbortSignal also is
 * (ConnectRPC hands the gateway one per call). It sits low, beside the other
 * helpers every layer shares, because the v1 client reads it as much as the
 * operation that makes it.
 */

/** What a request's code reads of a signal: whether and why it was aborted, and telling it of the abort. */
export interface CancelSignal {
  readonly aborted: boolean;
  readonly reason: unknown;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

export class Cancellation implements CancelSignal {
  #aborted = false;
  #reason: unknown;
  /** Told once, in the order they came, when aborted; undefined once aborted (or before any). */
  #listeners: Array<() => void> | undefined;

  get aborted(): boolean {
    return this.#aborted;
  }

  get reason(): unknown {
    return this.#reason;
  }

  /** Aborts with `reason` (an AbortError, as AbortController's, when none); later calls do nothing. */
  abort(reason?: unknown): void {
    if (this.#aborted) return;
    this.#aborted = true;
    this.#reason = reason === undefined ? new DOMException('This operation was aborted', 'AbortError') : reason;
    const listeners = this.#listeners;
    this.#listeners = undefined;
    if (!listeners) return;
    for (const listener of listeners) {
      try {
        listener();
      } catch (error) {
        // As an EventTarget does: the others are still told, and the error is not lost.
        queueMicrotask(() => {
          throw error;
        });
      }
    }
  }

  /** A listener is told at most once, as with `{ once: true }`; one added after the abort never is. */
  addEventListener(_type: 'abort', listener: () => void, _options?: { once?: boolean }): void {
    if (this.#aborted) return;
    const listeners = (this.#listeners ??= []);
    if (!listeners.includes(listener)) listeners.push(listener);
  }

  removeEventListener(_type: 'abort', listener: () => void): void {
    const listeners = this.#listeners;
    if (!listeners) return;
    const at = listeners.indexOf(listener);
    if (at >= 0) listeners.splice(at, 1);
  }
}
