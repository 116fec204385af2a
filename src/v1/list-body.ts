/**
 * A v1 list answer read for a List that serves one page of it. A list of
 * 1,000 groups is 300 KB of JSON, and parsing all of it into objects was the
 * largest cost of a page, with the garbage it leaves; yet the List reads only
 * a member or two of each row (its id, the fields its filters and order read)
 * and serves 50 rows. So the rows are scanned, not parsed: each is checked as
 * JSON.parse checks it, only the wanted members of each are parsed (held by
 * member, an array each, not as an object a row: `columns`, read a row at a
 * time through `row`), and a row is parsed whole (`whole`) only when the page
 * serves it. The result is exactly JSON.parse's: the same values, and
 * a body JSON.parse refuses is refused (the scan gives up on anything it does
 * not expect, and the body is then parsed whole, which throws as JSON.parse
 * throws). The scan's byte loop is a WebAssembly module (list-scan.ts); this
 * reads what it finds into columns. Pure.
 */
import { asBuffer, CLOSE_BRACE, CLOSE_BRACKET, COLON, OPEN_BRACE, OPEN_BRACKET, parseJsonBytes, QUOTE } from './json-body.ts';
import { ENDED, FAILED, FAILED_SEPARATOR, listScan, type ListScan, MORE } from './list-scan.ts';

type Json = Record<string, unknown>;

/**
 * How a reading made from an earlier one (rereadListAnswer) stands to it: its rows before `same` are the
 * earlier rows at the same index, and its rows from `tail` on are the earlier rows at index − `shift`;
 * the rows between were read from the new bytes.
 */
export interface Carried {
  readonly rows: ScannedRows;
  readonly same: number;
  readonly tail: number;
  readonly shift: number;
}

/** The earlier reading's index of the first of its rows taken over at the end (this reading's `tail`). */
export function earlierTail(carried: Carried): number {
  return carried.tail - carried.shift;
}

/** The earlier reading's index of this reading's row `at`; -1 for a row read anew. */
export function earlierIndex(carried: Carried, at: number): number {
  return at < carried.same ? at : at >= carried.tail ? at - carried.shift : -1;
}

/** This reading's index of the earlier reading's row `at`; -1 for a row that was read anew in its place. */
export function laterIndex(carried: Carried, at: number): number {
  return at < carried.same ? at : at >= earlierTail(carried) ? at + carried.shift : -1;
}

/**
 * A list's rows as scanned: the wanted members of each, held by member (one array a member, a row's
 * value at its index, undefined where the row lacks it), not as an object a row; each row whole on demand.
 */
export class ScannedRows {
  /** The wanted members' names, in the order of `columns`. */
  readonly members: readonly string[];
  /** Each member's value in each row: `columns[m][i]`, undefined where row `i` lacks member `m`. */
  readonly columns: readonly (readonly unknown[])[];
  readonly #bytes: Buffer;
  /** Where each row starts and ends in the body: [start, end) at 2i, 2i + 1. */
  readonly spans: readonly number[];
  /** Where the array of rows sits in the body: its `[`, and just past its `]`. */
  readonly open: number;
  readonly close: number;
  /** The object `row` answers, its members set anew on each call. */
  readonly #view: Json;
  #partial: Json[] | undefined;

  #earlier: Carried | undefined;

  constructor(bytes: Buffer, members: readonly string[], columns: readonly (readonly unknown[])[], spans: number[], open: number, close: number, earlier?: Carried) {
    this.#bytes = bytes;
    this.members = members;
    this.columns = columns;
    this.spans = spans;
    this.open = open;
    this.close = close;
    this.#earlier = earlier;
    // Every member set, in one order: every row read through it has the same shape.
    const view: Json = {};
    for (const name of members) view[name] = undefined;
    this.#view = view;
  }

  /** How many rows there are. */
  get count(): number {
    return this.spans.length / 2;
  }

  /**
   * Row `i`'s wanted members, in one object shared by every call (a member the row lacks is there,
   * undefined): read it before the next call, never keep it. A List reads every row's members once,
   * and a row kept is a row a page serves (`whole`).
   */
  row(i: number): Json {
    const view = this.#view;
    const { members, columns } = this;
    for (let m = 0; m < members.length; m++) view[members[m]!] = columns[m]![i];
    return view;
  }

