import { describe, expect, it } from 'vitest';
import { AnswerBody } from '../../src/v1/answer-body.ts';

const pieces = (text: string, ...cuts: number[]) => {
  const bytes = Buffer.from(text);
  const edges = [0, ...cuts, bytes.length];
  return new AnswerBody(edges.slice(1).map((end, i) => bytes.subarray(edges[i], end)));
};

describe('AnswerBody', () => {
  it('joins its pieces once, on first asking', () => {
    const body = pieces('{"items":[]}', 3, 8);
    expect(body.length).toBe(12);
    const joined = body.bytes();
    expect(joined.toString()).toBe('{"items":[]}');
    expect(body.bytes()).toBe(joined);
  });

  it('compares piece by piece: equal across any cut, unequal on any byte or length', () => {
    const same = Buffer.from('{"items":[{"id":"a"}]}');
    expect(pieces('{"items":[{"id":"a"}]}', 1, 2, 15).equals(same)).toBe(true);
    expect(pieces('{"items":[{"id":"a"}]}').equals(same)).toBe(true);
    expect(pieces('{"items":[{"id":"b"}]}', 5, 17).equals(same)).toBe(false);
    expect(pieces('{"items":[{"id":"a"}]} ', 5).equals(same)).toBe(false);
    expect(pieces('X"items":[{"id":"a"}]}', 1).equals(same)).toBe(false);
    expect(new AnswerBody([]).equals(Buffer.alloc(0))).toBe(true);
  });

  it('is equal to its own memory without comparing, and tells apart two views of one buffer', () => {
    const memory = Buffer.from('{"a":1}{"a":2}');
    const first = memory.subarray(0, 7);
    expect(AnswerBody.of(first).equals(first)).toBe(true);
    expect(AnswerBody.of(first).equals(memory.subarray(7))).toBe(false);
    expect(AnswerBody.of(memory.subarray(7)).equals(first)).toBe(false);
  });
});
