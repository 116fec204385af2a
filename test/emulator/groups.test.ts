import { describe, expect, it } from 'vitest';
import { CHILD_OF, ids, MICROS_TIMESTAMP, pinnedClock, ROOT_UID, useEmulator } from './helpers.ts';

describe('v1 groups', () => {
  const ctx = useEmulator({ clock: pinnedClock() });

  it('creates a root organisation on POST /iam/v1/groups with every field emitted', async () => {
    const res = await ctx.api.post('/iam/v1/groups', { name: 'acme' });
    expect(res.status).toBe(200);
    expect(res.body.id).toMatch(ROOT_UID);
    expect(res.body).toEqual({
      id: res.body.id,
      name: 'acme',
      description: '',
      resourceLimits: {},
      verified: false,
      kind: 'ORG_KIND_UNSPECIFIED',
      status: 'ORG_STATUS_UNSPECIFIED',
      createdAt: res.body.createdAt,
      updatedAt: res.body.createdAt,
    });
    expect(res.body.createdAt).toMatch(MICROS_TIMESTAMP);
  });

  it('creates sub-groups under a UIDP or a group name; sub-groups inherit kind and status', async () => {
    const org = await ctx.api.post('/iam/v1/groups', { name: 'inherit-org', kind: 'ORG_KIND_CUSTOMER', status: 2 });
    expect(org.body.status).toBe('ORG_STATUS_READY');
    const team = await ctx.api.post(`/iam/v1/groups/${org.body.id}`, { name: 'team', kind: 'ORG_KIND_DEV' });
    expect(team.body.id).toMatch(CHILD_OF(org.body.id));
    expect(team.body).toMatchObject({ kind: 'ORG_KIND_CUSTOMER', status: 'ORG_STATUS_READY' });
    const byName = await ctx.api.post('/iam/v1/groups/inherit-org', { name: 'by-name' });
    expect(byName.body.id).toMatch(CHILD_OF(org.body.id));
  });

  it('accepts proto names, discards unknown keys, and refuses a missing name or parent', async () => {
    const res = await ctx.api.post('/iam/v1/groups', { name: 'limits', resource_limits: { repos: 5 }, bogus: 1 });
    expect(res.body.resourceLimits).toEqual({ repos: 5 });
    expect(res.body).not.toHaveProperty('bogus');
    const nameless = await ctx.api.post('/iam/v1/groups', { description: 'x' });
    expect(nameless.status).toBe(400);
    expect(nameless.body).toEqual({ code: 3, message: expect.stringContaining('name'), details: [] });
    const orphan = await ctx.api.post(`/iam/v1/groups/${'f'.repeat(40)}`, { name: 'orphan' });
    expect(orphan.status).toBe(404);
    expect(orphan.body.code).toBe(5);
  });

  it('lists in an items envelope without paging, and an unknown id is an empty list', async () => {
    const list = await ctx.api.get('/iam/v1/groups');
    expect(Object.keys(list.body)).toEqual(['items']);
    const unknown = await ctx.api.get(`/iam/v1/groups?id=${'0'.repeat(40)}`);
    expect(unknown).toMatchObject({ status: 200, body: { items: [] } });
  });

  it('keeps insertion order rather than sorting', async () => {
    const org = await ctx.api.post('/iam/v1/groups', { name: 'order-org' });
    const made: string[] = [];
    for (const name of ['zulu', 'alpha', 'mike', 'bravo']) made.push((await ctx.api.post(`/iam/v1/groups/${org.body.id}`, { name })).body.id);
    const list = await ctx.api.get(`/iam/v1/groups?uidp.childrenOf=${org.body.id}`);
    expect(ids(list)).toEqual(made);
  });

  describe('UIDPFilter', () => {
    const tree = {} as { org: string; a: string; b: string; other: string };
    it('builds org/a/b and another org', async () => {
      tree.org = (await ctx.api.post('/iam/v1/groups', { name: 'tree' })).body.id;
      tree.a = (await ctx.api.post(`/iam/v1/groups/${tree.org}`, { name: 'a' })).body.id;
      tree.b = (await ctx.api.post(`/iam/v1/groups/${tree.a}`, { name: 'b' })).body.id;
      tree.other = (await ctx.api.post('/iam/v1/groups', { name: 'tree-other' })).body.id;
    });

    it.each([['uidp.ancestorsOf'], ['uidp.ancestors_of']])('%s is strict ancestry', async (key) => {
      expect(ids(await ctx.api.get(`/iam/v1/groups?${key}=${tree.b}`))).toEqual([tree.org, tree.a]);
    });
    it.each([['uidp.descendantsOf'], ['uidp.descendants_of']])('%s is strict descent', async (key) => {
      expect(ids(await ctx.api.get(`/iam/v1/groups?${key}=${tree.org}`))).toEqual([tree.a, tree.b]);
    });
    it.each([['uidp.childrenOf'], ['uidp.children_of']])('%s is direct children only', async (key) => {
      expect(ids(await ctx.api.get(`/iam/v1/groups?${key}=${tree.org}`))).toEqual([tree.a]);
    });
    it.each([['uidp.inRoot'], ['uidp.in_root']])('%s keeps root groups only', async (key) => {
      const got = ids(await ctx.api.get(`/iam/v1/groups?${key}=true`));
      expect(got).toEqual(expect.arrayContaining([tree.org, tree.other]));
      expect(got.every((id) => !id.includes('/'))).toBe(true);
    });
    it('uidp.ids takes the repeated key and matches exact ids', async () => {
      expect(ids(await ctx.api.get(`/iam/v1/groups?uidp.ids=${tree.b}&uidp.ids=${tree.other}`))).toEqual([tree.b, tree.other]);
      // Each row once however often it is asked; unknown ids match nothing; the other filters still apply.
      expect(ids(await ctx.api.get(`/iam/v1/groups?uidp.ids=${tree.b}&uidp.ids=${tree.b}&uidp.ids=${tree.b}0`))).toEqual([tree.b]);
      expect(ids(await ctx.api.get(`/iam/v1/groups?uidp.ids=${tree.b}&uidp.ids=${tree.a}&uidp.childrenOf=${tree.org}`))).toEqual([tree.a]);
      expect(ids(await ctx.api.get(`/iam/v1/groups?uidp.ids=${tree.b}&name=nope`))).toEqual([]);
    });
    it('filters AND together, and `name` is exact', async () => {
      expect(ids(await ctx.api.get(`/iam/v1/groups?uidp.descendantsOf=${tree.org}&name=b`))).toEqual([tree.b]);
      expect(ids(await ctx.api.get(`/iam/v1/groups?uidp.descendantsOf=${tree.org}&name=B`))).toEqual([]);
      expect(ids(await ctx.api.get(`/iam/v1/groups?id=${tree.a}&uidp.inRoot=true`))).toEqual([]);
    });
  });

  it('PUT replaces the whole group: omitted fields reset, id and createdAt stay, updatedAt moves', async () => {
    const made = await ctx.api.post('/iam/v1/groups', { name: 'put-me', description: 'd', resourceLimits: { repos: 3 }, kind: 'ORG_KIND_DEV' });
    const res = await ctx.api.put(`/iam/v1/groups/${made.body.id}`, { id: 'ignored-body-id', name: 'renamed' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      ...made.body,
      name: 'renamed',
      description: '',
      resourceLimits: {},
      kind: 'ORG_KIND_UNSPECIFIED',
      updatedAt: res.body.updatedAt,
    });
    expect(res.body.updatedAt > made.body.updatedAt).toBe(true);
    const missing = await ctx.api.put(`/iam/v1/groups/${'e'.repeat(40)}`, { name: 'x' });
    expect(missing.status).toBe(404);
  });

  it('only organisations can be verified', async () => {
    const org = await ctx.api.post('/iam/v1/groups', { name: 'verified.example', verified: true });
    expect(org.body.verified).toBe(true);
    const sub = await ctx.api.post(`/iam/v1/groups/${org.body.id}`, { name: 'sub', verified: true });
    expect(sub.body.code).toBe(3);
    const twin = await ctx.api.post('/iam/v1/groups', { name: 'verified.example', verified: true });
    expect(twin.body.code).toBe(6);
  });

  it('DELETE refuses a group with children (9), then deletes leaves; missing is 5', async () => {
    const org = await ctx.api.post('/iam/v1/groups', { name: 'doomed' });
    const child = await ctx.api.post(`/iam/v1/groups/${org.body.id}`, { name: 'kid' });
    const refused = await ctx.api.del(`/iam/v1/groups/${org.body.id}`);
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({ code: 9, message: expect.any(String), details: [] });
    expect(await ctx.api.del(`/iam/v1/groups/${child.body.id}`)).toMatchObject({ status: 200, body: {} });
    expect((await ctx.api.del(`/iam/v1/groups/${org.body.id}`)).body).toEqual({});
    expect((await ctx.api.del(`/iam/v1/groups/${org.body.id}`)).body.code).toBe(5);
  });
});

describe('v1 groups with omitGroupTimestamps', () => {
  const ctx = useEmulator({ omitGroupTimestamps: true });

  it('emits the public Group shape, also inside role-binding rows', async () => {
    const org = await ctx.api.post('/iam/v1/groups', { name: 'plain' });
    expect(Object.keys(org.body)).toEqual(['id', 'name', 'description', 'resourceLimits', 'verified', 'kind', 'status']);
    const identity = ctx.emu.state.createIdentity(org.body.id, { name: 'i', servicePrincipal: 'COSIGNED' });
    ctx.emu.state.createRoleBinding(org.body.id, { identity: identity.id, role: ctx.emu.state.builtinRoles.viewer! });
    const rows = await ctx.api.get(`/iam/v1/rolebindings?uidp.childrenOf=${org.body.id}`);
    expect(rows.body.items[0].group).not.toHaveProperty('createdAt');
    expect(rows.body.items[0]).toHaveProperty('createdAt');
  });
});
