/**
 * The SCIM credential lifecycle of an identity provider (GenerateScimToken,
 * RegenerateScimToken, RevokeScimToken, SetScimEnabled (chainguard-dev/sdk: proto/platform/iam/v1/identity_providers.platform.proto and scim_users.platform.proto) and
 * the v2beta1 comments). Over v1 the four verbs are the same with v1's name
 * for the provider (`identityProviderId`). Native mode keeps the credential in
 * the store beside the provider (kind `scimCredentials`, at the provider's
 * uid), only the token's SHA-256 and never the token; the provider's `scim`
 * block shows it on reads.
 *
 * Rules (both modes; v1 applies them over v1): the token is `cgscim_` + 64
 * hex, shown once; Generate is FAILED_PRECONDITION once a token exists and
 * leaves provisioning off; Regenerate of a provider that never had one is
 * NOT_FOUND, needs the etag, and a live token keeps working for the overlap
 * (default 1 h, capped at 24 h); Revoke needs no etag, kills both tokens and
 * leaves `enabled` alone; SetScimEnabled needs the etag, and enabling needs two
 * owner-tier bindings in the organisation (FAILED_PRECONDITION); expiry
 * defaults to a year, at most two; `expireTime` with `neverExpires` is
 * INVALID_ARGUMENT; a stale etag is ABORTED (AIP-154).
 */
import { createHash, randomBytes } from 'node:crypto';
import { ApiError, failedPrecondition, invalidField, notFound } from '../../src/aip/errors.ts';
import { toMillisTimestamp } from '../../src/aip/time.ts';
import type { CustomMethod, NativeAccess, V1Access } from '../../src/vocabulary/custom-method.ts';
import type { Json } from '../../src/vocabulary/json.ts';
import { Code } from '../../src/rpc-status.ts';
import type { DerivedRead } from '../../src/vocabulary/native.ts';
import type { StoredResource } from '../../src/store/types.ts';
import { isUidp, parentOf } from '../../src/uidp.ts';
import { uidpPath } from '../../src/uidp.ts';
import { v1String } from '../../src/v1/answer-fields.ts';
import { unreadable } from '../../src/v1/errors.ts';

export const SCIM_KIND = 'scimCredentials';
const IDP = 'iam.chainguard.dev/IdentityProvider';
const HOUR_MS = 3600_000;
const YEAR_MS = 365 * 24 * HOUR_MS;

function providerOf(request: Json): string {
  const uid = String(request.identityProviderUid);
  if (!isUidp(uid)) throw invalidField('identityProviderUid', `"${uid}" is not a valid UIDP`);
  return uid;
}

/**
 * The verb over v1: the request and answer with v1's name for the provider.
 * An answer without what it must carry (the new token, the new etag) is no
 * answer the gateway can hand on: INTERNAL naming the key.
 */
async function overV1(verb: string, request: Json, v1: V1Access, carries: readonly string[]): Promise<Json> {
  const { identityProviderUid: _uid, ...body } = request;
  const uid = providerOf(request);
  const answer = await v1.call({ method: 'POST', path: `/iam/v1/identityProviders/${uidpPath(uid)}:${verb}`, body });
  v1.changed('identityProviders', uid);
  for (const key of carries) if (!v1String(answer, key)) throw unreadable(200, `\`${key}\` is missing where v1's ${verb} answer carries it`);
  const { identityProviderId, ...rest } = answer;
  // Times leave the gateway with millisecond precision, as every read shows them (v1 may send microseconds); a malformed one is left to the contract check.
  for (const key of ANSWER_TIMES) if (typeof rest[key] === 'string') rest[key] = toMillisTimestamp(rest[key]) ?? rest[key];
  return { ...rest, identityProviderUid: typeof identityProviderId === 'string' ? identityProviderId : uid };
}

/** The Timestamp fields of the four answers. */
const ANSWER_TIMES = ['expireTime', 'previousTokenExpireTime', 'revokeTime'] as const;

/** The stored credential's document: what reads of the provider show, and the digests they never do. */
interface Credential {
  enabled: boolean;
  endpointUrl: string;
  tokenExpireTime?: string;
  previousTokenExpireTime?: string;
  etag: string;
  digest: string;
  previousDigest?: string;
  revokeTime?: string;
}

