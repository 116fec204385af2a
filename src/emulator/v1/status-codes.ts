/**
 * The gRPC status codes v1 answers with, and the HTTP status grpc-gateway writes for each
 * (api-surface.md §0.6). The emulator keeps its own, as it speaks grpc-gateway's conventions on the
 * wire the way v1 does, not the gateway's way.
 */
export const Code = {
  OK: 0,
  CANCELLED: 1,
  UNKNOWN: 2,
  INVALID_ARGUMENT: 3,
  DEADLINE_EXCEEDED: 4,
  NOT_FOUND: 5,
  ALREADY_EXISTS: 6,
  PERMISSION_DENIED: 7,
  RESOURCE_EXHAUSTED: 8,
  FAILED_PRECONDITION: 9,
  ABORTED: 10,
  OUT_OF_RANGE: 11,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: 14,
  DATA_LOSS: 15,
  UNAUTHENTICATED: 16,
} as const;

export type CodeNumber = (typeof Code)[keyof typeof Code];

/** grpc-gateway's HTTP status for a code; anything it does not name is a 500. */
export function httpStatusFor(code: CodeNumber): number {
  switch (code) {
    case Code.OK: return 200;
    case Code.INVALID_ARGUMENT:
    case Code.FAILED_PRECONDITION:
    case Code.OUT_OF_RANGE: return 400;
    case Code.UNAUTHENTICATED: return 401;
    case Code.PERMISSION_DENIED: return 403;
    case Code.NOT_FOUND: return 404;
    case Code.ALREADY_EXISTS:
    case Code.ABORTED: return 409;
    case Code.RESOURCE_EXHAUSTED: return 429;
    case Code.CANCELLED: return 499;
    case Code.UNIMPLEMENTED: return 501;
    case Code.UNAVAILABLE: return 503;
    case Code.DEADLINE_EXCEEDED: return 504;
    default: return 500;
  }
}
