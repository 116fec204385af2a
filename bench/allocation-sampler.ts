/**
 * Preloaded into a benchmark server by `npm run bench:allocations` (`node --import <this, built> …`), never
 * by the gateway itself: what the server allocates on V8's heap over a window its parent chooses.
 *
 * The parent sends SIGUSR2 to open the window and SIGUSR2 again to close it. Opening starts V8's sampling
 * heap profiler through an in-process inspector session, keeping the samples of objects the young and the
 * old generation's collections have already freed (so garbage counts: what a request allocates, not what
 * it leaves), and a `v8.GCProfiler`, which says the heap's used bytes before and after every collection.
 * Closing writes `{ profile, gc }` (`gc` with the process's minor page faults over the window) to `$V2GW_ALLOCATIONS_FILE` (whole, by rename) and says so by the file
 * appearing; opening says it is open by `$V2GW_ALLOCATIONS_FILE.open`.
 *
 * `$V2GW_ALLOCATIONS_INTERVAL`: the sampler's mean bytes between samples (4096 unless given).
 *
 * `$V2GW_CPU_PROFILE_US` set: V8's CPU profiler over the window instead of the heap's, sampling every that
 * many µs of the event loop's thread, written as `{ cpuProfile, gc }` (`npm run bench:allocations -- --cpu`).
 */
import { renameSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { GCProfiler, getHeapStatistics } from 'node:v8';

const file = process.env.V2GW_ALLOCATIONS_FILE;
if (!file) throw new Error('bench/allocation-sampler: V2GW_ALLOCATIONS_FILE is not set');
const samplingInterval = Number(process.env.V2GW_ALLOCATIONS_INTERVAL ?? 4096);
const cpuIntervalUs = process.env.V2GW_CPU_PROFILE_US === undefined ? undefined : Number(process.env.V2GW_CPU_PROFILE_US);

let open: { session: Session; gc: GCProfiler; usedAtStart: number; faultsAtStart: number } | undefined;

function writeWhole(path: string, text: string): void {
  writeFileSync(`${path}.part`, text);
  renameSync(`${path}.part`, path);
}

async function start(): Promise<void> {
  const session = new Session();
  session.connect();
  if (cpuIntervalUs === undefined) {
    await session.post('HeapProfiler.enable');
    await session.post('HeapProfiler.startSampling', { samplingInterval, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
  } else {
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: cpuIntervalUs });
    await session.post('Profiler.start');
  }
  const gc = new GCProfiler();
  gc.start();
  open = { session, gc, usedAtStart: getHeapStatistics().used_heap_size, faultsAtStart: process.resourceUsage().minorPageFault };
  writeWhole(`${file}.open`, '');
}

async function stop(): Promise<void> {
  const { session, gc, usedAtStart, faultsAtStart } = open!;
  open = undefined;
  const usedAtEnd = getHeapStatistics().used_heap_size;
  const minorFaults = process.resourceUsage().minorPageFault - faultsAtStart;
  const collections = gc.stop()?.statistics ?? [];
  const gcWindow = { usedAtStart, usedAtEnd, collections, minorFaults };
  const written = cpuIntervalUs === undefined
    ? { profile: (await session.post('HeapProfiler.stopSampling')).profile, gc: gcWindow }
    : { cpuProfile: (await session.post('Profiler.stop')).profile, gc: gcWindow };
  session.disconnect();
  writeWhole(file!, JSON.stringify(written));
}

process.on('SIGUSR2', () => {
  (open ? stop() : start()).catch((error: unknown) => process.stderr.write(`bench/allocation-sampler: ${(error as Error).stack}\n`));
});
