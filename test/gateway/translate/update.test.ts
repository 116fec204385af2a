/** PATCH over v1's whole-resource PUT: masks, body-derived masks, output-only fields, v1-only fields, concurrency. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aip, startStack, type Stack } from '../../support/stack.ts';

let stack: Stack;
let org: string;

beforeAll(async () => {
  stack = await startStack();
  org = stack.emulator.state.createGroup(null, { name: 'update-org' }).id;
});
afterAll(() => stack.close());

const newGroup = (fields: Record<string, unknown> = {}) =>
  stack.emulator.state.createGroup(org, { name: 'g', description: 'd', ...fields }).id;
const path = (uid: string) => `/iam/v2beta1/groups/${uid}`;

describe('PATCH groups', () => {
  it('without a mask changes only the fields in the body', async () => {
    const uid = newGroup({ name: 'keep-me', description: 'before' });
    const { status, body } = await stack.client.patch(path(uid), { description: 'after' });
    expect(status).toBe(200);
    expect(body).toMatchObject({ name: 'keep-me', description: 'after' });
  });

  it('without a mask clears a field sent empty', async () => {
    const uid = newGroup({ description: 'before' });
    const { body } = await stack.client.patch(path(uid), { description: '' });
    expect(body.description).toBe('');
  });

  it('with updateMask changes only the masked fields', async () => {
    const uid = newGroup({ name: 'old', description: 'kept' });
    const { body } = await stack.client.patch(path(uid), { name: 'new', description: 'ignored' }, { updateMask: 'name' });
    expect(body).toMatchObject({ name: 'new', description: 'kept' });
  });

  it('with update_mask (snake) naming a field absent from the body clears it', async () => {
    const uid = newGroup({ description: 'gone soon' });
    const { body } = await stack.client.patch(path(uid), {}, { update_mask: 'description' });
    expect(body.description).toBe('');
  });

  it('with "*" replaces every writable field', async () => {
    const uid = newGroup({ name: 'full', description: 'will be cleared' });
    const { status, body } = await stack.client.patch(path(uid), { name: 'replaced' }, { updateMask: '*' });
    expect(status).toBe(200);
    expect(body).toMatchObject({ name: 'replaced', description: '' });
  });

  it('refuses an unknown mask path', async () => {
    const reply = await stack.client.patch(path(newGroup()), { name: 'x' }, { updateMask: 'colour' });
    expect(reply.status).toBe(400);
    expect(aip(reply).byType.BadRequest.fieldViolations[0]).toMatchObject({ field: 'update_mask' });
  });

  it('refuses an unknown body key when the mask comes from the body', async () => {
    const reply = await stack.client.patch(path(newGroup()), { colour: 'red' });
    expect(reply.status).toBe(400);
    expect(aip(reply).byType.BadRequest.fieldViolations[0]).toMatchObject({ field: 'colour' });
  });

  it('ignores output-only fields', async () => {
    const uid = newGroup({ name: 'stable' });
    const before = (await stack.client.get(path(uid))).body;
    const { status, body } = await stack.client.patch(path(uid), {
      uid: 'aaaa', createTime: '2000-01-01T00:00:00Z', resourceLimits: { repositories: 9 }, status: 'ORG_STATUS_SUSPENDED', description: 'changed',
    });
    expect(status).toBe(200);
    expect(body).toMatchObject({ uid, createTime: before.createTime, resourceLimits: before.resourceLimits, status: before.status, description: 'changed' });
  });

  it('keeps v1 fields that v2 shows as output-only through the read-modify-write', async () => {
    const uid = newGroup({ resourceLimits: { repositories: 42, idps: 2 } });
    await stack.client.patch(path(uid), { description: 'touch' });
    expect(stack.emulator.state.listGroups({ id: uid })[0]!.resourceLimits).toEqual({ repositories: 42, idps: 2 });
  });

  it('validates the new value of a masked field', async () => {
    const reply = await stack.client.patch(path(newGroup()), { name: 'UPPER CASE' });
    expect(reply.status).toBe(400);
    expect(aip(reply).byType.BadRequest.fieldViolations[0].field).toBe('name');
  });

  it('answers NOT_FOUND for a group that does not exist', async () => {
    const reply = await stack.client.patch(path(`${org}/0123456789abcdef`), { description: 'x' });
    expect(reply.status).toBe(404);
    expect(aip(reply).code).toBe(5);
  });
});

describe('concurrent PATCHes through one gateway', () => {
  it('lose no update', async () => {
    const slow = await startStack({ emulator: { latencyMs: 5 } });
    try {
      const orgId = slow.emulator.state.createGroup(null, { name: 'race' }).id;
      const uids = Array.from({ length: 4 }, (_, i) => slow.emulator.state.createGroup(orgId, { name: `r${i}`, description: 'start' }).id);
      // Each resource gets a name change and a description change at once; a lost update would revert one of them.
      const replies = await Promise.all(uids.flatMap((uid, i) => [
        slow.client.patch(path(uid), { name: `renamed-${i}` }),
        slow.client.patch(path(uid), { description: `described-${i}` }),
      ]));
      expect(replies.map((r) => r.status)).toEqual(replies.map(() => 200));
      for (const [i, uid] of uids.entries()) {
        const { body } = await slow.client.get(path(uid));
        expect(body).toMatchObject({ name: `renamed-${i}`, description: `described-${i}` });
      }
    } finally {
      await slow.close();
    }
  });
});

describe('concurrent PATCHes of one v1 row through two v2 resources', () => {
  it('a repo and its readme take turns, so neither change is lost', async () => {
    const slow = await startStack({ emulator: { latencyMs: 5 } });
    try {
      const orgId = slow.emulator.state.createGroup(null, { name: 'race' }).id;
      const uids = Array.from({ length: 4 }, (_, i) => slow.emulator.state.createRepo(orgId, { name: `repo-${i}`, readme: 'start' }).id);
      const replies = await Promise.all(uids.flatMap((uid, i) => [
        slow.client.patch(`/registry/v2beta1/repos/${uid}`, { description: `described-${i}` }),
        slow.client.patch(`/registry/v2beta1/repos/${uid}/readme`, { content: `readme-${i}` }),
      ]));
      expect(replies.map((r) => r.status)).toEqual(replies.map(() => 200));
      for (const [i, uid] of uids.entries()) {
        expect(slow.emulator.state.listRepos({ id: uid })[0]).toMatchObject({ description: `described-${i}`, readme: `readme-${i}` });
      }
    } finally {
      await slow.close();
    }
  });
});

describe('PATCH other resources', () => {
  it('identities: switching the relationship oneof replaces the old member', async () => {
    const uid = stack.emulator.state.createIdentity(org, { name: 'switcher', claimMatch: { issuer: 'https://issuer', subject: 's' } }).id;
    const { status, body } = await stack.client.patch(`/iam/v2beta1/identities/${uid}`, { servicePrincipal: 'SERVICE_PRINCIPAL_COSIGNED' });
    expect(status).toBe(200);
    expect(body.servicePrincipal).toBe('SERVICE_PRINCIPAL_COSIGNED');
    expect(body).not.toHaveProperty('claimMatch');
    expect(stack.emulator.state.listIdentities({ id: uid })[0]!.servicePrincipal).toBe('COSIGNED');
  });

  it('identities: a nested mask path changes one sub-field', async () => {
    const uid = stack.emulator.state.createIdentity(org, { name: 'nested', claimMatch: { issuer: 'https://issuer', subject: 'old' } }).id;
    const { body } = await stack.client.patch(`/iam/v2beta1/identities/${uid}`, { claimMatch: { subject: 'new', issuer: 'ignored' } }, { updateMask: 'claim_match.subject' });
    expect(body.claimMatch).toMatchObject({ issuer: 'https://issuer', subject: 'new' });
  });

  it('identities: a mask into an unset oneof member checks the whole member', async () => {
    const uid = stack.emulator.state.createIdentity(org, { name: 'half-switch', claimMatch: { issuer: 'https://issuer', subject: 's' } }).id;
    const reply = await stack.client.patch(`/iam/v2beta1/identities/${uid}`,
      { staticKeys: { expirationTime: '2030-01-01T00:00:00Z' } }, { update_mask: 'static_keys.expiration_time' });
    expect(reply.status).toBe(400);
    expect(aip(reply).byType.BadRequest.fieldViolations.map((v: any) => v.field)).toContain('staticKeys.issuer');
    expect(stack.emulator.state.listIdentities({ id: uid })[0]!.claimMatch).toBeDefined();
  });

  it('identities: clearing a field of an unset oneof member is a no-op, not a second member', async () => {
    const uid = stack.emulator.state.createIdentity(org, { name: 'noop-clear', claimMatch: { issuer: 'https://issuer', subject: 's' } }).id;
    const reply = await stack.client.patch(`/iam/v2beta1/identities/${uid}`, {}, { update_mask: 'static_keys.expiration_time' });
    expect(reply.status).toBe(200);
    expect(reply.body.claimMatch).toMatchObject({ subject: 's' });
    expect(reply.body).not.toHaveProperty('staticKeys');
  });

  it('roles: capabilities are written back as v1 names', async () => {
    const uid = stack.emulator.state.createRole(org, { name: 'custom', capabilities: ['groups.list'] }).id;
    const { status, body } = await stack.client.patch(`/iam/v2beta1/roles/${uid}`, { capabilities: ['CAP_IAM_GROUPS_LIST', 'CAP_REPO_LIST'] });
    expect(status).toBe(200);
    expect(body.capabilities).toEqual(['CAP_IAM_GROUPS_LIST', 'CAP_REPO_LIST']);
    expect(stack.emulator.state.listRoles({ id: uid })[0]!.capabilities).toEqual(['groups.list', 'repo.list']);
  });

  it('roles: an unknown capability is refused before v1 is called', async () => {
    const uid = stack.emulator.state.createRole(org, { name: 'custom2', capabilities: ['groups.list'] }).id;
    const reply = await stack.client.patch(`/iam/v2beta1/roles/${uid}`, { capabilities: ['groups.list'] });
    expect(reply.status).toBe(400);
    expect(aip(reply).byType.BadRequest.fieldViolations[0].field).toMatch(/^capabilities/);
  });

  it('role bindings: roleUid moves the binding to another role and answers hydrated', async () => {
    const identity = stack.emulator.state.createIdentity(org, { name: 'bound', claimMatch: { issuer: 'https://issuer', subject: 'b' } }).id;
    const { viewer, editor } = stack.emulator.state.builtinRoles as Record<string, string>;
    const binding = stack.emulator.state.createRoleBinding(org, { identity, role: viewer! }).id;
    const { status, body } = await stack.client.patch(`/iam/v2beta1/roleBindings/${binding}`, { roleUid: editor });
    expect(status).toBe(200);
    expect(body.role).toMatchObject({ uid: editor, name: 'editor' });
    expect(body.identity).toMatchObject({ uid: identity, name: 'bound' });
  });
});
