/**
 * The comparison's figures as plain counters by (method, key), the one form
 * that adds up across replicas (report-store.ts keeps them in the store) and
 * from which the report is worked out each time it is read. Each comparison's
 * differing fields are counted as one signature, so that fields found to be
 * noise (they differ as often between the primary and itself) can be taken
 * out afterwards and the comparison counted as equal, keeping
 * compared = equal + transient + the sum of different.
 */
import { CLASSES, worstClass, type DiffClass, type FieldDifference, type Odd } from './classes.ts';
import { examplePair, type ExamplePair } from './example-pair.ts';
import { NO_EXPECTATIONS, type Expectations } from './expected.ts';
import { verdict, wilson, type Verdict } from './verdict.ts';

export type Counters = Map<string, Map<string, number>>;

/** Counter keys. Signatures and noise paths carry their path after a tab. */
export const KEY = {
  compared: 'compared',
  transient: 'transient',
  transientMs: 'transientMs',
  skipped: 'skipped',
  errors: 'errors',
  dropped: 'dropped',
  /** Not sent: the primary refused the request as malformed, or its path would climb out of its route. */
  refused: 'refused',
  /** Of `errors`, those under way when the comparison's worker thread stopped (off-thread.ts). */
  workerStopErrors: 'workerStopErrors',
  /** Of `dropped`, those offered while no worker thread ran (stopped, not yet started again). */
  workerStopDropped: 'workerStopDropped',
  noiseTrials: 'noiseTrials',
  signature: 'sig\t',
  noise: 'noise\t',
} as const;

/** How many distinct signatures a method keeps before the rarer ones are counted by their worst class alone. */
const MAX_SIGNATURES = 500;

export function add(counters: Counters, method: string, key: string, by = 1): void {
  let keys = counters.get(method);
  if (!keys) counters.set(method, (keys = new Map()));
  keys.set(key, (keys.get(key) ?? 0) + by);
}

/** One comparison with differences, as its signature (sorted path/class pairs). */
export function signatureKey(counters: Counters, method: string, differences: readonly FieldDifference[]): string {
  const pairs = differences.map((d) => (d.odd ? [d.path, d.class, d.odd] : [d.path, d.class])).sort(([a], [b]) => (a! < b! ? -1 : 1));
  const key = KEY.signature + JSON.stringify(pairs);
  const keys = counters.get(method);
  // A signature counted before (a difference that persists) is found without counting the others.
  if (keys?.has(key)) return key;
  let known = 0;
  if (keys) for (const k of keys.keys()) if (k.startsWith(KEY.signature)) known++;
  if (known < MAX_SIGNATURES) return key;
  return KEY.signature + JSON.stringify([['(other fields)', worstClass(differences)]]);
}

export interface FieldEntry {
  path: string;
  /** `expected`: declared as a known difference (compare/expected.ts), with its reason; left out of the verdict. */
  class: DiffClass | 'expected';
  count: number;
  reason?: string;
  /** One pair of values that differed here, from a kept sample (only where samples are shown). */
  example?: ExamplePair;
  /** Differed as often between the primary and itself (`--compare-noise`): left out of the verdict. */
  noise?: boolean;
  /** Three-way replay: the target that disagrees with the other two, or none when all three differ. */
  odd?: Odd;
}

export interface MethodReport {
  method: string;
  compared: number;
  equal: number;
  transient: number;
  /** Comparisons whose only differences were expected ones. */
  expected: number;
  skipped: number;
  errors: number;
  dropped: number;
  /** Not sent to the candidate: the primary refused the request as malformed, or its path climbs out of its route. */
  refused: number;
  /** Of `errors` and `dropped`, those a stop of the comparison's worker thread took (under way, or offered while none ran). */
  workerStop: { errors: number; dropped: number };
  different: Record<DiffClass, number>;
  fields: FieldEntry[];
  verdict: Verdict;
  /** Mean time a transient difference took to go away, in ms. */
  transientMeanMs: number;
  /** A/A pairs measured (`--compare-noise`): calls the primary answered twice. */
  noiseTrials: number;
  samples: unknown[];
}

export interface ReportOptions {
  targetRate: number;
  /** Kept samples, when the reader may see them; otherwise the report holds none (and no example pairs). */
  samples?: ReadonlyMap<string, readonly unknown[]> | undefined;
  expectations?: Expectations;
}

