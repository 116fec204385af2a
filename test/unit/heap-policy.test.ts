import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { HEAP_GROWING_PERCENT, heapGrowingFlag } from '../../src/heap-policy.ts';

describe('the heap policy', () => {
  it('sets V8\'s heap growing factor unless Node\'s command line already does', () => {
    expect(heapGrowingFlag([])).toBe(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
    expect(heapGrowingFlag(['--max-semi-space-size=4'])).toBe(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
    expect(heapGrowingFlag(['--heap-growing-percent=50'])).toBeUndefined();
    expect(heapGrowingFlag(['--heap_growing_percent=50'])).toBeUndefined();
  });

  it('names a flag this Node\'s V8 knows (an unknown one would be ignored when set from code)', () => {
    // On the command line, V8 refuses a flag it does not know, so Node exits non-zero.
    const flag = heapGrowingFlag([])!;
    expect(execFileSync(process.execPath, [flag, '-e', 'process.stdout.write("ok")'], { encoding: 'utf8' })).toBe('ok');
    expect(() => execFileSync(process.execPath, ['--heap-growing-percentage=200', '-e', '0'], { stdio: 'pipe' })).toThrow();
  });
});
