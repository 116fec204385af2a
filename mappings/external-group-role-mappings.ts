/**
 * ExternalGroupRoleMapping (iam v2beta1): an IdP group → role mapping,
 * granted at a scope during SSO federation; a UIDP under its identity
 * provider. Immutable: no update (delete and create again). v1 renames the
 * uids (`id`, `identityProviderUidp`, `roleUidp`) and `createdAt`; v1's list
 * filters by `identityProviderUidp` and `uidp` only, so the gateway reads one
 * mapping through `uidp.ids` (v1's own Get would serve too). `scope` must
 * today be the organisation's root, checked before either mode writes.
 */
import { z } from 'zod';
import { defineResource } from '../src/contract/define.ts';
import { UID, UIDP_FILTERS, UIDP_TEXT, requiredString } from './common.ts';
import { batchDeleteExternalGroupRoleMappings } from './methods/external-group-role-mappings.ts';

export default defineResource({
  name: 'externalGroupRoleMappings',
  resourceType: 'iam.chainguard.dev/ExternalGroupRoleMapping',
  service: 'iam',
  operations: ['list', 'get', 'create', 'delete'],
  v1: { collection: 'externalGroupRoleMappings', idParam: 'uidp.ids', idsParam: 'uidp.ids' },
  fields: {
    uid: UID,
    identityProviderUid: { v1: 'identityProviderUidp' },
    roleUid: { v1: 'roleUidp' },
    createTime: { v1: 'createdAt' },
  },
  filters: {
    ...UIDP_FILTERS,
    // A mapping is a child of its provider: the provider filter is a children-of filter v1 has a key for.
    identityProviderUid: { field: 'uid', op: 'childOf', v1: 'identityProviderUidp', uidp: true },
  },
  orderBy: { fields: ['uid', 'createTime'], aliases: { created_at: 'createTime' }, default: 'uid asc' },
  create: { parent: 'required', parentKind: 'identityProviders', organisationScoped: ['scope'] },
  validate: z.object({
    externalGroupId: requiredString().min(1, 'is required'),
    roleUid: requiredString().pipe(UIDP_TEXT),
    scope: requiredString().pipe(UIDP_TEXT),
  }),
  methods: { custom: { BatchDeleteExternalGroupRoleMappings: batchDeleteExternalGroupRoleMappings } },
  references: { identityProviderUid: { kind: 'identityProviders', by: '@parent', pick: 'uid' } },
  // Members of the external group are granted its role at its scope.
  grants: { role: 'roleUid', at: 'scope' },
  native: {
    requires: { roleUid: 'roles' },
  },
});
