/**
 * An LRU cache bounded by its number of entries that allocates as it fills. Given `max`, lru-cache
 * allocates its key, value, link and TTL arrays for all `max` entries when it is made: 50,000
 * entries held ~2 MB from start-up on, full or empty. Counted through `maxSize` (each entry 1)
 * instead, the same bound holds and the arrays grow with what is cached.
 */
import { LRUCache } from 'lru-cache';

export function growingLru<K extends {}, V extends {}>(maxEntries: number, ttlMs: number): LRUCache<K, V> {
  return new LRUCache<K, V>({ maxSize: maxEntries, sizeCalculation: () => 1, ttl: ttlMs });
}
