/**
 * The List path's only I/O: what it asks of v1. A List reads a whole v1 list (v1 cannot page it), rows by
 * uid (a walk's later page), or one page of a list v1 pages itself; nothing else. Kept apart so the path
 * can be read, and its speed-ups tested, against any source of rows (test/translate/v1-list-readers.test.ts).
 */
import type { V1Client, ReadSuccess } from '../../v1/client.ts';
import { v1ListRows } from '../../v1/answer-fields.ts';
import type { QueryValue } from '../../v1/query-string.ts';
import type { RequestContext } from '../../port/backend.ts';
import { IDS_PER_CALL } from '../v1-rows-by-id.ts';
import type { ResourceMapping } from '../../vocabulary/resource.ts';
import { v1CollectionPath } from '../../port/registry.ts';
import type { Json } from '../../vocabulary/json.ts';

export type V1Query = Readonly<Record<string, QueryValue>>;

/** How a caller reads v1's answer itself (the scanner): the bytes v1 is likely to send, and the reader. */
export interface ListAnswerReading<T> {
  /** v1's last answer to the same call, compared with the answer as it arrives (v1/answer-bytes.ts). */
  likely?: Uint8Array | undefined;
  read: ReadSuccess<T>;
}

/** One page of a list v1 pages itself, as v1 gave it. */
export interface V1Page {
  items: Json[];
  /** '' on v1's last page. */
  nextPageToken: string;
  /** v1's count of every match, when it gave one. */
  totalCount: unknown;
}

export interface V1ListSource {
  /** Every row v1 lists for `query` (its filters) of a list v1 does not page. */
  all(mapping: ResourceMapping, query: V1Query, ctx: RequestContext): Promise<Json[]>;
  /** The same call, its answer read by `reading` instead (a reader of v1's bytes: scanner.ts). */
  allRead<T>(mapping: ResourceMapping, query: V1Query, ctx: RequestContext, reading: ListAnswerReading<T>): Promise<T>;
  /** The rows of these uids that v1 still has, in any order (a uid v1 no longer has is left out); needs `mapping.v1.idsParam`. */
  byIds(mapping: ResourceMapping, uids: readonly string[], ctx: RequestContext): Promise<Json[]>;
  /** One page of a list v1 pages (`mapping.v1.paging`), `query` holding v1's own paging parameters. */
  page(mapping: ResourceMapping, query: V1Query, ctx: RequestContext): Promise<V1Page>;
}

/** The source over the v1 client: each method one GET of the mapping's v1 collection (byIds one per chunk of ids). */
export function v1ClientSource(v1: V1Client): V1ListSource {
  const get = (mapping: ResourceMapping, query: V1Query, ctx: RequestContext) => ({
    method: 'GET' as const, path: v1CollectionPath(mapping), query, authorization: ctx.authorization,
  });
  const all = async (mapping: ResourceMapping, query: V1Query, ctx: RequestContext): Promise<Json[]> =>
    v1ListRows(await v1.call<{ items?: unknown }>(get(mapping, query, ctx), ctx)) as Json[];
  return {
    all,
    allRead: (mapping, query, ctx, reading) => v1.callReading({ ...get(mapping, query, ctx), likely: reading.likely }, ctx, reading.read),
    async byIds(mapping, uids, ctx) {
      if (uids.length === 0) return [];
      const idsParam = mapping.v1.idsParam;
      if (!idsParam) throw new Error(`${mapping.name}: v1 lists no rows by ids`);
      // A chunk of ids per call keeps the query string well inside v1's header limits (a page may hold 200).
      const chunks: string[][] = [];
      for (let i = 0; i < uids.length; i += IDS_PER_CALL) chunks.push(uids.slice(i, i + IDS_PER_CALL));
      return (await Promise.all(chunks.map((chunk) => all(mapping, { [idsParam]: chunk }, ctx)))).flat();
    },
    async page(mapping, query, ctx) {
      const answer = await v1.call<{ items?: unknown; nextPageToken?: unknown; totalCount?: unknown }>(get(mapping, query, ctx), ctx);
      const items = v1ListRows(answer) as Json[];
      return { items, nextPageToken: typeof answer.nextPageToken === 'string' ? answer.nextPageToken : '', totalCount: answer.totalCount };
    },
  };
}
