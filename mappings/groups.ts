/**
 * Group (chainguard-dev/sdk: proto/platform/iam/v1/group.platform.proto). v1 `id` → `uid`; v2 adds Get, paging,
 * ordering and timestamps (which the public v1 omits; they render as null until
 * the native store keeps them). `resourceLimits` is output-only in v2 but part
 * of the v1 PUT body, so updates carry v1's value back.
 */
import { z } from 'zod';
import { defineResource } from '../src/contract/define.ts';
import { ORDER_BY_NAME_AND_TIME, TIMESTAMPS, UID, UIDP_FILTERS, text } from './common.ts';
import { ORG_KIND, ORG_STATUS, v2Names } from './enums.ts';
import { checkEligibility, lookupGroup, requestGroupAccess } from './methods/groups.ts';
import { acceptTerms, listTermsAcceptances } from './methods/terms.ts';

const NAME_PATTERN = /^[a-z0-9 ._-]{1,}$/;

export default defineResource({
  name: 'groups',
  resourceType: 'iam.chainguard.dev/Group',
  service: 'iam',
  operations: ['list', 'get', 'create', 'update', 'delete'],
  v1: { collection: 'groups', idParam: 'id', idsParam: 'uidp.ids' },
  fields: {
    uid: UID,
    kind: { enum: ORG_KIND },
    status: { enum: ORG_STATUS },
    ...TIMESTAMPS,
  },
  filters: {
    ...UIDP_FILTERS,
    name: { field: 'name', op: 'eq', v1: 'name' },
  },
  orderBy: ORDER_BY_NAME_AND_TIME,
  create: { parent: 'optional', parentKind: 'groups' },
  validate: z.object({
    name: text()
      .regex(NAME_PATTERN, `must match the pattern ${NAME_PATTERN.source}`)
      .max(63, 'must be at most 63 characters')
      .optional(),
    description: z.string().max(1000, 'must be at most 1000 characters').optional(),
    verified: z.boolean().optional(),
    kind: z.enum(v2Names(ORG_KIND)).optional(),
  }),
  delete: { refuseWhileParentOf: ['groups', 'identities', 'roles', 'roleBindings', 'identityProviders', 'groupInvites', 'repos', 'overlays', 'subscriptions'] },
  methods: {
    custom: {
      LookupGroup: lookupGroup, RequestGroupAccess: requestGroupAccess, CheckEligibility: checkEligibility,
      // TermsService: an organisation's acceptances of legal documents.
      AcceptTerms: acceptTerms, ListTermsAcceptances: listTermsAcceptances,
    },
  },
  // v2: sub-groups inherit their organisation's kind and status; the organisation's own row holds them.
  references: {
    kind: { kind: 'groups', by: '@root', pick: 'kind' },
    status: { kind: 'groups', by: '@root', pick: 'status' },
  },
});
