/** v1's per-digest image routes and account associations' `:check`, as the emulator serves them. */
import { describe, expect, it } from 'vitest';
import { useEmulator } from './helpers.ts';

describe('v1 per-digest image routes', () => {
  const ctx = useEmulator({});
  const digest = `sha256:${'cd'.repeat(32)}`;

  it('answers architectures and a stable int64 size for a digest a tag of the repo points at', async () => {
    const org = (await ctx.api.post('/iam/v1/groups', { name: 'img-org' })).body.id;
    const repo = (await ctx.api.post(`/registry/v1/repos/${org}`, { name: 'app' })).body.id;
    expect((await ctx.api.post(`/registry/v1/tags/${repo}`, { name: 'latest', digest })).status).toBe(200);
    const archs = await ctx.api.get(`/registry/v1/repos/${repo}/digests/${digest}/architectures`);
    expect(archs.body).toEqual({ archs: ['amd64', 'arm64'] });
    const size = await ctx.api.get(`/registry/v1/repos/${repo}/digests/${digest}/size?arch=arm64`);
    expect(size.body).toEqual({ size: expect.stringMatching(/^\d+$/), arch: 'arm64' });
    expect((await ctx.api.get(`/registry/v1/repos/${repo}/digests/${digest}/size?arch=arm64`)).body).toEqual(size.body);
    expect((await ctx.api.get(`/registry/v1/repos/${repo}/digests/${digest}/size`)).body.arch).toBe('amd64');
    expect((await ctx.api.get(`/registry/v1/repos/${repo}/digests/sha256:${'0'.repeat(64)}/size`)).status).toBe(404);
    expect((await ctx.api.get(`/registry/v1/repos/${org}/0000000000000000/digests/${digest}/architectures`)).status).toBe(404);
  });
});

describe('v1 account associations :check', () => {
  const ctx = useEmulator({});

  it('is Ready for a configured provider, NotReady (mixed case) for another, NOT_FOUND without associations', async () => {
    const org = (await ctx.api.post('/iam/v1/groups', { name: 'check-org' })).body.id;
    expect((await ctx.api.post(`/iam/v1/account_associations/${org}`, { name: 'a', amazon: { account: '123456789012' } })).status).toBe(200);
    const amazon = await ctx.api.post(`/iam/v1/account_associations/${org}:check`, { accountType: 'AMAZON' });
    expect(amazon.body).toMatchObject({ ready: 'Ready' });
    const azure = await ctx.api.post(`/iam/v1/account_associations/${org}:check`, { account_type: 3 });
    expect(azure.body).toMatchObject({ ready: 'NotReady', reason: 'NOT_CONFIGURED' });
    expect((await ctx.api.post(`/iam/v1/account_associations/${org}:check`, {})).status).toBe(400);
    const other = (await ctx.api.post('/iam/v1/groups', { name: 'bare-org' })).body.id;
    expect((await ctx.api.post(`/iam/v1/account_associations/${other}:check`, { accountType: 'AMAZON' })).status).toBe(404);
  });
});
