/**
 * The v1 emulator: a faithful in-memory v1 Chainguard IAM/Registry/advisories
 * server (groups, identities, roles, role bindings, identity providers, account
 * associations, group invites, repos, tags, advisories, event subscriptions) speaking grpc-gateway
 * JSON. It is the contract the gateway is tested and benchmarked against.
 */
import type { FastifyInstance } from 'fastify';
import { GROUP, GROUP_WITH_TIMESTAMPS } from './messages.ts';
import { accountAssociationRoutes } from './routes/account-associations.ts';
import { advisoryRoutes } from './routes/advisories.ts';
import { authRoutes, type AuthSettings } from './routes/auth.ts';
import { groupInviteRoutes } from './routes/group-invites.ts';
import { groupRoutes } from './routes/groups.ts';
import { identityRoutes } from './routes/identities.ts';
import { identityProviderRoutes } from './routes/identity-providers.ts';
import { externalGroupRoleMappingRoutes } from './routes/external-group-role-mappings.ts';
import { advisoryFeedRoutes } from './routes/advisory-feed.ts';
import { termsRoutes } from './routes/terms.ts';
import { imageRoutes } from './routes/images.ts';
import { repoRoutes } from './routes/repos.ts';
import { roleBindingRoutes } from './routes/role-bindings.ts';
import { roleRoutes } from './routes/roles.ts';
import { tagRoutes } from './routes/tags.ts';
import { subscriptionRoutes } from './routes/subscriptions.ts';
import { seedDemo, type DemoOrg } from './seed.ts';
import { seedLarge, type LargeOrg } from './seed-large.ts';
import { buildServer } from './server.ts';
import { EmulatorState } from './state.ts';

export { EmulatorState } from './state.ts';
export type { GroupFields, IdentityFields, RepoFields, RoleBindingFields, RoleFields } from './state.ts';
export type { V1BindingRow, V1Group, V1Identity, V1Repo, V1Role, V1RoleBinding } from './state-records.ts';
export type { AccountAssociationsFields, AccountAssociationsFilter, V1AccountAssociations } from './stores/account-associations.ts';
export type { AdvisoryEventFields, AdvisoryFields } from './stores/advisories.ts';
export type { V1Advisory, V1AdvisoryEvent } from './stores/advisory-records.ts';
export { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, type AdvisoryFilter, type AdvisoryPage } from './stores/advisory-list.ts';
export type { GroupInviteFields, GroupInviteFilter, V1GroupInvite, V1StoredGroupInvite } from './stores/group-invites.ts';
export type { IdentityProviderFields, OidcFields, V1IdentityProvider } from './stores/identity-providers.ts';
export type { TagFields, TagFilter, V1Tag } from './stores/tags.ts';
export type { DemoOrg } from './seed.ts';
export type { AuthSettings } from './routes/auth.ts';
export type { LargeOrg } from './seed-large.ts';

export interface EmulatorOptions {
  seed?: 'demo' | 'none' | 'large';
  /** With `seed: 'large'`: how many groups the large organisation holds. */
  groups?: number;
  /** Added to every response, to simulate a slow backend. */
  latencyMs?: number;
  /** Emit Group exactly as the public v1 proto does, without createdAt/updatedAt. */
  omitGroupTimestamps?: boolean;
  /** Refuse a bearer token with UNAUTHENTICATED; every non-empty token is accepted by default. */
  acceptToken?: (token: string) => boolean;
  /** How `GET /auth/v1/ok` answers (routes/auth.ts): which tokens stand for which identities, and failures to answer with. */
  auth?: AuthSettings;
  logger?: boolean;
  /** Clock in microseconds since the epoch, to pin timestamps in tests. */
  clock?: () => number;
  /** Legal document ids an organisation must accept before it can create repos (TermsNotAccepted otherwise). */
  requiredTerms?: readonly string[];
  /** The bytes of the UIDs the state mints (state.ts `uidBytes`): random unless given. */
  uidBytes?: (size: number) => Buffer;
}

export interface RunningEmulator {
  /** http://127.0.0.1:<port> */
  url: string;
  state: EmulatorState;
  /** The settings `/auth/v1/ok` answers by: change them to change its next answers. */
  auth: AuthSettings;
  close(): Promise<void>;
  demo?: DemoOrg;
  large?: LargeOrg;
}

export function buildEmulator(options: EmulatorOptions = {}): { app: FastifyInstance; state: EmulatorState; auth: AuthSettings; demo?: DemoOrg; large?: LargeOrg } {
  const auth = options.auth ?? {};
  const state = new EmulatorState({ ...(options.clock ? { clock: options.clock } : {}), ...(options.requiredTerms ? { requiredTerms: options.requiredTerms } : {}), ...(options.uidBytes ? { uidBytes: options.uidBytes } : {}) });
  const groupMessage = options.omitGroupTimestamps ? GROUP : GROUP_WITH_TIMESTAMPS;
  const app = buildServer({
    routes: [
      ...groupRoutes(state, groupMessage),
      ...identityRoutes(state),
      ...roleRoutes(state),
      ...roleBindingRoutes(state, groupMessage),
      ...identityProviderRoutes(state),
      ...externalGroupRoleMappingRoutes(state),
      ...termsRoutes(state),
      ...advisoryFeedRoutes(state),
      ...accountAssociationRoutes(state),
      ...groupInviteRoutes(state),
      ...repoRoutes(state),
      ...imageRoutes(state),
      ...tagRoutes(state),
      ...advisoryRoutes(state),
      ...authRoutes(state, auth),
      ...subscriptionRoutes(state.subscriptions),
    ],
    ...(options.latencyMs !== undefined && { latencyMs: options.latencyMs }),
    ...(options.acceptToken && { acceptToken: options.acceptToken }),
    ...(options.logger !== undefined && { logger: options.logger }),
  });
  if (options.seed === 'large') return { app, state, auth, large: seedLarge(state, options.groups ?? 10_000) };
  const demo = options.seed === 'demo' ? seedDemo(state) : undefined;
  return demo ? { app, state, auth, demo } : { app, state, auth };
}

export async function startEmulator(
  options: EmulatorOptions & { port?: number; host?: string } = {},
): Promise<RunningEmulator> {
  const { port = 0, host = '127.0.0.1', ...rest } = options;
  const { app, state, auth, demo, large } = buildEmulator(rest);
  await app.listen({ port, host });
  const address = app.server.address();
  const bound = typeof address === 'object' && address ? address.port : port;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${bound}`;
  const running: RunningEmulator = { url, state, auth, close: () => app.close() };
  if (demo) running.demo = demo;
  if (large) running.large = large;
  return running;
}
