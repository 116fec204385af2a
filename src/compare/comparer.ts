/**
 * One comparison from start to end: the candidate asked, the two answers
 * compared; with noise measuring on, the primary asked again and compared with
 * itself; on a difference, both read again after a short back-off, and a
 * difference that went away counted as transient. Two halves: what the
 * comparison found (`findDifferences`, plain data, so a worker thread may find
 * it, worker.ts) and its finding counted (`recordFinding`: the counters of
 * tally.ts, a sample, the metrics), where the counters live.
 */
import type { DescMethod } from '@bufbuild/protobuf';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Json } from '../vocabulary/json.ts';
import type { FieldDifference } from './classes.ts';
import { worstClass } from './classes.ts';
import { compareOutcomes } from './compare-outcomes.ts';
import type { DiffOptions } from './message-diff.ts';
import { SAME_AS_PRIMARY, type Outcome } from './outcome.ts';
import type { Samples } from './samples.ts';
import { add, KEY, signatureKey, type Counters } from './tally.ts';

/** What one comparison ended as, for the metrics: equal, transient, a class, or errors (the candidate did not answer). */
export type Result = 'equal' | 'transient' | 'errors' | FieldDifference['class'];

export interface ComparisonInput {
  readonly method: DescMethod;
  readonly name: string;
  readonly request: Json;
  readonly primary: Outcome;
  /** The primary's answer as the caller got it, where known: a candidate answering these very bytes is equal, unread. */
  readonly primaryBytes?: Uint8Array | undefined;
  /** Asks the primary again (noise measuring and re-reads). */
  readonly askPrimary: (signal: AbortSignal) => Promise<Outcome>;
  /** `primaryBytes`: given on the first ask only, where SAME_AS_PRIMARY (outcome.ts) may answer. */
  readonly askCandidate: (signal: AbortSignal, primaryBytes?: Uint8Array) => Promise<Outcome>;
  /** Reading again makes sense only where reading changes nothing. */
  readonly readOnly: boolean;
  readonly protocol?: string;
}

/** How a comparison is made. */
export interface FindOptions {
  readonly noise: boolean;
  /** Back-off before reading again on a difference, in ms; 0: no re-read. */
  readonly retryMs: number;
  /** Whether a differing pair is kept as a sample (made, redacted, only then). */
  readonly keepSample: boolean;
}

/** Where a comparison's finding counts. */
export interface RecordOptions {
  readonly counters: Counters;
  readonly samples: Samples;
  /** `times` comparisons of `method` ended as `result`. */
  readonly onResult?: (method: string, result: Result, times: number) => void;
}

export interface ComparerOptions extends Omit<FindOptions, 'keepSample'>, RecordOptions {}

/**
 * What one comparison found: plain data (it crosses from the worker thread to the counters' in a message).
 * `refused`: never sent (the primary refused the request as malformed, or its path climbs out of its
 * route), counted under `refused` alone.
 */
export interface Finding {
  readonly result: Result | 'refused';
  /** The differences the first answers showed (empty when equal or unanswered). */
  readonly differences: readonly FieldDifference[];
  /** A transient difference: how long until it went away, in ms. */
  readonly transientMs?: number;
  /** `--compare-noise` and the primary answered twice: the paths its two answers differ in. */
  readonly noisePaths?: readonly string[];
  /** The differing pair as a sample keeps it (redacted), when samples are kept. */
  readonly sample?: unknown;
}

export function diffOptions(method: DescMethod, request: Json): DiffOptions {
  return {
    ordered: typeof request.orderBy === 'string' && request.orderBy.trim() !== '',
    created: /^(Batch)?Create/.test(method.name),
  };
}

/** One comparison, found and counted where it runs (a replay, compare/replay.ts). */
export async function compareOnce(input: ComparisonInput, options: ComparerOptions, signal: AbortSignal): Promise<Finding['result']> {
  const finding = await findDifferences(input, { noise: options.noise, retryMs: options.retryMs, keepSample: options.samples.keeping }, signal);
  recordFinding(input.name, finding, options);
  return finding.result;
}

