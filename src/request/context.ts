/**
 * What travels with one v2 request below the transport, whichever protocol
 * carried it: who is calling, one deadline for the whole request, a signal
 * that fires when the caller goes away or the deadline passes, the request id
 * and counters. Transports build it; backends and the v1 client only read it.
 */
import { ApiError, deadlineExceeded } from '../aip/errors.ts';
import { Code } from '../rpc-status.ts';
import type { TraceSpan } from '../observability/tracing.ts';
import { Cancellation, type CancelSignal } from '../cancellation.ts';

/** Who is calling, as the policy step read it from the bearer token. */
/** The claims a caller's token states (verified or not, as `Caller.verified` says). */
export type Claims = Readonly<Record<string, unknown>>;

/** A string claim, or '' when the token does not state it as a string. */
export function claimString(claims: Claims, name: string): string {
  const value = claims[name];
  return typeof value === 'string' ? value : '';
}

export interface Caller {
  /** The token's `sub`: in native mode with an issuer, the identity's uid. */
  readonly subject: string;
  readonly issuer: string;
  readonly claims: Claims;
  /** False only where no issuer is configured (native mode for local use): then the claims are the caller's say-so. */
  readonly verified: boolean;
}

export interface RequestContext {
  /**
   * The Authorization header (REST) or metadata (gRPC) v1 calls carry: the caller's own, or
   * the sidecar's identity token for a request that brought none (identity/identity-token.ts). '' when none.
   */
  readonly authorization: string;
  /** The caller, once the policy step has read its token; undefined when it did not (or there is none). */
  readonly caller: Caller | undefined;
  /** Set by authorization for a List: only rows within these uids are the caller's to see ('' = the flat, shared rows). */
  readonly visibleWithin: readonly string[] | undefined;
  readonly requestId: string;
  /** Epoch milliseconds by which the whole request must be answered. */
  readonly deadline: number;
  /** Aborted when the caller goes away or the deadline passes; its reason is the ApiError to answer with. */
  readonly signal: CancelSignal;
  /** v1 calls this request made, for observability. */
  readonly counter: { v1Calls: number };
  /** The request's server span (tracing on), or the caller's trace context to hand on to v1 (off); undefined when there is neither. */
  readonly trace?: TraceSpan | undefined;
  /** The wire the call came on (`rest`, `grpc`, `grpc-web`, `connect`), for a capture. */
  readonly protocol?: string | undefined;
  /**
   * The answer's JSON text as the transport sent it, where the transport keeps it (the REST routes of a
   * comparing gateway: compare/tap.ts hands the comparison this text instead of the document).
   */
  readonly sentText?: string | undefined;
}

export interface ContextInput {
  authorization: string;
  requestId: string;
  /** Time the whole request may take. */
  budgetMs: number;
  /** The transport's own signal: aborted when the caller cancels or disconnects. */
  callerSignal?: CancelSignal;
  trace?: TraceSpan | undefined;
  protocol?: string | undefined;
  now?: number;
  /**
   * The transport times the request itself and calls `deadlinePassed` when its deadline passes (the
   * gateway's own unary gRPC server, whose timer for the message's arrival is the whole call's): the
   * context arms no timer of its own, one timer a call fewer.
   */
  timedByTransport?: boolean | undefined;
}

/**
 * The context as built here: a class, so a request costs one object, its cancellation and its timer,
 * not a closure per thing to undo. Its own members are private, so they are in no listing of it.
 */
class ContextOfRequest implements RequestContext {
  authorization: string;
  caller: Caller | undefined = undefined;
  visibleWithin: readonly string[] | undefined = undefined;
  readonly requestId: string;
  readonly deadline: number;
  readonly signal = new Cancellation();
  readonly counter = { v1Calls: 0 };
  readonly trace: TraceSpan | undefined;
  readonly protocol: string | undefined;
  sentText: string | undefined = undefined;
  readonly #budgetMs: number;
  readonly #timer: ReturnType<typeof setTimeout> | undefined;
  readonly #caller: CancelSignal | undefined;
  /** Heard on the caller's signal; made only when there is one to hear (gRPC and Connect hand one over). */
  readonly #callerGone: (() => void) | undefined;
  #finished = false;

