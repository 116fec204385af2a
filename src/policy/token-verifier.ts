/**
 * Bearer tokens verified as JWTs against the issuers this gateway trusts
 * (`--auth-issuer`, `--auth-audience`). jose does the cryptography: each
 * issuer's discovery document names its JWKS, which jose fetches, caches and
 * fetches afresh when a token names a key it does not hold (a rotation), at
 * most once per cooldown, so a flood of forged `kid`s cannot hammer the
 * issuer. Algorithms are pinned to the asymmetric ones the issuer publishes:
 * never `none` (jose's jwtVerify has no such path), never an HMAC, whose
 * "secret" would be the issuer's public key.
 *
 * A verified token is remembered (by its own text, never logged) until it
 * expires or a few minutes pass, so a caller's next request costs a map
 * lookup rather than a signature check.
 *
 * An issuer whose discovery document or keys cannot be had (no answer, an
 * error status, a timeout, a body that is no document or key set) makes the
 * request UNAVAILABLE: the caller's token may be good, it cannot be checked
 * now. That failure is remembered for a few seconds (UNREACHABLE_RETRY_MS),
 * so an outage costs the issuer one fetch per window, not one per request.
 * Only a token that is itself wrong is UNAUTHENTICATED.
 */
import { createRemoteJWKSet, decodeJwt, decodeProtectedHeader, errors, jwtVerify, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import { LRUCache } from 'lru-cache';
import { ApiError, unauthenticated, unavailable } from '../aip/errors.ts';
import type { Caller } from '../request/context.ts';

/** Signature algorithms a JWKS key may be used with here: public-key ones only. */
const ASYMMETRIC = new Set(['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519']);
/** Clock difference tolerated between the issuer and this gateway for `exp`, `nbf` and `iat`. */
const CLOCK_SKEW_SECONDS = 30;
/** A JWT's payload is a few hundred bytes; far larger is not a token worth decoding. */
const MAX_TOKEN_LENGTH = 16 * 1024;
/** How long a verified token is remembered at most (its `exp` bounds it too). */
const REMEMBER_MS = 5 * 60_000;
/**
 * How long an issuer that could not be reached is not asked again: every request in that window is
 * answered UNAVAILABLE at once. A few seconds: a flood of requests during an outage costs the issuer
 * one fetch per window, and the gateway sees the issuer back almost as soon as it is.
 */
const UNREACHABLE_RETRY_MS = 5000;

export interface VerifierOptions {
  issuers: readonly string[];
  audience: string;
  /** Milliseconds after a JWKS fetch before an unknown `kid` may cause another. */
  jwksCooldownMs?: number;
  /** Milliseconds a fetched JWKS is used before it is fetched again. */
  jwksMaxAgeMs?: number;
  /** Milliseconds since the epoch (tests move it). */
  now?: () => number;
  fetchTimeoutMs?: number;
  /** Milliseconds an issuer whose discovery or keys could not be fetched is not asked again. */
  unreachableRetryMs?: number;
}

interface TrustedIssuer {
  keys: JWTVerifyGetKey;
  algorithms: string[];
}

/** An issuer's discovery, as far as it went: `failedAt` is set once it failed. */
interface Discovery {
  found: Promise<TrustedIssuer>;
  failedAt?: number;
}

interface Remembered {
  caller: Caller;
  /** Epoch ms at which the token stops being valid. */
  expires: number;
}

export class TokenVerifier {
  readonly #options: VerifierOptions;
  readonly #trusted = new Set<string>();
  /** Each issuer's keys, looked up once; a failed discovery is tried again once UNREACHABLE_RETRY_MS has passed. */
  readonly #issuers = new Map<string, Discovery>();
  readonly #remembered = new LRUCache<string, Remembered>({ max: 10_000 });

  constructor(options: VerifierOptions) {
    this.#options = options;
    for (const issuer of options.issuers) this.#trusted.add(issuer.replace(/\/+$/, ''));
  }

  #now(): number {
    return this.#options.now?.() ?? Date.now();
  }

  /** The caller a bearer header names, verified; UNAUTHENTICATED (never naming the token) otherwise. */
  async verify(authorization: string): Promise<Caller> {
    const token = bearerToken(authorization);
    const now = this.#now();
    const remembered = this.#remembered.get(token);
    if (remembered && remembered.expires > now - CLOCK_SKEW_SECONDS * 1000) return remembered.caller;
    let iss: string;
    let alg: string | undefined;
    try {
      iss = String(decodeJwt(token).iss ?? '');
      alg = decodeProtectedHeader(token).alg;
    } catch {
      throw unauthenticated('the bearer token is not a JWT');
    }
    if (!this.#trusted.has(iss)) throw unauthenticated('the bearer token was not issued by an issuer this gateway trusts');
    const issuer = await this.#issuer(iss);
    if (!alg || !issuer.algorithms.includes(alg)) throw unauthenticated(`the bearer token's algorithm is not one its issuer signs with`);
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, issuer.keys, {
        issuer: iss,
        audience: this.#options.audience,
        algorithms: issuer.algorithms,
        clockTolerance: CLOCK_SKEW_SECONDS,
        currentDate: new Date(now),
        requiredClaims: ['exp', 'sub'],
      }));
    } catch (error) {
      throw refusal(error);
    }
    // jose asks only that `sub` be there: an empty one names no one, and must not become a caller.
    if (typeof payload.sub !== 'string' || payload.sub.trim() === '') throw unauthenticated('the bearer token names no subject (its "sub" claim is empty)');
    const caller: Caller = { subject: String(payload.sub), issuer: iss, claims: payload, verified: true };
    const expires = Math.min(payload.exp! * 1000, now + REMEMBER_MS);
    this.#remembered.set(token, { caller, expires });
    return caller;
  }

  #retryMs(): number {
    return this.#options.unreachableRetryMs ?? UNREACHABLE_RETRY_MS;
  }

  #issuer(iss: string): Promise<TrustedIssuer> {
    const known = this.#issuers.get(iss);
    if (known && (known.failedAt === undefined || this.#now() - known.failedAt < this.#retryMs())) return known.found;
    const discovery: Discovery = { found: this.#discover(iss) };
    discovery.found.catch(() => {
      discovery.failedAt = this.#now();
    });
    this.#issuers.set(iss, discovery);
    return discovery.found;
  }

  async #discover(iss: string): Promise<TrustedIssuer> {
    const timeout = this.#options.fetchTimeoutMs ?? 5000;
    let document: { issuer?: unknown; jwks_uri?: unknown; id_token_signing_alg_values_supported?: unknown };
    try {
      // A redirect is refused: the document must come from the issuer itself.
      const answer = await fetch(`${iss}/.well-known/openid-configuration`, { redirect: 'error', signal: AbortSignal.timeout(timeout) });
      if (!answer.ok) throw new Error(`HTTP ${answer.status}`);
      document = (await answer.json()) as typeof document;
      if (typeof document !== 'object' || document === null) throw new Error('not a JSON object');
    } catch (error) {
      throw unavailable(`the token issuer ${iss} could not be reached to verify the bearer token (${(error as Error).message})`);
    }
    // The issuer's own fault, not the caller's: its token cannot be checked until the issuer is fixed.
    if (document.issuer !== iss || typeof document.jwks_uri !== 'string' || !URL.canParse(document.jwks_uri)) {
      throw unavailable(`the token issuer ${iss} publishes no usable discovery document`);
    }
    const published = Array.isArray(document.id_token_signing_alg_values_supported) ? document.id_token_signing_alg_values_supported.map(String) : ['RS256'];
    const algorithms = published.filter((alg) => ASYMMETRIC.has(alg));
    if (algorithms.length === 0) throw unavailable(`the token issuer ${iss} signs with no public-key algorithm`);
    const remote = createRemoteJWKSet(new URL(document.jwks_uri), {
      cooldownDuration: this.#options.jwksCooldownMs ?? 30_000,
      cacheMaxAge: this.#options.jwksMaxAgeMs ?? 10 * 60_000,
      timeoutDuration: timeout,
    });
    return { keys: this.#unlessUnreachable(iss, remote), algorithms };
  }

  /**
   * The issuer's keys, where a key set that cannot be fetched is UNAVAILABLE, and stays so without
   * another fetch for UNREACHABLE_RETRY_MS. A key set fetched but lacking the token's key is the token's
   * fault (jose's own errors, judged by refusal()).
   */
  #unlessUnreachable(iss: string, remote: JWTVerifyGetKey): JWTVerifyGetKey {
    let failedAt: number | undefined;
    const refusal = () => unavailable(`the token issuer ${iss} could not be reached for its keys to verify the bearer token`);
    return async (header, token) => {
      if (failedAt !== undefined && this.#now() - failedAt < this.#retryMs()) throw refusal();
      try {
        const key = await remote(header, token);
        failedAt = undefined;
        return key;
      } catch (error) {
        if (isTokensFault(error)) throw error;
        failedAt = this.#now();
        throw refusal();
      }
    };
  }
}

/** A key set was had, and the token names no key of it, or one it cannot be used with. */
function isTokensFault(error: unknown): boolean {
  return error instanceof errors.JWKSNoMatchingKey || error instanceof errors.JWKSMultipleMatchingKeys
    || error instanceof errors.JOSEAlgNotAllowed || error instanceof errors.JOSENotSupported;
}

/** The token of `Bearer <token>`; UNAUTHENTICATED without one. */
export function bearerToken(authorization: string): string {
  const token = /^Bearer\s+(\S+)$/i.exec(authorization.trim())?.[1];
  if (!token) throw unauthenticated('a bearer token is required: send "Authorization: Bearer <token>"');
  if (token.length > MAX_TOKEN_LENGTH) throw unauthenticated('the bearer token is too long to be a JWT');
  return token;
}

/** Why jose refused a token, in words that name no part of it; an issuer that cannot be reached is UNAVAILABLE. */
function refusal(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof errors.JWKSTimeout || !(error instanceof errors.JOSEError)) {
    return unavailable("the token issuer's keys could not be fetched to verify the bearer token");
  }
  return unauthenticated(`the bearer token ${whyRefused(error)}`);
}

function whyRefused(error: errors.JOSEError): string {
  if (error instanceof errors.JWTExpired) return 'has expired';
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.claim === 'nbf' || error.claim === 'iat') return 'is not valid yet';
    if (error.claim === 'aud') return 'is not meant for this API (audience)';
    if (error.claim === 'iss') return 'was issued by another issuer';
    return `lacks a valid "${error.claim}" claim`;
  }
  if (error instanceof errors.JWKSNoMatchingKey) return 'is signed by a key its issuer does not publish';
  if (error instanceof errors.JWSSignatureVerificationFailed) return 'has an invalid signature';
  if (error instanceof errors.JOSEAlgNotAllowed) return 'uses an algorithm its issuer does not sign with';
  return 'is not a valid token';
}
