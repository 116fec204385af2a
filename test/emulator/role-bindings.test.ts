import { beforeAll, describe, expect, it } from 'vitest';
import { CHILD_OF, ids, useEmulator } from './helpers.ts';

describe('v1 role bindings', () => {
  const ctx = useEmulator();
  const w = {} as { org: string; team: string; user: string; robot: string; viewer: string; owner: string };

  beforeAll(() => {
    const { state } = ctx.emu;
    w.org = state.createGroup(null, { name: 'rb-org' }).id;
    w.team = state.createGroup(w.org, { name: 'team' }).id;
    w.user = state.createIdentity(null, {
      name: 'Ada',
      claimMatch: { issuer: 'https://auth.example', subject: 'ada' },
      email: 'ada@example.com',
      emailUnverified: 'ada@old.example',
    }).id;
    w.robot = state.createIdentity(w.org, { name: 'robot', servicePrincipal: 'COSIGNED' }).id;
    w.viewer = state.builtinRoles.viewer!;
    w.owner = state.builtinRoles.owner!;
  });

  it('create answers with the flat RoleBinding; the deprecated group is ignored and reported as the parent', async () => {
    const res = await ctx.api.post(`/iam/v1/rolebindings/${w.team}`, { identity: w.user, role: w.viewer, group: w.org });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: res.body.id, identity: w.user, group: w.team, role: w.viewer });
    expect(res.body.id).toMatch(CHILD_OF(w.team));
  });

  it('list answers with hydrated Binding rows', async () => {
    const made = await ctx.api.post(`/iam/v1/rolebindings/${w.org}`, { identity: w.user, role: w.owner });
    const res = await ctx.api.get(`/iam/v1/rolebindings?id=${made.body.id}`);
    const [row] = res.body.items;
    expect(Object.keys(row)).toEqual([
      'id', 'group', 'identity', 'role', 'email', 'claimMatchIssuer', 'claimMatchSubject', 'createdAt', 'emailUnverified',
    ]);
    expect(row).toMatchObject({
      id: made.body.id,
      group: { id: w.org, name: 'rb-org', resourceLimits: {} },
      identity: w.user,
      role: { id: w.owner, name: 'owner', capabilities: expect.arrayContaining(['groups.delete']) },
      email: 'ada@example.com',
      claimMatchIssuer: 'https://auth.example',
      claimMatchSubject: 'ada',
      emailUnverified: 'ada@old.example',
    });
    expect(typeof row.createdAt).toBe('string');
  });

  it('identities without email or claimMatch give empty strings', async () => {
    const made = await ctx.api.post(`/iam/v1/rolebindings/${w.org}`, { identity: w.robot, role: w.viewer });
    const [row] = (await ctx.api.get(`/iam/v1/rolebindings?uidp.ids=${made.body.id}`)).body.items;
    expect(row).toMatchObject({ email: '', emailUnverified: '', claimMatchIssuer: '', claimMatchSubject: '' });
  });

  it('validates identity and role (3, naming the field) and the parent group (5)', async () => {
    const noIdentity = await ctx.api.post(`/iam/v1/rolebindings/${w.org}`, { identity: 'nope', role: w.viewer });
    expect(noIdentity.body).toMatchObject({ code: 3, message: expect.stringContaining('identity') });
    const noRole = await ctx.api.post(`/iam/v1/rolebindings/${w.org}`, { identity: w.user, role: 'nope' });
    expect(noRole.body).toMatchObject({ code: 3, message: expect.stringContaining('role') });
    const noGroup = await ctx.api.post(`/iam/v1/rolebindings/${'b'.repeat(40)}`, { identity: w.user, role: w.viewer });
    expect(noGroup.body.code).toBe(5);
  });

  it('PUT swaps identity/role and stays flat; missing bindings are 5', async () => {
    const made = await ctx.api.post(`/iam/v1/rolebindings/${w.team}`, { identity: w.robot, role: w.viewer });
    const res = await ctx.api.put(`/iam/v1/rolebindings/${made.body.id}`, { id: made.body.id, identity: w.user, role: w.owner, group: 'x' });
    expect(res.body).toEqual({ id: made.body.id, identity: w.user, group: w.team, role: w.owner });
    expect((await ctx.api.put(`/iam/v1/rolebindings/${w.team}/0000000000000000`, { identity: w.user, role: w.owner })).body.code).toBe(5);
  });

  it('batch create takes a bare JSON array and is all-or-nothing', async () => {
    const res = await ctx.api.post(`/iam/v1/rolebindings/batch/${w.team}`, [
      { identity: w.user, role: w.viewer },
      { identity: w.robot, role: w.viewer },
    ]);
    expect(res.body.roleBindings).toHaveLength(2);
    expect(res.body.roleBindings[1]).toEqual({ id: expect.stringMatching(CHILD_OF(w.team)), identity: w.robot, group: w.team, role: w.viewer });
    const before = ctx.emu.state.counts().roleBindings;
    const bad = await ctx.api.post(`/iam/v1/rolebindings/batch/${w.team}`, [{ identity: w.user, role: w.viewer }, { identity: 'x', role: w.viewer }]);
    expect(bad.body.code).toBe(3);
    expect(ctx.emu.state.counts().roleBindings).toBe(before);
  });

  it('DELETE removes a binding; deleting it again is 5', async () => {
    const made = await ctx.api.post(`/iam/v1/rolebindings/${w.org}`, { identity: w.robot, role: w.owner });
    expect((await ctx.api.del(`/iam/v1/rolebindings/${made.body.id}`)).body).toEqual({});
    expect(ids(await ctx.api.get(`/iam/v1/rolebindings?id=${made.body.id}`))).toEqual([]);
    expect((await ctx.api.del(`/iam/v1/rolebindings/${made.body.id}`)).status).toBe(404);
  });
});
