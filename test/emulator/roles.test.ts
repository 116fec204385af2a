import { describe, expect, it } from 'vitest';
import { CHILD_OF, ids, ROOT_UID, useEmulator } from './helpers.ts';

describe('v1 roles', () => {
  const ctx = useEmulator();
  const org = () => ctx.emu.state.listGroups({ name: 'role-org' })[0]?.id ?? ctx.emu.state.createGroup(null, { name: 'role-org' }).id;

  it('has managed viewer, editor and owner at the root with flat ids and friendly capabilities', async () => {
    const managed = await ctx.api.get('/iam/v1/roles?parent=/');
    expect(managed.body.items.map((r: { name: string }) => r.name)).toEqual(['viewer', 'editor', 'owner']);
    for (const role of managed.body.items) {
      expect(role.id).toMatch(ROOT_UID);
      expect(ctx.emu.state.builtinRoles[role.name]).toBe(role.id);
      expect(Object.keys(role)).toEqual(['id', 'name', 'description', 'capabilities']);
    }
    expect(managed.body.items[0].capabilities).toContain('groups.list');
    expect(managed.body.items[2].capabilities).toContain('groups.delete');
    expect(ids(await ctx.api.get('/iam/v1/roles?uidp.inRoot=true'))).toEqual(managed.body.items.map((r: { id: string }) => r.id));
  });

  it('managed roles cannot be updated or deleted (7)', async () => {
    const viewer = ctx.emu.state.builtinRoles.viewer!;
    const put = await ctx.api.put(`/iam/v1/roles/${viewer}`, { name: 'viewer', capabilities: [] });
    expect(put).toMatchObject({ status: 403, body: { code: 7, details: [] } });
    expect((await ctx.api.del(`/iam/v1/roles/${viewer}`)).body.code).toBe(7);
  });

  it('creates custom roles with v1 capability names only, no timestamps', async () => {
    const res = await ctx.api.post(`/iam/v1/roles/${org()}`, { name: 'reader', capabilities: ['repo.list', 'groups.list'] });
    expect(res.body).toEqual({ id: res.body.id, name: 'reader', description: '', capabilities: ['repo.list', 'groups.list'] });
    expect(res.body.id).toMatch(CHILD_OF(org()));
    const v2Name = await ctx.api.post(`/iam/v1/roles/${org()}`, { name: 'bad', capabilities: ['CAP_IAM_GROUPS_LIST'] });
    expect(v2Name).toMatchObject({ status: 400, body: { code: 3, message: expect.stringContaining('CAP_IAM_GROUPS_LIST') } });
  });

  it('filters by exact parent and name', async () => {
    const made = await ctx.api.post(`/iam/v1/roles/${org()}`, { name: 'only-here', capabilities: [] });
    expect(ids(await ctx.api.get(`/iam/v1/roles?parent=${org()}&name=only-here`))).toEqual([made.body.id]);
    expect(ids(await ctx.api.get('/iam/v1/roles?parent=/&name=only-here'))).toEqual([]);
  });

  it('PUT replaces capabilities; deleting a bound role is FAILED_PRECONDITION', async () => {
    const made = await ctx.api.post(`/iam/v1/roles/${org()}`, { name: 'temp', description: 'x', capabilities: ['repo.list'] });
    const put = await ctx.api.put(`/iam/v1/roles/${made.body.id}`, { name: 'temp' });
    expect(put.body).toEqual({ id: made.body.id, name: 'temp', description: '', capabilities: [] });
    const identity = ctx.emu.state.createIdentity(org(), { name: 'i', servicePrincipal: 'COSIGNED' });
    const binding = ctx.emu.state.createRoleBinding(org(), { identity: identity.id, role: made.body.id });
    expect((await ctx.api.del(`/iam/v1/roles/${made.body.id}`)).body).toMatchObject({ code: 9, details: [] });
    ctx.emu.state.deleteRoleBinding(binding.id);
    expect((await ctx.api.del(`/iam/v1/roles/${made.body.id}`)).body).toEqual({});
  });
});
