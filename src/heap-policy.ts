/**
 * How far V8 lets the old generation grow before its next full collection: to at most 3x what
 * survived the last one (`--heap-growing-percent=200`), where V8 itself picks up to 4x when the
 * collector is fast next to the program. Under load most of the old generation is garbage (what
 * 50 requests in flight had alive when they were promoted), so that factor is what sets the peak.
 * Measured with `npm run bench -- --parts list,list-omit,list-churn` (bench/README.md, Memory):
 * List peaks 220 → 183 MB (REST) and 224 → 193 MB (gRPC), CPU per page within the runs' noise;
 * 2x (`=100`) took them to 150 / 165 MB but cost 7–25% more CPU a page.
 *
 * Set from the code, not as a Node flag: Node refuses V8 flags like this one in NODE_OPTIONS, and a
 * deployment that sets its own NODE_OPTIONS would drop it. V8 reads the factor each time it sizes
 * the heap after a full collection, so setting it once at start-up is enough. A
 * `--heap-growing-percent` given to Node on its command line is left as given.
 */
import { setFlagsFromString } from 'node:v8';

export const HEAP_GROWING_PERCENT = 200;

/** The V8 flag to set, or undefined when Node's own command line (`execArgv`) already sets it. */
export function heapGrowingFlag(execArgv: readonly string[]): string | undefined {
  if (execArgv.some((arg) => arg.startsWith('--heap-growing-percent') || arg.startsWith('--heap_growing_percent'))) return undefined;
  return `--heap-growing-percent=${HEAP_GROWING_PERCENT}`;
}

/** Applies the policy to this process (the gateway's entry points call it first). */
export function applyHeapPolicy(execArgv: readonly string[] = process.execArgv): void {
  const flag = heapGrowingFlag(execArgv);
  if (flag) setFlagsFromString(flag);
}
