/**
 * The store adapter of the backend port: v2beta1 served from the gateway's
 * own store, for any mapping, with the store doing what v1 did (and what v1
 * could not: keyset pages in SQL, counts, timestamps). It reads and writes
 * stored documents and keeps the store's integrity (seeded rows, unique
 * names, singletons, required references, cascades, refusals); the runner and
 * the render stage read requests, merge, validate and render, as in translate
 * mode. Resource-specific behaviour comes from the mappings' field specs and
 * `native` blocks; this file names no resource.
 */
import { ApiError, failedPrecondition, invalidArgument, notFound } from '../aip/errors.ts';
import { windowRows } from '../aip/list-window.ts';
import type { BackendPort, Created, Page, Patch, RenderRows, RequestContext, RowConversion } from '../port/backend.ts';
import type { WriteJudge } from '../port/write-judge.ts';
import type { CustomMethod, NativeAccess, RequestPages, StoreView } from '../vocabulary/custom-method.ts';
import { storeView } from './store-view.ts';
import type { ListQuery } from '../port/list-query.ts';
import type { ResourceMapping } from '../vocabulary/resource.ts';
import type { MappingRegistry } from '../port/registry.ts';
import { resourceNotEmpty, type DeletePlan } from '../port/delete-plan.ts';
import type { Json } from '../vocabulary/json.ts';
import { Code } from '../rpc-status.ts';
import {
  StoreConflictError, type ResourceStore, type Store, type StoredResource, type StoreListQuery, type StoreListResult,
} from '../store/types.ts';
import { deleteReferrers } from '../store/delete-referrers.ts';
import { scanRows } from '../store/scan.ts';
import { deterministicRootUid, isInRoot, newChildUid, newRootUid, parentOf } from '../uidp.ts';
import { normalize } from '../vocabulary/document.ts';
import { generate } from './assigned-on-create.ts';
import { checkQueryable, cursorAfter, planFilters, sortValue, storeOrder } from './query.ts';
import { resolveThroughFilters } from './through-filters.ts';
import { fetchByUid, requireReferenced } from './references.ts';

/**
 * Resources another system of record keeps (translate mode's v1), which a stored resource may name:
 * an overlay's group, an overlay binding's repo, the identity whose metadata is kept.
 */
export interface ForeignResources {
  /** Whether resources of this mapping live elsewhere, not in the store. */
  keeps(kind: string): boolean;
  /** The resource as its v2 document; NOT_FOUND when it does not exist. */
  get(kind: string, uid: string, ctx: RequestContext): Promise<Json>;
}

export interface NativeBackendOptions {
  store: Store;
  registry: MappingRegistry;
  /** Where the resources the store does not keep are read (translate mode); none in native mode. */
  foreign?: ForeignResources;
  /** Clock for creation and update times (tests pin it). */
  now?: () => number;
}


export class NativeBackend implements BackendPort {
  readonly #store: Store;
  readonly #registry: MappingRegistry;
  readonly #now: () => number;
  readonly #foreign: ForeignResources | undefined;
  /** `<kind>\0<uid>` of seeded rows, which clients may read but not change. */
  readonly #seeded = new Set<string>();
  #render: RenderRows<StoredResource> | undefined;
  readonly #views = new WeakMap<CustomMethod, StoreView>();

  /** A stored row is a v2 document already: served with its uid and times set, secrets left out, in field order. */
  readonly rows: RowConversion<StoredResource> = {
    mode: 'native',
    documents: (mapping, rows) => rows.map((row) => normalize(
      mapping.fields,
      this.#document(mapping, row.uid, row.body, row.createTime, row.updateTime),
      { keepOutputOnly: true, dropSecrets: true, stored: true },
    )),
    target: (_kind, row) => ({ ...row.body, uid: row.uid, createTime: row.createTime, updateTime: row.updateTime }),
    // The store keeps no referenced value: every reference is filled as the referenced row is now.
    carries: () => false,
    now: () => this.#now(),
  };

