/**
 * The claims a caller's bearer token states about itself, read WITHOUT
 * verifying its signature. Only for native mode run with no issuer (local
 * use, `--auth-disabled`), where any caller may already act on any resource:
 * reading the token's own `sub` grants nothing a caller could not do
 * otherwise. With an issuer, the caller is the verified token's (token-verifier.ts).
 */
import { unauthenticated } from '../aip/errors.ts';
import { claimString, type Caller, type Claims } from '../request/context.ts';

/** A JWT's payload is a few hundred bytes; anything far larger is not a token worth decoding. */
const MAX_TOKEN_LENGTH = 16 * 1024;

/** The payload of `Bearer <jwt>`; UNAUTHENTICATED when there is no bearer JWT whose payload is a JSON object. */
export function unverifiedClaims(authorization: string): Claims {
  const match = /^Bearer\s+(\S+)$/i.exec(authorization.trim());
  const token = match?.[1];
  if (!token || token.length > MAX_TOKEN_LENGTH) throw unauthenticated('a bearer token (a JWT) is required to name the caller');
  const parts = token.split('.');
  if (parts.length !== 3) throw unauthenticated('the bearer token is not a JWT');
  let payload: unknown;
  try {
    payload = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8'));
  } catch {
    throw unauthenticated("the bearer token's payload is not JSON");
  }
  if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) throw unauthenticated("the bearer token's payload is not a JSON object");
  return payload as Claims;
}

/** The caller a bearer JWT claims to be, unverified; undefined when the header holds no JWT with a `sub`. */
export function unverifiedCaller(authorization: string): Caller | undefined {
  let claims: Claims;
  try {
    claims = unverifiedClaims(authorization);
  } catch {
    return undefined;
  }
  const subject = claimString(claims, 'sub');
  return subject ? { subject, issuer: claimString(claims, 'iss'), claims, verified: false } : undefined;
}
