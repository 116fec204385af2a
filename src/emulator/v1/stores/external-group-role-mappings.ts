/**
 * `chainguard.platform.iam.ExternalGroupRoleMappings` (v1): IdP group →
 * role mappings, each a UIDP under its identity provider
 * (`{org}/{idp}/{mapping}`). Facts: every field is immutable (no update);
 * `scope` must today equal the organisation's root UIDP; deletes are hard;
 * BatchDelete skips ids no longer there and refuses ids of another provider.
 * Decisions where the facts are silent: the (provider, external group, role,
 * scope) tuple is unique (the real service's delete comment speaks of that
 * unique constraint), so a second create of it is ALREADY_EXISTS; the role
 * must exist (a managed root role, or one of the organisation's).
 */
import { isChildOf, isUidp, newChildUid } from '../uidp.ts';
import { alreadyExists, invalidArgument, notFound } from '../errors.ts';
import { select, type UidpFilter } from '../query.ts';
import { Rows, existing } from '../records.ts';

export interface V1ExternalGroupRoleMapping {
  id: string;
  identityProviderUidp: string;
  externalGroupId: string;
  roleUidp: string;
  scope: string;
  createdAt: string;
}

export interface ExternalGroupRoleMappingFields {
  externalGroupId?: string;
  roleUidp?: string;
  scope?: string;
}

export interface ExternalGroupRoleMappingFilter {
  uidp?: UidpFilter;
  identityProviderUidp?: string;
}

export class ExternalGroupRoleMappingStore extends Rows<V1ExternalGroupRoleMapping> {
  create(identityProvider: string, fields: ExternalGroupRoleMappingFields, providerExists: boolean): V1ExternalGroupRoleMapping {
    if (!identityProvider) throw invalidArgument('parent_id: is required');
    if (!providerExists) throw notFound(`identity provider ${JSON.stringify(identityProvider)} not found`);
    const { externalGroupId = '', roleUidp = '', scope = '' } = fields;
    if (!externalGroupId) throw invalidArgument('mapping.external_group_id: is required');
    if (!roleUidp || !this.ctx.role(roleUidp)) throw invalidArgument(`mapping.role_uidp: role ${JSON.stringify(roleUidp)} not found`);
    const organisation = identityProvider.split('/')[0]!;
    if (scope !== organisation) throw invalidArgument('mapping.scope: must be the organization root UIDP');
    for (const row of this.rows.values()) {
      if (row.identityProviderUidp === identityProvider && row.externalGroupId === externalGroupId && row.roleUidp === roleUidp && row.scope === scope) {
        throw alreadyExists('a mapping of this group to this role at this scope already exists');
      }
    }
    const id = newChildUid(identityProvider);
    const row = { id, identityProviderUidp: identityProvider, externalGroupId, roleUidp, scope, createdAt: this.ctx.now() };
    this.rows.set(id, row);
    return row;
  }

  get(uid: string): V1ExternalGroupRoleMapping {
    return existing(this.rows, uid, 'external group role mapping');
  }

  list(filter: ExternalGroupRoleMappingFilter): V1ExternalGroupRoleMapping[] {
    const rows = select(this.rows, { ...(filter.uidp ? { uidp: filter.uidp } : {}) });
    return filter.identityProviderUidp ? rows.filter((r) => r.identityProviderUidp === filter.identityProviderUidp) : rows;
  }

  delete(id: string): void {
    this.remove(id, 'external group role mapping');
  }

  /** All or nothing: every id is checked before any is deleted. */
  batchDelete(identityProvider: string, ids: readonly string[]): V1ExternalGroupRoleMapping[] {
    if (!isUidp(identityProvider)) throw invalidArgument('parent_id: must be the UIDP of an identity provider');
    for (const [i, id] of ids.entries()) {
      if (!isChildOf(id, identityProvider)) throw invalidArgument(`ids[${i}]: ${JSON.stringify(id)} is not a mapping of ${identityProvider}`);
    }
    const deleted = ids.map((id) => this.rows.get(id)).filter((row): row is V1ExternalGroupRoleMapping => row !== undefined);
    for (const row of deleted) this.rows.delete(row.id);
    return deleted;
  }

  /** The provider's mappings go with it. */
  deleteUnder(identityProvider: string): void {
    for (const id of [...this.rows.keys()]) if (isChildOf(id, identityProvider)) this.rows.delete(id);
  }
}
