/**
 * The times v1 does not give (translate/kept-times.ts) around a List: the rows lacking one, their kept
 * times (first sightings recorded, so a row's first-seen time is the same on every page), and, after an
 * unfiltered list, now and then, the records of rows v1 no longer has swept. Without a store nothing is
 * kept and this wrapper is left out: times render as v1 gives them.
 */
import type { KeptTimes } from '../kept-times.ts';
import { v1UidKey } from '../../port/registry.ts';
import type { StagesWrapper } from './reader.ts';

export function withKeptTimes(kept: KeptTimes): StagesWrapper {
  return (next) => ({
    ...next,
    async rows(request) {
      const listed = await next.rows(request);
      const { mapping, filters } = request;
      const uidKey = v1UidKey(mapping);
      // The uids are listed only when a sweep is due (once a minute at most), not for every page.
      if (Object.keys(filters.v1Query).length === 0) await kept.sweep(mapping, () => Array.from({ length: listed.count }, (_, i) => String(listed.row(i)[uidKey])));
      return listed;
    },
    lacking: ({ mapping }, rows) => kept.lackingIn(mapping, rows, v1UidKey(mapping)),
    times: ({ mapping }, uids) => kept.forUids(mapping, uids),
  });
}
