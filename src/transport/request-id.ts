/**
 * A request's id: the caller's `x-request-id` when it is one a log line and a
 * response header can carry (1 to 128 printable ASCII characters, no spaces:
 * UUIDs, trace ids), otherwise a new UUID. The id is logged with every line of
 * the request and echoed in headers and ErrorInfo, so a caller cannot make
 * either carry kilobytes of its own text.
 */
import { randomFillSync } from 'node:crypto';

const USABLE = /^[\x21-\x7e]{1,128}$/;

export function requestIdOf(header: string | string[] | null | undefined): string {
  const value = Array.isArray(header) ? header[0] : header;
  return value && USABLE.test(value) ? value : newUuid();
}

/** Random bytes for this many ids at a time, as Node's randomUUID buffers its own. */
const IDS_PER_FILL = 128;
const random = Buffer.alloc(16 * IDS_PER_FILL);
let used = IDS_PER_FILL;
/** The id's text is written here, then read as one string. */
const text = Buffer.alloc(36);
const HEX = Buffer.from('0123456789abcdef', 'latin1');

/**
 * A random (version 4) UUID, as `crypto.randomUUID()` makes one: from the same cryptographic source,
 * buffered the same way, in the same form. Written into a buffer and read as one string: Node's own
 * joins 20 pieces of text, a string for each, on every request that brings no id of its own.
 */
export function newUuid(): string {
  if (used === IDS_PER_FILL) {
    randomFillSync(random);
    used = 0;
  }
  const at = 16 * used++;
  let out = 0;
  for (let i = 0; i < 16; i++) {
    if (i === 4 || i === 6 || i === 8 || i === 10) text[out++] = 0x2d; // '-'
    let byte = random[at + i]!;
    if (i === 6) byte = (byte & 0x0f) | 0x40; // version 4
    else if (i === 8) byte = (byte & 0x3f) | 0x80; // the RFC 9562 variant
    text[out++] = HEX[byte >> 4]!;
    text[out++] = HEX[byte & 0x0f]!;
  }
  return text.toString('latin1', 0, 36);
}
