/**
 * v1 rows of several kinds by uid, for one rendering (the references of a
 * page): deduplicated, looked up in the short-lived cache, and the rest
 * fetched with one v1 list call per kind and chunk of ids, so a page costs a
 * bounded number of calls, never one per row.
 */
import { resourceExhausted } from '../aip/errors.ts';
import type { ResourceMapping } from '../vocabulary/resource.ts';
import { v1CollectionPath, v1UidKey, type MappingRegistry } from '../port/registry.ts';
import type { Json } from '../vocabulary/json.ts';
import type { V1Client } from '../v1/client.ts';
import { v1ListRows } from '../v1/answer-fields.ts';
import type { HydrationCache } from './hydration-cache.ts';
import { callerOf } from './caller-key.ts';
import type { RequestContext } from '../request/context.ts';

/** Ids per v1 call: keeps URLs well under common 8 KiB limits (a deep UIDP is ~100 characters). */
export const IDS_PER_CALL = 50;

export interface RowsByIdSource {
  v1: V1Client;
  registry: MappingRegistry;
  /** Most v1 calls one request may spend on one rendering's references. */
  maxFanOut: number;
  cache: HydrationCache;
}

type Call = { target: ResourceMapping; query: Record<string, string | string[]>; ids: string[] };

/** The rows v1 has of each kind at the given uids (a uid v1 has no row for is absent). */
export async function v1RowsById(source: RowsByIdSource, wanted: ReadonlyMap<string, readonly string[]>, ctx: RequestContext): Promise<Map<string, Map<string, Json>>> {
  const found = new Map<string, Map<string, Json>>();
  const calls: Call[] = [];
  for (const [name, uids] of wanted) {
    const target = source.registry.get(name);
    const known = new Map<string, Json>();
    found.set(name, known);
    const ids: string[] = [];
    for (const id of new Set(uids)) {
      const cached = source.cache.get(name, id, callerOf(ctx));
      if (cached === undefined) ids.push(id);
      else if (cached !== null) known.set(id, cached);
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
  if (calls.length > source.maxFanOut) {
    throw resourceExhausted('v1 calls per request', `hydrating this page needs ${calls.length} v1 calls, more than the configured fan-out limit of ${source.maxFanOut}; ask for a smaller page_size`);
  }
  // On the rendering's span (render/references.ts), which these calls are the children of.
  if (calls.length > 0) ctx.trace?.set({ 'v2gw.hydration.v1_calls': calls.length });

  await Promise.all(calls.map(async ({ target, query, ids }) => {
    const answer = await source.v1.call<{ items?: unknown }>(
      { method: 'GET', path: v1CollectionPath(target), query, authorization: ctx.authorization },
      ctx,
    );
    const byId = found.get(target.name)!;
    const uidKey = v1UidKey(target);
    for (const item of v1ListRows(answer) as Json[]) {
      if (typeof item[uidKey] === 'string') byId.set(item[uidKey] as string, item);
    }
    for (const id of ids) source.cache.set(target.name, id, callerOf(ctx), byId.get(id) ?? null);
  }));
  return found;
}
