/**
 * The reading memo around a List's stages: what a List works out from a scanned reading of v1's list
 * (with-scanner.ts) alone — which rows lack kept times, which match and their keys, the window, the
 * page's rows whole (their documents kept by translate/kept-renderings.ts) — is kept with that reading
 * (translate/reading-memo.ts), so a List answered by the same bytes again works none of it out twice,
 * and one answered by bytes that changed in some rows works out only those rows'. Rows read plainly have no reading, and pass through. Work that depends on a kept time
 * the query reads is not kept: kept times change apart from v1's bytes.
 */
import { windowCarried, type CutWindow } from '../../aip/list-window.ts';
import type { KeptRenderings } from '../kept-renderings.ts';
import type { ScannedRows } from '../../v1/list-body.ts';
import type { ResourceMapping } from '../../vocabulary/resource.ts';
import { carriedOver, isKept, keptValue, keptWith, rowValues, sinceEarlier } from '../reading-memo.ts';
import { rowsBetween, type Json, type RowsByIndex } from '../../vocabulary/json.ts';
import { queryPaths, readsKeptTime, rowMatcher, type ListedRow, type ListedRows, type ListRequest, type StagesWrapper } from './reader.ts';

/**
 * `rendersAlone`: whether a mapping's rows render from the row and its kept times alone (no reference to
 * look up); `renderings`: where the documents of the rows kept are kept.
 */
export function withReadingMemo(rendersAlone: (mapping: ResourceMapping) => boolean, renderings: KeptRenderings): StagesWrapper {
  return (next) => {
    const lacking = (request: ListRequest, rows: RowsByIndex, listed?: ListedRows): readonly string[] => {
      const reading = listed?.reading;
      if (!reading) return next.lacking(request, rows, listed);
      const key = `lacking\0${request.mapping.name}`;
      return keptWith(reading, key, () => {
        // Made from an earlier reading in which no row lacked a time (rereadListAnswer): only the rows read anew can.
        const earlier = reading.earlier;
        if (earlier && keptValue<readonly string[]>(earlier.rows, key)?.length === 0) return next.lacking(request, rowsBetween(rows, earlier.same, earlier.tail));
        return next.lacking(request, rows);
      });
    };
    // Unless the query reads a kept time (its filters or order), which rows match, their keys and the page
    // they make follow from the rows and the query alone.
    const memoOf = (request: ListRequest, listed: ListedRows): ScannedRows | undefined =>
      listed.reading && (lacking(request, listed, listed).length === 0 || !readsKeptTime(request.mapping, queryPaths(request))) ? listed.reading : undefined;
    const keyedKey = (request: ListRequest) => `keyed\0${request.fingerprint}`;

    return {
      ...next,
      lacking,
      async times(request, uids, listed) {
        // A reading met before has had its lacking rows' first sightings recorded: only its page needs their times.
        const memo = listed && memoOf(request, listed);
        if (!memo) return next.times(request, uids, listed);
        const recorded = `recorded\0${request.mapping.name}`;
        if (isKept(memo, recorded)) return undefined;
        const times = await next.times(request, uids, listed);
        keptWith(memo, recorded, () => true);
        return times;
      },
      match(request, listed, read, readAt) {
        const memo = memoOf(request, listed);
        if (!memo) return next.match(request, listed, read, readAt);
        const key = keyedKey(request);
        const rows = keptWith(memo, key, () =>
          // Made from an earlier reading (a list that changed in some rows): only the rows read anew are matched.
          carriedOver<ListedRow>(memo, key, rowMatcher(request, listed, read), (entry, at) => ({ ...entry, at })) ?? next.match(request, listed, read, readAt).rows);
        return { rows, shared: true };
      },
      window(request, listed, matching) {
        const memo = memoOf(request, listed);
        if (!memo) return next.window(request, listed, matching);
        const { params, cursor, order, fingerprint } = request;
        const key = `window\0${fingerprint}\0${params.pageSize}\0${params.skip}\0${cursor ? JSON.stringify(cursor) : ''}`;
        return keptWith(memo, key, () => {
          // Made from an earlier reading that cut this window: only the rows read anew are weighed against its page.
          const since = sinceEarlier<CutWindow<ListedRow>, ListedRow>(memo, key, keyedKey(request), matching.rows);
          const windowRequest = { order, pageSize: params.pageSize, skip: params.skip, cursor };
          return (since && windowCarried(since.value, since.changed, matching.rows.length, windowRequest)) ?? next.window(request, listed, matching);
        });
      },
      page(request, listed, page) {
        const { mapping } = request;
        const memo = memoOf(request, listed);
        if (!memo || !rendersAlone(mapping)) return next.page(request, listed, page);
        // Rows taken whole once a reading, and taken over by a reading made from it: a page asked for again,
        // or cut again from a list changed elsewhere, parses only the rows it has not parsed before, and the
        // rows answered again are the same objects, whose documents are kept (kept-renderings.ts).
        const whole = rowValues<Json>(memo, `whole\0${mapping.name}`, (at) => {
          const taken = listed.whole(at);
          renderings.keep(taken);
          return taken;
        });
        return page.map((row) => whole(row.at));
      },
      done(request, listed) {
        // What this reading could take over from the one it was made from is taken: that one may go.
        listed.reading?.forgetEarlier();
        next.done(request, listed);
      },
    };
  };
}

