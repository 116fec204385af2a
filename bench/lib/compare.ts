/**
 * Two targets measured against each other in one run. The machine drifts (a
 * VM's speed moves by tens of percent over minutes), so the targets alternate
 * in rounds, A B then B A (ABBA; with more targets A B C then C B A), each measured for the full duration: a
 * steady drift then weighs on both alike. Each target is warmed up once before
 * the first round (JIT, connection pools, caches), and its rounds are pooled
 * into one figure (bench/lib/stats.ts).
 */
import { snapshot, spent } from './cpu.ts';
import { failureCount, type LoadRun, type MeasuredRun, type Summary, summarize } from './stats.ts';

export interface Target {
  /** As the table shows it: `REST`, `gRPC`, `before (aee1290)`, ... */
  label: string;
  /** The process label (in `pids`) of the server whose CPU per request is this target's `gw CPU`. */
  server: string;
  load(seconds: number): Promise<LoadRun>;
}

export interface CompareOptions {
  /** Process label → pid, every server process of the run (their CPU is recorded for each target). */
  pids: Record<string, number>;
  duration: number;
  warmup: number;
  rounds: number;
  /** Prefix of progress lines on stderr. */
  name: string;
  /** Called once the warm-ups are done, before the first round (threads the warm-up made are there by then). */
  afterWarmup?: () => void;
}

export interface Compared {
  a: Summary;
  b: Summary;
  /** Failures seen during warm-ups, which fail the run as measured ones do. */
  warmupFailures: Record<string, number>;
}

export async function compare(a: Target, b: Target, options: CompareOptions): Promise<Compared> {
  const { summaries, warmupFailures } = await compareAll([a, b], options);
  return { a: summaries[0]!, b: summaries[1]!, warmupFailures };
}

/**
 * Any number of targets in one run: each warmed up once, then measured in `rounds` rounds whose
 * order alternates (A B C, C B A, ...), so a drift of the machine's speed weighs on all alike.
 * One summary per target, in the order given.
 */
export async function compareAll(targets: readonly Target[], options: CompareOptions): Promise<{ summaries: Summary[]; warmupFailures: Record<string, number> }> {
  const warmupFailures: Record<string, number> = {};
  if (options.warmup > 0) {
    for (const target of targets) {
      process.stderr.write(`bench: ${options.name} / ${target.label}: warm-up ${options.warmup}s\n`);
      const run = await target.load(options.warmup);
      for (const [kind, n] of Object.entries(run.failures)) warmupFailures[`${target.label} warm-up: ${kind}`] = n;
    }
  }
  options.afterWarmup?.();
  const runs = new Map<Target, MeasuredRun[]>(targets.map((t) => [t, []]));
  for (let round = 0; round < options.rounds; round++) {
    for (const target of round % 2 === 0 ? targets : [...targets].reverse()) {
      process.stderr.write(`bench: ${options.name} / ${target.label}: round ${round + 1}/${options.rounds}, measuring ${options.duration}s\n`);
      const before = snapshot(options.pids);
      const run = await target.load(options.duration);
      const measured = { ...run, cpu: spent(before, snapshot(options.pids)) };
      if (failureCount(run.failures) > 0) process.stderr.write(`bench: ${options.name} / ${target.label}: failures ${JSON.stringify(run.failures)}\n`);
      runs.get(target)!.push(measured);
    }
  }
  return { summaries: targets.map((t) => summarize(runs.get(t)!)), warmupFailures };
}
