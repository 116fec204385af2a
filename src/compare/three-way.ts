/**
 * Three answers to one call: every path that differs between any two, with
 * the target that disagrees with the other two (`odd`), so a difference is
 * pinned on the translator, the native store or the reference.
 */
import type { DescMessage } from '@bufbuild/protobuf';
import { worstClass, type FieldDifference, type Odd } from './classes.ts';
import { compareOutcomes } from './compare-outcomes.ts';
import type { DiffOptions } from './message-diff.ts';
import type { Outcome } from './outcome.ts';

export function compareThree(output: DescMessage, [a, b, c]: readonly [Outcome, Outcome, Outcome], options: DiffOptions): FieldDifference[] {
  const pairs = {
    ab: compareOutcomes(output, a, b, options),
    ac: compareOutcomes(output, a, c, options),
    bc: compareOutcomes(output, b, c, options),
  };
  const byPath = new Map<string, { ab?: FieldDifference; ac?: FieldDifference; bc?: FieldDifference }>();
  for (const [pair, differences] of Object.entries(pairs) as [keyof typeof pairs, FieldDifference[]][]) {
    for (const d of differences) byPath.set(d.path, { ...byPath.get(d.path), [pair]: d });
  }
  return [...byPath].map(([path, found]) => {
    const odd: Odd = found.ab && found.ac && !found.bc ? 'a' : found.ab && found.bc && !found.ac ? 'b' : found.ac && found.bc && !found.ab ? 'c' : 'none';
    const cls = worstClass([found.ab, found.ac, found.bc].filter((d): d is FieldDifference => d !== undefined))!;
    return { path, class: cls, odd };
  });
}
