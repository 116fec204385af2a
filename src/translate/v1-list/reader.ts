/**
 * The List of a v1 list that v1 does not page, read in one place: fetch every row, look up the times v1
 * lacks, keep the rows that match, key them by the order, cut the page's window, take its rows whole
 * (answered with the times looked up; the runner renders them). Each step is a stage (ListStages);
 * `plainStages` is each done plainly, and the speed-ups (with-*.ts) are wrappers that take the stages
 * and give stages back, as undici's interceptors take and give a dispatch.
 * A wrapper changes how a stage is done, never what it answers: test/translate/v1-list-readers.test.ts holds
 * every combination to the plain stages' answers.
 */
import { sortKey, windowUnordered, windowUnorderedAt, type CutWindow, type ReadField } from '../../aip/list-window.ts';
import { ownValue } from '../../aip/names.ts';
import type { ScannedRows } from '../../v1/list-body.ts';
import type { KeptTimesByUid, Page, RequestContext } from '../../port/backend.ts';
import { withKeptTime } from '../kept-times.ts';
import type { ListQuery } from '../../port/list-query.ts';
import type { FieldSpec, ResourceMapping } from '../../vocabulary/resource.ts';
import { v1UidKey } from '../../port/registry.ts';
import { v2ColumnReader, v2PathReader } from '../v1-row.ts';
import { rowsOfArray, type Json, type RowsByIndex } from '../../vocabulary/json.ts';
import type { V1ListSource } from './source.ts';
import { MatchedRows, type ListedRow } from './matched-rows.ts';

export type { ListedRow } from './matched-rows.ts';


const NO_TIMES: KeptTimesByUid = new Map();

export interface ListRequest extends ListQuery {
  mapping: ResourceMapping;
  ctx: RequestContext;
}

/**
 * A v1 list as a List reads it: each row (`row`), with at least the members the query reads
 * (v1/list-body.ts), or whole; never changed.
 */
export interface ListedRows extends RowsByIndex {
  /** Row `i` whole, an object of its own. */
  whole(i: number): Json;
  /** The scan's reading the rows are, when they were scanned: what work on them is kept with (reading-memo.ts). */
  readonly reading?: ScannedRows | undefined;
}

/** A list's matching rows in v1's order; `shared` when others read the same array (kept with a reading). */
export interface Matching {
  /** The rows, an entry each (made when first asked for, where they are held by column). */
  readonly rows: ListedRow[];
  /** The same rows held by column, when they were matched so: a window is cut and a walk kept from them without an entry a row. */
  readonly columns?: MatchedRows | undefined;
  shared: boolean;
}

/** A List's page, and the matching rows it was cut from (for a walk's later pages: with-walks.ts). */
export interface ListedPage extends Page<Json> {
  matching?: Matching;
}

export interface ListStages {
  rows(request: ListRequest): Promise<ListedRows>;
  /** The uids of `rows` lacking a time v1 should give (none where no times are kept); `listed`: they are all its rows. */
  lacking(request: ListRequest, rows: RowsByIndex, listed?: ListedRows): readonly string[];
  /** The kept times of these uids, first sightings recorded; `listed`: they are its rows that lack one. */
  times(request: ListRequest, uids: readonly string[], listed?: ListedRows): Promise<KeptTimesByUid | undefined>;
  /**
   * The rows the query's filters match, keyed by its order; `read` reads a v2 path off a row, and `readAt`,
   * when given, reads the same off row `i` of `listed` by its index (rows held by member: v2IndexReader).
   */
  match(request: ListRequest, listed: ListedRows, read: ReadField<Json>, readAt?: ReadField<number>): Matching;
  window(request: ListRequest, listed: ListedRows, matching: Matching): CutWindow<ListedRow>;
  /** The page's rows whole. */
  page(request: ListRequest, listed: ListedRows, page: readonly ListedRow[]): Json[];
  /** The List is done with `listed`. */
  done(request: ListRequest, listed: ListedRows): void;
}

export type StagesWrapper = (next: ListStages) => ListStages;

export interface ListReader {
  list(request: ListRequest): Promise<ListedPage>;
}

export type ReaderWrapper = (next: ListReader) => ListReader;

/** Each stage done plainly: v1's rows parsed whole, no kept times, every row matched, the window cut, the page's rows taken. */
export function plainStages(source: V1ListSource): ListStages {
  return {
    async rows({ mapping, filters, ctx }) {
      const rows = await source.all(mapping, filters.v1Query, ctx);
      return { ...rowsOfArray(rows), whole: (i) => rows[i]! };
    },
    lacking: () => [],
    times: async () => undefined,
    match({ mapping, filters, order }, listed, read, readAt) {
      // Held by column: an object a row only for the rows a page serves (or, for a reading memo, asks for).
      const columns = new MatchedRows(order, listed.count);
      const uidKey = v1UidKey(mapping);
      const uids = readAt && listed.column?.(uidKey);
      if (readAt && uids) {
        // Rows held by member: read by index, with no row object set a row.
        for (let at = 0; at < listed.count; at++) {
          if (!filters.matchesWith(at, readAt)) continue;
          const uid = uids[at];
          columns.add(typeof uid === 'string' ? uid : String(uid), at, at, readAt);
        }
        return new MatchingByColumn(columns);
      }
      for (let at = 0; at < listed.count; at++) {
        const v1 = listed.row(at);
        if (filters.matchesWith(v1, read)) columns.add(String(v1[uidKey]), at, v1, read);
      }
      return new MatchingByColumn(columns);
    },
    window({ order, params, cursor }, _listed, matching) {
      const request = { order, pageSize: params.pageSize, skip: params.skip, cursor };
      const columns = matching.columns;
      if (!columns) return windowUnordered(matching.rows, request);
      const window = windowUnorderedAt(columns, request);
      return { ...window, page: window.page.map((i) => columns.entry(i)) };
    },
    page: (_request, listed, page) => page.map((row) => listed.whole(row.at)),
    done() {},
  };
}

