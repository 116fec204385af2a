/** v1 `/iam/v1/externalGroupRoleMappings`: create, Get, List, Delete, :batchDelete, from the v1 facts. */
import { describe, expect, it } from 'vitest';
import { CHILD_OF, useEmulator } from './helpers.ts';

describe('v1 external group role mappings', () => {
  const ctx = useEmulator({});

  it('creates under an identity provider, reads by Get and List, refuses a duplicate and a non-root scope', async () => {
    const org = (await ctx.api.post('/iam/v1/groups', { name: 'egrm-v1' })).body.id;
    const viewer = ctx.emu.state.builtinRoles.viewer;
    const idp = (await ctx.api.post(`/iam/v1/identityProviders/${org}`, { name: 'sso', defaultRole: viewer, oidc: { issuer: 'https://i.example', clientId: 'c' } })).body.id;
    const made = await ctx.api.post(`/iam/v1/externalGroupRoleMappings/${idp}`, { externalGroupId: 'eng', roleUidp: viewer, scope: org });
    expect(made.status).toBe(200);
    expect(made.body).toMatchObject({ identityProviderUidp: idp, externalGroupId: 'eng', roleUidp: viewer, scope: org });
    expect(made.body.id).toMatch(CHILD_OF(idp));
    expect((await ctx.api.get(`/iam/v1/externalGroupRoleMappings/${made.body.id}`)).body).toEqual(made.body);
    expect((await ctx.api.get(`/iam/v1/externalGroupRoleMappings?identityProviderUidp=${idp}`)).body.items).toEqual([made.body]);
    expect((await ctx.api.post(`/iam/v1/externalGroupRoleMappings/${idp}`, { externalGroupId: 'eng', roleUidp: viewer, scope: org })).status).toBe(409);
    const team = (await ctx.api.post(`/iam/v1/groups/${org}`, { name: 'team' })).body.id;
    expect((await ctx.api.post(`/iam/v1/externalGroupRoleMappings/${idp}`, { externalGroupId: 'x', roleUidp: viewer, scope: team })).status).toBe(400);

    const other = (await ctx.api.post(`/iam/v1/externalGroupRoleMappings/${idp}`, { externalGroupId: 'ops', roleUidp: viewer, scope: org })).body.id;
    const refused = await ctx.api.post('/iam/v1/externalGroupRoleMappings:batchDelete', { parentId: idp, ids: [other, `${org}/0123456789abcdef`] });
    expect(refused.status).toBe(400);
    const done = await ctx.api.post('/iam/v1/externalGroupRoleMappings:batchDelete', { parentId: idp, ids: [other, `${idp}/0123456789abcdef`] });
    expect(done.body).toEqual({ parentId: idp, items: [expect.objectContaining({ id: other })] });
    expect((await ctx.api.del(`/iam/v1/externalGroupRoleMappings/${made.body.id}`)).status).toBe(200);
    expect((await ctx.api.get(`/iam/v1/externalGroupRoleMappings/${made.body.id}`)).status).toBe(404);
  });
});
