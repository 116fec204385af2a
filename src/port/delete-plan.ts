/**
 * What a delete of a mapping's resource involves, worked out once from the
 * mappings and handed to each port: the children that refuse it, the rows
 * that point at it and refuse it, the rows that go with it, and which system
 * of record holds each in translate mode. Native mode's store holds them all;
 * translate mode's v1 port counts what v1 holds and the two systems' runner
 * what the store holds (operation/two-systems.ts).
 */
import { failedPrecondition, type ApiError } from '../aip/errors.ts';
import type { NativeReferrer } from '../vocabulary/native.ts';
import type { ResourceMapping } from '../vocabulary/resource.ts';

/** The system of record that keeps a kind in translate mode. */
export type Holder = 'v1' | 'store';

export interface DeletePlan {
  /** `delete.refuseWhileParentOf`: RESOURCE_NOT_EMPTY while any of these kinds has a row under the uid, in the mapping's order. */
  readonly refusingChildren: readonly { readonly kind: string; readonly heldBy: Holder }[];
  /** `native.delete.refuseWhileReferencedBy`: RESOURCE_IN_USE while rows of these kinds point here (v1 keeps its own such rule). */
  readonly refusingReferrers: readonly NativeReferrer[];
  /** `native.delete.cascade`: the rows of these kinds that point here go in the same transaction. */
  readonly cascades: readonly (NativeReferrer & { readonly heldBy: Holder })[];
}

/** The plan for `mapping`, given where each kind is kept. */
export function deletePlan(mapping: ResourceMapping, heldBy: (kind: string) => Holder): DeletePlan {
  return {
    refusingChildren: (mapping.delete?.refuseWhileParentOf ?? []).map((kind) => ({ kind, heldBy: heldBy(kind) })),
    refusingReferrers: mapping.native?.delete?.refuseWhileReferencedBy ?? [],
    cascades: (mapping.native?.delete?.cascade ?? []).map((referrer) => ({ ...referrer, heldBy: heldBy(referrer.kind) })),
  };
}

/** The kinds of a plan's part that `holder` keeps. */
export function heldBy<T extends { readonly heldBy: Holder }>(part: readonly T[], holder: Holder): T[] {
  return part.filter((entry) => entry.heldBy === holder);
}

/**
 * The refusal of a delete whose resource still holds children of the plan's
 * refusing kinds (FAILED_PRECONDITION, RESOURCE_NOT_EMPTY), worded once: each
 * port counts its own rows, this decides. Undefined when nothing is left under it.
 */
export function resourceNotEmpty(mapping: ResourceMapping, uid: string, children: Readonly<Record<string, number>>): ApiError | undefined {
  // Named in the order the mapping declares them, whatever order the counts came in.
  const kinds = mapping.delete?.refuseWhileParentOf ?? Object.keys(children);
  const found = kinds.filter((name) => (children[name] ?? 0) > 0).map((name) => [name, children[name]!] as const);
  if (found.length === 0) return undefined;
  return failedPrecondition([{
    type: 'RESOURCE_NOT_EMPTY',
    subject: `${mapping.resourceType}/${uid}`,
    description: `${uid} still contains ${found.map(([name, count]) => `${count} ${name}`).join(', ')}; delete them first`,
  }]);
}
