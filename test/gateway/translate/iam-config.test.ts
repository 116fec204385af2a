/**
 * Identity providers, account associations and group invites over v1: the
 * renames, the write-only secret, the immutable field, uids that are their
 * group's, one-time codes, input-only TTLs, kept times and default orders.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, TIMESTAMP_MS, TOKEN, aip, startStack, type Stack } from '../../support/stack.ts';
import { nanosOf } from '../../support/instant.ts';

let stack: Stack;
let v1: Client;
let org: string;
let viewer: string;

beforeAll(async () => {
  stack = await startStack({ flags: ['--debug-headers'] });
  v1 = new Client(stack.emulator.url);
  org = stack.emulator.state.createGroup(null, { name: 'config-org' }).id;
  viewer = (stack.emulator.state.builtinRoles as Record<string, string>).viewer!;
});
afterAll(() => stack.close());

/** The v1 row itself, read straight from v1 (what v2 hides, v1 still holds). */
async function v1Row(collection: string, key: string, id: string): Promise<any> {
  const { body } = await v1.get(`/iam/v1/${collection}`, { [key]: id }, { authorization: TOKEN });
  return body.items.find((row: any) => row[key === 'group' ? 'group' : 'id'] === id);
}

describe('identity providers', () => {
  const oidc = { issuer: 'https://login.example', clientId: 'client-1', clientSecret: 'first-secret', additionalScopes: ['email'] };

  async function create(name: string, extra: Record<string, unknown> = {}) {
    const reply = await stack.client.post(`/iam/v2beta1/identityProviders/${org}`, { name, defaultRole: viewer, oidc: { ...oidc, ...extra } });
    expect(reply.status).toBe(200);
    return reply.body;
  }

  it('create answers every v2 field, never the client secret, with times the gateway keeps', async () => {
    const idp = await create('corp-sso', { correlationRule: 'CORRELATION_RULE_SUB_EQUALS_EXTERNAL_ID' });
    expect(idp.uid.startsWith(`${org}/`)).toBe(true);
    expect(idp.oidc).toEqual({
      issuer: 'https://login.example', clientId: 'client-1', additionalScopes: ['email'], groupsClaim: '',
      correlationRule: 'CORRELATION_RULE_SUB_EQUALS_EXTERNAL_ID', pkceEnabled: false,
    });
    expect(idp.createTime).toMatch(TIMESTAMP_MS);
    expect(idp.updateTime).toBe(idp.createTime);
    expect(idp.scim).toBeNull(); // SCIM never set up: an unset message renders as null (EmitUnpopulated)
    expect((await v1Row('identityProviders', 'id', idp.uid)).oidc.clientSecret).toBe('first-secret');

    const listed = await stack.client.get('/iam/v2beta1/identityProviders', { 'uidp.children_of': org });
    expect(JSON.stringify(listed.body)).not.toContain('first-secret');
    const got = await stack.client.get(`/iam/v2beta1/identityProviders/${idp.uid}`);
    expect(got.body.createTime).toBe(idp.createTime);
  });

  it('an update keeps the secret unless the mask names it; an empty secret in the body clears it', async () => {
    const idp = await create('keeps-secret');
    const path = `/iam/v2beta1/identityProviders/${idp.uid}`;

    expect((await stack.client.patch(path, { oidc: { issuer: 'https://new.example' } })).status).toBe(200);
    expect((await v1Row('identityProviders', 'id', idp.uid)).oidc).toMatchObject({ issuer: 'https://new.example', clientSecret: 'first-secret' });

    // The whole oidc block replaced by mask: a secret left out is kept, not wiped.
    const whole = await stack.client.patch(path, { oidc: { issuer: 'https://other.example', clientId: 'client-2' } }, { updateMask: 'oidc' });
    expect(whole.status).toBe(200);
    expect((await v1Row('identityProviders', 'id', idp.uid)).oidc).toMatchObject({ clientId: 'client-2', clientSecret: 'first-secret' });

    await stack.client.patch(path, { oidc: { clientSecret: 'second-secret' } }, { updateMask: 'oidc.client_secret' });
    expect((await v1Row('identityProviders', 'id', idp.uid)).oidc.clientSecret).toBe('second-secret');

    // REST derives the mask from the body's keys, so an explicit "" names the path and clears it.
    await stack.client.patch(path, { oidc: { clientSecret: '' } });
    expect((await v1Row('identityProviders', 'id', idp.uid)).oidc.clientSecret).toBe('');
  });

  it('correlationRule is immutable: restating is a no-op, changing is INVALID_ARGUMENT', async () => {
    const idp = await create('immutable', { correlationRule: 'CORRELATION_RULE_OID_EQUALS_EXTERNAL_ID' });
    const path = `/iam/v2beta1/identityProviders/${idp.uid}`;
    const same = await stack.client.patch(path, { oidc: { correlationRule: 'CORRELATION_RULE_OID_EQUALS_EXTERNAL_ID' } });
    expect(same.status).toBe(200);
    const changed = await stack.client.patch(path, { oidc: { correlationRule: 'CORRELATION_RULE_SUB_EQUALS_EXTERNAL_ID' } });
    expect(changed.status).toBe(400);
    expect(aip(changed).byType.BadRequest.fieldViolations[0].field).toBe('oidc.correlationRule');
    // A mask over the whole block without the rule keeps it.
    await stack.client.patch(path, { oidc: { issuer: 'https://x.example', clientId: 'c' } }, { updateMask: 'oidc' });
    expect((await stack.client.get(path)).body.oidc.correlationRule).toBe('CORRELATION_RULE_OID_EQUALS_EXTERNAL_ID');
  });

  it('an update moves updateTime and keeps createTime; order_by reads the kept times', async () => {
    const first = await create('older');
    await new Promise((resolve) => setTimeout(resolve, 5));
    const second = await create('newer');
    await new Promise((resolve) => setTimeout(resolve, 5));
    const patched = await stack.client.patch(`/iam/v2beta1/identityProviders/${first.uid}`, { description: 'changed' });
    expect(patched.body.createTime).toBe(first.createTime);
    expect(nanosOf(patched.body.updateTime)).toBeGreaterThan(nanosOf(first.updateTime));

    const byCreate = await stack.client.get('/iam/v2beta1/identityProviders', { 'uidp.ids': [first.uid, second.uid], order_by: 'create_time desc' });
    expect(byCreate.body.identityProviders.map((i: any) => i.name)).toEqual(['newer', 'older']);
    const byUpdate = await stack.client.get('/iam/v2beta1/identityProviders', { 'uidp.ids': [first.uid, second.uid], order_by: 'updateTime desc' });
    expect(byUpdate.body.identityProviders.map((i: any) => i.name)).toEqual(['older', 'newer']);
  });

  it('create refuses a missing configuration, default role or issuer', async () => {
    const noOidc = await stack.client.post(`/iam/v2beta1/identityProviders/${org}`, { name: 'bare', defaultRole: viewer });
    expect(aip(noOidc).byType.BadRequest.fieldViolations.map((v: any) => v.field)).toContain('oidc');
    const noRole = await stack.client.post(`/iam/v2beta1/identityProviders/${org}`, { name: 'norole', oidc });
    expect(aip(noRole).byType.BadRequest.fieldViolations.map((v: any) => v.field)).toContain('defaultRole');
    const noIssuer = await stack.client.post(`/iam/v2beta1/identityProviders/${org}`, { name: 'noissuer', defaultRole: viewer, oidc: { clientId: 'c' } });
    expect(aip(noIssuer).byType.BadRequest.fieldViolations.map((v: any) => v.field)).toContain('oidc.issuer');
  });

  it('filters by name, and delete removes it', async () => {
    const idp = await create('to-delete');
    const named = await stack.client.get('/iam/v2beta1/identityProviders', { name: 'to-delete' });
    expect(named.body.identityProviders.map((i: any) => i.uid)).toEqual([idp.uid]);
    expect((await stack.client.delete(`/iam/v2beta1/identityProviders/${idp.uid}`)).status).toBe(200);
    expect((await stack.client.get(`/iam/v2beta1/identityProviders/${idp.uid}`)).status).toBe(404);
  });
});

