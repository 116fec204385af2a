/**
 * The v1 IAM and registry messages this emulator serves, transcribed from the
 * chainguard-dev/sdk protos summarised in api-surface.md §1-9 (advisories are
 * in vulnerability-messages.ts). Field order follows the proto declarations;
 * JSON names are protojson's defaults except where a `json_name` says
 * otherwise (Repo.sync_config).
 */
import { enumeration, field, message, type FieldDef, type MessageDef } from './protojson.ts';

// ---------------------------------------------------------------- enums

export const ORG_KIND = enumeration('OrgKind', [
  'ORG_KIND_UNSPECIFIED',
  'ORG_KIND_STARTER',
  'ORG_KIND_CUSTOMER',
  'ORG_KIND_DEV',
  'ORG_KIND_INFRA',
  'ORG_KIND_AWS_MARKETPLACE',
]);

export const ORG_STATUS = enumeration('OrgStatus', [
  'ORG_STATUS_UNSPECIFIED',
  'ORG_STATUS_INITIALIZING',
  'ORG_STATUS_READY',
  'ORG_STATUS_SUSPENDED',
]);

export const SERVICE_PRINCIPAL = enumeration('ServicePrincipal', [
  'UNKNOWN',
  'COSIGNED',
  'INGESTER',
  'CATALOG_SYNCER',
  'APKO_BUILDER',
  'ENTITLEMENT_SYNCER',
  'TENANT_SCANNER',
  'SEDIMENTOLOGY',
  'SKILLUP',
  'MATERIALIZER',
  'MICROFLOW',
  'GUARDENER',
  'MICROVM',
  'SKILLS',
]);

/** Numbers 1-3 are reserved (the retired FREE/STANDARD/PREMIUM tiers). */
export const CATALOG_TIER = enumeration('CatalogTier', {
  UNKNOWN: 0,
  APPLICATION: 4,
  BASE: 5,
  FIPS: 6,
  AI: 7,
  DEVTOOLS: 8,
  COMMERCIAL: 9,
});

// ---------------------------------------------------------------- common

export const UIDP_FILTER = message('chainguard.platform.common.UIDPFilter', [
  field('ancestors_of', 'string'),
  field('descendants_of', 'string'),
  field('children_of', 'string'),
  field('in_root', 'bool'),
  field('ids', 'string', { card: 'repeated' }),
]);

// ---------------------------------------------------------------- iam: Group

const GROUP_FIELDS: readonly FieldDef[] = [
  field('id', 'string'),
  field('name', 'string'),
  field('description', 'string'),
  field('resource_limits', 'int32', { card: 'map' }),
  field('verified', 'bool'),
  field('kind', ORG_KIND),
  field('status', ORG_STATUS),
];

/** The public v1 Group: what request bodies are decoded against. */
export const GROUP = message('chainguard.platform.iam.Group', GROUP_FIELDS);

/**
 * The Group this emulator emits by default. The public message has no
 * timestamps; the project decided to emit them anyway (EmulatorOptions
 * `omitGroupTimestamps` switches back to the public shape).
 */
export const GROUP_WITH_TIMESTAMPS = message('chainguard.platform.iam.Group', [
  ...GROUP_FIELDS,
  field('created_at', 'timestamp'),
  field('updated_at', 'timestamp'),
]);

export const GROUP_FILTER = message('chainguard.platform.iam.GroupFilter', [
  field('id', 'string'),
  field('uidp', UIDP_FILTER),
  field('name', 'string'),
]);

// ---------------------------------------------------------------- iam: Identity

export const CLAIM_MATCH = message('chainguard.platform.iam.Identity.ClaimMatch', [
  field('issuer', 'string', { oneof: 'iss' }),
  field('issuer_pattern', 'string', { oneof: 'iss' }),
  field('subject', 'string', { oneof: 'sub' }),
  field('subject_pattern', 'string', { oneof: 'sub' }),
  field('audience', 'string', { oneof: 'aud' }),
  field('audience_pattern', 'string', { oneof: 'aud' }),
  field('claims', 'string', { card: 'map' }),
  field('claim_patterns', 'string', { card: 'map' }),
]);

