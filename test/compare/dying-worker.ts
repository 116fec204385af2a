/**
 * A comparison worker that dies on its first jobs (test/compare/off-thread.test.ts), with the
 * caller's token in its error, as a careless one might: the gateway must not log it.
 */
import { parentPort } from 'node:worker_threads';

// A batch of jobs is a flat array (worker-messages.ts), the caller's Authorization among its values.
parentPort!.on('message', (message: unknown) => {
  if (Array.isArray(message)) throw new Error(`died holding ${message.filter((value) => typeof value === 'string' && value.startsWith('Bearer ')).join(', ')}`);
});
