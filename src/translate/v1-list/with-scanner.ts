/**
 * The scanner around a List's fetch: v1's list is read only as far as the query needs (v1/list-body.ts:
 * each row's uid and the members its filters and order read, each row whole only when its page renders
 * it), and the scan memo (v1/list-scan-memo.ts) gives the reading again when v1 answers the same bytes,
 * or reads only the rows that changed. The rows come back with their reading, which the reading memo
 * (with-reading-memo.ts) keeps its work with. A query that reads a whole row is fetched plainly.
 */
import { v1Message } from '../../v1/client.ts';
import { v1ListRows } from '../../v1/answer-fields.ts';
import { ScannedRows } from '../../v1/list-body.ts';
import type { ListScanMemo } from '../../v1/list-scan-memo.ts';
import { callerOf } from '../caller-key.ts';
import { KeptTimes } from '../kept-times.ts';
import type { ResourceMapping } from '../../vocabulary/resource.ts';
import { v1CollectionPath, v1UidKey } from '../../port/registry.ts';
import { v1MembersOf } from '../v1-row.ts';
import { rowsOfArray, type Json } from '../../vocabulary/json.ts';
import { queryPaths, type ListedRows, type StagesWrapper } from './reader.ts';
import type { V1ListSource } from './source.ts';

export function withScanner(source: V1ListSource, scans: ListScanMemo): StagesWrapper {
  return (next) => ({
    ...next,
    async rows(request) {
      const { mapping, filters, ctx } = request;
      const members = listMembers(mapping, queryPaths(request), v1UidKey(mapping));
      if (!members) return next.rows(request);
      const { values, presence } = members;
      const scope = callerOf(ctx);
      const call = `${v1CollectionPath(mapping)}\u0000${JSON.stringify(filters.v1Query)}`;
      return source.allRead(mapping, filters.v1Query, ctx, {
        likely: scans.likely(values, presence, scope, call),
        read: (body, status) => listedOf(v1Message(body, status, (bytes) => scans.read(bytes, values, presence, scope, call))),
      });
    },
  });
}

/** A list answer as read (readListAnswer): its rows scanned, or parsed whole where the scan gave way to JSON.parse. */
function listedOf(answer: { items?: unknown }): ListedRows {
  const items = answer.items;
  if (items instanceof ScannedRows) return { count: items.count, row: (i) => items.row(i), column: (name) => items.column(name), whole: (i) => items.whole(i), reading: items };
  const rows = v1ListRows(answer) as Json[];
  return { ...rowsOfArray(rows), whole: (i) => rows[i]! };
}

interface ListMembers {
  values: string[];
  presence: string[];
}

/**
 * The members of v1 rows a List reads of every row: the uid and what `paths` render from, and the
 * kept times' sources, read only for whether they are blank when nothing else reads them
 * (list-body.ts). Undefined when a path renders from the whole row.
 */
function listMembers(mapping: ResourceMapping, paths: readonly string[], uidKey: string): ListMembers | undefined {
  const values = new Set([uidKey]);
  for (const path of paths) {
    const of = v1MembersOf(mapping.fields, path);
    if (!of) return undefined;
    for (const member of of) values.add(member);
  }
  const presence = new Set<string>();
  for (const source of KeptTimes.sources(mapping)) {
    // A dotted source is read inside its member's value, which is then read whole.
    (source.includes('.') ? values : presence).add(source.split('.')[0]!);
  }
  return { values: [...values], presence: [...presence].filter((member) => !values.has(member)) };
}
