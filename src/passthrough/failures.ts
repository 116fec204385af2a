/**
 * What the client hears when a pass-through exchange fails before v1 answered:
 * the same AIP-193 errors the v2 routes give for v1 being down or slow
 * (`fromTransportError`), so one sidecar fails one way. Anything that is not a
 * transport failure is left as it is, for the error handler to log and turn
 * into INTERNAL. Once v1 has answered, its status and body are the client's,
 * errors included; nothing here applies.
 */
import type { FastifyRequest } from 'fastify';
import { errors as undiciErrors } from 'undici';
import { ApiError } from '../aip/errors.ts';
import { Code } from '../rpc-status.ts';
import { fromTransportError } from '../v1/errors.ts';
import { HeadersDeadlineError } from './deadline.ts';

/** undici's own errors that mean the connection to v1 failed or went quiet. */
const TRANSPORT_ERRORS = [
  undiciErrors.SocketError,
  undiciErrors.ConnectTimeoutError,
  undiciErrors.HeadersTimeoutError,
  undiciErrors.BodyTimeoutError,
  undiciErrors.ClientDestroyedError,
  undiciErrors.ClientClosedError,
];

/** Node's system errors (ECONNREFUSED, ENOTFOUND, ECONNRESET, …) carry an errno-style code. */
function isSystemError(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' && /^E[A-Z0-9]+$/.test(code);
}

export function passThroughFailure(error: Error, request: FastifyRequest, timeoutMs: number): unknown {
  // The client hung up mid-request: nobody will read the answer, and v1 is not to blame in the log.
  if (request.raw.destroyed && !request.raw.complete) {
    return new ApiError(Code.CANCELLED, 'the client closed the request before v1 answered');
  }
  // An error that wraps what undici threw names it as its cause; the cause says what happened.
  const cause = (error as { cause?: unknown }).cause ?? error;
  if (cause instanceof HeadersDeadlineError || isSystemError(cause) || TRANSPORT_ERRORS.some((type) => cause instanceof type)) {
    return fromTransportError(cause, timeoutMs);
  }
  return error;
}
