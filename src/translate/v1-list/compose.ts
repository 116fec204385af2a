/**
 * The translate-mode List: the plain reader (reader.ts) with the speed-ups given composed around it, and
 * lists v1 pages itself read by v1-paged.ts. Each speed-up is a wrapper left out when not given; with
 * none, a List is read plainly. The order matters where one reads another's work: the scanner's
 * readings are what the reading memo keeps with, the memo keeps which rows lack kept times (so it wraps
 * the kept times), and the walk cache keeps the matching rows a first page worked out.
 */
import type { ListScanMemo } from '../../v1/list-scan-memo.ts';
import type { Page, RequestContext } from '../../port/backend.ts';
import type { KeptTimes } from '../kept-times.ts';
import type { ListQuery } from '../../port/list-query.ts';
import type { ResourceMapping } from '../../vocabulary/resource.ts';
import type { WalkCache } from '../walk-cache.ts';
import { plainStages, stagedReader, type ListStages } from './reader.ts';
import type { KeptRenderings } from '../kept-renderings.ts';
import type { Json } from '../../vocabulary/json.ts';
import type { V1ListSource } from './source.ts';
import { readV1Paged } from './v1-paged.ts';
import { withKeptTimes } from './with-kept-times.ts';
import { withReadingMemo } from './with-reading-memo.ts';
import { withScanner } from './with-scanner.ts';
import { withWalks } from './with-walks.ts';

export interface V1ListOptions {
  source: V1ListSource;
  /** The most v1 pages one page of a list v1 pages may read. */
  maxFanOut: number;
  /** v1's lists scanned, not parsed whole, and readings of the same bytes kept (with-scanner.ts). */
  scans?: ListScanMemo | undefined;
  /** Work on a scanned reading kept with it (with-reading-memo.ts); given whether a mapping's rows render alone, and the renderings of the rows it keeps. */
  readingMemo?: { rendersAlone: (mapping: ResourceMapping) => boolean; renderings: KeptRenderings } | undefined;
  /** A walk's order kept from its first page for its later pages (with-walks.ts). */
  walks?: WalkCache | undefined;
  /** The times v1 lacks, kept in a store (with-kept-times.ts). */
  keptTimes?: KeptTimes | undefined;
}

export type V1List = (mapping: ResourceMapping, query: ListQuery, ctx: RequestContext) => Promise<Page<Json>>;

export function v1List(options: V1ListOptions): V1List {
  const { source, maxFanOut } = options;
  let stages: ListStages = plainStages(source);
  if (options.scans) stages = withScanner(source, options.scans)(stages);
  if (options.keptTimes) stages = withKeptTimes(options.keptTimes)(stages);
  if (options.readingMemo) stages = withReadingMemo(options.readingMemo.rendersAlone, options.readingMemo.renderings)(stages);
  let reader = stagedReader(stages);
  if (options.walks) reader = withWalks(options.walks, source)(reader);
  return async (mapping, query, ctx) => {
    const request = { mapping, ctx, ...query };
    if (mapping.v1.paging) return readV1Paged(source, maxFanOut, request);
    // The matching rows are the walk cache's to keep, not the page's to answer.
    const { matching: _matching, ...page } = await reader.list(request);
    return page;
  };
}
