/** Error forms and resource shapes every mode must give: AIP-193 bodies, auth, v2 renames, hydration, the GA prefix. */
import { expect, it } from 'vitest';
import { domainForPath } from '../../src/aip/errors.ts';
import { unservedRpc } from '../support/contract.ts';
import { describeModes } from '../support/modes.ts';
import { TIMESTAMP_MS, aip } from '../support/stack.ts';

describeModes('errors and shapes', (stack, mode) => {
  let org: string;
  const client = () => stack().client;

  it('set-up', async () => {
    org = (await client().post('/iam/v2beta1/groups', { name: 'shapes-org' })).body.uid;
  });

  it('malformed JSON, a non-object body and an oversized body are INVALID_ARGUMENT on body', async () => {
    const malformed = await client().call('POST', `/iam/v2beta1/groups/${org}`, { raw: '{"name": ' });
    expect(malformed.status).toBe(400);
    expect(aip(malformed).byType.BadRequest.fieldViolations[0].field).toBe('body');
    expect((await client().call('POST', `/iam/v2beta1/groups/${org}`, { raw: '["a"]' })).status).toBe(400);
    const big = await client().post(`/iam/v2beta1/groups/${org}`, { name: 'big', description: 'x'.repeat(5000) });
    expect(big.status).toBe(400);
    expect(aip(big).message).toContain('2048');
  });

  it('any Content-Type is read as JSON; unknown create keys are ignored', async () => {
    const reply = await client().call('POST', `/iam/v2beta1/groups/${org}`, { raw: '{"name":"plain","colour":"red"}', headers: { 'content-type': 'text/plain' } });
    expect(reply.status).toBe(200);
    expect(reply.body).not.toHaveProperty('colour');
  });

  it('a parent or uid that is not a UIDP is INVALID_ARGUMENT; registry paths carry the registry domain', async () => {
    expect(aip(await client().post('/iam/v2beta1/identities/acme', { name: 'nope' })).byType.BadRequest.fieldViolations[0].field).toBe('parent');
    const repo = aip(await client().get('/registry/v2beta1/repos/not-a-uidp'));
    expect(repo.code).toBe(3);
    expect(repo.byType.ErrorInfo.domain).toBe('registry.chainguard.dev');
  });

  it('a missing resource is NOT_FOUND with ResourceInfo naming its type', async () => {
    const reply = await client().get(`/iam/v2beta1/roles/${org}/0123456789abcdef`);
    expect(reply.status).toBe(404);
    const error = aip(reply);
    expect(error.code).toBe(5);
    expect(error.byType.ResourceInfo.resourceType).toBe('iam.chainguard.dev/Role');
  });

  it('an unknown route is NOT_FOUND, a route of the contract the gateway does not serve is UNIMPLEMENTED, in AIP-193 form, and neither changes anything', async () => {
    expect(aip(await client().get('/iam/v2beta1/widgets')).byType.ErrorInfo).toMatchObject({ reason: 'NOT_FOUND', domain: 'iam.chainguard.dev' });
    const rpc = unservedRpc(mode === 'translate' ? 'translate' : 'native');
    if (rpc) {
      const unserved = await client().call(rpc.verb, rpc.path, rpc.verb === 'GET' || rpc.verb === 'DELETE' ? {} : { body: {} });
      expect(unserved.status).toBe(501);
      expect(aip(unserved).byType.ErrorInfo).toMatchObject({ reason: 'UNIMPLEMENTED', domain: domainForPath(rpc.path) });
    }
    const verb = await client().post(`/iam/v2beta1/groups/${org}:requestGroupAccess`, { name: 'not-a-group' });
    expect(verb.status).toBe(404);
    expect((await client().get('/iam/v2beta1/groups', { 'uidp.children_of': org })).body.totalCount).toBe('1');
  });

  it('no bearer token, or another scheme, is UNAUTHENTICATED with WWW-Authenticate, and nothing is written', async () => {
    const reply = await client().post(`/iam/v2beta1/groups/${org}`, { name: 'anon' }, { authorization: null });
    expect(reply.status).toBe(401);
    expect(reply.headers.get('www-authenticate')).toBe('Bearer');
    expect(aip(reply).code).toBe(16);
    expect((await client().get('/iam/v2beta1/groups', {}, { authorization: 'Basic dXNlcjpwYXNz' })).status).toBe(401);
    expect((await client().get('/iam/v2beta1/groups', { 'uidp.children_of': org, name: 'anon' })).body.totalCount).toBe('0');
  });

  it('identities render every v2 field, renamed, with only the set relationship', async () => {
    const expiration = new Date(Date.now() + 86_400_000).toISOString();
    const created = await client().post(`/iam/v2beta1/identities/${org}`, {
      name: 'static-bot', description: 'static keys',
      staticKeys: { issuer: 'https://issuer.example', subject: 'bot', issuerKeys: '{"keys":[]}', expirationTime: expiration },
    });
    expect(created.status).toBe(200);
    const { body } = await client().get(`/iam/v2beta1/identities/${created.body.uid}`);
    expect(Object.keys(body).sort()).toEqual(['company', 'createTime', 'description', 'email', 'emailUnverified', 'lastSeenTime', 'name', 'staticKeys', 'uid', 'updateTime']);
    expect(body.staticKeys).toMatchObject({ issuer: 'https://issuer.example', subject: 'bot', issuerKeys: '{"keys":[]}', expirationTime: expiration });
    for (const key of ['createTime', 'updateTime', 'lastSeenTime']) expect(body[key]).toMatch(TIMESTAMP_MS);
    expect(body.email).toBe('');
  });

  it('identities: create refuses zero or two relationships, and accepts proto (snake_case) names', async () => {
    expect(aip(await client().post(`/iam/v2beta1/identities/${org}`, { name: 'lonely' })).byType.BadRequest.fieldViolations[0].description).toContain('exactly one');
    expect((await client().post(`/iam/v2beta1/identities/${org}`, {
      name: 'greedy', claimMatch: { issuer: 'https://i', subject: 's' }, servicePrincipal: 'SERVICE_PRINCIPAL_COSIGNED',
    })).status).toBe(400);
    const snake = await client().post(`/iam/v2beta1/identities/${org}`, { name: 'snake-bot', claim_match: { issuer: 'https://i', subject_pattern: 'repo:.*' } });
    expect(snake.status).toBe(200);
    expect(snake.body.claimMatch).toEqual({ issuer: 'https://i', subjectPattern: 'repo:.*', claims: {}, claimPatterns: {} });
  });

  it('roles: built-in roles are flat root uids with enum capabilities; create needs a capability', async () => {
    const { body } = await client().get('/iam/v2beta1/roles', { 'uidp.in_root': true, order_by: 'name' });
    expect(body.roles.map((r: any) => r.name)).toEqual(['editor', 'owner', 'viewer']);
    for (const role of body.roles) {
      expect(role.uid).toMatch(/^[0-9a-f]{40}$/);
      for (const cap of role.capabilities) expect(cap).toMatch(/^CAP_[A-Z0-9_]+$/);
    }
    const created = await client().post(`/iam/v2beta1/roles/${org}`, { name: 'scim-admin', capabilities: ['CAP_IAM_SCIM_MANAGE', 'CAP_MANIFEST_METADATA_LIST'] });
    expect(created.body.capabilities).toEqual(['CAP_IAM_SCIM_MANAGE', 'CAP_MANIFEST_METADATA_LIST']);
    expect(aip(await client().post(`/iam/v2beta1/roles/${org}`, { name: 'empty', capabilities: [] })).byType.BadRequest.fieldViolations[0].field).toBe('capabilities');
  });

  it('role bindings: a full page is hydrated with identity, group and role; filters by identity and role', async () => {
    const bindingOrg = (await client().post('/iam/v2beta1/groups', { name: 'bindings-org' })).body.uid;
    const roles = (await client().get('/iam/v2beta1/roles', { 'uidp.in_root': true })).body.roles;
    const viewer = roles.find((r: any) => r.name === 'viewer').uid;
    const editor = roles.find((r: any) => r.name === 'editor').uid;
    const identities: string[] = [];
    for (let i = 0; i < 60; i += 10) {
      await Promise.all(Array.from({ length: 10 }, async (_, j) => {
        const n = i + j;
        const identity = (await client().post(`/iam/v2beta1/identities/${bindingOrg}`, { name: `member-${n}`, description: `desc-${n}`, claimMatch: { issuer: 'https://i', subject: `s-${n}` } })).body.uid;
        identities[n] = identity;
        expect((await client().post(`/iam/v2beta1/roleBindings/${bindingOrg}`, { identityUid: identity, roleUid: viewer })).status).toBe(200);
      }));
    }
    const reply = await client().get('/iam/v2beta1/roleBindings', { 'uidp.children_of': bindingOrg, page_size: 200 });
    expect(reply.body.roleBindings).toHaveLength(60);
    for (const binding of reply.body.roleBindings) {
      const i = identities.indexOf(binding.identity.uid);
      expect(binding.identity).toMatchObject({ name: `member-${i}`, description: `desc-${i}`, subject: `s-${i}`, issuer: 'https://i' });
      expect(binding.role.name).toBe('viewer');
      expect(binding.group).toEqual({ uid: bindingOrg, name: 'bindings-org', description: '' });
    }
    const one = await client().get('/iam/v2beta1/roleBindings', { identity: identities[7] });
    expect(one.body.roleBindings.map((b: any) => b.identity.name)).toEqual(['member-7']);
    expect((await client().get('/iam/v2beta1/roleBindings', { 'uidp.children_of': bindingOrg, role: editor })).body.totalCount).toBe('0');
    expect((await client().get('/iam/v2beta1/roleBindings', { group: bindingOrg, role: viewer })).body.totalCount).toBe('60');
  });

  it('a renamed identity shows its new name in its bindings', async () => {
    const identity = (await client().post(`/iam/v2beta1/identities/${org}`, { name: 'before', claimMatch: { issuer: 'https://i', subject: 'rename' } })).body.uid;
    const viewer = (await client().get('/iam/v2beta1/roles', { name: 'viewer', 'uidp.in_root': true })).body.roles[0].uid;
    const binding = (await client().post(`/iam/v2beta1/roleBindings/${org}`, { identityUid: identity, roleUid: viewer })).body.uid;
    await client().patch(`/iam/v2beta1/identities/${identity}`, { name: 'after' });
    expect((await client().get(`/iam/v2beta1/roleBindings/${binding}`)).body.identity.name).toBe('after');
  });

  it('the GA prefix /iam/v2 is served by the same table', async () => {
    const beta = await client().get(`/iam/v2beta1/groups/${org}`);
    const ga = await client().get(`/iam/v2/groups/${org}`);
    expect(ga.status).toBe(200);
    expect(ga.body).toEqual(beta.body);
  });
}, { flags: ['--body-limit', '2048'] });
