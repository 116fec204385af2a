/**
 * What the fuzzer aims at: real resources of every kind, made in set-up
 * through the API (and the fixtures for what v2 cannot create), valid create
 * bodies to mutate, and real page tokens to tamper with. Requests pick uids
 * by position, so a replay against a fresh world sends the equivalent request.
 */
import type { Json } from '../../src/vocabulary/json.ts';
import type { ModeStack } from '../support/modes.ts';

export const KINDS = [
  'groups', 'identities', 'roles', 'roleBindings', 'identityProviders', 'externalGroupRoleMappings', 'accountAssociations', 'groupInvites', 'repos', 'tags', 'advisories', 'subscriptions',
] as const;
export type Kind = (typeof KINDS)[number];

export interface World {
  org: string;
  /** Real uids by mapping name, several of each. */
  uids: Record<Kind, string[]>;
  /** Every real uid. */
  all: string[];
  /** Page tokens minted by a first page, by collection path (`/iam/v2beta1/groups`), with the query that minted them. */
  tokens: Record<string, { query: Record<string, string>; token: string }[]>;
  /** A valid create body for each kind v2 can create, by mapping name. */
  bodies: Partial<Record<Kind, Json>>;
  /** A valid `roleBindings:batchCreate` body. */
  batch: Json;
}

export const COLLECTIONS: Record<Kind, string> = {
  groups: '/iam/v2beta1/groups',
  identities: '/iam/v2beta1/identities',
  roles: '/iam/v2beta1/roles',
  roleBindings: '/iam/v2beta1/roleBindings',
  identityProviders: '/iam/v2beta1/identityProviders',
  externalGroupRoleMappings: '/iam/v2beta1/externalGroupRoleMappings',
  accountAssociations: '/iam/v2beta1/accountAssociations',
  groupInvites: '/iam/v2beta1/groupInvites',
  repos: '/registry/v2beta1/repos',
  tags: '/registry/v2beta1/tags',
  advisories: '/vulnerabilities/v2beta1/advisories',
  subscriptions: '/events/v2beta1/subscriptions',
};

