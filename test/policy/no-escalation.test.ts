/**
 * No escalation, in native mode with authentication, below the organisation:
 * an identity whose only role at a sub-group (`team`) lets it create role
 * bindings, invites, identity providers and roles may grant there only what
 * it holds there — a role binding (created, batch-created, or updated onto
 * another role or identity), an invite's role, an identity provider's default
 * role, a custom role's capabilities — else PERMISSION_DENIED naming the
 * missing capabilities, nothing written. No custom role carries a capability
 * the contract marks internal_only, an owner's neither (INVALID_ARGUMENT
 * naming it, on create and on a masked update). REST and gRPC.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { authenticatedNative } from '../support/authenticated-native.ts';
import { rejected } from '../support/grpc.ts';
import { aip, type Reply } from '../support/stack.ts';

const IAM = 'chainguard.platform.iam.v2beta1';
const ALICE = 'a'.repeat(40);

/** What bob's role at `team` holds: create and update bindings, invite, add providers and roles, and read groups. */
const GRANTER_CAPS = [
  'CAP_IAM_ROLE_BINDINGS_CREATE', 'CAP_IAM_ROLE_BINDINGS_UPDATE', 'CAP_IAM_GROUP_INVITES_CREATE',
  'CAP_IAM_IDENTITY_PROVIDERS_CREATE', 'CAP_IAM_IDENTITY_PROVIDERS_UPDATE', 'CAP_IAM_ROLES_CREATE', 'CAP_IAM_GROUPS_LIST',
];

