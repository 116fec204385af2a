import { describe, expect, it } from 'vitest';
import { TopK } from '../../src/aip/top-k.ts';
import { prng } from '../support/prng.ts';

/** The k smallest indices of `values` by value, ties by index: what a stable sort would put first. */
function expected(values: readonly number[], k: number, desc = false): number[] {
  return values.map((_, i) => i).sort((a, b) => (desc ? values[b]! - values[a]! : values[a]! - values[b]!) || a - b).slice(0, k);
}

function topK(values: readonly number[], k: number, desc = false): number[] {
  const top = new TopK(k, (a, b) => (desc ? values[b]! - values[a]! : values[a]! - values[b]!) || a - b);
  for (let i = 0; i < values.length; i++) top.offer(i);
  return top.sorted();
}

describe('TopK', () => {
  it('keeps the k smallest, in order', () => {
    expect(topK([5, 1, 4, 2, 3], 3)).toEqual([1, 3, 4]);
  });

  it('keeps everything when k is at least n, and nothing when k is 0', () => {
    expect(topK([3, 1, 2], 3)).toEqual([1, 2, 0]);
    expect(topK([3, 1, 2], 10)).toEqual([1, 2, 0]);
    expect(topK([3, 1, 2], 0)).toEqual([]);
    expect(topK([], 5)).toEqual([]);
  });

  it('breaks ties by the order given (here the index), so equal values keep their input order', () => {
    expect(topK([7, 7, 7, 1, 7], 3)).toEqual([3, 0, 1]);
  });

  it('works in descending order', () => {
    expect(topK([5, 1, 9, 2, 9], 3, true)).toEqual([2, 4, 0]);
  });

  it('handles input already in order, in reverse order, and all equal', () => {
    const up = Array.from({ length: 100 }, (_, i) => i);
    expect(topK(up, 10)).toEqual(expected(up, 10));
    expect(topK([...up].reverse(), 10)).toEqual(expected([...up].reverse(), 10));
    expect(topK(up.map(() => 4), 10)).toEqual(expected(up.map(() => 4), 10));
  });

  it('agrees with a stable sort on 500 seeded random inputs with many ties', () => {
    for (let seed = 1; seed <= 500; seed++) {
      const rand = prng(seed);
      const values = Array.from({ length: Math.floor(rand() * 60) }, () => Math.floor(rand() * 8));
      const k = Math.floor(rand() * 70);
      const desc = seed % 2 === 0;
      expect(topK(values, k, desc), `seed ${seed}`).toEqual(expected(values, k, desc));
    }
  });
});
