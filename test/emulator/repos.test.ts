import { beforeAll, describe, expect, it } from 'vitest';
import { CHILD_OF, ids, useEmulator } from './helpers.ts';

const EMPTY_SYNC = { source: '', uniqueTags: false, expiration: null, google: '', amazon: '', azure: '', syncApks: false, apkoOverlay: '', gracePeriod: false };

describe('v1 repos', () => {
  const ctx = useEmulator();
  let org = '';
  beforeAll(() => {
    org = ctx.emu.state.createGroup(null, { name: 'repo-org' }).id;
  });

  it('creates a repo with every field emitted; unset messages are null', async () => {
    const res = await ctx.api.post(`/registry/v1/repos/${org}`, { name: 'nginx' });
    expect(res.body).toEqual({
      id: expect.stringMatching(CHILD_OF(org)),
      name: 'nginx',
      catalogTier: 'UNKNOWN',
      bundles: [],
      readme: '',
      sync_config: null,
      customOverlay: null,
      aliases: [],
      createTime: expect.any(String),
      activeTags: [],
      description: '',
    });
  });

  it('sync_config is snake_case on the wire; syncConfig is an unknown key and is discarded', async () => {
    const snake = await ctx.api.post(`/registry/v1/repos/${org}`, {
      name: 'synced',
      sync_config: { source: `${org}/0123456789abcdef`, unique_tags: true, expiration: '2030-01-02T03:04:05.123456789+01:00' },
    });
    expect(snake.body.sync_config).toEqual({ ...EMPTY_SYNC, source: `${org}/0123456789abcdef`, uniqueTags: true, expiration: '2030-01-02T02:04:05.123456789Z' });
    const camel = await ctx.api.post(`/registry/v1/repos/${org}`, { name: 'camel', syncConfig: { source: 'x' } });
    expect(camel.body.sync_config).toBeNull();
    expect(camel.body).not.toHaveProperty('syncConfig');
  });

  it('customOverlay keeps v1 names (userName, groupName) and emits its zero values', async () => {
    const res = await ctx.api.post(`/registry/v1/repos/${org}`, {
      name: 'overlay',
      customOverlay: { accounts: { users: [{ uid: 65532, user_name: 'nonroot' }], groups: [{ gid: 65532, groupname: 'dropped' }] } },
    });
    expect(res.body.customOverlay.accounts).toEqual({
      groups: [{ gid: 65532, groupName: '', members: [] }],
      users: [{ uid: 65532, userName: 'nonroot', groupName: '', shell: '', homeDir: '' }],
      runAs: '',
    });
    expect(res.body.customOverlay).toMatchObject({ contents: null, environment: {}, annotations: {}, certificates: null });
  });

  it('catalogTier takes v1 names or numbers and rejects anything else', async () => {
    expect((await ctx.api.post(`/registry/v1/repos/${org}`, { name: 't1', catalogTier: 'FIPS' })).body.catalogTier).toBe('FIPS');
    expect((await ctx.api.post(`/registry/v1/repos/${org}`, { name: 't2', catalog_tier: 9 })).body.catalogTier).toBe('COMMERCIAL');
    for (const tier of ['CATALOG_TIER_BASE', 2, 'FREE']) {
      expect((await ctx.api.post(`/registry/v1/repos/${org}`, { name: 't3', catalogTier: tier })).body).toMatchObject({ code: 3 });
    }
  });

  it('a name collision updates the existing repo unless preventExisting is set (6)', async () => {
    const first = await ctx.api.post(`/registry/v1/repos/${org}`, { name: 'dup', readme: '# one', catalogTier: 'BASE' });
    const again = await ctx.api.post(`/registry/v1/repos/${org}`, { name: 'dup', description: 'two' });
    expect(again.body).toEqual({ ...first.body, description: 'two', readme: '', catalogTier: 'UNKNOWN' });
    expect(ids(await ctx.api.get(`/registry/v1/repos?name=dup`))).toEqual([first.body.id]);
    for (const key of ['preventExisting', 'prevent_existing']) {
      const refused = await ctx.api.post(`/registry/v1/repos/${org}?${key}=true`, { name: 'dup' });
      expect(refused).toMatchObject({ status: 409, body: { code: 6, details: [] } });
    }
  });

  it('PUT resets an omitted readme and keeps id and createTime', async () => {
    const made = await ctx.api.post(`/registry/v1/repos/${org}`, { name: 'put', readme: '# hi', bundles: ['b'], sync_config: { source: 's' } });
    const res = await ctx.api.put(`/registry/v1/repos/${made.body.id}`, { name: 'put', description: 'new' });
    expect(res.body).toEqual({ ...made.body, description: 'new', readme: '', bundles: [], sync_config: null });
    expect((await ctx.api.put(`/registry/v1/repos/${org}/ffffffffffffffff`, { name: 'x' })).body.code).toBe(5);
  });

  it('filters by id, name and uidp; DELETE then 5', async () => {
    const other = ctx.emu.state.createGroup(null, { name: 'other' }).id;
    const there = ctx.emu.state.createRepo(other, { name: 'nginx' });
    expect(ids(await ctx.api.get(`/registry/v1/repos?name=nginx&uidp.descendantsOf=${other}`))).toEqual([there.id]);
    expect(ids(await ctx.api.get(`/registry/v1/repos?id=${there.id}`))).toEqual([there.id]);
    expect((await ctx.api.del(`/registry/v1/repos/${there.id}`)).body).toEqual({});
    expect((await ctx.api.del(`/registry/v1/repos/${there.id}`)).body.code).toBe(5);
  });
});
