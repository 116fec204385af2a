/**
 * Translate mode with two systems of record: what v1 has is served over v1,
 * and what v1 lacks (a mapping's `nativeOnly`, a custom method with no v1
 * implementation) from the native store, by the same code native mode runs.
 * References across the two are checked where they cross: a stored resource's
 * parent or referent that v1 keeps is read from v1 (NOT_FOUND when v1 has
 * none: native-backend.ts's ForeignResources), and a v1 resource is not
 * deleted while the store holds children of it, while what the store keeps
 * only for it goes with it.
 *
 * The store's side is loaded on the first call that needs it: a sidecar whose
 * clients never ask for what v1 lacks holds none of native mode's code.
 */
import type { RequestContext } from '../operation/context.ts';
import { resourceNotEmpty } from '../operation/rules.ts';
import { deleteReferrers } from '../store/delete-referrers.ts';
import type { Store } from '../store/types.ts';
import type { BackendPort, Change, Page } from './backend.ts';
import type { CustomMethod, RequestPages } from './custom-method.ts';
import type { ListQuery } from './list-query.ts';
import type { ResourceMapping } from './mapping.ts';
import type { MappingRegistry } from './registry.ts';
import type { Json } from './shape.ts';

export interface TwoSystemsOptions {
  v1: BackendPort;
  /** The native backend over `store`, made on first use. */
  storeSide: () => Promise<BackendPort>;
  store: Store;
  registry: MappingRegistry;
}

export class TwoSystemsBackend implements BackendPort {
  readonly #v1: BackendPort;
  readonly #storeSide: () => Promise<BackendPort>;
  readonly #store: Store;
  readonly #registry: MappingRegistry;

  constructor(options: TwoSystemsOptions) {
    this.#v1 = options.v1;
    this.#storeSide = options.storeSide;
    this.#store = options.store;
    this.#registry = options.registry;
  }

  /** Whether v1 keeps this resource: everything but what the mappings say v1 has no equivalent of. */
  static keptByV1(mapping: ResourceMapping): boolean {
    return !mapping.nativeOnly;
  }

  /** v1's side as it is (no promise to wait on for most calls), or the store's once loaded. */
  #at(mapping: ResourceMapping): BackendPort | Promise<BackendPort> {
    return TwoSystemsBackend.keptByV1(mapping) ? this.#v1 : this.#storeSide();
  }

  async list(mapping: ResourceMapping, query: ListQuery, ctx: RequestContext): Promise<Page> {
    return (await this.#at(mapping)).list(mapping, query, ctx);
  }

  async get(mapping: ResourceMapping, uid: string, ctx: RequestContext): Promise<Json> {
    return (await this.#at(mapping)).get(mapping, uid, ctx);
  }

  async create(mapping: ResourceMapping, parent: string, value: Json, ctx: RequestContext): Promise<Json> {
    return (await this.#at(mapping)).create(mapping, parent, value, ctx);
  }

  async update(mapping: ResourceMapping, uid: string, change: Change, ctx: RequestContext): Promise<Json> {
    return (await this.#at(mapping)).update(mapping, uid, change, ctx);
  }

  async delete(mapping: ResourceMapping, uid: string, ctx: RequestContext): Promise<Json> {
    if (!TwoSystemsBackend.keptByV1(mapping)) return (await this.#storeSide()).delete(mapping, uid, ctx);
    // The children the store keeps are counted here; v1 counts its own.
    const inStore = (mapping.delete?.refuseWhileParentOf ?? []).filter((kind) => !TwoSystemsBackend.keptByV1(this.#registry.get(kind)));
    if (inStore.length > 0) {
      const refusal = resourceNotEmpty(mapping, uid, await this.#store.resources.countChildren(uid, inStore));
      if (refusal) throw refusal;
    }
    const answer = await this.#v1.delete(mapping, uid, ctx);
    const cascades = (mapping.native?.delete?.cascade ?? []).filter(({ kind }) => !this.#keptByV1(kind));
    if (cascades.length > 0) {
      await this.#store.transaction(async ({ resources }) => {
        for (const { kind, field } of cascades) await deleteReferrers(resources, kind, field, uid);
      });
    }
    return answer;
  }

  async batchCreate(mapping: ResourceMapping, parent: string, values: readonly Json[], singular: string, ctx: RequestContext): Promise<Json> {
    return (await this.#at(mapping)).batchCreate(mapping, parent, values, singular, ctx);
  }

  async lookup(mapping: ResourceMapping, values: Readonly<Record<string, string>>, ctx: RequestContext): Promise<Json> {
    return (await this.#at(mapping)).lookup(mapping, values, ctx);
  }

  /** v1's implementation where there is one; the store's for what v1 has no equivalent of. */
  async custom(method: CustomMethod, request: Json, ctx: RequestContext, pages: RequestPages): Promise<Json> {
    return method.translate ? this.#v1.custom(method, request, ctx, pages) : (await this.#storeSide()).custom(method, request, ctx, pages);
  }

  /** A kind the store keeps without a mapping (identity metadata, SCIM state) is the store's. */
  #keptByV1(kind: string): boolean {
    const mapping = this.#registry.all().find((m) => m.name === kind);
    return mapping !== undefined && TwoSystemsBackend.keptByV1(mapping);
  }
}
