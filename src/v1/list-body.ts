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
 * throws). Pure.
 */
import {
  asBuffer, BACKSLASH, CLOSE_BRACE, CLOSE_BRACKET, COLON, COMMA, OPEN_BRACE, OPEN_BRACKET, parseJsonBytes, QUOTE,
} from './json-body.ts';

type Json = Record<string, unknown>;

/**
 * Whether the string skipString skipped last held an escape. Declared before the functions that read
 * it, so V8 need not check on each read that it has been (a `let` read before its declaration throws).
 */
let escaped = false;

/**
 * The body being scanned, read four bytes at a time where skipString runs through a string (set by
 * `scanned`, let go by `released`): the scan is synchronous, so one at a time. Most of a list's bytes
 * are inside strings, and a word is checked for a quote, a backslash or a control byte at once.
 */
let words: DataView = new DataView(new ArrayBuffer(0));
const NO_WORDS = words;

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
  const b = scanned(text);
  try {
    let i = kept === 0 ? skipSpace(b, rows.open + 1) : separator(b, spans[2 * kept - 1]!, CLOSE_BRACKET);
    if (kept === 0 && b[i] === CLOSE_BRACKET) i = ~i;
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
      if (b[i] !== OPEN_BRACE) return undefined;
      i = separator(b, scanRow(b, text, i, wanted, fresh), CLOSE_BRACKET);
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
    released();
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

/** The members as the scan matches them; undefined when one is `__proto__`, which only the whole parse reads right. */
function wantedOf(members: readonly string[], presence: readonly string[]): WantedSet | undefined {
  const named = [...members.map((name) => ({ name, presence: false })), ...presence.map((name) => ({ name, presence: true }))];
  if (named.some((w) => w.name === '__proto__')) return undefined;
  // A member named twice is read as first named: one column a name.
  const wanted = named.filter((w, i) => named.findIndex((o) => o.name === w.name) === i);
  // A plain Uint8Array, as the body is read through one: indexing a Buffer subclass is slower.
  const all = wanted.map((w, column) => ({ ...w, column, bytes: new Uint8Array(Buffer.from(w.name, 'utf8')) }));
  const byLength = new Array<readonly Wanted[] | undefined>(Math.max(0, ...all.map((w) => w.bytes.length)) + 1).fill(undefined);
  for (const w of all) byLength[w.bytes.length] = [...(byLength[w.bytes.length] ?? []), w];
  return { all, byLength };
}

const MINUS = 0x2d;
const PLUS = 0x2b;
const DOT = 0x2e;
const ZERO = 0x30;
const NINE = 0x39;

/** A member the rows are read for, with its name's bytes to match keys against. */
interface Wanted {
  name: string;
  bytes: Uint8Array;
  /** Read for whether it is blank only (see readListAnswer). */
  presence: boolean;
  /** Its index among the wanted members: its column of ScannedRows. */
  column: number;
}

/**
 * The members the rows are read for, and the same by the length of their names in bytes: most keys of a
 * row are of a length no wanted member has, and are passed over at one look.
 */
interface WantedSet {
  all: readonly Wanted[];
  byLength: ReadonlyArray<readonly Wanted[] | undefined>;
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
 * Sizes the arrays for the rows the `remaining` bytes are likely to hold, given the first row's
 * length (with an eighth to spare), so they are not grown, and copied, row by row.
 */
function sizeFor(into: Scanned, remaining: number): void {
  const first = into.spans[1]! - into.spans[0]!;
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

/** The body's bytes as the scan reads them, its words set to the same memory (until `released`). */
function scanned(text: Buffer): Uint8Array {
  words = new DataView(text.buffer, text.byteOffset, text.byteLength);
  // Indexing a plain Uint8Array is faster than indexing a Buffer (a subclass of it).
  return new Uint8Array(text.buffer, text.byteOffset, text.byteLength);
}

/** Lets go of the body `scanned` set (it is not kept past its scan). */
function released(): void {
  words = NO_WORDS;
}

function scanAnswer(text: Buffer, wanted: WantedSet): Json | undefined {
  try {
    return scanAnswerOf(scanned(text), text, wanted);
  } finally {
    released();
  }
}

function scanAnswerOf(b: Uint8Array, text: Buffer, wanted: WantedSet): Json | undefined {
  let i = skipSpace(b, b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf ? 3 : 0);
  if (b[i] !== OPEN_BRACE) return undefined;
  const answer: Json = {};
  i = skipSpace(b, i + 1);
  if (b[i] !== CLOSE_BRACE) {
    for (;;) {
      const keyEnd = skipString(b, i);
      const key = JSON.parse(text.toString('utf8', i, keyEnd)) as string;
      i = skipSpace(b, keyEnd);
      if (b[i] !== COLON) throw unexpected;
      i = skipSpace(b, i + 1);
      let value: unknown;
      if (key === 'items' && b[i] === OPEN_BRACKET) {
        const into = scannedFor(wanted);
        const end = scanRows(b, text, i, wanted, into);
        if (end < 0) return undefined;
        const { columns, spans } = trimmed(into);
        value = new ScannedRows(text, wanted.all.map((w) => w.name), columns, spans, i, end);
        i = end;
      } else {
        const end = skipValue(b, i);
        value = JSON.parse(text.toString('utf8', i, end));
        i = end;
      }
      // JSON.parse makes `__proto__` an own property; plain assignment would set the prototype instead.
      if (key === '__proto__') Object.defineProperty(answer, key, { value, writable: true, enumerable: true, configurable: true });
      else answer[key] = value;
      i = separator(b, i, CLOSE_BRACE);
      if (i < 0) {
        i = ~i;
        break;
      }
    }
  }
  if (skipSpace(b, i + 1) !== b.length) throw unexpected;
  return answer;
}

/** The rows of the array at `i`, each an object; -1 when an element is not one (the whole parse says what it is). */
function scanRows(b: Uint8Array, text: Buffer, i: number, wanted: WantedSet, into: Scanned): number {
  i = skipSpace(b, i + 1);
  if (b[i] === CLOSE_BRACKET) return i + 1;
  for (;;) {
    if (b[i] !== OPEN_BRACE) return -1;
    i = separator(b, scanRow(b, text, i, wanted, into), CLOSE_BRACKET);
    if (i < 0) return ~i + 1;
    if (into.count === 1) sizeFor(into, b.length - i);
  }
}

/**
 * The object at `i`, a row: its wanted members' values pushed to their columns (undefined for one it
 * lacks) and its span to `spans`; the index just past it.
 */
function scanRow(b: Uint8Array, text: Buffer, i: number, wanted: WantedSet, into: Scanned): number {
  const start = i;
  const at = into.count;
  const columns = into.columns;
  for (let m = 0; m < columns.length; m++) columns[m]![at] = undefined;
  i = skipSpace(b, i + 1);
  if (b[i] !== CLOSE_BRACE) {
    for (;;) {
      const keyStart = i;
      const keyEnd = skipString(b, i);
      const member = wantedMember(b, text, keyStart, keyEnd, wanted);
      i = skipSpace(b, keyEnd);
      if (b[i] !== COLON) throw unexpected;
      i = skipSpace(b, i + 1);
      const valueStart = i;
      // Most values are strings: skipped without skipValue's call and its test of every kind.
      i = b[i] === QUOTE ? skipString(b, i) : skipValue(b, i);
      if (member !== undefined) columns[member.column]![at] = member.presence ? presence(b, valueStart, i) : readValue(b, text, valueStart, i);
      i = separator(b, i, CLOSE_BRACE);
      if (i < 0) {
        i = ~i;
        break;
      }
    }
  }
  i++;
  into.spans[2 * at] = start;
  into.spans[2 * at + 1] = i;
  into.count = at + 1;
  return i;
}

/** The member a key names, when it is one of `wanted` (the string just skipped, so `escaped` is its own). */
function wantedMember(b: Uint8Array, text: Buffer, start: number, end: number, wanted: WantedSet): Wanted | undefined {
  if (escaped) {
    // A key spelt with escapes (`"\u0069d"`) is the same key to JSON.parse.
    const key = JSON.parse(text.toString('utf8', start, end)) as string;
    return wanted.all.find((w) => w.name === key);
  }
  const length = end - start - 2;
  const candidates = length < wanted.byLength.length ? wanted.byLength[length] : undefined;
  if (candidates === undefined) return undefined;
  for (let c = 0; c < candidates.length; c++) {
    const member = candidates[c]!;
    const bytes = member.bytes;
    let k = 0;
    while (k < length && b[start + 1 + k] === bytes[k]) k++;
    if (k === length) return member;
  }
  return undefined;
}

/** The value at [start, end) (just skipped): a string without escapes is decoded directly, anything else parsed. */
function readValue(b: Uint8Array, text: Buffer, start: number, end: number): unknown {
  if (b[start] === QUOTE && !escaped) return text.toString('utf8', start + 1, end - 1);
  return JSON.parse(text.toString('utf8', start, end));
}

/** Whether the value at [start, end) is blank (null or ""): null or "" themselves, `true` for any other. */
function presence(b: Uint8Array, start: number, end: number): unknown {
  if (b[start] === 0x6e) return null;
  return b[start] === QUOTE && end === start + 2 ? '' : true;
}

// ---- checking JSON as JSON.parse does, without building it -------------------------------------

/** Index just past the JSON value at `i`; throws `unexpected` where JSON.parse would throw. */
function skipValue(b: Uint8Array, i: number): number {
  const c = b[i];
  if (c === QUOTE) return skipString(b, i);
  if (c === OPEN_BRACE) return skipObject(b, i);
  if (c === OPEN_BRACKET) return skipArray(b, i);
  if (c === 0x74) return skipWord(b, i, 'true');
  if (c === 0x66) return skipWord(b, i, 'false');
  if (c === 0x6e) return skipWord(b, i, 'null');
  return skipNumber(b, i);
}

function skipObject(b: Uint8Array, i: number): number {
  i = skipSpace(b, i + 1);
  if (b[i] === CLOSE_BRACE) return i + 1;
  for (;;) {
    i = skipSpace(b, skipString(b, i));
    if (b[i] !== COLON) throw unexpected;
    i = separator(b, skipValue(b, skipSpace(b, i + 1)), CLOSE_BRACE);
    if (i < 0) return ~i + 1;
  }
}

function skipArray(b: Uint8Array, i: number): number {
  i = skipSpace(b, i + 1);
  if (b[i] === CLOSE_BRACKET) return i + 1;
  for (;;) {
    i = separator(b, skipValue(b, i), CLOSE_BRACKET);
    if (i < 0) return ~i + 1;
  }
}

/**
 * After a member or an element: the index of the next one, past the comma, or `~index` (negative)
 * of the `close` that ends the object or array; throws at anything else.
 */
function separator(b: Uint8Array, i: number, close: number): number {
  i = skipSpace(b, i);
  if (b[i] === COMMA) return skipSpace(b, i + 1);
  if (b[i] === close) return ~i;
  throw unexpected;
}

/** Index just past the string opening at `i`: no raw control character, only JSON's escapes. */
function skipString(b: Uint8Array, i: number): number {
  if (b[i] !== QUOTE) throw unexpected;
  escaped = false;
  for (i++; ; i++) {
    // Run to the closing quote, an escape or a raw control character: four bytes at a time while
    // none of them is one (each test below is 0x80 in a byte of the word where that byte is one of
    // them; a borrow can only mark a byte after one that is), then byte by byte. Compared, not looked
    // up in a table of stops: ~10% less of a 1,000-row scan (most of whose bytes are inside strings).
    const last = b.length - 4;
    while (i <= last) {
      const w = words.getUint32(i, true);
      const quote = w ^ 0x22222222;
      const backslash = w ^ 0x5c5c5c5c;
      if (((((quote - 0x01010101) & ~quote) | ((backslash - 0x01010101) & ~backslash) | ((w - 0x20202020) & ~w)) & 0x80808080) !== 0) break;
      i += 4;
    }
    let c = b[i]!;
    while (c !== QUOTE && c !== BACKSLASH && c >= 0x20) c = b[++i]!;
    if (c === QUOTE) return i + 1;
    if (c !== BACKSLASH) throw unexpected; // a control character, or the end of the body (undefined)
    escaped = true;
    const e = b[++i];
    if (e === 0x75) {
      for (let k = 1; k <= 4; k++) if (!isHex(b[i + k])) throw unexpected;
      i += 4;
    } else if (e !== QUOTE && e !== BACKSLASH && e !== 0x2f && e !== 0x62 && e !== 0x66 && e !== 0x6e && e !== 0x72 && e !== 0x74) {
      throw unexpected;
    }
  }
}

function skipWord(b: Uint8Array, i: number, word: string): number {
  for (let k = 0; k < word.length; k++) if (b[i + k] !== word.charCodeAt(k)) throw unexpected;
  return i + word.length;
}

/** JSON's number: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`. */
function skipNumber(b: Uint8Array, i: number): number {
  if (b[i] === MINUS) i++;
  if (b[i] === ZERO) i++;
  else if (isDigit(b[i])) while (isDigit(b[i])) i++;
  else throw unexpected;
  if (b[i] === DOT) {
    i++;
    if (!isDigit(b[i])) throw unexpected;
    while (isDigit(b[i])) i++;
  }
  if (b[i] === 0x65 || b[i] === 0x45) {
    i++;
    if (b[i] === PLUS || b[i] === MINUS) i++;
    if (!isDigit(b[i])) throw unexpected;
    while (isDigit(b[i])) i++;
  }
  return i;
}

function isDigit(c: number | undefined): boolean {
  return c !== undefined && c >= ZERO && c <= NINE;
}

function isHex(c: number | undefined): boolean {
  return c !== undefined && ((c >= ZERO && c <= NINE) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66));
}

function skipSpace(b: Uint8Array, i: number): number {
  // Never read past the end (the scan's last call is there): a byte read past it is undefined, and one
  // such comparison is enough for V8 to compare every byte here, where this is inlined, generically.
  const n = b.length;
  for (; i < n; i++) {
    const c = b[i]!;
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return i;
  }
  return i;
}
