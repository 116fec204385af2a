/** PATCH semantics in every mode: masks, body-derived masks, output-only fields, validation, oneofs, concurrency. */
import { expect, it } from 'vitest';
import { describeModes } from '../support/modes.ts';
import { aip } from '../support/stack.ts';
import { nanosOf } from '../support/instant.ts';

describeModes('PATCH', (stack) => {
  let org: string;
  const client = () => stack().client;
  const newGroup = async (fields: Record<string, unknown> = {}) => {
    const reply = await client().post(`/iam/v2beta1/groups/${org}`, { name: 'g', description: 'd', ...fields });
    if (reply.status !== 200) throw new Error(reply.text);
    return reply.body.uid as string;
  };
  const path = (uid: string) => `/iam/v2beta1/groups/${uid}`;

  it('set-up', async () => {
    org = (await client().post('/iam/v2beta1/groups', { name: 'update-org' })).body.uid;
  });

  it('without a mask changes only the fields in the body, and bumps updateTime', async () => {
    const uid = await newGroup({ name: 'keep-me', description: 'before' });
    const before = (await client().get(path(uid))).body;
    await new Promise((resolve) => setTimeout(resolve, 5));
    const { status, body } = await client().patch(path(uid), { description: 'after' });
    expect(status).toBe(200);
    expect(body).toMatchObject({ name: 'keep-me', description: 'after', createTime: before.createTime });
    expect(nanosOf(body.updateTime)).toBeGreaterThan(nanosOf(before.updateTime));
  });

  it('without a mask clears a field sent empty', async () => {
    expect((await client().patch(path(await newGroup({ description: 'before' })), { description: '' })).body.description).toBe('');
  });

  it('with updateMask changes only the masked fields', async () => {
    const { body } = await client().patch(path(await newGroup({ name: 'old', description: 'kept' })), { name: 'new', description: 'ignored' }, { updateMask: 'name' });
    expect(body).toMatchObject({ name: 'new', description: 'kept' });
  });

  it('with update_mask (snake) naming a field absent from the body clears it', async () => {
    expect((await client().patch(path(await newGroup({ description: 'gone soon' })), {}, { update_mask: 'description' })).body.description).toBe('');
  });

  it('with "*" replaces every writable field', async () => {
    const { status, body } = await client().patch(path(await newGroup({ name: 'full', description: 'will be cleared' })), { name: 'replaced' }, { updateMask: '*' });
    expect(status).toBe(200);
    expect(body).toMatchObject({ name: 'replaced', description: '' });
  });

  it('refuses an unknown mask path, and an unknown body key when the mask comes from the body', async () => {
    const mask = await client().patch(path(await newGroup()), { name: 'x' }, { updateMask: 'colour' });
    expect(mask.status).toBe(400);
    expect(aip(mask).byType.BadRequest.fieldViolations[0]).toMatchObject({ field: 'update_mask' });
    const key = await client().patch(path(await newGroup()), { colour: 'red' });
    expect(key.status).toBe(400);
    expect(aip(key).byType.BadRequest.fieldViolations[0]).toMatchObject({ field: 'colour' });
  });

  it('with a mask still refuses a body key that names no field, JSON or proto name: a misspelling clears nothing', async () => {
    const uid = await newGroup({ description: 'kept' });
    for (const [body, key] of [[{ descripton: 'x' }, 'descripton'], [{ description: 'x', claim_match: {} }, 'claim_match']] as const) {
      const reply = await client().patch(path(uid), body, { update_mask: 'description' });
      expect(reply.status).toBe(400);
      expect(aip(reply).code).toBe(3);
      expect(aip(reply).byType.BadRequest.fieldViolations[0]).toMatchObject({ field: key });
    }
    expect((await client().get(path(uid))).body.description).toBe('kept');
    // Known fields outside the mask, by either name, stay allowed and are left alone.
    const fine = await client().patch(path(uid), { description: 'new', update_time: '2000-01-01T00:00:00Z', name: 'ignored-too' }, { update_mask: 'description' });
    expect(fine.status).toBe(200);
    expect(fine.body).toMatchObject({ description: 'new', name: 'g' });
  });

  it('ignores output-only fields', async () => {
    const uid = await newGroup({ name: 'stable' });
    const before = (await client().get(path(uid))).body;
    const { status, body } = await client().patch(path(uid), {
      uid: 'aaaa', createTime: '2000-01-01T00:00:00Z', resourceLimits: { repositories: 9 }, status: 'ORG_STATUS_SUSPENDED', description: 'changed',
    });
    expect(status).toBe(200);
    expect(body).toMatchObject({ uid, createTime: before.createTime, resourceLimits: before.resourceLimits, status: before.status, description: 'changed' });
  });

  it('validates the new value of a masked field, and only that', async () => {
    const reply = await client().patch(path(await newGroup()), { name: 'UPPER CASE' });
    expect(reply.status).toBe(400);
    expect(aip(reply).byType.BadRequest.fieldViolations[0].field).toBe('name');
    const required = await client().patch(path(await newGroup()), {}, { updateMask: 'name' });
    expect(aip(required).byType.BadRequest.fieldViolations[0].field).toBe('name');
  });

  it('answers NOT_FOUND for a group that does not exist, and an empty mask returns the resource unchanged', async () => {
    const missing = await client().patch(path(`${org}/0123456789abcdef`), { description: 'x' });
    expect(missing.status).toBe(404);
    expect(aip(missing).code).toBe(5);
    const uid = await newGroup({ description: 'same' });
    expect((await client().patch(path(uid), {})).body).toEqual((await client().get(path(uid))).body);
  });

  it('concurrent PATCHes of one resource lose no update', async () => {
    const uids = await Promise.all(Array.from({ length: 4 }, (_, i) => newGroup({ name: `r${i}`, description: 'start' })));
    const replies = await Promise.all(uids.flatMap((uid, i) => [
      client().patch(path(uid), { name: `renamed-${i}` }),
      client().patch(path(uid), { description: `described-${i}` }),
    ]));
    expect(replies.map((r) => r.status)).toEqual(replies.map(() => 200));
    for (const [i, uid] of uids.entries()) expect((await client().get(path(uid))).body).toMatchObject({ name: `renamed-${i}`, description: `described-${i}` });
  });

  it('identities: switching the relationship oneof replaces the old member', async () => {
    const uid = (await client().post(`/iam/v2beta1/identities/${org}`, { name: 'switcher', claimMatch: { issuer: 'https://issuer', subject: 's' } })).body.uid;
    const { status, body } = await client().patch(`/iam/v2beta1/identities/${uid}`, { servicePrincipal: 'SERVICE_PRINCIPAL_COSIGNED' });
    expect(status).toBe(200);
    expect(body.servicePrincipal).toBe('SERVICE_PRINCIPAL_COSIGNED');
    expect(body).not.toHaveProperty('claimMatch');
  });

  it('identities: a nested mask path changes one sub-field', async () => {
    const uid = (await client().post(`/iam/v2beta1/identities/${org}`, { name: 'nested', claimMatch: { issuer: 'https://issuer', subject: 'old' } })).body.uid;
    const { body } = await client().patch(`/iam/v2beta1/identities/${uid}`, { claimMatch: { subject: 'new', issuer: 'ignored' } }, { updateMask: 'claim_match.subject' });
    expect(body.claimMatch).toMatchObject({ issuer: 'https://issuer', subject: 'new' });
  });

  it('identities: a mask into an unset oneof member checks the whole member, and clearing inside one is a no-op', async () => {
    const uid = (await client().post(`/iam/v2beta1/identities/${org}`, { name: 'half-switch', claimMatch: { issuer: 'https://issuer', subject: 's' } })).body.uid;
    const reply = await client().patch(`/iam/v2beta1/identities/${uid}`, { staticKeys: { expirationTime: '2030-01-01T00:00:00Z' } }, { update_mask: 'static_keys.expiration_time' });
    expect(reply.status).toBe(400);
    expect(aip(reply).byType.BadRequest.fieldViolations.map((v: any) => v.field)).toContain('staticKeys.issuer');
    const noop = await client().patch(`/iam/v2beta1/identities/${uid}`, {}, { update_mask: 'static_keys.expiration_time' });
    expect(noop.status).toBe(200);
    expect(noop.body.claimMatch).toMatchObject({ subject: 's' });
    expect(noop.body).not.toHaveProperty('staticKeys');
  });

  it('roles: capabilities change as enum names; an unknown capability is refused', async () => {
    const uid = (await client().post(`/iam/v2beta1/roles/${org}`, { name: 'custom', capabilities: ['CAP_IAM_GROUPS_LIST'] })).body.uid;
    const { status, body } = await client().patch(`/iam/v2beta1/roles/${uid}`, { capabilities: ['CAP_IAM_GROUPS_LIST', 'CAP_REPO_LIST'] });
    expect(status).toBe(200);
    expect(body.capabilities).toEqual(['CAP_IAM_GROUPS_LIST', 'CAP_REPO_LIST']);
    const refused = await client().patch(`/iam/v2beta1/roles/${uid}`, { capabilities: ['groups.list'] });
    expect(refused.status).toBe(400);
    expect(aip(refused).byType.BadRequest.fieldViolations[0].field).toMatch(/^capabilities/);
  });

  it('role bindings: roleUid moves the binding to another role and answers hydrated', async () => {
    const identity = (await client().post(`/iam/v2beta1/identities/${org}`, { name: 'bound', claimMatch: { issuer: 'https://issuer', subject: 'b' } })).body.uid;
    const roles = (await client().get('/iam/v2beta1/roles', { 'uidp.in_root': true })).body.roles;
    const role = (name: string) => roles.find((r: any) => r.name === name).uid;
    const binding = (await client().post(`/iam/v2beta1/roleBindings/${org}`, { identityUid: identity, roleUid: role('viewer') })).body.uid;
    const { status, body } = await client().patch(`/iam/v2beta1/roleBindings/${binding}`, { roleUid: role('editor') });
    expect(status).toBe(200);
    expect(body.role).toMatchObject({ uid: role('editor'), name: 'editor' });
    expect(body.identity).toMatchObject({ uid: identity, name: 'bound' });
  });
});
