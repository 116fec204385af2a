/**
 * References stay inside their organisation. A role named by a binding, an
 * invite, an identity provider or an external group mapping is built in or
 * defined at the group or above it; an identity named by a binding is a user
 * (root-level) or of the binding's organisation. Anything else is
 * INVALID_ARGUMENT on the field, the same whether the foreign resource exists
 * or not, and nothing of it (name, subject, issuer, capabilities) in the
 * answer. `identities:lookupIdentity` answers an identity the caller may not
 * read exactly as it answers one nobody registered.
 *
 * Native mode with authentication (org A's owner against org B's resources,
 * REST and gRPC), and every mode without it: the rule needs no read, so
 * translate mode refuses before v1 is asked.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { deterministicRootUid } from '../../src/uidp.ts';
import { authenticatedNative } from '../support/authenticated-native.ts';
import { GrpcClient, rejected } from '../support/grpc.ts';
import { ALL_MODES, describeModes } from '../support/modes.ts';
import { aip, type Reply } from '../support/stack.ts';

const IAM = 'chainguard.platform.iam.v2beta1';
const ALICE = 'a'.repeat(40);
const CAROL = 'c'.repeat(40);

/** B's identity, whose details must never reach A. */
const BEN = { name: 'ben-of-org-b', subject: 'ben-secret-subject', issuer: 'https://idp.org-b.example' };

const oidc = (name: string, defaultRole: string) => ({ name, defaultRole, oidc: { issuer: 'https://sso.example', clientId: 'c', clientSecret: 's' } });

/** A refusal on the fields (400, INVALID_ARGUMENT) that says nothing of B's resources. */
function expectRefusedOn(reply: Reply, ...fields: string[]): void {
  expect(reply.status, JSON.stringify(reply.body)).toBe(400);
  expect(aip(reply).byType.BadRequest.fieldViolations.map((v: { field: string }) => v.field)).toEqual(fields);
  for (const secret of [BEN.name, BEN.subject, BEN.issuer, 'b-role', 'CAP_REPO_LIST']) expect(reply.text).not.toContain(secret);
}

