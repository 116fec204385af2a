import { describe, expect, it } from 'vitest';
import { CHILD_OF, ids, useEmulator } from './helpers.ts';
import { microsOf } from '../../src/emulator/v1/time.ts';

const GITHUB = { issuer: 'https://token.actions.githubusercontent.com', subject: 'repo:acme/app:ref:refs/heads/main' };

describe('v1 identities', () => {
  const ctx = useEmulator();
  const org = () => ctx.emu.state.listGroups({ name: 'id-org' })[0]?.id ?? ctx.emu.state.createGroup(null, { name: 'id-org' }).id;

  it('creates a claimMatch identity: unset oneof members are omitted, everything else is emitted', async () => {
    const res = await ctx.api.post(`/iam/v1/identities/${org()}`, { name: 'gha', claim_match: GITHUB });
    expect(res.status).toBe(200);
    expect(res.body.id).toMatch(CHILD_OF(org()));
    expect(res.body).toEqual({
      id: res.body.id,
      name: 'gha',
      description: '',
      createdAt: res.body.createdAt,
      updatedAt: res.body.createdAt,
      lastSeen: res.body.createdAt,
      claimMatch: { ...GITHUB, claims: {}, claimPatterns: {} },
    });
  });

  it('renders each relationship kind under its own key', async () => {
    const sp = await ctx.api.post(`/iam/v1/identities/${org()}`, { name: 'sp', servicePrincipal: 'COSIGNED' });
    expect(sp.body.servicePrincipal).toBe('COSIGNED');
    expect(sp.body).not.toHaveProperty('claimMatch');
    const aws = await ctx.api.post(`/iam/v1/identities/${org()}`, { name: 'aws', awsIdentity: { awsAccount: '123456789012', arnPattern: '.*' } });
    expect(aws.body.awsIdentity).toEqual({ awsAccount: '123456789012', arnPattern: '.*' });
    const stat = await ctx.api.post(`/iam/v1/identities/${org()}`, {
      name: 'kind',
      static: { issuer: 'https://kind.local', subject: 'system:serviceaccount:x:y', issuerKeys: '{"keys":[]}' },
    });
    expect(stat.body.static).toMatchObject({ issuer: 'https://kind.local', audiences: [], expiration: expect.any(String) });
    const days = (Date.parse(stat.body.static.expiration) - Date.parse(stat.body.createdAt)) / 86_400_000;
    expect(Math.round(days)).toBe(30);
  });

  it('requires exactly one valid relationship', async () => {
    const none = await ctx.api.post(`/iam/v1/identities/${org()}`, { name: 'none' });
    const two = await ctx.api.post(`/iam/v1/identities/${org()}`, { name: 'two', claimMatch: GITHUB, servicePrincipal: 'INGESTER' });
    const noSubject = await ctx.api.post(`/iam/v1/identities/${org()}`, { name: 'nosub', claimMatch: { issuer: GITHUB.issuer } });
    const tooLong = await ctx.api.post(`/iam/v1/identities/${org()}`, {
      name: 'long',
      static: { issuer: 'i', subject: 's', issuerKeys: 'k', expiration: '2999-01-01T00:00:00Z' },
    });
    for (const res of [none, two, noSubject, tooLong]) expect(res.body).toMatchObject({ code: 3, details: [] });
  });

  it('lists by id and UIDPFilter, and ignores `name` (not a v1 identity filter)', async () => {
    const made = await ctx.api.post(`/iam/v1/identities/${org()}`, { name: 'findme', servicePrincipal: 'APKO_BUILDER' });
    expect(ids(await ctx.api.get(`/iam/v1/identities?id=${made.body.id}`))).toEqual([made.body.id]);
    expect(ids(await ctx.api.get(`/iam/v1/identities?uidp.children_of=${org()}`))).toContain(made.body.id);
    const byName = await ctx.api.get('/iam/v1/identities?name=findme');
    expect(byName.body.items.length).toBeGreaterThan(1);
  });

  it('looks identities up by literal issuer and subject, NOT_FOUND otherwise', async () => {
    const made = ctx.emu.state.createIdentity(null, { name: 'user', claimMatch: { issuer: 'https://auth.example', subject: 'u-1' } });
    expect(made.id).not.toContain('/');
    const hit = await ctx.api.get('/iam/v1/identities/lookup?issuer=https%3A%2F%2Fauth.example&subject=u-1');
    expect(hit.body).toMatchObject({ id: made.id, name: 'user', claimMatch: { subject: 'u-1' } });
    const miss = await ctx.api.get('/iam/v1/identities/lookup?issuer=https%3A%2F%2Fauth.example&subject=u-2');
    expect(miss).toMatchObject({ status: 404, body: { code: 5 } });
  });

  it('lookup answers the full Identity, exactly as the list shows it, for claimMatch and static identities alike', async () => {
    const user = ctx.emu.state.createIdentity(null, {
      name: 'full',
      claimMatch: { issuer: 'https://lookup.example', subject: 'u-9' },
      email: 'never@shown.example',
    });
    const hit = await ctx.api.get('/iam/v1/identities/lookup?issuer=https%3A%2F%2Flookup.example&subject=u-9&unknown=1');
    const [row] = (await ctx.api.get(`/iam/v1/identities?id=${user.id}`)).body.items;
    expect(hit.body).toEqual(row);
    expect(Object.keys(hit.body)).toEqual(['id', 'name', 'description', 'createdAt', 'updatedAt', 'lastSeen', 'claimMatch']);
    const keys = ctx.emu.state.createIdentity(org(), { name: 'static', static: { issuer: 'https://static.example', subject: 's-1', issuerKeys: '{}' } });
    expect((await ctx.api.get('/iam/v1/identities/lookup?issuer=https%3A%2F%2Fstatic.example&subject=s-1')).body.id).toBe(keys.id);
    expect((await ctx.api.get('/iam/v1/identities/lookup')).body.code).toBe(5);
  });

  it('PUT replaces name, description and relationship, keeping createdAt and lastSeen', async () => {
    const made = await ctx.api.post(`/iam/v1/identities/${org()}`, { name: 'swap', description: 'old', claimMatch: GITHUB });
    const res = await ctx.api.put(`/iam/v1/identities/${made.body.id}`, { name: 'swapped', servicePrincipal: 'INGESTER' });
    expect(res.body).toEqual({
      id: made.body.id,
      name: 'swapped',
      description: '',
      createdAt: made.body.createdAt,
      updatedAt: res.body.updatedAt,
      lastSeen: made.body.lastSeen,
      servicePrincipal: 'INGESTER',
    });
    // Compared as instants: protojson prints 3, 6 or 9 fractional digits, so the strings do not order by time.
    expect(microsOf(res.body.updatedAt)).toBeGreaterThan(microsOf(made.body.updatedAt));
  });

  it('DELETE removes the role bindings that reference the identity', async () => {
    const made = await ctx.api.post(`/iam/v1/identities/${org()}`, { name: 'bound', servicePrincipal: 'COSIGNED' });
    const binding = ctx.emu.state.createRoleBinding(org(), { identity: made.body.id, role: ctx.emu.state.builtinRoles.viewer! });
    expect((await ctx.api.del(`/iam/v1/identities/${made.body.id}`)).body).toEqual({});
    expect((await ctx.api.get(`/iam/v1/rolebindings?id=${binding.id}`)).body.items).toEqual([]);
    expect((await ctx.api.del(`/iam/v1/identities/${made.body.id}`)).body.code).toBe(5);
  });

  it('requires an existing parent group', async () => {
    expect((await ctx.api.post('/iam/v1/identities', { name: 'x', servicePrincipal: 'COSIGNED' })).body.code).toBe(3);
    expect((await ctx.api.post(`/iam/v1/identities/${'a'.repeat(40)}`, { name: 'x', servicePrincipal: 'COSIGNED' })).body.code).toBe(5);
  });
});
