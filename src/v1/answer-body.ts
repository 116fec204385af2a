/**
 * A v1 answer's bytes, in the pieces they were gathered in (answer-bytes.ts). They are joined into one
 * buffer only when something reads them as a whole: an answer compared with one read before
 * (list-scan-memo.ts) and found the same is never joined, which spares copying a 300 KB list and
 * the garbage of the copy. Pure.
 */
import { asBuffer } from './json-body.ts';

export class AnswerBody {
  readonly chunks: readonly Buffer[];
  readonly length: number;
  #joined: Buffer | undefined;

  constructor(chunks: readonly Buffer[], length = chunks.reduce((n, chunk) => n + chunk.length, 0)) {
    this.chunks = chunks;
    this.length = length;
  }

  static of(bytes: Buffer): AnswerBody {
    return new AnswerBody([bytes], bytes.length);
  }

  /** The bytes as one buffer (joined once, on first asking). */
  bytes(): Buffer {
    this.#joined ??= this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks as Buffer[], this.length);
    return this.#joined;
  }

  /**
   * Whether the bytes are exactly `other`, compared piece by piece without joining them; without
   * comparing at all when they are `other`'s own memory (an answer gathered against it, answer-bytes.ts).
   */
  equals(other: Uint8Array): boolean {
    if (other.length !== this.length) return false;
    const only = this.chunks.length === 1 ? this.chunks[0]! : undefined;
    if (only && only.buffer === other.buffer && only.byteOffset === other.byteOffset) return true;
    const whole = asBuffer(other);
    let at = 0;
    for (const chunk of this.chunks) {
      if (whole.compare(chunk, 0, chunk.length, at, at + chunk.length) !== 0) return false;
      at += chunk.length;
    }
    return true;
  }
}
