/**
 * What one target answered to one call, in the form the comparison reads: the
 * response message in its JSON form, an error by the parts that carry meaning
 * (code, ErrorInfo reason, the detail types), or no answer at all (the target
 * was unreachable, too slow, or answered something that is not the contract).
 */
import type { Json } from '../vocabulary/json.ts';
import { Code } from '../rpc-status.ts';

export type Outcome =
  | { readonly kind: 'answer'; readonly message: Json }
  | { readonly kind: 'error'; readonly code: number; readonly reason: string; readonly detailTypes: readonly string[] }
  | { readonly kind: 'unanswered'; readonly why: string };

/**
 * A candidate's answer of the very bytes the primary's answer was sent in (the candidate was given them:
 * candidate-rest.ts): equal to the primary's, and never parsed. Only ever compared by identity.
 */
export const SAME_AS_PRIMARY: Outcome = Object.freeze({ kind: 'answer', message: Object.freeze({}) });

const TYPE_URL = /^.*\//;

/** A detail's type by its message name (`google.rpc.BadRequest`), whatever host its type URL names. */
export function detailTypeName(typeUrl: string): string {
  return typeUrl.replace(TYPE_URL, '');
}

/**
 * An AIP-193 error body (`{code, message, details}`) as an outcome: the
 * ErrorInfo's reason and the detail types; the message text is left behind.
 */
export function errorOutcome(code: number, details: readonly unknown[]): Outcome {
  let reason = '';
  const types = new Set<string>();
  for (const detail of details) {
    if (!detail || typeof detail !== 'object') continue;
    const type = detailTypeName(String((detail as Json)['@type'] ?? ''));
    if (!type) continue;
    types.add(type);
    if (type === 'google.rpc.ErrorInfo') reason = String((detail as Json).reason ?? '');
  }
  return { kind: 'error', code, reason, detailTypes: [...types].sort() };
}

/**
 * The primary refused the request as malformed: it is nothing a candidate
 * should be sent (it might read it otherwise, a path that climbs out of its
 * route for one), and there is no answer to compare it with.
 */
export function refusedAsMalformed(primary: Outcome): boolean {
  return primary.kind === 'error' && primary.code === Code.INVALID_ARGUMENT;
}
