/**
 * The v1 adapter of the backend port: v2beta1 operations as v1 calls, for any
 * mapping. List (v1-list/: a plain reader with its speed-ups around it; the
 * page's rows answered for the runner to render), Get (List by id), rows by id
 * (v1-rows-by-id.ts), Create, Update (read-modify-write of v1's
 * whole-resource PUT) and Delete. Its rows are v1's own; `rows` declares how
 * they become v2 documents, and which rules v1 holds writes to beyond v2's.
 */
import { ApiError, notFound } from '../aip/errors.ts';
import { Code } from '../rpc-status.ts';
import { deterministicRootUid, isChildOf } from '../uidp.ts';
import type { V1Client } from '../v1/client.ts';
import { uidpPath } from '../uidp.ts';
import { jsonKind, v1ListRows } from '../v1/answer-fields.ts';
import { unreadable } from '../v1/errors.ts';
import { ListScanMemo } from '../v1/list-scan-memo.ts';
import type { ResourceTimes, TimestampStore } from '../store/types.ts';
import type { BackendPort, Created, KeptTimesByUid, Page, Patch, RenderRows, RequestContext, RowConversion } from '../port/backend.ts';
import { refuseJudged, type WriteJudge } from '../port/write-judge.ts';
import type { CustomMethod, RequestPages, V1Access } from '../vocabulary/custom-method.ts';
import { IDS_PER_CALL, v1RowsById } from './v1-rows-by-id.ts';
import { referencesToFill, type Carries } from '../vocabulary/references.ts';
import { HydrationCache } from './hydration-cache.ts';
import { WalkCache } from './walk-cache.ts';
import { KeptRenderings } from './kept-renderings.ts';
import { v1List, type V1List } from './v1-list/compose.ts';
import { v1ClientSource } from './v1-list/source.ts';
import { applyKeptTimes, KeptTimes } from './kept-times.ts';
import type { ListQuery } from '../port/list-query.ts';
import type { ResourceMapping } from '../vocabulary/resource.ts';
import { heldBy, resourceNotEmpty } from '../port/delete-plan.ts';
import { v1CollectionPath, v1UidKey, type MappingRegistry } from '../port/registry.ts';
import { getPath, type Json } from '../vocabulary/json.ts';
import { renderV2 } from './v1-row.ts';
import { restoreV1Paths, toV1, writeV1Path } from './v1-body.ts';

export interface V1BackendOptions {
  v1: V1Client;
  registry: MappingRegistry;
  maxFanOut: number;
  /** Where the times v1 does not supply are kept; without it they render as v1 gives them (null). */
  times?: TimestampStore;
  /** Rows fetched for hydration, reused across requests for a short while. */
  cache?: HydrationCache;
  /** The order of a walk's matching rows, kept from its first page for its later pages. */
  walks?: WalkCache;
  /** v1 lists read before, reused when v1 answers the same bytes again. */
  scans?: ListScanMemo;
  now?: () => number;
  /** Told of each page's lookups in the kept-times cache (for metrics). */
  onKeptTimesLookup?: (hits: number, misses: number) => void;
}

export class V1Backend implements BackendPort {
  readonly #v1: V1Client;
  readonly #registry: MappingRegistry;
  readonly #maxFanOut: number;
  readonly #cache: HydrationCache;
  readonly #walks: WalkCache;
  readonly #scans: ListScanMemo;
  readonly #keptTimes: boolean;
  readonly #list: V1List;
  readonly #renderings = new KeptRenderings();
  #render: RenderRows<Json> | undefined;
  readonly #times: KeptTimes;

  /** v1 rows become v2 documents by the mapping's renames (translate/v1-row.ts), with the times the gateway keeps. */
  readonly rows: RowConversion<Json> = {
    mode: 'translate',
    documents: (mapping, rows, _ctx, times) => this.#documents(mapping, rows, times),
    target: (kind, row) => renderV2(this.#registry.get(kind).fields, row),
    carries: v1Carries,
    rules: (mapping) => mapping.v1.validate,
  };

  constructor(options: V1BackendOptions) {
    this.#v1 = options.v1;
    this.#registry = options.registry;
    this.#maxFanOut = options.maxFanOut;
    this.#cache = options.cache ?? new HydrationCache({ ttlMs: 0 });
    this.#walks = options.walks ?? new WalkCache({ ttlMs: 0, maxBytes: 0 });
    this.#times = new KeptTimes(options.times, options.now, options.onKeptTimesLookup);
    this.#scans = options.scans ?? new ListScanMemo({ maxBytes: 0 });
    this.#keptTimes = options.times !== undefined;
    // v1's lists are always scanned; a memo of 0 bytes keeps no reading past its request.
    this.#list = v1List({
      source: v1ClientSource(this.#v1),
      maxFanOut: this.#maxFanOut,
      scans: this.#scans,
      // What a List works out is kept with a reading for the next List given it; with no reading kept past
      // its request there is none, and keeping would be bookkeeping (a map a reading, keys a stage) for nothing.
      readingMemo: this.#scans.keeps ? { rendersAlone: (m) => referencesToFill(m, v1Carries).length === 0, renderings: this.#renderings } : undefined,
      walks: this.#walks.enabled ? this.#walks : undefined,
      keptTimes: this.#keptTimes ? this.#times : undefined,
    });
  }

