/** The set of resource mappings the gateway serves, by name. */
import type { ResourceMapping } from '../vocabulary/resource.ts';

export class MappingRegistry {
  readonly #byName = new Map<string, ResourceMapping>();

  constructor(mappings: readonly ResourceMapping[]) {
    for (const mapping of mappings) {
      if (this.#byName.has(mapping.name)) throw new Error(`two mappings are named "${mapping.name}"`);
      this.#byName.set(mapping.name, mapping);
    }
    for (const mapping of mappings) this.#checkReferences(mapping);
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