describe.each(['native', 'native-pg'] as const)('a caller grants only what it holds (REST and gRPC) [%s]', (mode) => {
  const gateway = authenticatedNative(mode);
  const { call } = gateway;
  let org: string;
  let team: string;
  let bob: string;
  let dave: string;
  let owner: string;
  /** A custom role at the organisation that holds only CAP_IAM_GROUPS_LIST: bob holds all of it at team. */
  let lister: string;
  let bobsListerBinding: string;
  let davesOwnerBinding: string;

  const rpc = (who: string, service: string, method: string, request: object) => gateway.rpc(who, `${IAM}.${service}`, method, request);
  const made = async (who: string, path: string, body: unknown): Promise<string> => {
    const reply = await call(who, 'POST', path, { body });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    return reply.body.uid;
  };
  const bindingsAtTeam = async () =>
    ((await call(ALICE, 'GET', '/iam/v2beta1/roleBindings', { query: { 'uidp.children_of': team } })).body.roleBindings ?? [])
      .map((b: { identity: { uid: string }; role: { uid: string } }) => `${b.identity.uid} ${b.role.uid}`).sort();
  /** What granting owner at team needs that bob lacks there: owner's capabilities less bob's, in owner's order. */
  let ownerLacks: string[];
  /** How a refusal names them: their count, the first ones by name (the message is bounded), then how many more. */
  const lacking = (missing: readonly string[]) => new RegExp(`needs ${missing.length} capabilit(y|ies) the caller does not hold there: ${missing[0]}, ${missing[1]}.* and \\d+ more$`);
  /** A refusal for escalation: 403, PERMISSION_DENIED, the missing capabilities named. */
  const expectEscalation = (reply: Reply, named: RegExp | string) => {
    expect(reply.status, JSON.stringify(reply.body)).toBe(403);
    expect(aip(reply).byType.ErrorInfo.reason).toBe('PERMISSION_DENIED');
    expect(reply.body.message).toMatch(named);
  };

  beforeAll(async () => {
    org = await made(ALICE, '/iam/v2beta1/groups', { name: 'escalation-org' });
    team = await made(ALICE, `/iam/v2beta1/groups/${org}`, { name: 'team' });
    const ownerRole = (await call(ALICE, 'GET', '/iam/v2beta1/roles', { query: { name: 'owner' } })).body.roles[0];
    owner = ownerRole.uid;
    ownerLacks = ownerRole.capabilities.filter((capability: string) => !GRANTER_CAPS.includes(capability));
    lister = await made(ALICE, `/iam/v2beta1/roles/${org}`, { name: 'lister', capabilities: ['CAP_IAM_GROUPS_LIST'] });
    const granter = await made(ALICE, `/iam/v2beta1/roles/${team}`, { name: 'granter', capabilities: GRANTER_CAPS });
    bob = await made(ALICE, `/iam/v2beta1/identities/${org}`, { name: 'bob', claimMatch: { issuer: gateway.issuer.platform.url, subject: 'bob' } });
    dave = await made(ALICE, `/iam/v2beta1/identities/${org}`, { name: 'dave', claimMatch: { issuer: gateway.issuer.platform.url, subject: 'dave' } });
    // bob's only binding: the granter role at team, not at the organisation.
    await made(ALICE, `/iam/v2beta1/roleBindings/${team}`, { identityUid: bob, roleUid: granter });
    davesOwnerBinding = await made(ALICE, `/iam/v2beta1/roleBindings/${team}`, { identityUid: dave, roleUid: owner });
  });

  it('refuses bob binding itself owner at team, naming what it lacks; nothing is written and bob still cannot delete the group', async () => {
    const before = await bindingsAtTeam();
    expectEscalation(await call(bob, 'POST', `/iam/v2beta1/roleBindings/${team}`, { body: { identityUid: bob, roleUid: owner } }), lacking(ownerLacks));
    const overGrpc = await rejected(rpc(bob, 'RoleBindingsService', 'CreateRoleBinding', { parent: team, roleBinding: { identityUid: bob, roleUid: owner } }));
    expect(overGrpc.code).toBe(7);
    expect(overGrpc.message).toMatch(lacking(ownerLacks));
    const batch = await call(bob, 'POST', '/iam/v2beta1/roleBindings:batchCreate', { body: { parent: team, roleUid: owner, requests: [{ roleBinding: { identityUid: bob } }] } });
    expectEscalation(batch, lacking(ownerLacks));
    expect(await bindingsAtTeam()).toEqual(before);
    expect((await call(bob, 'DELETE', `/iam/v2beta1/groups/${team}`)).status).toBe(403);
  });

  it('lets bob bind a role whose capabilities it holds at team, over REST and gRPC', async () => {
    bobsListerBinding = await made(bob, `/iam/v2beta1/roleBindings/${team}`, { identityUid: bob, roleUid: lister });
    const overGrpc = await rpc(bob, 'RoleBindingsService', 'CreateRoleBinding', { parent: team, roleBinding: { identityUid: dave, roleUid: lister } });
    expect(overGrpc).toMatchObject({ role: { uid: lister } });
    expect(await bindingsAtTeam()).toEqual(expect.arrayContaining([`${bob} ${lister}`, `${dave} ${lister}`]));
  });

  it('refuses an update that turns a binding into owner, or moves an owner binding onto bob', async () => {
    const onto = await call(bob, 'PATCH', `/iam/v2beta1/roleBindings/${bobsListerBinding}`, { body: { roleUid: owner }, query: { update_mask: 'role_uid' } });
    expectEscalation(onto, lacking(ownerLacks));
    // The binding keeps owner; only its identity would change: the role is granted anew, to bob.
    const moved = await rejected(rpc(bob, 'RoleBindingsService', 'UpdateRoleBinding', { roleBinding: { uid: davesOwnerBinding, identityUid: bob }, updateMask: { paths: ['identity_uid'] } }));
    expect(moved.code).toBe(7);
    expect(moved.message).toMatch(lacking(ownerLacks));
    expect(await bindingsAtTeam()).toEqual(expect.arrayContaining([`${dave} ${owner}`, `${bob} ${lister}`]));
    expect(await bindingsAtTeam()).not.toContain(`${bob} ${owner}`);
  });

  it("refuses an invite, an identity provider's default role and a custom role carrying more than bob holds; allows them within it", async () => {
    expectEscalation(await call(bob, 'POST', `/iam/v2beta1/groupInvites/${team}`, { body: { roleUid: owner, ttl: '3600s' } }), lacking(ownerLacks));
    const invite = await rpc(bob, 'GroupInvitesService', 'CreateGroupInvite', { parent: team, groupInvite: { roleUid: lister, ttl: { seconds: '3600' } } });
    expect(invite).toMatchObject({ roleUid: lister });

    const idp = (defaultRole: string) => ({ name: `sso-${defaultRole.slice(-4)}`, defaultRole, oidc: { issuer: 'https://sso.example', clientId: 'c', clientSecret: 's' } });
    expectEscalation(await call(bob, 'POST', `/iam/v2beta1/identityProviders/${team}`, { body: idp(owner) }), lacking(ownerLacks));
    const provider = await rpc(bob, 'IdentityProvidersService', 'CreateIdentityProvider', { parent: team, identityProvider: idp(lister) });
    const raise = await rejected(rpc(bob, 'IdentityProvidersService', 'UpdateIdentityProvider', {
      identityProvider: { uid: provider.uid, defaultRole: owner }, updateMask: { paths: ['default_role'] },
    }));
    expect(raise.code).toBe(7);
    expect(raise.message).toMatch(lacking(ownerLacks));

    expectEscalation(await call(bob, 'POST', `/iam/v2beta1/roles/${team}`, { body: { name: 'wider', capabilities: ['CAP_IAM_GROUPS_LIST', 'CAP_IAM_GROUPS_DELETE'] } }), /needs 1 capability the caller does not hold there: CAP_IAM_GROUPS_DELETE$/);
    expect(await rpc(bob, 'RolesService', 'CreateRole', { parent: team, role: { name: 'narrower', capabilities: ['CAP_IAM_GROUPS_LIST'] } })).toMatchObject({ name: 'narrower' });
  });

  it('refuses anyone, the owner too, a custom role with an internal_only capability, on create and on a masked update', async () => {
    const create = await call(ALICE, 'POST', `/iam/v2beta1/roles/${org}`, { body: { name: 'internal', capabilities: ['CAP_IAM_GROUPS_LIST', 'CAP_REPO_INTERNAL_ADMIN'] } });
    expect(create.status).toBe(400);
    expect(aip(create).byType.BadRequest.fieldViolations).toEqual([
      { field: 'capabilities.1', description: expect.stringContaining('CAP_REPO_INTERNAL_ADMIN') },
    ]);
    const overGrpc = await rejected(rpc(ALICE, 'RolesService', 'CreateRole', { parent: org, role: { name: 'internal', capabilities: ['CAP_REPO_INTERNAL_ADMIN'] } }));
    expect([overGrpc.code, overGrpc.message.includes('CAP_REPO_INTERNAL_ADMIN')]).toEqual([3, true]);
    const update = await call(ALICE, 'PATCH', `/iam/v2beta1/roles/${lister}`, { body: { capabilities: ['CAP_REPO_INTERNAL_ADMIN'] }, query: { update_mask: 'capabilities' } });
    expect(update.status).toBe(400);
    expect(update.body.message).toContain('CAP_REPO_INTERNAL_ADMIN');
    const grpcUpdate = await rejected(rpc(ALICE, 'RolesService', 'UpdateRole', { role: { uid: lister, capabilities: ['CAP_REPO_INTERNAL_ADMIN'] }, updateMask: { paths: ['capabilities'] } }));
    expect(grpcUpdate.code).toBe(3);
    expect((await call(ALICE, 'GET', `/iam/v2beta1/roles/${lister}`)).body.capabilities).toEqual(['CAP_IAM_GROUPS_LIST']);
  });
});
