/**
 * The policy step every v2 request passes through, REST and gRPC alike,
 * between the transport that read it and the runner that does its work:
 *
 * 1. authentication — a method the contract marks public needs no token;
 *    otherwise, with issuers configured (native mode), the bearer JWT is
 *    verified and its `sub` becomes the request's caller; without (translate
 *    mode, or native mode for local use) a bearer must be present, and v1 or
 *    nobody judges it;
 * 2. the sidecar's identity — a request that brings no token of its own is
 *    sent to v1 with the workload identity's API token, when one is configured;
 * 3. authorization (native mode with issuers) — authorizer.ts;
 * 4. then the runner; after a write, cached grants are dropped, and the
 *    creator of an organisation is bound to it as its owner.
 */
import { ApiError } from '../aip/errors.ts';
import type { Json } from '../vocabulary/json.ts';
import { Code } from '../rpc-status.ts';
import { identify, type RequestContext } from '../request/context.ts';
import type { Operation } from '../port/operation.ts';
import type { Runner } from '../port/runner.ts';
import type { Authorizer } from './authorizer.ts';
import { bearer } from './bearer.ts';
import type { MethodRules } from './method-rules.ts';
import type { TokenVerifier } from './token-verifier.ts';
import { unverifiedCaller } from './unverified-claims.ts';

/** The API token of the workload identity the gateway assumes (identity/), as an Authorization header. */
export interface AssumedIdentity {
  authorization(ctx: RequestContext): Promise<string>;
}

export interface GuardOptions {
  rules: MethodRules;
  /** Native mode with issuers: verifies every token. */
  verifier?: TokenVerifier | undefined;
  /** Native mode with issuers: decides who may do what. */
  authorizer?: Authorizer | undefined;
  /** Binds an organisation's creator as its owner (native mode with issuers). */
  bindOwner?: ((organisation: string, identity: string) => Promise<void>) | undefined;
  /** The sidecar's workload identity (translate mode). */
  assumed?: AssumedIdentity | undefined;
  /** Native mode without issuers: the caller's unverified `sub` is read for the caller-scoped methods. */
  unverifiedCallers?: boolean;
}

export class Guard implements Runner {
  readonly #inner: Runner;
  readonly #options: GuardOptions;

  constructor(inner: Runner, options: GuardOptions) {
    this.#inner = inner;
    this.#options = options;
  }

  execute(op: Operation, ctx: RequestContext): Promise<Json> {
    const rule = this.#options.rules.of(op);
    if (rule?.disabled) return this.#inner.execute(op, ctx);
    const { verifier, assumed } = this.#options;
    if (verifier) return this.#verified(op, ctx);
    if (assumed && !ctx.authorization) return this.#assumed(op, ctx, assumed);
    try {
      bearer(ctx.authorization);
    } catch (error) {
      return Promise.reject(error);
    }
    if (this.#options.unverifiedCallers) identify(ctx, unverifiedCaller(ctx.authorization));
    return this.#inner.execute(op, ctx);
  }

  async #assumed(op: Operation, ctx: RequestContext, assumed: AssumedIdentity): Promise<Json> {
    identify(ctx, undefined, await assumed.authorization(ctx));
    return this.#inner.execute(op, ctx);
  }

  async #verified(op: Operation, ctx: RequestContext): Promise<Json> {
    const caller = await this.#options.verifier!.verify(ctx.authorization);
    identify(ctx, caller);
    const { authorizer } = this.#options;
    if (!authorizer) return this.#inner.execute(op, ctx);
    const rule = this.#options.rules.of(op);
    // Every served method has a rule; one without is refused rather than run unchecked.
    if (!rule) throw new ApiError(Code.PERMISSION_DENIED, 'the method has no authorization rule');
    const visible = await authorizer.check(rule, op, caller);
    if (visible) identify(ctx, caller, ctx.authorization, visible);
    const answer = await this.#inner.execute(op, ctx);
    if (op.kind === 'list' || op.kind === 'get' || op.kind === 'lookup') return answer;
    // An organisation's creator owns it; any write may change someone's grants.
    if (op.kind === 'create' && op.parent === '' && op.mapping.create?.parent === 'optional' && typeof answer.uid === 'string') {
      await this.#options.bindOwner?.(answer.uid, caller.subject);
    }
    authorizer.changed();
    return answer;
  }
}
