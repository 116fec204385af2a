/**
 * v2beta1 operations carried out against a v1 backend, for any mapping:
 * List (fetch all, filter, order, window, hydrate the page), Get (List by id),
 * Create, Update (read-modify-write of v1's whole-resource PUT) and Delete.
 */
import { ApiError, failedPrecondition, invalidField, notFound } from '../aip/errors.ts';
import { maskFromBody, maskPaths, parseMask } from '../aip/field-mask.ts';
import { parseListParams, type RawQuery } from '../aip/list-request.ts';
import { windowRows } from '../aip/list-window.ts';
import { formatOrderBy, parseOrderBy } from '../aip/order-by.ts';
import { queryFingerprint, type PageTokenCodec } from '../aip/page-token.ts';
import { Code } from '../rpc-status.ts';
import { isChildOf, isUidp } from '../uidp.ts';
import { uidpPath, type V1Client } from '../v1/client.ts';
import type { TimestampStore } from '../store/types.ts';
import type { Backend, RequestContext } from './backend.ts';
import { hydrate } from './hydrate.ts';
import { KeyedMutex } from './keyed-mutex.ts';
import { parseFilters } from './list-query.ts';
import type { ResourceMapping } from './mapping.ts';
import { v1CollectionPath, v1UidKey, type MappingRegistry } from './registry.ts';
import {
  copyV2Path, getPath, isObject, pathsToKeep, readBody, renderV2, restoreV1Paths, toV1, validationScope, writeV1Path, type Json,
} from './shape.ts';
import { validate } from './validate.ts';

export interface V1BackendOptions {
  v1: V1Client;
  registry: MappingRegistry;
  tokens: PageTokenCodec;
  maxFanOut: number;
  /** Where the times v1 does not supply are kept; without it they render as v1 gives them (null). */
  times?: TimestampStore;
}

export class V1Backend implements Backend {
  readonly #v1: V1Client;
  readonly #registry: MappingRegistry;
  readonly #tokens: PageTokenCodec;
  readonly #maxFanOut: number;
  readonly #writes = new KeyedMutex();

  constructor(options: V1BackendOptions) {
    this.#v1 = options.v1;
    this.#registry = options.registry;
    this.#tokens = options.tokens;
    this.#maxFanOut = options.maxFanOut;
  }

  async list(mapping: ResourceMapping, query: RawQuery, ctx: RequestContext): Promise<Json> {
    const params = parseListParams(query);
    const filters = parseFilters(mapping, query);
    const order = parseOrderBy(params.orderBy, mapping.orderBy);
    const fingerprint = queryFingerprint({ resource: mapping.name, filters: filters.canonical, order: formatOrderBy(order) });
    const cursor = params.pageToken ? this.#tokens.open(params.pageToken, fingerprint) : undefined;

    // Every v1 row is rendered only as far as filtering and ordering need; the page alone is rendered in full.
    const keyFields = fieldsFor(mapping, [...filters.fields, ...order.map((k) => k.field)]);
    const rows = (await this.#listV1(mapping, filters.v1Query, ctx))
      .map((v1) => ({ v1, v2: renderV2(keyFields, v1) }))
      .filter((row) => filters.matches(row.v2));
    const window = windowRows(rows, { order, pageSize: params.pageSize, skip: params.skip, cursor }, (row, field) => getPath(row.v2, field));
    const page = await this.#renderHydrated(mapping, window.page.map((row) => row.v1), ctx);

    const body: Json = { [mapping.name]: page };
    if (window.next) body.nextPageToken = this.#tokens.seal(fingerprint, window.next);
    body.totalCount = String(window.total);
    body.skipped = window.skipped;
    return body;
  }

  async get(mapping: ResourceMapping, uid: string, ctx: RequestContext): Promise<Json> {
    requireUidp('uid', uid);
    const [resource] = await this.#renderHydrated(mapping, [await this.#fetchRow(mapping, uid, ctx)], ctx);
    return resource!;
  }

  async create(mapping: ResourceMapping, parent: string, body: Json, ctx: RequestContext): Promise<Json> {
    if (parent !== '' || mapping.create?.parent !== 'optional') requireUidp('parent', parent);
    // protojson discards unknown keys on decode, so a create ignores them.
    const { value } = readBody(mapping.fields, body);
    validate(mapping.validate, value);
    const created = await this.#v1.call<Json>(
      { method: 'POST', path: joinPath(v1CollectionPath(mapping), parent), body: toV1(mapping.fields, value), authorization: ctx.authorization },
      ctx.counter,
    );
    return this.#answerWrite(mapping, created, ctx);
  }

