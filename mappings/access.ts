/**
 * Who may do what in native mode with issuers, as the store keeps it: a role
 * binding grants its role's capabilities at its group and below; a role lists
 * its capabilities. When a caller creates a root organisation, its creator is
 * bound to the built-in owner role there (else nobody could act in it).
 */
import type { AccessModel } from '../src/vocabulary/access.ts';
import roleBindings from './role-bindings.ts';
import roles from './roles.ts';

/** The built-in owner role's uid, as the roles mapping seeds it. */
function ownerRoleUid(): string {
  const owner = roles.native?.seed?.find((role) => role.body.name === 'owner');
  if (!owner) throw new Error('mappings/roles.ts seeds no built-in owner role');
  return owner.uid;
}

export const ACCESS: AccessModel = {
  bindings: { mapping: roleBindings, identity: 'identityUid', role: 'roleUid' },
  roles: { mapping: roles, capabilities: 'capabilities' },
  onRootCreated: { creatorRole: ownerRoleUid() },
};
