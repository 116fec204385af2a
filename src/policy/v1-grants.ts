/**
 * Translate mode's grants: what v1 states of a bearer token at
 * `GET /auth/v1/ok` (v1's Auth.Validate, answering a WhoAmI). It names the
 * caller (`subject`) and lists the capabilities v1 holds for it, one entry
 * per group: a `role` with v1's capability names (`registry.overlays.edit`),
 * or, when no known role matches, the names themselves (`capabilities`). The
 * names become the contract's enum names through the one table that relates
 * them (mappings/capabilities.ts); a name the table lacks grants nothing.
 * A group's capabilities hold there and at its descendants (grants.ts).
 *
 * It serves the guard twice over: as the verifier of translate mode's
 * store-kept operations (the caller is the subject v1 states, never the
 * token's own unverified claims) and as the grants source of the one
 * authorizer both modes use (authorizer.ts).
 *
 * What v1 stated is kept per token, keyed by a digest of the token (never
 * the token), for at most the grants cache's lifetime (--auth-grants-cache-ms);
 * a failure is not kept. It fails closed: v1 refusing the token is
 * UNAUTHENTICATED; v1 refusing to answer (403) or not serving the route (404)
 * is PERMISSION_DENIED; no answer, a timeout, a 5xx or an answer that is no
 * WhoAmI is UNAVAILABLE. Each message says why, and nothing is served.
 */
import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { ApiError, unauthenticated, unavailable } from '../aip/errors.ts';
import { Code } from '../rpc-status.ts';
import type { Caller, RequestContext } from '../request/context.ts';
import type { V1Call, CallScope } from '../v1/client.ts';
import { CAPABILITY } from '../../mappings/enums.ts';
import type { GrantMap } from './grants.ts';

/** The route v1 answers a WhoAmI on. */
export const WHO_AM_I_PATH = '/auth/v1/ok';

/** What the source needs of the v1 client. */
export interface V1Caller {
  call<T = unknown>(call: V1Call, scope?: CallScope): Promise<T>;
}

interface Stated {
  caller: Caller;
  grants: GrantMap;
}

export class V1Grants {
  readonly #v1: V1Caller;
  readonly #ttlMs: number;
  readonly #cache: LRUCache<string, Promise<Stated>>;
  /** The grants stated with each caller this source named. */
  readonly #grants = new WeakMap<Caller, GrantMap>();

  constructor(v1: V1Caller, ttlMs = 2000) {
    this.#v1 = v1;
    this.#ttlMs = ttlMs;
    this.#cache = new LRUCache({ max: 10_000, ttl: Math.max(1, ttlMs) });
  }

  /** The caller v1 names for the request's bearer token; the refusal that says why otherwise. */
  async verify(authorization: string, ctx?: RequestContext): Promise<Caller> {
    return (await this.#stated(authorization, ctx)).caller;
  }

  /** The grants v1 stated with a caller this source named; a caller it did not name holds nothing here. */
  of(caller: Caller): Promise<GrantMap> {
    const grants = this.#grants.get(caller);
    return grants ? Promise.resolve(grants) : Promise.reject(new ApiError(Code.PERMISSION_DENIED, 'v1 stated no capabilities for the caller'));
  }

  /** Everything kept is dropped: a write through this process may have changed what v1 states. */
  forget(): void {
    this.#cache.clear();
  }

  #stated(authorization: string, ctx: RequestContext | undefined): Promise<Stated> {
    if (this.#ttlMs <= 0) return this.#ask(authorization, ctx);
    const key = createHash('sha256').update(authorization).digest('base64url');
    let stated = this.#cache.get(key);
    if (!stated) {
      stated = this.#ask(authorization, ctx);
      this.#cache.set(key, stated);
      stated.catch(() => this.#cache.delete(key));
    }
    return stated;
  }

  async #ask(authorization: string, ctx: RequestContext | undefined): Promise<Stated> {
    let answer: unknown;
    try {
      // Shared by every request of the token while kept: not ended by the first one's cancellation (v1's timeout bounds it).
      answer = await this.#v1.call({ method: 'GET', path: WHO_AM_I_PATH, authorization }, ctx && { counter: ctx.counter, trace: ctx.trace });
    } catch (error) {
      throw refusal(error);
    }
    const stated = readWhoAmI(answer);
    this.#grants.set(stated.caller, stated.grants);
    return stated;
  }
}

const NOT_SERVED = 'so what the gateway keeps for v1 is not served';

/** Why v1's failure to answer refuses the request. */
function refusal(error: unknown): ApiError {
  const code = error instanceof ApiError ? error.code : undefined;
  const why = error instanceof ApiError ? error.message : 'no answer';
  if (code === Code.UNAUTHENTICATED) return unauthenticated(`v1 does not accept the bearer token (GET ${WHO_AM_I_PATH}: ${why})`);
  if (code === Code.PERMISSION_DENIED) return new ApiError(Code.PERMISSION_DENIED, `v1 refused to state the bearer token's capabilities (GET ${WHO_AM_I_PATH}: ${why}), ${NOT_SERVED}`);
  if (code === Code.NOT_FOUND) return new ApiError(Code.PERMISSION_DENIED, `v1 does not answer GET ${WHO_AM_I_PATH} (404), so the caller's capabilities cannot be known, ${NOT_SERVED}`);
  return unavailable(`v1 could not state the caller's capabilities (GET ${WHO_AM_I_PATH}: ${why}), ${NOT_SERVED}`);
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const text = (value: unknown): string => (typeof value === 'string' ? value : '');
const texts = (value: unknown): string[] => (Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : []);

/** A WhoAmI as the caller and its grants; UNAVAILABLE for an answer that is none, UNAUTHENTICATED when it names no one. */
export function readWhoAmI(answer: unknown): Stated {
  if (!isObject(answer) || (answer.capabilities !== undefined && answer.capabilities !== null && !Array.isArray(answer.capabilities))) {
    throw unavailable(`v1 answered GET ${WHO_AM_I_PATH} with something that is no WhoAmI, ${NOT_SERVED}`);
  }
  const subject = text(answer.subject);
  if (subject.trim() === '') throw unauthenticated(`v1 names no subject for the bearer token (GET ${WHO_AM_I_PATH})`);
  const grants = new Map<string, Set<string>>();
  for (const entry of (answer.capabilities ?? []) as unknown[]) {
    if (!isObject(entry) || !isObject(entry.group)) continue;
    const group = text(entry.group.id);
    if (group === '') continue;
    const held = grants.get(group) ?? new Set<string>();
    for (const name of [...texts(isObject(entry.role) ? entry.role.capabilities : undefined), ...texts(entry.capabilities)]) {
      const capability = CAPABILITY.v1ToV2[name];
      if (capability) held.add(capability);
    }
    grants.set(group, held);
  }
  const profile = isObject(answer.profile) ? answer.profile : {};
  // The claims the store's methods read of their caller (identity metadata's names), as v1 states them.
  const claims = { iss: text(answer.issuer), sub: subject, email: text(answer.email), given_name: text(profile.givenName), family_name: text(profile.familyName) };
  return { caller: { subject, issuer: claims.iss, claims, verified: true }, grants };
}