export const STATIC_KEYS = message('chainguard.platform.iam.Identity.StaticKeys', [
  field('issuer', 'string'),
  field('subject', 'string'),
  field('issuer_keys', 'string'),
  field('expiration', 'timestamp'),
  field('audiences', 'string', { card: 'repeated' }),
]);

export const AWS_IDENTITY = message('chainguard.platform.iam.Identity.AWSIdentity', [
  field('aws_account', 'string'),
  field('arn', 'string', { oneof: 'aws_arn' }),
  field('arn_pattern', 'string', { oneof: 'aws_arn' }),
  field('user_id', 'string', { oneof: 'aws_user_id' }),
  field('user_id_pattern', 'string', { oneof: 'aws_user_id' }),
]);

export const IDENTITY = message('chainguard.platform.iam.Identity', [
  field('id', 'string'),
  field('name', 'string'),
  field('description', 'string'),
  field('created_at', 'timestamp'),
  field('updated_at', 'timestamp'),
  field('last_seen', 'timestamp'),
  field('claim_match', CLAIM_MATCH, { oneof: 'relationship' }),
  field('static', STATIC_KEYS, { oneof: 'relationship' }),
  field('service_principal', SERVICE_PRINCIPAL, { oneof: 'relationship' }),
  field('aws_identity', AWS_IDENTITY, { oneof: 'relationship' }),
]);

export const IDENTITY_FILTER = message('chainguard.platform.iam.IdentityFilter', [
  field('uidp', UIDP_FILTER),
  field('id', 'string'),
]);

export const REQUEST_GROUP_ACCESS_REQUEST = message('chainguard.platform.iam.RequestGroupAccessRequest', [field('group_id', 'string')]);

export const EMPTY_REQUEST = message('google.protobuf.Empty', []);

export const LOOKUP_REQUEST = message('chainguard.platform.iam.LookupRequest', [
  field('issuer', 'string'),
  field('subject', 'string'),
]);

// ---------------------------------------------------------------- iam: Role

export const ROLE = message('chainguard.platform.iam.Role', [
  field('id', 'string'),
  field('name', 'string'),
  field('description', 'string'),
  field('capabilities', 'string', { card: 'repeated' }),
]);

export const ROLE_FILTER = message('chainguard.platform.iam.RoleFilter', [
  field('id', 'string'),
  field('name', 'string'),
  field('parent', 'string'),
  field('uidp', UIDP_FILTER),
]);

// ---------------------------------------------------------------- iam: RoleBinding

export const ROLE_BINDING = message('chainguard.platform.iam.RoleBinding', [
  field('id', 'string'),
  field('identity', 'string'),
  field('group', 'string'),
  field('role', 'string'),
]);

/** `RoleBindingList.Binding`, the list-row shape (trap 8). */
export function bindingRow(group: MessageDef): MessageDef {
  return message('chainguard.platform.iam.RoleBindingList.Binding', [
    field('id', 'string'),
    field('group', group),
    field('identity', 'string'),
    field('role', ROLE),
    field('email', 'string'),
    field('claim_match_issuer', 'string'),
    field('claim_match_subject', 'string'),
    field('created_at', 'timestamp'),
    // A string (the unverified address), not a flag.
    field('email_unverified', 'string'),
  ]);
}

export const ROLE_BINDING_FILTER = message('chainguard.platform.iam.RoleBindingFilter', [
  field('id', 'string'),
  field('uidp', UIDP_FILTER),
]);

// ---------------------------------------------------------------- iam: IdentityProvider

export const CORRELATION_RULE = enumeration('IdentityProvider.OIDC.CorrelationRule', [
  'CORRELATION_RULE_UNSPECIFIED',
  'CORRELATION_RULE_SUB_EQUALS_EXTERNAL_ID',
  'CORRELATION_RULE_OID_EQUALS_EXTERNAL_ID',
]);

export const CREDENTIAL_STATE = enumeration('IdentityProvider.SCIM.CredentialState', [
  'CREDENTIAL_STATE_UNSPECIFIED',
  'CREDENTIAL_STATE_NOT_ISSUED',
  'CREDENTIAL_STATE_LIVE',
  'CREDENTIAL_STATE_EXPIRED',
  'CREDENTIAL_STATE_REVOKED',
  'CREDENTIAL_STATE_ROTATING',
]);

