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

/** Why a header names no caller, or the payload of `Bearer <jwt>` when it is a JSON object. Pure; throws nothing. */
function readClaims(authorization: string): Claims | string {
  const match = /^Bearer\s+(\S+)$/i.exec(authorization.trim());
  const token = match?.[1];
  if (!token || token.length > MAX_TOKEN_LENGTH) return 'a bearer token (a JWT) is required to name the caller';
  const parts = token.split('.');
  if (parts.length !== 3) return 'the bearer token is not a JWT';
  let payload: unknown;
  try {
    payload = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8'));
  } catch {
    return "the bearer token's payload is not JSON";
  }
  if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) return "the bearer token's payload is not a JSON object";
  return payload as Claims;
}

/** The payload of `Bearer <jwt>`; UNAUTHENTICATED when there is no bearer JWT whose payload is a JSON object. */
export function unverifiedClaims(authorization: string): Claims {
  const claims = readClaims(authorization);
  if (typeof claims === 'string') throw unauthenticated(claims);
  return claims;
}

/**
 * The caller a bearer JWT claims to be, unverified; undefined when the header holds no JWT with a `sub`.
 * Asked on every request in translate mode, where most tokens are JWTs and some are not: a header that
 * names no caller is answered without making (and throwing away) an error and its stack.
 */
export function unverifiedCaller(authorization: string): Caller | undefined {
  const claims = readClaims(authorization);
  if (typeof claims === 'string') return undefined;
  const subject = claimString(claims, 'sub');
  return subject ? { subject, issuer: claimString(claims, 'iss'), claims, verified: false } : undefined;
}
