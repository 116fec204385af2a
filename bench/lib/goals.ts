/**
 * Issue 12's targets, each checked against a figure of the run: one line of
 * the table `npm run bench` prints (figure, value, anchor in the same run,
 * ratio, target, met). Pure: numbers in, rows out.
 */
import { fmt, markdownTable } from './table.ts';

export interface Goal {
  figure: string;
  value: string;
  /** What the value is read against in the same run (the floor's figure), or empty. */
  anchor: string;
  ratio: string;
  target: string;
  /** undefined: reported, no target (or not measured). */
  met: boolean | undefined;
}

const MIB = 1024 * 1024;
const mib = (bytes: number) => `${fmt(bytes / MIB, 0)} MB`;
const x = (r: number) => `${fmt(r, 2)}x`;
const finite = (...values: number[]) => values.every(Number.isFinite);

/** `value` of something where more is better, at least `min` times `anchor`. */
export function atLeastTimes(figure: string, value: number, anchor: number, min: number, unit: (n: number) => string, anchorName: string): Goal {
  const r = value / anchor;
  return { figure, value: unit(value), anchor: `${anchorName} ${unit(anchor)}`, ratio: x(r), target: `≥ ${min}x`, met: finite(r) ? r >= min : undefined };
}

/** `value` of a cost, at most `max` times `anchor`. */
export function atMostTimes(figure: string, value: number, anchor: number, max: number, unit: (n: number) => string, anchorName: string): Goal {
  const r = value / anchor;
  return { figure, value: unit(value), anchor: `${anchorName} ${unit(anchor)}`, ratio: x(r), target: `≤ ${max}x`, met: finite(r) ? r <= max : undefined };
}

/** `value` at most `max`, in absolute terms. */
export function atMost(figure: string, value: number, max: number, unit: (n: number) => string, anchor = ''): Goal {
  return { figure, value: unit(value), anchor, ratio: '', target: `≤ ${unit(max)}`, met: finite(value) ? value <= max : undefined };
}

export function reported(figure: string, value: string, anchor = '', ratio = ''): Goal {
  return { figure, value, anchor, ratio, target: '', met: undefined };
}

export const units = {
  reqPerSec: (n: number) => `${fmt(n, 0)} req/s`,
  us: (n: number) => `${fmt(n, 0)} µs`,
  mib,
  count: (n: number) => fmt(n, 0),
  times: x,
};

/** Peak RSS no higher than the floor's under the same load. */
export function peakAtMostFloor(figure: string, peak: number, floorPeak: number, floorLabel = 'floor'): Goal {
  return { figure, value: mib(peak), anchor: `${floorLabel} ${mib(floorPeak)}`, ratio: x(peak / floorPeak), target: '≤ floor', met: finite(peak, floorPeak) ? peak <= floorPeak : undefined };
}

export function goalsTable(goals: Goal[]): string {
  const verdict = (met: boolean | undefined) => (met === undefined ? '' : met ? 'met' : 'NOT met');
  return markdownTable(
    ['figure', 'measured', 'anchor (same run)', 'ratio', 'target', 'met'],
    goals.map((g) => [g.figure, g.value, g.anchor, g.ratio, g.target, verdict(g.met)]),
    1,
  );
}
