/**
 * The List of a list v1 pages itself (`mapping.v1.paging`): walk v1's pages in v1's order, applying here
 * only the filters v1 was not given, until the page is full. The page token holds v1's token for the v1
 * page being read and how far into it this page got, so the next page resumes exactly there. No speed-up
 * applies: every page is one or more v1 pages.
 */
import { invalidField } from '../../aip/errors.ts';
import type { OrderKey } from '../../aip/order-by.ts';
import type { PageCursor } from '../../aip/page-token.ts';
import type { Page } from '../../port/backend.ts';
import { v1UidKey } from '../../port/registry.ts';
import type { Json } from '../../vocabulary/json.ts';
import { v2Reader, type ListRequest } from './reader.ts';
import type { V1ListSource } from './source.ts';

/** Rows asked of v1 per page when v1 pages a list itself; fixed, so a position inside a v1 page stays valid. */
const V1_PAGE = 100;

/** `maxFanOut`: the most v1 pages one page reads. */
export async function readV1Paged(source: V1ListSource, maxFanOut: number, { mapping, params, filters, order, cursor, ctx }: ListRequest): Promise<Page<Json>> {
  const paging = mapping.v1.paging!;
  const v1Order = v1OrderFor(order, paging.orderBy);
  let position = cursor ? positionFrom(cursor) : { token: '', index: 0 };
  let toSkip = params.skip;
  const skipped = (cursor?.skipped ?? 0) + params.skip;
  const read = v2Reader(mapping, filters.fields, undefined, v1UidKey(mapping));
  const page: Json[] = [];
  let next: { token: string; index: number } | undefined;
  let v1Total: unknown;

  for (let walked = 0; ; walked++) {
    if (walked >= maxFanOut) {
      // Filters v1 does not know can leave whole v1 pages empty; a short page with a token beats a long wait.
      next = position;
      break;
    }
    const answer = await source.page(mapping, {
      ...filters.v1Query, [paging.pageSize]: String(V1_PAGE), [paging.orderParam]: v1Order, ...(position.token ? { [paging.pageToken]: position.token } : {}),
    }, ctx);
    v1Total = answer.totalCount;
    const items = answer.items;
    const v1Next = answer.nextPageToken;
    let i = position.index;
    for (; i < items.length && page.length < params.pageSize; i++) {
      if (!filters.matchesWith(items[i]!, read)) continue;
      if (toSkip > 0) toSkip--;
      else page.push(items[i]!);
    }
    if (page.length === params.pageSize) {
      if (i < items.length) next = { token: position.token, index: i };
      else if (v1Next) next = { token: v1Next, index: 0 };
      break;
    }
    if (!v1Next) break;
    position = { token: v1Next, index: 0 };
  }

  // v1's count holds only when v1 applied every filter; totalCount is optional in v2, so it is left out otherwise.
  const total = !filters.localOnly && (typeof v1Total === 'string' || typeof v1Total === 'number') ? Number(v1Total) : undefined;
  return {
    rows: page,
    ...(next ? { next: { after: [next.token, next.index], skipped } } : {}),
    ...(total !== undefined ? { total } : {}),
    skipped,
  };
}

/** v1's order enum value for a v2 order, which must be one field (and the uid tiebreak v1 applies itself). */
function v1OrderFor(order: readonly OrderKey[], table: Readonly<Record<string, string>>): string {
  const [first, ...rest] = order;
  const value = table[`${first!.field} ${first!.desc ? 'desc' : 'asc'}`];
  if (!value || rest.some((k) => k.field !== 'uid' || k.desc)) {
    throw invalidField('order_by', `this list is ordered by v1, which takes one of: ${Object.keys(table).join(', ')}`);
  }
  return value;
}

function positionFrom(cursor: PageCursor): { token: string; index: number } {
  const [token, index] = cursor.after;
  if (typeof token !== 'string' || typeof index !== 'number') throw invalidField('page_token', 'is not a page token of this list');
  return { token, index };
}
