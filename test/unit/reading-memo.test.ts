import { describe, expect, it } from 'vitest';
import { keptWith, VALUES_PER_READING } from '../../src/engine/reading-memo.ts';

describe('keptWith', () => {
  it('makes a value once per reading and key', () => {
    const reading = {};
    let made = 0;
    const make = () => ({ made: ++made });
    const first = keptWith(reading, 'a', make);
    expect(keptWith(reading, 'a', make)).toBe(first);
    expect(keptWith(reading, 'b', make)).toEqual({ made: 2 });
    // Another reading keeps its own, whatever the key.
    expect(keptWith({}, 'a', make)).toEqual({ made: 3 });
  });

  it('keeps a bounded number per reading, dropping the least recently used', () => {
    const reading = {};
    let made = 0;
    const make = () => ++made;
    for (let i = 0; i < VALUES_PER_READING; i++) keptWith(reading, `k${i}`, make);
    // k0 used again: k1 is now the least recently used, and goes when one more is kept.
    expect(keptWith(reading, 'k0', make)).toBe(1);
    keptWith(reading, 'new', make);
    expect(keptWith(reading, 'k0', make)).toBe(1);
    const before = made;
    expect(keptWith(reading, 'k1', make)).toBe(before + 1);
  });
});
