/**
 * The records state.ts keeps (groups, identities, roles, role bindings, repos), by their v1 JSON
 * names. Apart from the state, so the stores and records.ts's StoreContext can name them without
 * importing the state that imports them. The newer collections' records live in their stores.
 */

export interface V1Group {
  id: string;
  name: string;
  description: string;
  resourceLimits: Record<string, number>;
  verified: boolean;
  kind: string;
  status: string;
  createdAt: string;
  updatedAt: string;
}

export interface ClaimMatch {
  issuer?: string;
  issuerPattern?: string;
  subject?: string;
  subjectPattern?: string;
  audience?: string;
  audiencePattern?: string;
  claims?: Record<string, string>;
  claimPatterns?: Record<string, string>;
}

export interface StaticKeys {
  issuer?: string;
  subject?: string;
  issuerKeys?: string;
  expiration?: string;
  audiences?: string[];
}

export interface AwsIdentity {
  awsAccount?: string;
  arn?: string;
  arnPattern?: string;
  userId?: string;
  userIdPattern?: string;
}

export interface V1Identity {
  id: string;
  name: string;
  description: string;
  createdAt: string;
  updatedAt: string;
  lastSeen: string;
  claimMatch?: ClaimMatch;
  static?: StaticKeys;
  awsIdentity?: AwsIdentity;
  servicePrincipal?: string;
  /** Internal, not a v1 Identity field: surfaces only on role-binding list rows. */
  email?: string;
  /** Internal, like `email`. */
  emailUnverified?: string;
}

export interface V1Role {
  id: string;
  name: string;
  description: string;
  capabilities: string[];
}

export interface V1RoleBinding {
  id: string;
  identity: string;
  role: string;
  /** Always the parent of `id`; the request's deprecated `group` is ignored. */
  group: string;
  /** Only ever shown on list rows. */
  createdAt: string;
}

export interface SyncConfig {
  source?: string;
  uniqueTags?: boolean;
  expiration?: string;
  google?: string;
  amazon?: string;
  azure?: string;
  syncApks?: boolean;
  apkoOverlay?: string;
  gracePeriod?: boolean;
}

export interface V1Repo {
  id: string;
  name: string;
  description: string;
  catalogTier: string;
  bundles: string[];
  readme: string;
  aliases: string[];
  activeTags: string[];
  createTime: string;
  sync_config?: SyncConfig;
  customOverlay?: Record<string, unknown>;
}

/** One row of `GET /iam/v1/rolebindings`, before rendering. */
export interface V1BindingRow {
  id: string;
  group: V1Group;
  identity: string;
  role: V1Role;
  email: string;
  claimMatchIssuer: string;
  claimMatchSubject: string;
  createdAt: string;
  emailUnverified: string;
}
