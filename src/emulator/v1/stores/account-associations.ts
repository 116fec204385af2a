/**
 * AccountAssociations (api-surface.md §6): the cloud accounts a group is
 * associated with. Not a child resource: its key **is** the group's UIDP
 * (`group`), so a group has at most one. v1 has no timestamps on it.
 */
import { isChildOf } from '../uidp.ts';
import { alreadyExists, invalidArgument } from '../errors.ts';
import { SERVICE_PRINCIPAL } from '../messages.ts';
import { copy, deepFreeze, existing, requireName, Rows } from '../records.ts';

export interface GitHubInstallation {
  /** int64, as its canonical decimal string. */
  installationId?: string;
  name?: string;
}

export interface AccountAssociationsFields {
  name: string;
  description?: string;
  amazon?: { account?: string };
  google?: { projectId?: string; projectNumber?: string };
  chainguard?: { serviceBindings?: Record<string, string> };
  azure?: { tenantId?: string; clientIds?: Record<string, string> };
  /** Keyed by GitHub App id (int64 as a decimal string, as on the wire). */
  github?: { appInstallations?: Record<string, { installations?: GitHubInstallation[] }> };
}

export interface V1AccountAssociations extends AccountAssociationsFields {
  group: string;
  description: string;
}

export interface AccountAssociationsFilter {
  group?: string;
  name?: string;
}

/** Decision: a provider block, when present, must carry what identifies the account (v2 marks these REQUIRED). */
function requireInside(block: Record<string, unknown> | undefined, keys: readonly string[], where: string): void {
  if (!block) return;
  for (const key of keys) if (!block[key]) throw invalidArgument(`account_associations.${where}.${key}: must not be empty`);
}

export class AccountAssociationsStore extends Rows<V1AccountAssociations> {
  has(group: string): boolean {
    return this.rows.has(group);
  }

  /**
   * Facts (AccountAssociations.Chainguard.service_bindings): each identity
   * "must live directly under group", "must be a service_principal", and its
   * principal "must match the key of this map".
   */
  #checkServiceBindings(group: string, bindings: Record<string, string>): void {
    for (const [principal, identityId] of Object.entries(bindings)) {
      const where = `account_associations.chainguard.service_bindings[${principal}]`;
      if (!(principal in SERVICE_PRINCIPAL.values) || principal === 'UNKNOWN') throw invalidArgument(`${where}: not a service principal`);
      const identity = this.ctx.identity(identityId);
      if (!identity || !isChildOf(identityId, group)) {
        throw invalidArgument(`${where}: identity ${JSON.stringify(identityId)} is not an identity directly under the group`);
      }
      if (identity.servicePrincipal !== principal) throw invalidArgument(`${where}: identity is not the ${principal} service principal`);
    }
  }

  #record(group: string, fields: AccountAssociationsFields): V1AccountAssociations {
    const { amazon, google, chainguard, azure, github } = fields;
    requireInside(amazon, ['account'], 'amazon');
    requireInside(google, ['projectId', 'projectNumber'], 'google');
    requireInside(azure, ['tenantId'], 'azure');
    this.#checkServiceBindings(group, chainguard?.serviceBindings ?? {});
    for (const [app, { installations = [] }] of Object.entries(github?.appInstallations ?? {})) {
      // Decision: an installation without an id names nothing.
      if (installations.some((i) => !i.installationId || i.installationId === '0')) {
        throw invalidArgument(`account_associations.github.app_installations[${app}]: every installation needs an installation_id`);
      }
    }
    const record: V1AccountAssociations = { group, name: requireName(fields.name, 'account_associations'), description: fields.description ?? '' };
    for (const key of ['amazon', 'google', 'chainguard', 'azure', 'github'] as const) {
      if (fields[key]) Object.assign(record, { [key]: copy(fields[key]) });
    }
    return record;
  }

  #store(record: V1AccountAssociations): V1AccountAssociations {
    this.rows.set(record.group, deepFreeze(record));
    return record;
  }

  /** Decision: one association per group, so creating a second is ALREADY_EXISTS (6); PUT changes it. */
  create(group: string, fields: AccountAssociationsFields): V1AccountAssociations {
    const id = this.ctx.parentGroup(group, 'group');
    if (this.rows.has(id)) throw alreadyExists(`group ${JSON.stringify(id)} already has account associations`);
    return this.#store(this.#record(id, fields));
  }

  update(group: string, fields: AccountAssociationsFields): V1AccountAssociations {
    existing(this.rows, group, 'account associations of group');
    return this.#store(this.#record(group, fields));
  }

  /** `group` and `name` are exact matches; insertion order, like every v1 list. */
  list(filter: AccountAssociationsFilter = {}): V1AccountAssociations[] {
    if (filter.group) {
      const row = this.rows.get(filter.group);
      return row && (!filter.name || row.name === filter.name) ? [row] : [];
    }
    return [...this.rows.values()].filter((row) => !filter.name || row.name === filter.name);
  }

  /** Decision: deleting a group's missing associations is NOT_FOUND (v2 calls its delete idempotent — the gateway maps that). */
  delete(group: string): void {
    this.remove(group, 'account associations of group');
  }
}
