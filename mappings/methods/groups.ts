/**
 * The Groups service's email-domain flows (chainguard-dev/sdk: proto/platform/iam/v1/group.platform.proto): LookupGroup,
 * RequestGroupAccess and CheckEligibility. Each is driven by the caller's
 * token — its email domain, from a trusted upstream identity provider that
 * verifies emails itself — and every failing gate answers alike (NOT_FOUND),
 * so a caller cannot tell "no such organisation" from "not allowed to know".
 *
 * Over v1 the same three verbs exist with v2's shapes but v1's names
 * (`group_id`, v1's Group), so translate mode forwards them with the caller's
 * token and renames. Native mode verifies no tokens, so no caller comes from a
 * trusted upstream provider: it answers what the real service answers such a
 * caller — NOT_FOUND, NOT_FOUND and `eligible: false`.
 */
import { notFound } from '../../src/aip/errors.ts';
import type { CustomMethod } from '../../src/vocabulary/custom-method.ts';
import { isUidp } from '../../src/uidp.ts';
import { uidpPath } from '../../src/uidp.ts';
import { v1Bool, v1Member } from '../../src/v1/answer-fields.ts';

const GROUP = 'iam.chainguard.dev/Group';
/** The one NOT_FOUND every failed gate collapses into. */
const noOrganisation = () => notFound(GROUP, "the verified organisation of the caller's email domain");

export const lookupGroup: CustomMethod = {
  async translate(_request, v1) {
    const answer = await v1.call({ method: 'GET', path: '/iam/v1/groups:lookupGroup' });
    return { group: await v1.render('groups', v1Member(answer, 'group')) };
  },
  async native() {
    throw noOrganisation();
  },
};

export const requestGroupAccess: CustomMethod = {
  async translate(request, v1) {
    const groupUid = String(request.groupUid);
    // A uid that is no UIDP names no organisation: the same collapsed answer, and nothing odd in v1's path.
    if (!isUidp(groupUid)) throw noOrganisation();
    await v1.call({ method: 'POST', path: `/iam/v1/groups/${uidpPath(groupUid)}:requestGroupAccess`, body: { groupId: groupUid } });
    return {};
  },
  async native() {
    throw noOrganisation();
  },
};

export const checkEligibility: CustomMethod = {
  async translate(_request, v1) {
    const answer = await v1.call({ method: 'GET', path: '/iam/v1/groups:checkEligibility' });
    return { eligible: v1Bool(answer, 'eligible') };
  },
  async native() {
    return { eligible: false };
  },
};