  async update(mapping: ResourceMapping, uid: string, body: Json, maskText: string | undefined, ctx: RequestContext): Promise<Json> {
    requireUidp('uid', uid);
    const { value, unknown } = readBody(mapping.fields, body);
    const explicit = parseMask(maskText, mapping.fields);
    if (!explicit && unknown.length > 0) throw invalidField(unknown[0]!, `could not find field "${unknown[0]}" in the resource`);
    const paths = maskPaths(explicit ?? maskFromBody(value, mapping.fields), mapping.fields);

    return this.#writes.run(`${mapping.name}\0${uid}`, async () => {
      const row = await this.#fetchRow(mapping, uid, ctx);
      if (paths.length === 0) return (await this.#renderHydrated(mapping, [row], ctx))[0]!;

      const merged = renderV2(mapping.fields, row);
      const keep = pathsToKeep(mapping.fields, merged, value, paths);
      for (const path of paths) copyV2Path(mapping.fields, value, merged, path);
      validate(mapping.validate, merged, validationScope(mapping.fields, paths));

      // Start from v1's own row so fields v2 does not show (or shows as output-only) survive the PUT.
      const before = projectRow(row, mapping.v1.writeShape);
      const put = structuredClone(before);
      for (const path of paths) writeV1Path(mapping.fields, put, path, getPath(value, path));
      restoreV1Paths(mapping.fields, before, put, keep);
      const written = await this.#v1.call<Json>(
        { method: 'PUT', path: joinPath(v1CollectionPath(mapping), uid), body: put, authorization: ctx.authorization },
        ctx.counter,
      );
      return this.#answerWrite(mapping, written, ctx);
    });
  }

  async delete(mapping: ResourceMapping, uid: string, ctx: RequestContext): Promise<Json> {
    requireUidp('uid', uid);
    const guarded = mapping.delete?.refuseWhileParentOf ?? [];
    if (guarded.length > 0) await this.#refuseIfParent(mapping, uid, guarded, ctx);
    try {
      await this.#v1.call({ method: 'DELETE', path: joinPath(v1CollectionPath(mapping), uid), authorization: ctx.authorization }, ctx.counter);
    } catch (error) {
      if (!(mapping.delete?.idempotent && error instanceof ApiError && error.code === Code.NOT_FOUND)) throw error;
    }
    return {};
  }

  async batchCreate(mapping: ResourceMapping): Promise<Json> {
    throw new ApiError(Code.UNIMPLEMENTED, `batch create of ${mapping.name} is not served yet`);
  }

  async lookup(mapping: ResourceMapping): Promise<Json> {
    throw new ApiError(Code.UNIMPLEMENTED, `lookup of ${mapping.name} is not served yet`);
  }

  // ---- helpers -----------------------------------------------------------

  async #listV1(mapping: ResourceMapping, query: Json, ctx: RequestContext): Promise<Json[]> {
    const answer = await this.#v1.call<{ items?: unknown }>(
      { method: 'GET', path: v1CollectionPath(mapping), query: query as Record<string, string>, authorization: ctx.authorization },
      ctx.counter,
    );
    return Array.isArray(answer.items) ? answer.items.filter(isObject) : [];
  }

  /** v1 has no Get: list by id, and treat an empty answer as NOT_FOUND. */
  async #fetchRow(mapping: ResourceMapping, uid: string, ctx: RequestContext): Promise<Json> {
    const uidKey = v1UidKey(mapping);
    const rows = await this.#listV1(mapping, { [mapping.v1.idParam]: uid }, ctx);
    // Match the id ourselves: a v1 that ignored the filter must not make us answer with another row.
    const row = rows.find((r) => r[uidKey] === uid);
    if (!row) throw notFound(mapping.resourceType, uid);
    return row;
  }

  async #answerWrite(mapping: ResourceMapping, written: Json, ctx: RequestContext): Promise<Json> {
    let row = written;
    if (mapping.v1.rereadAfterWrite) {
      row = await this.#fetchRow(mapping, String(written[v1UidKey(mapping)] ?? ''), ctx);
      for (const key of mapping.v1.createAnswerOnly ?? []) if (written[key] !== undefined) row = { ...row, [key]: written[key] };
    }
    return (await this.#renderHydrated(mapping, [row], ctx))[0]!;
  }

  async #renderHydrated(mapping: ResourceMapping, rows: readonly Json[], ctx: RequestContext): Promise<Json[]> {
    const resolve = await hydrate(mapping, rows, {
      v1: this.#v1, registry: this.#registry, authorization: ctx.authorization, counter: ctx.counter, maxFanOut: this.#maxFanOut,
    });
    return rows.map((row) => renderV2(mapping.fields, row, resolve));
  }

  async #refuseIfParent(mapping: ResourceMapping, uid: string, children: readonly string[], ctx: RequestContext): Promise<void> {
    const counts = await Promise.all(children.map(async (name) => {
      const child = this.#registry.get(name);
      const childOf = Object.values(child.filters).find((f) => f.op === 'childOf' && f.v1);
      const rows = await this.#listV1(child, childOf?.v1 ? { [childOf.v1]: uid } : {}, ctx);
      const uidKey = v1UidKey(child);
      return { name, count: rows.filter((r) => typeof r[uidKey] === 'string' && isChildOf(r[uidKey] as string, uid)).length };
    }));
    const found = counts.filter((c) => c.count > 0);
    if (found.length === 0) return;
    const what = found.map((c) => `${c.count} ${c.name}`).join(', ');
    throw failedPrecondition([{
      type: 'RESOURCE_NOT_EMPTY',
      subject: `${mapping.resourceType}/${uid}`,
      description: `${uid} still contains ${what}; delete them first`,
    }]);
  }
}

/** The top-level field specs that the given v2 paths pass through. */
function fieldsFor(mapping: ResourceMapping, paths: readonly string[]): ResourceMapping['fields'] {
  const tops = new Set(paths.map((path) => path.split('.')[0]!));
  return Object.fromEntries(Object.entries(mapping.fields).filter(([key]) => tops.has(key)));
}

function requireUidp(field: string, value: string): void {
  if (!isUidp(value)) throw invalidField(field, value ? `"${value}" is not a valid UIDP` : 'is required');
}

function joinPath(collection: string, uidp: string): string {
  return uidp ? `${collection}/${uidpPath(uidp)}` : collection;
}

/** The PUT body from a list row: the row itself, or the declared projection when PUT takes another shape. */
function projectRow(row: Json, shape: Readonly<Record<string, string>> | undefined): Json {
  if (!shape) return structuredClone(row);
  return Object.fromEntries(Object.entries(shape).map(([key, path]) => [key, structuredClone(getPath(row, path))]));
}
