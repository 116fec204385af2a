/**
 * The four classes a difference falls in, most severe first: a rollout gate
 * reads `access` and `dataLoss` as blockers and `cosmetic` as noise a person
 * may accept.
 */
export const CLASSES = ['access', 'dataLoss', 'value', 'cosmetic'] as const;

export type DiffClass = (typeof CLASSES)[number];

/** One field (or row, or status) that differs, by its path in the message's JSON names. */
export interface FieldDifference {
  readonly path: string;
  readonly class: DiffClass;
  /** Three targets compared: the one that disagrees with the other two, or none when all three differ. */
  readonly odd?: Odd;
}

export type Odd = 'a' | 'b' | 'c' | 'none';

/** The most severe class among some differences; undefined when there are none. */
export function worstClass(differences: readonly FieldDifference[]): DiffClass | undefined {
  let worst: number | undefined;
  for (const d of differences) {
    const rank = CLASSES.indexOf(d.class);
    if (worst === undefined || rank < worst) worst = rank;
  }
  return worst === undefined ? undefined : CLASSES[worst];
}
