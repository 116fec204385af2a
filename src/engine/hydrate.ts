/**
 * Hydration: filling v2 fields that v1 rows only reference by id (a role
 * binding's identity name, say). The ids a page needs are collected first,
 * deduplicated, looked up in the short-lived cache, and the rest fetched with
 * one v1 list call per resource and chunk, so a page costs a bounded number of
 * calls, never one per row.
 */
import { resourceExhausted } from '../aip/errors.ts';
import type { FieldSpec, ResourceMapping } from '../vocabulary/resource.ts';
import { v1CollectionPath, v1UidKey, type MappingRegistry } from './registry.ts';
import { getPath, isObject, type Json } from '../vocabulary/json.ts';
import { typeOf } from '../vocabulary/resource.ts';
import type { LookupResolver } from '../render/v1-row.ts';
import type { CallScope, V1Client } from '../v1/client.ts';
import { inChildSpan } from '../observability/tracing.ts';
import { v1ListRows } from '../v1/errors.ts';
import type { HydrationCache } from './hydration-cache.ts';
import { callerOf } from './caller-key.ts';
import type { RequestContext } from '../operation/context.ts';

/** Ids per v1 call: keeps URLs well under common 8 KiB limits (a deep UIDP is ~100 characters). */
export const IDS_PER_CALL = 50;

export interface HydrationContext {
  v1: V1Client;
  registry: MappingRegistry;
  /** The request's own context: its caller, deadline and counters. */
  request: RequestContext;
  /** Most v1 calls one request may spend on hydration. */
  maxFanOut: number;
  cache: HydrationCache;
}

type Wanted = Map<string, Set<string>>;

function collect(fields: Readonly<Record<string, FieldSpec>>, row: Json, wanted: Wanted): void {
  for (const [key, spec] of Object.entries(fields)) {
    if (spec.lookup) {
      const id = getPath(row, spec.lookup.by);
      if (typeof id === 'string' && id) {
        const ids = wanted.get(spec.lookup.resource) ?? new Set<string>();
        ids.add(id);
        wanted.set(spec.lookup.resource, ids);
      }
      continue;
    }
    if (typeOf(spec) !== 'message' || !spec.fields || spec.v1 === null) continue;
    const source = spec.v1 === '.' ? row : getPath(row, spec.v1 ?? key);
    for (const nested of Array.isArray(source) ? source : [source]) {
      if (isObject(nested)) collect(spec.fields, nested, wanted);
    }
  }
}

function hasLookups(fields: Readonly<Record<string, FieldSpec>>): boolean {
  return Object.values(fields).some((spec) => !!spec.lookup || (!!spec.fields && hasLookups(spec.fields)));
}

const withLookups = new WeakMap<ResourceMapping, boolean>();

/** Whether the mapping's rows hold references to look up (worked out once per mapping). */
export function needsHydration(mapping: ResourceMapping): boolean {
  let needs = withLookups.get(mapping);
  if (needs === undefined) withLookups.set(mapping, (needs = hasLookups(mapping.fields)));
  return needs;
}

/** A resolver for the references in `rows`, or undefined when the mapping has none. */
export async function hydrate(mapping: ResourceMapping, rows: readonly Json[], ctx: HydrationContext): Promise<LookupResolver | undefined> {
  if (!needsHydration(mapping)) return undefined;
  const wanted: Wanted = new Map();
  for (const row of rows) collect(mapping.fields, row, wanted);

  const found = new Map<string, Map<string, Json | null>>();
  const calls: Call[] = [];
  for (const [name, idSet] of wanted) {
    const target = ctx.registry.get(name);
    const known = new Map<string, Json | null>();
    found.set(name, known);
    const ids: string[] = [];
    for (const id of idSet) {
      const cached = ctx.cache.get(name, id, callerOf(ctx.request));
      if (cached === undefined) ids.push(id);
      else known.set(id, cached);
    }
    if (target.v1.idsParam) {
      for (let i = 0; i < ids.length; i += IDS_PER_CALL) {
        const chunk = ids.slice(i, i + IDS_PER_CALL);
        calls.push({ target, query: { [target.v1.idsParam]: chunk }, ids: chunk });
      }
    } else {
      for (const id of ids) calls.push({ target, query: { [target.v1.idParam]: id }, ids: [id] });
    }
  }
  if (calls.length > ctx.maxFanOut) {
    throw resourceExhausted('v1 calls per request', `hydrating this page needs ${calls.length} v1 calls, more than the configured fan-out limit of ${ctx.maxFanOut}; ask for a smaller page_size`);
  }

  const lookups = [...wanted.values()].reduce((sum, ids) => sum + ids.size, 0);
  const attributes = { 'v2gw.resource': mapping.name, 'v2gw.hydration.lookups': lookups, 'v2gw.hydration.v1_calls': calls.length };
  // A step of the request's trace, whose v1 calls are its children.
  await inChildSpan(ctx.request.trace, `hydrate ${mapping.name}`, attributes, (trace) => fetchAll(ctx, calls, found, trace === ctx.request.trace ? ctx.request : { ...ctx.request, trace }));

  return (resource, id, pick) => getPath(found.get(resource)?.get(id) ?? undefined, pick);
}

type Call = { target: ResourceMapping; query: Record<string, string | string[]>; ids: string[] };

/** The v1 list calls that fetch what the cache did not have, each row kept in `found` and in the cache. */
async function fetchAll(ctx: HydrationContext, calls: readonly Call[], found: Map<string, Map<string, Json | null>>, scope: CallScope): Promise<void> {
  await Promise.all(calls.map(async ({ target, query, ids }) => {
    const answer = await ctx.v1.call<{ items?: unknown }>(
      { method: 'GET', path: v1CollectionPath(target), query, authorization: ctx.request.authorization },
      scope,
    );
    const byId = found.get(target.name)!;
    const uidKey = v1UidKey(target);
    for (const item of v1ListRows(answer) as Json[]) {
      if (typeof item[uidKey] === 'string') byId.set(item[uidKey] as string, item);
    }
    for (const id of ids) {
      if (!byId.has(id)) byId.set(id, null);
      ctx.cache.set(target.name, id, callerOf(ctx.request), byId.get(id)!);
    }
  }));
}
