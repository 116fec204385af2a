/**
 * Where the counters live. In memory, per process; or in the gateway's own
 * store (its `comparisons` table, store/compare-counters.ts), which each
 * replica adds its new counts to, so the report any replica serves is the sum
 * over every replica sharing that store.
 */
import type { ComparisonCounterStore } from '../store/types.ts';
import type { Counters } from './tally.ts';

export interface CounterStore {
  /** Where comparisons count. */
  readonly counters: Counters;
  /** Every replica's counts so far. */
  read(): Promise<Counters>;
  close(): Promise<void>;
}

export function memoryStore(): CounterStore {
  const counters: Counters = new Map();
  return { counters, read: async () => counters, close: async () => {} };
}

/**
 * Counts made here are moved to the store every `flushMs`, and before each read.
 * A named run (`--compare-run`) keeps its rows apart, so a new run starts from
 * zero on the same table; the unnamed run is ''. The store is the gateway's, so
 * closing the counters does not close it.
 */
export function sharedStore(store: ComparisonCounterStore, run = '', flushMs = 1000): CounterStore {
  const counters: Counters = new Map();
  let flushing: Promise<void> = Promise.resolve();
  const flush = () => {
    flushing = flushing.then(async () => {
      const taken = [...counters];
      counters.clear();
      for (const [method, byKey] of taken) await store.add(run, method, byKey);
    }).catch(() => {
      // A store away for a moment loses these counts, never the gateway's answers.
    });
    return flushing;
  };
  const timer = setInterval(flush, flushMs);
  timer.unref();
  return {
    counters,
    async read() {
      await flush();
      return store.read(run);
    },
    async close() {
      clearInterval(timer);
      await flush();
    },
  };
}
