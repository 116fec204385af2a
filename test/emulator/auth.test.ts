/**
 * `GET /auth/v1/ok` (v1's Auth.Validate): the WhoAmI of the bearer token, its capabilities one `{group, role}`
 * entry per role binding of the identity the token names; the demo caller (a token naming no identity) owns
 * every organisation; a JWT naming no subject is refused; and the answers a test may ask for instead (404, 503).
 * Beside it, the Lists v1 marks `disabled` answer without a token.
 */
import { describe, expect, it } from 'vitest';
import { jwt } from '../support/jwt.ts';
import { client, useEmulator } from './helpers.ts';

describe('GET /auth/v1/ok', () => {
  const ctx = useEmulator({ seed: 'demo' });

  it("states a named identity's role bindings, with v1's capability names, and its subject", async () => {
    const { demo, state } = ctx.emu;
    ctx.emu.auth.tokens = { 'alice-token': demo!.identities.user, 'ci-token': demo!.identities.githubActions };
    const alice = await client(ctx.emu.url, 'alice-token').get('/auth/v1/ok');
    expect(alice.status).toBe(200);
    expect(alice.body).toMatchObject({ subject: demo!.identities.user, capabilities: [{ group: { id: demo!.orgId, name: 'demo-org' }, role: { name: 'owner' } }] });
    expect(alice.body.capabilities[0].role.capabilities).toContain('registry.overlays.edit');
    expect(alice.body.capabilities[0].group).not.toHaveProperty('createdAt');
    const ci = await client(ctx.emu.url, 'ci-token').get('/auth/v1/ok');
    expect(ci.body.capabilities.map((c: any) => [c.group.id, c.role.name]).sort()).toEqual([[demo!.groups.apps, 'editor'], [demo!.groups.platform, 'viewer']].sort());
    // A JWT names its identity by `sub`; its profile claims are stated too.
    const token = jwt({ iss: 'https://issuer.example', sub: demo!.identities.user, given_name: 'Alice', email: 'a@x.example' });
    const byJwt = await client(ctx.emu.url, token).get('/auth/v1/ok');
    expect(byJwt.body).toMatchObject({ issuer: 'https://issuer.example', subject: demo!.identities.user, email: 'a@x.example', profile: { givenName: 'Alice', familyName: '' } });
    expect(byJwt.body.capabilities).toHaveLength(1);
    expect(state.organisations()).toHaveLength(1);
  });

  it('states the demo caller owner of every organisation, or of nothing when told; never echoes the token', async () => {
    const demo = await client(ctx.emu.url, 'demo').get('/auth/v1/ok');
    expect(demo.body.capabilities.map((c: any) => [c.group.id, c.role.name])).toEqual([[ctx.emu.demo!.orgId, 'owner']]);
    expect(demo.body.subject).not.toContain('demo');
    expect(demo.body.subject).not.toBe('');
    ctx.emu.auth.demoCaller = false;
    try {
      expect((await client(ctx.emu.url, 'demo').get('/auth/v1/ok')).body.capabilities).toEqual([]);
    } finally {
      ctx.emu.auth.demoCaller = undefined;
    }
  });

  it('refuses no token, or a JWT that names no subject (16); answers 404 or 503 when told', async () => {
    expect((await client(ctx.emu.url, null).get('/auth/v1/ok')).status).toBe(401);
    expect((await client(ctx.emu.url, jwt({ iss: 'x' })).get('/auth/v1/ok')).body.code).toBe(16);
    ctx.emu.auth.failWith = 404;
    expect((await client(ctx.emu.url, 'demo').get('/auth/v1/ok')).status).toBe(404);
    ctx.emu.auth.failWith = 503;
    const down = await client(ctx.emu.url, 'demo').get('/auth/v1/ok');
    expect([down.status, down.body.code]).toEqual([503, 14]);
    ctx.emu.auth.failWith = undefined;
    expect((await client(ctx.emu.url, 'demo').get('/auth/v1/ok')).status).toBe(200);
  });

  it('serves the advisory feed, which v1 marks disabled, without a token; other routes still need one', async () => {
    const anonymous = client(ctx.emu.url, null);
    expect((await anonymous.get('/advisory/v1/documents')).status).toBe(200);
    expect((await anonymous.get('/advisory/v1/metadata')).status).toBe(200);
    expect((await anonymous.get('/iam/v1/groups')).status).toBe(401);
  });
});
