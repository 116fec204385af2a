/**
 * `grpc-timeout`, as the gRPC spec writes it: at most 8 digits and a unit
 * (Hours, Minutes, Seconds, milliseconds, microseconds, nanoseconds). Read by
 * both gRPC readers (unary-server.ts, and adapter.ts ahead of ConnectRPC).
 */
const UNIT_MS: Record<string, number> = { H: 3_600_000, M: 60_000, S: 1_000, m: 1, u: 1e-3, n: 1e-6 };

/** The timeout in ms; null when malformed. */
export function grpcTimeoutMs(value: string): number | null {
  const match = /^(\d{1,8})([HMSmun])$/.exec(value);
  return match ? Number(match[1]) * UNIT_MS[match[2]!]! : null;
}
