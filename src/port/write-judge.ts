/**
 * A judgement a write must pass, made by the backend inside the store
 * transaction that writes, on the documents exactly as it will store them and
 * before it stores any (policy/no-escalation.ts: no one grants more than it
 * holds). A read the judge makes through the store joins that transaction
 * (store/kysely-store.ts), so what was judged is what is written: nothing
 * another request or replica commits can fall between the two.
 */
import type { Json } from '../vocabulary/json.ts';
import type { ResourceMapping } from '../vocabulary/resource.ts';

export interface JudgedWrite {
  readonly mapping: ResourceMapping;
  /** The group the documents sit in: a create's parent, an updated resource's. */
  readonly group: string;
  /** Each document as the write will store it (a batch's, in request order). */
  readonly documents: readonly Json[];
  /** An update's mask paths; absent for a create. */
  readonly paths?: readonly string[];
}

/** Resolves when the write may go on; rejects with the refusal otherwise, and nothing is written. */
export type WriteJudge = (write: JudgedWrite) => Promise<void>;

/**
 * For a port whose writes happen in a system the gateway holds no transaction in (translate mode's v1,
 * which judges its own writes): a write handed a judge is refused rather than written unjudged.
 */
export function refuseJudged(judge: WriteJudge | undefined, port: string): void {
  if (judge) throw new Error(`${port} cannot judge a write inside its own transaction; a write that must be judged is not made here`);
}
