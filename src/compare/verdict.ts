/**
 * What the counts prove. A mismatch rate alone says little (two equal samples
 * are no evidence), so the verdict carries the Wilson score interval's 95 %
 * bounds and how many more samples, at the rate seen so far, would settle
 * whether the true rate is under the target.
 */
const Z = 1.959964;

/** The Wilson score interval of `k` successes in `n` trials at 95 %; [0, 1] with no trials. */
export function wilson(k: number, n: number): { lower: number; upper: number } {
  if (n <= 0) return { lower: 0, upper: 1 };
  const p = k / n;
  const z2 = Z * Z;
  const centre = p + z2 / (2 * n);
  const spread = Z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n));
  const denominator = 1 + z2 / n;
  return { lower: Math.max(0, (centre - spread) / denominator), upper: Math.min(1, (centre + spread) / denominator) };
}

/** `not compared`: nothing was (writes skipped, the candidate never answered): no evidence either way. */
export type Decision = 'pass' | 'fail' | 'undecided' | 'not compared';

/** Decisions from best to worst, for a gate (`--fail-on`) and the page's order. */
export const DECISIONS: readonly Decision[] = ['pass', 'not compared', 'undecided', 'fail'];

export interface Verdict {
  readonly mismatchRate: number;
  readonly upperBound95: number;
  readonly lowerBound95: number;
  /** More samples needed, at the rate seen, for the bound to settle against the target; 0 once settled; null when no number will. */
  readonly samplesNeeded: number | null;
  readonly targetRate: number;
  /** pass: the upper bound is under the target; fail: the lower bound is over it; not compared: no comparison. */
  readonly decision: Decision;
}

const MAX_SAMPLES = 1e9;

export function verdict(mismatches: number, compared: number, targetRate: number): Verdict {
  const rate = compared > 0 ? mismatches / compared : 0;
  const { lower, upper } = wilson(mismatches, compared);
  const decision: Decision = compared === 0 ? 'not compared' : upper <= targetRate ? 'pass' : lower > targetRate ? 'fail' : 'undecided';
  return {
    mismatchRate: round(rate),
    upperBound95: round(upper),
    lowerBound95: round(lower),
    samplesNeeded: decision === 'undecided' ? samplesNeeded(rate, compared, targetRate) : decision === 'not compared' ? null : 0,
    targetRate,
    decision,
  };
}

/** The fewest further samples, all at the observed rate, after which the interval no longer straddles the target. */
function samplesNeeded(rate: number, compared: number, target: number): number | null {
  const settled = (n: number) => {
    const { lower, upper } = wilson(rate * n, n);
    return upper <= target || lower > target;
  };
  let high = Math.max(1, compared);
  while (!settled(high)) {
    high *= 2;
    if (high > MAX_SAMPLES) return null;
  }
  let low = compared;
  while (high - low > 1) {
    const mid = Math.floor((low + high) / 2);
    if (settled(mid)) high = mid;
    else low = mid;
  }
  return high - compared;
}

function round(value: number): number {
  return Math.round(value * 1e4) / 1e4;
}