export const OIDC = message('chainguard.platform.iam.IdentityProvider.OIDC', [
  field('issuer', 'string'),
  field('client_id', 'string'),
  field('client_secret', 'string'),
  field('additional_scopes', 'string', { card: 'repeated' }),
  field('groups_claim', 'string'),
  field('correlation_rule', CORRELATION_RULE),
  field('pkce_enabled', 'bool'),
]);

export const SCIM = message('chainguard.platform.iam.IdentityProvider.SCIM', [
  field('enabled', 'bool'),
  field('endpoint_url', 'string'),
  field('token_expire_time', 'timestamp'),
  field('previous_token_expire_time', 'timestamp'),
  field('credential_state', CREDENTIAL_STATE),
  field('etag', 'string'),
]);

export const IDENTITY_PROVIDER = message('chainguard.platform.iam.IdentityProvider', [
  field('id', 'string'),
  field('name', 'string'),
  field('description', 'string'),
  field('default_role', 'string'),
  field('oidc', OIDC, { oneof: 'configuration' }),
  field('scim', SCIM),
]);

export const IDENTITY_PROVIDER_FILTER = message('chainguard.platform.iam.IdentityProviderFilter', [
  field('id', 'string'),
  field('name', 'string'),
  field('uidp', UIDP_FILTER),
]);

// ---------------------------------------------------------------- iam: AccountAssociations

const GITHUB_INSTALLATION = message('chainguard.platform.iam.AccountAssociations.GitHubInstallation', [
  field('installation_id', 'int64'),
  field('name', 'string'),
]);

export const EXTERNAL_GROUP_ROLE_MAPPING = message('chainguard.platform.iam.ExternalGroupRoleMapping', [
  field('id', 'string'),
  field('identity_provider_uidp', 'string'),
  field('external_group_id', 'string'),
  field('role_uidp', 'string'),
  field('scope', 'string'),
  field('created_at', 'timestamp'),
]);
export const EXTERNAL_GROUP_ROLE_MAPPING_FILTER = message('chainguard.platform.iam.ExternalGroupRoleMappingFilter', [
  field('uidp', UIDP_FILTER),
  field('identity_provider_uidp', 'string'),
]);
export const BATCH_DELETE_MAPPINGS_REQUEST = message('chainguard.platform.iam.BatchDeleteExternalGroupRoleMappingsRequest', [
  field('parent_id', 'string'),
  field('ids', 'string', { card: 'repeated' }),
]);

export const ACCEPT_TERMS_REQUEST = message('chainguard.platform.iam.AcceptTermsRequest', [
  field('group', 'string'),
  field('document_ids', 'string', { card: 'repeated' }),
]);
export const TERMS_DOCUMENT_STATUS = message('chainguard.platform.iam.TermsDocumentStatus', [
  field('doc_id', 'string'),
  field('accepted_by', 'string'),
  field('accepted_at', 'timestamp'),
]);

export const DOCUMENT_FILTER = message('chainguard.platform.advisory.DocumentFilter', [field('id', 'string'), field('cves', 'string', { card: 'repeated' })]);
export const METADATA_FILTER = message('chainguard.platform.advisory.VulnerabilityMetadataFilter', [
  field('id', 'string'),
  field('ids', 'string', { card: 'repeated' }),
  field('page_size', 'int32'),
  field('page_token', 'string'),
  field('order_by', 'string'),
  field('skip', 'int32'),
]);

/** The four SCIM lifecycle requests' fields in one message (each request reads its own; `identity_provider_id` comes from the path). */
export const SCIM_REQUEST = message('chainguard.platform.iam.ScimTokenRequest', [
  field('identity_provider_id', 'string'),
  field('expire_time', 'timestamp'),
  field('never_expires', 'bool'),
  field('overlap', 'duration'),
  field('etag', 'string'),
  field('enabled', 'bool'),
]);

/** `ArchRequest` and `SizeRequest` (`repo_id` and `digest` come from the path). */
export const SIZE_REQUEST = message('chainguard.platform.registry.SizeRequest', [
  field('repo_id', 'string'),
  field('digest', 'string'),
  field('arch', 'string'),
]);
export const ARCHS = message('chainguard.platform.registry.Archs', [field('archs', 'string', { card: 'repeated' })]);
export const SIZE = message('chainguard.platform.registry.Size', [field('size', 'int64'), field('arch', 'string')]);

