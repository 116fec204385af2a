/**
 * A second v2 target, asked the same request as the primary: over REST (the
 * method's google.api.http rule) or gRPC (a client made from the contract's
 * descriptors). Whatever happens becomes an Outcome; nothing here throws.
 */
import type { DescMethod } from '@bufbuild/protobuf';
import type { Json } from '../engine/shape.ts';
import type { Outcome } from './outcome.ts';

export interface Candidate {
  /** Where it is, for the report (never with credentials). */
  readonly url: string;
  ask(method: DescMethod, request: Json, authorization: string, signal: AbortSignal): Promise<Outcome>;
  close(): Promise<void>;
}

export type CandidateProtocol = 'rest' | 'grpc';

export async function candidate(url: string, protocol: CandidateProtocol): Promise<Candidate> {
  if (protocol === 'grpc') return new (await import('./candidate-grpc.ts')).GrpcCandidate(url);
  return new (await import('./candidate-rest.ts')).RestCandidate(url);
}

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
