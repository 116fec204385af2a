/**
 * What one load run yields, whichever protocol carried it, and how runs of the
 * same target (several alternating rounds) are pooled into one figure: req/s
 * over all the time measured, percentiles over every sample, CPU over every
 * request.
 */
import type { CpuSpent } from './cpu.ts';

/** Latency samples kept per run; far above what 2 x 10 s at any rate seen here produces. */
export const MAX_SAMPLES = 5_000_000;

export interface LoadRun {
  /** Answers received (OK or not). */
  requests: number;
  /** From the first request sent to the last answer counted. */
  seconds: number;
  /** Per-answer latency, float ms (empty when the load generator gives percentiles only). */
  samples: number[];
  /** Latency percentiles from the load generator's own histogram (wrk), when it gives no samples. */
  percentiles?: { p50Ms: number; p90Ms: number; p99Ms: number };
  /** What was not an OK answer, by kind (`HTTP 503`, `gRPC UNAVAILABLE`, `socket error`), with counts. */
  failures: Record<string, number>;
  /** Mean answer size in bytes, where the load generator reports it. */
  bytes?: number;
}

export interface MeasuredRun extends LoadRun {
  cpu: CpuSpent;
}

export interface Summary {
  rounds: number;
  requests: number;
  seconds: number;
  reqPerSec: number;
  p50Ms: number;
  p90Ms: number;
  p99Ms: number;
  /** CPU µs per answer, per process label (`gateway`, `v1`, `loadgen`, ...). */
  cpuUsPerReq: Record<string, number>;
  /** Cores each process kept busy over the measured time. */
  cores: Record<string, number>;
  failures: Record<string, number>;
  /** req/s of each round, in order, to show how much the figure moved. */
  roundReqPerSec: number[];
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank]!;
}

export function failureCount(failures: Record<string, number>): number {
  return Object.values(failures).reduce((a, b) => a + b, 0);
}

export function mergeFailures(into: Record<string, number>, from: Record<string, number>): Record<string, number> {
  for (const [kind, n] of Object.entries(from)) into[kind] = (into[kind] ?? 0) + n;
  return into;
}

export function summarize(runs: MeasuredRun[]): Summary {
  const requests = runs.reduce((a, r) => a + r.requests, 0);
  const seconds = runs.reduce((a, r) => a + r.seconds, 0);
  const sorted = Float64Array.from(runs.flatMap((r) => r.samples)).sort();
  // Without samples (wrk), a round's percentiles are pooled as their mean weighted by the round's answers.
  const pooled = (key: 'p50Ms' | 'p90Ms' | 'p99Ms', p: number) =>
    sorted.length > 0 ? percentile(sorted, p) : runs.reduce((a, r) => a + (r.percentiles?.[key] ?? Number.NaN) * r.requests, 0) / requests;
  const cpuUsPerReq: Record<string, number> = {};
  const cores: Record<string, number> = {};
  const wall = runs.reduce((a, r) => a + r.cpu.wall, 0);
  for (const label of Object.keys(runs[0]?.cpu.seconds ?? {})) {
    const cpu = runs.reduce((a, r) => a + r.cpu.seconds[label]!, 0);
    cpuUsPerReq[label] = (cpu * 1e6) / requests;
    cores[label] = cpu / wall;
  }
  const failures: Record<string, number> = {};
  for (const r of runs) mergeFailures(failures, r.failures);
  return {
    rounds: runs.length,
    requests,
    seconds,
    reqPerSec: requests / seconds,
    p50Ms: pooled('p50Ms', 50),
    p90Ms: pooled('p90Ms', 90),
    p99Ms: pooled('p99Ms', 99),
    cpuUsPerReq,
    cores,
    failures,
    roundReqPerSec: runs.map((r) => r.requests / r.seconds),
  };
}