  constructor(input: ContextInput) {
    this.authorization = input.authorization;
    this.requestId = input.requestId;
    this.#budgetMs = Math.max(0, input.budgetMs);
    this.deadline = (input.now ?? Date.now()) + this.#budgetMs;
    this.trace = input.trace;
    this.protocol = input.protocol;
    // One timer per request, not per v1 call; unref'd so it never holds the process open.
    if (!input.timedByTransport) this.#timer = setTimeout(expire, this.#budgetMs, this).unref();
    const caller = input.callerSignal;
    if (!caller) return;
    this.#caller = caller;
    this.#callerGone = () => this.cancel();
    if (caller.aborted) this.cancel();
    else caller.addEventListener('abort', this.#callerGone, { once: true });
  }

  /**
   * The caller went away. The transport may abort its signal for the same deadline (ConnectRPC arms its
   * own grpc-timeout timer), possibly a moment before this one fires: then it is the deadline, not the
   * caller, that ended the call.
   */
  cancel(): void {
    this.#end(Date.now() >= this.deadline ? this.expired() : cancelled());
  }

  expired(): ApiError {
    return deadlineExceeded(`the request did not complete within its deadline of ${this.#budgetMs} ms`);
  }

  /**
   * Once the answer is on its way, neither the timer nor the caller's signal may fire for this request:
   * ConnectRPC aborts every handler's signal when a call ends, successful or not.
   */
  finish(): void {
    this.#finished = true;
    clearTimeout(this.#timer);
    if (this.#callerGone) this.#caller!.removeEventListener('abort', this.#callerGone);
  }

  #end(reason: ApiError): void {
    if (this.#finished || this.signal.aborted) return;
    this.finish();
    this.signal.abort(reason);
  }

  /** The deadline's timer (a function of the module, handed the context, so no closure is made per request). */
  static expire(context: ContextOfRequest): void {
    context.#end(context.expired());
  }
}

const expire = ContextOfRequest.expire;

export function requestContext(input: ContextInput): RequestContext {
  return new ContextOfRequest(input);
}

/** Releases the request's deadline timer and caller listener once its answer is on its way. */
export function finish(ctx: RequestContext): void {
  if (ctx instanceof ContextOfRequest) ctx.finish();
}

/** The policy step's reading of the caller: who it is, and the header v1 calls carry for it. */
export function identify(ctx: RequestContext, caller: Caller | undefined, authorization = ctx.authorization, visibleWithin?: readonly string[]): void {
  // Fails closed: a List's visibility that could not be recorded must not serve everything.
  if (!(ctx instanceof ContextOfRequest)) throw new Error('identify: not a context made by requestContext()');
  ctx.caller = caller;
  ctx.authorization = authorization;
  ctx.visibleWithin = visibleWithin;
}

/** The answer's JSON text, as the transport sent it (RequestContext.sentText). */
export function sentAs(ctx: RequestContext, text: string): void {
  if (ctx instanceof ContextOfRequest) ctx.sentText = text;
}

/** The request's deadline has passed, by the transport's own timer (ContextInput.timedByTransport): its work is ended with DEADLINE_EXCEEDED. */
export function deadlinePassed(ctx: RequestContext): void {
  if (ctx instanceof ContextOfRequest) expire(ctx);
}

/**
 * The caller went away (a transport that hears it itself, as REST's does on the response's close,
 * rather than handing a signal over): the request's work is cancelled.
 */
export function callerGone(ctx: RequestContext): void {
  if (ctx instanceof ContextOfRequest) ctx.cancel();
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
