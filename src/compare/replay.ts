/**
 * Offline replay of a capture against two or three targets: each call sent to
 * every target, the answers compared as the live comparison does (two
 * targets: a is the primary, b the candidate, with the same re-read on a
 * difference; three: every pair, each field naming its odd target), into the
 * same counters and so the same report. Writes are skipped unless `unsafe`.
 */
import type { CapturedCall } from './capture.ts';
import type { Candidate } from './candidate.ts';
import { compareOnce, diffOptions } from './comparer.ts';
import { worstClass } from './classes.ts';
import { ComparisonQueue } from './queue.ts';
import { isReadOnly } from '../contract/read-only.ts';
import { redact, redactOutcome } from './redact.ts';
import { Samples } from './samples.ts';
import { add, KEY, report, signatureKey, type Counters, type Report } from './tally.ts';
import { compareThree } from './three-way.ts';
import { climbsPath } from './candidate-rest.ts';
import type { Expectations } from './expected.ts';
import { refusedAsMalformed } from './outcome.ts';
import { methodByName } from './request-of.ts';

export interface ReplayOptions {
  readonly targets: readonly Candidate[];
  readonly authorization: string;
  readonly unsafe: boolean;
  readonly targetRate: number;
  readonly retryMs: number;
  readonly concurrency: number;
  readonly timeoutMs: number;
  readonly samplesPerMethod: number;
  readonly expectations?: Expectations;
}

export interface ReplayReport extends Report {
  targets: Record<string, string>;
  calls: number;
  targetRate: number;
  generatedAt: string;
}

export async function replay(calls: readonly CapturedCall[], options: ReplayOptions): Promise<ReplayReport> {
  const counters: Counters = new Map();
  const samples = new Samples(options.samplesPerMethod);
  const queue = new ComparisonQueue({ capacity: Number.MAX_SAFE_INTEGER, concurrency: options.concurrency, timeoutMs: options.timeoutMs });
  const { targets, authorization } = options;
  for (const call of calls) {
    const method = methodByName(call.method);
    if (!method) continue;
    const readOnly = isReadOnly(method);
    if (!readOnly && !options.unsafe) {
      add(counters, call.method, KEY.skipped);
      continue;
    }
    if (climbsPath(method, call.request)) {
      add(counters, call.method, KEY.refused);
      continue;
    }
    const ask = (target: Candidate) => (signal: AbortSignal) => target.ask(method, call.request, authorization, signal);
    queue.offer(async (signal) => {
      // The first target is asked alone first: a request it refuses as malformed goes no further.
      const primary = await ask(targets[0]!)(signal);
      if (primary.kind === 'unanswered') return add(counters, call.method, KEY.errors);
      if (refusedAsMalformed(primary)) return add(counters, call.method, KEY.refused);
      if (targets.length === 2) {
        await compareOnce({ method, name: call.method, request: call.request, primary, askPrimary: ask(targets[0]!), askCandidate: ask(targets[1]!), readOnly, protocol: call.protocol }, { counters, samples, noise: false, retryMs: readOnly ? options.retryMs : 0 }, signal);
        return;
      }
      const outcomes = [primary, ...(await Promise.all(targets.slice(1, 3).map((t) => ask(t)(signal))))];
      if (outcomes.some((o) => o.kind === 'unanswered')) return add(counters, call.method, KEY.errors);
      add(counters, call.method, KEY.compared);
      const differences = compareThree(method.output, outcomes as [never, never, never], diffOptions(method, call.request));
      if (!worstClass(differences)) return;
      add(counters, call.method, signatureKey(counters, call.method, differences));
      samples.keep(call.method, { request: redact(call.request, method.input), differences, ...Object.fromEntries(outcomes.map((o, i) => ['abc'[i]!, redactOutcome(o, method.output)])) });
    });
  }
  await queue.drained();
  return {
    ...report(counters, { targetRate: options.targetRate, samples: samples.all, ...(options.expectations ? { expectations: options.expectations } : {}) }),
    targets: Object.fromEntries(targets.map((t, i) => ['abc'[i]!, t.url])),
    calls: calls.length,
    targetRate: options.targetRate,
    generatedAt: new Date().toISOString(),
  };
}
