/**
 * What the counts prove. A mismatch rate alone says little (two equal samples
 * are no evidence), so the verdict carries the Wilson score interval's 95 %
 * bounds and how many more samples, at the rate seen so far, would settle
 * whether the true rate is under the target.
 *
 * Comparisons a stop of the comparison's worker thread took are no evidence
 * either way, and those it had under way may be the very calls that stopped it
 * (an answer it could not hold), so they are not left out as a random loss
 * would be: a pass must hold with each of them counted as a mismatch, and a
 * method whose chosen calls were all lost so is undecided, not "not compared".
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

/** `not compared`: nothing was (writes skipped, the candidate never answered, none lost to a worker stop): no evidence either way. */
export type Decision = 'pass' | 'fail' | 'undecided' | 'not compared';

/** Decisions from best to worst, for a gate (`--fail-on`) and the page's order. */
export const DECISIONS: readonly Decision[] = ['pass', 'not compared', 'undecided', 'fail'];

export interface Verdict {
  readonly mismatchRate: number;
  /** Each comparison a worker stop took under way counted as a mismatch. */
  readonly upperBound95: number;
  readonly lowerBound95: number;
  /** More samples needed, at the rate seen, for the bound to settle against the target; 0 once settled; null when no number will. */
  readonly samplesNeeded: number | null;
  readonly targetRate: number;
  /** pass: the upper bound is under the target; fail: the lower bound is over it; not compared: no comparison. */
  readonly decision: Decision;
}

/** The comparisons of a method a stop of the comparison's worker thread took (tally.ts's `workerStop`). */
export interface LostToStops {
  /** Under way when it stopped (counted under errors). */
  readonly underWay: number;
  /** Offered while none ran (counted under dropped). */
  readonly offered: number;
}

const NONE_LOST: LostToStops = { underWay: 0, offered: 0 };

const MAX_SAMPLES = 1e9;

export function verdict(mismatches: number, compared: number, targetRate: number, lost: LostToStops = NONE_LOST): Verdict {
  const rate = compared > 0 ? mismatches / compared : 0;
  const { lower } = wilson(mismatches, compared);
  const { upper } = wilson(mismatches + lost.underWay, compared + lost.underWay);
  const decision: Decision = compared === 0 && lost.underWay + lost.offered === 0 ? 'not compared'
    : compared > 0 && upper <= targetRate ? 'pass' : lower > targetRate ? 'fail' : 'undecided';
  return {
    mismatchRate: round(rate),
    upperBound95: round(upper),
    lowerBound95: round(lower),
    samplesNeeded: decision === 'undecided' ? samplesNeeded(rate, compared, targetRate, lost.underWay) : decision === 'not compared' ? null : 0,
    targetRate,
    decision,
  };
}

/**
 * The fewest further samples, all at the observed rate, after which the interval no longer straddles the
 * target, the comparisons lost under way counted as mismatches in its upper bound.
 */
function samplesNeeded(rate: number, compared: number, target: number, lostUnderWay: number): number | null {
  const settled = (n: number) => {
    const { lower } = wilson(rate * n, n);
    const { upper } = wilson(rate * n + lostUnderWay, n + lostUnderWay);
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
