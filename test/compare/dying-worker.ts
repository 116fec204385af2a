/**
 * A comparison worker that dies on its first jobs (test/compare/off-thread.test.ts), with the
 * caller's token in its error, as a careless one might: the gateway must not log it.
 */
import { parentPort } from 'node:worker_threads';

parentPort!.on('message', (message: { kind: string; jobs?: Array<{ authorization: string }> }) => {
  if (message.kind === 'jobs') throw new Error(`died holding ${message.jobs![0]!.authorization}`);
});
