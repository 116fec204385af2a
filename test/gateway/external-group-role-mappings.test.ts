/**
 * ExternalGroupRoleMappings (IdP group → role), in every mode over REST and
 * gRPC: create under an identity provider, Get, List by provider, Delete, and
 * BatchDelete (names of another provider refused, vanished ones skipped).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { GrpcClient, rejected } from '../support/grpc.ts';
import { ALL_MODES, describeModes } from '../support/modes.ts';
import { aip } from '../support/stack.ts';

const SERVICE = 'chainguard.platform.iam.v2beta1.ExternalGroupRoleMappingsService';

describeModes('external group role mappings', (stack) => {
  let grpc: GrpcClient;
  let org: string;
  let idp: string;
  let otherIdp: string;
  let viewer: string;
  const client = () => stack().client;
  beforeAll(async () => {
    grpc = new GrpcClient(stack().url);
    org = (await client().post('/iam/v2beta1/groups', { name: 'egrm-org' })).body.uid;
    viewer = (await client().get('/iam/v2beta1/roles', { name: 'viewer' })).body.roles[0].uid;
    const idpBody = (name: string) => ({ name, defaultRole: viewer, oidc: { issuer: 'https://idp.example', clientId: 'c', clientSecret: 's' } });
    idp = (await client().post(`/iam/v2beta1/identityProviders/${org}`, idpBody('sso'))).body.uid;
    otherIdp = (await client().post(`/iam/v2beta1/identityProviders/${org}`, idpBody('sso-two'))).body.uid;
  });
  afterAll(() => grpc?.close());

  const mapping = (externalGroupId: string) => ({ externalGroupId, roleUid: viewer, scope: org });
  let made: any;

  it('creates a mapping under an identity provider, with the v2 names and a create time', async () => {
    const reply = await client().post(`/iam/v2beta1/externalGroupRoleMappings/${idp}`, mapping('engineers'));
    expect(reply.status).toBe(200);
    made = reply.body;
    expect(made.uid.startsWith(`${idp}/`)).toBe(true);
    expect(made).toMatchObject({ identityProviderUid: idp, externalGroupId: 'engineers', roleUid: viewer, scope: org });
    expect(made.createTime).toMatch(/^\d{4}-/);
    expect(await grpc.call(SERVICE, 'GetExternalGroupRoleMapping', { uid: made.uid })).toMatchObject({ uid: made.uid, externalGroupId: 'engineers' });
  });

  it('refuses a scope other than the organisation, a missing group id, and an unknown role', async () => {
    const team = (await client().post(`/iam/v2beta1/groups/${org}`, { name: 'team' })).body.uid;
    const scoped = await client().post(`/iam/v2beta1/externalGroupRoleMappings/${idp}`, { ...mapping('x'), scope: team });
    expect(scoped.status).toBe(400);
    expect(aip(scoped).byType.BadRequest.fieldViolations[0].field).toBe('scope');
    const noGroup = await rejected(grpc.call(SERVICE, 'CreateExternalGroupRoleMapping', { parent: idp, externalGroupRoleMapping: { roleUid: viewer, scope: org } }));
    expect(noGroup.code).toBe(3);
    expect((await client().post(`/iam/v2beta1/externalGroupRoleMappings/${idp}`, { ...mapping('y'), roleUid: `${org}/0123456789abcdef` })).status).toBe(400);
  });

  it('lists by provider, and deletes one', async () => {
    await client().post(`/iam/v2beta1/externalGroupRoleMappings/${otherIdp}`, mapping('admins'));
    const mine = await client().get('/iam/v2beta1/externalGroupRoleMappings', { identity_provider_uid: idp });
    expect(mine.body.externalGroupRoleMappings.map((m: any) => m.externalGroupId)).toEqual(['engineers']);
    const all = await grpc.call(SERVICE, 'ListExternalGroupRoleMappings', { uidp: { descendantsOf: org } });
    expect(all.externalGroupRoleMappings).toHaveLength(2);
    expect((await client().delete(`/iam/v2beta1/externalGroupRoleMappings/${made.uid}`)).status).toBe(200);
    expect((await client().get(`/iam/v2beta1/externalGroupRoleMappings/${made.uid}`)).status).toBe(404);
  });

  it('batch-deletes named mappings of one provider, skipping vanished ones, refusing another provider\'s', async () => {
    const a = (await client().post(`/iam/v2beta1/externalGroupRoleMappings/${idp}`, mapping('a'))).body.uid;
    const b = (await client().post(`/iam/v2beta1/externalGroupRoleMappings/${idp}`, mapping('b'))).body.uid;
    const foreign = (await client().get('/iam/v2beta1/externalGroupRoleMappings', { identity_provider_uid: otherIdp })).body.externalGroupRoleMappings[0].uid;
    const refused = await client().post('/iam/v2beta1/externalGroupRoleMappings:batchDelete', { parent: idp, names: [a, foreign] });
    expect(refused.status).toBe(400);
    expect(aip(refused).byType.BadRequest.fieldViolations[0].field).toBe('names[1]');
    expect((await client().get(`/iam/v2beta1/externalGroupRoleMappings/${a}`)).status).toBe(200);
    const done = await grpc.call(SERVICE, 'BatchDeleteExternalGroupRoleMappings', { parent: idp, names: [a, b, made.uid] });
    expect(done.parent).toBe(idp);
    expect(done.externalGroupRoleMappings.map((m: any) => m.externalGroupId).sort()).toEqual(['a', 'b']);
    expect(done.externalGroupRoleMappings[0].identityProviderUid).toBe(idp);
    expect((await client().get('/iam/v2beta1/externalGroupRoleMappings', { identity_provider_uid: idp })).body.externalGroupRoleMappings).toEqual([]);
  });
}, { modes: ALL_MODES });
