/**
 * Every v2 request must carry a bearer token (spec §5). The gateway does not
 * judge the token: v1 does, because the caller's header is forwarded as is.
 */
import type { FastifyRequest } from 'fastify';
import { unauthenticated } from '../../aip/errors.ts';

const BEARER = /^Bearer\s+\S+/i;

export function requireBearer(request: FastifyRequest): string {
  return bearer(request.headers.authorization);
}

/** The Authorization header or gRPC metadata value, judged the same way on both protocols. */
export function bearer(header: string | null | undefined): string {
  if (!header || !BEARER.test(header)) {
    throw unauthenticated('a bearer token is required: send "Authorization: Bearer <token>"');
  }
  return header;
}
