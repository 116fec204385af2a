/**
 * Custom methods over v1 (roleBindings:batchCreate, identities:lookupIdentity)
 * and hydration that scales: deduplicated, batched, cached across requests
 * for a short while, and dropped by writes through the gateway.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT_UID, aip, startStack, type Stack } from '../../support/stack.ts';

let stack: Stack;
let org: string;
let roles: Record<string, string>;

beforeAll(async () => {
  stack = await startStack({ flags: ['--debug-headers', '--hydration-cache-ms', '60000'] });
  org = stack.emulator.state.createGroup(null, { name: 'methods-org' }).id;
  roles = stack.emulator.state.builtinRoles as Record<string, string>;
});
afterAll(() => stack.close());

const v1Calls = (reply: { headers: Headers }) => Number(reply.headers.get('x-v2gw-v1-calls'));

function identities(parent: string, count: number, prefix: string): string[] {
  return Array.from({ length: count }, (_, i) =>
    stack.emulator.state.createIdentity(parent, { name: `${prefix}-${i}`, claimMatch: { issuer: 'https://i', subject: `${prefix}-${i}` } }).id);
}

describe('roleBindings:batchCreate', () => {
  it('creates every binding in request order, inheriting the top-level roleUid, hydrated', async () => {
    const group = stack.emulator.state.createGroup(org, { name: 'batch' }).id;
    const ids = identities(group, 3, 'batch');
    const reply = await stack.client.post('/iam/v2beta1/roleBindings:batchCreate', {
      parent: group,
      roleUid: roles.viewer,
      requests: [
        { roleBinding: { identityUid: ids[0] } },
        { parent: group, roleBinding: { identityUid: ids[1], roleUid: roles.viewer } },
        { role_binding: { identity_uid: ids[2] } },
      ],
    });
    expect(reply.status).toBe(200);
    expect(reply.body.roleBindings.map((b: any) => b.identity.uid)).toEqual(ids);
    for (const [i, binding] of reply.body.roleBindings.entries()) {
      expect(binding.identity.name).toBe(`batch-${i}`);
      expect(binding.role).toMatchObject({ uid: roles.viewer, name: 'viewer' });
      expect(binding.group.uid).toBe(group);
    }
    expect((await stack.client.get('/iam/v2beta1/roleBindings', { 'uidp.children_of': group })).body.totalCount).toBe('3');
  });

  it('refuses the whole batch when one request is wrong, creating nothing', async () => {
    const group = stack.emulator.state.createGroup(org, { name: 'batch-bad' }).id;
    const ids = identities(group, 2, 'bad');
    const count = async () => (await stack.client.get('/iam/v2beta1/roleBindings', { 'uidp.children_of': group })).body.totalCount;

    const conflict = await stack.client.post('/iam/v2beta1/roleBindings:batchCreate', {
      parent: group, roleUid: roles.viewer,
      requests: [{ roleBinding: { identityUid: ids[0] } }, { roleBinding: { identityUid: ids[1], roleUid: roles.editor } }],
    });
    expect(conflict.status).toBe(400);
    expect(aip(conflict).byType.BadRequest.fieldViolations[0].field).toBe('requests[1].roleBinding.roleUid');

    const malformed = await stack.client.post('/iam/v2beta1/roleBindings:batchCreate', {
      parent: group, requests: [{ roleBinding: { identityUid: ids[0], roleUid: roles.viewer } }, { roleBinding: { identityUid: 'nope', roleUid: roles.viewer } }],
    });
    expect(aip(malformed).byType.BadRequest.fieldViolations[0].field).toBe('requests[1].roleBinding.identityUid');

    const tooMany = await stack.client.post('/iam/v2beta1/roleBindings:batchCreate', {
      parent: group, roleUid: roles.viewer, requests: Array.from({ length: 26 }, () => ({ roleBinding: { identityUid: ids[0] } })),
    });
    expect(aip(tooMany).byType.BadRequest.fieldViolations[0].field).toBe('requests');

    const otherParent = await stack.client.post('/iam/v2beta1/roleBindings:batchCreate', {
      parent: group, roleUid: roles.viewer, requests: [{ parent: org, roleBinding: { identityUid: ids[0] } }],
    });
    expect(aip(otherParent).byType.BadRequest.fieldViolations[0].field).toBe('requests[0].parent');
    expect(await count()).toBe('0');
  });

  it('is a route of its own, not a create under a uid', async () => {
    const reply = await stack.client.post(`/iam/v2beta1/roleBindings/${org}:batchCreate`, { requests: [] });
    expect(reply.status).toBe(404);
  });
});

describe('identities:lookupIdentity', () => {
  it('finds a registered identity by issuer and subject', async () => {
    const id = stack.emulator.state.createIdentity(null, { name: 'user', claimMatch: { issuer: 'https://accounts.example', subject: 'user-1' } }).id;
    const reply = await stack.client.get('/iam/v2beta1/identities:lookupIdentity', { issuer: 'https://accounts.example', subject: 'user-1' });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ uid: id });
  });

  it('answers a stable uid for a user not registered yet', async () => {
    const query = { issuer: 'https://accounts.example', subject: 'not-yet' };
    const first = await stack.client.get('/iam/v2beta1/identities:lookupIdentity', query);
    expect(first.status).toBe(200);
    expect(first.body.uid).toMatch(ROOT_UID);
    expect((await stack.client.get('/iam/v2beta1/identities:lookupIdentity', query)).body).toEqual(first.body);
    const other = await stack.client.get('/iam/v2beta1/identities:lookupIdentity', { ...query, subject: 'someone-else' });
    expect(other.body.uid).not.toBe(first.body.uid);
  });

  it('requires both parameters', async () => {
    const reply = await stack.client.get('/iam/v2beta1/identities:lookupIdentity', { issuer: 'https://accounts.example' });
    expect(aip(reply).byType.BadRequest.fieldViolations[0].field).toBe('subject');
  });
});

describe('hydration across requests', () => {
  it('a repeated list reuses hydrated identities; a write through the gateway drops the written one', async () => {
    const group = stack.emulator.state.createGroup(org, { name: 'cache' }).id;
    const ids = identities(group, 200, 'cached');
    for (const identity of ids) stack.emulator.state.createRoleBinding(group, { identity, role: roles.viewer! });
    const list = () => stack.client.get('/iam/v2beta1/roleBindings', { 'uidp.children_of': group, page_size: 200 });

    const cold = await list();
    expect(cold.body.roleBindings).toHaveLength(200);
    expect(v1Calls(cold)).toBe(1 + 4); // the bindings, then 200 identities in chunks of 50
    const warm = await list();
    expect(v1Calls(warm)).toBe(1);
    expect(warm.body).toEqual(cold.body);

    expect((await stack.client.patch(`/iam/v2beta1/identities/${ids[7]}`, { name: 'renamed-7' })).status).toBe(200);
    const after = await list();
    expect(v1Calls(after)).toBe(2);
    expect(after.body.roleBindings.find((b: any) => b.identity.uid === ids[7]).identity.name).toBe('renamed-7');
  });

  it('is kept per caller: another token does not see rows fetched for the first', async () => {
    const group = stack.emulator.state.createGroup(org, { name: 'callers' }).id;
    const [identity] = identities(group, 1, 'caller');
    stack.emulator.state.createRoleBinding(group, { identity: identity!, role: roles.viewer! });
    const query = { 'uidp.children_of': group };
    expect(v1Calls(await stack.client.get('/iam/v2beta1/roleBindings', query))).toBe(2);
    const other = await stack.client.get('/iam/v2beta1/roleBindings', query, { authorization: 'Bearer another-caller-token' });
    expect(v1Calls(other)).toBe(2);
  });
});
