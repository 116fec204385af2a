/**
 * gRPC load, which autocannon cannot make: `callers` concurrent loops, each
 * making one unary call at a time on its own client (one HTTP/2 session; with
 * fewer clients than callers, callers share sessions round-robin and their
 * calls are multiplexed). Like autocannon's connections, a caller sends its
 * next call as soon as the previous answer is in, until the duration is up;
 * calls in flight then finish and are counted, and the run's time spans them.
 */
import type { UnaryClient } from './grpc-clients.ts';
import { GrpcCallError } from './grpc-clients.ts';
import { MAX_SAMPLES, type LoadRun } from './stats.ts';

export async function grpcLoad(clients: readonly UnaryClient[], callers: number, seconds: number): Promise<LoadRun> {
  const samples: number[] = [];
  const failures: Record<string, number> = {};
  let requests = 0;
  const start = performance.now();
  const end = start + seconds * 1000;
  let last = start;

  async function caller(client: UnaryClient): Promise<void> {
    while (performance.now() < end) {
      const sent = performance.now();
      try {
        await client.call();
      } catch (error) {
        const kind = error instanceof GrpcCallError ? `gRPC ${error.status}` : `client error: ${(error as Error).message}`;
        failures[kind] = (failures[kind] ?? 0) + 1;
      }
      last = performance.now();
      requests++;
      if (samples.length < MAX_SAMPLES) samples.push(last - sent);
    }
  }

  await Promise.all(Array.from({ length: callers }, (_, i) => caller(clients[i % clients.length]!)));
  return { requests, seconds: (last - start) / 1000, samples, failures };
}
