/**
 * The emulator's in-memory v1 data and every invariant the v1 server enforces
 * (or, where the facts are silent, the decision this project took — each one is
 * marked "Decision:"). HTTP routes and test/benchmark seeding share these
 * methods, so seeded data obeys the same rules as data created over the wire.
 */
import { createHash } from 'node:crypto';
import { newChildUid, newRootUid, parentOf, type UidBytes } from './uidp.ts';
import { MANAGED_ROLES, V1_CAPABILITY_NAMES } from './capabilities.ts';
import { alreadyExists, failedPrecondition, invalidArgument, notFound, permissionDenied, resourceExhausted } from './errors.ts';
import { CATALOG_TIER, ORG_KIND, ORG_STATUS, SERVICE_PRINCIPAL } from './messages.ts';
import { select, type ListFilter } from './query.ts';
import { canonicalTimestamp, copy, enumValue, existing, hasChildOf, NameIndex, requireName, store, type EnumInput, type StoreContext } from './records.ts';
import { AccountAssociationsStore, type AccountAssociationsFields, type AccountAssociationsFilter, type V1AccountAssociations } from './stores/account-associations.ts';
import { AdvisoryStore, type AdvisoryEventFields, type AdvisoryFields } from './stores/advisories.ts';
import type { V1Advisory, V1AdvisoryEvent } from './stores/advisory-records.ts';
import type { AdvisoryFilter, AdvisoryPage } from './stores/advisory-list.ts';
import { GroupInviteStore, type GroupInviteFields, type GroupInviteFilter, type V1GroupInvite, type V1StoredGroupInvite } from './stores/group-invites.ts';
import {
  ExternalGroupRoleMappingStore, type ExternalGroupRoleMappingFields, type V1ExternalGroupRoleMapping,
} from './stores/external-group-role-mappings.ts';
import { TermsStore } from './stores/terms.ts';
import { ScimStore } from './stores/scim.ts';
import { AdvisoryFeed } from './stores/advisory-feed.ts';
import { IdentityProviderStore, type IdentityProviderFields, type V1IdentityProvider } from './stores/identity-providers.ts';
import { SubscriptionStore } from './stores/subscriptions.ts';
import { TagStore, type TagFields, type TagFilter, type V1Tag } from './stores/tags.ts';
import type { AwsIdentity, ClaimMatch, StaticKeys, SyncConfig, V1BindingRow, V1Group, V1Identity, V1Repo, V1Role, V1RoleBinding } from './state-records.ts';
import { formatMicros, parseTimestamp, systemClock, type MicrosClock } from './time.ts';

// ---------------------------------------------------------------- inputs

export interface GroupFields {
  name: string;
  description?: string;
  resourceLimits?: Record<string, number>;
  verified?: boolean;
  kind?: EnumInput;
  status?: EnumInput;
}

export interface IdentityFields {
  name: string;
  description?: string;
  claimMatch?: ClaimMatch;
  static?: StaticKeys;
  awsIdentity?: AwsIdentity;
  servicePrincipal?: EnumInput;
  email?: string;
  emailUnverified?: string;
}

export interface RoleFields {
  name: string;
  description?: string;
  capabilities?: string[];
}

export interface RoleBindingFields {
  identity: string;
  role: string;
}

export interface RepoFields {
  name: string;
  description?: string;
  catalogTier?: EnumInput;
  bundles?: string[];
  readme?: string;
  aliases?: string[];
  activeTags?: string[];
  sync_config?: SyncConfig;
  customOverlay?: Record<string, unknown>;
}

export interface StateOptions {
  /** Microseconds since the epoch; injectable so tests can pin timestamps. */
  clock?: MicrosClock;
  /** Legal document ids an organisation must accept before it can create repos (stores/terms.ts). */
  requiredTerms?: readonly string[];
  /**
   * The bytes of the UIDs the state mints itself (groups, identities, roles, bindings, repos); random by
   * default. Two states given the same sequence and clock, and the same writes, hold the same rows.
   */
  uidBytes?: UidBytes;
}

// ---------------------------------------------------------------- helpers

