/**
 * gRPC's length-prefixed messages (the "envelope"): a flag byte (bit 0: the
 * message is compressed), the length as four big-endian bytes, the message.
 * A unary request carries exactly one. Pure: bytes in, a message or the
 * reason there is none out.
 */

/** An uncompressed message's prefix: a flag byte, then the length. */
export const PREFIX_BYTES = 5;
const COMPRESSED = 0x01;

/** Why a unary request's body holds no usable message, as the gRPC spec classes it. */
export type EnvelopeProblem =
  /** No message, or more than one: a cardinality violation (UNIMPLEMENTED, per the gRPC spec). */
  | { kind: 'cardinality'; detail: string }
  /** A message larger than the limit (RESOURCE_EXHAUSTED). */
  | { kind: 'too-large'; detail: string }
  /** Bytes that are no envelope (the caller's bad input). */
  | { kind: 'malformed'; detail: string };

/** Frames one uncompressed message. */
export function frame(message: Uint8Array): Buffer {
  const out = Buffer.allocUnsafe(PREFIX_BYTES + message.length);
  out.set(message, putPrefix(out, message.length));
  return out;
}

/** Writes an uncompressed message's prefix at the start of `out`; answers where the message goes. */
export function putPrefix(out: Buffer, length: number): number {
  out[0] = 0;
  out.writeUInt32BE(length, 1);
  return PREFIX_BYTES;
}

/**
 * Reads a unary request's body as it arrives. `push` reports a problem as soon
 * as the first prefix shows one (a message over the limit is refused before it
 * is read); `end` gives the message.
 */
export class UnaryRequestReader {
  readonly #maxMessageBytes: number;
  readonly #chunks: Buffer[] = [];
  #bytes = 0;

  constructor(maxMessageBytes: number) {
    this.#maxMessageBytes = maxMessageBytes;
  }

  push(chunk: Buffer): EnvelopeProblem | undefined {
    this.#chunks.push(chunk);
    this.#bytes += chunk.length;
    if (this.#bytes < PREFIX_BYTES) return undefined;
    const head = this.#chunks.length === 1 ? chunk : this.#joined();
    const problem = prefixProblem(head, this.#maxMessageBytes);
    if (problem) return problem;
    // Anything past one whole message is a second message (or a broken one): no need to keep reading it.
    if (this.#bytes > PREFIX_BYTES + head.readUInt32BE(1)) return cardinality();
    return undefined;
  }

  end(): { message: Buffer } | EnvelopeProblem {
    if (this.#bytes === 0) return { kind: 'cardinality', detail: 'the request has no message; a unary call sends exactly one' };
    const body = this.#joined();
    if (body.length < PREFIX_BYTES) return { kind: 'malformed', detail: `the message prefix is cut short: ${body.length} of ${PREFIX_BYTES} bytes` };
    const problem = prefixProblem(body, this.#maxMessageBytes);
    if (problem) return problem;
    const length = body.readUInt32BE(1);
    const end = PREFIX_BYTES + length;
    if (body.length < end) return { kind: 'malformed', detail: `the message prefix promises ${length} bytes, and ${body.length - PREFIX_BYTES} came` };
    if (body.length > end) return cardinality();
    return { message: body.subarray(PREFIX_BYTES, end) };
  }

  #joined(): Buffer {
    if (this.#chunks.length > 1) this.#chunks.splice(0, this.#chunks.length, Buffer.concat(this.#chunks, this.#bytes));
    return this.#chunks[0] ?? Buffer.alloc(0);
  }
}

function prefixProblem(head: Buffer, maxMessageBytes: number): EnvelopeProblem | undefined {
  const flags = head[0]!;
  // Compressed requests declare grpc-encoding and never reach this reader: a set flag has no encoding to undo.
  if (flags & COMPRESSED) return { kind: 'malformed', detail: 'the message is flagged compressed, and the call names no grpc-encoding' };
  if (flags !== 0) return { kind: 'malformed', detail: `the message prefix has unknown flags 0x${flags.toString(16).padStart(2, '0')}` };
  const length = head.readUInt32BE(1);
  if (length > maxMessageBytes) return { kind: 'too-large', detail: `the request message of ${length} bytes is larger than the limit of ${maxMessageBytes} bytes` };
  return undefined;
}

function cardinality(): EnvelopeProblem {
  return { kind: 'cardinality', detail: 'the request has more than one message; a unary call sends exactly one' };
}
