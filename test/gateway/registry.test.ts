/** Repos, tags and advisories read in every mode, from fixtures (writes: registry-writes.test.ts). */
import { expect, it } from 'vitest';
import { describeModes } from '../support/modes.ts';
import { TIMESTAMP_MS, aip } from '../support/stack.ts';

describeModes('registry and vulnerabilities', (stack) => {
  let org: string;
  let repo: string;
  let scope: string;
  const client = () => stack().client;
  const advisories: string[] = [];

  it('set-up', async () => {
    org = (await client().post('/iam/v2beta1/groups', { name: 'registry-org' })).body.uid;
    repo = await stack().fixtures.repo(org, { name: 'tagged' });
    const names = ['latest', '1.2.3', 'sha256-abc.sig', 'nightly-20260101', '1.2.3-r4'];
    for (const [i, name] of names.entries()) await stack().fixtures.tag(repo, { name, digest: `sha256:${String(i).repeat(64)}`, bundles: i === 0 ? ['base'] : [] });
    scope = (await client().post(`/iam/v2beta1/groups/${org}`, { name: 'advisories' })).body.uid;
    for (let i = 0; i < 30; i++) {
      advisories.push(await stack().fixtures.advisory(scope, {
        artifactType: 'apk',
        artifactName: i % 2 === 0 ? `pkg-even-${i}` : `pkg-odd-${i}`,
        artifactArchitecture: 'x86_64',
        componentName: `component-${i}`,
        aliases: [`CVE-2026-${1000 + i}`],
        author: 'alice',
        events: [{ author: i < 10 ? 'bob' : 'carol', reviewState: 'REVIEW_STATE_APPROVED', detection: { manual: {} } }],
      }));
    }
  });

  it('repos: renamed enums, snake_case sync_config, overlay accounts, Get by uid', async () => {
    const uid = await stack().fixtures.repo(org, {
      name: 'app',
      catalogTier: 'CATALOG_TIER_COMMERCIAL',
      sync_config: { source: `${org}/0123456789abcdef`, expirationTime: '2030-01-01T00:00:00.123Z' },
      customOverlay: { accounts: { runAs: 'app', users: [{ uid: 1000, username: 'app', gid: 1000 }], groups: [{ gid: 1000, groupname: 'app', members: ['app'] }] } },
    });
    const { status, body } = await client().get(`/registry/v2beta1/repos/${uid}`);
    expect(status).toBe(200);
    expect(body.catalogTier).toBe('CATALOG_TIER_COMMERCIAL');
    expect(body.sync_config).toMatchObject({ source: `${org}/0123456789abcdef`, expirationTime: '2030-01-01T00:00:00.123Z' });
    expect(body).not.toHaveProperty('syncConfig');
    expect(body.customOverlay.accounts.users[0]).toMatchObject({ username: 'app', uid: 1000 });
    expect(body.customOverlay.accounts.groups[0]).toMatchObject({ groupname: 'app', members: ['app'] });
    expect(body.createTime).toMatch(TIMESTAMP_MS);
  });

  const tags = (query: Record<string, string | boolean> = {}) => client().get('/registry/v2beta1/tags', { 'uidp.children_of': repo, order_by: 'name', ...query });

  it('tags: referrer, dated and epoch tags are hidden unless asked for', async () => {
    expect((await tags()).body.tags.map((t: any) => t.name)).toEqual(['1.2.3', 'latest']);
    expect((await tags()).body.totalCount).toBe('2');
    expect((await tags({ include_referrers: true })).body.tags.map((t: any) => t.name)).toEqual(['1.2.3', 'latest', 'sha256-abc.sig']);
    expect((await tags({ includeDates: 'true', includeEpochs: 'true' })).body.tags.map((t: any) => t.name)).toEqual(['1.2.3', '1.2.3-r4', 'latest', 'nightly-20260101']);
    const all = await tags({ include_referrers: true, include_dates: true, include_epochs: true, page_size: '2' });
    expect(all.body.totalCount).toBe('5');
    const next = await tags({ include_referrers: true, include_dates: true, include_epochs: true, page_size: '2', page_token: all.body.nextPageToken });
    expect(next.body.tags.map((t: any) => t.name)).toEqual(['latest', 'nightly-20260101']);
  });

  it('tags: v2 shape, name, digest and updated_since filters, Get by uid', async () => {
    const tag = (await tags({ name: 'latest' })).body.tags[0];
    expect(Object.keys(tag).sort()).toEqual(['bundles', 'deprecated', 'digest', 'name', 'uid', 'updateTime']);
    expect(tag).toMatchObject({ name: 'latest', bundles: ['base'], deprecated: false });
    expect(tag.updateTime).toMatch(TIMESTAMP_MS);
    expect(tag.uid.startsWith(`${repo}/`)).toBe(true);
    expect((await tags({ digest: tag.digest })).body.tags.map((t: any) => t.name)).toEqual(['latest']);
    expect((await tags({ updated_since: '2000-01-01T00:00:00Z' })).body.tags).toHaveLength(2);
    expect((await tags({ updated_since: '2999-01-01T00:00:00Z' })).body.tags).toHaveLength(0);
    expect(aip(await tags({ updated_since: 'yesterday' })).byType.BadRequest.fieldViolations[0].field).toBe('updated_since');
    expect((await client().get(`/registry/v2beta1/tags/${tag.uid}`)).body).toEqual(tag);
  });

  it('advisories: renamed fields, enums and nested event fields', async () => {
    const uid = await stack().fixtures.advisory(org, {
      artifactType: 'apk', artifactName: 'renamed', componentName: 'c', author: 'carol',
      events: [
        { author: 'dave', reviewState: 'REVIEW_STATE_REQUEST_CHANGES', falsePositiveDetermination: { type: 'TYPE_COMPONENT_VULNERABILITY_MISMATCH', note: 'n' } },
        { author: 'erin', reviewState: 'REVIEW_STATE_PENDING', detection: { scanv1: { subpackage: 'sp', component: 'cn', scanner: 'grype' } } },
      ],
    });
    const { status, body } = await client().get(`/vulnerabilities/v2beta1/advisories/${uid}`);
    expect(status).toBe(200);
    expect(body).toMatchObject({ uid, artifactName: 'renamed', author: 'carol', severities: [] });
    expect(body.advisoryId).not.toBe('');
    expect(body).not.toHaveProperty('deleteTime');
    expect(body.createTime).toMatch(TIMESTAMP_MS);
    const [fp, detection] = body.events;
    expect(fp).toMatchObject({ author: 'dave', reviewState: 'REVIEW_STATE_REQUEST_CHANGES', falsePositiveDetermination: { type: 'TYPE_COMPONENT_VULNERABILITY_MISMATCH', note: 'n' } });
    expect(fp).not.toHaveProperty('detection');
    expect(fp.uid.startsWith(`${uid}/`)).toBe(true);
    expect(fp.createTime).toMatch(TIMESTAMP_MS);
    expect(detection.detection).toEqual({ scanv1: expect.objectContaining({ subpackage: 'sp', component: 'cn', scanner: 'grype' }) });
  });

  it('advisories: pages walk every advisory once, in order, with skip accumulating', async () => {
    const seen: string[] = [];
    let token: string | undefined;
    do {
      const reply = await client().get('/vulnerabilities/v2beta1/advisories', { 'uidp.children_of': scope, page_size: 7, page_token: token });
      expect(reply.body.totalCount).toBe('30');
      seen.push(...reply.body.advisories.map((a: any) => a.uid));
      token = reply.body.nextPageToken;
    } while (token);
    expect(seen).toEqual([...advisories].sort());
    const first = await client().get('/vulnerabilities/v2beta1/advisories', { 'uidp.children_of': scope, page_size: 5, skip: 5 });
    const second = await client().get('/vulnerabilities/v2beta1/advisories', { 'uidp.children_of': scope, page_size: 5, skip: 5, page_token: first.body.nextPageToken });
    expect(second.body.skipped).toBe(10);
    expect(second.body.advisories.map((a: any) => a.uid)).toEqual([...advisories].sort().slice(15, 20));
  });

  it('advisories: pluralised filters, event filters and the query substring', async () => {
    const byName = await client().get('/vulnerabilities/v2beta1/advisories', { artifact_names: ['pkg-even-0', 'pkg-odd-1'] });
    expect(byName.body.advisories.map((a: any) => a.artifactName).sort()).toEqual(['pkg-even-0', 'pkg-odd-1']);
    const byAuthor = await client().get('/vulnerabilities/v2beta1/advisories', { 'uidp.children_of': scope, event_authors: 'bob', page_size: 50 });
    expect(byAuthor.body.advisories).toHaveLength(10);
    const notBob = await client().get('/vulnerabilities/v2beta1/advisories', { 'uidp.children_of': scope, exclude_event_authors: 'bob', page_size: 50 });
    expect(notBob.body.advisories).toHaveLength(20);
    const bad = await client().get('/vulnerabilities/v2beta1/advisories', { event_review_states: 'APPROVED' });
    expect(bad.status).toBe(400);
    const odd: string[] = [];
    let token: string | undefined;
    do {
      const reply = await client().get('/vulnerabilities/v2beta1/advisories', { 'uidp.children_of': scope, query: 'PKG-ODD', page_size: 4, page_token: token });
      odd.push(...reply.body.advisories.map((a: any) => a.artifactName));
      token = reply.body.nextPageToken;
    } while (token);
    expect(odd).toHaveLength(15);
    expect(odd.every((name) => name.startsWith('pkg-odd-'))).toBe(true);
  });
});
