/**
 * A v1 answer's bytes, gathered as the socket hands them over, holding as little as it can while
 * the answer is still arriving. Pure: no I/O, no clock.
 *
 * What a piece from the socket costs to hold: undici hands over views of the socket's read buffers,
 * so keeping a piece keeps its whole read buffer. A 300 KB list arrives in about five of them; kept
 * until each answer ended, at 50 connections, a List load took three times the full collections it
 * takes when they are let go as they come (74 against 24). Two ways out, by what is known before the
 * first byte:
 *
 * - **The bytes it is likely to be** (`likely`: v1's last answer to the same request, which the scan
 *   memo keeps): compared piece by piece as they arrive, and nothing is kept while they match. An
 *   answer that matches to its end is those bytes, the very buffer, with nothing copied or compared
 *   again. At the first piece that differs, the bytes so far are the likely ones up to there.
 * - **A declared length** (Content-Length) of a large answer: one buffer of that length, each piece
 *   copied in as it comes, so no piece outlives its arrival. Every reader of a large answer joins it
 *   into one buffer anyway; this makes the same copy earlier.
 *
 * Otherwise (small, or no length given) the pieces are kept as they came, as before.
 */
import { AnswerBody } from './answer-body.ts';
import { asBuffer } from './json-body.ts';

/**
 * Declared lengths above this arrive in more than one read (64 KB at most each) and are copied into
 * one buffer as they arrive; up to it, an answer is usually one piece and is kept as it came.
 */
export const PRESIZED_FROM_BYTES = 64 * 1024;

/**
 * The largest declared length given a buffer before its bytes arrive: a length is only a claim,
 * and a v1 that declares much and sends little must not make the gateway hold what it never sent.
 * Real v1 lists are 1–3 MB; longer answers are kept in pieces as they come.
 */
export const PRESIZED_UP_TO_BYTES = 8 * 1024 * 1024;

const NOTHING = Buffer.alloc(0);

export class AnswerBytes {
  readonly #likely: Buffer | undefined;
  /** Still equal to `likely` up to `length`: nothing else is held. */
  #matching: boolean;
  /** The declared length, when it is one to copy into (between the two bounds above). */
  readonly #presized: number | undefined;
  #whole: Buffer | undefined;
  #pieces: Buffer[] = [];
  #length = 0;
  /** Whether what is kept has begun (#begin): at the first piece, or where the answer stopped matching. */
  #begun = false;

  constructor(options: { likely?: Uint8Array | undefined; declared?: number | undefined } = {}) {
    this.#likely = options.likely ? asBuffer(options.likely) : undefined;
    this.#matching = this.#likely !== undefined;
    const declared = options.declared;
    this.#presized = declared !== undefined && Number.isSafeInteger(declared) && declared > PRESIZED_FROM_BYTES && declared <= PRESIZED_UP_TO_BYTES ? declared : undefined;
  }

  get length(): number {
    return this.#length;
  }

  add(piece: Buffer): void {
    const at = this.#length;
    this.#length += piece.length;
    if (this.#matching) {
      const likely = this.#likely!;
      if (this.#length <= likely.length && piece.compare(likely, at, this.#length) === 0) return;
      this.#matching = false;
      this.#begin(likely.subarray(0, at));
    } else if (!this.#begun) {
      this.#begin(NOTHING);
    }
    this.#keep(piece, at);
  }

  /** The bytes gathered, as one answer. */
  body(): AnswerBody {
    if (this.#matching) {
      const likely = this.#likely!;
      return AnswerBody.of(this.#length === likely.length ? likely : likely.subarray(0, this.#length));
    }
    if (this.#whole) return AnswerBody.of(this.#length === this.#whole.length ? this.#whole : this.#whole.subarray(0, this.#length));
    return new AnswerBody(this.#pieces, this.#length);
  }

  /** Lets go of everything gathered (an answer given up). */
  discard(): void {
    this.#matching = false;
    this.#whole = undefined;
    this.#pieces = [];
  }

  /** Where the answer stopped matching: its bytes so far (`prefix`, a view of the likely ones) start what is kept. */
  #begin(prefix: Buffer): void {
    this.#begun = true;
    if (this.#presized !== undefined) {
      this.#whole = Buffer.allocUnsafeSlow(this.#presized);
      prefix.copy(this.#whole, 0);
    } else if (prefix.length > 0) {
      this.#pieces.push(prefix);
    }
  }

  #keep(piece: Buffer, at: number): void {
    const whole = this.#whole;
    if (whole === undefined) {
      this.#pieces.push(piece);
    } else if (this.#length <= whole.length) {
      piece.copy(whole, at);
    } else {
      // More than was declared (HTTP/1.1 does not let it happen; nothing here relies on that): pieces from here on.
      this.#whole = undefined;
      this.#pieces.push(whole.subarray(0, at), piece);
    }
  }
}
