/**
 * A v1 list answer read for a List that serves one page of it. A list of
 * 1,000 groups is 300 KB of JSON, and parsing all of it into objects was the
 * largest cost of a page, with the garbage it leaves; yet the List reads only
 * a member or two of each row (its id, the fields its filters and order read)
 * and serves 50 rows. So the rows are scanned, not parsed: each is checked as
 * JSON.parse checks it, only the wanted members of each are parsed (a row of
 * those members alone, `partial`), and a row is parsed whole (`whole`) only when
 * the page serves it. The result is exactly JSON.parse's: the same values, and
 * a body JSON.parse refuses is refused (the scan gives up on anything it does
 * not expect, and the body is then parsed whole, which throws as JSON.parse
 * throws). Pure.
 */
import {
  BACKSLASH, CLOSE_BRACE, CLOSE_BRACKET, COLON, COMMA, OPEN_BRACE, OPEN_BRACKET, parseJsonBytes, QUOTE,
} from './json-body.ts';

type Json = Record<string, unknown>;

/** A list's rows as scanned: each with only the wanted members, and each whole on demand. */
export class ScannedRows {
  /** Row `i` with only the wanted members it has (absent ones stay absent). */
  readonly partial: Json[];
  readonly #bytes: Buffer;
  /** Where each row starts and ends in the body: [start, end) at 2i, 2i + 1. */
  readonly #spans: number[];

  constructor(bytes: Buffer, partial: Json[], spans: number[]) {
    this.#bytes = bytes;
    this.partial = partial;
    this.#spans = spans;
  }