/** Reads and writes one provider's credential under a row lock, the provider itself required to exist. */
async function withCredential<T>(access: NativeAccess, uid: string, work: (current: Credential | undefined, now: number) => { next?: Credential; answer: T }): Promise<T> {
  await access.get('identityProviders', uid);
  return access.store.transaction(async ({ resources }) => {
    const row = await resources.getForUpdate(SCIM_KIND, uid);
    const now = Date.parse(access.now());
    const { next, answer } = work(row?.body as Credential | undefined, now);
    if (next) await save(resources, row, uid, next, access.now());
    return answer;
  });
}

async function save(resources: Parameters<Parameters<NativeAccess['store']['transaction']>[0]>[0]['resources'], row: StoredResource | undefined, uid: string, body: Credential, now: string): Promise<void> {
  const document = { ...body } as unknown as Json;
  if (row) await resources.replace(SCIM_KIND, uid, document, now);
  else await resources.insert({ kind: SCIM_KIND, uid, parent: parentOf(uid), body: document, createTime: now, updateTime: now });
}

function requireEtag(current: Credential, etag: unknown): void {
  if (typeof etag !== 'string' || etag === '') throw invalidField('etag', 'is required');
  if (etag !== current.etag) throw new ApiError(Code.ABORTED, 'etag does not match the current SCIM configuration: read the identity provider again');
}

function expiry(request: Json, now: number): string | undefined {
  if (request.expireTime && request.neverExpires) throw invalidField('expireTime', 'cannot be set together with neverExpires');
  if (request.neverExpires) return undefined;
  if (!request.expireTime) return new Date(now + YEAR_MS).toISOString();
  const at = Date.parse(String(request.expireTime));
  if (!(at > now) || at > now + 2 * YEAR_MS) throw invalidField('expireTime', 'must be in the future and at most two years from now');
  return new Date(at).toISOString();
}

function issue(uid: string, request: Json, now: number, enabled: boolean): { token: string; credential: Credential } {
  const token = `cgscim_${randomBytes(32).toString('hex')}`;
  const expires = expiry(request, now);
  return {
    token,
    credential: {
      enabled, endpointUrl: endpointUrl(uid), ...(expires ? { tokenExpireTime: expires } : {}),
      etag: randomBytes(8).toString('hex'), digest: createHash('sha256').update(token).digest('hex'),
    },
  };
}

/** The endpoint an identity provider's SCIM client calls: derived from its uid, never stored by the client. */
function endpointUrl(uid: string): string {
  return `https://scim.v2gw.invalid/scim/v2/${uid}`;
}

function live(c: Credential, now: number): boolean {
  return c.revokeTime === undefined && (c.tokenExpireTime === undefined || Date.parse(c.tokenExpireTime) > now);
}

/** The credential's lifecycle state at `now`: it moves with time (a token expires, an overlap ends), so it is derived on every read, never stored. */
function credentialState(c: Credential | undefined, now: number): string {
  if (!c) return 'CREDENTIAL_STATE_NOT_ISSUED';
  if (c.revokeTime !== undefined) return 'CREDENTIAL_STATE_REVOKED';
  if (c.previousTokenExpireTime !== undefined && Date.parse(c.previousTokenExpireTime) > now) return 'CREDENTIAL_STATE_ROTATING';
  return live(c, now) ? 'CREDENTIAL_STATE_LIVE' : 'CREDENTIAL_STATE_EXPIRED';
}

/**
 * The provider's `scim` block as native reads show it (never a digest). Before
 * any token: NOT_ISSUED, with the endpoint already derived from the uid. A
 * previous token's expiry shows only while its overlap lasts. (List answers
 * leave the token's expiry and the state out: the mapping marks them.)
 */
export function scimBlock(row: Readonly<Record<string, unknown>> | undefined, read: DerivedRead): Json {
  const c = row as Credential | undefined;
  const rotating = c?.previousTokenExpireTime !== undefined && Date.parse(c.previousTokenExpireTime) > read.now && c.revokeTime === undefined;
  return {
    enabled: c?.enabled ?? false,
    endpointUrl: endpointUrl(read.uid),
    tokenExpireTime: c?.tokenExpireTime ?? null,
    previousTokenExpireTime: rotating ? c!.previousTokenExpireTime! : null,
    credentialState: credentialState(c, read.now),
    etag: c?.etag ?? '',
  };
}

export const generateScimToken: CustomMethod = {
  touches: [SCIM_KIND],
  translate: (request, v1) => overV1('generateScimToken', request, v1, ['token', 'etag']),
  async native(request, access) {
    const uid = providerOf(request);
    return withCredential(access, uid, (current, now) => {
      if (current) throw failedPrecondition([{ type: 'SCIM_TOKEN_EXISTS', subject: `${IDP}/${uid}`, description: 'the identity provider already has a SCIM token: regenerate it instead' }]);
      const { token, credential } = issue(uid, request, now, false);
      return { next: credential, answer: { token, endpointUrl: credential.endpointUrl, expireTime: credential.tokenExpireTime ?? null, identityProviderUid: uid, etag: credential.etag } };
    });
  },
};

