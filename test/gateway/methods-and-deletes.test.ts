/** Custom methods (batch create, lookup) and what deleting may not do, in every mode. */
import { expect, it } from 'vitest';
import { describeModes } from '../support/modes.ts';
import { ROOT_UID, aip } from '../support/stack.ts';

describeModes('custom methods and delete rules', (stack) => {
  let org: string;
  const roles: Record<string, string> = {};
  const client = () => stack().client;
  const group = async (name: string, parent = org) => (await client().post(`/iam/v2beta1/groups/${parent}`, { name })).body.uid as string;
  const identities = async (parent: string, count: number, prefix: string) => {
    const uids: string[] = [];
    for (let i = 0; i < count; i++) {
      uids.push((await client().post(`/iam/v2beta1/identities/${parent}`, { name: `${prefix}-${i}`, claimMatch: { issuer: 'https://i', subject: `${prefix}-${i}` } })).body.uid);
    }
    return uids;
  };
  const bindings = async (parent: string) => (await client().get('/iam/v2beta1/roleBindings', { 'uidp.children_of': parent })).body.totalCount;

  it('set-up', async () => {
    org = (await client().post('/iam/v2beta1/groups', { name: 'methods-org' })).body.uid;
    for (const role of (await client().get('/iam/v2beta1/roles', { 'uidp.in_root': true })).body.roles) roles[role.name] = role.uid;
    expect(Object.keys(roles).sort()).toEqual(['editor', 'owner', 'viewer']);
  });

  it('batchCreate creates every binding in request order, inheriting the top-level roleUid, hydrated', async () => {
    const parent = await group('batch');
    const ids = await identities(parent, 3, 'batch');
    const reply = await client().post('/iam/v2beta1/roleBindings:batchCreate', {
      parent,
      roleUid: roles.viewer,
      requests: [
        { roleBinding: { identityUid: ids[0] } },
        { parent, roleBinding: { identityUid: ids[1], roleUid: roles.viewer } },
        { role_binding: { identity_uid: ids[2] } },
      ],
    });
    expect(reply.status).toBe(200);
    expect(reply.body.roleBindings.map((b: any) => b.identity.uid)).toEqual(ids);
    for (const [i, binding] of reply.body.roleBindings.entries()) {
      expect(binding.identity.name).toBe(`batch-${i}`);
      expect(binding.role).toMatchObject({ uid: roles.viewer, name: 'viewer' });
      expect(binding.group.uid).toBe(parent);
    }
    expect(await bindings(parent)).toBe('3');
  });

  it('batchCreate refuses the whole batch when one request is wrong, creating nothing', async () => {
    const parent = await group('batch-bad');
    const ids = await identities(parent, 2, 'bad');
    const conflict = await client().post('/iam/v2beta1/roleBindings:batchCreate', {
      parent, roleUid: roles.viewer, requests: [{ roleBinding: { identityUid: ids[0] } }, { roleBinding: { identityUid: ids[1], roleUid: roles.editor } }],
    });
    expect(aip(conflict).byType.BadRequest.fieldViolations[0].field).toBe('requests[1].roleBinding.roleUid');
    const malformed = await client().post('/iam/v2beta1/roleBindings:batchCreate', {
      parent, requests: [{ roleBinding: { identityUid: ids[0], roleUid: roles.viewer } }, { roleBinding: { identityUid: 'nope', roleUid: roles.viewer } }],
    });
    expect(aip(malformed).byType.BadRequest.fieldViolations[0].field).toBe('requests[1].roleBinding.identityUid');
    // Well-formed but naming no identity: the first request would succeed alone, yet nothing is created.
    const ghost = await client().post('/iam/v2beta1/roleBindings:batchCreate', {
      parent, roleUid: roles.viewer, requests: [{ roleBinding: { identityUid: ids[0] } }, { roleBinding: { identityUid: `${parent}/0123456789abcdef` } }],
    });
    expect(ghost.status).toBeGreaterThanOrEqual(400);
    const tooMany = await client().post('/iam/v2beta1/roleBindings:batchCreate', {
      parent, roleUid: roles.viewer, requests: Array.from({ length: 26 }, () => ({ roleBinding: { identityUid: ids[0] } })),
    });
    expect(aip(tooMany).byType.BadRequest.fieldViolations[0].field).toBe('requests');
    const otherParent = await client().post('/iam/v2beta1/roleBindings:batchCreate', {
      parent, roleUid: roles.viewer, requests: [{ parent: org, roleBinding: { identityUid: ids[0] } }],
    });
    expect(aip(otherParent).byType.BadRequest.fieldViolations[0].field).toBe('requests[0].parent');
    expect(await bindings(parent)).toBe('0');
  });

  it('batchCreate is a route of its own, not a create under a uid', async () => {
    expect((await client().post(`/iam/v2beta1/roleBindings/${org}:batchCreate`, { requests: [] })).status).toBe(404);
  });

  it('lookupIdentity finds an identity by issuer and subject, else answers the same derived uid every time', async () => {
    const [id] = await identities(org, 1, 'lookup');
    const found = await client().get('/iam/v2beta1/identities:lookupIdentity', { issuer: 'https://i', subject: 'lookup-0' });
    expect(found.body).toEqual({ uid: id });
    const query = { issuer: 'https://accounts.example', subject: 'not-yet' };
    const first = await client().get('/iam/v2beta1/identities:lookupIdentity', query);
    expect(first.body.uid).toMatch(ROOT_UID);
    expect((await client().get('/iam/v2beta1/identities:lookupIdentity', query)).body).toEqual(first.body);
    expect((await client().get('/iam/v2beta1/identities:lookupIdentity', { ...query, subject: 'someone-else' })).body.uid).not.toBe(first.body.uid);
    expect(aip(await client().get('/iam/v2beta1/identities:lookupIdentity', { issuer: 'https://i' })).byType.BadRequest.fieldViolations[0].field).toBe('subject');
  });

  it('a group is not deleted while it holds anything, each kind named in RESOURCE_NOT_EMPTY', async () => {
    const holders: [string, (parent: string) => Promise<unknown>][] = [
      ['groups', (p) => client().post(`/iam/v2beta1/groups/${p}`, { name: 'child' })],
      ['identities', (p) => identities(p, 1, 'held')],
      ['roles', (p) => client().post(`/iam/v2beta1/roles/${p}`, { name: 'held', capabilities: ['CAP_REPO_LIST'] })],
      ['identityProviders', (p) => client().post(`/iam/v2beta1/identityProviders/${p}`, { name: 'held-idp', defaultRole: roles.viewer, oidc: { issuer: 'https://i', clientId: 'c' } })],
      ['groupInvites', (p) => client().post(`/iam/v2beta1/groupInvites/${p}`, { roleUid: roles.viewer, ttl: '60s' })],
      ['repos', (p) => stack().fixtures.repo(p, { name: 'held-repo' })],
      ['subscriptions', (p) => client().post(`/events/v2beta1/subscriptions/${p}`, { sink: 'https://hooks.example.com/held' })],
    ];
    for (const [kind, make] of holders) {
      const parent = await group(`holds-${kind.toLowerCase()}`);
      await make(parent);
      const reply = await client().delete(`/iam/v2beta1/groups/${parent}`);
      expect([kind, reply.status]).toEqual([kind, 400]);
      const error = aip(reply);
      expect(error.code).toBe(9);
      expect(error.byType.PreconditionFailure.violations[0]).toMatchObject({ type: 'RESOURCE_NOT_EMPTY', subject: `iam.chainguard.dev/Group/${parent}` });
      expect(error.byType.PreconditionFailure.violations[0].description).toContain(kind);
      expect((await client().get(`/iam/v2beta1/groups/${parent}`)).status).toBe(200);
    }
  });

  it('a bound role is not deleted; an unbound one is', async () => {
    const parent = await group('role-rules');
    const role = (await client().post(`/iam/v2beta1/roles/${parent}`, { name: 'custom', capabilities: ['CAP_REPO_LIST'] })).body.uid;
    const [identity] = await identities(parent, 1, 'r');
    const binding = (await client().post(`/iam/v2beta1/roleBindings/${parent}`, { identityUid: identity, roleUid: role })).body.uid;
    const refused = await client().delete(`/iam/v2beta1/roles/${role}`);
    expect(refused.status).toBe(400);
    expect(aip(refused).code).toBe(9);
    expect((await client().delete(`/iam/v2beta1/roleBindings/${binding}`)).status).toBe(200);
    expect((await client().delete(`/iam/v2beta1/roles/${role}`)).status).toBe(200);
  });

  it('built-in roles cannot be changed or deleted', async () => {
    expect((await client().patch(`/iam/v2beta1/roles/${roles.viewer}`, { description: 'mine now' })).status).toBe(403);
    expect((await client().delete(`/iam/v2beta1/roles/${roles.viewer}`)).status).toBe(403);
    expect((await client().get(`/iam/v2beta1/roles/${roles.viewer}`)).body.name).toBe('viewer');
  });

  it('deleting an identity takes its role bindings with it', async () => {
    const parent = await group('cascade');
    const [identity] = await identities(parent, 1, 'gone');
    await client().post(`/iam/v2beta1/roleBindings/${parent}`, { identityUid: identity, roleUid: roles.viewer });
    expect(await bindings(parent)).toBe('1');
    expect((await client().delete(`/iam/v2beta1/identities/${identity}`)).status).toBe(200);
    expect(await bindings(parent)).toBe('0');
  });

  it('role binding deletes are idempotent; a binding to an identity that does not exist is refused', async () => {
    const parent = await group('idempotent');
    const [identity] = await identities(parent, 1, 'i');
    const binding = (await client().post(`/iam/v2beta1/roleBindings/${parent}`, { identityUid: identity, roleUid: roles.viewer })).body.uid;
    expect((await client().delete(`/iam/v2beta1/roleBindings/${binding}`)).status).toBe(200);
    const again = await client().delete(`/iam/v2beta1/roleBindings/${binding}`);
    expect(again.status).toBe(200);
    expect(again.body).toEqual({});
    const ghost = await client().post(`/iam/v2beta1/roleBindings/${parent}`, { identityUid: `${parent}/0123456789abcdef`, roleUid: roles.viewer });
    expect(ghost.status).toBe(400);
    expect(aip(ghost).code).toBe(3);
  });

  it('creating under a group that does not exist is NOT_FOUND', async () => {
    const reply = await client().post(`/iam/v2beta1/groups/${org}/0123456789abcdef`, { name: 'orphan' });
    expect(reply.status).toBe(404);
    expect(aip(reply).code).toBe(5);
  });
});
