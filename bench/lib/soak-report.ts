/**
 * What `npm run bench:soak` says of the gateway's resident memory: the samples, where it ended, how
 * much it moved over the last minute (flat, or not), and what each resource kept in the store costs.
 * Pure: the soak (bench/soak.ts) takes the samples and counts.
 */
import { MIB } from './memory.ts';

export interface Sample {
  /** Seconds since the load began. */
  atSeconds: number;
  rssBytes: number;
  /** V8's heap as the gateway's own /metrics tells it (NaN where it did not answer): committed, and live at the last collection or since. */
  heapTotalBytes: number;
  heapUsedBytes: number;
  externalBytes: number;
}

/** A gauge's value in Prometheus text (NaN when absent). */
export function gauge(metrics: string, name: string): number {
  const line = new RegExp(`^${name} (\\S+)$`, 'm').exec(metrics);
  return line ? Number(line[1]) : Number.NaN;
}

/** The soak's goals (bench/README.md, Memory under churn). */
export const SOAK_GOALS = { endMib: 200, lastMinuteGrowthMib: 5 } as const;

export interface SoakVerdict {
  endMib: number;
  /** RSS at the end less the least RSS sampled in the last `windowSeconds` (0 when there is no such sample). */
  lastWindowGrowthMib: number;
  windowSeconds: number;
  endMet: boolean;
  flat: boolean;
}

/**
 * The end RSS and its growth over the last minute (the last sample less the least one of the window:
 * a heap that collected and grew back within it is still flat; one that keeps climbing is not).
 */
export function soakVerdict(samples: readonly Sample[], windowSeconds = 60): SoakVerdict {
  if (samples.length === 0) throw new Error('a soak with no memory sample');
  const last = samples[samples.length - 1]!;
  const window = samples.filter((sample) => sample.atSeconds >= last.atSeconds - windowSeconds);
  const least = Math.min(...window.map((sample) => sample.rssBytes));
  const endMib = last.rssBytes / MIB;
  const lastWindowGrowthMib = (last.rssBytes - least) / MIB;
  return { endMib, lastWindowGrowthMib, windowSeconds, endMet: endMib <= SOAK_GOALS.endMib, flat: lastWindowGrowthMib <= SOAK_GOALS.lastMinuteGrowthMib };
}

/** Bytes of RSS per resource kept: the growth from `before` to `after` over the resources added between them. */
export function bytesPerResource(beforeBytes: number, afterBytes: number, added: number): number {
  if (added <= 0) throw new Error('no resource was added');
  return (afterBytes - beforeBytes) / added;
}

/** The samples as a markdown table, one row each. */
export function samplesTable(samples: readonly Sample[]): string {
  const mib = (bytes: number) => (Number.isNaN(bytes) ? '' : (bytes / MIB).toFixed(1));
  const rows = samples.map((sample) => `| ${sample.atSeconds} | ${mib(sample.rssBytes)} | ${mib(sample.heapTotalBytes)} | ${mib(sample.heapUsedBytes)} | ${mib(sample.externalBytes)} |`);
  return ['| seconds | gateway RSS (MiB) | V8 heap committed | V8 heap used | external (buffers) |', '|--:|--:|--:|--:|--:|', ...rows].join('\n');
}