export function methodReport(method: string, keys: ReadonlyMap<string, number>, options: ReportOptions): MethodReport {
  const get = (key: string) => keys.get(key) ?? 0;
  const compared = get(KEY.compared);
  const noisy = noisePaths(keys, compared);
  const different = Object.fromEntries(CLASSES.map((c) => [c, 0])) as Record<DiffClass, number>;
  const expectations = options.expectations ?? NO_EXPECTATIONS;
  const fields = new Map<string, FieldEntry>();
  let differing = 0;
  let expected = 0;
  for (const [key, count] of keys) {
    if (!key.startsWith(KEY.signature) || count === 0) continue;
    const pairs = JSON.parse(key.slice(KEY.signature.length)) as [string, DiffClass, Odd?][];
    const real: FieldDifference[] = [];
    let anyExpected = false;
    for (const [path, cls, odd] of pairs) {
      const reason = expectations.reasonFor(method, path);
      const id = `${path}\t${reason === undefined ? cls : 'expected'}\t${odd ?? ''}`;
      const entry = fields.get(id) ?? {
        path, class: reason === undefined ? cls : 'expected', count: 0, ...(reason === undefined ? {} : { reason }), ...(odd ? { odd } : {}), ...(noisy.has(path) ? { noise: true } : {}),
      };
      entry.count += count;
      fields.set(id, entry);
      if (reason !== undefined) anyExpected = true;
      else if (!noisy.has(path)) real.push({ path, class: cls });
    }
    const worst = worstClass(real);
    if (worst) {
      different[worst] += count;
      differing += count;
    } else if (anyExpected) expected += count;
  }
  const transient = get(KEY.transient);
  const samples = [...(options.samples?.get(method) ?? [])];
  const rank = (cls: FieldEntry['class']) => (cls === 'expected' ? CLASSES.length : CLASSES.indexOf(cls));
  return {
    method,
    compared,
    equal: Math.max(0, compared - transient - differing - expected),
    transient,
    expected,
    skipped: get(KEY.skipped),
    errors: get(KEY.errors),
    dropped: get(KEY.dropped),
    refused: get(KEY.refused),
    workerStop: { errors: get(KEY.workerStopErrors), dropped: get(KEY.workerStopDropped) },
    different,
    fields: [...fields.values()]
      .sort((a, b) => rank(a.class) - rank(b.class) || b.count - a.count || a.path.localeCompare(b.path))
      .map((entry) => {
        const example = samples.length > 0 ? examplePair(samples, entry.path, entry.class === 'expected' ? undefined : entry.class) : undefined;
        return example ? { ...entry, example } : entry;
      }),
    verdict: verdict(differing, compared, options.targetRate, {
      candidate: Math.max(0, get(KEY.errors) - get(KEY.workerStopErrors)), underWay: get(KEY.workerStopErrors), offered: get(KEY.workerStopDropped),
    }),
    transientMeanMs: transient > 0 ? Math.round(get(KEY.transientMs) / transient) : 0,
    noiseTrials: get(KEY.noiseTrials),
    samples,
  };
}

/**
 * Paths that differ between primary and candidate no more clearly than
 * between the primary and itself: the candidate's rate's lower bound is not
 * above the primary's own rate's upper bound. A path never seen to vary on
 * its own is never noise.
 */
function noisePaths(keys: ReadonlyMap<string, number>, compared: number): Set<string> {
  const trials = keys.get(KEY.noiseTrials) ?? 0;
  const noisy = new Set<string>();
  if (trials === 0) return noisy;
  const againstCandidate = new Map<string, number>();
  for (const [key, count] of keys) {
    if (!key.startsWith(KEY.signature)) continue;
    for (const [path] of JSON.parse(key.slice(KEY.signature.length)) as [string, string][]) againstCandidate.set(path, (againstCandidate.get(path) ?? 0) + count);
  }
  for (const [key, selfCount] of keys) {
    if (!key.startsWith(KEY.noise) || selfCount === 0) continue;
    const path = key.slice(KEY.noise.length);
    if (wilson(againstCandidate.get(path) ?? 0, compared).lower <= wilson(selfCount, trials).upper) noisy.add(path);
  }
  return noisy;
}

export interface Report {
  methods: MethodReport[];
}

export function report(counters: Counters, options: ReportOptions): Report {
  const methods = [...counters.keys()].sort();
  return { methods: methods.map((method) => methodReport(method, counters.get(method)!, options)) };
}
