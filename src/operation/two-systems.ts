/**
 * Translate mode with two systems of record: an operation on what v1 has runs
 * over the v1 port, and one on what v1 lacks (a mapping's `keptInStore`, a
 * custom method with no v1 implementation) over the store's, by the same
 * runner and render stage native mode uses. References across the two are
 * checked where they cross: a stored resource's parent or referent that v1
 * keeps is read from v1 (NOT_FOUND when v1 has none: native-backend.ts's
 * ForeignResources), and a v1 resource is not deleted while the store holds
 * children of it, while what the store keeps only for it goes with it.
 *
 * What it serves from the store, v1 does not judge: the policy step authorizes
 * it as native mode does, by the grants v1 states (policy/v1-grants.ts).
 *
 * The store's runner is made on the first operation that needs it: a sidecar
 * whose clients never ask for what v1 lacks holds none of native mode's code.
 */
import type { RequestContext } from '../request/context.ts';
import type { Operation } from '../port/operation.ts';
import type { Runner } from '../port/runner.ts';
import { deleteReferrers } from '../store/delete-referrers.ts';
import type { Store } from '../store/types.ts';
import type { MappingRegistry } from '../port/registry.ts';
import type { Json } from '../vocabulary/json.ts';
import { keptByV1 } from '../vocabulary/resource.ts';
import { heldBy, resourceNotEmpty } from '../port/delete-plan.ts';

export interface TwoSystemsOptions {
  /** The runner over the v1 port. */
  v1: Runner;
  /** The runner over the store's port, made on first use. */
  store: () => Promise<Runner>;
  /** The store itself, for the checks that cross the two (children counted, cascades). */
  rows: Store;
  registry: MappingRegistry;
}

/** Whether translate mode serves an operation from the store: one on what v1 lacks, or a custom method with no v1 implementation. */
export function servedFromStore(op: Operation): boolean {
  return op.kind === 'custom' ? op.custom.translate === undefined : !keptByV1(op.mapping);
}

export class TwoSystems implements Runner {
  readonly #v1: Runner;
  readonly #store: () => Promise<Runner>;
  readonly #rows: Store;
  readonly #registry: MappingRegistry;

  constructor(options: TwoSystemsOptions) {
    this.#v1 = options.v1;
    this.#store = options.store;
    this.#rows = options.rows;
    this.#registry = options.registry;
  }

  execute(op: Operation, ctx: RequestContext): Promise<Json> {
    if (servedFromStore(op)) return this.#store().then((store) => store.execute(op, ctx));
    if (op.kind === 'delete') return this.#deleteInV1(op, ctx);
    return this.#v1.execute(op, ctx);
  }

  /** A v1 resource goes only once the store holds no children of it, and what the store keeps for it goes with it. */
  async #deleteInV1(op: Extract<Operation, { kind: 'delete' }>, ctx: RequestContext): Promise<Json> {
    const { mapping, uid } = op;
    const plan = this.#registry.deletePlan(mapping.name);
    const inStore = heldBy(plan.refusingChildren, 'store').map(({ kind }) => kind);
    if (inStore.length > 0) {
      const refusal = resourceNotEmpty(mapping, uid, await this.#rows.resources.countChildren(uid, inStore));
      if (refusal) throw refusal;
    }
    const answer = await this.#v1.execute(op, ctx);
    const cascades = heldBy(plan.cascades, 'store');
    if (cascades.length > 0) {
      await this.#rows.transaction(async ({ resources }) => {
        for (const { kind, field } of cascades) await deleteReferrers(resources, kind, field, uid);
      });
    }
    return answer;
  }
}
