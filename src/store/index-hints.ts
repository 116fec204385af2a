/**
 * Which index a page query should walk. SQLite plans without statistics on
 * ranges: offered a filter's index and the order's index, it tends to collect
 * every match through the filter's index and sort them all (reading each body
 * to compute its sort key) where walking the order's index from the cursor and
 * stopping after one page is far cheaper. And of two lower bounds on one
 * column, the filter's and the cursor's, it seeks on one, not the larger. So a
 * page query keeps comparisons off an index (dialect.unindexed; PostgreSQL's
 * planner, which has statistics, is left alone) when they are:
 * - on a column other than the one the order starts with, unless they name rows
 *   outright (`uid` eq / in: a handful of rows, sorted at no cost);
 * - on that column, on the cursor's side, when there is a cursor.
 * A count has no order and no cursor: it uses the filters' indexes as they are.
 */
import { sql } from 'kysely';
import type { OrderKey } from '../aip/order-by.ts';
import type { Dialect } from './dialect.ts';
import { fieldRef } from './fields.ts';
import type { ColumnRef } from './filters.ts';

export function pageColumnRef(d: Dialect, order: readonly OrderKey[], hasCursor: boolean): ColumnRef {
  const lead = order[0];
  const leadRef = lead && fieldRef(lead.field);
  const leadColumn = leadRef && 'column' in leadRef ? leadRef.column : undefined;
  const cursorSide = lead?.desc ? 'upper' : 'lower';
  return (column, bound) => {
    const indexed =
      column === leadColumn ? !(hasCursor && (bound === cursorSide || bound === 'both')) : column === 'uid' && bound === 'point';
    return indexed ? sql.ref(column) : d.unindexed(sql.ref(column));
  };
}