const STATIC_MAX_LIFETIME_SECONDS = 30 * 24 * 3600;
/** Decision: how long a repeated access request counts as "recent" (a day). */
const ACCESS_REQUEST_WINDOW_MICROS = 24 * 3600 * 1_000_000;

export type BuiltinRoleIds = Readonly<Record<string, string>> & { readonly viewer: string; readonly editor: string; readonly owner: string };

function validRegex(pattern: string | undefined, where: string): void {
  if (pattern === undefined) return;
  try {
    new RegExp(pattern);
  } catch {
    throw invalidArgument(`${where}: invalid regular expression`);
  }
}

/** A proto oneof: true when a member is set non-empty; two members set is refused (HTTP decoding refuses it earlier). */
function oneOf(values: Record<string, string | undefined>, where: string): boolean {
  const set = Object.keys(values).filter((k) => values[k] !== undefined);
  if (set.length > 1) throw invalidArgument(`${where}: only one of ${set.join(', ')} may be set`);
  return set.some((k) => values[k] !== '');
}

/** Managed roles get stable flat root UIDs so every emulator instance agrees on them. */
function managedRoleId(name: string): string {
  return createHash('sha1').update(`chainguard-managed-role:${name}`).digest('hex');
}

// ---------------------------------------------------------------- the state

export class EmulatorState {
  readonly #groups = new Map<string, V1Group>();
  readonly #identities = new Map<string, V1Identity>();
  readonly #roles = new Map<string, V1Role>();
  readonly #bindings = new Map<string, V1RoleBinding>();
  readonly #repos = new Map<string, V1Repo>();
  /** Repo names identify repos within a group (see createRepo). */
  readonly #repoNames = new NameIndex();
  readonly #clock: MicrosClock;
  readonly #uidBytes: UidBytes | undefined;
  readonly #identityProviders: IdentityProviderStore;
  readonly #accountAssociations: AccountAssociationsStore;
  readonly #groupInvites: GroupInviteStore;
  readonly #tags: TagStore;
  readonly #advisories: AdvisoryStore;
  readonly externalGroupRoleMappings: ExternalGroupRoleMappingStore;
  readonly terms: TermsStore;
  /** Event subscriptions (webhooks) under groups. */
  readonly subscriptions: SubscriptionStore;
  /** Identity providers' SCIM credentials (stores/scim.ts). */
  readonly scim: ScimStore;
  /** The public advisory feed (documents, vulnerability metadata): data the emulator is given. */
  readonly advisoryFeed = new AdvisoryFeed();
  /** `<group>\0<caller>` → when that caller last asked for access (microseconds). */
  readonly #accessRequests = new Map<string, number>();

  /** Managed role name → id. */
  readonly builtinRoles: BuiltinRoleIds;

