import { beforeAll, describe, expect, it } from 'vitest';
import { CHILD_OF, ids, pinnedClock, useEmulator } from './helpers.ts';

const PATH = '/iam/v1/group_invites';
const NOW = '2026-11-18T11:06:40.123456Z';

describe('v1 group invites', () => {
  const ctx = useEmulator({ clock: pinnedClock() });
  const w = {} as { org: string; viewer: string; custom: string };
  beforeAll(() => {
    const { state } = ctx.emu;
    w.org = state.createGroup(null, { name: 'invite-org' }).id;
    w.viewer = state.builtinRoles.viewer;
    w.custom = state.createRole(w.org, { name: 'reader', capabilities: ['repo.list'] }).id;
  });

  it('create takes a GroupInviteRequest and answers GroupInvite {id, expiration, keyId, role, code}', async () => {
    const res = await ctx.api.post(`${PATH}/${w.org}`, { group: 'ignored', ttl: '3600s', role: w.custom, email: 'a@example.com', singleUse: true });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(['id', 'expiration', 'keyId', 'role', 'code']);
    expect(res.body).toEqual({
      id: expect.stringMatching(CHILD_OF(w.org)),
      expiration: expect.stringMatching(/^2026-11-18T1\d:\d{2}:\d{2}\.\d{6}Z$/),
      keyId: expect.stringMatching(/^[0-9a-f]{32}$/),
      role: { id: w.custom, name: 'reader', description: '', capabilities: ['repo.list'] },
      code: expect.stringMatching(/^[A-Za-z0-9_-]+$/),
    });
    const created = Date.parse(NOW);
    expect(Date.parse(res.body.expiration) - created).toBeGreaterThanOrEqual(3600_000);
    expect(Date.parse(res.body.expiration) - created).toBeLessThan(3601_000);
  });

  it('list rows are StoredGroupInvite {id, expiration, keyId, role, email, createdAt, singleUse}, never the code', async () => {
    const made = await ctx.api.post(`${PATH}/${w.org}`, { ttl: '90.5s', role: w.viewer, single_use: true, email: 'b@example.com' });
    const res = await ctx.api.get(`${PATH}?id=${made.body.id}`);
    expect(Object.keys(res.body)).toEqual(['items']);
    const [row] = res.body.items;
    expect(Object.keys(row)).toEqual(['id', 'expiration', 'keyId', 'role', 'email', 'createdAt', 'singleUse']);
    expect(row).toEqual({
      id: made.body.id,
      expiration: made.body.expiration,
      keyId: made.body.keyId,
      role: expect.objectContaining({ id: w.viewer, name: 'viewer' }),
      email: 'b@example.com',
      createdAt: expect.stringMatching(/\.\d{6}Z$/),
      singleUse: true,
    });
    expect(Date.parse(row.expiration) - Date.parse(row.createdAt)).toBe(90_500);
  });

  it('ttl is required and positive, role must exist, the group must exist (3, 3, 5)', async () => {
    for (const body of [{ role: w.viewer }, { ttl: '0s', role: w.viewer }, { ttl: '-5s', role: w.viewer }, { ttl: '60s' }, { ttl: '60s', role: 'nope' }]) {
      expect((await ctx.api.post(`${PATH}/${w.org}`, body)).body).toMatchObject({ code: 3, details: [] });
    }
    for (const ttl of ['3600', 3600, '1h', '1.0000000001s']) {
      expect((await ctx.api.post(`${PATH}/${w.org}`, { ttl, role: w.viewer })).body.code).toBe(3);
    }
    expect((await ctx.api.post(`${PATH}/${'e'.repeat(40)}`, { ttl: '60s', role: w.viewer })).status).toBe(404);
    expect((await ctx.api.post(PATH, { ttl: '60s', role: w.viewer })).body.code).toBe(3);
  });

  it('filters by group (direct children), id and keyId; a sub-group invite is not the parent group\'s', async () => {
    const team = ctx.emu.state.createGroup(w.org, { name: 'team' }).id;
    const inTeam = ctx.emu.state.createGroupInvite(team, { ttl: '60s', role: w.viewer });
    const byGroup = ids(await ctx.api.get(`${PATH}?group=${w.org}`));
    expect(byGroup.length).toBeGreaterThan(0);
    expect(byGroup).not.toContain(inTeam.id);
    expect(ids(await ctx.api.get(`${PATH}?group=${team}`))).toEqual([inTeam.id]);
    expect(ids(await ctx.api.get(`${PATH}?keyId=${inTeam.keyId}`))).toEqual([inTeam.id]);
    expect(ids(await ctx.api.get(`${PATH}?key_id=${inTeam.keyId}&group=${w.org}`))).toEqual([]);
  });

  it('a deleted role leaves the invite listed with role null', async () => {
    const doomed = ctx.emu.state.createRole(w.org, { name: 'doomed' }).id;
    const invite = ctx.emu.state.createGroupInvite(w.org, { ttl: '60s', role: doomed });
    ctx.emu.state.deleteRole(doomed);
    const [row] = (await ctx.api.get(`${PATH}?id=${invite.id}`)).body.items;
    expect(row.role).toBeNull();
  });

  it('has no update (PUT is 405); DELETE then 5; an invite keeps its group from being deleted', async () => {
    const g = ctx.emu.state.createGroup(null, { name: 'invite-owner' }).id;
    const invite = ctx.emu.state.createGroupInvite(g, { ttl: '60s', role: w.viewer });
    expect(await ctx.api.put(`${PATH}/${invite.id}`, {})).toMatchObject({ status: 405, body: { code: 12 } });
    expect((await ctx.api.del(`/iam/v1/groups/${g}`)).body.code).toBe(9);
    expect((await ctx.api.del(`${PATH}/${invite.id}`)).body).toEqual({});
    expect((await ctx.api.del(`${PATH}/${invite.id}`)).body.code).toBe(5);
    expect((await ctx.api.del(`/iam/v1/groups/${g}`)).status).toBe(200);
  });
});
