import { describe, expect, it } from 'vitest';
import { Code, httpStatusFor } from '../../src/emulator/v1/status-codes.ts';

describe("the emulator's status codes (api-surface.md §0.6)", () => {
  it('numbers the gRPC codes as gRPC does', () => {
    expect(Object.entries(Code).map(([name, code]) => `${code} ${name}`)).toEqual([
      '0 OK', '1 CANCELLED', '2 UNKNOWN', '3 INVALID_ARGUMENT', '4 DEADLINE_EXCEEDED', '5 NOT_FOUND', '6 ALREADY_EXISTS', '7 PERMISSION_DENIED',
      '8 RESOURCE_EXHAUSTED', '9 FAILED_PRECONDITION', '10 ABORTED', '11 OUT_OF_RANGE', '12 UNIMPLEMENTED', '13 INTERNAL', '14 UNAVAILABLE',
      '15 DATA_LOSS', '16 UNAUTHENTICATED',
    ]);
  });

  it("answers each code with grpc-gateway's HTTP status", () => {
    const expected: Record<keyof typeof Code, number> = {
      OK: 200, INVALID_ARGUMENT: 400, FAILED_PRECONDITION: 400, OUT_OF_RANGE: 400, UNAUTHENTICATED: 401, PERMISSION_DENIED: 403,
      NOT_FOUND: 404, ALREADY_EXISTS: 409, ABORTED: 409, RESOURCE_EXHAUSTED: 429, CANCELLED: 499, UNKNOWN: 500, INTERNAL: 500,
      DATA_LOSS: 500, UNIMPLEMENTED: 501, UNAVAILABLE: 503, DEADLINE_EXCEEDED: 504,
    };
    for (const [name, status] of Object.entries(expected)) expect(httpStatusFor(Code[name as keyof typeof Code]), name).toBe(status);
  });
});
