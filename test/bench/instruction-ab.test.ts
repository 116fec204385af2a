/** Reading two builds' instruction counts against each other (bench/lib/instruction-ab.ts). */
import { describe, expect, it } from 'vitest';
import { compareCounts, comparisonRow, countingOrder, summarise } from '../../bench/lib/instruction-ab.ts';

describe('instruction counts of two builds', () => {
  it('counts the builds in pairs, each pair the other way round, so neither always goes first', () => {
    expect(countingOrder('a', 'b', 3)).toEqual(['a', 'b', 'b', 'a', 'a', 'b']);
    expect(countingOrder('a', 'b', 1)).toEqual(['a', 'b']);
    expect(countingOrder('a', 'b', 0)).toEqual([]);
  });

  it('summarises counts by their median and range, whatever order they came in', () => {
    expect(summarise([477_499, 478_943, 475_557])).toEqual({ counts: [477_499, 478_943, 475_557], median: 477_499, min: 475_557, max: 478_943 });
    expect(summarise([10, 40, 20, 30]).median).toBe(25);
    expect(() => summarise([])).toThrow();
  });

  it('tells a change the spread does not cover from one it does', () => {
    const before = summarise([477_499, 478_943, 475_557]);
    const now = summarise([469_336, 468_274, 467_598]);
    const moved = compareCounts(before, now);
    expect(moved.apart).toBe(true);
    expect(moved.change).toBeCloseTo(-0.0192, 3);
    const overlapping = compareCounts(summarise([664_431, 665_039]), summarise([650_074, 665_607]));
    expect(overlapping.apart).toBe(false);
    expect(comparisonRow('REST', before, now)).toBe('| REST | 477.5K (477.5K, 478.9K, 475.6K) | 468.3K (469.3K, 468.3K, 467.6K) | −1.9% | apart |');
    expect(comparisonRow('gRPC', summarise([600_000, 601_000]), summarise([612_000, 613_000]))).toBe('| gRPC | 600.5K (600.0K, 601.0K) | 612.5K (612.0K, 613.0K) | +2.0% | apart |');
    expect(comparisonRow('gRPC', summarise([664_431, 665_039]), summarise([650_074, 665_607]))).toMatch(/\| −1\.0% \| within the spread \|$/);
    expect(comparisonRow('gRPC', summarise([600_000]), summarise([612_000]))).toMatch(/\| \+2\.0% \| one count: no spread \|$/);
  });
});
