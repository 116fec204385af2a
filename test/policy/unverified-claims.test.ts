/**
 * The caller a bearer token claims to be, unread by any verifier (src/policy/unverified-claims.ts):
 * a JWT with a `sub` names one; any other header names none, and the strict reader says why.
 */
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/aip/errors.ts';
import { unverifiedCaller, unverifiedClaims } from '../../src/policy/unverified-claims.ts';

const jwt = (payload: unknown) => `Bearer h.${Buffer.from(JSON.stringify(payload)).toString('base64url')}.s`;

describe('unverifiedCaller', () => {
  it('names the caller of a JWT with a subject, unverified', () => {
    expect(unverifiedCaller(jwt({ sub: 'alice', iss: 'https://issuer' }))).toEqual({ subject: 'alice', issuer: 'https://issuer', claims: { sub: 'alice', iss: 'https://issuer' }, verified: false });
  });

  it('names no caller for a header that holds no JWT with a subject', () => {
    for (const header of ['', 'Bearer bench', 'Basic dXNlcjpwYXNz', 'Bearer a.b.c', jwt([1]), jwt({ iss: 'x' }), `Bearer h.${'a'.repeat(17_000)}.s`]) {
      expect(unverifiedCaller(header)).toBeUndefined();
    }
  });
});

describe('unverifiedClaims', () => {
  it('answers the payload of a bearer JWT, and UNAUTHENTICATED saying what is wrong otherwise', () => {
    expect(unverifiedClaims(jwt({ sub: 'bob' }))).toEqual({ sub: 'bob' });
    const refusal = (header: string) => {
      try {
        unverifiedClaims(header);
      } catch (error) {
        return [(error as ApiError).code, (error as ApiError).message];
      }
      return undefined;
    };
    expect(refusal('Bearer bench')).toEqual([16, 'Unauthenticated: the bearer token is not a JWT']);
    expect(refusal('')).toEqual([16, 'Unauthenticated: a bearer token (a JWT) is required to name the caller']);
    expect(refusal('Bearer a.b.c')).toEqual([16, "Unauthenticated: the bearer token's payload is not JSON"]);
    expect(refusal(jwt('text'))).toEqual([16, "Unauthenticated: the bearer token's payload is not a JSON object"]);
  });
});
