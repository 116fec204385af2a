/**
 * What travels with one v2 request below the transport, whichever protocol
 * carried it: who is calling, one deadline for the whole request, a signal
 * that fires when the caller goes away or the deadline passes, the request id
 * and counters. Transports build it; backends and the v1 client only read it.
 */
import { ApiError, deadlineExceeded } from '../aip/errors.ts';
import { Code } from '../rpc-status.ts';
import type { TraceSpan } from '../observability/tracing.ts';
import { Cancellation, type CancelSignal } from './cancellation.ts';

export interface RequestContext {
  /** The caller's Authorization header (REST) or metadata (gRPC), forwarded to v1. */
  readonly authorization: string;
  readonly requestId: string;
  /** Epoch milliseconds by which the whole request must be answered. */
  readonly deadline: number;
  /** Aborted when the caller goes away or the deadline passes; its reason is the ApiError to answer with. */
  readonly signal: CancelSignal;
  /** v1 calls this request made, for observability. */
  readonly counter: { v1Calls: number };
  /** The request's server span (tracing on), or the caller's trace context to hand on to v1 (off); undefined when there is neither. */
  readonly trace?: TraceSpan | undefined;
}

export interface ContextInput {
  authorization: string;
  requestId: string;
  /** Time the whole request may take. */
  budgetMs: number;
  /** The transport's own signal: aborted when the caller cancels or disconnects. */
  callerSignal?: CancelSignal;
  trace?: TraceSpan | undefined;
  now?: number;
}

/** Where a context keeps its release (finish): a symbol, so it is in no listing of the context's members. */
const STOP = Symbol('stop');

export function requestContext(input: ContextInput): RequestContext {
  const cancellation = new Cancellation();
  const budgetMs = Math.max(0, input.budgetMs);
  const deadline = (input.now ?? Date.now()) + budgetMs;
  const expired = () => deadlineExceeded(`the request did not complete within its deadline of ${budgetMs} ms`);
  // One timer per request, not per v1 call; unref'd so it never holds the process open.
  const timer = setTimeout(() => cancellation.abort(expired()), budgetMs);
  timer.unref();
  const caller = input.callerSignal;
  // The transport may abort its signal for the same deadline (ConnectRPC arms its own grpc-timeout timer),
  // possibly a moment before this one fires: then it is the deadline, not the caller, that ended the call.
  const cancel = () => cancellation.abort(Date.now() >= deadline ? expired() : cancelled());
  // Once the answer is on its way, neither the timer nor the caller's signal may fire for this request:
  // ConnectRPC aborts every handler's signal when a call ends, successful or not.
  const stop = () => {
    clearTimeout(timer);
    caller?.removeEventListener('abort', cancel);
  };
  cancellation.addEventListener('abort', stop);
  if (caller) {
    if (caller.aborted) cancel();
    else caller.addEventListener('abort', cancel, { once: true });
  }
  const context: RequestContext & { [STOP]: () => void } = {
    authorization: input.authorization,
    requestId: input.requestId,
    deadline,
    signal: cancellation,
    counter: { v1Calls: 0 },
    trace: input.trace,
    [STOP]: stop,
  };
  return context;
}

/** Releases the request's deadline timer and caller listener once its answer is on its way. */
export function finish(ctx: RequestContext): void {
  (ctx as { [STOP]?: () => void })[STOP]?.();
}

export function cancelled(): ApiError {
  return new ApiError(Code.CANCELLED, 'the caller cancelled the request');
}

/** The error a request aborted by its context answers with. */
export function abortReason(ctx: Pick<RequestContext, 'signal'>): ApiError {
  const reason: unknown = ctx.signal.reason;
  return reason instanceof ApiError ? reason : cancelled();
}

/** Milliseconds left before the deadline (never negative). */
export function remainingMs(ctx: Pick<RequestContext, 'deadline'>, now = Date.now()): number {
  return Math.max(0, ctx.deadline - now);
}
