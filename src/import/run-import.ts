/**
 * Copies what v1 holds into the native store: every v1 list the mappings read,
 * each read once and written as every resource that lives in it (a repo's row
 * is a repo and its readme), a batch at a time. Resources v1 does not have
 * (a mapping's `keptInStore`) are not v1's to give and are left as they are.
 */
import { KeptTimes } from '../translate/kept-times.ts';
import { keptByV1, type ResourceMapping } from '../vocabulary/resource.ts';
import type { MappingRegistry } from '../port/registry.ts';
import { v1CollectionPath } from '../port/registry.ts';
import type { Json } from '../vocabulary/json.ts';
import { BY_UID, scanRows } from '../store/scan.ts';
import type { Store } from '../store/types.ts';
import { isDescendantOf } from '../uidp.ts';
import { isZeroSingleton, secretFields, storedRows } from './stored-rows.ts';
import { V1Client } from '../v1/client.ts';
import { importReader } from './v1-reader.ts';
import type { V1Copy, V1Reader } from '../../mappings/methods/store-rows.ts';
import { writeBatch } from './write-batch.ts';

export interface V1Source {
  /** v1's base URL (scheme, host, port). */
  url: string;
  /** The Authorization header sent with every call: never logged, never in an error. */
  authorization: string;
  /** Deadline for the headers of each answer and for each gap between its chunks. */
  timeoutMs: number;
}

export interface ResourceSummary {
  resource: string;
  read: number;
  written: number;
  unchanged: number;
  refused: number;
  /** Why rows were refused, with how many each (at most a few reasons, each once). */
  reasons: Record<string, number>;
  /** Fields v1 never returns, so not carried: the store holds them empty. */
  notCarried: string[];
  /** Rows the store holds that v1 no longer shows (deleted in v1 since an earlier import). */
  stale: number;
  /** Of those, how many were deleted (`prune`). */
  pruned: number;
}

export interface ImportOptions {
  /** v1, and the credentials to read it with, through a v1 client of the import's own. */
  source: V1Source;
  store: Store;
  registry: MappingRegistry;
  /** What native mode holds only as copies of v1's data (mappings/index.ts COPIES_FROM_V1), made after the resources. */
  copies?: readonly V1Copy[];
  /** Only these organisations and what lies under them; empty: everything v1 shows the token. */
  roots: readonly string[];
  /** Rows per transaction. */
  batch?: number;
  /** Delete the store's rows of v1's resources that v1 no longer shows; otherwise they are only counted. */
  prune?: boolean;
  /** Told after every batch, for a progress line. */
  onProgress?: (summary: ResourceSummary) => void;
  now?: () => number;
}

/** Rows per transaction: large enough that a commit's cost is spread, small enough that memory stays flat. */
export const DEFAULT_BATCH = 500;

/**
 * The lists to read, in an order that puts parents before what refers to them
 * (groups, then the resources under groups, repos before tags), each with the
 * mappings whose rows it holds.
 */
export function importPlan(registry: MappingRegistry): { path: string; mappings: ResourceMapping[] }[] {
  const byPath = new Map<string, ResourceMapping[]>();
  for (const mapping of registry.all()) {
    if (!keptByV1(mapping)) continue;
    const path = v1CollectionPath(mapping);
    byPath.set(path, [...(byPath.get(path) ?? []), mapping]);
  }
  // A list's main mapping (the one that lists) goes first; its singletons after it.
  return [...byPath].map(([path, mappings]) => ({ path, mappings: mappings.sort((a, b) => rank(a) - rank(b)) }));
}

function rank(mapping: ResourceMapping): number {
  return mapping.native?.singletonOf ? 1 : 0;
}

export async function runImport(options: ImportOptions): Promise<ResourceSummary[]> {
  const client = new V1Client({ baseUrl: options.source.url, timeoutMs: options.source.timeoutMs });
  try {
    return await importAll(options, importReader(client, options.source.authorization, options.batch ?? DEFAULT_BATCH));
  } finally {
    await client.close();
  }
}

