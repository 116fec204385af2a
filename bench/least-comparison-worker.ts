/**
 * The least comparison on a worker thread (bench/lib/compare-on-worker.ts starts it, named
 * FLOOR_COMPARISON_THREAD): the translating floor's comparison (bench/lib/least-comparison.ts) made off its
 * event loop. It takes batches of `[sent JSON text, authorization, …]`, asks the candidate once for each,
 * and holds the candidate's answer against the sent text (the text crossed as a string, the cheapest thing
 * to clone): the same text is equal unread; other text is parsed and held against the sent text parsed
 * here, as the gateway's worker reads the primary's text only when the candidate's bytes differ. Counts go into the SharedArrayBuffer it was given: nothing
 * is sent back.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { countSlots, leastComparison } from './lib/least-comparison.ts';

if (!parentPort) throw new Error('bench/least-comparison-worker.ts runs as a worker thread (bench/lib/compare-on-worker.ts starts it)');
const { url, path, counts } = workerData as { url: string; path: string; counts: SharedArrayBuffer };
const compare = leastComparison({ url, path, counts: countSlots(counts) });

parentPort.on('message', (batch: string[]) => {
  for (let i = 0; i < batch.length; i += 2) compare(batch[i]!, undefined, batch[i + 1] || undefined);
});
