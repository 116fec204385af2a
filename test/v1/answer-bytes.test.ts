import { describe, expect, it } from 'vitest';
import { AnswerBytes, PRESIZED_FROM_BYTES, PRESIZED_UP_TO_BYTES } from '../../src/v1/answer-bytes.ts';
import { prng } from '../support/prng.ts';

/** `bytes` cut into pieces at random, as a socket might hand them over (empty pieces included). */
function cut(bytes: Buffer, next: () => number): Buffer[] {
  const pieces: Buffer[] = [];
  for (let at = 0; at < bytes.length || pieces.length === 0; ) {
    const size = next() < 0.05 ? 0 : 1 + Math.floor(next() * 70_000);
    pieces.push(bytes.subarray(at, at + size));
    at += size;
  }
  return pieces;
}

function gather(pieces: readonly Buffer[], options: ConstructorParameters<typeof AnswerBytes>[0]): AnswerBytes {
  const bytes = new AnswerBytes(options);
  for (const piece of pieces) bytes.add(piece);
  return bytes;
}

/** Whether `a` is `b`'s own memory (not a copy of it). */
const sameMemory = (a: Uint8Array, b: Uint8Array) => a.buffer === b.buffer && a.byteOffset === b.byteOffset;

describe('AnswerBytes', () => {
  it('gathers exactly the bytes handed over, whatever it expected and however they were cut (seeded)', () => {
    for (let seed = 1; seed <= 300; seed++) {
      const next = prng(seed);
      const size = Math.floor(next() * 300_000);
      const answer = Buffer.alloc(size, 0x61);
      for (let i = 0; i < size; i += 1 + Math.floor(next() * 500)) answer[i] = 0x61 + Math.floor(next() * 26);
      // What it might be told to expect: nothing, the same bytes, one byte changed, cut short, run on.
      const likely = [
        undefined,
        Buffer.from(answer),
        size > 0 ? Buffer.concat([answer.subarray(0, Math.floor(next() * size)), Buffer.from('!'), answer.subarray(Math.floor(next() * size))]) : Buffer.from('!'),
        answer.subarray(0, Math.floor(next() * size)),
        Buffer.concat([answer, Buffer.from('more')]),
      ][Math.floor(next() * 5)];
      const declared = [undefined, size, size + 10, Math.max(0, size - 10)][Math.floor(next() * 4)];
      const gathered = gather(cut(answer, next), { likely, declared });
      const body = gathered.body();
      expect(gathered.length, `seed ${seed}`).toBe(size);
      expect(body.length, `seed ${seed}`).toBe(size);
      expect(body.bytes().equals(answer), `seed ${seed}: likely ${likely?.length}, declared ${declared}`).toBe(true);
    }
  });

  it('answers the expected bytes themselves, holding none of the pieces, when the answer is them', () => {
    const next = prng(7);
    const likely = Buffer.alloc(300_000, 0x62);
    const pieces = cut(Buffer.from(likely), next);
    const body = gather(pieces, { likely, declared: likely.length }).body();
    expect(body.chunks).toHaveLength(1);
    expect(sameMemory(body.chunks[0]!, likely)).toBe(true);
    expect(pieces.some((piece) => sameMemory(body.chunks[0]!, piece))).toBe(false);
  });

  it('copies a large answer of declared length into one buffer as it arrives, keeping no piece', () => {
    const next = prng(11);
    const answer = Buffer.alloc(PRESIZED_FROM_BYTES * 3, 0x63);
    const pieces = cut(answer, next);
    for (const likely of [undefined, Buffer.concat([answer.subarray(0, 1000), Buffer.from('x'), answer.subarray(1001)])]) {
      const body = gather(pieces, { likely, declared: answer.length }).body();
      expect(body.chunks).toHaveLength(1);
      expect(pieces.some((piece) => piece.buffer === body.chunks[0]!.buffer)).toBe(false);
      expect(likely && body.chunks[0]!.buffer === likely.buffer).toBeFalsy();
      expect(body.bytes().equals(answer)).toBe(true);
    }
  });

  it('keeps a small answer, or one of no or too large a declared length, in the pieces it came in', () => {
    const small = Buffer.from('{"items":[]}');
    expect(sameMemory(gather([small], { declared: small.length }).body().chunks[0]!, small)).toBe(true);
    // A claim of more than it will give a buffer for: the bytes are held as they come.
    const pieces = [Buffer.alloc(70_000, 0x64), Buffer.alloc(70_000, 0x65)];
    for (const declared of [undefined, PRESIZED_UP_TO_BYTES + 1]) {
      const body = gather(pieces, { declared }).body();
      expect(body.chunks).toHaveLength(2);
      expect(body.chunks.every((chunk, i) => sameMemory(chunk, pieces[i]!))).toBe(true);
    }
  });

  it('takes the bytes before the first difference from the expected ones, without copying them when it keeps pieces', () => {
    const likely = Buffer.from('{"items":[{"id":"a"},{"id":"b"}]}');
    const answer = Buffer.from('{"items":[{"id":"a"},{"id":"c"}]}');
    const body = gather([answer.subarray(0, 10), answer.subarray(10, 28), answer.subarray(28)], { likely }).body();
    expect(body.bytes().toString()).toBe(answer.toString());
    // The first two pieces matched and are not held; what stands for them is the expected bytes' own memory.
    expect(sameMemory(body.chunks[0]!, likely)).toBe(true);
    expect(body.chunks.map((chunk) => chunk.length)).toEqual([28, 5]);
  });

  it('lets go of everything when discarded', () => {
    const pieces = [Buffer.alloc(70_000, 0x66), Buffer.alloc(70_000, 0x67)];
    const bytes = gather(pieces, {});
    bytes.discard();
    expect(bytes.body().chunks).toEqual([]);
  });
});
