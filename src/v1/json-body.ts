/**
 * A v1 answer's JSON parsed without decoding it into one large string. V8
 * allocates a string over 128 KiB outside its young generation, one mapping
 * each, and a v1 list of 1,000 groups is 300 KB: decoding it cost 1.5–2 ms on
 * the benchmark machine against 10 µs for a 120 KB one, and it was the largest
 * single cost of a List page. So when the body is an object, every large array
 * member is parsed a few whole elements at a time, each piece a small string;
 * anything else is parsed whole. The result, and what is refused, are exactly
 * JSON.parse's: any body this module cannot read in pieces goes to
 * JSON.parse whole, which answers for it. Pure.
 */

/** Bytes of array elements decoded and parsed together: well under V8's large-object size. */
export const PIECE_BYTES = 32 * 1024;

/** JSON's structural bytes (list-body.ts reads them too). */
export const QUOTE = 0x22;
export const BACKSLASH = 0x5c;
export const COMMA = 0x2c;
export const COLON = 0x3a;
export const OPEN_BRACE = 0x7b;
export const CLOSE_BRACE = 0x7d;
export const OPEN_BRACKET = 0x5b;
export const CLOSE_BRACKET = 0x5d;

/** The bytes as a Buffer over the same memory (no copy). */
export function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** Parses a UTF-8 JSON body (a leading BOM is dropped, as undici's text() drops it); throws as JSON.parse throws. */
export function parseJsonBytes(bytes: Uint8Array, pieceBytes = PIECE_BYTES): unknown {
  const buffer = asBuffer(bytes);
  const start = buffer[0] === 0xef && buffer[1] === 0xbb && buffer[2] === 0xbf ? 3 : 0;
  if (buffer.length - start > pieceBytes) {
    let parsed: unknown;
    try {
      parsed = objectInPieces(buffer, start, pieceBytes);
    } catch {
      // Malformed somewhere: JSON.parse below says so in its own words.
    }
    if (parsed !== undefined) return parsed;
  }
  return JSON.parse(buffer.toString('utf8', start));
}

/** The top-level object, its large arrays read in pieces; undefined for any body of another shape. */
function objectInPieces(b: Buffer, from: number, pieceBytes: number): Record<string, unknown> | undefined {
  let i = skipSpace(b, from);
  if (b[i] !== OPEN_BRACE) return undefined;
  const out: Record<string, unknown> = {};
  i = skipSpace(b, i + 1);
  if (b[i] === CLOSE_BRACE) return skipSpace(b, i + 1) === b.length ? out : undefined;
  for (;;) {
    if (b[i] !== QUOTE) return undefined;
    const keyEnd = stringEnd(b, i);
    if (keyEnd < 0) return undefined;
    const key = JSON.parse(b.toString('utf8', i, keyEnd + 1)) as string;
    i = skipSpace(b, keyEnd + 1);
    if (b[i] !== COLON) return undefined;
    i = skipSpace(b, i + 1);
    const cuts: number[] = [];
    const end = valueEnd(b, i, cuts);
    if (end < 0) return undefined;
    const value = b[i] === OPEN_BRACKET && end - i > pieceBytes ? arrayInPieces(b, i, end, cuts, pieceBytes) : JSON.parse(b.toString('utf8', i, end));
    if (value === undefined) return undefined;
    // JSON.parse makes `__proto__` an own property; plain assignment would set the prototype instead.
    if (key === '__proto__') Object.defineProperty(out, key, { value, writable: true, enumerable: true, configurable: true });
    else out[key] = value;
    i = skipSpace(b, end);
    if (b[i] === COMMA) {
      i = skipSpace(b, i + 1);
      continue;
    }
    if (b[i] !== CLOSE_BRACE) return undefined;
    return skipSpace(b, i + 1) === b.length ? out : undefined;
  }
}

/** The array at [start, end), whose element-separating commas are `cuts`, parsed a piece of whole elements at a time. */
function arrayInPieces(b: Buffer, start: number, end: number, cuts: readonly number[], pieceBytes: number): unknown[] | undefined {
  if (b[end - 1] !== CLOSE_BRACKET) return undefined;
  const items: unknown[] = [];
  const take = (from: number, to: number) => {
    // A piece between commas holds at least one element: `[1, , 2]` and `[1, 2,]` are no arrays.
    if (skipSpace(b, from) >= to && cuts.length > 0) throw new SyntaxError('an empty array element');
    for (const item of JSON.parse(`[${b.toString('utf8', from, to)}]`) as unknown[]) items.push(item);
  };
  let from = start + 1;
  for (const cut of cuts) {
    if (cut - from < pieceBytes) continue;
    take(from, cut);
    from = cut + 1;
  }
  take(from, end - 1);
  return items;
}

/**
 * Index just past the value that starts at `i`, or -1 when the body ends first. Strings and
 * nesting are followed, nothing more: JSON.parse checks each piece. For an array, the commas
 * between its own elements are pushed onto `cuts`.
 */
function valueEnd(b: Buffer, i: number, cuts: number[]): number {
  const first = b[i];
  if (first === QUOTE) {
    const end = stringEnd(b, i);
    return end < 0 ? -1 : end + 1;
  }
  if (first !== OPEN_BRACE && first !== OPEN_BRACKET) {
    // A number or literal runs to the next delimiter.
    while (i < b.length && !isDelimiter(b[i]!)) i++;
    return i;
  }
  const array = first === OPEN_BRACKET;
  let depth = 0;
  for (; i < b.length; i++) {
    const c = b[i]!;
    if (c === QUOTE) {
      i = stringEnd(b, i);
      if (i < 0) return -1;
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) depth++;
    else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      if (--depth === 0) return i + 1;
    } else if (c === COMMA && depth === 1 && array) cuts.push(i);
  }
  return -1;
}

/** Index of the quote that closes the string opening at `open`, or -1. */
function stringEnd(b: Buffer, open: number): number {
  let i = open;
  for (;;) {
    i = b.indexOf(QUOTE, i + 1);
    if (i < 0) return -1;
    // A quote ends the string unless an odd run of backslashes escapes it.
    let slashes = 0;
    while (b[i - 1 - slashes] === BACKSLASH) slashes++;
    if (slashes % 2 === 0) return i;
  }
}

function isSpace(c: number | undefined): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

function skipSpace(b: Buffer, i: number): number {
  while (isSpace(b[i])) i++;
  return i;
}

function isDelimiter(c: number): boolean {
  return c === COMMA || c === CLOSE_BRACE || c === CLOSE_BRACKET || isSpace(c);
}