/** The answer without what differs per request (its id). */
function answer(reply: Reply): unknown {
  return JSON.parse(reply.text.replace(/"requestId":"[^"]*"/g, ''));
}

describe.each(['native', 'native-pg'] as const)("org A's owner cannot reach org B (REST and gRPC) [%s]", (mode) => {
  const gateway = authenticatedNative(mode);
  const { call } = gateway;
  const rpc = (who: string, service: string, method: string, request: object) => gateway.rpc(who, `${IAM}.${service}`, method, request);
  const ids = {} as Record<'a' | 'team' | 'sibling' | 'b' | 'ben' | 'bRole' | 'aIdentity' | 'siblingRole' | 'viewer' | 'idp', string>;
  const made = async (who: string, path: string, body: unknown): Promise<string> => {
    const reply = await call(who, 'POST', path, { body });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    return reply.body.uid;
  };

  beforeAll(async () => {
    ids.a = await made(ALICE, '/iam/v2beta1/groups', { name: 'org-a' });
    ids.team = await made(ALICE, `/iam/v2beta1/groups/${ids.a}`, { name: 'team' });
    ids.sibling = await made(ALICE, `/iam/v2beta1/groups/${ids.a}`, { name: 'sibling' });
    ids.siblingRole = await made(ALICE, `/iam/v2beta1/roles/${ids.sibling}`, { name: 'sibling-role', capabilities: ['CAP_IAM_GROUPS_LIST'] });
    ids.aIdentity = await made(ALICE, `/iam/v2beta1/identities/${ids.a}`, { name: 'amy', claimMatch: { issuer: 'https://idp.org-a.example', subject: 'amy' } });
    ids.viewer = (await call(ALICE, 'GET', '/iam/v2beta1/roles', { query: { name: 'viewer' } })).body.roles[0].uid;
    ids.idp = await made(ALICE, `/iam/v2beta1/identityProviders/${ids.a}`, oidc('a-sso', ids.viewer));
    ids.b = await made(CAROL, '/iam/v2beta1/groups', { name: 'org-b' });
    ids.ben = await made(CAROL, `/iam/v2beta1/identities/${ids.b}`, { name: BEN.name, claimMatch: { issuer: BEN.issuer, subject: BEN.subject } });
    ids.bRole = await made(CAROL, `/iam/v2beta1/roles/${ids.b}`, { name: 'b-role', capabilities: ['CAP_IAM_GROUPS_LIST', 'CAP_REPO_LIST'] });
  });

  it("refuses binding B's identity in A, over REST and gRPC, and tells it apart from no uid of B's at all", async () => {
    const bound = await call(ALICE, 'POST', `/iam/v2beta1/roleBindings/${ids.a}`, { body: { identityUid: ids.ben, roleUid: ids.viewer } });
    expectRefusedOn(bound, 'identityUid');
    const missing = await call(ALICE, 'POST', `/iam/v2beta1/roleBindings/${ids.a}`, { body: { identityUid: `${ids.b}/0123456789abcdef`, roleUid: ids.viewer } });
    expect(answer(missing)).toEqual(answer(bound));
    const overGrpc = await rejected(rpc(ALICE, 'RoleBindingsService', 'CreateRoleBinding', { parent: ids.a, roleBinding: { identityUid: ids.ben, roleUid: ids.viewer } }));
    expect(overGrpc.code).toBe(3);
    for (const secret of [BEN.name, BEN.subject, BEN.issuer]) expect(JSON.stringify(overGrpc.details) + overGrpc.message).not.toContain(secret);
    const listed = (await call(ALICE, 'GET', '/iam/v2beta1/roleBindings', { query: { 'uidp.descendants_of': ids.a } })).text;
    for (const secret of [BEN.name, BEN.subject, BEN.issuer]) expect(listed).not.toContain(secret);
  });

  it("refuses B's role in A's binding, invite, identity provider and group mapping; B can still delete its role", async () => {
    expectRefusedOn(await call(ALICE, 'POST', `/iam/v2beta1/roleBindings/${ids.team}`, { body: { identityUid: ids.aIdentity, roleUid: ids.bRole } }), 'roleUid');
    const batch = await call(ALICE, 'POST', '/iam/v2beta1/roleBindings:batchCreate', { body: { parent: ids.a, roleUid: ids.bRole, requests: [{ roleBinding: { identityUid: ids.aIdentity } }] } });
    expectRefusedOn(batch, 'requests[0].roleBinding.roleUid');
    expectRefusedOn(await call(ALICE, 'POST', `/iam/v2beta1/groupInvites/${ids.a}`, { body: { roleUid: ids.bRole, ttl: '3600s' } }), 'roleUid');
    expectRefusedOn(await call(ALICE, 'POST', `/iam/v2beta1/identityProviders/${ids.a}`, { body: oidc('b-role-sso', ids.bRole) }), 'defaultRole');
    const raised = await call(ALICE, 'PATCH', `/iam/v2beta1/identityProviders/${ids.idp}`, { body: { defaultRole: ids.bRole }, query: { update_mask: 'default_role' } });
    expectRefusedOn(raised, 'defaultRole');
    expectRefusedOn(await call(ALICE, 'POST', `/iam/v2beta1/externalGroupRoleMappings/${ids.idp}`, { body: { externalGroupId: 'eng', roleUid: ids.bRole, scope: ids.a } }), 'roleUid');
    // A scope in B would make B's role an ancestor's: refused on the scope, B's role not read (its capabilities not named).
    expectRefusedOn(await call(ALICE, 'POST', `/iam/v2beta1/externalGroupRoleMappings/${ids.idp}`, { body: { externalGroupId: 'eng', roleUid: ids.bRole, scope: ids.b } }), 'scope');
    const invite = await rejected(rpc(ALICE, 'GroupInvitesService', 'CreateGroupInvite', { parent: ids.a, groupInvite: { roleUid: ids.bRole } }));
    const mapping = await rejected(rpc(ALICE, 'ExternalGroupRoleMappingsService', 'CreateExternalGroupRoleMapping', {
      parent: ids.idp, externalGroupRoleMapping: { externalGroupId: 'eng', roleUid: ids.bRole, scope: ids.a },
    }));
    expect([invite.code, mapping.code]).toEqual([3, 3]);
    expect(invite.message + mapping.message).not.toContain('b-role');
    expect((await call(CAROL, 'DELETE', `/iam/v2beta1/roles/${ids.bRole}`)).status).toBe(200);
  });

  it("refuses a role of a sibling group, which is no ancestor of the binding's; takes A's own and the built-in ones", async () => {
    expectRefusedOn(await call(ALICE, 'POST', `/iam/v2beta1/roleBindings/${ids.team}`, { body: { identityUid: ids.aIdentity, roleUid: ids.siblingRole } }), 'roleUid');
    expect((await call(ALICE, 'POST', `/iam/v2beta1/roleBindings/${ids.sibling}`, { body: { identityUid: ids.aIdentity, roleUid: ids.siblingRole } })).status).toBe(200);
    const orgRole = await made(ALICE, `/iam/v2beta1/roles/${ids.a}`, { name: 'org-role', capabilities: ['CAP_IAM_GROUPS_LIST'] });
    expect(await rpc(ALICE, 'RoleBindingsService', 'CreateRoleBinding', { parent: ids.team, roleBinding: { identityUid: ids.aIdentity, roleUid: orgRole } })).toMatchObject({ role: { uid: orgRole } });
    expect(await rpc(ALICE, 'RoleBindingsService', 'CreateRoleBinding', { parent: ids.team, roleBinding: { identityUid: ids.aIdentity, roleUid: ids.viewer } })).toMatchObject({ role: { uid: ids.viewer } });
  });

  it('answers a lookup of an identity the caller may not read exactly as one nobody registered', async () => {
    const query = { issuer: BEN.issuer, subject: BEN.subject };
    expect((await call(CAROL, 'GET', '/iam/v2beta1/identities:lookupIdentity', { query })).body).toEqual({ uid: ids.ben });
    const unregistered = { issuer: BEN.issuer, subject: 'nobody-registered-this' };
    const foreign = await call(ALICE, 'GET', '/iam/v2beta1/identities:lookupIdentity', { query });
    const nobody = await call(ALICE, 'GET', '/iam/v2beta1/identities:lookupIdentity', { query: unregistered });
    expect([foreign.status, nobody.status]).toEqual([200, 200]);
    // Both are the uid a not-yet-registered user gets, derived from the pair asked about alone.
    expect(foreign.body).toEqual({ uid: deterministicRootUid('identities', BEN.issuer, BEN.subject) });
    expect(nobody.body).toEqual({ uid: deterministicRootUid('identities', unregistered.issuer, unregistered.subject) });
    expect(await rpc(ALICE, 'IdentitiesService', 'LookupIdentity', query)).toEqual(foreign.body);
    // A's own identity is found by A.
    expect(await rpc(ALICE, 'IdentitiesService', 'LookupIdentity', { issuer: 'https://idp.org-a.example', subject: 'amy' })).toEqual({ uid: ids.aIdentity });
  });
});

describeModes('references stay inside their organisation, decided before any read', (stack) => {
  const ids = {} as Record<'a' | 'b' | 'bIdentity' | 'bRole' | 'viewer', string>;
  let grpc: GrpcClient;
  const client = () => stack().client;
  beforeAll(async () => {
    grpc = new GrpcClient(stack().url);
    ids.a = (await client().post('/iam/v2beta1/groups', { name: 'refs-a' })).body.uid;
    ids.b = (await client().post('/iam/v2beta1/groups', { name: 'refs-b' })).body.uid;
    ids.bIdentity = (await client().post(`/iam/v2beta1/identities/${ids.b}`, { name: BEN.name, claimMatch: { issuer: BEN.issuer, subject: BEN.subject } })).body.uid;
    ids.bRole = (await client().post(`/iam/v2beta1/roles/${ids.b}`, { name: 'b-role', capabilities: ['CAP_IAM_GROUPS_LIST'] })).body.uid;
    ids.viewer = (await client().get('/iam/v2beta1/roles', { name: 'viewer' })).body.roles[0].uid;
  });

  it("refuses another organisation's identity and role in a binding, on create and on update", async () => {
    expectRefusedOn(await client().post(`/iam/v2beta1/roleBindings/${ids.a}`, { identityUid: ids.bIdentity, roleUid: ids.viewer }), 'identityUid');
    expectRefusedOn(await client().post(`/iam/v2beta1/roleBindings/${ids.a}`, { identityUid: ids.bIdentity, roleUid: ids.bRole }), 'roleUid', 'identityUid');
    const own = (await client().post(`/iam/v2beta1/roleBindings/${ids.b}`, { identityUid: ids.bIdentity, roleUid: ids.viewer })).body.uid;
    const intoA = await client().post(`/iam/v2beta1/identities/${ids.a}`, { name: 'amy', claimMatch: { issuer: 'https://a.example', subject: 'amy' } });
    expectRefusedOn(await client().patch(`/iam/v2beta1/roleBindings/${own}`, { identityUid: intoA.body.uid }, { update_mask: 'identity_uid' }), 'identityUid');
    expectRefusedOn(await client().post(`/iam/v2beta1/groupInvites/${ids.a}`, { roleUid: ids.bRole, ttl: '3600s' }), 'roleUid');
  });

  it('refuses an internal_only capability in a custom role with its own words, before the system of record is asked', async () => {
    const refused = await client().post(`/iam/v2beta1/roles/${ids.a}`, { name: 'internal', capabilities: ['CAP_REPO_INTERNAL_ADMIN'] });
    expect(refused.status).toBe(400);
    expect(aip(refused).byType.BadRequest.fieldViolations).toEqual([{ field: 'capabilities.0', description: 'CAP_REPO_INTERNAL_ADMIN is internal only: no custom role may carry it' }]);
    const overGrpc = await rejected(grpc.call(`${IAM}.RolesService`, 'CreateRole', { parent: ids.a, role: { name: 'internal', capabilities: ['CAP_REPO_INTERNAL_ADMIN'] } }));
    expect(overGrpc.code).toBe(3);
    expect((await client().get('/iam/v2beta1/roles', { name: 'internal' })).body.roles ?? []).toEqual([]);
  });
}, { modes: ALL_MODES });
