/**
 * Preloaded into a benchmark server by `npm run bench:allocations` (`node --import <this, built> …`), never
 * by the gateway itself: what the server allocates on V8's heap over a window its parent chooses.
 *
 * The parent sends SIGUSR2 to open the window and SIGUSR2 again to close it. Opening starts V8's sampling
 * heap profiler through an in-process inspector session, keeping the samples of objects the young and the
 * old generation's collections have already freed (so garbage counts: what a request allocates, not what
 * it leaves), and a `v8.GCProfiler`, which says the heap's used bytes before and after every collection.
 * Closing writes `{ profile, gc }` to `$V2GW_ALLOCATIONS_FILE` (whole, by rename) and says so by the file
 * appearing; opening says it is open by `$V2GW_ALLOCATIONS_FILE.open`.
 *
 * `$V2GW_ALLOCATIONS_INTERVAL`: the sampler's mean bytes between samples (4096 unless given).
 */
import { renameSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { GCProfiler, getHeapStatistics } from 'node:v8';

const file = process.env.V2GW_ALLOCATIONS_FILE;
if (!file) throw new Error('bench/allocation-sampler: V2GW_ALLOCATIONS_FILE is not set');
const samplingInterval = Number(process.env.V2GW_ALLOCATIONS_INTERVAL ?? 4096);

let open: { session: Session; gc: GCProfiler; usedAtStart: number } | undefined;

function writeWhole(path: string, text: string): void {
  writeFileSync(`${path}.part`, text);
  renameSync(`${path}.part`, path);
}

async function start(): Promise<void> {
  const session = new Session();
  session.connect();
  await session.post('HeapProfiler.enable');
  await session.post('HeapProfiler.startSampling', { samplingInterval, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
  const gc = new GCProfiler();
  gc.start();
  open = { session, gc, usedAtStart: getHeapStatistics().used_heap_size };
  writeWhole(`${file}.open`, '');
}

async function stop(): Promise<void> {
  const { session, gc, usedAtStart } = open!;
  open = undefined;
  const usedAtEnd = getHeapStatistics().used_heap_size;
  const collections = gc.stop()?.statistics ?? [];
  const { profile } = await session.post('HeapProfiler.stopSampling');
  session.disconnect();
  writeWhole(file!, JSON.stringify({ profile, gc: { usedAtStart, usedAtEnd, collections } }));
}

process.on('SIGUSR2', () => {
  (open ? stop() : start()).catch((error: unknown) => process.stderr.write(`bench/allocation-sampler: ${(error as Error).stack}\n`));
});