  /** Row `i` parsed whole. */
  whole(i: number): Json {
    return JSON.parse(this.#bytes.toString('utf8', this.#spans[2 * i], this.#spans[2 * i + 1])) as Json;
  }
}

/**
 * The answer's members, its `items` (when they are an array of objects) as
 * ScannedRows with the `members` of each row; any other body exactly as
 * parseJsonBytes answers it (or throws).
 */
export function readListAnswer(bytes: Uint8Array, members: readonly string[]): unknown {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (!members.includes('__proto__')) {
    try {
      const answer = scanAnswer(buffer, members.map((name) => ({ name, bytes: Buffer.from(name, 'utf8') })));
      if (answer !== undefined) return answer;
    } catch {
      // Too deep for the scan's recursion, or otherwise beyond it: the whole parse below decides.
    }
  }
  return parseJsonBytes(bytes);
}

const MINUS = 0x2d;
const PLUS = 0x2b;
const DOT = 0x2e;
const ZERO = 0x30;
const NINE = 0x39;

/** A member the rows are read for, with its name's bytes to match keys against. */
interface Wanted {
  name: string;
  bytes: Buffer;
}

/** Gives up on the scan: the body is not of the shape it reads (or not JSON), so the whole parse answers. */
class Unexpected extends Error {}
const unexpected = new Unexpected();

function scanAnswer(b: Buffer, wanted: readonly Wanted[]): Json | undefined {
  let i = skipSpace(b, b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf ? 3 : 0);
  if (b[i] !== OPEN_BRACE) return undefined;
  const answer: Json = {};
  i = skipSpace(b, i + 1);
  if (b[i] !== CLOSE_BRACE) {
    for (;;) {
      const keyEnd = skipString(b, i);
      const key = JSON.parse(b.toString('utf8', i, keyEnd)) as string;
      i = skipSpace(b, keyEnd);
      if (b[i] !== COLON) throw unexpected;
      i = skipSpace(b, i + 1);
      let value: unknown;
      if (key === 'items' && b[i] === OPEN_BRACKET) {
        const partial: Json[] = [];
        const spans: number[] = [];
        const end = scanRows(b, i, wanted, partial, spans);
        if (end < 0) return undefined;
        value = new ScannedRows(b, partial, spans);
        i = end;
      } else {
        const end = skipValue(b, i);
        value = JSON.parse(b.toString('utf8', i, end));
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
function scanRows(b: Buffer, i: number, wanted: readonly Wanted[], partial: Json[], spans: number[]): number {
  i = skipSpace(b, i + 1);
  if (b[i] === CLOSE_BRACKET) return i + 1;
  for (;;) {
    if (b[i] !== OPEN_BRACE) return -1;
    const start = i;
    const row: Json = {};
    i = skipSpace(b, i + 1);
    if (b[i] !== CLOSE_BRACE) {
      for (;;) {
        const keyStart = i;
        const keyEnd = skipString(b, i);
        i = skipSpace(b, keyEnd);
        if (b[i] !== COLON) throw unexpected;
        i = skipSpace(b, i + 1);
        const valueStart = i;
        i = skipValue(b, i);
        const member = wantedMember(b, keyStart, keyEnd, wanted);
        if (member !== undefined) row[member] = readValue(b, valueStart, i);
        i = separator(b, i, CLOSE_BRACE);
        if (i < 0) {
          i = ~i;
          break;
        }
      }
    }
    i++;
    partial.push(row);
    spans.push(start, i);
    i = separator(b, i, CLOSE_BRACKET);
    if (i < 0) return ~i + 1;
  }
}

/** The member a key names, when it is one of `wanted`. */
function wantedMember(b: Buffer, start: number, end: number, wanted: readonly Wanted[]): string | undefined {
  const length = end - start - 2;
  for (const { name, bytes } of wanted) {
    if (bytes.length !== length) continue;
    let same = true;
    for (let k = 0; k < length; k++) {
      if (b[start + 1 + k] !== bytes[k]) {
        same = false;
        break;
      }
    }
    if (same) return name;
  }
  // A key spelt with escapes (`"\u0069d"`) is the same key to JSON.parse.
  for (let k = start + 1; k < end - 1; k++) {
    if (b[k] === BACKSLASH) {
      const key = JSON.parse(b.toString('utf8', start, end)) as string;
      return wanted.some((w) => w.name === key) ? key : undefined;
    }
  }
  return undefined;
}

/** The value at [start, end): a string without escapes is decoded directly, anything else parsed. */
function readValue(b: Buffer, start: number, end: number): unknown {
  if (b[start] === QUOTE) {
    let plain = true;
    for (let k = start + 1; k < end - 1; k++) {
      if (b[k] === BACKSLASH) {
        plain = false;
        break;
      }
    }
    if (plain) return b.toString('utf8', start + 1, end - 1);
  }
  return JSON.parse(b.toString('utf8', start, end));
}

// ---- checking JSON as JSON.parse does, without building it -------------------------------------

/** Index just past the JSON value at `i`; throws `unexpected` where JSON.parse would throw. */
function skipValue(b: Buffer, i: number): number {
  const c = b[i];
  if (c === QUOTE) return skipString(b, i);
  if (c === OPEN_BRACE) return skipObject(b, i);
  if (c === OPEN_BRACKET) return skipArray(b, i);
  if (c === 0x74) return skipWord(b, i, 'true');
  if (c === 0x66) return skipWord(b, i, 'false');
  if (c === 0x6e) return skipWord(b, i, 'null');
  return skipNumber(b, i);
}

function skipObject(b: Buffer, i: number): number {
  i = skipSpace(b, i + 1);
  if (b[i] === CLOSE_BRACE) return i + 1;
  for (;;) {
    i = skipSpace(b, skipString(b, i));
    if (b[i] !== COLON) throw unexpected;
    i = separator(b, skipValue(b, skipSpace(b, i + 1)), CLOSE_BRACE);
    if (i < 0) return ~i + 1;
  }
}

function skipArray(b: Buffer, i: number): number {
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
function separator(b: Buffer, i: number, close: number): number {
  i = skipSpace(b, i);
  if (b[i] === COMMA) return skipSpace(b, i + 1);
  if (b[i] === close) return ~i;
  throw unexpected;
}

/** Index just past the string opening at `i`: no raw control character, only JSON's escapes. */
function skipString(b: Buffer, i: number): number {
  if (b[i] !== QUOTE) throw unexpected;
  for (i++; i < b.length; i++) {
    const c = b[i]!;
    if (c === QUOTE) return i + 1;
    if (c < 0x20) throw unexpected;
    if (c === BACKSLASH) {
      const e = b[++i];
      if (e === 0x75) {
        for (let k = 1; k <= 4; k++) if (!isHex(b[i + k])) throw unexpected;
        i += 4;
      } else if (e !== QUOTE && e !== BACKSLASH && e !== 0x2f && e !== 0x62 && e !== 0x66 && e !== 0x6e && e !== 0x72 && e !== 0x74) {
        throw unexpected;
      }
    }
  }
  throw unexpected;
}

function skipWord(b: Buffer, i: number, word: string): number {
  for (let k = 0; k < word.length; k++) if (b[i + k] !== word.charCodeAt(k)) throw unexpected;
  return i + word.length;
}

/** JSON's number: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`. */
function skipNumber(b: Buffer, i: number): number {
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

function skipSpace(b: Buffer, i: number): number {
  for (;;) {
    const c = b[i];
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return i;
    i++;
  }
}
