import { describe, expect, it } from 'vitest';
import { WalkCache } from '../../src/translate/walk-cache.ts';
import { parseOrderBy } from '../../src/aip/order-by.ts';
import { ORDER_BY_NAME_AND_TIME } from '../../mappings/common.ts';

const walk = (n: number) => Array.from({ length: n }, (_, i) => ({ row: `uid-${i}`, key: [`name-${i}`, `uid-${i}`] }));

describe('WalkCache', () => {
  it('keeps a walk per resource, query and caller, and never answers another caller', () => {
    const cache = new WalkCache({ ttlMs: 60_000, maxBytes: 1 << 20 });
    cache.set('groups', 'fp', 'Bearer a', walk(3));
    expect(cache.get('groups', 'fp', 'Bearer a')).toHaveLength(3);
    expect(cache.get('groups', 'fp', 'Bearer b')).toBeUndefined();
    expect(cache.get('groups', 'other', 'Bearer a')).toBeUndefined();
    expect(cache.get('roles', 'fp', 'Bearer a')).toBeUndefined();
  });

  it('drops every walk of a resource on a write, and only those', () => {
    const cache = new WalkCache({ ttlMs: 60_000, maxBytes: 1 << 20 });
    cache.set('groups', 'fp1', 'Bearer a', walk(2));
    cache.set('groups', 'fp2', 'Bearer b', walk(2));
    cache.set('roles', 'fp1', 'Bearer a', walk(2));
    cache.invalidate('groups');
    expect(cache.get('groups', 'fp1', 'Bearer a')).toBeUndefined();
    expect(cache.get('groups', 'fp2', 'Bearer b')).toBeUndefined();
    expect(cache.get('roles', 'fp1', 'Bearer a')).toHaveLength(2);
  });

  it('holds to its byte budget: a walk larger than it is not kept, older walks make room for newer ones', () => {
    const cache = new WalkCache({ ttlMs: 60_000, maxBytes: 64 * 1024 });
    cache.set('groups', 'huge', 'Bearer a', walk(10_000));
    expect(cache.get('groups', 'huge', 'Bearer a')).toBeUndefined();
    for (let i = 0; i < 20; i++) cache.set('groups', `fp${i}`, 'Bearer a', walk(100));
    expect(cache.get('groups', 'fp0', 'Bearer a')).toBeUndefined();
    expect(cache.get('groups', 'fp19', 'Bearer a')).toHaveLength(100);
  });

  it('is off with a TTL of 0', () => {
    const cache = new WalkCache({ ttlMs: 0, maxBytes: 1 << 20 });
    cache.set('groups', 'fp', 'Bearer a', walk(1));
    expect(cache.get('groups', 'fp', 'Bearer a')).toBeUndefined();
  });

  it('puts a walk kept in v1\'s order into the walk\'s order when first read, ties by uid, descending too', () => {
    const cache = new WalkCache({ ttlMs: 60_000, maxBytes: 1 << 20 });
    const rows = [['c', 'u3'], ['a', 'u2'], ['b', 'u1'], ['a', 'u1']].map(([name, uid]) => ({ row: uid!, key: [name, uid] }));
    cache.set('groups', 'asc', 'Bearer a', [...rows], parseOrderBy('name', ORDER_BY_NAME_AND_TIME));
    cache.set('groups', 'desc', 'Bearer a', [...rows], parseOrderBy('name desc', ORDER_BY_NAME_AND_TIME));
    const keys = (fp: string) => cache.get('groups', fp, 'Bearer a')?.map((k) => k.key.join(' '));
    expect(keys('asc')).toEqual(['a u1', 'a u2', 'b u1', 'c u3']);
    expect(keys('asc')).toEqual(['a u1', 'a u2', 'b u1', 'c u3']);
    expect(keys('desc')).toEqual(['c u3', 'b u1', 'a u1', 'a u2']);
  });

  it('copies shared rows before putting them in order, and set again from the same rows keeps the same walk', () => {
    const cache = new WalkCache({ ttlMs: 60_000, maxBytes: 1 << 20 });
    const shared = [['c', 'u3'], ['a', 'u1'], ['b', 'u2']].map(([name, uid]) => ({ row: uid!, key: [name, uid] }));
    const order = parseOrderBy('name', ORDER_BY_NAME_AND_TIME);
    cache.set('groups', 'fp', 'Bearer a', shared, order, true);
    const first = cache.get('groups', 'fp', 'Bearer a')!;
    expect(first.map((k) => k.row)).toEqual(['u1', 'u2', 'u3']);
    // The shared rows are as they were: other requests read them in v1's order.
    expect(shared.map((k) => k.row)).toEqual(['u3', 'u1', 'u2']);
    cache.set('groups', 'fp', 'Bearer a', shared, order, true);
    expect(cache.get('groups', 'fp', 'Bearer a')).toBe(first);
    // Other rows make another walk.
    cache.set('groups', 'fp', 'Bearer a', shared.slice(0, 2), order, true);
    expect(cache.get('groups', 'fp', 'Bearer a')!.map((k) => k.row)).toEqual(['u1', 'u3']);
  });
});
