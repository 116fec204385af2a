/**
 * The tutorial workflow as a Go SDK user runs it: a real gRPC client
 * (@grpc/grpc-js, the project's own protos) over cleartext HTTP/2 to the same
 * port that serves REST, the token as call metadata, in every mode (translate
 * over the v1 emulator, native on SQLite, native on PostgreSQL). Errors are
 * checked in the google.rpc.Status the trailer carries.
 */
import { afterAll, expect, it } from 'vitest';
import { ALL_MODES, describeModes } from '../../support/modes.ts';
import { GrpcClient, rejected } from '../../support/grpc.ts';
import { ROOT_UID, TIMESTAMP_MS } from '../../support/stack.ts';

const IAM = 'chainguard.platform.iam.v2beta1';
const GROUPS = `${IAM}.GroupsService`;
const REPOS = 'chainguard.platform.registry.v2beta1.ReposService';
const byType = (details: any[]) => Object.fromEntries(details.map((d) => [String(d['@type']).split('.').pop(), d]));

describeModes('the tutorial workflow over gRPC', (stack) => {
  const ids: { org?: string; group?: string; identity?: string; binding?: string; viewer?: string } = {};
  let grpc: GrpcClient;
  const rpc = (service: string, method: string, request: object, options = {}) => {
    grpc ??= new GrpcClient(stack().url);
    return grpc.call(service, method, request, options);
  };
  afterAll(() => grpc?.close());

  it('creates an organisation, groups under it, and lists them in pages', async () => {
    const org = await rpc(GROUPS, 'CreateGroup', { group: { name: 'grpc-org', description: 'made over gRPC' } });
    expect(org.uid).toMatch(ROOT_UID);
    expect(org).toMatchObject({ name: 'grpc-org', description: 'made over gRPC' });
    ids.org = org.uid;
    for (const name of ['b-group', 'a-group', 'c-group']) {
      const made = await rpc(GROUPS, 'CreateGroup', { parent: ids.org, group: { name } });
      expect(made.uid.startsWith(`${ids.org}/`)).toBe(true);
    }
    const first = await rpc(GROUPS, 'ListGroups', { uidp: { childrenOf: ids.org }, orderBy: 'name', pageSize: 2 });
    expect(first.groups.map((g: any) => g.name)).toEqual(['a-group', 'b-group']);
    expect(first.totalCount).toBe('3');
    expect(first.nextPageToken).not.toBe('');
    const second = await rpc(GROUPS, 'ListGroups', { uidp: { childrenOf: ids.org }, orderBy: 'name', pageSize: 2, pageToken: first.nextPageToken });
    expect(second.groups.map((g: any) => g.name)).toEqual(['c-group']);
    expect(second.nextPageToken ?? '').toBe('');
    const skipped = await rpc(GROUPS, 'ListGroups', { uidp: { childrenOf: ids.org }, orderBy: 'name desc', skip: 2 });
    expect(skipped.groups.map((g: any) => g.name)).toEqual(['a-group']);
    expect(skipped.skipped).toBe(2);
    ids.group = first.groups[0].uid;
  });

  it('filters groups by exact name', async () => {
    const named = await rpc(GROUPS, 'ListGroups', { uidp: { descendantsOf: ids.org }, name: 'b-group' });
    expect(named.groups.map((g: any) => g.name)).toEqual(['b-group']);
    expect(named.groups[0].uid.startsWith(`${ids.org}/`)).toBe(true);
  });

  it('gets a group with its times, as REST shows the same group', async () => {
    const group = await rpc(GROUPS, 'GetGroup', { uid: ids.group });
    const rest = await stack().client.get(`/iam/v2beta1/groups/${ids.group}`);
    expect(group.name).toBe(rest.body.name);
    expect(new Date(Number(group.createTime.seconds) * 1000 + group.createTime.nanos / 1e6).toISOString()).toBe(rest.body.createTime);
    expect(rest.body.createTime).toMatch(TIMESTAMP_MS);
  });

  it('creates an identity and binds it to the built-in viewer role, hydrated', async () => {
    const identity = await rpc(`${IAM}.IdentitiesService`, 'CreateIdentity', {
      parent: ids.group,
      identity: { name: 'grpc-bot', description: 'CI', claimMatch: { issuer: 'https://issuer.example', subject: 'bot' } },
    });
    expect(identity.uid.startsWith(`${ids.group}/`)).toBe(true);
    expect(identity.claimMatch).toMatchObject({ issuer: 'https://issuer.example', subject: 'bot' });
    expect(Number(identity.lastSeenTime.seconds)).toBeGreaterThan(0);
    ids.identity = identity.uid;
    const roles = await rpc(`${IAM}.RolesService`, 'ListRoles', { name: 'viewer' });
    ids.viewer = roles.roles.find((r: any) => r.name === 'viewer').uid;
    expect(roles.roles[0].capabilities).toContain('CAP_IAM_GROUPS_LIST');
    const binding = await rpc(`${IAM}.RoleBindingsService`, 'CreateRoleBinding', {
      parent: ids.group, roleBinding: { identityUid: ids.identity, roleUid: ids.viewer },
    });
    expect(binding.identity).toMatchObject({ uid: ids.identity, name: 'grpc-bot', description: 'CI', issuer: 'https://issuer.example', subject: 'bot' });
    expect(binding.role).toMatchObject({ uid: ids.viewer, name: 'viewer' });
    expect(binding.group).toMatchObject({ uid: ids.group, name: 'a-group' });
    ids.binding = binding.uid;
  });

  it('lists repos in the registry', async () => {
    await stack().fixtures.repo(ids.org!, { name: 'python', catalogTier: 'CATALOG_TIER_BASE' });
    await stack().fixtures.repo(ids.org!, { name: 'nginx', catalogTier: 'CATALOG_TIER_APPLICATION' });
    const { repos } = await rpc(REPOS, 'ListRepos', { uidp: { descendantsOf: ids.org }, orderBy: 'name' });
    expect(repos.map((r: any) => [r.name, r.catalogTier])).toEqual([['nginx', 'CATALOG_TIER_APPLICATION'], ['python', 'CATALOG_TIER_BASE']]);
  });

  it('updates with a field mask, and without one changes the populated fields only', async () => {
    const masked = await rpc(GROUPS, 'UpdateGroup', { group: { uid: ids.group, name: 'renamed', description: 'ignored' }, updateMask: { paths: ['name'] } });
    expect(masked).toMatchObject({ name: 'renamed', description: '' });
    const implied = await rpc(GROUPS, 'UpdateGroup', { group: { uid: ids.group, description: 'set without a mask' } });
    expect(implied).toMatchObject({ name: 'renamed', description: 'set without a mask' });
  });

  it('answers errors as google.rpc.Status with the same details REST gives', async () => {
    const invalid = await rejected(rpc(GROUPS, 'CreateGroup', { parent: ids.org, group: { name: 'Not Valid!' } }));
    expect(invalid.code).toBe(3);
    expect(invalid.message).toMatch(/^Invalid argument: /);
    const details = byType(invalid.details);
    expect(details.ErrorInfo).toMatchObject({ reason: 'INVALID_ARGUMENT', domain: 'iam.chainguard.dev' });
    expect(details.ErrorInfo.metadata.requestId).toMatch(/\S/);
    expect(details.BadRequest.fieldViolations[0].field).toBe('name');

    const rest = await stack().client.post(`/iam/v2beta1/groups/${ids.org}`, { name: 'Not Valid!' });
    expect(rest.body.message).toBe(invalid.message);
    expect(rest.body.details.slice(1)).toEqual(invalid.details.slice(1));

    const missing = await rejected(rpc(GROUPS, 'GetGroup', { uid: `${ids.org}/0123456789abcdef` }));
    expect(missing.code).toBe(5);
    expect(byType(missing.details).ResourceInfo).toMatchObject({ resourceType: 'iam.chainguard.dev/Group' });

    const notEmpty = await rejected(rpc(GROUPS, 'DeleteGroup', { uid: ids.group }));
    expect(notEmpty.code).toBe(9);
    expect(byType(notEmpty.details).PreconditionFailure.violations[0].type).toBe('RESOURCE_NOT_EMPTY');

    const anonymous = await rejected(rpc(GROUPS, 'ListGroups', {}, { authorization: null }));
    expect(anonymous.code).toBe(16);
    const badUid = await rejected(rpc(GROUPS, 'GetGroup', { uid: 'not-a-uidp' }));
    expect(badUid.code).toBe(3);
    expect(byType(badUid.details).BadRequest.fieldViolations[0].field).toBe('uid');
  });

  it('cleans up: binding, identity, repos, groups', async () => {
    expect(await rpc(`${IAM}.RoleBindingsService`, 'DeleteRoleBinding', { uid: ids.binding })).toEqual({});
    expect(await rpc(`${IAM}.IdentitiesService`, 'DeleteIdentity', { uid: ids.identity })).toEqual({});
    expect((await rejected(rpc(`${IAM}.IdentitiesService`, 'GetIdentity', { uid: ids.identity }))).code).toBe(5);
    const { repos } = await rpc(REPOS, 'ListRepos', { uidp: { childrenOf: ids.org } });
    for (const repo of repos) expect(await rpc(REPOS, 'DeleteRepo', { uid: repo.uid })).toEqual({});
    const children = await rpc(GROUPS, 'ListGroups', { uidp: { childrenOf: ids.org } });
    for (const child of children.groups) await rpc(GROUPS, 'DeleteGroup', { uid: child.uid });
    await rpc(GROUPS, 'DeleteGroup', { uid: ids.org });
    expect((await rejected(rpc(GROUPS, 'GetGroup', { uid: ids.org }))).code).toBe(5);
  });
}, { modes: ALL_MODES });