  /** The render stage this port's custom methods render through. */
  renderThrough(render: RenderRows<Json>): void {
    this.#render = render;
  }

  list(mapping: ResourceMapping, query: ListQuery, ctx: RequestContext): Promise<Page<Json>> {
    return this.#list(mapping, query, ctx);
  }

  read(mapping: ResourceMapping, uid: string, ctx: RequestContext): Promise<Json> {
    return this.#fetchRow(mapping, uid, ctx);
  }

  readByIds(wanted: ReadonlyMap<string, readonly string[]>, ctx: RequestContext): Promise<Map<string, Map<string, Json>>> {
    return v1RowsById({ v1: this.#v1, registry: this.#registry, maxFanOut: this.#maxFanOut, cache: this.#cache }, wanted, ctx);
  }

  async create(mapping: ResourceMapping, parent: string, value: Json, ctx: RequestContext, judge?: WriteJudge): Promise<Created<Json>> {
    refuseJudged(judge, 'the v1 port');
    const created = await this.#v1.call<Json>(
      {
        method: 'POST',
        path: joinPath(v1CollectionPath(mapping), parent),
        ...(mapping.v1.createQuery ? { query: mapping.v1.createQuery } : {}),
        body: toV1(mapping.fields, value),
        authorization: ctx.authorization,
      },
      ctx,
    );
    const uid = v1RowUid(mapping, created);
    this.#changed(mapping.name, uid);
    await this.#times.created(mapping, uid);
    return { row: await this.#writtenRow(mapping, created, ctx) };
  }

  async update(mapping: ResourceMapping, uid: string, patch: Patch, ctx: RequestContext, judge?: WriteJudge): Promise<Json> {
    refuseJudged(judge, 'the v1 port');
    const row = await this.#fetchRow(mapping, uid, ctx);
    if (patch.paths.length === 0) return row;
    // The merge is in v2 document space, onto the row as v2 renders it (without references, which are output only).
    const { document, keep } = patch.apply(renderV2(mapping.fields, row));

    // Start from v1's own row so fields v2 does not show (or shows as output-only) survive the PUT.
    const before = projectRow(row, mapping.v1.writeShape);
    const put = structuredClone(before);
    for (const path of patch.paths) writeV1Path(mapping.fields, put, path, getPath(document, path));
    // What kept its value is v1's own, byte for byte (a secret v2 never shows included).
    restoreV1Paths(mapping.fields, before, put, keep);
    const written = await this.#v1.call<Json>(
      { method: 'PUT', path: joinPath(v1CollectionPath(mapping), uid), body: put, authorization: ctx.authorization },
      ctx,
    );
    this.#changed(mapping.name, uid);
    await this.#times.touched(mapping, uid);
    return this.#writtenRow(mapping, written, ctx);
  }

  async delete(mapping: ResourceMapping, uid: string, ctx: RequestContext): Promise<void> {
    // The children the store holds are counted beside this port (operation/two-systems.ts); v1's are counted here.
    const guarded = heldBy(this.#registry.deletePlan(mapping.name).refusingChildren, 'v1').map(({ kind }) => kind);
    if (guarded.length > 0) await this.#refuseIfParent(mapping, uid, guarded, ctx);
    try {
      await this.#v1.call({ method: 'DELETE', path: joinPath(v1CollectionPath(mapping), uid), authorization: ctx.authorization }, ctx);
    } catch (error) {
      if (!(mapping.delete?.idempotent && error instanceof ApiError && error.code === Code.NOT_FOUND)) throw error;
    } finally {
      this.#changed(mapping.name, uid);
    }
    await this.#times.forget(mapping, uid);
  }

  async batchCreate(mapping: ResourceMapping, parent: string, values: readonly Json[], _singular: string, ctx: RequestContext, judge?: WriteJudge): Promise<Json[]> {
    refuseJudged(judge, 'the v1 port');
    const method = mapping.methods!.batchCreate!;
    const v1Items = values.map((value) => toV1(mapping.fields, value));
    // v1's batch endpoint is one call, so the batch is as atomic as v1 makes it.
    const answer = await this.#v1.call<Json>({
      method: 'POST', path: joinPath(`/${mapping.service}/v1/${method.v1Collection}`, parent), body: v1Items, authorization: ctx.authorization,
    }, ctx);
    const uidKey = v1UidKey(mapping);
    const created = v1ListRows({ items: Object.values(answer).find(Array.isArray) }).map((row) => v1RowUid(mapping, row as Json));
    for (const uid of created) {
      this.#changed(mapping.name, uid);
      await this.#times.created(mapping, uid);
    }
    const rows = mapping.v1.rereadAfterWrite ? await this.#fetchRows(mapping, created, ctx) : [];
    const byUid = new Map(rows.map((row) => [String(row[uidKey]), row]));
    return created.map((uid) => byUid.get(uid)).filter((row): row is Json => row !== undefined);
  }

