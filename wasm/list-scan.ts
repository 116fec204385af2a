// The scan of a v1 list answer's rows, in AssemblyScript, compiled to src/v1/list-scan.wasm
// (`npm run wasm`). src/v1/list-body.ts drives it and says what the scan is for; this is its byte loop.
//
// The body is copied into this module's memory at INPUT and read there; positions given and
// answered are indices into the body (0 = its first byte). What is checked is what JSON.parse
// checks, so a body this accepts JSON.parse accepts, and the other way round: where the scan
// answers FAILED the caller parses the body whole, and that decides.
//
// Kept in one file with no imports and no allocation: the module's memory is laid out by hand below.
// Compiled with its functions' names kept (asconfig.json's `debug`: a name section, no other change to
// the code), so profiles and `npm run bench:instructions -- --stages` tell its functions by name.

/** Answered instead of an index where the JSON is not what JSON.parse accepts, or nests too deep. */
const FAILED: i32 = -1;
/** A row's status from rows(): more rows follow (the output is full). */
const MORE: i32 = 1;
/** A row's status from rows(): the array ended; rowsNext() is ~ the index of its `]`. */
const ENDED: i32 = 0;

/** The most wanted members, and the longest name of one in bytes (the memory below holds their slots). */
export const MAX_WANTED: i32 = 64;
export const MAX_NAME: i32 = 64;
/** Nesting past this gives up (the whole parse decides): the skip recurses once a level. */
const MAX_DEPTH: i32 = 512;

const QUOTE: u8 = 0x22;
const BACKSLASH: u8 = 0x5c;

// The layout: the wanted names' lengths (an i32 each), their bytes (MAX_NAME each), the rows written,
// then the body. Exported, as the module's limits are, so its caller reads them from here.
export const LENGTHS: usize = (__heap_base + 15) & ~15;
export const NAMES: usize = LENGTHS + MAX_WANTED * 4;
export const OUT: usize = NAMES + MAX_WANTED * MAX_NAME;
const OUT_BYTES: usize = 256 * 1024;
export const INPUT: usize = OUT + OUT_BYTES;

let wantedCount: i32 = 0;
/** One past the body's last byte, as an address. */
let limit: usize = INPUT;
/** Whether the string skipString skipped last held an escape. */
let escaped: bool = false;
let depth: i32 = 0;
let next: i32 = 0;
let written: i32 = 0;

/** After writing `count` names (lengths at LENGTHS, bytes at NAMES + MAX_NAME·k). */
export function setWanted(count: i32): void {
  wantedCount = count;
}

/** After copying a body of `length` bytes to INPUT, and sixteen zero bytes after it. */
export function setInput(length: i32): void {
  limit = INPUT + <usize>length;
  // A trap (the stack run out) leaves the skip's depth where it was: each body starts from none.
  depth = 0;
}

export function rowsNext(): i32 {
  return next;
}

export function rowsWritten(): i32 {
  return written;
}

/**
 * The body's byte at `i`. Unchecked: the caller leaves sixteen zero bytes after the body, and every loop
 * here stops at a zero byte (no JSON token holds one), so none reads further.
 */
@inline function at(i: i32): u8 {
  return load<u8>(INPUT + <usize>i);
}

@inline function isSpace(c: u8): bool {
  return c == 0x20 || c == 0x0a || c == 0x0d || c == 0x09;
}

@inline function isDigit(c: u8): bool {
  return c >= 0x30 && c <= 0x39;
}

@inline function isHex(c: u8): bool {
  return isDigit(c) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
}

export function skipSpace(i: i32): i32 {
  while (isSpace(at(i))) i++;
  return i;
}

/** Index just past the string opening at `i` (no raw control character, only JSON's escapes), or FAILED. */
export function skipString(i: i32): i32 {
  if (at(i) != QUOTE) return FAILED;
  escaped = false;
  let p = INPUT + <usize>(i + 1);
  const quote = i8x16.splat(0x22);
  const backslash = i8x16.splat(0x5c);
  const control = i8x16.splat(0x20);
  while (true) {
    // Sixteen bytes at a time: the first quote, backslash or raw control character among them (the
    // zero bytes after the body are control characters: a string running to its end stops there).
    const v = v128.load(p);
    const stops = v128.or(v128.or(i8x16.eq(v, quote), i8x16.eq(v, backslash)), i8x16.lt_u(v, control));
    const mask = i8x16.bitmask(stops);
    if (mask == 0) {
      p += 16;
      if (p >= limit) return FAILED;
      continue;
    }
    p += <usize>ctz(mask);
    if (p >= limit) return FAILED;
    const c = load<u8>(p);
    if (c == QUOTE) return <i32>(p + 1 - INPUT);
    if (c != BACKSLASH) return FAILED; // a raw control character
    escaped = true;
    const e = load<u8>(p + 1);
    if (e == 0x75) {
      for (let k: usize = 2; k <= 5; k++) if (!isHex(load<u8>(p + k))) return FAILED;
      p += 6;
    } else if (e == QUOTE || e == BACKSLASH || e == 0x2f || e == 0x62 || e == 0x66 || e == 0x6e || e == 0x72 || e == 0x74) {
      p += 2;
    } else {
      return FAILED;
    }
  }
}

