import { describe, it, expect } from 'vitest';
import { compareValues } from '../../src/aip/value-order.ts';

const sign = (n: number) => Math.sign(n);

describe('compareValues', () => {
  it('equal values compare 0', () => {
    expect(compareValues('a', 'a')).toBe(0);
    expect(compareValues(3, 3)).toBe(0);
    expect(compareValues(true, true)).toBe(0);
    expect(compareValues(null, null)).toBe(0);
    expect(compareValues(undefined, undefined)).toBe(0);
  });

  it('treats null and undefined (absent) as the same, smallest value', () => {
    expect(compareValues(null, undefined)).toBe(0);
    expect(compareValues(undefined, null)).toBe(0);
    for (const v of ['', 'a', 0, -1e9, false, true]) {
      expect(sign(compareValues(null, v))).toBe(-1);
      expect(sign(compareValues(undefined, v))).toBe(-1);
      expect(sign(compareValues(v, null))).toBe(1);
      expect(sign(compareValues(v, undefined))).toBe(1);
    }
  });

  it('compares strings by UTF-16 code unit, not by locale', () => {
    expect(sign(compareValues('B', 'a'))).toBe(-1); // 'B' (66) < 'a' (97)
    expect(sign(compareValues('Z', 'a'))).toBe(-1);
    expect(sign(compareValues('z', 'é'))).toBe(-1); // 'é' (233) after every ASCII letter
    expect(sign(compareValues('a', 'ab'))).toBe(-1);
    expect(sign(compareValues('a-b', 'a_b'))).toBe(-1); // '-' (45) < '_' (95)
    expect(sign(compareValues('10', '9'))).toBe(-1); // text, not numbers
    expect(sign(compareValues('', 'a'))).toBe(-1);
  });

  it('compares numbers numerically', () => {
    expect(sign(compareValues(9, 10))).toBe(-1);
    expect(sign(compareValues(-2, -1))).toBe(-1);
    expect(sign(compareValues(1.5, 1))).toBe(1);
  });

  it('compares booleans false < true', () => {
    expect(sign(compareValues(false, true))).toBe(-1);
    expect(sign(compareValues(true, false))).toBe(1);
  });

  it('orders mixed types by rank: absent < boolean < number < string', () => {
    const ladder = [null, false, true, -5, 0, 7, '', '0', 'a'];
    for (let i = 0; i < ladder.length; i++) {
      for (let j = 0; j < ladder.length; j++) {
        expect(sign(compareValues(ladder[i], ladder[j]))).toBe(sign(i - j));
      }
    }
  });

  it('is antisymmetric and sorts deterministically', () => {
    const values = ['b', null, 3, 'a', true, undefined, 1, false, 'A', 2.5];
    for (const a of values) {
      for (const b of values) {
        expect(sign(compareValues(a, b))).toBe(-sign(compareValues(b, a)) || 0);
      }
    }
    // (Array.prototype.sort moves undefined to the end without asking the comparator, so sort the defined values.)
    const sorted = values.filter((v) => v !== undefined).sort(compareValues);
    expect(sorted).toEqual([null, false, true, 1, 2.5, 3, 'A', 'a', 'b']);
  });
});
