import { describe, expect, it } from 'vitest';
import { useEmulator } from './helpers.ts';

const PATH = '/iam/v1/account_associations';

describe('v1 account associations', () => {
  const ctx = useEmulator();
  const group = (name: string): string => ctx.emu.state.createGroup(null, { name }).id;

  it('create takes the whole message as body, keyed by the path group; unset providers are null', async () => {
    const g = group('aa-basic');
    const res = await ctx.api.post(`${PATH}/${g}`, { group: 'ignored', name: 'cloud', amazon: { account: '123456789012' }, unknown: true });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      group: g,
      amazon: { account: '123456789012' },
      google: null,
      chainguard: null,
      azure: null,
      name: 'cloud',
      description: '',
      github: null,
    });
    expect(Object.keys(res.body)).toEqual(['group', 'amazon', 'google', 'chainguard', 'azure', 'name', 'description', 'github']);
  });

  it('GitHub installations: int64 ids and map keys are JSON strings, numbers accepted on input', async () => {
    const g = group('aa-github');
    const res = await ctx.api.post(`${PATH}/${g}`, {
      name: 'gh',
      github: { app_installations: { '0042': { installations: [{ installation_id: 4242, name: 'octo' }, { installationId: '12' }] } } },
    });
    expect(res.body.github).toEqual({
      appInstallations: { '42': { installations: [{ installationId: '4242', name: 'octo' }, { installationId: '12', name: '' }] } },
    });
    const precise = await ctx.api.post(`${PATH}/${group('aa-precise')}`, {
      name: 'gh',
      github: { appInstallations: { '9223372036854775807': { installations: [{ installationId: '9223372036854775807' }] } } },
    });
    expect(precise.body.github.appInstallations['9223372036854775807'].installations[0].installationId).toBe('9223372036854775807');
    for (const bad of [{ x: { installations: [] } }, { '1': { installations: [{ installationId: '9223372036854775808' }] } }, { '1': { installations: [{}] } }]) {
      expect((await ctx.api.post(`${PATH}/${group('aa-bad')}`, { name: 'gh', github: { appInstallations: bad } })).body.code).toBe(3);
    }
  });

  it('Google, Azure and Chainguard blocks keep their v1 names', async () => {
    const g = group('aa-all');
    const robot = ctx.emu.state.createIdentity(g, { name: 'robot', servicePrincipal: 'INGESTER' });
    const res = await ctx.api.post(`${PATH}/${g}`, {
      name: 'all',
      google: { project_id: 'p', project_number: '42' },
      azure: { tenant_id: 't', client_ids: { ingester: 'cid' } },
      chainguard: { service_bindings: { INGESTER: robot.id } },
    });
    expect(res.body).toMatchObject({
      google: { projectId: 'p', projectNumber: '42' },
      azure: { tenantId: 't', clientIds: { ingester: 'cid' } },
      chainguard: { serviceBindings: { INGESTER: robot.id } },
    });
  });

  it('service bindings must name a service-principal identity directly under the group that matches the key (3)', async () => {
    const g = group('aa-bindings');
    const sub = ctx.emu.state.createGroup(g, { name: 'sub' }).id;
    const cosigned = ctx.emu.state.createIdentity(g, { name: 'c', servicePrincipal: 'COSIGNED' }).id;
    const nested = ctx.emu.state.createIdentity(sub, { name: 'n', servicePrincipal: 'INGESTER' }).id;
    const human = ctx.emu.state.createIdentity(g, { name: 'h', claimMatch: { issuer: 'https://i', subject: 's' } }).id;
    for (const bindings of [{ INGESTER: cosigned }, { INGESTER: nested }, { COSIGNED: human }, { NOPE: cosigned }, { COSIGNED: 'missing' }]) {
      const res = await ctx.api.post(`${PATH}/${g}`, { name: 'b', chainguard: { serviceBindings: bindings } });
      expect(res.body).toMatchObject({ code: 3, message: expect.stringContaining('service_bindings') });
    }
  });

  it('one association per group (6); a missing or empty group is 5 or 3; required provider fields are 3', async () => {
    const g = group('aa-one');
    expect((await ctx.api.post(`${PATH}/${g}`, { name: 'first' })).status).toBe(200);
    expect((await ctx.api.post(`${PATH}/${g}`, { name: 'second' }))).toMatchObject({ status: 409, body: { code: 6 } });
    expect((await ctx.api.post(`${PATH}/${'d'.repeat(40)}`, { name: 'x' })).body.code).toBe(5);
    expect((await ctx.api.post(PATH, { name: 'x' })).body.code).toBe(3);
    const fresh = group('aa-required');
    for (const body of [{}, { name: 'x', amazon: {} }, { name: 'x', google: { projectId: 'p' } }, { name: 'x', azure: { clientIds: {} } }]) {
      expect((await ctx.api.post(`${PATH}/${fresh}`, body)).body.code).toBe(3);
    }
  });

  it('PUT {group} replaces the whole message; a group without one is 5', async () => {
    const g = group('aa-put');
    await ctx.api.post(`${PATH}/${g}`, { name: 'a', description: 'd', amazon: { account: '1' } });
    const res = await ctx.api.put(`${PATH}/${g}`, { group: 'other', name: 'b', google: { projectId: 'p', projectNumber: '2' } });
    expect(res.body).toEqual({ group: g, amazon: null, google: { projectId: 'p', projectNumber: '2' }, chainguard: null, azure: null, name: 'b', description: '', github: null });
    expect((await ctx.api.put(`${PATH}/${group('aa-none')}`, { name: 'x' })).body.code).toBe(5);
  });

  it('lists by exact group and name only (uidp is not a v1 filter here); DELETE then 5', async () => {
    const g = group('aa-list');
    ctx.emu.state.createAccountAssociations(g, { name: 'listed' });
    const byGroup = await ctx.api.get(`${PATH}?group=${g}`);
    expect(byGroup.body.items.map((r: { group: string }) => r.group)).toEqual([g]);
    expect((await ctx.api.get(`${PATH}?group=${g}&name=other`)).body.items).toEqual([]);
    expect((await ctx.api.get(`${PATH}?name=listed`)).body.items).toHaveLength(1);
    const ignored = await ctx.api.get(`${PATH}?uidp.childrenOf=${g}`);
    expect(ignored.body.items.length).toBeGreaterThan(1);
    expect((await ctx.api.del(`/iam/v1/groups/${g}`)).body.code).toBe(9);
    expect((await ctx.api.del(`${PATH}/${g}`)).body).toEqual({});
    expect((await ctx.api.del(`${PATH}/${g}`)).body.code).toBe(5);
    expect((await ctx.api.del(`/iam/v1/groups/${g}`)).status).toBe(200);
  });
});