describe('account associations', () => {
  it('the uid is the group: create, get, update by mask, idempotent delete', async () => {
    const group = stack.emulator.state.createGroup(org, { name: 'aa-group' }).id;
    const created = await stack.client.post(`/iam/v2beta1/accountAssociations/${group}`, {
      name: 'cloud', amazon: { account: '123456789012' }, google: { projectId: 'p', projectNumber: '42' },
    });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({ uid: group, name: 'cloud', amazon: { account: '123456789012' }, google: { projectId: 'p', projectNumber: '42' } });
    expect(created.body.createTime).toMatch(TIMESTAMP_MS);
    expect((await v1Row('account_associations', 'group', group)).amazon.account).toBe('123456789012');

    const got = await stack.client.get(`/iam/v2beta1/accountAssociations/${group}`);
    expect(got.body).toEqual(created.body);

    const patched = await stack.client.patch(`/iam/v2beta1/accountAssociations/${group}`, { description: 'now described' });
    expect(patched.body).toMatchObject({ description: 'now described', amazon: { account: '123456789012' } });
    expect(nanosOf(patched.body.updateTime)).toBeGreaterThanOrEqual(nanosOf(created.body.updateTime));

    expect((await stack.client.delete(`/iam/v2beta1/accountAssociations/${group}`)).status).toBe(200);
    expect((await stack.client.delete(`/iam/v2beta1/accountAssociations/${group}`)).status).toBe(200);
    expect((await stack.client.get(`/iam/v2beta1/accountAssociations/${group}`)).status).toBe(404);
  });

  it('uidp filters, which v1 lacks, are applied by the gateway; default order is by group', async () => {
    const parent = stack.emulator.state.createGroup(org, { name: 'aa-parent' }).id;
    const groups = ['b', 'a', 'c'].map((name) => stack.emulator.state.createGroup(parent, { name }).id);
    for (const group of groups) {
      expect((await stack.client.post(`/iam/v2beta1/accountAssociations/${group}`, { name: `aa-${group.slice(-4)}`, amazon: { account: '1' } })).status).toBe(200);
    }
    const elsewhere = stack.emulator.state.createGroup(org, { name: 'aa-elsewhere' }).id;
    await stack.client.post(`/iam/v2beta1/accountAssociations/${elsewhere}`, { name: 'other', amazon: { account: '2' } });

    const { body } = await stack.client.get('/iam/v2beta1/accountAssociations', { 'uidp.children_of': parent });
    expect(body.accountAssociations.map((a: any) => a.uid)).toEqual([...groups].sort());
    expect(body.totalCount).toBe('3');
    const desc = await stack.client.get('/iam/v2beta1/accountAssociations', { 'uidp.children_of': parent, order_by: 'group desc' });
    expect(desc.body.accountAssociations.map((a: any) => a.uid)).toEqual([...groups].sort().reverse());
  });
});

