import { describe, expect, it } from 'vitest';
import { growingLru } from '../../src/translate/growing-lru.ts';

describe('growingLru', () => {
  it('holds at most maxEntries, dropping the least recently used', () => {
    const cache = growingLru<string, number>(3, 60_000);
    for (const [i, key] of ['a', 'b', 'c'].entries()) cache.set(key, i);
    expect(cache.get('a')).toBe(0);
    cache.set('d', 3);
    expect(cache.size).toBe(3);
    expect(cache.has('b')).toBe(false);
    expect([...cache.keys()].sort()).toEqual(['a', 'c', 'd']);
    for (let i = 0; i < 1000; i++) cache.set(`k${i}`, i);
    expect(cache.size).toBe(3);
  });

  it('forgets an entry once its time to live has passed', async () => {
    const cache = growingLru<string, number>(10, 20);
    cache.set('a', 1);
    expect(cache.get('a')).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(cache.get('a')).toBeUndefined();
  });
});
