import { beforeAll, describe, expect, it } from 'vitest';
import { CHILD_OF, ids, MICROS_TIMESTAMP, pinnedClock, useEmulator } from './helpers.ts';

const PATH = '/registry/v1/tags';
const digest = (c: string): string => `sha256:${c.repeat(64)}`;
const names = (reply: { body: { items: { name: string }[] } }): string[] => reply.body.items.map((t) => t.name);

describe('v1 tags', () => {
  const ctx = useEmulator({ clock: pinnedClock() });
  const w = {} as { org: string; repo: string };
  beforeAll(() => {
    w.org = ctx.emu.state.createGroup(null, { name: 'tag-org' }).id;
    w.repo = ctx.emu.state.createRepo(w.org, { name: 'nginx' }).id;
  });

  it('creates a tag as a child of its repo, every field emitted, lastUpdated stamped by the server', async () => {
    const res = await ctx.api.post(`${PATH}/${w.repo}`, { name: 'latest', digest: digest('a'), lastUpdated: '2001-01-01T00:00:00Z', extra: 1 });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: expect.stringMatching(CHILD_OF(w.repo)),
      name: 'latest',
      digest: digest('a'),
      lastUpdated: expect.stringMatching(MICROS_TIMESTAMP),
      deprecated: false,
      bundles: [],
    });
    expect(res.body.lastUpdated.startsWith('2026-')).toBe(true);
  });

  it('refuses bad names and digests (3), a missing repo (5) and a group as the parent (5)', async () => {
    for (const body of [{ digest: digest('a') }, { name: '-x', digest: digest('a') }, { name: 'ok' }, { name: 'ok', digest: 'abc' }]) {
      expect((await ctx.api.post(`${PATH}/${w.repo}`, body)).body).toMatchObject({ code: 3, details: [] });
    }
    expect((await ctx.api.post(`${PATH}/${w.org}/0000000000000000`, { name: 'x', digest: digest('a') })).body.code).toBe(5);
    expect((await ctx.api.post(`${PATH}/${w.org}`, { name: 'x', digest: digest('a') })).body.code).toBe(5);
    expect((await ctx.api.post(PATH, { name: 'x', digest: digest('a') })).body.code).toBe(3);
  });

  it('creating an existing name in the repo moves that tag (same id); PUT replaces and refuses a rename onto another tag (6)', async () => {
    const first = await ctx.api.post(`${PATH}/${w.repo}`, { name: 'move', digest: digest('b'), bundles: ['x'], deprecated: true });
    const moved = await ctx.api.post(`${PATH}/${w.repo}`, { name: 'move', digest: digest('c') });
    expect(moved.body).toMatchObject({ id: first.body.id, digest: digest('c'), bundles: [], deprecated: false });
    expect(moved.body.lastUpdated > first.body.lastUpdated).toBe(true);
    const put = await ctx.api.put(`${PATH}/${first.body.id}`, { id: 'x', name: 'moved', digest: digest('d'), bundles: ['b'] });
    expect(put.body).toEqual({ id: first.body.id, name: 'moved', digest: digest('d'), lastUpdated: expect.any(String), deprecated: false, bundles: ['b'] });
    expect((await ctx.api.put(`${PATH}/${first.body.id}`, { name: 'latest', digest: digest('d') })).body.code).toBe(6);
    expect((await ctx.api.put(`${PATH}/${w.repo}/0000000000000000`, { name: 'x', digest: digest('d') })).body.code).toBe(5);
  });

  it('exclude* drop referrer (sha256-*), dated (*-20yymmdd) and epoch (*-r<N>) tags; all are returned by default', async () => {
    const repo = ctx.emu.state.createRepo(w.org, { name: 'python' }).id;
    const all = ['3.13', 'sha256-' + 'f'.repeat(64) + '.sig', '3.13-20250101', 'latest-20991231', '3.13.1-r2', '3.13.1-r2-dev', 'r2', 'sha256'];
    for (const name of all) ctx.emu.state.createTag(repo, { name, digest: digest('e') });
    const list = (query: string) => ctx.api.get(`${PATH}?uidp.childrenOf=${repo}${query}`);
    expect(names(await list(''))).toEqual(all);
    expect(names(await list('&excludeReferrers=true'))).toEqual(all.filter((n) => !n.startsWith('sha256-')));
    expect(names(await list('&exclude_dates=1'))).toEqual(['3.13', all[1], '3.13.1-r2', '3.13.1-r2-dev', 'r2', 'sha256']);
    expect(names(await list('&excludeEpochs=t'))).toEqual(['3.13', all[1], '3.13-20250101', 'latest-20991231', '3.13.1-r2-dev', 'r2', 'sha256']);
    expect(names(await list('&excludeReferrers=true&excludeDates=true&excludeEpochs=true'))).toEqual(['3.13', '3.13.1-r2-dev', 'r2', 'sha256']);
    expect((await list('&excludeEpochs=maybe')).body.code).toBe(3);
  });

  it('filters by name, id, digest and updatedSince (strictly after)', async () => {
    const repo = ctx.emu.state.createRepo(w.org, { name: 'redis' }).id;
    const older = ctx.emu.state.createTag(repo, { name: 'old', digest: digest('1') });
    const newer = ctx.emu.state.createTag(repo, { name: 'new', digest: digest('2') });
    expect(ids(await ctx.api.get(`${PATH}?name=old&uidp.descendantsOf=${w.org}`))).toEqual([older.id]);
    expect(ids(await ctx.api.get(`${PATH}?id=${newer.id}`))).toEqual([newer.id]);
    expect(ids(await ctx.api.get(`${PATH}?digest=${encodeURIComponent(digest('2'))}`))).toEqual([newer.id]);
    const since = await ctx.api.get(`${PATH}?uidp.childrenOf=${repo}&updatedSince=${older.lastUpdated}`);
    expect(ids(since)).toEqual([newer.id]);
    expect((await ctx.api.get(`${PATH}?updatedSince=yesterday`)).body.code).toBe(3);
  });

  it('a repo with tags cannot be deleted (9); DELETE a tag then 5', async () => {
    const repo = ctx.emu.state.createRepo(w.org, { name: 'busy' }).id;
    const tag = ctx.emu.state.createTag(repo, { name: 'v1', digest: digest('3') });
    expect((await ctx.api.del(`/registry/v1/repos/${repo}`)).body.code).toBe(9);
    expect((await ctx.api.del(`${PATH}/${tag.id}`)).body).toEqual({});
    expect((await ctx.api.del(`${PATH}/${tag.id}`)).body.code).toBe(5);
    expect((await ctx.api.del(`/registry/v1/repos/${repo}`)).status).toBe(200);
  });
});