  constructor(options: StateOptions = {}) {
    this.#clock = options.clock ?? systemClock();
    this.#uidBytes = options.uidBytes;
    const ctx: StoreContext = {
      clock: () => this.#clock(),
      now: () => this.#now(),
      parentGroup: (parent, param) => this.#parentGroup(parent, param),
      role: (id) => this.#roles.get(id),
      identity: (id) => this.#identities.get(id),
      repoExists: (id) => this.#repos.has(id),
    };
    this.#identityProviders = new IdentityProviderStore(ctx);
    this.externalGroupRoleMappings = new ExternalGroupRoleMappingStore(ctx);
    this.scim = new ScimStore(() => this.#clock());
    this.terms = new TermsStore(options.requiredTerms ?? [], () => this.#now());
    this.#accountAssociations = new AccountAssociationsStore(ctx);
    this.#groupInvites = new GroupInviteStore(ctx);
    this.#tags = new TagStore(ctx);
    this.subscriptions = new SubscriptionStore(ctx);
    this.#advisories = new AdvisoryStore(ctx);
    const ids: Record<string, string> = {};
    for (const role of MANAGED_ROLES) {
      const id = managedRoleId(role.name);
      ids[role.name] = id;
      store(this.#roles, { id, ...copy(role) });
    }
    if (!ids.viewer || !ids.editor || !ids.owner) throw new Error('the managed role table lacks viewer, editor or owner');
    this.builtinRoles = Object.freeze(ids) as BuiltinRoleIds;
  }

  /** Sizes of each collection, for tests and benchmarks. */
  counts(): Record<
    | 'groups'
    | 'identities'
    | 'roles'
    | 'roleBindings'
    | 'repos'
    | 'identityProviders'
    | 'accountAssociations'
    | 'groupInvites'
    | 'tags'
    | 'advisories'
    | 'advisoryEvents',
    number
  > {
    return {
      groups: this.#groups.size,
      identities: this.#identities.size,
      roles: this.#roles.size,
      roleBindings: this.#bindings.size,
      repos: this.#repos.size,
      identityProviders: this.#identityProviders.size,
      accountAssociations: this.#accountAssociations.size,
      groupInvites: this.#groupInvites.size,
      tags: this.#tags.size,
      ...this.#advisories.counts(),
    };
  }

  #now(): string {
    return formatMicros(this.#clock());
  }

  /** Where a non-group resource is created: an existing group. */
  #parentGroup(parent: string, param: string): string {
    if (parent === '') throw invalidArgument(`${param}: must be the UIDP of a group`);
    existing(this.#groups, parent, 'parent group');
    return parent;
  }

  #isManagedRole(id: string): boolean {
    return Object.values(this.builtinRoles).includes(id);
  }

  // ------------------------------------------------------------ groups

  /**
   * CreateGroupRequest.parent may be "a prefix of a UIDP of a Group within
   * scope, or the name of a Group in scope" (group.platform.proto); an empty
   * parent creates a root organisation.
   */
  #resolveGroupParent(parent: string): string {
    if (this.#groups.has(parent)) return parent;
    const named = [...this.#groups.values()].filter((g) => g.name === parent);
    if (named.length > 1) throw invalidArgument(`parent: ${JSON.stringify(parent)} names more than one group`);
    if (named.length === 0) throw notFound(`parent group ${JSON.stringify(parent)} not found`);
    return named[0]!.id;
  }

  #groupFields(id: string, fields: GroupFields): Omit<V1Group, 'id' | 'createdAt' | 'updatedAt'> {
    const name = requireName(fields.name, 'group');
    const root = parentOf(id) === '/';
    const verified = fields.verified ?? false;
    // Facts (Group.verified): only organisations can be verified, and a verified
    // organisation's name must be globally unique.
    if (verified && !root) throw invalidArgument('group.verified: only root groups (organizations) can be verified');
    if (verified && [...this.#groups.values()].some((g) => g.id !== id && g.verified && g.name === name)) {
      throw alreadyExists(`a verified organization named ${JSON.stringify(name)} already exists`);
    }
    // Facts (Group.kind): sub-groups inherit kind from the root; status is the
    // organisation's provisioning status. Writes to either on a sub-group are ignored.
    const kind = enumValue(ORG_KIND, fields.kind, 'group.kind');
    const status = enumValue(ORG_STATUS, fields.status, 'group.status');
    return {
      name,
      description: fields.description ?? '',
      resourceLimits: copy(fields.resourceLimits ?? {}),
      verified,
      kind: root ? kind : 'ORG_KIND_UNSPECIFIED',
      status: root ? status : 'ORG_STATUS_UNSPECIFIED',
    };
  }

  /** A group as the wire shows it: sub-groups carry their organisation's kind and status. */
  #groupView(group: V1Group): V1Group {
    const rootId = group.id.split('/')[0]!;
    const root = rootId === group.id ? group : this.#groups.get(rootId);
    if (root === group || !root) return group;
    return { ...group, kind: root.kind, status: root.status };
  }

  createGroup(parent: string | null, fields: GroupFields): V1Group {
    const parentId = parent ? this.#resolveGroupParent(parent) : null;
    const id = parentId ? newChildUid(parentId, this.#uidBytes) : newRootUid(this.#uidBytes);
    const now = this.#now();
    return this.#groupView(store(this.#groups, { id, ...this.#groupFields(id, fields), createdAt: now, updatedAt: now }));
  }

  updateGroup(id: string, fields: GroupFields): V1Group {
    const current = existing(this.#groups, id, 'group');
    return this.#groupView(store(this.#groups, { ...current, ...this.#groupFields(id, fields), updatedAt: this.#now() }));
  }

  listGroups(filter: ListFilter = {}): V1Group[] {
    return select(this.#groups, filter).map((g) => this.#groupView(g));
  }

  /** The verified organisation named after an email domain (LookupGroup), if any. */
  verifiedOrgNamed(domain: string): V1Group | undefined {
    const group = [...this.#groups.values()].find((g) => g.verified && !g.id.includes('/') && g.name === domain);
    return group && this.#groupView(group);
  }

  /**
   * Records an access request from `caller` to `groupId` (RequestGroupAccess).
   * Decision: "recently" is within ACCESS_REQUEST_WINDOW_MICROS; a repeat in
   * that window is refused and not recorded again.
   */
  requestGroupAccess(groupId: string, caller: string): void {
    const key = `${groupId}\0${caller}`;
    const at = this.#clock();
    const last = this.#accessRequests.get(key);
    if (last !== undefined && at - last < ACCESS_REQUEST_WINDOW_MICROS) throw resourceExhausted('request already sent');
    this.#accessRequests.set(key, at);
  }

  /** Access requests delivered so far, by group (what the owners would be told of). */
  accessRequestsTo(groupId: string): string[] {
    return [...this.#accessRequests.keys()].filter((k) => k.startsWith(`${groupId}\0`)).map((k) => k.slice(groupId.length + 1));
  }

  /**
   * Decision: a group that still owns anything (sub-groups, IAM objects, invites,
   * its account associations, repos, advisories — soft-deleted ones too) cannot be deleted.
   */
  deleteGroup(id: string): void {
    existing(this.#groups, id, 'group');
    const collections: ReadonlyMap<string, unknown>[] = [this.#groups, this.#identities, this.#roles, this.#bindings, this.#repos];
    const owners = [this.#identityProviders, this.#groupInvites, this.#advisories];
    if (
      collections.some((rows) => hasChildOf(rows, id)) ||
      owners.some((store) => store.hasChildOf(id)) ||
      this.#accountAssociations.has(id)
    ) {
      throw failedPrecondition(
        'group has child resources (groups, identities, roles, role bindings, identity providers, group invites, account associations, repos or advisories); delete them first',
      );
    }
    this.#groups.delete(id);
  }

  // ------------------------------------------------------------ identities

  #relationship(fields: IdentityFields): Pick<V1Identity, 'claimMatch' | 'static' | 'awsIdentity' | 'servicePrincipal'> {
    const set = (['claimMatch', 'static', 'awsIdentity', 'servicePrincipal'] as const).filter((k) => fields[k] !== undefined);
    if (set.length !== 1) {
      throw invalidArgument('identity: exactly one relationship (claimMatch, static, awsIdentity or servicePrincipal) is required');
    }
    const { claimMatch, static: keys, awsIdentity, servicePrincipal } = fields;
    if (claimMatch) {
      // Facts (ClaimMatch): `iss` and `sub` are required, `aud` optional.
      const { issuer, issuerPattern, subject, subjectPattern, audience, audiencePattern } = claimMatch;
      if (!oneOf({ issuer, issuerPattern }, 'identity.claimMatch')) throw invalidArgument('identity.claimMatch: issuer or issuerPattern is required');
      if (!oneOf({ subject, subjectPattern }, 'identity.claimMatch')) throw invalidArgument('identity.claimMatch: subject or subjectPattern is required');
      oneOf({ audience, audiencePattern }, 'identity.claimMatch');
      // Decision: patterns are checked with JavaScript regular expressions (the server uses Go's RE2).
      validRegex(claimMatch.issuerPattern, 'identity.claimMatch.issuerPattern');
      validRegex(claimMatch.subjectPattern, 'identity.claimMatch.subjectPattern');
      validRegex(claimMatch.audiencePattern, 'identity.claimMatch.audiencePattern');
      for (const [claim, pattern] of Object.entries(claimMatch.claimPatterns ?? {})) validRegex(pattern, `identity.claimMatch.claimPatterns[${claim}]`);
      return { claimMatch: copy(claimMatch) };
    }
    if (keys) {
      for (const k of ['issuer', 'subject', 'issuerKeys'] as const) {
        if (!keys[k]) throw invalidArgument(`identity.static.${k}: must not be empty`);
      }
      return { static: { ...copy(keys), expiration: this.#staticExpiration(keys.expiration) } };
    }
    if (awsIdentity) {
      const { awsAccount, arn, arnPattern, userId, userIdPattern } = awsIdentity;
      if (!awsAccount) throw invalidArgument('identity.awsIdentity.awsAccount: must not be empty');
      oneOf({ arn, arnPattern }, 'identity.awsIdentity');
      oneOf({ userId, userIdPattern }, 'identity.awsIdentity');
      return { awsIdentity: copy(awsIdentity) };
    }
    const principal = enumValue(SERVICE_PRINCIPAL, servicePrincipal, 'identity.servicePrincipal');
    // Decision: UNKNOWN names no service, so it cannot be assumed by anyone.
    if (principal === 'UNKNOWN') throw invalidArgument('identity.servicePrincipal: must name a service');
    return { servicePrincipal: principal };
  }

  /** Facts (Identity.static): "default/max 30d" lifetime. */
  #staticExpiration(requested: string | undefined): string {
    const nowMicros = this.#clock();
    const max = nowMicros + STATIC_MAX_LIFETIME_SECONDS * 1e6;
    if (requested === undefined) return formatMicros(max);
    const canonical = canonicalTimestamp(requested, 'identity.static.expiration');
    const at = parseTimestamp(canonical)!;
    if (at.seconds * 1e6 + at.nanos / 1e3 > max) {
      throw invalidArgument('identity.static.expiration: must be at most 30 days in the future');
    }
    return canonical;
  }

  #identityFields(fields: IdentityFields) {
    return {
      name: requireName(fields.name, 'identity'),
      description: fields.description ?? '',
      ...this.#relationship(fields),
    };
  }

  /** `parent` null creates a root-level identity (a user identity), as registration does. */
  createIdentity(parent: string | null, fields: IdentityFields): V1Identity {
    const id = parent === null ? newRootUid(this.#uidBytes) : newChildUid(this.#parentGroup(parent, 'parent_id'), this.#uidBytes);
    const base = this.#identityFields(fields);
    const now = this.#now();
    const identity: V1Identity = { id, ...base, createdAt: now, updatedAt: now, lastSeen: now };
    if (fields.email !== undefined) identity.email = fields.email;
    if (fields.emailUnverified !== undefined) identity.emailUnverified = fields.emailUnverified;
    return store(this.#identities, identity);
  }

  updateIdentity(id: string, fields: IdentityFields): V1Identity {
    const { createdAt, lastSeen, email, emailUnverified } = existing(this.#identities, id, 'identity');
    const identity: V1Identity = { id, ...this.#identityFields(fields), createdAt, updatedAt: this.#now(), lastSeen };
    if (email !== undefined) identity.email = email;
    if (emailUnverified !== undefined) identity.emailUnverified = emailUnverified;
    return store(this.#identities, identity);
  }

  listIdentities(filter: ListFilter = {}): V1Identity[] {
    return select(this.#identities, filter);
  }

  /**
   * Decision: Lookup matches the literal issuer and subject of a claimMatch or
   * static identity (patterns are not evaluated); no match is NOT_FOUND.
   */
  lookupIdentity(issuer: string, subject: string): V1Identity {
    for (const identity of this.#identities.values()) {
      const rel = identity.claimMatch ?? identity.static;
      if (rel && issuer && rel.issuer === issuer && rel.subject === subject) return identity;
    }
    throw notFound('identity not found');
  }

  /** Decision: deleting an identity also deletes the role bindings that reference it. */
  deleteIdentity(id: string): void {
    existing(this.#identities, id, 'identity');
    for (const binding of [...this.#bindings.values()]) if (binding.identity === id) this.#bindings.delete(binding.id);
    this.#identities.delete(id);
  }

  // ------------------------------------------------------------ roles

  #roleFields(fields: RoleFields) {
    const capabilities = fields.capabilities ?? [];
    const unknown = capabilities.filter((c) => !V1_CAPABILITY_NAMES.has(c));
    if (unknown.length > 0) throw invalidArgument(`role.capabilities: unknown capabilities ${unknown.map((c) => JSON.stringify(c)).join(', ')}`);
    return { name: requireName(fields.name, 'role'), description: fields.description ?? '', capabilities: [...capabilities] };
  }

  #customRole(id: string): V1Role {
    const role = existing(this.#roles, id, 'role');
    if (this.#isManagedRole(id)) throw permissionDenied(`role ${JSON.stringify(role.name)} is managed by Chainguard and cannot be changed`);
    return role;
  }

  createRole(parent: string, fields: RoleFields): V1Role {
    const id = newChildUid(this.#parentGroup(parent, 'parent_id'), this.#uidBytes);
    return store(this.#roles, { id, ...this.#roleFields(fields) });
  }

  updateRole(id: string, fields: RoleFields): V1Role {
    this.#customRole(id);
    return store(this.#roles, { id, ...this.#roleFields(fields) });
  }

  listRoles(filter: ListFilter = {}): V1Role[] {
    return select(this.#roles, filter);
  }

  /** Facts (v2 comments, kept for v1): a bound role cannot be deleted; managed roles never. */
  deleteRole(id: string): void {
    this.#customRole(id);
    if ([...this.#bindings.values()].some((b) => b.role === id)) throw failedPrecondition('role is still bound; delete its role bindings first');
    this.#roles.delete(id);
  }

  // ------------------------------------------------------------ role bindings

  #bindingTarget(fields: RoleBindingFields): RoleBindingFields {
    if (!fields.identity || !this.#identities.has(fields.identity)) {
      throw invalidArgument(`role_binding.identity: identity ${JSON.stringify(fields.identity ?? '')} does not exist`);
    }
    if (!fields.role || !this.#roles.has(fields.role)) {
      throw invalidArgument(`role_binding.role: role ${JSON.stringify(fields.role ?? '')} does not exist`);
    }
    return { identity: fields.identity, role: fields.role };
  }

  createRoleBinding(parent: string, fields: RoleBindingFields): V1RoleBinding {
    return this.createRoleBindings(parent, [fields])[0]!;
  }

  /** Decision: the v1 batch is all-or-nothing, like the v2 batch it backs. */
  createRoleBindings(parent: string, batch: readonly RoleBindingFields[]): V1RoleBinding[] {
    const group = this.#parentGroup(parent, 'parent');
    const targets = batch.map((fields) => this.#bindingTarget(fields));
    return targets.map((target) => {
      const id = newChildUid(group, this.#uidBytes);
      return store(this.#bindings, { id, ...target, group, createdAt: this.#now() });
    });
  }

  updateRoleBinding(id: string, fields: RoleBindingFields): V1RoleBinding {
    const current = existing(this.#bindings, id, 'role binding');
    return store(this.#bindings, { ...current, ...this.#bindingTarget(fields) });
  }

  /** List rows hydrate the group and role and copy the identity's email and claimMatch issuer/subject. */
  listRoleBindings(filter: ListFilter = {}): V1BindingRow[] {
    return select(this.#bindings, filter).map((b) => {
      const identity = this.#identities.get(b.identity);
      return {
        id: b.id,
        group: this.#groupView(this.#groups.get(b.group)!),
        identity: b.identity,
        role: this.#roles.get(b.role)!,
        email: identity?.email ?? '',
        claimMatchIssuer: identity?.claimMatch?.issuer ?? '',
        claimMatchSubject: identity?.claimMatch?.subject ?? '',
        createdAt: b.createdAt,
        emailUnverified: identity?.emailUnverified ?? '',
      };
    });
  }

  /** Decision: deleting a missing binding is NOT_FOUND (v1 says nothing; v2 calls its delete idempotent). */
  deleteRoleBinding(id: string): void {
    existing(this.#bindings, id, 'role binding');
    this.#bindings.delete(id);
  }

  // ------------------------------------------------------------ repos

  #repoFields(fields: RepoFields) {
    const tier = enumValue(CATALOG_TIER, fields.catalogTier, 'repo.catalogTier');
    const repo: Omit<V1Repo, 'id' | 'createTime'> = {
      name: requireName(fields.name, 'repo'),
      description: fields.description ?? '',
      catalogTier: tier,
      bundles: [...(fields.bundles ?? [])],
      readme: fields.readme ?? '',
      aliases: [...(fields.aliases ?? [])],
      activeTags: [...(fields.activeTags ?? [])],
    };
    if (fields.sync_config) {
      const { expiration } = fields.sync_config;
      repo.sync_config = copy(fields.sync_config);
      if (expiration !== undefined) repo.sync_config.expiration = canonicalTimestamp(expiration, 'repo.sync_config.expiration');
    }
    if (fields.customOverlay) repo.customOverlay = copy(fields.customOverlay);
    return repo;
  }

  #repoNamed(parent: string, name: string): V1Repo | undefined {
    const id = this.#repoNames.get(parent, name);
    return id === undefined ? undefined : this.#repos.get(id);
  }

  #storeRepo(repo: V1Repo): V1Repo {
    this.#repoNames.set(repo, this.#repos.get(repo.id));
    return store(this.#repos, repo);
  }

  /**
   * Facts (CreateRepoRequest.prevent_existing): a name collision under the same
   * parent updates the existing repo (replacing it like a PUT) unless
   * `preventExisting` is set, which makes it ALREADY_EXISTS.
   */
  createRepo(parent: string, fields: RepoFields, options: { preventExisting?: boolean } = {}): V1Repo {
    const group = this.#parentGroup(parent, 'parent_id');
    this.terms.requireAccepted(group);
    const values = this.#repoFields(fields);
    const existing = this.#repoNamed(group, values.name);
    if (existing && options.preventExisting) throw alreadyExists(`repo ${JSON.stringify(values.name)} already exists`);
    return this.#storeRepo({ id: existing?.id ?? newChildUid(group, this.#uidBytes), ...values, createTime: existing?.createTime ?? this.#now() });
  }

  /** Decision: renaming onto another repo's name in the same group is ALREADY_EXISTS (names identify repos, see createRepo). */
  updateRepo(id: string, fields: RepoFields): V1Repo {
    const { createTime } = existing(this.#repos, id, 'repo');
    const values = this.#repoFields(fields);
    const clash = this.#repoNamed(parentOf(id), values.name);
    if (clash && clash.id !== id) throw alreadyExists(`repo ${JSON.stringify(values.name)} already exists`);
    return this.#storeRepo({ id, ...values, createTime });
  }

  listRepos(filter: ListFilter = {}): V1Repo[] {
    return select(this.#repos, filter);
  }

  /** Decision: like a group, a repo that still has tags cannot be deleted (9); delete the tags first. */
  deleteRepo(id: string): void {
    const repo = existing(this.#repos, id, 'repo');
    if (this.#tags.hasChildOf(id)) throw failedPrecondition('repo still has tags; delete them first');
    this.#repoNames.delete(repo);
    this.#repos.delete(id);
  }

  // ------------------------------------------------------------ identity providers (stores/identity-providers.ts)

  createIdentityProvider(parent: string, fields: IdentityProviderFields): V1IdentityProvider {
    return this.#identityProviders.create(parent, fields);
  }

  updateIdentityProvider(id: string, fields: IdentityProviderFields): V1IdentityProvider {
    return this.#identityProviders.update(id, fields);
  }

  listIdentityProviders(filter: ListFilter = {}): V1IdentityProvider[] {
    return this.#identityProviders.list(filter);
  }

  deleteIdentityProvider(id: string): void {
    this.#identityProviders.delete(id);
    this.externalGroupRoleMappings.deleteUnder(id);
    this.scim.forget(id);
  }

  /** Whether an identity with this id is registered. */
  hasIdentity(id: string): boolean {
    return this.#identities.has(id);
  }

  /** The groups and roles an identity is bound to, as `/auth/v1/ok` states them (groups without timestamps). */
  bindingsOf(identity: string): { group: V1Group; role: V1Role }[] {
    return [...this.#bindings.values()].filter((b) => b.identity === identity).map((b) => ({ group: this.#groups.get(b.group)!, role: this.#roles.get(b.role)! }));
  }

  /** Every organisation (root group). */
  organisations(): V1Group[] {
    return [...this.#groups.values()].filter((g) => !g.id.includes('/'));
  }

  /** Role bindings of the managed owner role anywhere in an organisation (SetScimEnabled's gate). */
  ownerBindingsIn(organisation: string): number {
    return [...this.#bindings.values()].filter((b) => b.role === this.builtinRoles.owner && (b.id.startsWith(`${organisation}/`))).length;
  }

  // ------------------------------------------------------------ external group role mappings (stores/external-group-role-mappings.ts)

  createExternalGroupRoleMapping(identityProvider: string, fields: ExternalGroupRoleMappingFields): V1ExternalGroupRoleMapping {
    return this.externalGroupRoleMappings.create(identityProvider, fields, this.#identityProviders.list({ id: identityProvider }).length > 0);
  }

  // ------------------------------------------------------------ account associations (stores/account-associations.ts)

  createAccountAssociations(group: string, fields: AccountAssociationsFields): V1AccountAssociations {
    return this.#accountAssociations.create(group, fields);
  }

  updateAccountAssociations(group: string, fields: AccountAssociationsFields): V1AccountAssociations {
    return this.#accountAssociations.update(group, fields);
  }

  listAccountAssociations(filter: AccountAssociationsFilter = {}): V1AccountAssociations[] {
    return this.#accountAssociations.list(filter);
  }

  deleteAccountAssociations(group: string): void {
    this.#accountAssociations.delete(group);
  }

  // ------------------------------------------------------------ group invites (stores/group-invites.ts)

  /** The only place the invite's `code` is ever seen. */
  createGroupInvite(group: string, fields: GroupInviteFields): V1GroupInvite {
    return this.#groupInvites.create(group, fields);
  }

  listGroupInvites(filter: GroupInviteFilter = {}): V1StoredGroupInvite[] {
    return this.#groupInvites.list(filter);
  }

  deleteGroupInvite(id: string): void {
    this.#groupInvites.delete(id);
  }

  // ------------------------------------------------------------ tags (stores/tags.ts)

  createTag(repo: string, fields: TagFields): V1Tag {
    return this.#tags.create(repo, fields);
  }

  updateTag(id: string, fields: TagFields): V1Tag {
    return this.#tags.update(id, fields);
  }

  listTags(filter: TagFilter = {}): V1Tag[] {
    return this.#tags.list(filter);
  }

  deleteTag(id: string): void {
    this.#tags.delete(id);
  }

  // ------------------------------------------------------------ advisories (stores/advisories.ts)

  createAdvisory(parent: string, fields: AdvisoryFields): V1Advisory {
    return this.#advisories.create(parent, fields);
  }

  updateAdvisory(id: string, fields: AdvisoryFields): V1Advisory {
    return this.#advisories.update(id, fields);
  }

  /** One page, with v1's paging and ordering (stores/advisory-list.ts). */
  listAdvisories(filter: AdvisoryFilter = {}): AdvisoryPage {
    return this.#advisories.list(filter);
  }

  deleteAdvisory(id: string): void {
    this.#advisories.delete(id);
  }

  createAdvisoryEvent(advisory: string, fields: AdvisoryEventFields): V1AdvisoryEvent {
    return this.#advisories.createEvent(advisory, fields);
  }

  listAdvisoryEvents(scope: string): V1AdvisoryEvent[] {
    return this.#advisories.listEvents(scope);
  }

  updateAdvisoryEvent(id: string, fields: AdvisoryEventFields): V1AdvisoryEvent {
    return this.#advisories.updateEvent(id, fields);
  }

  /** For the advisories `origin` filter: the emulator has no package index of its own. */
  registerSubpackages(origin: string, subpackages: readonly string[]): void {
    this.#advisories.registerSubpackages(origin, subpackages);
  }
}
