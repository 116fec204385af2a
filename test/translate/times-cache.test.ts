import { describe, expect, it } from 'vitest';
import { TimesCache } from '../../src/translate/times-cache.ts';

function cache(maxEntries: number, ttlMs = 1000) {
  let now = 0;
  const c = new TimesCache<string>(maxEntries, ttlMs, () => now);
  return { c, at: (t: number) => (now = t) };
}

describe('TimesCache', () => {
  it('answers an entry per kind and key until ttlMs after it was set, reads not extending it', () => {
    const { c, at } = cache(10);
    c.set('groups', 'a', 'A');
    expect(c.get('groups', 'a')).toBe('A');
    expect(c.get('roles', 'a')).toBeUndefined();
    at(999);
    expect(c.get('groups', 'a')).toBe('A');
    at(1000);
    expect(c.get('groups', 'a')).toBeUndefined();
    c.set('groups', 'a', 'A2');
    at(1500);
    expect(c.get('groups', 'a', 1500)).toBe('A2');
    expect(c.get('groups', 'a', 2000)).toBeUndefined();
  });

  it('forgets a deleted entry', () => {
    const { c } = cache(10);
    c.set('groups', 'a', 'A');
    c.delete('groups', 'a');
    c.delete('groups', 'never');
    expect(c.get('groups', 'a')).toBeUndefined();
  });

  it('holds at most maxEntries, the oldest set leaving first (a set anew counts as new), across kinds', () => {
    const { c } = cache(3);
    c.set('groups', 'a', 'A');
    c.set('groups', 'b', 'B');
    c.set('groups', 'c', 'C');
    c.set('groups', 'a', 'A2');
    c.set('groups', 'd', 'D');
    expect(['a', 'b', 'c', 'd'].map((k) => c.get('groups', k))).toEqual(['A2', undefined, 'C', 'D']);
    c.set('roles', 'x', 'X');
    expect(c.get('roles', 'x')).toBe('X');
    expect(['a', 'c', 'd'].filter((k) => c.get('groups', k) !== undefined)).toHaveLength(2);
    // The kind being filled gives up its own oldest entry, never the one just set.
    c.set('roles', 'y', 'Y');
    expect([c.get('roles', 'x'), c.get('roles', 'y')]).toEqual([undefined, 'Y']);
    expect(['a', 'c', 'd'].filter((k) => c.get('groups', k) !== undefined)).toHaveLength(2);
  });

  it('counts an expired entry out once read', () => {
    const { c, at } = cache(2, 10);
    c.set('groups', 'a', 'A');
    c.set('groups', 'b', 'B');
    at(20);
    expect(c.get('groups', 'a')).toBeUndefined();
    c.set('groups', 'c', 'C');
    expect(c.get('groups', 'c')).toBe('C');
    at(21);
    c.set('groups', 'd', 'D');
    // b (expired, unread) was the oldest and made room; c stays.
    expect([c.get('groups', 'c'), c.get('groups', 'd')]).toEqual(['C', 'D']);
  });
});
