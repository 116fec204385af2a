/**
 * Identity providers, account associations and group invites in every mode:
 * the write-only secret, the immutable field, uids that are their group's,
 * one-time codes, input-only TTLs, kept times and default orders.
 */
import { expect, it } from 'vitest';
import { describeModes } from '../support/modes.ts';
import { TIMESTAMP_MS, aip } from '../support/stack.ts';
import { nanosOf } from '../support/instant.ts';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describeModes('identity providers, account associations, group invites', (stack, mode) => {
  let org: string;
  let viewer: string;
  const client = () => stack().client;
  const oidc = { issuer: 'https://login.example', clientId: 'client-1', clientSecret: 'first-secret', additionalScopes: ['email'] };
  const group = async (name: string, parent = org) => (await client().post(`/iam/v2beta1/groups/${parent}`, { name })).body.uid as string;
  const createIdp = async (name: string, extra: Record<string, unknown> = {}) => {
    const reply = await client().post(`/iam/v2beta1/identityProviders/${org}`, { name, defaultRole: viewer, oidc: { ...oidc, ...extra } });
    expect(reply.status).toBe(200);
    return reply.body;
  };

  it('set-up', async () => {
    org = (await client().post('/iam/v2beta1/groups', { name: 'config-org' })).body.uid;
    viewer = (await client().get('/iam/v2beta1/roles', { name: 'viewer', 'uidp.in_root': true })).body.roles[0].uid;
  });

  it('identity providers: create answers every v2 field but the secret, which no read shows either', async () => {
    const idp = await createIdp('corp-sso', { correlationRule: 'CORRELATION_RULE_SUB_EQUALS_EXTERNAL_ID' });
    expect(idp.uid.startsWith(`${org}/`)).toBe(true);
    expect(idp).toMatchObject({ name: 'corp-sso', description: '', defaultRole: viewer });
    // Before any SCIM token: v1 leaves the block out (null); native mode, the v2 service, says NOT_ISSUED.
    if (mode === 'translate') expect(idp.scim).toBeNull();
    else expect(idp.scim).toMatchObject({ enabled: false, credentialState: 'CREDENTIAL_STATE_NOT_ISSUED', etag: '' });
    expect(idp.oidc).toEqual({
      issuer: 'https://login.example', clientId: 'client-1', additionalScopes: ['email'], groupsClaim: '',
      correlationRule: 'CORRELATION_RULE_SUB_EQUALS_EXTERNAL_ID', pkceEnabled: false,
    });
    expect(idp.createTime).toMatch(TIMESTAMP_MS);
    expect(idp.updateTime).toBe(idp.createTime);
    const listed = await client().get('/iam/v2beta1/identityProviders', { 'uidp.children_of': org });
    const got = await client().get(`/iam/v2beta1/identityProviders/${idp.uid}`);
    for (const text of [listed.text, got.text]) expect(text).not.toContain('first-secret');
    expect(got.body).toEqual(idp);
  });

  it('identity providers: an update never reveals the secret, whatever the mask', async () => {
    const idp = await createIdp('keeps-secret');
    const path = `/iam/v2beta1/identityProviders/${idp.uid}`;
    for (const [body, mask] of [[{ oidc: { issuer: 'https://new.example' } }, undefined], [{ oidc: { issuer: 'https://o.example', clientId: 'c2' } }, 'oidc'],
      [{ oidc: { clientSecret: 'second-secret' } }, 'oidc.client_secret']] as const) {
      const reply = await client().patch(path, body, mask ? { updateMask: mask } : undefined);
      expect(reply.status).toBe(200);
      expect(reply.text).not.toContain('clientSecret');
      expect(reply.text).not.toMatch(/(first|second)-secret/);
    }
    expect((await client().get(path)).body.oidc).toMatchObject({ issuer: 'https://o.example', clientId: 'c2' });
  });

  it('identity providers: correlationRule is immutable — restating is a no-op, changing is INVALID_ARGUMENT', async () => {
    const idp = await createIdp('immutable', { correlationRule: 'CORRELATION_RULE_OID_EQUALS_EXTERNAL_ID' });
    const path = `/iam/v2beta1/identityProviders/${idp.uid}`;
    expect((await client().patch(path, { oidc: { correlationRule: 'CORRELATION_RULE_OID_EQUALS_EXTERNAL_ID' } })).status).toBe(200);
    const changed = await client().patch(path, { oidc: { correlationRule: 'CORRELATION_RULE_SUB_EQUALS_EXTERNAL_ID' } });
    expect(changed.status).toBe(400);
    expect(aip(changed).byType.BadRequest.fieldViolations[0].field).toBe('oidc.correlationRule');
    await client().patch(path, { oidc: { issuer: 'https://x.example', clientId: 'c' } }, { updateMask: 'oidc' });
    expect((await client().get(path)).body.oidc.correlationRule).toBe('CORRELATION_RULE_OID_EQUALS_EXTERNAL_ID');
  });

  it('identity providers: an update moves updateTime and keeps createTime; order_by reads both', async () => {
    const first = await createIdp('older');
    await pause(5);
    const second = await createIdp('newer');
    await pause(5);
    const patched = await client().patch(`/iam/v2beta1/identityProviders/${first.uid}`, { description: 'changed' });
    expect(patched.body.createTime).toBe(first.createTime);
    expect(nanosOf(patched.body.updateTime)).toBeGreaterThan(nanosOf(first.updateTime));
    const byCreate = await client().get('/iam/v2beta1/identityProviders', { 'uidp.ids': [first.uid, second.uid], order_by: 'create_time desc' });
    expect(byCreate.body.identityProviders.map((i: any) => i.name)).toEqual(['newer', 'older']);
    const byUpdate = await client().get('/iam/v2beta1/identityProviders', { 'uidp.ids': [first.uid, second.uid], order_by: 'updateTime desc' });
    expect(byUpdate.body.identityProviders.map((i: any) => i.name)).toEqual(['older', 'newer']);
  });

  it('identity providers: create refuses a missing configuration, default role or issuer, and an unknown default role', async () => {
    const fields = async (body: unknown) => aip(await client().post(`/iam/v2beta1/identityProviders/${org}`, body)).byType.BadRequest.fieldViolations.map((v: any) => v.field);
    expect(await fields({ name: 'bare', defaultRole: viewer })).toContain('oidc');
    expect(await fields({ name: 'norole', oidc })).toContain('defaultRole');
    expect(await fields({ name: 'noissuer', defaultRole: viewer, oidc: { clientId: 'c' } })).toContain('oidc.issuer');
    const unknown = await client().post(`/iam/v2beta1/identityProviders/${org}`, { name: 'ghost-role', defaultRole: `${org}/0123456789abcdef`, oidc });
    expect(unknown.status).toBe(400);
    expect(aip(unknown).code).toBe(3);
  });

  it('identity providers: filter by name; delete removes, a second delete is NOT_FOUND', async () => {
    const idp = await createIdp('to-delete');
    expect((await client().get('/iam/v2beta1/identityProviders', { name: 'to-delete' })).body.identityProviders.map((i: any) => i.uid)).toEqual([idp.uid]);
    expect((await client().delete(`/iam/v2beta1/identityProviders/${idp.uid}`)).status).toBe(200);
    expect((await client().get(`/iam/v2beta1/identityProviders/${idp.uid}`)).status).toBe(404);
    expect((await client().delete(`/iam/v2beta1/identityProviders/${idp.uid}`)).status).toBe(404);
  });

  it('account associations: the uid is the group — create, get, update, idempotent delete', async () => {
    const uid = await group('aa-group');
    const created = await client().post(`/iam/v2beta1/accountAssociations/${uid}`, {
      name: 'cloud', amazon: { account: '123456789012' }, google: { projectId: 'p', projectNumber: '42' },
    });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({ uid, name: 'cloud', amazon: { account: '123456789012' }, google: { projectId: 'p', projectNumber: '42' } });
    expect(created.body.createTime).toMatch(TIMESTAMP_MS);
    expect((await client().get(`/iam/v2beta1/accountAssociations/${uid}`)).body).toEqual(created.body);
    const patched = await client().patch(`/iam/v2beta1/accountAssociations/${uid}`, { description: 'now described' });
    expect(patched.body).toMatchObject({ description: 'now described', amazon: { account: '123456789012' } });
    expect(nanosOf(patched.body.updateTime)).toBeGreaterThanOrEqual(nanosOf(created.body.updateTime));
    expect((await client().delete(`/iam/v2beta1/accountAssociations/${uid}`)).status).toBe(200);
    expect((await client().delete(`/iam/v2beta1/accountAssociations/${uid}`)).status).toBe(200);
    expect((await client().get(`/iam/v2beta1/accountAssociations/${uid}`)).status).toBe(404);
  });

  it('account associations: uidp filters select by the group; default order is by group', async () => {
    const parent = await group('aa-parent');
    const groups = [await group('b', parent), await group('a', parent), await group('c', parent)];
    for (const uid of groups) expect((await client().post(`/iam/v2beta1/accountAssociations/${uid}`, { name: `aa-${uid.slice(-4)}`, amazon: { account: '1' } })).status).toBe(200);
    await client().post(`/iam/v2beta1/accountAssociations/${await group('aa-elsewhere')}`, { name: 'other', amazon: { account: '2' } });
    const { body } = await client().get('/iam/v2beta1/accountAssociations', { 'uidp.children_of': parent });
    expect(body.accountAssociations.map((a: any) => a.uid)).toEqual([...groups].sort());
    expect(body.totalCount).toBe('3');
    const desc = await client().get('/iam/v2beta1/accountAssociations', { 'uidp.children_of': parent, order_by: 'group desc' });
    expect(desc.body.accountAssociations.map((a: any) => a.uid)).toEqual([...groups].sort().reverse());
  });

  it('group invites: create answers the one-time code and the hydrated role; reads never show the code or the ttl', async () => {
    const before = Date.now();
    const created = await client().post(`/iam/v2beta1/groupInvites/${org}`, { roleUid: viewer, ttl: '3600s', email: 'new@example.com' });
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
    const got = await client().get(`/iam/v2beta1/groupInvites/${invite.uid}`);
    expect(got.body).toMatchObject({ uid: invite.uid, email: 'new@example.com', code: '', keyId: invite.keyId, expirationTime: invite.expirationTime });
    expect(got.body).not.toHaveProperty('ttl');
    expect(got.body.createTime).toMatch(TIMESTAMP_MS);
  });

  it('group invites: newest first by default, filter by key id', async () => {
    const parent = await group('invites');
    const made: string[] = [];
    for (let i = 0; i < 3; i++) {
      made.push((await client().post(`/iam/v2beta1/groupInvites/${parent}`, { roleUid: viewer, ttl: `${60 + i}s` })).body.uid);
      await pause(3);
    }
    const reply = await client().get('/iam/v2beta1/groupInvites', { 'uidp.children_of': parent });
    expect(reply.body.groupInvites.map((i: any) => i.uid)).toEqual([...made].reverse());
    const one = reply.body.groupInvites[1];
    expect((await client().get('/iam/v2beta1/groupInvites', { key_id: one.keyId })).body.groupInvites.map((i: any) => i.uid)).toEqual([one.uid]);
  });

  it('group invites: refuse a missing or malformed ttl; delete is idempotent; there is no update', async () => {
    expect(aip(await client().post(`/iam/v2beta1/groupInvites/${org}`, { roleUid: viewer })).byType.BadRequest.fieldViolations[0].field).toBe('ttl');
    expect(aip(await client().post(`/iam/v2beta1/groupInvites/${org}`, { roleUid: viewer, ttl: 'an hour' })).byType.BadRequest.fieldViolations[0].field).toBe('ttl');
    const invite = (await client().post(`/iam/v2beta1/groupInvites/${org}`, { roleUid: viewer, ttl: '60s' })).body;
    const update = await client().patch(`/iam/v2beta1/groupInvites/${invite.uid}`, { email: 'x@example.com' });
    expect([404, 405]).toContain(update.status);
    expect((await client().delete(`/iam/v2beta1/groupInvites/${invite.uid}`)).status).toBe(200);
    expect((await client().delete(`/iam/v2beta1/groupInvites/${invite.uid}`)).status).toBe(200);
    expect((await client().get(`/iam/v2beta1/groupInvites/${invite.uid}`)).status).toBe(404);
  });
});
