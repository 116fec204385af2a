/**
 * bench:allocations reads what its sampler wrote (bench/lib/allocation-profile.ts): the bytes the heap took
 * over the window from the collections' before/after figures, and the sampled bytes by allocating function.
 */
import { describe, expect, it } from 'vitest';
import { allocatedBytes, bytesBySite, collectionCosts, collectionCounts, frameName, promotedBytes, samplesBySite, type Collection, type ProfileNode } from '../../bench/lib/allocation-profile.ts';

const collection = (gcType: string, before: number, after: number): Collection => ({ gcType, beforeGC: { heapStatistics: { usedHeapSize: before } }, afterGC: { heapStatistics: { usedHeapSize: after } } });

const node = (functionName: string, url: string, selfSize: number, children: ProfileNode[] = []): ProfileNode => ({ callFrame: { functionName, url, lineNumber: 9, columnNumber: 0 }, selfSize, children });

describe('allocation profile', () => {
  it('counts what the heap grew by between collections, and after the last', () => {
    // 1,000 at the start; 5,000 before the first scavenge (4,000 taken), 2,000 after; 3,500 before the
    // second (1,500 taken), 1,800 after; 2,300 at the end (500 taken).
    const collections = [collection('Scavenge', 5_000, 2_000), collection('Scavenge', 3_500, 1_800)];
    expect(allocatedBytes({ usedAtStart: 1_000, usedAtEnd: 2_300, collections })).toBe(6_000);
    expect(allocatedBytes({ usedAtStart: 1_000, usedAtEnd: 1_500, collections: [] })).toBe(500);
    expect(collectionCounts([...collections, collection('MarkSweepCompact', 9, 1)])).toEqual(new Map([['Scavenge', 2], ['MarkSweepCompact', 1]]));
  });

  it("counts what scavenges moved to the old space, not what the old generation's own collections freed", () => {
    const old = (used: number) => ({ heapStatistics: { usedHeapSize: 0 }, heapSpaceStatistics: [{ spaceName: 'new_space', spaceUsedSize: 9_999 }, { spaceName: 'old_space', spaceUsedSize: used }] });
    expect(promotedBytes([
      { gcType: 'Scavenge', beforeGC: old(1_000), afterGC: old(1_300) },
      { gcType: 'MarkSweepCompact', beforeGC: old(1_300), afterGC: old(400) },
      { gcType: 'Scavenge', beforeGC: old(400), afterGC: old(450) },
    ])).toBe(350);
  });

  it('sums sampled bytes per allocating function over every stack it allocated at', () => {
    const head = node('(root)', '', 0, [
      node('emit', 'node:events', 100, [node('handle', 'node:_http_server', 40)]),
      node('other', 'node:net', 0, [node('emit', 'node:events', 60)]),
      node('(V8 API)', '', 8),
    ]);
    expect(bytesBySite(head)).toEqual(new Map([['emit node:events:10', 160], ['handle node:_http_server:10', 40], ['(V8 API)', 8]]));
    expect(frameName({ functionName: '', url: 'node:net', lineNumber: 0, columnNumber: 3 })).toBe('(anonymous) node:net:1');
  });

  it("sums a CPU profile's samples per function over every stack it ran at, V8's entries as they are", () => {
    const frame = (functionName: string, url: string) => ({ functionName, url, lineNumber: 9, columnNumber: 0 });
    expect(samplesBySite([
      { id: 1, callFrame: frame('(root)', ''), hitCount: 0 },
      { id: 2, callFrame: frame('emit', 'node:events'), hitCount: 3 },
      { id: 3, callFrame: frame('(garbage collector)', ''), hitCount: 2 },
      { id: 4, callFrame: frame('emit', 'node:events'), hitCount: 4 },
      { id: 5, callFrame: frame('(idle)', '') },
    ])).toEqual(new Map([['emit node:events:10', 7], ['(garbage collector)', 2]]));
  });

  it("sums the collections' pauses by kind", () => {
    const timed = (gcType: string, cost: number): Collection => ({ ...collection(gcType, 2, 1), cost });
    expect(collectionCosts([timed('Scavenge', 300), timed('MarkSweepCompact', 5_000), timed('Scavenge', 250)])).toEqual(new Map([['Scavenge', 550], ['MarkSweepCompact', 5_000]]));
  });
});