  async lookup(mapping: ResourceMapping, params: Readonly<Record<string, string>>, ctx: RequestContext): Promise<Json> {
    const method = mapping.methods!.lookup!;
    const values = Object.keys(method.params).map((name) => params[name]!);
    const v1Query = Object.fromEntries(Object.entries(method.params).map(([name, v1Key]) => [v1Key, params[name]!]));
    try {
      const found = await this.#v1.call<Json>(
        { method: 'GET', path: `/${mapping.service}/v1/${method.v1Path}`, query: v1Query, authorization: ctx.authorization },
        ctx,
      );
      return { uid: v1RowUid(mapping, found) };
    } catch (error) {
      if (!(error instanceof ApiError && error.code === Code.NOT_FOUND)) throw error;
      // v2 answers with the uid the resource will get once it exists; v1 has no such notion, so the gateway derives one.
      return { uid: deterministicRootUid(mapping.name, ...values) };
    }
  }

  custom(method: CustomMethod, request: Json, ctx: RequestContext, pages: RequestPages): Promise<Json> {
    if (!method.translate) throw new Error('a custom method without a translate implementation was bound in translate mode');
    return method.translate(request, this.#access(ctx, pages), ctx);
  }

  // ---- helpers -----------------------------------------------------------

  /** A write through the gateway: the resource's cached row and its collection's kept walks no longer hold. */
  #changed(resource: string, uid: string): void {
    this.#cache.invalidate(resource, uid);
    this.#walks.invalidate(resource);
  }

  /** What a custom method may do over v1, for one request. */
  #access(ctx: RequestContext, pages: RequestPages): V1Access {
    const render = this.#render;
    if (!render) throw new Error('the v1 port was given no render stage (renderThrough)');
    return {
      pages,
      call: (call) => this.#v1.call({ ...call, authorization: ctx.authorization }, ctx),
      render: async (name, row) => (await render(this.#registry.get(name), [row], ctx))[0]!,
      row: (name, uid) => this.#fetchRow(this.#registry.get(name), uid, ctx),
      changed: (name, uid) => this.#changed(name, uid),
    };
  }

  async #listV1(mapping: ResourceMapping, query: Json, ctx: RequestContext): Promise<Json[]> {
    return v1ListRows(await this.#listCall(mapping, query, ctx)) as Json[];
  }

  /** v1's answer to a list of the mapping's collection: the call itself, not awaited (a Get awaits it once, in #fetchRow). */
  #listCall(mapping: ResourceMapping, query: Json, ctx: RequestContext): Promise<{ items?: unknown }> {
    return this.#v1.call({ method: 'GET', path: v1CollectionPath(mapping), query: query as Record<string, string>, authorization: ctx.authorization }, ctx);
  }

  /** v1 has no Get: list by id, and treat an empty answer as NOT_FOUND. */
  async #fetchRow(mapping: ResourceMapping, uid: string, ctx: RequestContext): Promise<Json> {
    const uidKey = v1UidKey(mapping);
    // The list call awaited here, not through #listV1: one async frame fewer on every Get.
    const rows = v1ListRows(await this.#listCall(mapping, { [mapping.v1.idParam]: uid }, ctx)) as Json[];
    // Match the id ourselves: a v1 that ignored the filter must not make us answer with another row.
    const row = rows.find((r) => r[uidKey] === uid);
    if (!row) {
      await this.#times.forget(mapping, uid);
      throw notFound(mapping.resourceType, uid);
    }
    return row;
  }

  /** The row a write answers: v1's answer, or the row read back where v1 answers in another shape. */
  async #writtenRow(mapping: ResourceMapping, written: Json, ctx: RequestContext): Promise<Json> {
    let row = written;
    if (mapping.v1.rereadAfterWrite) {
      row = await this.#fetchRow(mapping, v1RowUid(mapping, written), ctx);
      for (const key of mapping.v1.createAnswerOnly ?? []) if (written[key] !== undefined) row = { ...row, [key]: written[key] };
    }
    return row;
  }

  /** Rows by id in one v1 call per chunk (the ids filter), or one call per id when v1 has no such filter. */
  async #fetchRows(mapping: ResourceMapping, uids: readonly string[], ctx: RequestContext): Promise<Json[]> {
    if (uids.length === 0) return [];
    const idsParam = mapping.v1.idsParam;
    if (!idsParam) return Promise.all(uids.map((uid) => this.#fetchRow(mapping, uid, ctx)));
    // A chunk of ids per call keeps the query string well inside v1's header limits (a page may hold 200).
    const chunks: string[][] = [];
    for (let i = 0; i < uids.length; i += IDS_PER_CALL) chunks.push(uids.slice(i, i + IDS_PER_CALL));
    return (await Promise.all(chunks.map((chunk) => this.#listV1(mapping, { [idsParam]: chunk }, ctx)))).flat();
  }

  /** The rows as v2 documents, kept times set (`times` when the caller already has them). */
  #documents(mapping: ResourceMapping, rows: readonly Json[], times?: KeptTimesByUid): Json[] | Promise<Json[]> {
    const uidKey = v1UidKey(mapping);
    const make = (row: Json, times: ResourceTimes | undefined) => v1Document(mapping, row, times);
    const render = (found: KeptTimesByUid | undefined) => rows.map((row) => this.#renderings.document(row, found?.get(String(row[uidKey])), make));
    if (times) return render(times);
    const lacking = this.#times.lacking(mapping, rows, uidKey);
    // v1 gave every time it should have (a Get, most answers): no store lookup, and no await for one.
    return lacking.length > 0 ? this.#times.forUids(mapping, lacking).then(render) : render(undefined);
  }

  async #refuseIfParent(mapping: ResourceMapping, uid: string, children: readonly string[], ctx: RequestContext): Promise<void> {
    const counts = await Promise.all(children.map(async (name) => {
      const child = this.#registry.get(name);
      const childOf = Object.values(child.filters).find((f) => f.op === 'childOf' && f.v1);
      const rows = await this.#listV1(child, childOf?.v1 ? { [childOf.v1]: uid } : {}, ctx);
      const uidKey = v1UidKey(child);
      return [name, rows.filter((r) => typeof r[uidKey] === 'string' && isChildOf(r[uidKey] as string, uid)).length] as const;
    }));
    const refusal = resourceNotEmpty(mapping, uid, Object.fromEntries(counts));
    if (refusal) throw refusal;
  }

}

function joinPath(collection: string, uidp: string): string {
  return uidp ? `${collection}/${uidpPath(uidp)}` : collection;
}

/** The PUT body from a list row: the row itself, or the declared projection when PUT takes another shape. */
function projectRow(row: Json, shape: Readonly<Record<string, string>> | undefined): Json {
  if (!shape) return structuredClone(row);
  return Object.fromEntries(Object.entries(shape).map(([key, path]) => [key, structuredClone(getPath(row, path))]));
}

/** The id of a row v1 answered for a write or a lookup: one that lacks it, as a string, is no answer the gateway can use. */
function v1RowUid(mapping: ResourceMapping, row: Json): string {
  const key = v1UidKey(mapping);
  const value = row[key];
  if (typeof value === 'string' && value !== '') return value;
  throw unreadable(200, `\`${key}\` is ${value === undefined ? 'missing' : value === '' ? 'empty' : `a ${jsonKind(value)}`} where the new row's id belongs`);
}

/** What v1's rows carry themselves: every field with a v1 source (a reference fills the others). */
const v1Carries: Carries = (spec) => spec.v1 !== null;

/** A v1 row as its v2 document: the mapping's renames, blank times set from `times`. */
function v1Document(mapping: ResourceMapping, row: Json, times: ResourceTimes | undefined): Json {
  return applyKeptTimes(mapping, renderV2(mapping.fields, row), times);
}
