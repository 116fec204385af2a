/** v1's SCIM lifecycle verbs on identity providers, and the provider's `scim` block they drive. */
import { describe, expect, it } from 'vitest';
import { useEmulator } from './helpers.ts';

describe('v1 SCIM tokens', () => {
  const ctx = useEmulator({});

  it('generates once, regenerates with the etag, gates enabling on two owner bindings, revokes', async () => {
    const org = (await ctx.api.post('/iam/v1/groups', { name: 'scim-v1' })).body.id;
    const roles = ctx.emu.state.builtinRoles;
    const idp = (await ctx.api.post(`/iam/v1/identityProviders/${org}`, { name: 'sso', defaultRole: roles.viewer, oidc: { issuer: 'https://i.example', clientId: 'c' } })).body.id;
    const path = (verb: string) => `/iam/v1/identityProviders/${idp}:${verb}`;
    expect((await ctx.api.post(path('regenerateScimToken'), { etag: 'x' })).status).toBe(404);
    const made = await ctx.api.post(path('generateScimToken'), {});
    expect(made.body).toMatchObject({ token: expect.stringMatching(/^cgscim_[0-9a-f]{64}$/), identityProviderId: idp });
    expect((await ctx.api.post(path('generateScimToken'), {})).status).toBe(400);
    expect((await ctx.api.post(path('regenerateScimToken'), { etag: 'stale' })).status).toBe(409);
    const rotated = await ctx.api.post(path('regenerateScimToken'), { etag: made.body.etag, overlap: '60s' });
    expect(rotated.body.previousTokenExpireTime).toBeTruthy();
    const listed = (await ctx.api.get(`/iam/v1/identityProviders?id=${idp}`)).body.items[0];
    expect(listed.scim).toMatchObject({ enabled: false, credentialState: 'CREDENTIAL_STATE_ROTATING', etag: rotated.body.etag });
    expect(JSON.stringify(listed)).not.toContain(rotated.body.token);
    expect((await ctx.api.post(path('setScimEnabled'), { enabled: true, etag: rotated.body.etag })).status).toBe(400);
    for (const name of ['a', 'b']) {
      const identity = (await ctx.api.post(`/iam/v1/identities/${org}`, { name: `owner-${name}`, claimMatch: { issuer: 'https://i.example', subject: name } })).body.id;
      await ctx.api.post(`/iam/v1/rolebindings/${org}`, { identity, role: roles.owner });
    }
    const enabled = await ctx.api.post(path('setScimEnabled'), { enabled: true, etag: rotated.body.etag });
    expect(enabled.body).toMatchObject({ identityProviderId: idp, enabled: true });
    const revoked = await ctx.api.post(path('revokeScimToken'), {});
    expect(revoked.body).toMatchObject({ enabled: true, revokeTime: expect.any(String) });
  });

  it('a regeneration overlap ends when the previous token expires, if that comes first', async () => {
    const org = (await ctx.api.post('/iam/v1/groups', { name: 'scim-overlap' })).body.id;
    const idp = (await ctx.api.post(`/iam/v1/identityProviders/${org}`, { name: 'sso', defaultRole: ctx.emu.state.builtinRoles.viewer, oidc: { issuer: 'https://i.example', clientId: 'c' } })).body.id;
    const tenMinutes = new Date(Date.now() + 600_000).toISOString();
    const made = await ctx.api.post(`/iam/v1/identityProviders/${idp}:generateScimToken`, { expireTime: tenMinutes });
    const rotated = await ctx.api.post(`/iam/v1/identityProviders/${idp}:regenerateScimToken`, { etag: made.body.etag });
    expect(rotated.body.requestedOverlap).toBe('3600s');
    expect(Date.parse(rotated.body.previousTokenExpireTime)).toBe(Date.parse(tenMinutes));
  });
});