/**
 * A finding into the counters, the samples and the metrics, `times` over: the worker sends the comparisons
 * that ended alike (equal, not answered) as one count (off-thread.ts). A sample is kept once.
 */
export function recordFinding(name: string, finding: Finding, options: RecordOptions, times = 1): void {
  const { counters } = options;
  if (finding.result === 'refused') {
    add(counters, name, KEY.refused, times);
    return;
  }
  if (finding.noisePaths) {
    add(counters, name, KEY.noiseTrials, times);
    for (const path of finding.noisePaths) add(counters, name, KEY.noise + path, times);
  }
  options.onResult?.(name, finding.result, times);
  if (finding.result === 'errors') {
    add(counters, name, KEY.errors, times);
    return;
  }
  add(counters, name, KEY.compared, times);
  if (finding.result === 'transient') {
    add(counters, name, KEY.transient, times);
    add(counters, name, KEY.transientMs, (finding.transientMs ?? 0) * times);
  } else if (finding.differences.length > 0) {
    add(counters, name, signatureKey(counters, name, finding.differences), times);
    if (finding.sample !== undefined) options.samples.keep(name, finding.sample);
  }
}

/** What a comparison finds, counting nothing. */
export async function findDifferences(input: ComparisonInput, options: FindOptions, signal: AbortSignal): Promise<Finding> {
  const how = diffOptions(input.method, input.request);
  const output = input.method.output;
  let candidate: Outcome;
  let again: Outcome | undefined;
  if (options.noise) [candidate, again] = await Promise.all([input.askCandidate(signal, input.primaryBytes), input.askPrimary(signal)]);
  else candidate = await input.askCandidate(signal, input.primaryBytes);
  if (candidate.kind === 'unanswered') return { result: 'errors', differences: [] };
  const noise = again && again.kind !== 'unanswered' ? { noisePaths: compareOutcomes(output, input.primary, again, how).map((d) => d.path) } : {};
  if (candidate === SAME_AS_PRIMARY) return { result: 'equal', differences: [], ...noise };
  let primary = input.primary;
  const differences = compareOutcomes(output, primary, candidate, how);
  if (differences.length === 0) return { result: 'equal', differences, ...noise };
  const differing = async (): Promise<Finding> => ({ result: worstClass(differences)!, differences, ...noise, ...(options.keepSample ? { sample: await sampleOf(input, differences, candidate) } : {}) });
  if (!input.readOnly || options.retryMs <= 0) return differing();
  const started = Date.now();
  try {
    await sleep(options.retryMs, undefined, { signal });
  } catch {
    return differing();
  }
  const [reread, primaryAgain] = await Promise.all([input.askCandidate(signal), options.noise ? input.askPrimary(signal) : undefined]);
  if (primaryAgain && primaryAgain.kind !== 'unanswered') primary = primaryAgain;
  if (reread.kind !== 'unanswered' && compareOutcomes(output, primary, reread, how).length === 0) {
    return { result: 'transient', differences, transientMs: Date.now() - started, ...noise };
  }
  return differing();
}

/**
 * A differing pair as the report shows it to a bearer of the samples secret: declared secrets redacted.
 * Redaction reads every mapping's declarations, so it is loaded only where samples are kept: the
 * comparison's worker thread, without samples, loads no mapping.
 */
async function sampleOf(input: ComparisonInput, differences: readonly FieldDifference[], candidate: Outcome): Promise<unknown> {
  const { redact, redactOutcome } = await import('./redact.ts');
  return {
    at: new Date().toISOString(),
    ...(input.protocol ? { protocol: input.protocol } : {}),
    request: redact(input.request, input.method.input),
    differences,
    primary: redactOutcome(input.primary, input.method.output),
    candidate: redactOutcome(candidate, input.method.output),
  };
}
