/**
 * bench:instructions reads a server's instructions from the dump callgrind writes (bench/lib/callgrind.ts).
 */
import { describe, expect, it } from 'vitest';
import { instructionsOf } from '../../bench/lib/callgrind.ts';

/** A callgrind dump's header and last lines, as valgrind 3.19 writes them (counts made up). */
const dump = (totals: string) => ['# callgrind format', 'version: 1', 'creator: callgrind-3.19.0', 'pid: 6838', 'part: 1', 'events: Ir', 'summary: 999', '', 'fn=(1) main', '16 3', totals].join('\n');

describe('instructionsOf', () => {
  it('reads the total instructions of a dump', () => {
    expect(instructionsOf(dump('totals: 1065468257'))).toBe(1_065_468_257);
  });

  it('falls back to the summary line when a dump has no totals', () => {
    expect(instructionsOf(dump(''))).toBe(999);
  });

  it('refuses text that is no dump rather than count nothing', () => {
    expect(() => instructionsOf('==123== valgrind: no such file')).toThrow(/without totals/);
  });
});