export async function buildWorld(stack: ModeStack): Promise<World> {
  const { client, fixtures } = stack;
  const post = async (path: string, body: Json): Promise<string> => {
    const reply = await client.post(path, body);
    if (reply.status !== 200) throw new Error(`fuzz set-up: POST ${path} answered ${reply.status} ${reply.text}`);
    return reply.body.uid as string;
  };
  const uids = Object.fromEntries(KINDS.map((k) => [k, [] as string[]])) as Record<Kind, string[]>;
  const org = await post('/iam/v2beta1/groups', { name: 'fuzz-org', description: 'the fuzzer\'s organisation' });
  uids.groups.push(org);
  for (let i = 0; i < 3; i++) uids.groups.push(await post(`/iam/v2beta1/groups/${org}`, { name: `fuzz-group-${i}` }));
  const [, g1, g2] = uids.groups as [string, string, string, string];
  uids.groups.push(await post(`/iam/v2beta1/groups/${g1}`, { name: 'fuzz-subgroup' }));

  const identity = (i: number) => ({ name: `fuzz-bot-${i}`, description: 'made by the fuzzer', claimMatch: { issuer: 'https://issuer.example', subject: `bot-${i}`, claims: { aud: 'fuzz' } } });
  for (let i = 0; i < 3; i++) uids.identities.push(await post(`/iam/v2beta1/identities/${i === 2 ? g2 : g1}`, identity(i)));
  const role = (i: number) => ({ name: `fuzz-role-${i}`, description: 'r', capabilities: ['CAP_IAM_GROUPS_LIST', 'CAP_REPO_LIST'] });
  for (let i = 0; i < 2; i++) uids.roles.push(await post(`/iam/v2beta1/roles/${org}`, role(i)));
  const viewer = (await client.get('/iam/v2beta1/roles', { name: 'viewer', 'uidp.in_root': 'true' })).body.roles[0].uid as string;
  uids.roles.push(viewer);
  for (let i = 0; i < 3; i++) {
    uids.roleBindings.push(await post(`/iam/v2beta1/roleBindings/${g1}`, { identityUid: uids.identities[i]!, roleUid: uids.roles[i % 2]! }));
  }
  const oidc = { issuer: 'https://sso.example', clientId: 'fuzz-client', clientSecret: 'fuzz-secret', additionalScopes: ['email'] };
  const idp = (i: number) => ({ name: `fuzz-sso-${i}`, defaultRole: uids.roles[0]!, oidc });
  for (let i = 0; i < 2; i++) uids.identityProviders.push(await post(`/iam/v2beta1/identityProviders/${org}`, idp(i)));
  const groupMapping = (i: number) => ({ externalGroupId: `fuzz-idp-group-${i}`, roleUid: viewer, scope: org });
  for (let i = 0; i < 2; i++) uids.externalGroupRoleMappings.push(await post(`/iam/v2beta1/externalGroupRoleMappings/${uids.identityProviders[0]!}`, groupMapping(i)));
  const association = (i: number) => ({ name: `fuzz-cloud-${i}`, amazon: { account: `12345678901${i}` } });
  uids.accountAssociations.push(await post(`/iam/v2beta1/accountAssociations/${g1}`, association(0)));
  uids.accountAssociations.push(await post(`/iam/v2beta1/accountAssociations/${g2}`, association(1)));
  const invite = { roleUid: uids.roles[0]!, ttl: '3600s', email: 'fuzz@example.com' };
  for (let i = 0; i < 2; i++) uids.groupInvites.push(await post(`/iam/v2beta1/groupInvites/${org}`, invite));

  for (let i = 0; i < 2; i++) uids.repos.push(await fixtures.repo(org, { name: `fuzz-repo-${i}`, catalogTier: 'CATALOG_TIER_BASE' }));
  for (const [i, name] of ['latest', '1.2.3', '1.2.3-r1', `sha256-${'b'.repeat(64)}`].entries()) {
    uids.tags.push(await fixtures.tag(uids.repos[0]!, { name, digest: `sha256:${String(i).repeat(64)}` }));
  }
  for (let i = 0; i < 3; i++) {
    uids.advisories.push(await fixtures.advisory(org, {
      author: 'alice', artifactType: 'apk', artifactName: `fuzz-artifact-${i}`, artifactArchitecture: 'x86_64',
      componentName: 'c', componentType: 'go-module', componentLocation: '/x', aliases: [`CVE-2026-${i}`],
      events: [{ author: 'bob', reviewState: 'REVIEW_STATE_APPROVED', fixed: { fixedVersion: '1.2.3' } }],
    }));
  }

  const subscription = { sink: 'https://hooks.example.com/fuzz' };
  for (let i = 0; i < 2; i++) uids.subscriptions.push(await post(`/events/v2beta1/subscriptions/${i ? g1 : org}`, subscription));

  // A first page of one row from each list: its token is real, bound to that query.
  const tokens: World['tokens'] = {};
  for (const path of Object.values(COLLECTIONS)) {
    tokens[path] = [];
    for (const query of [{ 'uidp.descendants_of': org, page_size: '1' }, { page_size: '1', order_by: 'uid desc' }] as Record<string, string>[]) {
      const reply = await client.get(path, query);
      if (reply.status !== 200) throw new Error(`fuzz set-up: GET ${path} answered ${reply.status} ${reply.text}`);
      if (reply.body.nextPageToken) tokens[path]!.push({ query, token: reply.body.nextPageToken as string });
    }
  }

  return {
    org,
    uids,
    all: KINDS.flatMap((k) => uids[k]),
    tokens,
    bodies: {
      groups: { name: 'fuzz-made', description: 'd' },
      identities: identity(9),
      roles: role(9),
      roleBindings: { identityUid: uids.identities[0]!, roleUid: uids.roles[1]! },
      identityProviders: idp(9),
      externalGroupRoleMappings: groupMapping(9),
      accountAssociations: association(9),
      groupInvites: invite,
      repos: { name: 'fuzz-made-repo', catalogTier: 'CATALOG_TIER_AI', customOverlay: { environment: { MODE: 'fuzz' } } },
      tags: { name: 'fuzz-made', digest: `sha256:${'f'.repeat(64)}`, bundles: ['b'] },
      subscriptions: subscription,
    },
    batch: {
      parent: g2,
      roleUid: uids.roles[0]!,
      requests: [{ parent: g2, roleBinding: { identityUid: uids.identities[2]! } }, { roleBinding: { identityUid: uids.identities[1]!, roleUid: uids.roles[0]! } }],
    },
  };
}
