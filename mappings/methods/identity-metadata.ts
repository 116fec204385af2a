/**
 * UpdateIdentityMetadata (chainguard-dev/sdk: proto/platform/iam/v1/identity.platform.proto): the caller's own profile —
 * company, product, job title, marketing opt-in and campaign attribution —
 * named by nothing but the caller's token (the route has no uid). `uid` and
 * `name` are the caller's identity's; `givenName`/`familyName` come from the
 * token's OIDC claims; the rest is what callers wrote, and `hubspotUtk` is
 * taken for the one call and never kept (the contract's "not persisted").
 *
 * v1 has no identity metadata, so the store keeps it in both modes: one row
 * per identity (its uid; the identity v1's in translate mode), gone with the
 * identity. The caller's identity is the request's caller (policy/guard.ts):
 * the verified token's `sub` when issuers are configured; in translate mode
 * the subject v1 states for the token (its WhoAmI, policy/v1-grants.ts), with
 * the given and family names of v1's profile; otherwise (native mode for
 * local use) the token's unverified `sub`.
 */
import { contract } from '../../src/contract/registry.ts';
import { contractFields } from '../../src/contract/fields.ts';
import type { CustomMethod } from '../../src/vocabulary/custom-method.ts';
import { isObject, type Json } from '../../src/vocabulary/json.ts';
import { readUpdate } from '../../src/render/request-body.ts';
import { patchOf } from '../../src/render/patch.ts';
import { claimString } from '../../src/request/context.ts';
import { notFound, unauthenticated } from '../../src/aip/errors.ts';
import { isUidp } from '../../src/uidp.ts';

/** The store's kind for the rows; the identities mapping declares it kept and cascades its deletes to it. */
export const IDENTITY_METADATA_KIND = 'identityMetadata';
const FIELDS = contractFields(contract.getMessage('chainguard.platform.iam.v2beta1.IdentityMetadata')!);
/** Accepted for the call it came with, never stored. */
const NOT_KEPT = 'hubspotUtk';

export const updateIdentityMetadata: CustomMethod = {
  touches: [IDENTITY_METADATA_KIND],
  async native(request, access, ctx) {
    const caller = ctx.caller;
    if (!caller?.subject) throw unauthenticated("the bearer token names no identity (it is no JWT with a 'sub' claim)");
    const { claims, subject: uid } = caller;
    // The caller's own identity must be registered: NOT_FOUND otherwise, as for any identity (a subject that is
    // no uid, such as a v1 user's that is no identity of v1's IAM, names none).
    if (!isUidp(uid)) throw notFound('iam.chainguard.dev/Identity', uid);
    const identity = await access.get('identities', uid);
    const body = isObject(request.identityMetadata) ? request.identityMetadata : {};
    const { value, paths } = readUpdate(FIELDS, body, typeof request.updateMask === 'string' ? request.updateMask : undefined);
    // Merged and validated as every update is (render/patch.ts), on the paths the store keeps.
    const patch = patchOf({ fields: FIELDS }, value, paths.filter((path) => path !== NOT_KEPT));
    const stored = await access.store.transaction(async (tx) => {
      const now = access.now();
      const current = await tx.resources.getForUpdate(IDENTITY_METADATA_KIND, uid);
      const next = patch.apply(current?.body ?? {}).document;
      if (current) await tx.resources.replace(IDENTITY_METADATA_KIND, uid, next, now);
      else await tx.resources.insert({ kind: IDENTITY_METADATA_KIND, uid, parent: '', body: next, createTime: now, updateTime: now });
      return next;
    });
    const answer: Json = {
      ...stored,
      uid,
      name: identity.name ?? '',
      givenName: claimString(claims, 'given_name'),
      familyName: claimString(claims, 'family_name'),
    };
    if (paths.includes(NOT_KEPT)) answer[NOT_KEPT] = value[NOT_KEPT] ?? '';
    return answer;
  },
};
