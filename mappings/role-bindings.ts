/**
 * RoleBinding (chainguard-dev/sdk: proto/platform/iam/v1/role_binding.platform.proto): three shapes. v1 create/update take
 * and answer a flat `{id, identity, role, group}`; v1 list rows carry the full
 * group and role plus the identity's claim and email; v2 answers with hydrated
 * `identity`, `group` and `role` objects. The identity's name and description
 * are on no v1 row, so they are filled from the identity, as native mode fills
 * the whole reference (`references`). Writes answer in the flat shape,
 * hence the read-back. Delete is idempotent (AIP-135).
 */
import { z } from 'zod';
import { defineResource } from '../src/contract/define.ts';
import { UID, UIDP_FILTERS, UIDP_TEXT, requiredString } from './common.ts';

const summary = { uid: { v1: 'id' } };

export default defineResource({
  name: 'roleBindings',
  resourceType: 'iam.chainguard.dev/RoleBinding',
  service: 'iam',
  operations: ['list', 'get', 'create', 'update', 'delete'],
  v1: {
    collection: 'rolebindings',
    idParam: 'id',
    idsParam: 'uidp.ids',
    writeShape: { id: 'id', identity: 'identity', role: 'role.id', group: 'group.id' },
    rereadAfterWrite: true,
  },
  fields: {
    uid: UID,
    identity: {
      v1: '.',
      fields: {
        uid: { v1: 'identity' },
        // On no v1 row: filled from the identity (`references.identity`).
        name: { v1: null },
        description: { v1: null },
        subject: { v1: 'claimMatchSubject' },
        issuer: { v1: 'claimMatchIssuer' },
      },
    },
    group: { fields: summary },
    role: { fields: summary },
    createTime: { v1: 'createdAt' },
    identityUid: { v1: 'identity' },
    roleUid: { v1: 'role.id', v1Write: 'role' },
  },
  expectedDifferences: {
    'identity.email': 'translate mode shows the email v1 keeps on the binding row; native mode the identity\'s own, which v1 does not keep',
  },
  filters: {
    ...UIDP_FILTERS,
    identity: { field: 'identity.uid', op: 'eq', uidp: true },
    group: { field: 'uid', op: 'childOf', v1: 'uidp.childrenOf', uidp: true },
    role: { field: 'role.uid', op: 'eq', uidp: true },
  },
  orderBy: { fields: ['uid', 'createTime'], aliases: { created_at: 'createTime' }, default: 'uid asc' },
  create: { parent: 'required', parentKind: 'groups' },
  validate: z.object({
    identityUid: requiredString().pipe(UIDP_TEXT),
    roleUid: requiredString().pipe(UIDP_TEXT),
  }),
  methods: {
    // v2: `roleBindings:batchCreate`, at most 25, atomic, sub-requests inherit the top-level roleUid (AIP-233);
    // v1: a bare JSON array POSTed to `rolebindings/batch/{parent}`.
    batchCreate: { rpc: 'BatchCreateRoleBindings', max: 25, inherit: 'roleUid', v1Collection: 'rolebindings/batch' },
  },
  delete: { idempotent: true },
  // Hydrated at read time, so a renamed identity, group or role shows its new name.
  references: {
    identity: {
      kind: 'identities',
      by: 'identityUid',
      pick: { uid: 'uid', name: 'name', description: 'description', subject: 'claimMatch.subject', issuer: 'claimMatch.issuer', email: 'email' },
    },
    group: { kind: 'groups', by: '@parent', pick: { uid: 'uid', name: 'name', description: 'description' } },
    role: { kind: 'roles', by: 'roleUid', pick: { uid: 'uid', name: 'name', description: 'description' } },
  },
  // Grants its role to its identity at its group.
  grants: { role: 'roleUid', identity: 'identityUid', at: '@parent' },
  native: {
    requires: { identityUid: 'identities', roleUid: 'roles' },
  },
});
