/**
 * A process that only awaits a comparison worker's start (test/compare/off-thread.test.ts): nothing
 * else keeps it up, as in a gateway's process before it listens. Prints `ready` once the wait ends.
 */
import { OffThreadComparisons } from '../../src/compare/off-thread.ts';

const comparisons = new OffThreadComparisons({
  settings: { url: 'http://127.0.0.1:1', protocol: 'rest', capacity: 1, concurrency: 1, timeoutMs: 1000, noise: false, retryMs: 0, keepSamples: false, batchMs: 100, batchSize: 64 },
  record: () => {},
  dropped: () => {},
  warn: (message) => console.error(message),
});
await comparisons.ready();
console.log('ready');
await comparisons.close();