describe('group invites', () => {
  it('create answers the one-time code and the hydrated role; later reads never show the code', async () => {
    const before = Date.now();
    const created = await stack.client.post(`/iam/v2beta1/groupInvites/${org}`, { roleUid: viewer, ttl: '3600s', email: 'new@example.com' });
    expect(created.status).toBe(200);
    const invite = created.body;
    expect(invite.code).not.toBe('');
    expect(invite).not.toHaveProperty('ttl');
    expect(invite.roleUid).toBe(viewer);
    expect(invite.role).toMatchObject({ uid: viewer, name: 'viewer' });
    expect(invite.role.capabilities).toContain('CAP_IAM_GROUPS_LIST');
    const expires = Date.parse(invite.expirationTime);
    expect(expires - before).toBeGreaterThanOrEqual(3_599_000);
    expect(expires - Date.now()).toBeLessThanOrEqual(3_600_000);
    expect(invite.keyId).not.toBe('');

    const got = await stack.client.get(`/iam/v2beta1/groupInvites/${invite.uid}`);
    expect(got.body).toMatchObject({ uid: invite.uid, email: 'new@example.com', code: '', keyId: invite.keyId, expirationTime: invite.expirationTime });
    expect(got.body.createTime).toMatch(TIMESTAMP_MS);
  });

  it('list defaults to newest first, filters by key id and costs one v1 call however many invites', async () => {
    const group = stack.emulator.state.createGroup(org, { name: 'invites' }).id;
    const made: string[] = [];
    for (let i = 0; i < 3; i++) {
      made.push((await stack.client.post(`/iam/v2beta1/groupInvites/${group}`, { roleUid: viewer, ttl: `${60 + i}s` })).body.uid);
      await new Promise((resolve) => setTimeout(resolve, 3));
    }
    const reply = await stack.client.get('/iam/v2beta1/groupInvites', { 'uidp.children_of': group });
    expect(reply.body.groupInvites.map((i: any) => i.uid)).toEqual([...made].reverse());
    expect(reply.headers.get('x-v2gw-v1-calls')).toBe('1');

    const one = reply.body.groupInvites[1];
    const byKey = await stack.client.get('/iam/v2beta1/groupInvites', { key_id: one.keyId });
    expect(byKey.body.groupInvites.map((i: any) => i.uid)).toEqual([one.uid]);
  });

  it('refuses a missing or malformed ttl and an unknown role, and deletes idempotently', async () => {
    const noTtl = await stack.client.post(`/iam/v2beta1/groupInvites/${org}`, { roleUid: viewer });
    expect(aip(noTtl).byType.BadRequest.fieldViolations[0].field).toBe('ttl');
    const badTtl = await stack.client.post(`/iam/v2beta1/groupInvites/${org}`, { roleUid: viewer, ttl: 'an hour' });
    expect(aip(badTtl).byType.BadRequest.fieldViolations[0].field).toBe('ttl');

    const invite = (await stack.client.post(`/iam/v2beta1/groupInvites/${org}`, { roleUid: viewer, ttl: '60s' })).body;
    expect((await stack.client.delete(`/iam/v2beta1/groupInvites/${invite.uid}`)).status).toBe(200);
    expect((await stack.client.delete(`/iam/v2beta1/groupInvites/${invite.uid}`)).status).toBe(200);
    expect((await stack.client.get(`/iam/v2beta1/groupInvites/${invite.uid}`)).status).toBe(404);
  });

  it('has no update', async () => {
    const invite = (await stack.client.post(`/iam/v2beta1/groupInvites/${org}`, { roleUid: viewer, ttl: '60s' })).body;
    const reply = await stack.client.patch(`/iam/v2beta1/groupInvites/${invite.uid}`, { email: 'x@example.com' });
    expect([404, 405]).toContain(reply.status);
    expect(aip(reply).code).toBeGreaterThan(0);
  });
});