function skipWord(i: i32, word: u64, length: i32): i32 {
  // `word`: the word's bytes, first in the lowest byte.
  for (let k = 0; k < length; k++) if (<u64>at(i + k) != ((word >> (8 * <u64>k)) & 0xff)) return FAILED;
  return i + length;
}

/** JSON's number: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`. */
function skipNumber(i: i32): i32 {
  if (at(i) == 0x2d) i++;
  if (at(i) == 0x30) i++;
  else if (isDigit(at(i))) while (isDigit(at(i))) i++;
  else return FAILED;
  if (at(i) == 0x2e) {
    i++;
    if (!isDigit(at(i))) return FAILED;
    while (isDigit(at(i))) i++;
  }
  if (at(i) == 0x65 || at(i) == 0x45) {
    i++;
    if (at(i) == 0x2b || at(i) == 0x2d) i++;
    if (!isDigit(at(i))) return FAILED;
    while (isDigit(at(i))) i++;
  }
  return i;
}

/** Index just past the JSON value at `i`, or FAILED. */
export function skipValue(i: i32): i32 {
  const c = at(i);
  if (c == QUOTE) return skipString(i);
  if (c == 0x7b || c == 0x5b) {
    if (depth == MAX_DEPTH) return FAILED;
    depth++;
    const end = c == 0x7b ? skipObject(i) : skipArray(i);
    depth--;
    return end;
  }
  if (c == 0x74) return skipWord(i, 0x65757274, 4); // true
  if (c == 0x66) return skipWord(i, 0x65736c6166, 5); // false
  if (c == 0x6e) return skipWord(i, 0x6c6c756e, 4); // null
  return skipNumber(i);
}

/** separator's answer at anything but a comma or the closing byte (every index and ~index is above it). */
const FAILED_SEPARATOR: i32 = i32.MIN_VALUE;

/**
 * After a member or an element at `i`: the index of the next one, past the comma; ~ the index of the
 * `close` that ends the object or array (negative); or FAILED_SEPARATOR at anything else.
 */
export function separator(i: i32, close: u8): i32 {
  i = skipSpace(i);
  const c = at(i);
  if (c == 0x2c) return skipSpace(i + 1);
  if (c == close) return ~i;
  return FAILED_SEPARATOR;
}

function skipObject(i: i32): i32 {
  i = skipSpace(i + 1);
  if (at(i) == 0x7d) return i + 1;
  while (true) {
    i = skipString(i);
    if (i == FAILED) return FAILED;
    i = skipSpace(i);
    if (at(i) != 0x3a) return FAILED;
    i = skipValue(skipSpace(i + 1));
    if (i == FAILED) return FAILED;
    i = separator(i, 0x7d);
    if (i == FAILED_SEPARATOR) return FAILED;
    if (i < 0) return ~i + 1;
  }
}

function skipArray(i: i32): i32 {
  i = skipSpace(i + 1);
  if (at(i) == 0x5d) return i + 1;
  while (true) {
    i = skipValue(i);
    if (i == FAILED) return FAILED;
    i = separator(i, 0x5d);
    if (i == FAILED_SEPARATOR) return FAILED;
    if (i < 0) return ~i + 1;
  }
}

/** The byte an escape at `p` (its backslash) stands for, when it is ASCII; -1 otherwise. `p` is within a skipped string. */
function escapedByte(p: usize): i32 {
  const e = load<u8>(p + 1);
  if (e == 0x75) {
    let code: i32 = 0;
    for (let k: usize = 2; k <= 5; k++) {
      const h = <i32>load<u8>(p + k);
      code = code * 16 + (h <= 0x39 ? h - 0x30 : (h | 0x20) - 0x61 + 10);
    }
    return code < 0x80 ? code : -1;
  }
  if (e == 0x62) return 0x08;
  if (e == 0x66) return 0x0c;
  if (e == 0x6e) return 0x0a;
  if (e == 0x72) return 0x0d;
  if (e == 0x74) return 0x09;
  return <i32>e; // `"`, `\` or `/`
}

