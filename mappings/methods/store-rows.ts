/**
 * What the native implementations of custom methods share over the store: the
 * rows of a kind that match some filters, read in chunks (the store caps a
 * page), and the shape of a kind that native mode holds only because the
 * import copied it from v1 (v1's public feed, image manifests).
 */
import type { Json } from '../../src/vocabulary/json.ts';
import { BY_UID, scanRows } from '../../src/store/scan.ts';
import type { Store, StoreFilter, StoredResource } from '../../src/store/types.ts';
import type { StoreView } from '../../src/vocabulary/custom-method.ts';

/** Every row of `kind` matching `filters`, in uid order. */
export async function allRows(store: Pick<StoreView, 'resources'>, kind: string, filters: readonly StoreFilter[] = []): Promise<StoredResource[]> {
  const rows: StoredResource[] = [];
  for await (const page of scanRows(store.resources, { kind, filters, order: BY_UID })) rows.push(...page);
  return rows;
}

/** What a copy may read of v1: a whole list, a batch of rows at a time (v1's own pages walked), or one answer. */
export interface V1Reader {
  list(path: string, query?: Readonly<Record<string, string>>, paging?: CopiedFromV1['paging']): AsyncIterable<Json[]>;
  get(path: string, query?: Record<string, string>): Promise<Json>;
}

/**
 * A kind native mode holds only as a copy of v1's data (v1's public feed, image manifests, which package
 * is whose subpackage), and how the import makes its rows: from v1, and from what the import already
 * stored of v1's resources (`store`). Batches of rows; the import writes them.
 */
export interface V1Copy {
  readonly kind: string;
  rows(v1: V1Reader, store: Store, now: string): AsyncIterable<StoredResource[]>;
}

/** A copy of one v1 list, row for row. */
export function listCopy(copied: CopiedFromV1): V1Copy {
  return {
    kind: copied.kind,
    async *rows(v1, _store, now) {
      for await (const batch of v1.list(copied.v1Path, {}, copied.paging)) yield batch.map((row) => copied.row(row, now));
    },
  };
}

/**
 * A kind of v1 data that only the import brings into the store: the v1 list
 * it reads (`paging` when v1 pages it itself, in the shape the import's reader
 * takes) and each v1 row as the store keeps it. Native mode serves the kind
 * from these rows and never writes them.
 */
export interface CopiedFromV1 {
  readonly kind: string;
  readonly v1Path: string;
  readonly paging?: { readonly pageSize: string; readonly pageToken: string; readonly size: number };
  /** The stored row of one v1 row; `now` is the time of the import (v1 gives these rows no times). */
  readonly row: (v1: Json, now: string) => StoredResource;
}
