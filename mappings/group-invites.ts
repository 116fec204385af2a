/**
 * GroupInvite (chainguard-dev/sdk: proto/platform/iam/v1/group_invites.platform.proto). v1 creates take a GroupInviteRequest
 * (`role` is the role's UIDP, `ttl` a Duration) and answer a GroupInvite with
 * the one-time `code` and no email or creation time; v1 list rows
 * (StoredGroupInvite) carry the whole v1 Role, email and `createdAt` but never
 * the code. So a create reads its row back and keeps the code from the create
 * answer, and later reads show an empty code. v2 shows the role with
 * capability enum names; `ttl` is input-only; `expiration` → `expirationTime`.
 * No update in either version. Default order: newest first.
 */
import { z } from 'zod';
import { defineResource } from '../src/contract/define.ts';
import { DURATION_TEXT, TIMESTAMP_ALIASES, UID, UIDP_FILTERS, UIDP_TEXT, text } from './common.ts';
import { CAPABILITY } from './enums.ts';

export default defineResource({
  name: 'groupInvites',
  resourceType: 'iam.chainguard.dev/GroupInvite',
  service: 'iam',
  operations: ['list', 'get', 'create', 'delete'],
  v1: { collection: 'group_invites', idParam: 'id', rereadAfterWrite: true, createAnswerOnly: ['code'] },
  fields: {
    uid: UID,
    roleUid: { v1: 'role.id', v1Write: 'role' },
    role: {
      optional: true,
      fields: {
        uid: { v1: 'id' },
        capabilities: { enum: CAPABILITY },
      },
    },
    expirationTime: { v1: 'expiration' },
    createTime: { v1: 'createdAt', kept: 'createTime' },
  },
  filters: {
    ...UIDP_FILTERS,
    // An invite is a child of its group, which is what v1's `group` filter selects.
    'uidp.children_of': { field: 'uid', op: 'childOf', v1: 'group', uidp: true },
    key_id: { field: 'keyId', op: 'eq', v1: 'keyId' },
  },
  orderBy: {
    fields: ['uid', 'createTime', 'expirationTime'],
    aliases: { ...TIMESTAMP_ALIASES, expiration: 'expirationTime' },
    default: 'createTime desc',
  },
  create: { parent: 'required', parentKind: 'groups' },
  validate: z.object({
    roleUid: text().pipe(UIDP_TEXT).optional(),
    ttl: text().pipe(DURATION_TEXT).refine((t) => Number.parseFloat(t) > 0, 'must be positive').optional(),
    email: z.string().email('must be an email address').or(z.literal('')).optional(),
    singleUse: z.boolean().optional(),
  }),
  delete: { idempotent: true },
  // v2: "may be absent if the referenced role has been deleted".
  references: {
    role: { kind: 'roles', by: 'roleUid', pick: { uid: 'uid', name: 'name', description: 'description', capabilities: 'capabilities' } },
  },
  // Whoever accepts it is granted its role at its group.
  grants: { role: 'roleUid', at: '@parent' },
  native: {
    requires: { roleUid: 'roles' },
    generated: {
      expirationTime: { kind: 'expiry', after: 'ttl' },
      keyId: { kind: 'random', bytes: 16, encoding: 'hex' },
      // Shown once, in the create response; never stored.
      code: { kind: 'random', bytes: 24, encoding: 'base64url', once: true },
    },
  },
});