  constructor(options: NativeBackendOptions) {
    this.#store = options.store;
    this.#registry = options.registry;
    this.#now = options.now ?? Date.now;
    this.#foreign = options.foreign;
    for (const mapping of this.#registry.all()) {
      checkQueryable(mapping);
      // A kind named here must be served by a mapping, or kept by this one's custom methods: a typo fails at start.
      const known = (kind: string) => mapping.native?.keeps?.includes(kind) || this.#registry.get(kind);
      for (const reference of [...Object.values(mapping.references ?? {}), ...Object.values(mapping.native?.derived ?? {})]) known(reference.kind);
      for (const kind of Object.values(mapping.native?.requires ?? {})) this.#registry.get(kind);
      for (const referrer of [...(mapping.native?.delete?.cascade ?? []), ...(mapping.native?.delete?.refuseWhileReferencedBy ?? [])]) {
        known(referrer.kind);
      }
      for (const row of mapping.native?.seed ?? []) this.#seeded.add(`${mapping.name}\0${row.uid}`);
      if (mapping.native?.singletonOf) this.#registry.get(mapping.native.singletonOf);
    }
  }

  /**
   * Puts the seed rows in place. Idempotent, and safe with several replicas
   * starting at once: a row another replica inserted first is left to it; a
   * row whose seed data changed since it was stored is replaced.
   */
  async seed(): Promise<void> {
    const resources = this.#store.resources;
    for (const mapping of this.#registry.all()) {
      if (this.#foreign?.keeps(mapping.name)) continue;
      for (const seed of mapping.native?.seed ?? []) {
        if (await this.#adoptImported(mapping, seed.uid, seed.body)) continue;
        const stored = await resources.get(mapping.name, seed.uid);
        const time = stored?.createTime ?? this.#isoNow();
        const body = this.#document(mapping, seed.uid, normalize(mapping.fields, seed.body, { keepOutputOnly: false }), time, stored?.updateTime ?? time);
        if (!stored) {
          try {
            await resources.insert({ kind: mapping.name, uid: seed.uid, parent: '', body, createTime: time, updateTime: time });
          } catch (error) {
            if (!(error instanceof StoreConflictError)) throw error;
          }
        } else if (JSON.stringify(stored.body) !== JSON.stringify(body)) {
          const now = this.#isoNow();
          await resources.replace(mapping.name, seed.uid, this.#document(mapping, seed.uid, body, stored.createTime, now), now);
        }
      }
    }
  }

  /**
   * A built-in row that an import brought from v1 under v1's own uid (a managed role: role bindings
   * refer to it by that uid) stands in for the seed row of the same name: it is read-only as the seed
   * row would be, and a seed row put in place before the import goes, unless something refers to it.
   */
  async #adoptImported(mapping: ResourceMapping, seedUid: string, body: Readonly<Record<string, unknown>>): Promise<boolean> {
    if (typeof body.name !== 'string') return false;
    const { rows } = await this.#store.resources.list({
      kind: mapping.name,
      filters: [{ field: 'parent', op: 'eq', value: '' }, { field: 'name', op: 'eq', value: body.name }],
      order: [{ field: 'uid', desc: false }],
      skip: 0,
      limit: 2,
    });
    const imported = rows.find((row) => row.uid !== seedUid);
    if (!imported) return false;
    this.#seeded.add(`${mapping.name}\0${imported.uid}`);
    if (rows.some((row) => row.uid === seedUid)) {
      await this.#store.transaction(async (tx) => {
        try {
          await this.#refuseIfReferenced(tx.resources, mapping, seedUid, this.#registry.deletePlan(mapping.name));
          await tx.resources.delete(mapping.name, seedUid);
        } catch (error) {
          if (!(error instanceof ApiError)) throw error;
        }
      });
    }
    return true;
  }

  /** The render stage this port's custom methods render through, given by the runner built over it. */
  renderThrough(render: RenderRows<StoredResource>): void {
    this.#render = render;
  }

  async list(mapping: ResourceMapping, { params, filters, order, cursor }: ListQuery, ctx: RequestContext): Promise<Page<StoredResource>> {
    const plan = planFilters(mapping, filters.canonical, await resolveThroughFilters(this.#store.resources, mapping, filters.canonical));
    const stored = storeOrder(mapping, order);
    const after = cursor && cursor.after.length === stored.length ? cursor.after : undefined;
    // Authorization's narrowing (policy/authorizer.ts): only the rows the caller may see, counted as such.
    const visible = ctx.visibleWithin ? [...plan.store, { field: 'uid', op: 'within' as const, value: ctx.visibleWithin }] : plan.store;
    const window = { kind: mapping.name, filters: visible, order: stored, skip: params.skip, limit: params.pageSize, ...(after ? { after } : {}) };
    const result = plan.residual ? await this.#listFiltered(window, plan.residual) : await this.#store.resources.list(window);
    const skipped = (cursor?.skipped ?? 0) + params.skip;

    const last = result.rows[result.rows.length - 1];
    const next = result.more && last ? { after: cursorAfter(last, stored), skipped } : undefined;
    return { rows: result.rows, ...(next ? { next } : {}), total: result.total, skipped };
  }

  read(mapping: ResourceMapping, uid: string, _ctx: RequestContext): Promise<StoredResource> {
    return this.#existing(this.#store.resources, mapping, uid);
  }

  async readByIds(wanted: ReadonlyMap<string, readonly string[]>, _ctx: RequestContext): Promise<Map<string, Map<string, StoredResource>>> {
    const found = await Promise.all([...wanted].map(async ([kind, uids]) => [kind, await fetchByUid(this.#store.resources, kind, uids)] as const));
    return new Map(found);
  }

  async create(mapping: ResourceMapping, parent: string, value: Json, ctx: RequestContext, judge?: WriteJudge): Promise<Created<StoredResource>> {
    await this.#requireForeignParent(mapping, parent, ctx);
    return this.#store.transaction(async (tx) => {
      const prepared = await this.#prepareCreate(tx.resources, mapping, parent, value);
      const namesake = await this.#namesake(tx.resources, mapping, prepared.row);
      // Judged inside this transaction on what is stored, before it is: a binding made here must not count for its own judgement.
      await judge?.({ mapping, group: parent, documents: [prepared.row.body] });
      if (!namesake) {
        await this.#insert(tx.resources, mapping, prepared.row);
        return prepared;
      }
      if (mapping.native?.uniqueWithinParent?.onCreate !== 'replace') throw this.#taken(mapping, prepared.row);
      // An upsert: the resource of that name takes the new values and keeps its uid and create time.
      const now = prepared.row.updateTime;
      const document = this.#document(mapping, namesake.uid, prepared.row.body, namesake.createTime, now);
      const replaced = await tx.resources.replace(mapping.name, namesake.uid, document, now);
      if (!replaced) throw notFound(mapping.resourceType, namesake.uid);
      return { row: replaced, once: prepared.once };
    });
  }

  update(mapping: ResourceMapping, uid: string, patch: Patch, _ctx: RequestContext, judge?: WriteJudge): Promise<StoredResource> {
    return this.#store.transaction(async (tx) => {
      // Locked until commit: a replica patching the same resource waits rather than overwriting this change.
      const stored = await tx.resources.getForUpdate(mapping.name, uid);
      const current = stored ?? await this.#unwrittenSingleton(tx.resources, mapping, uid, true);
      if (!current) throw notFound(mapping.resourceType, uid);
      this.#refuseSeeded(mapping, uid, 'changed');
      if (patch.paths.length === 0) return current;

      // A stored body is a v2 document already: the merge and validation happen on it as it is.
      const merged = patch.apply(current.body).document;
      await requireReferenced(tx.resources, mapping, merged, patch.paths);
      const now = this.#isoNow();
      const document = this.#document(mapping, uid, normalize(mapping.fields, merged, { keepOutputOnly: true }), current.createTime, now);
      const namesake = await this.#namesake(tx.resources, mapping, { ...current, body: document });
      if (namesake && namesake.uid !== uid) throw this.#taken(mapping, { ...current, body: document });
      // Judged on the row as locked above and merged here, before it is stored: what was judged is what is written.
      await judge?.({ mapping, group: parentOf(uid), documents: [document], paths: patch.paths });
      if (!stored) {
        // A singleton's first write.
        const row = { ...current, body: document, updateTime: now };
        await this.#insert(tx.resources, mapping, row);
        return row;
      }
      const replaced = await tx.resources.replace(mapping.name, uid, document, now);
      if (!replaced) throw notFound(mapping.resourceType, uid);
      return replaced;
    });
  }

  async delete(mapping: ResourceMapping, uid: string, _ctx: RequestContext): Promise<void> {
    await this.#store.transaction(async (tx) => {
      const row = await tx.resources.getForUpdate(mapping.name, uid);
      if (!row) {
        if (mapping.delete?.idempotent) return;
        throw notFound(mapping.resourceType, uid);
      }
      this.#refuseSeeded(mapping, uid, 'deleted');
      // The store is this port's one system of record: the whole plan is its own (in translate mode the two systems' runner hands it only what the store holds).
      const plan = this.#registry.deletePlan(mapping.name);
      await this.#refuseIfParent(tx.resources, mapping, uid, plan);
      await this.#refuseIfReferenced(tx.resources, mapping, uid, plan);
      for (const referrer of plan.cascades) await deleteReferrers(tx.resources, referrer.kind, referrer.field, uid);
      await tx.resources.delete(mapping.name, uid);
    });
  }

  async batchCreate(mapping: ResourceMapping, parent: string, values: readonly Json[], singular: string, ctx: RequestContext, judge?: WriteJudge): Promise<StoredResource[]> {
    await this.#requireForeignParent(mapping, parent, ctx);
    // All or nothing: every row is inserted in one transaction, which any failure rolls back.
    return this.#store.transaction(async (tx) => {
      const prefixed = async <T>(i: number, work: () => Promise<T>): Promise<T> => {
        try {
          return await work();
        } catch (error) {
          throw withFieldPrefix(error, `requests[${i}].${singular}.`);
        }
      };
      const created: StoredResource[] = [];
      for (const [i, value] of values.entries()) created.push((await prefixed(i, () => this.#prepareCreate(tx.resources, mapping, parent, value))).row);
      // Every row judged before any is stored: a binding of the batch must not count for the judgement of another.
      await judge?.({ mapping, group: parent, documents: created.map((row) => row.body) });
      for (const [i, row] of created.entries()) await prefixed(i, () => this.#insert(tx.resources, mapping, row));
      return created;
    });
  }

  async lookup(mapping: ResourceMapping, values: Readonly<Record<string, string>>, ctx: RequestContext): Promise<Json> {
    const spec = mapping.native?.lookup;
    if (!spec) throw notFound('route', `${mapping.name} lookup`);
    const params = Object.keys(mapping.methods?.lookup?.params ?? {});
    for (const alternative of spec.match) {
      const { rows } = await this.#store.resources.list({
        kind: mapping.name,
        filters: [
          ...Object.entries(alternative).map(([param, field]) => ({ field, op: 'eq' as const, value: values[param]! })),
          // Authorization's narrowing: a resource the caller may not read is not found, so it is answered as one that does not exist.
          ...(ctx.visibleWithin ? [{ field: 'uid', op: 'within' as const, value: ctx.visibleWithin }] : []),
        ],
        order: [{ field: 'uid', desc: false }],
        skip: 0,
        limit: 1,
      });
      if (rows[0]) return { uid: rows[0].uid };
    }
    // The uid the resource will get once it exists, derived as translate mode derives it.
    return { uid: deterministicRootUid(mapping.name, ...params.map((param) => values[param]!)) };
  }

  /**
   * A list with a filter the store cannot apply: every row the store's part
   * selects, in order, filtered here, then windowed exactly as translate mode
   * windows v1's rows. Costs a scan, so only mappings with such filters pay it.
   */
  async #listFiltered(query: StoreListQuery, keep: (row: StoredResource) => boolean): Promise<StoreListResult> {
    const rows: StoredResource[] = [];
    const { kind, filters, order } = query;
    for await (const page of scanRows(this.#store.resources, { kind, filters, order }, (last) => cursorAfter(last, order))) rows.push(...page.filter(keep));
    const cursor = query.after ? { after: [...query.after], skipped: 0 } : undefined;
    const window = windowRows(rows, { order: query.order, pageSize: query.limit, skip: query.skip, cursor }, sortValue);
    return { rows: window.page, total: window.total, more: window.next !== undefined };
  }

  custom(method: CustomMethod, request: Json, ctx: RequestContext, pages: RequestPages): Promise<Json> {
    if (!method.native) throw new Error('a custom method without a native implementation was bound in native mode');
    const access: NativeAccess = {
      pages,
      store: this.#viewFor(method),
      get: async (name, uid) => {
        // A resource kept elsewhere (translate mode's v1) is read there.
        if (this.#foreign?.keeps(name)) return this.#foreign.get(name, uid, ctx);
        const mapping = this.#registry.get(name);
        return (await this.#rendered(mapping, [await this.read(mapping, uid, ctx)], ctx))[0]!;
      },
      now: () => this.#isoNow(),
    };
    return method.native(request, access, ctx);
  }

  /** True when the store answers at all (readiness). */
  async reachable(): Promise<boolean> {
    try {
      await this.#store.ping();
      return true;
    } catch {
      return false;
    }
  }

  // ---- helpers -----------------------------------------------------------

  #isoNow(): string {
    return new Date(this.#now()).toISOString();
  }

  async #existing(resources: ResourceStore, mapping: ResourceMapping, uid: string): Promise<StoredResource> {
    const row = await resources.get(mapping.name, uid) ?? await this.#unwrittenSingleton(resources, mapping, uid, false);
    if (!row) throw notFound(mapping.resourceType, uid);
    return row;
  }

  /**
   * A singleton never written, while its owner exists: its zero values, with
   * the owner's times. `lock` holds the owner's row until commit, so the
   * owner cannot be deleted under the first write.
   */
  async #unwrittenSingleton(resources: ResourceStore, mapping: ResourceMapping, uid: string, lock: boolean): Promise<StoredResource | undefined> {
    const ownerKind = mapping.native?.singletonOf;
    if (!ownerKind) return undefined;
    const owner = lock ? await resources.getForUpdate(ownerKind, uid) : await resources.get(ownerKind, uid);
    if (!owner) return undefined;
    const body = this.#document(mapping, uid, normalize(mapping.fields, {}, { keepOutputOnly: false }), owner.createTime, owner.updateTime);
    return { kind: mapping.name, uid, parent: owner.parent, body, createTime: owner.createTime, updateTime: owner.updateTime };
  }

  /** The stored document: the service-assigned uid and times set where the resource has such fields. */
  #document(mapping: ResourceMapping, uid: string, body: Json, createTime: string, updateTime: string): Json {
    const document = { ...body };
    if (mapping.fields.uid) document.uid = uid;
    if (mapping.fields.createTime) document.createTime = createTime;
    if (mapping.fields.updateTime) document.updateTime = updateTime;
    return document;
  }

  async #prepareCreate(resources: ResourceStore, mapping: ResourceMapping, parent: string, value: Json): Promise<{ row: StoredResource; once: Json }> {
    if (parent !== '') {
      if (!mapping.create) throw new Error(`${mapping.name} declares no create`);
      const parentKind = this.#registry.get(mapping.create.parentKind);
      // A parent kept elsewhere was looked up before the transaction (#requireForeignParent).
      if (!this.#foreign?.keeps(parentKind.name) && !(await resources.get(parentKind.name, parent))) throw notFound(parentKind.resourceType, parent);
    }
    await requireReferenced(resources, mapping, value);
    const now = this.#now();
    const time = new Date(now).toISOString();
    const uid = mapping.native?.uid === 'parent' ? parent : parent ? newChildUid(parent) : newRootUid();
    const generated = generate(mapping.native?.generated, value, now);
    const body = normalize(mapping.fields, value, { keepOutputOnly: false });
    for (const [field, stored] of Object.entries(generated.stored)) body[field] = stored;
    // The parent column is the uid's own parent (the store's contract): the create's parent, except for a uid that is the parent itself.
    const parentColumn = isInRoot(uid) ? '' : parentOf(uid);
    const row = { kind: mapping.name, uid, parent: parentColumn, body: this.#document(mapping, uid, body, time, time), createTime: time, updateTime: time };
    return { row, once: generated.once };
  }

  /** A parent another system keeps must exist there: looked up before any store transaction, which must not wait on a network call. */
  async #requireForeignParent(mapping: ResourceMapping, parent: string, ctx: RequestContext): Promise<void> {
    const kind = mapping.create?.parentKind;
    if (parent !== '' && kind && this.#foreign?.keeps(kind)) await this.#foreign.get(kind, parent, ctx);
  }

  /** The resource already holding the row's unique value in its parent, where the mapping declares one. */
  async #namesake(resources: ResourceStore, mapping: ResourceMapping, row: StoredResource): Promise<StoredResource | undefined> {
    const unique = mapping.native?.uniqueWithinParent;
    if (!unique) return undefined;
    const { rows } = await resources.list({
      kind: mapping.name,
      filters: [{ field: 'parent', op: 'eq', value: row.parent }, { field: unique.field, op: 'eq', value: String(row.body[unique.field] ?? '') }],
      order: [{ field: 'uid', desc: false }],
      skip: 0,
      limit: 2,
    });
    return rows.find((found) => found.uid !== row.uid) ?? rows[0];
  }

  #taken(mapping: ResourceMapping, row: StoredResource): ApiError {
    const field = mapping.native!.uniqueWithinParent!.field;
    return new ApiError(Code.ALREADY_EXISTS, `${mapping.resourceType} with ${field} ${JSON.stringify(row.body[field])} already exists in ${row.parent}`);
  }

  async #insert(resources: ResourceStore, mapping: ResourceMapping, row: StoredResource): Promise<void> {
    try {
      await resources.insert(row);
    } catch (error) {
      if (error instanceof StoreConflictError) throw new ApiError(Code.ALREADY_EXISTS, `${mapping.resourceType} "${row.uid}" already exists`);
      throw error;
    }
  }

  /** A custom method's view of the store: the kinds it declares it touches, made once per method. */
  #viewFor(method: CustomMethod): StoreView {
    let view = this.#views.get(method);
    if (!view) {
      view = storeView(this.#store, method.touches ?? []);
      this.#views.set(method, view);
    }
    return view;
  }

  #rendered(mapping: ResourceMapping, rows: readonly StoredResource[], ctx: RequestContext): Promise<Json[]> {
    if (!this.#render) throw new Error('the store\'s port was given no render stage (renderThrough)');
    return this.#render(mapping, rows, ctx);
  }

  #refuseSeeded(mapping: ResourceMapping, uid: string, verb: string): void {
    if (this.#seeded.has(`${mapping.name}\0${uid}`)) {
      throw new ApiError(Code.PERMISSION_DENIED, `${mapping.resourceType} "${uid}" is built in and cannot be ${verb}`);
    }
  }

  async #refuseIfParent(resources: ResourceStore, mapping: ResourceMapping, uid: string, plan: DeletePlan): Promise<void> {
    const children = plan.refusingChildren.map(({ kind }) => kind);
    if (children.length === 0) return;
    const refusal = resourceNotEmpty(mapping, uid, await resources.countChildren(uid, children));
    if (refusal) throw refusal;
  }


  async #refuseIfReferenced(resources: ResourceStore, mapping: ResourceMapping, uid: string, plan: DeletePlan): Promise<void> {
    for (const referrer of plan.refusingReferrers) {
      const { total } = await resources.list({
        kind: referrer.kind, filters: [{ field: referrer.field, op: 'eq', value: uid }], order: [{ field: 'uid', desc: false }], skip: 0, limit: 1,
      });
      if (total === 0) continue;
      throw failedPrecondition([{
        type: 'RESOURCE_IN_USE',
        subject: `${mapping.resourceType}/${uid}`,
        description: `${uid} is still referenced by ${total} ${referrer.kind}; delete them first`,
      }]);
    }
  }
}

/** The same error with each BadRequest field placed under `prefix` (a sub-request of a batch). */
function withFieldPrefix(error: unknown, prefix: string): unknown {
  if (!(error instanceof ApiError) || error.code !== Code.INVALID_ARGUMENT) return error;
  const badRequest = error.details.find((d) => d['@type'].endsWith('.BadRequest'));
  const violations = badRequest?.fieldViolations as { field: string; description: string }[] | undefined;
  if (!violations) return error;
  return invalidArgument(violations.map((v) => ({ field: prefix + v.field, description: v.description })));
}
