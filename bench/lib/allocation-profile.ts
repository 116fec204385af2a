/**
 * What bench/allocation-sampler.ts wrote, read for `npm run bench:allocations`: the bytes a server's heap
 * took over the window (from the collections' before/after figures, not sampled), and where the sampling
 * heap profiler saw them taken (each sample at the function that allocated, its source told through the
 * build's source maps as bench/lib/callgrind-profile.ts tells it, so its `stageCosts` sums them by stage). Pure.
 */
import { sourceNamed } from './callgrind-profile.ts';

/** A node of V8's sampling heap profile (the inspector's `HeapProfiler.SamplingHeapProfileNode`). */
export interface ProfileNode {
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  /** Bytes allocated by this function at this stack, estimated from the samples (scaled by the interval). */
  selfSize: number;
  children: ProfileNode[];
}

/** The heap as `v8.GCProfiler` reports it before or after a collection (the fields read here). */
interface HeapAt {
  heapStatistics: { usedHeapSize: number };
  heapSpaceStatistics?: Array<{ spaceName: string; spaceUsedSize: number }>;
}

/** One collection as `v8.GCProfiler` reports it. */
export interface Collection {
  gcType: string;
  /** The collection's pause on the event loop's thread, µs. */
  cost?: number;
  beforeGC: HeapAt;
  afterGC: HeapAt;
}

/** The sampler's file. */
export interface AllocationWindow {
  profile: { head: ProfileNode };
  /** `minorFaults`: the process's minor page faults over the window (memory the kernel had to map on first touch). */
  gc: { usedAtStart: number; usedAtEnd: number; collections: Collection[]; minorFaults?: number };
}

/** A node of V8's CPU profile (the inspector's `Profiler.ProfileNode`): `hitCount` samples stopped in it. */
export interface CpuProfileNode {
  id: number;
  callFrame: ProfileNode['callFrame'];
  hitCount?: number;
}

/** The sampler's file with `$V2GW_CPU_PROFILE_US` (the inspector's `Profiler.Profile`). */
export interface CpuWindow {
  cpuProfile: { nodes: CpuProfileNode[]; startTime: number; endTime: number };
  gc: AllocationWindow['gc'];
}

/** What V8's CPU profiler names the event loop waiting: not CPU the process spent. */
export const IDLE = '(idle)';

/**
 * Samples of the event loop's thread per function (its frame name, as `bytesBySite` names it), over every
 * stack it ran at; V8's own entries (`(garbage collector)`, `(program)`, `(idle)`) as they are.
 */
export function samplesBySite(nodes: readonly CpuProfileNode[]): Map<string, number> {
  const sites = new Map<string, number>();
  for (const { callFrame, hitCount } of nodes) {
    if (!hitCount) continue;
    const name = frameName(callFrame);
    sites.set(name, (sites.get(name) ?? 0) + hitCount);
  }
  return sites;
}

/** The collections' pauses on the event loop's thread over the window by kind, µs. */
export function collectionCosts(collections: readonly Collection[]): Map<string, number> {
  const costs = new Map<string, number>();
  for (const { gcType, cost } of collections) costs.set(gcType, (costs.get(gcType) ?? 0) + (cost ?? 0));
  return costs;
}

/**
 * Bytes allocated on the heap over the window: what the heap grew by between collections (each one's
 * used size before it, less the used size after the one before), and after the last. Objects a collection
 * moves (promotes) are counted once, when they were allocated.
 */
export function allocatedBytes({ usedAtStart, usedAtEnd, collections }: AllocationWindow['gc']): number {
  let sum = 0;
  let after = usedAtStart;
  for (const { beforeGC, afterGC } of collections) {
    sum += beforeGC.heapStatistics.usedHeapSize - after;
    after = afterGC.heapStatistics.usedHeapSize;
  }
  return sum + usedAtEnd - after;
}

function oldSpaceUsed(heap: HeapAt): number {
  return heap.heapSpaceStatistics?.find(({ spaceName }) => spaceName === 'old_space')?.spaceUsedSize ?? 0;
}

/**
 * Bytes the young generation's collections moved to the old one (what the old space grew by across each
 * scavenge): objects still alive after two scavenges, which only the old generation's collection frees.
 */
export function promotedBytes(collections: readonly Collection[]): number {
  let sum = 0;
  for (const { gcType, beforeGC, afterGC } of collections) if (gcType === 'Scavenge') sum += Math.max(0, oldSpaceUsed(afterGC) - oldSpaceUsed(beforeGC));
  return sum;
}

/** Collections over the window by kind (`Scavenge`, `MarkSweepCompact`, …). */
export function collectionCounts(collections: readonly Collection[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const { gcType } of collections) counts.set(gcType, (counts.get(gcType) ?? 0) + 1);
  return counts;
}

/**
 * A frame named as `npm run bench:instructions -- --stages` names a function, so the same stage patterns
 * (bench/lib/get-stages.ts) tell it: `name src/v1/client.ts:12` for built code (by its source map),
 * `name node:internal/…:12` for Node's own, V8's own entries (`(root)`, `(V8 API)`) as they are.
 */
export function frameName({ functionName, url, lineNumber, columnNumber }: ProfileNode['callFrame']): string {
  if (url.startsWith('file://') && url.endsWith('.js')) return sourceNamed(`JS:*${functionName} ${url}:${lineNumber + 1}:${columnNumber + 1}`);
  if (url === '') return functionName || '(anonymous)';
  return `${functionName || '(anonymous)'} ${url}:${lineNumber + 1}`;
}

/** Sampled bytes per allocating function (its frame name), over every stack it allocated at. */
export function bytesBySite(head: ProfileNode): Map<string, number> {
  const sites = new Map<string, number>();
  const visit = (node: ProfileNode): void => {
    if (node.selfSize > 0) {
      const name = frameName(node.callFrame);
      sites.set(name, (sites.get(name) ?? 0) + node.selfSize);
    }
    for (const child of node.children) visit(child);
  };
  visit(head);
  return sites;
}
