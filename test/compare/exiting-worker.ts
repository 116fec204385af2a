/**
 * A comparison worker that compares as the gateway's does (src/compare/worker.ts, loaded here) and exits
 * with code 3 when its second batch of jobs arrives, holding them: each worker started compares one
 * batch, then stops with comparisons under way (test/compare/off-thread.test.ts, dead-worker.test.ts).
 */
import { parentPort } from 'node:worker_threads';
import '../../src/compare/worker.ts';

let batches = 0;

// Registered after worker.ts's own listener: the batch has reached its queue when the thread exits.
// A batch of jobs is the one message that is an array (worker-messages.ts).
parentPort!.on('message', (message: unknown) => {
  if (Array.isArray(message) && ++batches === 2) process.exit(3);
});