/** `AccountAssociationsCheckRequest`: `group` comes from the path (`body: "*"`). */
export const ACCOUNT_CHECK_REQUEST = message('chainguard.platform.iam.AccountAssociationsCheckRequest', [
  field('group', 'string'),
  field('account_type', enumeration('AccountAssociationsCheckRequest.AccountType', ['UNKNOWN', 'GOOGLE', 'AMAZON', 'AZURE'])),
]);

/** `AccountAssociationsStatus`: its State names are mixed-case in v1 (`Ready`, `NotReady`). */
export const ACCOUNT_STATUS = message('chainguard.platform.iam.AccountAssociationsStatus', [
  field('ready', enumeration('AccountAssociationsStatus.State', ['UNKNOWN', 'Ready', 'NotReady'])),
  field('reason', 'string'),
  field('message', 'string'),
]);

/** Declared in proto order: `chainguard` and `azure` come before `name`, `github` last. */
export const ACCOUNT_ASSOCIATIONS = message('chainguard.platform.iam.AccountAssociations', [
  field('group', 'string'),
  field('amazon', message('chainguard.platform.iam.AccountAssociations.Amazon', [field('account', 'string')])),
  field(
    'google',
    message('chainguard.platform.iam.AccountAssociations.Google', [field('project_id', 'string'), field('project_number', 'string')]),
  ),
  field(
    'chainguard',
    message('chainguard.platform.iam.AccountAssociations.Chainguard', [field('service_bindings', 'string', { card: 'map' })]),
  ),
  field(
    'azure',
    message('chainguard.platform.iam.AccountAssociations.Azure', [
      field('tenant_id', 'string'),
      field('client_ids', 'string', { card: 'map' }),
    ]),
  ),
  field('name', 'string'),
  field('description', 'string'),
  field(
    'github',
    message('chainguard.platform.iam.AccountAssociations.GitHub', [
      field(
        'app_installations',
        message('chainguard.platform.iam.AccountAssociations.GitHubAppInstallations', [
          field('installations', GITHUB_INSTALLATION, { card: 'repeated' }),
        ]),
        { card: 'map', key: 'int64' },
      ),
    ]),
  ),
]);

export const ACCOUNT_ASSOCIATIONS_FILTER = message('chainguard.platform.iam.AccountAssociationsFilter', [
  field('group', 'string'),
  field('name', 'string'),
]);

// ---------------------------------------------------------------- iam: GroupInvites

/** The create body (`body: "*"`); `group` comes from the path. */
export const GROUP_INVITE_REQUEST = message('chainguard.platform.iam.GroupInviteRequest', [
  field('group', 'string'),
  field('ttl', 'duration'),
  field('role', 'string'),
  field('email', 'string'),
  field('single_use', 'bool'),
]);

/** The create response: the only place `code` appears; no email, createdAt or singleUse. */
export const GROUP_INVITE = message('chainguard.platform.iam.GroupInvite', [
  field('id', 'string'),
  field('expiration', 'timestamp'),
  field('key_id', 'string'),
  field('role', ROLE),
  field('code', 'string'),
]);

/** The list row: no `code`, but email, createdAt and singleUse. */
export const STORED_GROUP_INVITE = message('chainguard.platform.iam.StoredGroupInvite', [
  field('id', 'string'),
  field('expiration', 'timestamp'),
  field('key_id', 'string'),
  field('role', ROLE),
  field('email', 'string'),
  field('created_at', 'timestamp'),
  field('single_use', 'bool'),
]);

export const GROUP_INVITE_FILTER = message('chainguard.platform.iam.GroupInviteFilter', [
  field('group', 'string'),
  field('id', 'string'),
  field('key_id', 'string'),
]);

// ---------------------------------------------------------------- registry: Repo

export const SYNC_CONFIG = message('chainguard.platform.registry.SyncConfig', [
  field('source', 'string'),
  field('unique_tags', 'bool'),
  field('expiration', 'timestamp'),
  field('google', 'string'),
  field('amazon', 'string'),
  field('azure', 'string'),
  field('sync_apks', 'bool'),
  field('apko_overlay', 'string'),
  field('grace_period', 'bool'),
]);

