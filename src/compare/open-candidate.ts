/** A candidate client for the protocol asked for, each loaded only when used (gRPC's brings the Connect Node adapter). */
import type { Candidate, CandidateProtocol } from './candidate.ts';

export async function openCandidate(url: string, protocol: CandidateProtocol): Promise<Candidate> {
  if (protocol === 'grpc') return new (await import('./candidate-grpc.ts')).GrpcCandidate(url);
  return new (await import('./candidate-rest.ts')).RestCandidate(url);
}