  /** Every row's value of member `name` by index (as `row` sets it), or undefined when `name` is not one of the members. */
  column(name: string): readonly unknown[] | undefined {
    const m = this.members.indexOf(name);
    return m < 0 ? undefined : this.columns[m];
  }

  /** Row `i` with only the wanted members it has (absent ones stay absent), an object of its own. */
  partialRow(i: number): Json {
    const row: Json = {};
    for (let m = 0; m < this.members.length; m++) {
      const value = this.columns[m]![i];
      if (value !== undefined) row[this.members[m]!] = value;
    }
    return row;
  }

  /**
   * Every row as partialRow makes it, made when first asked for and kept; for a reading made from an
   * earlier one, the rows it took over are the earlier reading's own. Not what a List reads (`row`).
   */
  get partial(): Json[] {
    if (this.#partial) return this.#partial;
    const earlier = this.#earlier;
    const before = earlier?.rows.partial;
    const rows = new Array<Json>(this.count);
    for (let i = 0; i < rows.length; i++) {
      const was = earlier ? earlierIndex(earlier, i) : -1;
      rows[i] = was >= 0 ? before![was]! : this.partialRow(i);
    }
    this.#partial = rows;
    return rows;
  }

  /** The reading these rows were made from, when they were (so what was worked out from its rows may be too). */
  get earlier(): Carried | undefined {
    return this.#earlier;
  }

  /** Lets go of the reading these rows were made from, once what could be taken over from it has been. */
  forgetEarlier(): void {
    this.#earlier = undefined;
  }

  /** The size of the body the rows were read from, in bytes. */
  get length(): number {
    return this.#bytes.length;
  }

  /** Row `i` parsed whole. */
  whole(i: number): Json {
    return JSON.parse(this.#bytes.toString('utf8', this.spans[2 * i], this.spans[2 * i + 1])) as Json;
  }
}

/**
 * The answer's members, its `items` (when they are an array of objects) as
 * ScannedRows with the `members` of each row; any other body exactly as
 * parseJsonBytes answers it (or throws). A member of `presence` is read only
 * for whether it is blank: a partial row holds null or "" as they are, and
 * `true` for any other value (no string is decoded for it).
 */
export function readListAnswer(bytes: Uint8Array, members: readonly string[], presence: readonly string[] = []): unknown {
  const wanted = wantedOf(members, presence);
  if (wanted) {
    try {
      const answer = scanAnswer(asBuffer(bytes), wanted);
      if (answer !== undefined) return answer;
    } catch {
      // Too deep for the scan's recursion, or otherwise beyond it: the whole parse below decides.
    }
  }
  return parseJsonBytes(bytes);
}

/**
 * readListAnswer's reading of `bytes`, made from its reading `earlier` of an earlier answer `before`
 * (for the same members): where the two answers differ only inside their arrays of rows, the rows
 * wholly before the first byte that differs and wholly within the bytes both end with are taken from
 * the earlier reading (the same bytes, read in the same place, read the same), and only the rows
 * between are scanned. Undefined when it cannot be made so (the answers differ outside the rows, the
 * earlier one was not scanned, or the changed rows do not scan): readListAnswer then reads it whole.
 *
 * A list polled while it changes changes in a row or two; this reads those rows, not a thousand.
 */
export function rereadListAnswer(before: Uint8Array, earlier: unknown, bytes: Uint8Array, members: readonly string[], presence: readonly string[] = []): unknown {
  const rows = (earlier as { items?: unknown } | null)?.items;
  const wanted = wantedOf(members, presence);
  // The earlier rows' columns are taken over as they are: they must be of the same members, in the same order.
  if (!(rows instanceof ScannedRows) || !wanted || !sameMembers(rows.members, wanted)) return undefined;
  const old = asBuffer(before);
  const text = asBuffer(bytes);
  const prefix = commonPrefix(old, text);
  const suffix = commonSuffix(old, text, Math.min(old.length, text.length) - prefix);
  // The first difference must come after the array opens, and the array's `]` be among the bytes both end with.
  if (prefix <= rows.open || old.length - suffix > rows.close - 1) return undefined;
  const shift = text.length - old.length;
  const spans = rows.spans;
  const count = rows.count;
  // The rows wholly before the first difference are the earlier rows, where they were.
  let kept = 0;
  while (kept < count && spans[2 * kept + 1]! <= prefix) kept++;
  // The rows read anew, between the earlier rows kept at either end.
  const fresh = scannedFor(wanted);
  const scan = listScan;
  if (!scan) return undefined;
  try {
    scan.load(text, wanted.names);
    let i = kept === 0 ? scan.skipSpace(rows.open + 1) : separated(scan.separator(spans[2 * kept - 1]!, CLOSE_BRACKET));
    if (kept === 0 && text[i] === CLOSE_BRACKET) i = ~i;
    // The earlier row a new row lines up with (after the shift), once within the common end: from
    // there on the bytes are the earlier answer's, its remaining rows moved by the shift.
    let next = kept;
    let aligned = false;
    while (i >= 0) {
      while (next < count && spans[2 * next]! + shift < i) next++;
      if (next < count && spans[2 * next]! + shift === i && spans[2 * next]! >= old.length - suffix) {
        aligned = true;
        break;
      }
      if (scan.rows(i, 1) === FAILED) return undefined;
      taken(scan, text, wanted, fresh);
      i = scan.next;
    }
    if (!aligned) {
      // The array ended among the rows read afresh: what follows it must be the earlier answer's end,
      // and no earlier row is taken over at the end.
      if (~i + 1 !== rows.close + shift) return undefined;
      next = count;
    }
    const { columns, spans: newSpans } = splicedRows(rows, kept, next, fresh.columns, fresh.spans, shift);
    const tail = kept + fresh.count;
    const carried = { rows, same: kept, tail, shift: tail - next };
    return withRows(earlier as Json, new ScannedRows(text, rows.members, columns, newSpans, rows.open, rows.close + shift, carried));
  } catch {
    return undefined;
  } finally {
    scan.done();
  }
}

/**
 * The earlier rows before `kept` and from `next` on (their spans moved by `shift` bytes), with the
 * rows read anew between, written into arrays of their final size: a thousand rows of which one
 * changed are copied once, not grown row by row.
 */
function splicedRows(rows: ScannedRows, kept: number, next: number, fresh: readonly (readonly unknown[])[], freshSpans: readonly number[], shift: number): { columns: unknown[][]; spans: number[] } {
  const count = rows.count;
  const freshCount = freshSpans.length / 2;
  const length = kept + freshCount + count - next;
  const columns = rows.columns.map((column, m) => {
    const spliced = new Array<unknown>(length);
    let r = 0;
    for (let k = 0; k < kept; k++) spliced[r++] = column[k];
    for (let k = 0; k < freshCount; k++) spliced[r++] = fresh[m]![k];
    for (let k = next; k < count; k++) spliced[r++] = column[k];
    return spliced;
  });
  const spans = new Array<number>(2 * length);
  let r = 0;
  for (let k = 0; k < kept; k++, r++) {
    spans[2 * r] = rows.spans[2 * k]!;
    spans[2 * r + 1] = rows.spans[2 * k + 1]!;
  }
  for (let k = 0; k < freshCount; k++, r++) {
    spans[2 * r] = freshSpans[2 * k]!;
    spans[2 * r + 1] = freshSpans[2 * k + 1]!;
  }
  for (let k = next; k < count; k++, r++) {
    spans[2 * r] = rows.spans[2 * k]! + shift;
    spans[2 * r + 1] = rows.spans[2 * k + 1]! + shift;
  }
  return { columns, spans };
}

/** The answer's members as they were, its rows replaced (a new object: readings are never changed). */
function withRows(answer: Json, rows: ScannedRows): Json {
  const copy: Json = {};
  for (const key of Object.keys(answer)) {
    const value = key === 'items' ? rows : answer[key];
    if (key === '__proto__') Object.defineProperty(copy, key, { value, writable: true, enumerable: true, configurable: true });
    else copy[key] = value;
  }
  return copy;
}

/** Bytes compared per call when looking for the first or last difference: memcmp does the work. */
const COMPARED = 4096;

/** How many bytes `a` and `b` start with alike. */
function commonPrefix(a: Buffer, b: Buffer): number {
  const n = Math.min(a.length, b.length);
  let at = 0;
  while (at < n) {
    const end = Math.min(at + COMPARED, n);
    if (a.compare(b, at, end, at, end) !== 0) break;
    at = end;
  }
  while (at < n && a[at] === b[at]) at++;
  return at;
}

/** How many bytes `a` and `b` end with alike, at most `limit`. */
function commonSuffix(a: Buffer, b: Buffer, limit: number): number {
  let same = 0;
  while (same < limit) {
    const next = Math.min(same + COMPARED, limit);
    if (a.compare(b, b.length - next, b.length - same, a.length - next, a.length - same) !== 0) break;
    same = next;
  }
  while (same < limit && a[a.length - 1 - same] === b[b.length - 1 - same]) same++;
  return same;
}

/**
 * The members as the scan matches them; undefined when one is `__proto__`, which only the whole parse
 * reads right, or is a name the module does not match (not ASCII, too long, or too many names).
 */
function wantedOf(members: readonly string[], presence: readonly string[]): WantedSet | undefined {
  const named = [...members.map((name) => ({ name, presence: false })), ...presence.map((name) => ({ name, presence: true }))];
  if (named.some((w) => w.name === '__proto__')) return undefined;
  // A member named twice is read as first named: one column a name.
  const wanted = named.filter((w, i) => named.findIndex((o) => o.name === w.name) === i);
  const all = wanted.map((w, column) => ({ ...w, column }));
  // The module matches keys against ASCII names (a key spelt with escapes is decoded only so far), in
  // slots of its own; with any other name, or more than it holds, the whole parse reads the list.
  if (all.some((w) => !/^[\x00-\x7f]*$/.test(w.name))) return undefined;
  const names = all.map((w) => Buffer.from(w.name, 'latin1'));
  if (!listScan?.fits(names)) return undefined;
  return { all, names };
}

/** A member the rows are read for. */
interface Wanted {
  name: string;
  /** Read for whether it is blank only (see readListAnswer). */
  presence: boolean;
  /** Its index among the wanted members: its column of ScannedRows. */
  column: number;
}

/** The members the rows are read for, and their names' bytes as the module matches keys against them. */
interface WantedSet {
  all: readonly Wanted[];
  names: readonly Uint8Array[];
}

/** Gives up on the scan: the body is not of the shape it reads (or not JSON), so the whole parse answers. */
class Unexpected extends Error {}
const unexpected = new Unexpected();

/** Rows as the scan reads them: a column for each wanted member, the rows' spans, and how many rows so far. */
interface Scanned {
  columns: unknown[][];
  spans: number[];
  count: number;
}

/** No rows yet, for these members. */
function scannedFor(wanted: WantedSet): Scanned {
  return { columns: wanted.all.map(() => []), spans: [], count: 0 };
}

/**
 * The most rows the arrays are sized for at once from the first row's length: a first row far shorter
 * than the rest must not size them for millions. Past it they grow as rows are added.
 */
const SIZED_ROWS = 1 << 14;

/**
 * Sizes the arrays for the rows the `remaining` bytes (from the first row on) are likely to hold, given
 * the first row's length (with an eighth to spare), so they are not grown, and copied, row by row.
 */
function sizeFor(into: Scanned, first: number, remaining: number): void {
  const rows = Math.min(SIZED_ROWS, 1 + Math.ceil((remaining / Math.max(first, 1)) * 1.125));
  if (rows <= into.count) return;
  into.columns = into.columns.map((column) => {
    const sized = new Array<unknown>(rows);
    for (let k = 0; k < column.length; k++) sized[k] = column[k];
    return sized;
  });
  const spans = new Array<number>(2 * rows);
  for (let k = 0; k < into.spans.length; k++) spans[k] = into.spans[k]!;
  into.spans = spans;
}

/** The arrays cut to the rows read. */
function trimmed(into: Scanned): Scanned {
  for (const column of into.columns) column.length = into.count;
  into.spans.length = 2 * into.count;
  return into;
}

/** Whether `members` are the wanted members' names, in their order. */
function sameMembers(members: readonly string[], wanted: WantedSet): boolean {
  return members.length === wanted.all.length && wanted.all.every((w, m) => w.name === members[m]);
}

/** The index `scan` answered, or a throw of `unexpected` where it answered FAILED. */
function checked(i: number): number {
  if (i === FAILED) throw unexpected;
  return i;
}

/** The index `separator` answered, or a throw of `unexpected` where it found neither a comma nor the close. */
function separated(i: number): number {
  if (i === FAILED_SEPARATOR) throw unexpected;
  return i;
}

function scanAnswer(text: Buffer, wanted: WantedSet): Json | undefined {
  const scan = listScan;
  if (!scan) return undefined;
  scan.load(text, wanted.names);
  try {
    return scanAnswerOf(scan, text, wanted);
  } finally {
    scan.done();
  }
}

function scanAnswerOf(scan: ListScan, text: Buffer, wanted: WantedSet): Json | undefined {
  let i = scan.skipSpace(text[0] === 0xef && text[1] === 0xbb && text[2] === 0xbf ? 3 : 0);
  if (text[i] !== OPEN_BRACE) return undefined;
  const answer: Json = {};
  i = scan.skipSpace(i + 1);
  if (text[i] !== CLOSE_BRACE) {
    for (;;) {
      const keyEnd = checked(scan.skipString(i));
      const key = JSON.parse(text.toString('utf8', i, keyEnd)) as string;
      i = scan.skipSpace(keyEnd);
      if (text[i] !== COLON) throw unexpected;
      i = scan.skipSpace(i + 1);
      let value: unknown;
      if (key === 'items' && text[i] === OPEN_BRACKET) {
        const into = scannedFor(wanted);
        const end = scanRows(scan, text, i, wanted, into);
        if (end < 0) return undefined;
        const { columns, spans } = trimmed(into);
        value = new ScannedRows(text, wanted.all.map((w) => w.name), columns, spans, i, end);
        i = end;
      } else {
        const end = checked(scan.skipValue(i));
        value = JSON.parse(text.toString('utf8', i, end));
        i = end;
      }
      // JSON.parse makes `__proto__` an own property; plain assignment would set the prototype instead.
      if (key === '__proto__') Object.defineProperty(answer, key, { value, writable: true, enumerable: true, configurable: true });
      else answer[key] = value;
      i = separated(scan.separator(i, CLOSE_BRACE));
      if (i < 0) {
        i = ~i;
        break;
      }
    }
  }
  if (scan.skipSpace(i + 1) !== text.length) throw unexpected;
  return answer;
}

/** Rows asked of the module at once: as many as its output holds. */
const ALL_ROWS = 2 ** 31 - 1;

/**
 * The rows of the array at `i`, each an object, read into `into`; the index just past the array, or
 * -1 when an element is not an object or the JSON is not JSON (the whole parse says what it is).
 */
function scanRows(scan: ListScan, text: Buffer, i: number, wanted: WantedSet, into: Scanned): number {
  i = scan.skipSpace(i + 1);
  if (text[i] === CLOSE_BRACKET) return i + 1;
  for (;;) {
    const status = scan.rows(i, ALL_ROWS);
    if (status === FAILED) return -1;
    if (into.count === 0) {
      const at = scan.recordAt();
      const records = scan.records;
      sizeFor(into, records[at + 1]! - records[at]!, text.length - records[at]!);
    }
    taken(scan, text, wanted, into);
    i = scan.next;
    if (status === ENDED) return ~i + 1;
    if (status !== MORE) return -1;
  }
}

/** The rows the module just wrote, added to `into`: their spans, and each wanted member's value read. */
function taken(scan: ListScan, text: Buffer, wanted: WantedSet, into: Scanned): void {
  const records = scan.records;
  const all = wanted.all;
  const stride = 2 + 2 * all.length;
  const { columns, spans } = into;
  let r = scan.recordAt();
  for (let n = scan.written; n > 0; n--, r += stride) {
    const at = into.count++;
    spans[2 * at] = records[r]!;
    spans[2 * at + 1] = records[r + 1]!;
    for (let m = 0; m < all.length; m++) {
      const start = records[r + 2 + 2 * m]!;
      const end = records[r + 3 + 2 * m]!;
      columns[m]![at] = start < 0 ? undefined : all[m]!.presence ? presence(text, start, end) : readValue(text, start, end);
    }
  }
}

/**
 * The value at [start, `end`) (a string holding an escape where `end` is negated): a string without
 * escapes is decoded directly, anything else parsed.
 */
function readValue(text: Buffer, start: number, end: number): unknown {
  if (end < 0) return JSON.parse(text.toString('utf8', start, -end));
  if (text[start] === QUOTE) return text.toString('utf8', start + 1, end - 1);
  return JSON.parse(text.toString('utf8', start, end));
}

/** Whether the value at [start, `end`) is blank (null or ""): null or "" themselves, `true` for any other. */
function presence(text: Buffer, start: number, end: number): unknown {
  if (text[start] === 0x6e) return null;
  return text[start] === QUOTE && end === start + 2 ? '' : true;
}