async function importAll(options: ImportOptions, reader: V1Reader): Promise<ResourceSummary[]> {
  const { store, registry, roots } = options;
  const now = options.now ?? Date.now;
  const times = new KeptTimes(store.timestamps, now);
  const summaries: ResourceSummary[] = [];
  for (const { path, mappings } of importPlan(registry)) {
    const lists = mappings.map((mapping) => summaryOf(mapping));
    summaries.push(...lists);
    const paging = mappings[0]!.v1.paging;
    const rows = reader.list(path, {}, paging && { pageSize: paging.pageSize, pageToken: paging.pageToken, size: 100 });
    // The uids v1 showed, to tell which stored rows it no longer has once its list is read to the end.
    const seen = mappings.map(() => new Set<string>());
    for await (const batch of rows) {
      const inScope = roots.length === 0 ? batch : batch.filter((row) => underRoots(row, mappings[0]!, roots));
      const stamp = new Date(now()).toISOString();
      for (const [i, mapping] of mappings.entries()) {
        const summary = lists[i]!;
        const converted = await storedRows(mapping, inScope as Json[], times, stamp);
        // A singleton never written is served as its zero value: only written ones are rows of their own.
        const rowsToWrite = mapping.native?.singletonOf ? converted.rows.filter((row) => !isZeroSingleton(mapping, row)) : converted.rows;
        for (const row of converted.rows) seen[i]!.add(row.uid);
        const outcome = await writeBatch(store, mapping.name, rowsToWrite, mapping.fields.createTime !== undefined);
        summary.read += inScope.length;
        summary.written += outcome.written;
        summary.unchanged += outcome.unchanged + (converted.rows.length - rowsToWrite.length);
        summary.refused += converted.refused.length;
        for (const { why } of converted.refused) summary.reasons[why] = (summary.reasons[why] ?? 0) + 1;
        options.onProgress?.(summary);
      }
    }
    for (const [i, mapping] of mappings.entries()) {
      const stale = await staleRows(store, mapping, seen[i]!, roots);
      lists[i]!.stale = stale.length;
      if (options.prune) lists[i]!.pruned = await prune(store, mapping.name, stale);
    }
  }
  for (const copy of options.copies ?? []) {
    const summary: ResourceSummary = { resource: copy.kind, read: 0, written: 0, unchanged: 0, refused: 0, reasons: {}, notCarried: [], stale: 0, pruned: 0 };
    summaries.push(summary);
    for await (const rows of copy.rows(reader, store, new Date(now()).toISOString())) {
      // Their times are the import's own: a row copied again keeps the times it was first stored with.
      const outcome = await writeBatch(store, copy.kind, rows, false);
      summary.read += rows.length;
      summary.written += outcome.written;
      summary.unchanged += outcome.unchanged;
      options.onProgress?.(summary);
    }
  }
  return summaries;
}

async function staleRows(store: Store, mapping: ResourceMapping, seen: ReadonlySet<string>, roots: readonly string[]): Promise<string[]> {
  const kind = mapping.name;
  // Rows native mode seeds itself (the built-in roles) are its own, not v1's.
  const seeded = new Set((mapping.native?.seed ?? []).map((row) => row.uid));
  const stale: string[] = [];
  for await (const page of scanRows(store.resources, { kind, filters: [], order: BY_UID })) {
    for (const row of page) {
      const inScope = roots.length === 0 || roots.some((root) => row.uid === root || isDescendantOf(row.uid, root));
      if (inScope && !seen.has(row.uid) && !seeded.has(row.uid)) stale.push(row.uid);
    }
  }
  return stale;
}

async function prune(store: Store, kind: string, uids: readonly string[]): Promise<number> {
  let deleted = 0;
  for (let i = 0; i < uids.length; i += DEFAULT_BATCH) {
    const chunk = uids.slice(i, i + DEFAULT_BATCH);
    deleted += await store.transaction(async ({ resources }) => {
      let n = 0;
      for (const uid of chunk) if (await resources.delete(kind, uid)) n++;
      return n;
    });
  }
  return deleted;
}

function summaryOf(mapping: ResourceMapping): ResourceSummary {
  return { resource: mapping.name, read: 0, written: 0, unchanged: 0, refused: 0, reasons: {}, notCarried: secretFields(mapping.fields), stale: 0, pruned: 0 };
}

/** Whether a v1 row lies in one of the organisations asked for (its uid is the root or under it). */
function underRoots(row: Record<string, unknown>, mapping: ResourceMapping, roots: readonly string[]): boolean {
  const key = mapping.fields.uid?.v1 ?? 'uid';
  const uid = row[key];
  return typeof uid === 'string' && roots.some((root) => uid === root || isDescendantOf(uid, root));
}
