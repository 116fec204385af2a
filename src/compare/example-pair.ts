/**
 * One pair of values that differed at a field path, taken from a kept sample
 * (already redacted as samples are): what a person reads beside the path to
 * see what the difference is, not only where. Rows of a list are matched by
 * `uid` when they have one, else by position; the values are shown as JSON
 * text, cut short.
 */
import { isObject } from '../vocabulary/json.ts';
import { equalJson } from './message-diff.ts';
import type { Outcome } from './outcome.ts';

export interface ExamplePair {
  /** The primary's value (a replay: target a's). */
  readonly primary: string;
  /** The candidate's value (a three-way replay: the odd target's, else b's). */
  readonly candidate: string;
}

const LONGEST = 300;
const ABSENT = '(absent)';

interface KeptSample {
  differences?: { path: string; class?: string; odd?: string }[];
  primary?: Outcome;
  candidate?: Outcome;
  a?: Outcome;
  b?: Outcome;
  c?: Outcome;
}

/** The newest kept pair that differed at `path` (in class `cls`, when given). */
export function examplePair(samples: readonly unknown[], path: string, cls?: string): ExamplePair | undefined {
  for (let i = samples.length - 1; i >= 0; i--) {
    const sample = samples[i] as KeptSample;
    const difference = sample.differences?.find((d) => d.path === path && (cls === undefined || d.class === cls));
    if (!difference) continue;
    const left = sample.primary ?? sample.a;
    const right = sample.candidate ?? (difference.odd === 'c' ? sample.c : sample.b);
    if (!left || !right) continue;
    const pair = left.kind === 'answer' && right.kind === 'answer' && !path.startsWith('(')
      ? valuesAt(left.message, right.message, path.split('.'))
      : { primary: status(left), candidate: status(right) };
    if (pair) return { primary: text(pair.primary), candidate: text(pair.candidate) };
  }
  return undefined;
}

type Pair = { primary: unknown; candidate: unknown };

function valuesAt(a: unknown, b: unknown, segments: readonly string[]): Pair | undefined {
  const [segment, ...rest] = segments;
  if (segment === undefined) return equalJson(a, b) ? undefined : { primary: a ?? ABSENT, candidate: b ?? ABSENT };
  const many = /(\[\]|\{\})$/.exec(segment);
  const name = many ? segment.slice(0, -2) : segment;
  const va = isObject(a) ? a[name] : undefined;
  const vb = isObject(b) ? b[name] : undefined;
  if (!many) return valuesAt(va, vb, rest);
  const left = entries(va);
  const right = entries(vb);
  for (const [key, value] of left) {
    const found = valuesAt(value, right.get(key), rest);
    if (found) return found;
  }
  for (const [key, value] of right) if (!left.has(key)) return valuesAt(undefined, value, rest);
  return undefined;
}

/** A list's rows by uid (or position), a map's entries by key. */
function entries(value: unknown): Map<string, unknown> {
  if (Array.isArray(value)) return new Map(value.map((row, i) => [isObject(row) && typeof row.uid === 'string' ? row.uid : String(i), row]));
  return isObject(value) ? new Map(Object.entries(value)) : new Map();
}

function status(outcome: Outcome): string {
  if (outcome.kind === 'answer') return 'an answer';
  if (outcome.kind === 'error') return `error ${outcome.code}${outcome.reason ? ` ${outcome.reason}` : ''}`;
  return 'no answer';
}

function text(value: unknown): string {
  const json = typeof value === 'string' ? value : JSON.stringify(value) ?? ABSENT;
  return json.length > LONGEST ? `${json.slice(0, LONGEST)}…` : json;
}