/** Whether the key skipped at [start, end), spelt with escapes, reads as wanted name `k` (whose bytes are ASCII). */
function escapedKeyIs(start: i32, end: i32, k: i32): bool {
  const name = NAMES + <usize>(k * MAX_NAME);
  const length = load<i32>(LENGTHS + <usize>(k * 4));
  let p = INPUT + <usize>(start + 1);
  const stop = INPUT + <usize>(end - 1);
  let n = 0;
  while (p < stop) {
    let c: i32 = <i32>load<u8>(p);
    if (c == BACKSLASH) {
      c = escapedByte(p);
      p += load<u8>(p + 1) == 0x75 ? 6 : 2;
    } else {
      p++;
    }
    if (c < 0 || n >= length || c != <i32>load<u8>(name + <usize>n)) return false;
    n++;
  }
  return n == length;
}

/** The wanted member the key at [start, end) names (just skipped, so `escaped` is its own), or -1. */
function wantedMember(start: i32, end: i32): i32 {
  const length = end - start - 2;
  for (let k = 0; k < wantedCount; k++) {
    if (escaped) {
      if (escapedKeyIs(start, end, k)) return k;
      continue;
    }
    if (load<i32>(LENGTHS + <usize>(k * 4)) != length) continue;
    const name = NAMES + <usize>(k * MAX_NAME);
    const key = INPUT + <usize>(start + 1);
    let n = 0;
    while (n < length && load<u8>(key + <usize>n) == load<u8>(name + <usize>n)) n++;
    if (n == length) return k;
  }
  return -1;
}

/**
 * The object at `i`, a row, written at `out`: its span [start, end), then for each wanted member the
 * span of its value [start, end) (start -1 when the row lacks it; end negated when the value is a
 * string with an escape), the last of a key named twice as JSON.parse takes it. Answers the index
 * just past the row, or FAILED.
 */
function scanRow(i: i32, out: usize): i32 {
  const start = i;
  for (let k = 0; k < wantedCount; k++) store<i32>(out + <usize>(8 + 8 * k), -1);
  i = skipSpace(i + 1);
  if (at(i) != 0x7d) {
    while (true) {
      const keyStart = i;
      const keyEnd = skipString(i);
      if (keyEnd == FAILED) return FAILED;
      const member = wantedMember(keyStart, keyEnd);
      i = skipSpace(keyEnd);
      if (at(i) != 0x3a) return FAILED;
      i = skipSpace(i + 1);
      const valueStart = i;
      i = at(i) == QUOTE ? skipString(i) : skipValue(i);
      if (i == FAILED) return FAILED;
      if (member >= 0) {
        const slot = out + <usize>(8 + 8 * member);
        store<i32>(slot, valueStart);
        store<i32>(slot + 4, at(valueStart) == QUOTE && escaped ? -i : i);
      }
      i = separator(i, 0x7d);
      if (i == FAILED_SEPARATOR) return FAILED;
      if (i < 0) {
        i = ~i;
        break;
      }
    }
  }
  i++;
  store<i32>(out, start);
  store<i32>(out + 4, i);
  return i;
}

/**
 * The rows of an array from its element at `i` on, each an object, written from OUT on (a row's
 * record as scanRow writes it, 2 + 2·wanted i32s), at most `most` of them and as many as the output
 * holds. Answers ENDED (rowsNext() is ~ the index of the array's `]`), MORE (rowsNext() is the next
 * element's index), or FAILED (an element is not an object, or the JSON is not JSON); rowsWritten()
 * says how many rows were written.
 */
export function rows(i: i32, most: i32): i32 {
  const stride = <usize>(8 + 8 * wantedCount);
  const room = <i32>(OUT_BYTES / stride);
  if (most > room) most = room;
  written = 0;
  let out = OUT;
  while (true) {
    if (at(i) != 0x7b) return FAILED;
    i = scanRow(i, out);
    if (i == FAILED) return FAILED;
    written++;
    out += stride;
    i = separator(i, 0x5d);
    if (i == FAILED_SEPARATOR) return FAILED;
    next = i;
    if (i < 0) return ENDED;
    if (written == most) return MORE;
  }
}
