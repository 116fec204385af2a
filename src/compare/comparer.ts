/**
 * One comparison from start to end: the candidate asked, the two answers
 * compared; with noise measuring on, the primary asked again and compared with
 * itself; on a difference, both read again after a short back-off, and a
 * difference that went away counted as transient. The result goes into the
 * counters (tally.ts), a sample, and the metrics.
 */
import type { DescMethod } from '@bufbuild/protobuf';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Json } from '../vocabulary/json.ts';
import type { FieldDifference } from './classes.ts';
import { worstClass } from './classes.ts';
import { compareOutcomes } from './compare-outcomes.ts';
import type { DiffOptions } from './message-diff.ts';
import type { Outcome } from './outcome.ts';
import { redact, redactOutcome } from './redact.ts';
import type { Samples } from './samples.ts';
import { add, KEY, signatureKey, type Counters } from './tally.ts';

/** What one comparison ended as, for the metrics: equal, transient, a class, or errors (the candidate did not answer). */
export type Result = 'equal' | 'transient' | 'errors' | FieldDifference['class'];

export interface ComparisonInput {
  readonly method: DescMethod;
  readonly name: string;
  readonly request: Json;
  readonly primary: Outcome;
  /** Asks the primary again (noise measuring and re-reads). */
  readonly askPrimary: (signal: AbortSignal) => Promise<Outcome>;
  readonly askCandidate: (signal: AbortSignal) => Promise<Outcome>;
  /** Reading again makes sense only where reading changes nothing. */
  readonly readOnly: boolean;
  readonly protocol?: string;
}

export interface ComparerOptions {
  readonly counters: Counters;
  readonly samples: Samples;
  readonly noise: boolean;
  /** Back-off before reading again on a difference, in ms; 0: no re-read. */
  readonly retryMs: number;
  readonly onResult?: (method: string, result: Result) => void;
}

export function diffOptions(method: DescMethod, request: Json): DiffOptions {
  return {
    ordered: typeof request.orderBy === 'string' && request.orderBy.trim() !== '',
    created: /^(Batch)?Create/.test(method.name),
  };
}

export async function compareOnce(input: ComparisonInput, options: ComparerOptions, signal: AbortSignal): Promise<Result> {
  const { counters, samples } = options;
  const result = await run(input, options, signal);
  options.onResult?.(input.name, result.result);
  if (result.result === 'errors') {
    add(counters, input.name, KEY.errors);
    return result.result;
  }
  add(counters, input.name, KEY.compared);
  if (result.result === 'transient') {
    add(counters, input.name, KEY.transient);
    add(counters, input.name, KEY.transientMs, result.transientMs ?? 0);
  } else if (result.differences.length > 0) {
    add(counters, input.name, signatureKey(counters, input.name, result.differences));
    if (samples.keeping) samples.keep(input.name, {
      at: new Date().toISOString(),
      ...(input.protocol ? { protocol: input.protocol } : {}),
      request: redact(input.request, input.method.input),
      differences: result.differences,
      primary: redactOutcome(input.primary, input.method.output),
      candidate: redactOutcome(result.candidate, input.method.output),
    });
  }
  return result.result;
}

interface Run {
  result: Result;
  differences: FieldDifference[];
  candidate?: Outcome;
  transientMs?: number;
}

async function run(input: ComparisonInput, options: ComparerOptions, signal: AbortSignal): Promise<Run> {
  const how = diffOptions(input.method, input.request);
  const output = input.method.output;
  const [candidate, again] = await Promise.all([input.askCandidate(signal), options.noise ? input.askPrimary(signal) : undefined]);
  if (candidate.kind === 'unanswered') return { result: 'errors', differences: [] };
  if (again && again.kind !== 'unanswered') {
    add(options.counters, input.name, KEY.noiseTrials);
    for (const d of compareOutcomes(output, input.primary, again, how)) add(options.counters, input.name, KEY.noise + d.path);
  }
  let primary = input.primary;
  let differences = compareOutcomes(output, primary, candidate, how);
  if (differences.length === 0) return { result: 'equal', differences };
  if (!input.readOnly || options.retryMs <= 0) return { result: worstClass(differences)!, differences, candidate };
  const started = Date.now();
  try {
    await sleep(options.retryMs, undefined, { signal });
  } catch {
    return { result: worstClass(differences)!, differences, candidate };
  }
  const [reread, primaryAgain] = await Promise.all([input.askCandidate(signal), options.noise ? input.askPrimary(signal) : undefined]);
  if (primaryAgain && primaryAgain.kind !== 'unanswered') primary = primaryAgain;
  if (reread.kind !== 'unanswered' && compareOutcomes(output, primary, reread, how).length === 0) {
    return { result: 'transient', differences, transientMs: Date.now() - started };
  }
  return { result: worstClass(differences)!, differences, candidate };
}
