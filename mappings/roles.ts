/**
 * Role (chainguard-dev/sdk: proto/platform/iam/v1/role.platform.proto). Capabilities are v1 friendly strings and v2 enum
 * names: translated through the full table, never by string rules (trap 3).
 * Built-in roles live at the root with flat uids.
 */
import { z } from 'zod';
import { defineResource } from '../src/contract/define.ts';
import { ORDER_BY_NAME_AND_TIME, TIMESTAMPS, UID, UIDP_FILTERS, text } from './common.ts';
import { CAPABILITY, v2Names } from './enums.ts';
import { BUILTIN_ROLES } from './builtin-roles.ts';
import { deterministicRootUid } from '../src/uidp.ts';
import { internalOnlyCapabilities } from '../src/contract/registry.ts';

const INTERNAL_ONLY = internalOnlyCapabilities();

export default defineResource({
  name: 'roles',
  resourceType: 'iam.chainguard.dev/Role',
  service: 'iam',
  operations: ['list', 'get', 'create', 'update', 'delete'],
  v1: { collection: 'roles', idParam: 'id', idsParam: 'uidp.ids' },
  fields: {
    uid: UID,
    capabilities: { enum: CAPABILITY },
    ...TIMESTAMPS,
  },
  filters: {
    ...UIDP_FILTERS,
    name: { field: 'name', op: 'eq', v1: 'name' },
  },
  orderBy: ORDER_BY_NAME_AND_TIME,
  create: { parent: 'required', parentKind: 'groups' },
  validate: z.object({
    // No length is stated for this name; 256 keeps the store's name index row within PostgreSQL's limit.
    name: text().max(256, 'must be at most 256 characters').optional(),
    description: z.string().optional(),
    capabilities: z.array(
      z.enum(v2Names(CAPABILITY), { error: 'must be capability enum names such as CAP_IAM_GROUPS_LIST' })
        // The contract's `(internal_only)`: the platform's own capabilities. Both modes refuse them, translate mode before v1 is asked.
        .refine((capability) => !INTERNAL_ONLY.has(capability), { error: (issue) => `${String(issue.input)} is internal only: no custom role may carry it` }),
      { error: 'is required' },
    ).min(1, 'must hold at least one capability'),
  }),
  // A custom role hands out its capabilities to whoever it is bound to, at its group and below.
  grants: { capabilities: 'capabilities', at: '@parent' },
  native: {
    // The managed roles, at the root with flat uids every replica derives alike; read-only to clients.
    seed: BUILTIN_ROLES.map((role) => ({
      uid: deterministicRootUid('builtin-role', role.name),
      body: { name: role.name, description: role.description, capabilities: role.capabilities },
    })),
    // v2: DeleteRole fails while the role is bound.
    delete: { refuseWhileReferencedBy: [{ kind: 'roleBindings', field: 'roleUid' }] },
  },
});