/** The stages run in order for one List. */
export function stagedReader(stages: ListStages): ListReader {
  return {
    async list(request) {
      const { mapping } = request;
      const uidKey = v1UidKey(mapping);
      const listed = await stages.rows(request);
      const lacking = stages.lacking(request, listed, listed);
      // Every lacking row's times are read (recording the rows first seen), whichever page this is.
      const times = await stages.times(request, lacking, listed);
      const paths = queryPaths(request);
      const matching = stages.match(request, listed, v2Reader(mapping, paths, times, uidKey), v2IndexReader(mapping, paths, times, uidKey, listed));
      const window = stages.window(request, listed, matching);
      const pageTimes = times ?? (lacking.length === 0 ? undefined : await stages.times(request, stages.lacking(request, rowsAt(listed, window.page))));
      const rows = stages.page(request, listed, window.page);
      stages.done(request, listed);
      // No row lacking a time: none to look up when the page is rendered.
      return { rows, times: pageTimes ?? (lacking.length === 0 ? NO_TIMES : undefined), ...(window.next ? { next: window.next } : {}), total: window.total, skipped: window.skipped, matching };
    },
  };
}

/**
 * Matching rows held by column, their entries made when first asked for. A class, not an object literal
 * with a getter: V8 gives each such literal a map of its own, held in the old generation, and the
 * getter's closure it holds kept each List's rows alive through the young generation's collections.
 */
class MatchingByColumn implements Matching {
  readonly columns: MatchedRows;
  readonly shared = false;
  #rows: ListedRow[] | undefined;

  constructor(columns: MatchedRows) {
    this.columns = columns;
  }

  get rows(): ListedRow[] {
    return (this.#rows ??= Array.from({ length: this.columns.count }, (_, i) => this.columns.entry(i)));
  }
}

/** Matches row `at` of `listed` against the query's filters, adding it with its sort key to `into` when it matches. */
export function rowMatcher({ mapping, filters, order }: ListRequest, listed: ListedRows, read: ReadField<Json>): (at: number, into: ListedRow[]) => void {
  const uidKey = v1UidKey(mapping);
  return (at, into) => {
    const v1 = listed.row(at);
    if (filters.matchesWith(v1, read)) into.push({ row: String(v1[uidKey]), key: sortKey(v1, order, read), at });
  };
}

/** The rows of `listed` these matching rows are. */
function rowsAt(listed: ListedRows, rows: readonly ListedRow[]): RowsByIndex {
  return { count: rows.length, row: (i) => listed.row(rows[i]!.at) };
}

/** The v2 paths a query reads of every row: its filters' and its order's. */
export function queryPaths({ filters, order }: ListRequest): string[] {
  return [...filters.fields, ...order.map((k) => k.field)];
}

/** Whether any of these v2 paths renders a time the gateway keeps (kept-times.ts), which changes apart from v1's rows. */
export function readsKeptTime(mapping: ResourceMapping, paths: readonly string[]): boolean {
  return paths.some((path) => ownValue(mapping.fields, path.split('.')[0]!)?.kept !== undefined);
}

/**
 * v2Reader of row `i` of `rows` by its index, read from the rows' columns (RowsByIndex.column); undefined
 * unless every path renders from members the rows hold so, and the rows hold the uid so.
 */
export function v2IndexReader(mapping: ResourceMapping, paths: readonly string[], times: KeptTimesByUid | undefined, uidKey: string, rows: RowsByIndex): ReadField<number> | undefined {
  const column = rows.column?.bind(rows);
  const uids = column?.(uidKey);
  if (!column || !uids) return undefined;
  const kept = times && ((spec: FieldSpec, value: unknown, at: number) => withKeptTime(spec, value, times.get(String(uids[at]))));
  const readers = new Map<string, (at: number) => unknown>();
  for (const path of paths) {
    const reader = v2ColumnReader(mapping.fields, path, column, kept);
    if (!reader) return undefined;
    readers.set(path, reader);
  }
  // One path (the default order's uid, filtered on too): no lookup by path a read.
  if (readers.size === 1) {
    const [[only, reader]] = readers;
    return (at, path) => (path === only ? reader(at) : undefined);
  }
  return (at, path) => readers.get(path)?.(at);
}

/** Reads the v2 paths a List's filters and order need straight off v1 rows, as rendered with their kept times. */
export function v2Reader(mapping: ResourceMapping, paths: readonly string[], times: KeptTimesByUid | undefined, uidKey: string): ReadField<Json> {
  const kept = times && ((spec: FieldSpec, value: unknown, v1: Json) => withKeptTime(spec, value, times.get(String(v1[uidKey]))));
  const readers = new Map(paths.map((path) => [path, v2PathReader(mapping.fields, path, kept)]));
  return (row, path) => readers.get(path)?.(row);
}
