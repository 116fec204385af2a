/**
 * Repo and tag writes in every mode, over REST: create, PATCH (masks, the
 * synced-repo and overlay rules), delete, the readme sub-resource, and
 * CreateTag as an upsert.
 */
import { expect, it } from 'vitest';
import { describeModes } from '../support/modes.ts';
import { TIMESTAMP_MS, aip } from '../support/stack.ts';

const DIGEST = (c: string) => `sha256:${c.repeat(64)}`;
const violations = (reply: any) => aip(reply).byType.BadRequest.fieldViolations.map((v: any) => v.field);

describeModes('repo and tag writes', (stack) => {
  let org: string;
  const client = () => stack().client;
  const repos = '/registry/v2beta1/repos';

  it('set-up', async () => {
    org = (await client().post('/iam/v2beta1/groups', { name: 'registry-writes' })).body.uid;
  });

  it('CreateRepo: a child of the group, v2 names in and out, Get shows the same repo', async () => {
    const made = await client().post(`${repos}/${org}`, {
      name: 'app',
      description: 'an app',
      catalogTier: 'CATALOG_TIER_FIPS',
      bundles: ['b'],
      customOverlay: {
        environment: { APP_MODE: 'prod' },
        annotations: { 'com.example.team': 'x' },
        accounts: { runAs: 'app', users: [{ username: 'app', uid: 1000, gid: 1000 }], groups: [{ groupname: 'app', gid: 1000, members: ['app'] }] },
      },
    });
    expect(made.status).toBe(200);
    expect(made.body.uid.startsWith(`${org}/`)).toBe(true);
    expect(made.body).toMatchObject({ name: 'app', description: 'an app', catalogTier: 'CATALOG_TIER_FIPS', bundles: ['b'] });
    expect(made.body.customOverlay.accounts.users[0]).toMatchObject({ username: 'app', uid: 1000 });
    expect(made.body.customOverlay.accounts.groups[0]).toMatchObject({ groupname: 'app', members: ['app'] });
    expect(made.body.customOverlay.environment).toEqual({ APP_MODE: 'prod' });
    expect(made.body.createTime).toMatch(TIMESTAMP_MS);
    expect(made.body).not.toHaveProperty('readme');
    expect((await client().get(`${repos}/${made.body.uid}`)).body).toEqual(made.body);
  });

  it('CreateRepo: a taken name is ALREADY_EXISTS and leaves that repo as it was', async () => {
    const first = await client().post(`${repos}/${org}`, { name: 'taken', description: 'first' });
    const again = await client().post(`${repos}/${org}`, { name: 'taken', description: 'second' });
    expect(again.status).toBe(409);
    expect(aip(again).code).toBe(6);
    expect((await client().get(`${repos}/${first.body.uid}`)).body.description).toBe('first');
    expect((await client().get(repos, { 'uidp.children_of': org, name: 'taken' })).body.totalCount).toBe('1');
  });

  it('CreateRepo: bad input is INVALID_ARGUMENT naming each field', async () => {
    expect(violations(await client().post(`${repos}/${org}`, { description: 'no name' }))).toEqual(['name']);
    expect(violations(await client().post(`${repos}/${org}`, { name: 'x', catalogTier: 'FIPS' }))).toEqual(['catalogTier']);
    const overlay = await client().post(`${repos}/${org}`, {
      name: 'bad-overlay',
      customOverlay: {
        environment: { CHAINGUARD_SECRET: 'x', OK: 'y' },
        annotations: { 'org.opencontainers.image.title': 't', 'dev.chainguard.x': 'y' },
        accounts: { users: [{ uid: 1 }], groups: [{ gid: 1 }] },
      },
    });
    expect(violations(overlay).sort()).toEqual([
      'customOverlay.accounts.groups.0.groupname', 'customOverlay.accounts.users.0.username', 'customOverlay.annotations', 'customOverlay.environment',
    ]);
    expect(aip(overlay).message).toContain('CHAINGUARD_');
    expect(violations(await client().post(`${repos}/${org}`, { name: 'x', sync_config: { google: 'g' } }))).toEqual(['sync_config.source']);
    expect(aip(await client().post(`${repos}/not-a-uidp`, { name: 'x' })).code).toBe(3);
    expect(aip(await client().post(`${repos}/${org}/0123456789abcdef`, { name: 'x' })).code).toBe(5);
    expect((await client().get(repos, { 'uidp.children_of': org, name: 'bad-overlay' })).body.totalCount).toBe('0');
  });

  it('UpdateRepo: by body keys, by mask (an absent masked field clears), renames onto a taken name refused', async () => {
    const uid = (await client().post(`${repos}/${org}`, { name: 'patchable', description: 'd', aliases: ['a'] })).body.uid;
    const byBody = await client().patch(`${repos}/${uid}`, { description: 'new', customOverlay: { environment: { K: 'v' } } });
    expect(byBody.body).toMatchObject({ name: 'patchable', description: 'new', aliases: ['a'], customOverlay: { environment: { K: 'v' } } });
    const masked = await client().patch(`${repos}/${uid}`, { name: 'ignored', bundles: ['x'] }, { update_mask: 'bundles,aliases' });
    expect(masked.body).toMatchObject({ name: 'patchable', description: 'new', bundles: ['x'], aliases: [] });
    const env = await client().patch(`${repos}/${uid}`, { customOverlay: { environment: { CHAINGUARD_X: '1' } } }, { update_mask: 'custom_overlay.environment' });
    expect(violations(env)).toEqual(['customOverlay.environment']);
    expect(aip(await client().patch(`${repos}/${uid}`, { name: 'taken' })).code).toBe(6);
    expect(aip(await client().patch(`${repos}/${org}/0123456789abcdef`, { description: 'x' })).code).toBe(5);
    expect((await client().get(`${repos}/${uid}`)).body).toEqual(masked.body);
  });

  it('UpdateRepo: on a synced repo the inherited fields cannot change (INVALID_ARGUMENT); restating them and other fields can', async () => {
    const source = (await client().post(`${repos}/${org}`, { name: 'source' })).body.uid;
    const uid = await stack().fixtures.repo(org, {
      name: 'synced', catalogTier: 'CATALOG_TIER_BASE', bundles: ['b'], aliases: ['al'], activeTags: ['latest'],
      sync_config: { source, expirationTime: '2031-01-01T00:00:00.000Z', uniqueTags: true },
    });
    for (const [field, value] of [['catalogTier', 'CATALOG_TIER_AI'], ['bundles', ['other']], ['aliases', []], ['activeTags', ['1']]] as const) {
      const refused = await client().patch(`${repos}/${uid}`, { [field]: value });
      expect(refused.status).toBe(400);
      expect(violations(refused)).toEqual([field]);
    }
    const restated = await client().patch(`${repos}/${uid}`, { catalogTier: 'CATALOG_TIER_BASE', bundles: ['b'], description: 'mine' });
    expect(restated.body).toMatchObject({ catalogTier: 'CATALOG_TIER_BASE', bundles: ['b'], aliases: ['al'], activeTags: ['latest'], description: 'mine' });
    // Output-only sync settings survive the write.
    expect(restated.body.sync_config).toMatchObject({ source, uniqueTags: true, expirationTime: '2031-01-01T00:00:00.000Z' });
    // An unsynced repo changes them freely.
    const free = (await client().post(`${repos}/${org}`, { name: 'unsynced', catalogTier: 'CATALOG_TIER_BASE' })).body.uid;
    expect((await client().patch(`${repos}/${free}`, { catalogTier: 'CATALOG_TIER_AI' })).body.catalogTier).toBe('CATALOG_TIER_AI');
  });

  it('DeleteRepo: refused while it holds tags (RESOURCE_NOT_EMPTY), then gone; a second delete is NOT_FOUND', async () => {
    const uid = (await client().post(`${repos}/${org}`, { name: 'doomed' })).body.uid;
    const tag = (await client().post(`/registry/v2beta1/tags/${uid}`, { name: 'latest', digest: DIGEST('1') })).body.uid;
    const refused = await client().delete(`${repos}/${uid}`);
    expect(refused.status).toBe(400);
    expect(aip(refused).byType.PreconditionFailure.violations[0].type).toBe('RESOURCE_NOT_EMPTY');
    expect((await client().delete(`/registry/v2beta1/tags/${tag}`)).body).toEqual({});
    expect((await client().delete(`${repos}/${uid}`)).body).toEqual({});
    expect(aip(await client().get(`${repos}/${uid}`)).code).toBe(5);
    expect(aip(await client().delete(`${repos}/${uid}`)).code).toBe(5);
  });

  it('GetRepoReadme and UpdateRepoReadme: a sub-resource at the repo\'s uid, empty until written, apart from the repo', async () => {
    const uid = (await client().post(`${repos}/${org}`, { name: 'documented', description: 'd' })).body.uid;
    expect((await client().get(`${repos}/${uid}/readme`)).body).toEqual({ uid, content: '' });
    const written = await client().patch(`${repos}/${uid}/readme`, { content: '# Hello\n' });
    expect(written.status).toBe(200);
    expect(written.body).toEqual({ uid, content: '# Hello\n' });
    expect((await client().get(`${repos}/${uid}/readme`)).body).toEqual(written.body);
    // The repo neither shows the readme nor loses it when patched.
    const repo = await client().patch(`${repos}/${uid}`, { description: 'changed' });
    expect(repo.body).not.toHaveProperty('readme');
    expect(repo.body.description).toBe('changed');
    expect((await client().get(`${repos}/${uid}/readme`)).body.content).toBe('# Hello\n');
    // A mask naming content with no content clears it; an unknown key is refused.
    expect((await client().patch(`${repos}/${uid}/readme`, {}, { update_mask: 'content' })).body).toEqual({ uid, content: '' });
    expect(aip(await client().patch(`${repos}/${uid}/readme`, { readme: 'x' })).code).toBe(3);
    // No repo, no readme; a deleted repo takes its readme with it.
    expect(aip(await client().get(`${repos}/${org}/0123456789abcdef/readme`)).code).toBe(5);
    expect(aip(await client().patch(`${repos}/${org}/0123456789abcdef/readme`, { content: 'x' })).code).toBe(5);
    await client().patch(`${repos}/${uid}/readme`, { content: 'again' });
    expect((await client().delete(`${repos}/${uid}`)).status).toBe(200);
    expect(aip(await client().get(`${repos}/${uid}/readme`)).code).toBe(5);
  });

  it('CreateTag: under its repo; a taken name updates that tag in place (an upsert)', async () => {
    const repo = (await client().post(`${repos}/${org}`, { name: 'tagged' })).body.uid;
    const made = await client().post(`/registry/v2beta1/tags/${repo}`, { name: '1.0', digest: DIGEST('a'), bundles: ['base'] });
    expect(made.status).toBe(200);
    expect(made.body).toMatchObject({ name: '1.0', digest: DIGEST('a'), bundles: ['base'], deprecated: false });
    expect(made.body.uid.startsWith(`${repo}/`)).toBe(true);
    expect(made.body.updateTime).toMatch(TIMESTAMP_MS);
    const again = await client().post(`/registry/v2beta1/tags/${repo}`, { name: '1.0', digest: DIGEST('b'), deprecated: true });
    expect(again.body).toMatchObject({ uid: made.body.uid, name: '1.0', digest: DIGEST('b'), deprecated: true, bundles: [] });
    expect(Date.parse(again.body.updateTime)).toBeGreaterThanOrEqual(Date.parse(made.body.updateTime));
    const listed = await client().get('/registry/v2beta1/tags', { 'uidp.children_of': repo });
    expect(listed.body.tags).toEqual([again.body]);
    const other = await client().post(`/registry/v2beta1/tags/${repo}`, { name: '2.0', digest: DIGEST('a') });
    expect(other.body.uid).not.toBe(made.body.uid);
  });

  it('CreateTag: OCI names and digests, an existing repo; DeleteTag of a missing tag is NOT_FOUND', async () => {
    const repo = (await client().post(`${repos}/${org}`, { name: 'strict' })).body.uid;
    expect(violations(await client().post(`/registry/v2beta1/tags/${repo}`, { name: '-bad', digest: 'latest' })).sort()).toEqual(['digest', 'name']);
    expect(violations(await client().post(`/registry/v2beta1/tags/${repo}`, {})).sort()).toEqual(['digest', 'name']);
    expect(aip(await client().post(`/registry/v2beta1/tags/${repo}/0123456789abcdef`, { name: 'x', digest: DIGEST('c') })).code).toBe(5);
    expect(aip(await client().delete(`/registry/v2beta1/tags/${repo}/0123456789abcdef`)).code).toBe(5);
    expect((await client().get('/registry/v2beta1/tags', { 'uidp.children_of': repo })).body.totalCount).toBe('0');
  });
});
