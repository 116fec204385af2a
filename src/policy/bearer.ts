/**
 * Every v2 request that the contract does not mark public carries a bearer
 * token (the platform's clients send one: chainguard-dev/sdk: sts/sts.go). Where no issuer is configured the gateway does not judge
 * the token (translate mode: v1 does, as the header is forwarded as is).
 */
import { unauthenticated } from '../aip/errors.ts';

const BEARER = /^Bearer\s+\S+/i;

/** The Authorization header or gRPC metadata value, judged the same way on both protocols. */
export function bearer(header: string | null | undefined): string {
  if (!header || !BEARER.test(header)) {
    throw unauthenticated('a bearer token is required: send "Authorization: Bearer <token>"');
  }
  return header;
}
