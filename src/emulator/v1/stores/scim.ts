/**
 * An identity provider's SCIM credential lifecycle (v1 IdentityProviders:
 * GenerateScimToken, RegenerateScimToken, RevokeScimToken, SetScimEnabled;
 * identity_providers.platform.proto). Facts: the token is `cgscim_` + 64 hex,
 * shown once, only its SHA-256 kept; Generate is FAILED_PRECONDITION once a
 * token exists and starts provisioning disabled; Regenerate of a provider that
 * never had one is NOT_FOUND, needs the etag, and keeps a live previous token
 * for the overlap (default 1 h, capped at 24 h); Revoke needs no etag and
 * kills current and previous tokens, leaving `enabled` as it is; SetScimEnabled
 * needs the etag, and enabling needs two owner-tier bindings in the
 * organisation; expiry defaults to a year, at most two, and `expire_time`
 * with `never_expires` is INVALID_ARGUMENT.
 *
 * Decisions where the facts are silent: a stale etag is ABORTED (AIP-154's
 * code for a lost optimistic-concurrency race); Revoke and SetScimEnabled of a
 * provider that never had a token are NOT_FOUND; the endpoint URL is derived
 * from the provider's UIDP under a fixed host.
 */
import { createHash, randomBytes } from 'node:crypto';
import { Code } from '../status-codes.ts';
import { failedPrecondition, invalidArgument, notFound, V1Error } from '../errors.ts';
import { canonicalDuration, durationMicros, formatMicros, microsOf } from '../time.ts';

const HOUR = 3600 * 1_000_000;
const YEAR = 365 * 24 * HOUR;

interface Credential {
  digest: string;
  /** Microseconds; undefined: never expires. */
  expires: number | undefined;
  previousDigest?: string;
  previousExpires?: number;
  revoked?: number;
  enabled: boolean;
  etag: string;
}

export interface ScimRequest {
  expireTime?: string;
  neverExpires?: boolean;
  overlap?: string;
  etag?: string;
  enabled?: boolean;
}

export class ScimStore {
  readonly #credentials = new Map<string, Credential>();
  readonly #clock: () => number;

  constructor(clock: () => number) {
    this.#clock = clock;
  }

  generate(idp: string, request: ScimRequest): Record<string, unknown> {
    if (this.#credentials.has(idp)) throw failedPrecondition('the identity provider already has a SCIM token: regenerate it instead');
    const now = this.#clock();
    const token = newToken();
    const credential: Credential = { digest: digest(token), expires: this.#expiry(request, now), enabled: false, etag: newEtag() };
    this.#credentials.set(idp, credential);
    return { token, endpointUrl: endpointUrl(idp), ...expireTime(credential.expires), identityProviderId: idp, etag: credential.etag };
  }

  regenerate(idp: string, request: ScimRequest): Record<string, unknown> {
    const current = this.#existing(idp);
    this.#checkEtag(current, request.etag);
    const now = this.#clock();
    const requested = request.overlap ? canonicalDuration(request.overlap) : '3600s';
    if (requested === undefined) throw invalidArgument('overlap: not a duration');
    const overlap = Math.min(durationMicros(requested), 24 * HOUR);
    const live = current.revoked === undefined && (current.expires === undefined || current.expires > now);
    const token = newToken();
    const next: Credential = { digest: digest(token), expires: this.#expiry(request, now), enabled: current.enabled, etag: newEtag() };
    // The overlap is the previous token's effective end: it cannot outlive that token's own expiry.
    if (live && overlap > 0) Object.assign(next, { previousDigest: current.digest, previousExpires: Math.min(now + overlap, current.expires ?? Infinity) });
    this.#credentials.set(idp, next);
    return {
      token, endpointUrl: endpointUrl(idp), ...expireTime(next.expires), identityProviderId: idp, etag: next.etag,
      ...(next.previousExpires !== undefined ? { previousTokenExpireTime: formatMicros(next.previousExpires) } : {}),
      requestedOverlap: requested,
    };
  }

  revoke(idp: string): Record<string, unknown> {
    const current = this.#existing(idp);
    const now = this.#clock();
    const next: Credential = { digest: current.digest, expires: current.expires, enabled: current.enabled, etag: newEtag(), revoked: now };
    this.#credentials.set(idp, next);
    return { identityProviderId: idp, etag: next.etag, enabled: next.enabled, revokeTime: formatMicros(now) };
  }

  setEnabled(idp: string, request: ScimRequest, ownerBindings: number): Record<string, unknown> {
    const current = this.#existing(idp);
    this.#checkEtag(current, request.etag);
    const enabled = request.enabled === true;
    if (enabled && ownerBindings < 2) {
      throw failedPrecondition('SCIM cannot be enabled for an organization with fewer than two manually assigned owner-tier role bindings');
    }
    const next = { ...current, enabled, etag: newEtag() };
    this.#credentials.set(idp, next);
    return { identityProviderId: idp, enabled, etag: next.etag };
  }

  /** The provider's `scim` block as reads show it, or undefined when it never had a token. */
  view(idp: string): Record<string, unknown> | undefined {
    const c = this.#credentials.get(idp);
    if (!c) return undefined;
    const now = this.#clock();
    const rotating = c.revoked === undefined && c.previousExpires !== undefined && c.previousExpires > now;
    const state = c.revoked !== undefined ? 'CREDENTIAL_STATE_REVOKED'
      : rotating ? 'CREDENTIAL_STATE_ROTATING'
      : c.expires !== undefined && c.expires <= now ? 'CREDENTIAL_STATE_EXPIRED' : 'CREDENTIAL_STATE_LIVE';
    return {
      enabled: c.enabled,
      endpointUrl: endpointUrl(idp),
      ...(c.expires !== undefined ? { tokenExpireTime: formatMicros(c.revoked ?? c.expires) } : {}),
      ...(rotating ? { previousTokenExpireTime: formatMicros(c.previousExpires!) } : {}),
      credentialState: state,
      etag: c.etag,
    };
  }

  forget(idp: string): void {
    this.#credentials.delete(idp);
  }

  #existing(idp: string): Credential {
    const credential = this.#credentials.get(idp);
    if (!credential) throw notFound(`identity provider ${JSON.stringify(idp)} has never had a SCIM token`);
    return credential;
  }

  #checkEtag(current: Credential, etag: string | undefined): void {
    if (!etag) throw invalidArgument('etag: is required');
    if (etag !== current.etag) throw new V1Error(Code.ABORTED, 'etag does not match the current SCIM configuration: read it again');
  }

  #expiry(request: ScimRequest, now: number): number | undefined {
    if (request.expireTime && request.neverExpires) throw invalidArgument('expire_time and never_expires cannot both be set');
    if (request.neverExpires) return undefined;
    if (!request.expireTime) return now + YEAR;
    const at = microsOf(request.expireTime);
    if (at <= now || at > now + 2 * YEAR) throw invalidArgument('expire_time: must be in the future and at most two years from now');
    return at;
  }
}

function newToken(): string {
  return `cgscim_${randomBytes(32).toString('hex')}`;
}

function digest(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

function newEtag(): string {
  return randomBytes(8).toString('hex');
}

function endpointUrl(idp: string): string {
  return `https://scim.emulator.invalid/scim/v2/${idp}`;
}

function expireTime(expires: number | undefined): Record<string, string> {
  return expires === undefined ? {} : { expireTime: formatMicros(expires) };
}
