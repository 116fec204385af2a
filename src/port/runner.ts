/**
 * The one runner shape every step of a request's way down shares, and the one
 * place the steps are chained. A step is an interceptor, as undici composes
 * its dispatch interceptors: given the runner after it, it returns the runner
 * that does its part and hands on. server.ts calls `compose` once, with the
 * steps in the order a request meets them (docs/design.md, "The chain").
 */
import type { Json } from '../vocabulary/json.ts';
import type { RequestContext } from '../request/context.ts';
import type { Operation } from './operation.ts';

/** What the transports call, and what each step of the chain calls next. */
export interface Runner {
  execute(op: Operation, ctx: RequestContext): Promise<Json>;
}

/** A step of the chain: given the runner after it, the runner that does its part first. */
export type Interceptor = (next: Runner) => Runner;

/**
 * `runner` behind `steps`, the first step outermost (the first to see a request,
 * the last to see its answer). A step a configuration does not use is passed as
 * undefined and left out.
 */
export function compose(runner: Runner, ...steps: readonly (Interceptor | undefined)[]): Runner {
  return steps.reduceRight<Runner>((next, step) => (step ? step(next) : next), runner);
}
