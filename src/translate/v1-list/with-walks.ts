/**
 * The walk cache around a List (translate/walk-cache.ts): a first page keeps its matching rows' order for
 * the walk's later pages, and a later page of a known walk cuts its window from that order and fetches
 * only its own rows by id, instead of the whole list. Only for lists v1 can fetch rows of by ids.
 */
import { windowOrdered } from '../../aip/list-window.ts';
import { callerOf } from '../caller-key.ts';
import { v1UidKey } from '../../port/registry.ts';
import type { Json } from '../../vocabulary/json.ts';
import type { WalkCache } from '../walk-cache.ts';
import type { ReaderWrapper } from './reader.ts';
import type { V1ListSource } from './source.ts';

export function withWalks(walks: WalkCache, source: V1ListSource): ReaderWrapper {
  return (next) => ({
    async list(request) {
      const { mapping, params, order, cursor, fingerprint, ctx } = request;
      if (!mapping.v1.idsParam) return next.list(request);
      const walk = cursor ? walks.get(mapping.name, fingerprint, callerOf(ctx)) : undefined;
      if (!walk) {
        const page = await next.list(request);
        // Kept in v1's order; the walk's first later page sorts it (a copy, when the rows are shared).
        if (page.next && page.matching) walks.set(mapping.name, fingerprint, callerOf(ctx), page.matching.columns ?? page.matching.rows, order, page.matching.shared);
        return page;
      }
      // A later page: its window from the kept order, its rows fetched by id (a row gone since is left out).
      const window = windowOrdered(walk, { order, pageSize: params.pageSize, skip: params.skip, cursor });
      const fetched = await source.byIds(mapping, window.page, ctx);
      const uidKey = v1UidKey(mapping);
      const byUid = new Map(fetched.map((row) => [String(row[uidKey]), row]));
      const rows = window.page.map((uid) => byUid.get(uid)).filter((row): row is Json => row !== undefined);
      return { rows, ...(window.next ? { next: window.next } : {}), total: window.total, skipped: window.skipped };
    },
  });
}
