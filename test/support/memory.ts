/**
 * The heap after a full collection, for tests that assert memory comes back:
 * `--expose-gc` set at run time (vitest's workers are not started with it).
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

setFlagsFromString('--expose-gc');
const collect = runInNewContext('gc') as () => void;

/** Heap in use after two full collections (the second frees what the first's finalizers released), in MiB. */
export function collectedHeapMb(): number {
  collect();
  collect();
  return process.memoryUsage().heapUsed / 2 ** 20;
}
