import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { buildEmulator } from '../../src/emulator/v1/index.ts';
import { ids, useEmulator } from './helpers.ts';

describe('demo seed', () => {
  const ctx = useEmulator({ seed: 'demo' });

  it('describes an org with platform and apps, identities, bindings and repos', async () => {
    const demo = ctx.emu.demo!;
    const groups = await ctx.api.get(`/iam/v1/groups?uidp.childrenOf=${demo.orgId}`);
    expect(groups.body.items.map((g: { name: string }) => g.name)).toEqual(['platform', 'apps']);
    expect(ids(groups)).toEqual([demo.groups.platform, demo.groups.apps]);
    expect(demo.identities.user).not.toContain('/');
    const rows = await ctx.api.get(`/iam/v1/rolebindings?uidp.descendantsOf=${demo.orgId}`);
    const userRow = rows.body.items.find((row: { identity: string }) => row.identity === demo.identities.user);
    expect(userRow).toMatchObject({ email: demo.userEmail, role: { name: 'owner' } });
    const repos = await ctx.api.get(`/registry/v1/repos?uidp.childrenOf=${demo.orgId}`);
    expect(repos.body.items.map((r: { name: string }) => r.name)).toEqual(['nginx', 'python']);
    expect(repos.body.items.every((r: { readme: string; catalogTier: string }) => r.readme !== '' && r.catalogTier !== 'UNKNOWN')).toBe(true);
    expect(repos.body.items.some((r: { sync_config: unknown }) => r.sync_config !== null)).toBe(true);
  });

  it('adds an identity provider, account associations, two invites, nginx tags of every shape and advisories with events', async () => {
    const demo = ctx.emu.demo!;
    const idps = await ctx.api.get(`/iam/v1/identityProviders?uidp.childrenOf=${demo.orgId}`);
    expect(ids(idps)).toEqual([demo.identityProviders.okta]);
    expect(idps.body.items[0]).toMatchObject({ defaultRole: ctx.emu.state.builtinRoles.viewer, oidc: { pkceEnabled: true }, scim: null });
    const associations = await ctx.api.get(`/iam/v1/account_associations?group=${demo.accountAssociationsGroup}`);
    expect(associations.body.items[0]).toMatchObject({ group: demo.orgId, amazon: { account: '123456789012' }, chainguard: null });
    const invites = await ctx.api.get(`/iam/v1/group_invites?group=${demo.orgId}`);
    expect(ids(invites)).toEqual([demo.groupInvites.viewer, demo.groupInvites.editor]);
    expect(invites.body.items[1]).toMatchObject({ role: { name: 'editor' }, email: 'bob@demo-org.example', singleUse: true });
    const tags = await ctx.api.get(`/registry/v1/tags?uidp.childrenOf=${demo.repos.nginx}`);
    expect(ids(tags)).toEqual(Object.values(demo.tags));
    const plain = await ctx.api.get(`/registry/v1/tags?uidp.childrenOf=${demo.repos.nginx}&excludeReferrers=true&excludeDates=true&excludeEpochs=true`);
    expect(ids(plain)).toEqual([demo.tags.latest, demo.tags.version]);
    const advisories = await ctx.api.get(`/vulnerabilities/v1/advisories?uidp.childrenOf=${demo.orgId}&orderBy=CREATED_AT_ASC`);
    expect(ids(advisories)).toEqual(Object.values(demo.advisories));
    expect(advisories.body.items.every((a: { events: unknown[] }) => a.events.length > 0)).toBe(true);
    const fromOpenssl = await ctx.api.get(`/vulnerabilities/v1/advisories?origin=openssl&orderBy=CREATED_AT_ASC`);
    expect(ids(fromOpenssl)).toEqual([demo.advisories.openssl, demo.advisories.libssl3]);
    const fixed = await ctx.api.get(`/vulnerabilities/v1/advisories?latestEventType=EVENT_TYPE_FILTER_FIXED`);
    expect(ids(fixed)).toEqual([demo.advisories.openssl]);
  });

  it('is off by default', () => {
    const { state, demo } = buildEmulator();
    expect(demo).toBeUndefined();
    expect(state.counts()).toEqual({
      groups: 0,
      identities: 0,
      roles: 3,
      roleBindings: 0,
      repos: 0,
      identityProviders: 0,
      accountAssociations: 0,
      groupInvites: 0,
      tags: 0,
      advisories: 0,
      advisoryEvents: 0,
    });
  });
});

describe('emulator CLI', () => {
  it('prints its URL and an example, serves, and stops cleanly on SIGTERM', async () => {
    const cli = fileURLToPath(new URL('../../src/emulator/v1/cli.ts', import.meta.url));
    const child = spawn(process.execPath, [cli, '--port', '0', '--seed', 'demo'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.setEncoding('utf8');
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (chunk: string) => {
        out += chunk;
        const m = /listening on (http:\/\/\S+)/.exec(out);
        if (m && out.includes('curl')) resolve(m[1]!);
      });
      child.once('exit', (code) => reject(new Error(`cli exited early (${code}): ${out}`)));
    });
    const res = await fetch(`${url}/iam/v1/groups?uidp.inRoot=true`, { headers: { authorization: 'Bearer demo' } });
    expect(((await res.json()) as { items: { name: string }[] }).items.map((g: { name: string }) => g.name)).toEqual(['demo-org']);
    child.kill('SIGTERM');
    const [code] = await once(child, 'exit');
    expect(code).toBe(0);
  });
});
