/**
 * A second v2 target, asked the same request as the primary: over REST (the
 * method's google.api.http rule) or gRPC (a client made from the contract's
 * descriptors). Whatever happens becomes an Outcome; nothing here throws.
 * The two clients live in files of their own (open-candidate.ts picks one).
 */
import { randomUUID } from 'node:crypto';
import type { DescMethod } from '@bufbuild/protobuf';
import type { Json } from '../vocabulary/json.ts';
import { Code } from '../rpc-status.ts';
import type { Outcome } from './outcome.ts';

export interface Candidate {
  /** Where it is, for the report (never with credentials). */
  readonly url: string;
  /**
   * `primaryBytes`: the primary's answer as the caller got it, where known; a candidate that can see its
   * answer's bytes answers SAME_AS_PRIMARY (outcome.ts) for those very bytes instead of reading them.
   */
  ask(method: DescMethod, request: Json, authorization: string, signal: AbortSignal, primaryBytes?: Uint8Array): Promise<Outcome>;
  close(): Promise<void>;
}

export type CandidateProtocol = 'rest' | 'grpc';

/**
 * The start of the request id every call the comparison makes carries (a
 * shadowed call, a replay): a gateway that is itself comparing or capturing
 * neither captures nor compares it again.
 */
export const COMPARISON_REQUEST_ID = 'v2gw-compare-';

export function comparisonRequestId(): string {
  return COMPARISON_REQUEST_ID + randomUUID();
}

/** Codes that say the target did not answer the call at all (it was away, too busy or too slow). */
export const UNANSWERED: ReadonlySet<number> = new Set([Code.UNAVAILABLE, Code.DEADLINE_EXCEEDED, Code.CANCELLED]);

/** A URL fit for a report or a log: any user and password left out. */
export function safeUrl(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.username = '';
    parsed.password = '';
    return parsed.toString().replace(/\/$/, '');
  } catch {
    return '(invalid URL)';
  }
}
