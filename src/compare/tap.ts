/**
 * The comparison tap: a runner in front of the real one. Every operation runs
 * as before and its answer goes back to the caller untouched. Once it is
 * settled the call is only noted; the calls settled within HANDOVER_MS of the
 * first are considered together when that time is up, off the caller's turn
 * (read-only? sampled?), and those chosen are handed to the comparisons
 * (off-thread.ts: a worker thread refuses what must not be sent, asks the
 * candidate and diffs) in one go. The
 * caller never waits for the candidate; a full queue drops the comparison and
 * counts it. Below both transports, so REST, gRPC, gRPC-Web and
 * Connect calls are all seen, as the same request message.
 */
import type { DescMessage } from '@bufbuild/protobuf';
import type { Binding } from '../contract/bindings.ts';
import type { Json } from '../vocabulary/json.ts';
import { requestContext, finish, type RequestContext } from '../request/context.ts';
import type { Operation, TransportCall } from '../port/operation.ts';
import type { Runner } from '../port/runner.ts';
import { COMPARISON_REQUEST_ID } from './candidate.ts';
import type { Comparisons } from './off-thread.ts';
import type { Outcome } from './outcome.ts';
import { answered, failed } from './primary-outcome.ts';
import { isReadOnly } from '../contract/read-only.ts';
import { methodName } from './request-of.ts';
import { sampled } from './sampler.ts';
import { add, KEY, type Counters } from './tally.ts';

export interface TapOptions {
  readonly bindings: readonly Binding[];
  /** Where a chosen comparison goes; undefined: nothing is compared (capture alone). */
  readonly comparisons: Comparisons | undefined;
  /** Where the calls not compared count (skipped, refused). */
  readonly counters: Counters;
  readonly sample: number;
  /** Send writes too (`--compare-unsafe`): the operator says the candidate is isolated. */
  readonly unsafe: boolean;
  /** How long the primary may take when asked again, in ms. */
  readonly budgetMs: number;
  /** Told of every v2 call, comparison or not (capture). */
  readonly onCall?: (call: { method: string; request: Json; protocol: string }, input: DescMessage) => void;
  /** A comparison dropped (too many under way): counted by the caller. */
  readonly onDropped: (method: string) => void;
  readonly onSkipped?: (method: string) => void;
}

/**
 * How long a settled call waits for others to be considered and handed over with it, in ms. A compared
 * call then costs the turn that answered it only a note: its consideration (the request message, the
 * checks) and the hand-over's message come on a turn of their own, once for all the calls of this time,
 * not on the turn after each answer, where they ran before the process let its core go to whoever
 * waits for that answer.
 */
export const HANDOVER_MS = 2;

/** A settled call's slots in `#settled`: the operation, its context, its answer or error, whether it answered. */
const SLOTS = 4;

export class ComparingRunner implements Runner {
  readonly #inner: Runner;
  readonly #options: TapOptions;
  /** The calls settled since the last consideration, SLOTS each (a flat array: no record or task made a call). */
  #settled: unknown[] = [];
  /** Considers #settled HANDOVER_MS after the first (re-armed, not made again). */
  #timer: NodeJS.Timeout | undefined;

  constructor(inner: Runner, options: TapOptions) {
    this.#inner = inner;
    this.#options = options;
  }

  execute(op: Operation, ctx: RequestContext): Promise<Json> {
    const answer = this.#inner.execute(op, ctx);
    // The binding and request message the transport read the call from (an operation no transport made is not compared).
    if (!op.call) return answer;
    answer.then((document) => this.#note(op, ctx, document, true), (error: unknown) => this.#note(op, ctx, error, false));
    return answer;
  }

  #note(op: Operation, ctx: RequestContext, settled: unknown, ok: boolean): void {
    if (this.#settled.push(op, ctx, settled, ok) === SLOTS) this.#timer = this.#timer?.refresh() ?? setTimeout(this.considerSettled, HANDOVER_MS).unref();
  }

  /** Considers the calls settled so far, and hands the chosen over: when HANDOVER_MS is up, or now (a drain, a close). */
  readonly considerSettled = (): void => {
    const settled = this.#settled;
    if (settled.length === 0) return;
    this.#settled = [];
    for (let i = 0; i < settled.length; i += SLOTS) {
      const op = settled[i] as Operation;
      this.#consider(op.call!, op, settled[i + 1] as RequestContext, settled[i + 3] ? answered(settled[i + 2] as Json) : failed(settled[i + 2]));
    }
    this.#options.comparisons?.handOver();
  };

  #consider(call: TransportCall, op: Operation, ctx: RequestContext, primary: Outcome): void {
    // A call the comparison made (this gateway is another's candidate, or a replay's target): not captured or compared again.
    if (ctx.requestId.startsWith(COMPARISON_REQUEST_ID)) return;
    const { binding } = call;
    const options = this.#options;
    const name = methodName(binding.method);
    const comparisons = options.comparisons;
    const readOnly = isReadOnly(binding.method);
    if (comparisons && !readOnly && !options.unsafe) {
      add(options.counters, name, KEY.skipped);
      options.onSkipped?.(name);
    }
    const compare = comparisons !== undefined && (readOnly || options.unsafe) && primary.kind !== 'unanswered' && options.sample > 0;
    if (!compare && !options.onCall) return;
    let request: Json;
    try {
      request = call.message();
    } catch {
      // The contract refuses this request; the primary refused it too, and there is nothing to send.
      return;
    }
    const protocol = ctx.protocol ?? 'unknown';
    options.onCall?.({ method: name, request, protocol }, binding.method.input);
    // A request the primary refused as malformed, or whose path climbs, is offered too: the worker refuses it (worker.ts).
    if (!compare || !sampled(options.sample, name, request, ctx.authorization)) return;
    const authorization = ctx.authorization;
    const askPrimary = async (): Promise<Outcome> => {
      const again = requestContext({ authorization, requestId: `${ctx.requestId}-compare`, budgetMs: options.budgetMs });
      try {
        return answered(await this.#inner.execute(op, again));
      } catch (error) {
        return failed(error);
      } finally {
        finish(again);
      }
    };
    // The answer's text as the REST transport sent it, where it did: handed over instead of the document.
    // (A plain literal: properties after a spread are each defined by a call into V8's runtime.)
    const primaryText = primary.kind === 'answer' ? ctx.sentText : undefined;
    const accepted = comparisons.offer({ name, request, primary, primaryText, authorization, readOnly, protocol, askPrimary });
    if (!accepted) options.onDropped(name);
  }
}
