/**
 * Instruction counts of two builds of the gateway read against each other (`npm run bench:instructions
 * -- --before <commit>`). One count of each build cannot tell a change of a couple of %: between runs a
 * server's warm-up (which of its functions V8 has optimised when counting starts) moves a count by
 * 2–3%, while counts made alternately in one run land within ~1% of each other. So each build is
 * counted several times, in alternating order, and the change is read from the medians beside each
 * build's own spread. Pure.
 */

/** The order the builds are counted in: pairs, each the other way round from the one before (A B, B A, A B, …). */
export function countingOrder<T>(before: T, now: T, repeat: number): T[] {
  const order: T[] = [];
  for (let r = 0; r < repeat; r++) order.push(...(r % 2 === 0 ? [before, now] : [now, before]));
  return order;
}

export interface CountSummary {
  /** Instructions per answer, in the order counted. */
  counts: readonly number[];
  median: number;
  min: number;
  max: number;
}

export function summarise(counts: readonly number[]): CountSummary {
  if (counts.length === 0) throw new Error('no counts to summarise');
  const sorted = [...counts].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  const median = sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
  return { counts: [...counts], median, min: sorted[0]!, max: sorted.at(-1)! };
}

export interface CountChange {
  /** The median's change from `before` to `now`, as a fraction of before's (−0.019: 1.9% fewer). */
  change: number;
  /** Whether every count of one build is below every count of the other: a change the spread does not cover. */
  apart: boolean;
}

export function compareCounts(before: CountSummary, now: CountSummary): CountChange {
  return { change: (now.median - before.median) / before.median, apart: now.max < before.min || now.min > before.max };
}

/** A count as the tables print it: thousands with one decimal (468.4K). */
export function thousands(count: number): string {
  return `${(count / 1000).toFixed(1)}K`;
}

/** One table row: the gateway, each build's counts and median, and the change. */
export function comparisonRow(label: string, before: CountSummary, now: CountSummary): string {
  const { change, apart } = compareCounts(before, now);
  const each = (s: CountSummary) => `${thousands(s.median)} (${s.counts.map(thousands).join(', ')})`;
  const sign = change > 0 ? '+' : change < 0 ? '−' : '±';
  // One count of a build has no spread to weigh the change against.
  const verdict = before.counts.length < 2 || now.counts.length < 2 ? 'one count: no spread' : apart ? 'apart' : 'within the spread';
  return `| ${label} | ${each(before)} | ${each(now)} | ${sign}${Math.abs(change * 100).toFixed(1)}% | ${verdict} |`;
}
