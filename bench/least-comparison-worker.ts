/**
 * The least comparison on a worker thread (bench/lib/compare-on-worker.ts starts it, named
 * FLOOR_COMPARISON_THREAD): the translating floor's comparison (bench/lib/least-comparison.ts) made off its
 * event loop. It takes batches of `[sent JSON text, authorization, …]`, asks the candidate once for each,
 * and holds the candidate's parsed answer against the sent text parsed here (the text crossed as a string,
 * the cheapest thing to clone; the document is made again on this thread, as the gateway's worker makes
 * the primary's outcome again from its clone). Counts go into the SharedArrayBuffer it was given: nothing
 * is sent back.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { countSlots, leastComparison } from './lib/least-comparison.ts';

if (!parentPort) throw new Error('bench/least-comparison-worker.ts runs as a worker thread (bench/lib/compare-on-worker.ts starts it)');
const { url, path, counts } = workerData as { url: string; path: string; counts: SharedArrayBuffer };
const compare = leastComparison({ url, path, counts: countSlots(counts), expected: (text: string) => JSON.parse(text) });

parentPort.on('message', (batch: string[]) => {
  for (let i = 0; i < batch.length; i += 2) compare(batch[i]!, batch[i + 1] || undefined);
});
