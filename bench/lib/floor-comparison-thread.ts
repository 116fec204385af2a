/**
 * The name of the least comparison's worker thread (bench/lib/compare-on-worker.ts starts it). Node gives
 * it to the OS thread too, so the benchmark can move that thread alone (bench/lib/pin.ts,
 * moveThreadsNamed), as it moves the gateway's comparison thread.
 */
export const FLOOR_COMPARISON_THREAD = 'floor-compare';