export const regenerateScimToken: CustomMethod = {
  touches: [SCIM_KIND],
  translate: (request, v1) => overV1('regenerateScimToken', request, v1, ['token', 'etag']),
  async native(request, access) {
    const uid = providerOf(request);
    return withCredential(access, uid, (current, now) => {
      if (!current) throw notFound(IDP, `${uid} (it has never had a SCIM token: generate one first)`);
      requireEtag(current, request.etag);
      const requested = request.overlap === undefined ? 3600 : Number(String(request.overlap).replace(/s$/, ''));
      const overlapMs = Math.min(Math.max(requested, 0) * 1000, 24 * HOUR_MS);
      const { token, credential } = issue(uid, request, now, current.enabled);
      if (live(current, now) && overlapMs > 0) {
        // The overlap cannot outlive the previous token: it stops at its own expiry if that comes first.
        const end = Math.min(now + overlapMs, current.tokenExpireTime === undefined ? Infinity : Date.parse(current.tokenExpireTime));
        Object.assign(credential, { previousDigest: current.digest, previousTokenExpireTime: new Date(end).toISOString() });
      }
      return {
        next: credential,
        answer: {
          token, endpointUrl: credential.endpointUrl, expireTime: credential.tokenExpireTime ?? null, identityProviderUid: uid, etag: credential.etag,
          previousTokenExpireTime: credential.previousTokenExpireTime ?? null, requestedOverlap: `${requested}s`,
        },
      };
    });
  },
};

export const revokeScimToken: CustomMethod = {
  touches: [SCIM_KIND],
  translate: (request, v1) => overV1('revokeScimToken', request, v1, ['etag']),
  async native(request, access) {
    const uid = providerOf(request);
    return withCredential(access, uid, (current, now) => {
      if (!current) throw notFound(IDP, `${uid} (it has never had a SCIM token)`);
      const revokeTime = new Date(now).toISOString();
      const { previousDigest: _d, previousTokenExpireTime: _p, ...rest } = current;
      const next = { ...rest, revokeTime, tokenExpireTime: revokeTime, etag: randomBytes(8).toString('hex') };
      return { next, answer: { identityProviderUid: uid, etag: next.etag, enabled: next.enabled, revokeTime } };
    });
  },
};

export const setScimEnabled: CustomMethod = {
  // The organisation's owner bindings are counted before SCIM may be enabled.
  touches: [SCIM_KIND, 'roles', 'roleBindings'],
  translate: (request, v1) => overV1('setScimEnabled', request, v1, ['etag']),
  async native(request, access) {
    const uid = providerOf(request);
    const enabled = request.enabled === true;
    const owners = enabled ? await ownerBindings(access, uid.split('/')[0]!) : 2;
    return withCredential(access, uid, (current) => {
      if (!current) throw notFound(IDP, `${uid} (it has never had a SCIM token)`);
      requireEtag(current, request.etag);
      if (enabled && owners < 2) {
        throw failedPrecondition([{ type: 'TOO_FEW_OWNERS', subject: `${IDP}/${uid}`, description: 'SCIM cannot be enabled for an organization with fewer than two manually assigned owner-tier role bindings' }]);
      }
      const next = { ...current, enabled, etag: randomBytes(8).toString('hex') };
      return { next, answer: { identityProviderUid: uid, enabled, etag: next.etag } };
    });
  },
};

/** Bindings of the managed owner role anywhere in the organisation. */
async function ownerBindings(access: NativeAccess, organisation: string): Promise<number> {
  const resources = access.store.resources;
  const { rows } = await resources.list({ kind: 'roles', filters: [{ field: 'name', op: 'eq', value: 'owner' }, { field: 'parent', op: 'eq', value: '' }], order: [{ field: 'uid', desc: false }], skip: 0, limit: 1 });
  const owner = rows[0]?.uid;
  if (!owner) return 0;
  const { total } = await resources.list({
    kind: 'roleBindings', filters: [{ field: 'roleUid', op: 'eq', value: owner }, { field: 'uid', op: 'descendantOf', value: organisation }],
    order: [{ field: 'uid', desc: false }], skip: 0, limit: 1,
  });
  return total;
}
