/**
 * The policy step every v2 request passes through, REST and gRPC alike,
 * between the transport that read it and the runner that does its work:
 *
 * 1. authentication — a method the contract marks public needs no token;
 *    otherwise, with issuers configured (native mode), the bearer JWT is
 *    verified and its `sub` becomes the request's caller; in translate mode,
 *    v1 judges the token: for what v1 serves, on the call itself; for what the
 *    store keeps, v1's WhoAmI names the caller (v1-grants.ts); without issuers
 *    (native mode for local use) a bearer must be present, and nobody judges it;
 * 2. the sidecar's identity — a request that brings no token of its own is
 *    sent to v1 with the workload identity's API token, when one is configured;
 * 3. authorization (native mode with issuers, and what translate mode keeps
 *    in its store) — authorizer.ts, over the mode's grants; then, in native
 *    mode, a write that grants a role carries no-escalation.ts's judgement,
 *    which the backend runs inside the write's transaction;
 * 4. then the runner; after a write, cached grants are dropped, and the
 *    creator of an organisation is bound to it as its owner. A read (a List,
 *    Get or lookup, or a custom method the comparison too counts read-only,
 *    contract/read-only.ts) drops nothing: it cannot have changed a grant.
 */
import { ApiError } from '../aip/errors.ts';
import type { Json } from '../vocabulary/json.ts';
import { Code } from '../rpc-status.ts';
import { identify, type Caller, type RequestContext } from '../request/context.ts';
import type { Operation } from '../port/operation.ts';
import type { Runner } from '../port/runner.ts';
import type { Authorizer } from './authorizer.ts';
import { bearer } from './bearer.ts';
import type { MethodRules } from './method-rules.ts';
import type { EscalationCheck } from './no-escalation.ts';
import { unverifiedCaller } from './unverified-claims.ts';
import { isReadOnly } from '../contract/read-only.ts';

/** Who a bearer token is: the token verifier (native mode), or v1's WhoAmI (translate mode, v1-grants.ts). */
export interface CallerVerifier {
  verify(authorization: string, ctx?: RequestContext): Promise<Caller>;
}

/** The API token of the workload identity the gateway assumes (identity/), as an Authorization header. */
export interface AssumedIdentity {
  authorization(ctx: RequestContext): Promise<string>;
}

export interface GuardOptions {
  rules: MethodRules;
  /** Verifies the token of every operation `judged` names. */
  verifier?: CallerVerifier | undefined;
  /** Decides who may do what, for the operations `judged` names. */
  authorizer?: Authorizer | undefined;
  /** The operations the verifier and authorizer judge: every one unless given (translate mode: what the store keeps). */
  judged?: ((op: Operation) => boolean) | undefined;
  /** Native mode with issuers: a caller grants only what it holds (no-escalation.ts). */
  escalation?: EscalationCheck | undefined;
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
    const { assumed } = this.#options;
    if (assumed && !ctx.authorization) return this.#assumed(op, ctx, assumed);
    return this.#authenticated(op, ctx);
  }

  async #assumed(op: Operation, ctx: RequestContext, assumed: AssumedIdentity): Promise<Json> {
    identify(ctx, undefined, await assumed.authorization(ctx));
    return this.#authenticated(op, ctx);
  }

  #authenticated(op: Operation, ctx: RequestContext): Promise<Json> {
    const { verifier, judged, authorizer } = this.#options;
    if (verifier && (!judged || judged(op))) return this.#verified(op, ctx);
    try {
      bearer(ctx.authorization);
    } catch (error) {
      return Promise.reject(error);
    }
    if (this.#options.unverifiedCallers) identify(ctx, unverifiedCaller(ctx.authorization));
    const answer = this.#inner.execute(op, ctx);
    // Translate mode: a write v1 judged (a role binding, a new organisation) may change what v1 states of someone.
    return authorizer && !readsOnly(op) ? answer.then((done) => (authorizer.changed(), done)) : answer;
  }

  async #verified(op: Operation, ctx: RequestContext): Promise<Json> {
    const caller = await this.#options.verifier!.verify(ctx.authorization, ctx);
    identify(ctx, caller);
    const { authorizer } = this.#options;
    if (!authorizer) return this.#inner.execute(op, ctx);
    const rule = this.#options.rules.of(op);
    // Every served method has a rule; one without is refused rather than run unchecked.
    if (!rule) throw new ApiError(Code.PERMISSION_DENIED, 'the method has no authorization rule');
    const visible = await authorizer.check(rule, op, caller);
    if (visible) identify(ctx, caller, ctx.authorization, visible);
    // A write that grants is judged inside its own transaction, on what it stores (no-escalation.ts).
    const answer = await this.#inner.execute(this.#options.escalation?.judging(op, caller) ?? op, ctx);
    if (readsOnly(op)) return answer;
    // An organisation's creator owns it; any write may change someone's grants.
    if (op.kind === 'create' && op.parent === '' && op.mapping.create?.parent === 'optional' && typeof answer.uid === 'string') {
      await this.#options.bindOwner?.(answer.uid, caller.subject);
    }
    authorizer.changed();
    return answer;
  }
}

/** An operation that cannot have changed anyone's grants. */
function readsOnly(op: Operation): boolean {
  return op.kind === 'list' || op.kind === 'get' || op.kind === 'lookup' || (op.kind === 'custom' && isReadOnly(op.method));
}
