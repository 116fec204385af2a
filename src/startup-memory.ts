/**
 * The memory start-up leaves behind, given back once. Loading the modules,
 * the contract and the routes allocates enough, and keeps enough of it, that
 * V8 grows its young generation to its cap (`--max-semi-space-size`) before
 * the first request; a process that then idles keeps it, since the
 * collections that would shrink it run only after a full collection, which
 * an idle gateway never makes. One collection that reduces memory, run once
 * the gateway is built and before it listens (nothing waits for it), hands
 * those pages back: an idle gateway is resident with what it holds, and
 * under load the young generation grows again to what the load needs.
 *
 * It needs Node's `gc`, which `--expose-gc` gives (`npm start` and the image
 * run with it); without it (a deployment's own NODE_OPTIONS) this does
 * nothing and says so.
 */

/** Node's `gc` under `--expose-gc`: 'last-resort' is the collection V8 makes before it gives up on memory, shrinking what it can. */
type Collect = (options: { type: 'major'; execution: 'sync'; flavor: 'last-resort' }) => void;

/**
 * A tick queued across the collection. Start-up has made tick objects already,
 * and V8 knows their shape as a chain of maps that, this early, only a live
 * tick object keeps: with none alive the collection frees the chain and the
 * next tick builds it anew. The feedback of the tick's object literal (in
 * `process.nextTick`, its keys computed) expects one map per property and
 * takes any other as megamorphic, which would send every tick of the process
 * down V8's generic path for good. The queued tick keeps the chain alive.
 */
function holdsTheTickShape(): void {}

/** True when the collection ran; false when Node was not started with `--expose-gc`. */
export function releaseStartupMemory(): boolean {
  const gc = (globalThis as { gc?: unknown }).gc;
  if (typeof gc !== 'function') return false;
  process.nextTick(holdsTheTickShape);
  (gc as Collect)({ type: 'major', execution: 'sync', flavor: 'last-resort' });
  return true;
}
