/**
 * What the counts prove. A mismatch rate alone says little (two equal samples
 * are no evidence), so the verdict carries the Wilson score interval's 95 %
 * bounds and how many more samples, at the rate seen so far, would settle
 * whether the true rate is under the target.
 *
 * A chosen call that was sent and never answered (the candidate refused the
 * connection, timed out, reset it; or a stop of the comparison's worker thread
 * took it under way) is no evidence either way, and it is not a random loss:
 * the calls a candidate cannot answer, or those that stopped the worker (an
 * answer it could not hold), may be the very ones it gets wrong. So a pass
 * must hold with each of them counted as a mismatch, and a method whose
 * chosen calls were all lost so is undecided, not "not compared". A full
 * queue's drops and skipped writes are left out: chance, or never chosen.
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

/** `not compared`: no chosen call was sent (writes skipped, requests refused, a full queue's drops alone), and none was lost to a worker stop: no evidence either way. */
export type Decision = 'pass' | 'fail' | 'undecided' | 'not compared';

/** Decisions from best to worst, for a gate (`--fail-on`) and the page's order. */
export const DECISIONS: readonly Decision[] = ['pass', 'not compared', 'undecided', 'fail'];

export interface Verdict {
  readonly mismatchRate: number;
  /** Each call sent and not answered (`Unanswered`'s candidate and underWay) counted as a mismatch. */
  readonly upperBound95: number;
  readonly lowerBound95: number;
  /** More samples needed, at the rate seen, for the bound to settle against the target; 0 once settled; null when no number will. */
  readonly samplesNeeded: number | null;
  readonly targetRate: number;
  /** pass: the upper bound is under the target; fail: the lower bound is over it; not compared: no call sent. */
  readonly decision: Decision;
}

/** A method's chosen calls that were never compared for want of an answer (tally.ts's `errors` and `workerStop`). */
export interface Unanswered {
  /** Sent and not answered, a worker stop aside (errors less workerStop.errors): a rate, which more samples would keep. */
  readonly candidate: number;
  /** Under way when the comparison's worker thread stopped (workerStop.errors, counted under errors): a one-off loss. */
  readonly underWay: number;
  /** Offered while no worker thread ran (workerStop.dropped, counted under dropped): never sent, so never a mismatch. */
  readonly offered: number;
}

const NONE: Unanswered = { candidate: 0, underWay: 0, offered: 0 };

const MAX_SAMPLES = 1e9;

export function verdict(mismatches: number, compared: number, targetRate: number, unanswered: Unanswered = NONE): Verdict {
  const rate = compared > 0 ? mismatches / compared : 0;
  const sentUnanswered = unanswered.candidate + unanswered.underWay;
  const { lower } = wilson(mismatches, compared);
  const { upper } = wilson(mismatches + sentUnanswered, compared + sentUnanswered);
  const decision: Decision = compared === 0 && sentUnanswered + unanswered.offered === 0 ? 'not compared'
    : compared > 0 && upper <= targetRate ? 'pass' : lower > targetRate ? 'fail' : 'undecided';
  return {
    mismatchRate: round(rate),
    upperBound95: round(upper),
    lowerBound95: round(lower),
    samplesNeeded: decision === 'undecided' ? samplesNeeded(rate, compared, targetRate, unanswered) : decision === 'not compared' ? null : 0,
    targetRate,
    decision,
  };
}

/**
 * The fewest further compared samples, all at the observed rate, after which the interval no longer
 * straddles the target, the unanswered calls counted as mismatches in its upper bound: the candidate's
 * growing with the samples at the rate seen (none answered yet: no number will do), a stop's staying as
 * they are.
 */
function samplesNeeded(rate: number, compared: number, target: number, unanswered: Unanswered): number | null {
  if (compared === 0 && unanswered.candidate > 0) return null;
  const unansweredPerCompared = compared > 0 ? unanswered.candidate / compared : 0;
  const settled = (n: number) => {
    const { lower } = wilson(rate * n, n);
    const lost = unansweredPerCompared * n + unanswered.underWay;
    const { upper } = wilson(rate * n + lost, n + lost);
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
