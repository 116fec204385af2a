/**
 * gRPC status codes and the HTTP status grpc-gateway pairs with each
 * (chainguard-dev/sdk: proto/google/rpc/status.proto, as grpc-gateway writes it), as the gateway speaks them on the wire. (The v1
 * emulator keeps its own: it shares no code with the gateway.)
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

export type CodeName = keyof typeof Code;
export type CodeNumber = (typeof Code)[CodeName];

const NAMES = Object.fromEntries(Object.entries(Code).map(([name, code]) => [code, name])) as Record<number, CodeName>;

const HTTP_STATUS: Record<CodeNumber, number> = {
  0: 200,
  1: 499,
  2: 500,
  3: 400,
  4: 504,
  5: 404,
  6: 409,
  7: 403,
  8: 429,
  9: 400,
  10: 409,
  11: 400,
  12: 501,
  13: 500,
  14: 503,
  15: 500,
  16: 401,
};

export function isCode(value: unknown): value is CodeNumber {
  return typeof value === 'number' && Number.isInteger(value) && value in NAMES;
}

export function codeName(code: CodeNumber): CodeName {
  return NAMES[code] ?? 'UNKNOWN';
}

export function httpStatusFor(code: CodeNumber): number {
  return HTTP_STATUS[code] ?? 500;
}

/**
 * The code grpc-gateway would report for an HTTP status that carried no readable body. Beyond its own
 * pairs, the statuses a server or proxy in front of it answers by itself: a request too large for it
 * (413, 414, 431: a URL carrying a long filter) is the caller's input, a timeout its deadline, and a
 * proxy's 502 (no answer from behind it) UNAVAILABLE, as gRPC maps it.
 */
export function codeForHttpStatus(status: number): CodeNumber {
  switch (status) {
    case 400:
    case 413:
    case 414:
    case 422:
    case 431: return Code.INVALID_ARGUMENT;
    case 408: return Code.DEADLINE_EXCEEDED;
    case 412: return Code.FAILED_PRECONDITION;
    case 401: return Code.UNAUTHENTICATED;
    case 403: return Code.PERMISSION_DENIED;
    case 404: return Code.NOT_FOUND;
    case 409: return Code.ABORTED;
    case 429: return Code.RESOURCE_EXHAUSTED;
    case 499: return Code.CANCELLED;
    case 501: return Code.UNIMPLEMENTED;
    case 502:
    case 503: return Code.UNAVAILABLE;
    case 504: return Code.DEADLINE_EXCEEDED;
    default: return status >= 500 ? Code.INTERNAL : Code.UNKNOWN;
  }
}
