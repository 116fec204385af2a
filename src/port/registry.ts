/** The set of resource mappings the gateway serves, by name. */
import { deletePlan, type DeletePlan } from './delete-plan.ts';
import { keptByV1, type ResourceMapping } from '../vocabulary/resource.ts';

export class MappingRegistry {
  readonly #byName = new Map<string, ResourceMapping>();
  readonly #deletePlans = new Map<string, DeletePlan>();

  constructor(mappings: readonly ResourceMapping[]) {
    for (const mapping of mappings) {
      if (this.#byName.has(mapping.name)) throw new Error(`two mappings are named "${mapping.name}"`);
      this.#byName.set(mapping.name, mapping);
    }
    for (const mapping of mappings) this.#checkReferences(mapping);
    for (const mapping of mappings) this.#deletePlans.set(mapping.name, deletePlan(mapping, (kind) => (this.keptByV1(kind) ? 'v1' : 'store')));
  }

  /**
   * Whether v1 keeps a kind (translate mode's system of record): a mapping's kind as its mapping says
   * (`keptInStore`); a kind the store keeps without a mapping of its own (identity metadata, SCIM state)
   * is the store's.
   */
  keptByV1(kind: string): boolean {
    const mapping = this.#byName.get(kind);
    return mapping !== undefined && keptByV1(mapping);
  }

  /** What deleting a resource of this mapping involves, and who holds each part (port/delete-plan.ts). */
  deletePlan(name: string): DeletePlan {
    const plan = this.#deletePlans.get(name);
    if (!plan) throw new Error(`no mapping named "${name}"`);
    return plan;
  }

  get(name: string): ResourceMapping {
    const mapping = this.#byName.get(name);
    if (!mapping) throw new Error(`no mapping named "${name}"`);
    return mapping;
  }

  all(): ResourceMapping[] {
    return [...this.#byName.values()];
  }

  /** Fails at start-up, not at request time, when a mapping refers to a resource that is not declared. */
  #checkReferences(mapping: ResourceMapping): void {
    // A reference may name a kind only the store keeps (its mapping's custom methods keep it).
    for (const { kind } of Object.values(mapping.references ?? {})) if (!mapping.native?.keeps?.includes(kind)) this.get(kind);
    for (const name of mapping.delete?.refuseWhileParentOf ?? []) this.get(name);
    if (mapping.create) this.get(mapping.create.parentKind);
  }
}

/** The v1 collection path of a mapping, e.g. `/iam/v1/rolebindings`. */
export function v1CollectionPath(mapping: ResourceMapping): string {
  return `/${mapping.service}/v1/${mapping.v1.collection}`;
}

/** Where a v1 row keeps the resource's uid. */
export function v1UidKey(mapping: ResourceMapping): string {
  const spec = mapping.fields.uid;
  return spec?.v1 ?? 'uid';
}