const NAMED_CONTENT = (name: string): MessageDef =>
  message(name, [field('name', 'string'), field('content', 'string')]);

const IMAGE_CONTENTS = message('chainguard.platform.registry.ImageContents', [
  field('packages', 'string', { card: 'repeated' }),
  field('runtime_repositories', 'string', { card: 'repeated' }),
  field('runtime_keyring', NAMED_CONTENT('chainguard.platform.registry.ImageContents.RuntimeKeyringEntry'), { card: 'repeated' }),
]);

const APKO_ACCOUNTS = message('chainguard.platform.registry.ApkoConfig.Accounts', [
  field(
    'groups',
    message('chainguard.platform.registry.ApkoConfig.Accounts.Group', [
      field('gid', 'uint32'),
      field('group_name', 'string'),
      field('members', 'string', { card: 'repeated' }),
    ]),
    { card: 'repeated' },
  ),
  field(
    'users',
    message('chainguard.platform.registry.ApkoConfig.Accounts.User', [
      field('uid', 'uint32'),
      field('user_name', 'string'),
      field('gid', 'uint32', { optional: true }),
      field('group_name', 'string'),
      field('shell', 'string'),
      field('home_dir', 'string'),
    ]),
    { card: 'repeated' },
  ),
  field('run_as', 'string'),
]);

export const CUSTOM_OVERLAY = message('chainguard.platform.registry.CustomOverlay', [
  field('contents', IMAGE_CONTENTS),
  field('environment', 'string', { card: 'map' }),
  field('annotations', 'string', { card: 'map' }),
  field('accounts', APKO_ACCOUNTS),
  field(
    'certificates',
    message('chainguard.platform.registry.CustomOverlay.Certificates', [
      field('additional', NAMED_CONTENT('chainguard.platform.registry.CustomOverlay.Certificates.AdditionalEntry'), {
        card: 'repeated',
      }),
      field('providers', 'string', { card: 'repeated' }),
    ]),
  ),
]);

export const REPO = message('chainguard.platform.registry.Repo', [
  field('id', 'string'),
  field('name', 'string'),
  field('catalog_tier', CATALOG_TIER),
  field('bundles', 'string', { card: 'repeated' }),
  field('readme', 'string'),
  field('sync_config', SYNC_CONFIG, { json: 'sync_config' }),
  field('custom_overlay', CUSTOM_OVERLAY),
  field('aliases', 'string', { card: 'repeated' }),
  field('create_time', 'timestamp'),
  field('active_tags', 'string', { card: 'repeated' }),
  field('description', 'string'),
]);

export const REPO_FILTER = message('chainguard.platform.registry.RepoFilter', [
  field('uidp', UIDP_FILTER),
  field('name', 'string'),
  field('id', 'string'),
]);

export const CREATE_REPO_QUERY = message('chainguard.platform.registry.CreateRepoRequest', [
  field('prevent_existing', 'bool'),
]);

// ---------------------------------------------------------------- registry: Tag

export const TAG = message('chainguard.platform.registry.Tag', [
  field('id', 'string'),
  field('name', 'string'),
  field('digest', 'string'),
  field('last_updated', 'timestamp'),
  field('deprecated', 'bool'),
  field('bundles', 'string', { card: 'repeated' }),
]);

export const TAG_FILTER = message('chainguard.platform.registry.TagFilter', [
  field('uidp', UIDP_FILTER),
  field('name', 'string'),
  field('updated_since', 'timestamp'),
  field('exclude_referrers', 'bool'),
  field('exclude_dates', 'bool'),
  field('exclude_epochs', 'bool'),
  field('id', 'string'),
  field('digest', 'string'),
]);

// ---------------------------------------------------------------- events: Subscription

export const SUBSCRIPTION = message('chainguard.platform.events.Subscription', [
  field('id', 'string'),
  field('sink', 'string'),
]);

export const SUBSCRIPTION_FILTER = message('chainguard.platform.events.SubscriptionFilter', [
  field('id', 'string'),
  field('uidp', UIDP_FILTER),
]);
