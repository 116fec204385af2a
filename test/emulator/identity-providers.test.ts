import { beforeAll, describe, expect, it } from 'vitest';
import { CHILD_OF, ids, useEmulator } from './helpers.ts';

const PATH = '/iam/v1/identityProviders';
const OIDC = { issuer: 'https://accounts.example.com', clientId: 'client-1', clientSecret: 's3cret' };

describe('v1 identity providers', () => {
  const ctx = useEmulator();
  let org = '';
  beforeAll(() => {
    org = ctx.emu.state.createGroup(null, { name: 'idp-org' }).id;
  });

  it('creates under the group with every field emitted: no timestamps, scim null, clientSecret returned', async () => {
    const res = await ctx.api.post(`${PATH}/${org}`, { name: 'okta', oidc: OIDC });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: expect.stringMatching(CHILD_OF(org)),
      name: 'okta',
      description: '',
      defaultRole: '',
      oidc: {
        issuer: OIDC.issuer,
        clientId: 'client-1',
        clientSecret: 's3cret',
        additionalScopes: [],
        groupsClaim: '',
        correlationRule: 'CORRELATION_RULE_UNSPECIFIED',
        pkceEnabled: false,
      },
      scim: null,
    });
    expect(Object.keys(res.body)).toEqual(['id', 'name', 'description', 'defaultRole', 'oidc', 'scim']);
  });

  it('accepts proto names and enum numbers, drops unknown keys and ignores the output-only scim block', async () => {
    const res = await ctx.api.post(`${PATH}/${org}`, {
      name: 'entra',
      default_role: ctx.emu.state.builtinRoles.viewer,
      oidc: { ...OIDC, additional_scopes: ['email'], groups_claim: 'groups', correlation_rule: 2, pkce_enabled: true, extra: 1 },
      scim: { enabled: true, endpointUrl: 'https://x' },
      createTime: '2020-01-01T00:00:00Z',
    });
    expect(res.body).toMatchObject({
      defaultRole: ctx.emu.state.builtinRoles.viewer,
      oidc: { additionalScopes: ['email'], groupsClaim: 'groups', correlationRule: 'CORRELATION_RULE_OID_EQUALS_EXTERNAL_ID', pkceEnabled: true },
      scim: null,
    });
    expect(res.body).not.toHaveProperty('createTime');
    expect(res.body.oidc).not.toHaveProperty('extra');
  });

  it('refuses a missing name, configuration, issuer or client id, an unknown default role (3) and a missing group (5)', async () => {
    for (const body of [
      { oidc: OIDC },
      { name: 'n' },
      { name: 'n', oidc: { ...OIDC, issuer: '' } },
      { name: 'n', oidc: { ...OIDC, issuer: 'not a url' } },
      { name: 'n', oidc: { ...OIDC, clientId: '' } },
      { name: 'n', oidc: OIDC, defaultRole: `${org}/0000000000000000` },
      { name: 'n', oidc: { ...OIDC, correlationRule: 'SUB' } },
    ]) {
      expect((await ctx.api.post(`${PATH}/${org}`, body)).body).toMatchObject({ code: 3, details: [] });
    }
    expect((await ctx.api.post(PATH, { name: 'n', oidc: OIDC })).body.code).toBe(3);
    expect((await ctx.api.post(`${PATH}/${'c'.repeat(40)}`, { name: 'n', oidc: OIDC })).status).toBe(404);
  });

  it('PUT replaces the whole provider, clientSecret included; the path id wins', async () => {
    const made = await ctx.api.post(`${PATH}/${org}`, { name: 'put', description: 'd', oidc: { ...OIDC, groupsClaim: 'g' } });
    const res = await ctx.api.put(`${PATH}/${made.body.id}`, { id: 'ignored', name: 'put2', oidc: { issuer: OIDC.issuer, clientId: 'c2' } });
    expect(res.body).toEqual({
      ...made.body,
      name: 'put2',
      description: '',
      oidc: { ...made.body.oidc, clientId: 'c2', clientSecret: '', groupsClaim: '' },
    });
    expect((await ctx.api.put(`${PATH}/${org}/0000000000000000`, { name: 'x', oidc: OIDC })).body.code).toBe(5);
  });

  it('correlationRule is immutable: restating or omitting it keeps it, changing it is 3', async () => {
    const made = await ctx.api.post(`${PATH}/${org}`, { name: 'rule', oidc: { ...OIDC, correlationRule: 'CORRELATION_RULE_OID_EQUALS_EXTERNAL_ID' } });
    const omitted = await ctx.api.put(`${PATH}/${made.body.id}`, { name: 'rule', oidc: OIDC });
    expect(omitted.body.oidc.correlationRule).toBe('CORRELATION_RULE_OID_EQUALS_EXTERNAL_ID');
    const restated = await ctx.api.put(`${PATH}/${made.body.id}`, { name: 'rule', oidc: { ...OIDC, correlationRule: 2 } });
    expect(restated.body.oidc.correlationRule).toBe('CORRELATION_RULE_OID_EQUALS_EXTERNAL_ID');
    const changed = await ctx.api.put(`${PATH}/${made.body.id}`, { name: 'rule', oidc: { ...OIDC, correlationRule: 'CORRELATION_RULE_SUB_EQUALS_EXTERNAL_ID' } });
    expect(changed).toMatchObject({ status: 400, body: { code: 3, message: expect.stringContaining('correlation_rule') } });
    // UNSPECIFIED is treated as the sub rule, so stating the sub rule over it is a restatement.
    const plain = await ctx.api.post(`${PATH}/${org}`, { name: 'plain', oidc: OIDC });
    const sub = await ctx.api.put(`${PATH}/${plain.body.id}`, { name: 'plain', oidc: { ...OIDC, correlationRule: 'CORRELATION_RULE_SUB_EQUALS_EXTERNAL_ID' } });
    expect(sub.body.oidc.correlationRule).toBe('CORRELATION_RULE_UNSPECIFIED');
  });

  it('lists unpaged by id, name and uidp; unknown query keys ignored; DELETE then 5', async () => {
    const other = ctx.emu.state.createGroup(null, { name: 'idp-other' }).id;
    const there = ctx.emu.state.createIdentityProvider(other, { name: 'okta', oidc: OIDC });
    expect(ids(await ctx.api.get(`${PATH}?name=okta&uidp.childrenOf=${other}&pageSize=1`))).toEqual([there.id]);
    expect(ids(await ctx.api.get(`${PATH}?id=${there.id}`))).toEqual([there.id]);
    const all = await ctx.api.get(PATH);
    expect(Object.keys(all.body)).toEqual(['items']);
    expect(ids(all)).toContain(there.id);
    expect((await ctx.api.del(`${PATH}/${there.id}`)).body).toEqual({});
    expect((await ctx.api.del(`${PATH}/${there.id}`)).body.code).toBe(5);
  });

  it('keeps the group from being deleted while it owns a provider (9)', async () => {
    const group = ctx.emu.state.createGroup(null, { name: 'idp-owner' }).id;
    const idp = ctx.emu.state.createIdentityProvider(group, { name: 'p', oidc: OIDC });
    expect((await ctx.api.del(`/iam/v1/groups/${group}`)).body.code).toBe(9);
    ctx.emu.state.deleteIdentityProvider(idp.id);
    expect((await ctx.api.del(`/iam/v1/groups/${group}`)).status).toBe(200);
  });
});
