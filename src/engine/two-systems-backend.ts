/**
 * Translate mode with two systems of record: what v1 has is served over v1,
 * and what v1 lacks (a mapping's `nativeOnly`, a custom method with no v1
 * implementation) from the native store, by the same code native mode runs.
 * References across the two are checked where they cross: a stored resource's
 * parent or referent that v1 keeps is read from v1 (NOT_FOUND when v1 has
 * none), and a v1 resource is not deleted while the store holds children of
 * it, while what the store keeps only for it goes with it.
 */
import type { RequestContext } from '../operation/context.ts';
import { resourceNotEmpty } from '../operation/rules.ts';
import type { NativeBackend } from '../native/native-backend.ts';
import type { BackendPort, Change, Page } from './backend.ts';
import type { CustomMethod, RequestPages } from './custom-method.ts';
import type { ListQuery } from './list-query.ts';
import type { ResourceMapping } from './mapping.ts';
import type { MappingRegistry } from './registry.ts';
import type { Json } from './shape.ts';

export class TwoSystemsBackend implements BackendPort {
  readonly #v1: BackendPort;
  readonly #store: NativeBackend;
  readonly #registry: MappingRegistry;

  constructor(v1: BackendPort, store: NativeBackend, registry: MappingRegistry) {
    this.#v1 = v1;
    this.#store = store;
    this.#registry = registry;
  }

  /** Whether v1 keeps this resource: everything but what the mappings say v1 has no equivalent of. */
  static keptByV1(mapping: ResourceMapping): boolean {
    return !mapping.nativeOnly;
  }

  #at(mapping: ResourceMapping): BackendPort {
    return TwoSystemsBackend.keptByV1(mapping) ? this.#v1 : this.#store;
  }

  list(mapping: ResourceMapping, query: ListQuery, ctx: RequestContext): Promise<Page> {
    return this.#at(mapping).list(mapping, query, ctx);
  }

  get(mapping: ResourceMapping, uid: string, ctx: RequestContext): Promise<Json> {
    return this.#at(mapping).get(mapping, uid, ctx);
  }

  create(mapping: ResourceMapping, parent: string, value: Json, ctx: RequestContext): Promise<Json> {
    return this.#at(mapping).create(mapping, parent, value, ctx);
  }

  update(mapping: ResourceMapping, uid: string, change: Change, ctx: RequestContext): Promise<Json> {
    return this.#at(mapping).update(mapping, uid, change, ctx);
  }

  async delete(mapping: ResourceMapping, uid: string, ctx: RequestContext): Promise<Json> {
    if (!TwoSystemsBackend.keptByV1(mapping)) return this.#store.delete(mapping, uid, ctx);
    // The children the store keeps are counted here; v1 counts its own.
    const inStore = (mapping.delete?.refuseWhileParentOf ?? []).filter((kind) => !TwoSystemsBackend.keptByV1(this.#registry.get(kind)));
    if (inStore.length > 0) {
      const refusal = resourceNotEmpty(mapping, uid, await this.#store.countChildren(uid, inStore));
      if (refusal) throw refusal;
    }
    const answer = await this.#v1.delete(mapping, uid, ctx);
    for (const { kind, field } of mapping.native?.delete?.cascade ?? []) {
      if (this.#keptByV1(kind)) continue;
      await this.#store.deleteWhere(kind, field, uid);
    }
    return answer;
  }

  batchCreate(mapping: ResourceMapping, parent: string, values: readonly Json[], singular: string, ctx: RequestContext): Promise<Json> {
    return this.#at(mapping).batchCreate(mapping, parent, values, singular, ctx);
  }

  lookup(mapping: ResourceMapping, values: Readonly<Record<string, string>>, ctx: RequestContext): Promise<Json> {
    return this.#at(mapping).lookup(mapping, values, ctx);
  }

  /** v1's implementation where there is one; the store's for what v1 has no equivalent of. */
  custom(method: CustomMethod, request: Json, ctx: RequestContext, pages: RequestPages): Promise<Json> {
    return method.translate ? this.#v1.custom(method, request, ctx, pages) : this.#store.custom(method, request, ctx, pages);
  }

  /** A kind the store keeps without a mapping (identity metadata, SCIM state) is the store's. */
  #keptByV1(kind: string): boolean {
    const mapping = this.#registry.all().find((m) => m.name === kind);
    return mapping !== undefined && TwoSystemsBackend.keptByV1(mapping);
  }
}
