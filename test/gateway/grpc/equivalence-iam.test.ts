/**
 * Equivalence (test/support/equivalence.ts) for the IAM services of groups,
 * identities, roles, role bindings, invites and terms: the same operation over
 * gRPC and over REST answers the same message, or the same error.
 */
import { beforeAll, expect, it } from 'vitest';
import { describeEquivalence, expectSameMessage, itReadsAlike, itWritesAlike, rpc, type Ids } from '../../support/equivalence.ts';
import { jwt, trustedCaller } from '../../support/jwt.ts';

const ada = `Bearer ${trustedCaller('ada@domain.example')}`;
const bob = `Bearer ${trustedCaller('bob@domain.example')}`;
const untrusted = `Bearer ${jwt({ iss: 'https://issuer.invalid', sub: 'eve', email: 'eve@domain.example', email_verified: true })}`;
const NOT_FOUND = 5;
const RESOURCE_EXHAUSTED = 8;

describeEquivalence('iam', (eq, mode) => {
  const ids: Ids = {};
  const rest = () => eq.rest();

  beforeAll(async () => {
    ids.org = await eq.made('/iam/v2beta1/groups', { name: 'equivalence' });
    ids.group = await eq.made(`/iam/v2beta1/groups/${ids.org}`, { name: 'eq-group', description: 'd' });
    ids.identity = await eq.made(`/iam/v2beta1/identities/${ids.group}`, { name: 'eq-bot', claimMatch: { issuer: 'https://i.example', subject: 's' } });
    ids.role = await eq.made(`/iam/v2beta1/roles/${ids.org}`, { name: 'eq-role', capabilities: ['CAP_IAM_GROUPS_LIST', 'CAP_REPO_LIST'] });
    ids.binding = await eq.made(`/iam/v2beta1/roleBindings/${ids.group}`, { identityUid: ids.identity, roleUid: ids.role });
    ids.invite = await eq.made(`/iam/v2beta1/groupInvites/${ids.org}`, { roleUid: ids.role, ttl: '3600s', email: 'eq@example.com' });
  });

  itReadsAlike(eq, ids, [
    ['GroupsService', 'GetGroup', 'ListGroups', '/iam/v2beta1/groups', 'group'],
    ['IdentitiesService', 'GetIdentity', 'ListIdentities', '/iam/v2beta1/identities', 'identity'],
    ['RolesService', 'GetRole', 'ListRoles', '/iam/v2beta1/roles', 'role'],
    ['RoleBindingsService', 'GetRoleBinding', 'ListRoleBindings', '/iam/v2beta1/roleBindings', 'binding'],
    ['GroupInvitesService', 'GetGroupInvite', 'ListGroupInvites', '/iam/v2beta1/groupInvites', 'invite'],
  ]);

  // A name names one resource in its parent, so each create takes a new one.
  let written = 0;
  const named = (fields: object = {}) => () => ({ name: `eq-written-${++written}`, ...fields });
  itWritesAlike(eq, ids, [
    ['GroupsService', 'Group', '/iam/v2beta1/groups', 'org', named(), () => ({ description: 'changed' })],
    ['IdentitiesService', 'Identity', '/iam/v2beta1/identities', 'group', named({ claimMatch: { issuer: 'https://w.example', subject: 'w' } }), () => ({ description: 'changed' })],
    ['RolesService', 'Role', '/iam/v2beta1/roles', 'org', named({ capabilities: ['CAP_IAM_GROUPS_LIST'] }), () => ({ description: 'changed' })],
    ['RoleBindingsService', 'RoleBinding', '/iam/v2beta1/roleBindings', 'group', () => ({ identityUid: ids.identity!, roleUid: ids.role! }), () => ({ roleUid: ids.role! })],
  ]);

  it('LookupIdentity, of an identity and of nobody', async () => {
    for (const who of [{ issuer: 'https://i.example', subject: 's' }, { issuer: 'https://nobody.example', subject: 'x' }]) {
      await eq.same('IdentitiesService.LookupIdentity', who, () => rest().get('/iam/v2beta1/identities:lookupIdentity', who));
    }
  });

  it('CreateGroupInvite and DeleteGroupInvite (the code comes only with the create answer, on both)', async () => {
    const created = await eq.call<{ uid: string; code: string }>('GroupInvitesService.CreateGroupInvite', { parent: ids.org!, groupInvite: { roleUid: ids.role!, ttl: '60s' } });
    expect(created.code).not.toBe('');
    const read = (await rest().get(`/iam/v2beta1/groupInvites/${created.uid}`)).body;
    expect(read.code).toBe('');
    expectSameMessage(rpc('GroupInvitesService.GetGroupInvite').output, { ...created, code: '' } as typeof created, read);
    const made = await eq.made(`/iam/v2beta1/groupInvites/${ids.org}`, { roleUid: ids.role, ttl: '60s' });
    await eq.same('GroupInvitesService.DeleteGroupInvite', { uid: created.uid }, () => rest().delete(`/iam/v2beta1/groupInvites/${made}`));
  });

  it('BatchCreateRoleBindings answers the bindings a read shows', async () => {
    const batch = await eq.call<{ roleBindings: { uid: string }[] }>('RoleBindingsService.BatchCreateRoleBindings', {
      parent: ids.group!, roleUid: ids.role!, requests: [{ roleBinding: { identityUid: ids.identity! } }],
    });
    const uid = batch.roleBindings[0]!.uid;
    expectSameMessage(rpc('RoleBindingsService.BatchCreateRoleBindings').output, batch, { roleBindings: [(await rest().get(`/iam/v2beta1/roleBindings/${uid}`)).body] });
  });

  // The email-domain flows name the caller by its token. Only v1 (or Chainguard staff) can verify an
  // organisation, so native mode answers what the real service answers a caller it cannot place.
  const lookup = (authorization: string) => () => rest().get('/iam/v2beta1/groups:lookupGroup', {}, { authorization });
  it('LookupGroup: the verified organisation of the caller\'s domain, or NOT_FOUND', async () => {
    if (mode === 'translate') {
      const made = await fetch(`${eq.stack().emulatorUrl}/iam/v1/groups`, {
        method: 'POST',
        headers: { authorization: 'Bearer staff', 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'domain.example', verified: true }),
      });
      ids.verified = ((await made.json()) as { id: string }).id;
      const found = await eq.same<{ group: { uid: string } }>('GroupsService.LookupGroup', {}, lookup(ada), { authorization: ada });
      expect(found.group.uid).toBe(ids.verified);
    } else {
      ids.verified = ids.org!;
      await eq.sameError('GroupsService.LookupGroup', {}, NOT_FOUND, lookup(ada), { authorization: ada });
    }
    await eq.sameError('GroupsService.LookupGroup', {}, NOT_FOUND, lookup(untrusted), { authorization: untrusted });
  });

  it('CheckEligibility, of a trusted and of an untrusted caller', async () => {
    const check = (authorization: string) => () => rest().get('/iam/v2beta1/groups:checkEligibility', {}, { authorization });
    expect((await eq.same('GroupsService.CheckEligibility', {}, check(ada), { authorization: ada })).eligible).toBe(mode === 'translate');
    expect((await eq.same('GroupsService.CheckEligibility', {}, check(untrusted), { authorization: untrusted })).eligible).toBe(false);
  });

  it('RequestGroupAccess: sent once per caller over either protocol, a repeat over the other is RESOURCE_EXHAUSTED', async () => {
    const request = { groupUid: ids.verified! };
    const send = (authorization: string) => () => rest().post(`/iam/v2beta1/groups/${ids.verified}:requestGroupAccess`, {}, { authorization });
    if (mode === 'translate') {
      // Ada asks over gRPC and Bob over REST; then each repeats over the other protocol.
      await eq.same('GroupsService.RequestGroupAccess', request, send(bob), { authorization: ada });
      await eq.sameError('GroupsService.RequestGroupAccess', request, RESOURCE_EXHAUSTED, send(ada), { authorization: bob });
    } else {
      await eq.sameError('GroupsService.RequestGroupAccess', request, NOT_FOUND, send(ada), { authorization: ada });
    }
  });

  it('AcceptTerms echoes what it accepted, and ListTermsAcceptances (the group\'s and its ancestors\') shows it', async () => {
    const accept = { group: ids.org!, documentIds: ['guardener-tos.v1', 'sfdpa.v1'] };
    await eq.same('TermsService.AcceptTerms', accept, () => rest().post(`/iam/v2beta1/terms/${ids.org}`, { documentIds: accept.documentIds }));
    const listed = await eq.same<{ termsAcceptances: { docId: string }[] }>('TermsService.ListTermsAcceptances', { group: ids.group!, orderBy: 'doc_id', pageSize: 1 },
      () => rest().get(`/iam/v2beta1/terms/${ids.group}`, { order_by: 'doc_id', page_size: 1 }));
    expect(listed.termsAcceptances.map((a) => a.docId)).toEqual(['guardener-tos.v1']);
  });

  it('UpdateIdentityMetadata writes the caller\'s own profile (in the store, beside v1\'s identity in translate mode)', async () => {
    const caller = `Bearer ${jwt({ iss: 'https://i.example', sub: ids.identity, given_name: 'Ada', family_name: 'Lovelace' })}`;
    const request = { identityMetadata: { company: 'Analytical Engines', updatesOptIn: true } };
    const write = () => rest().call('PATCH', '/iam/v2beta1/identities:updateIdentityMetadata', { body: request, authorization: caller });
    // The same write twice: the second answers what the first left.
    const written = await eq.same<{ uid: string }>('IdentitiesService.UpdateIdentityMetadata', request, write, { authorization: caller });
    expect(written.uid).toBe(ids.identity);
  });
});
