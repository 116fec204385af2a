/**
 * Tags and advisories over v1: the inverted tag switches, `lastUpdated` →
 * `updateTime`, the advisory renames (fields, enums, nested event oneofs),
 * pluralised filters, and advisory lists that walk v1's own pages.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TIMESTAMP_MS, aip, startStack, type Stack } from '../../support/stack.ts';

let stack: Stack;
let org: string;

beforeAll(async () => {
  stack = await startStack({ flags: ['--debug-headers'] });
  org = stack.emulator.state.createGroup(null, { name: 'registry-org' }).id;
});
afterAll(() => stack.close());

describe('repo writes over v1', () => {
  it('create asks v1 to refuse a taken name (preventExisting) instead of overwriting that repo', async () => {
    const existing = stack.emulator.state.createRepo(org, { name: 'taken', readme: '# keep me', description: 'v1 row' });
    const refused = await stack.client.post(`/registry/v2beta1/repos/${org}`, { name: 'taken' });
    expect(aip(refused).code).toBe(6);
    expect(stack.emulator.state.listRepos({ id: existing.id })[0]).toMatchObject({ readme: '# keep me', description: 'v1 row' });
  });

  it('PATCH sends back what v1 keeps and v2 does not show: the readme and the output-only sync settings', async () => {
    const synced = stack.emulator.state.createRepo(org, {
      name: 'echo', readme: '# docs', catalogTier: 'BASE',
      sync_config: { source: `${org}/0123456789abcdef`, uniqueTags: true, expiration: '2031-01-01T00:00:00Z', apkoOverlay: 'overlay', gracePeriod: true },
    });
    const patched = await stack.client.patch(`/registry/v2beta1/repos/${synced.id}`, { description: 'patched', sync_config: { source: `${org}/0123456789abcdef`, google: 'g' } });
    expect(patched.status).toBe(200);
    expect(patched.body.sync_config).toMatchObject({ google: 'g', uniqueTags: true, apkoOverlay: 'overlay', gracePeriod: true, expirationTime: '2031-01-01T00:00:00.000Z' });
    expect(stack.emulator.state.listRepos({ id: synced.id })[0]).toMatchObject({
      readme: '# docs', description: 'patched', catalogTier: 'BASE',
      sync_config: { google: 'g', uniqueTags: true, apkoOverlay: 'overlay', gracePeriod: true },
    });
  });
});

describe('the repo readme over v1', () => {
  it('is the v1 row\'s readme; its PATCH is the repo\'s PUT with only readme changed', async () => {
    const repo = stack.emulator.state.createRepo(org, { name: 'docs', readme: '# v1', description: 'kept', bundles: ['b'], sync_config: { source: `${org}/0123456789abcdef`, uniqueTags: true } });
    const before = (await stack.client.get(`/registry/v1/repos`, { id: repo.id })).body.items[0];
    expect((await stack.client.get(`/registry/v2beta1/repos/${repo.id}/readme`)).body).toEqual({ uid: repo.id, content: '# v1' });
    const written = await stack.client.patch(`/registry/v2beta1/repos/${repo.id}/readme`, { content: '# v2' });
    expect(written.body).toEqual({ uid: repo.id, content: '# v2' });
    const after = (await stack.client.get(`/registry/v1/repos`, { id: repo.id })).body.items[0];
    expect(after).toEqual({ ...before, readme: '# v2' });
  });
});

describe('tags', () => {
  let repo: string;
  const names = ['latest', '1.2.3', 'sha256-abc.sig', 'nightly-20260101', '1.2.3-r4'];

  beforeAll(() => {
    repo = stack.emulator.state.createRepo(org, { name: 'tagged' }).id;
    names.forEach((name, i) => stack.emulator.state.createTag(repo, { name, digest: `sha256:${String(i).repeat(64)}`, bundles: i === 0 ? ['base'] : [] }));
  });

  const list = (query: Record<string, string | boolean> = {}) =>
    stack.client.get('/registry/v2beta1/tags', { 'uidp.children_of': repo, order_by: 'name', ...query });

  it('hide referrer, dated and epoch tags unless asked to include them (v1 is told to exclude them)', async () => {
    expect((await list()).body.tags.map((t: any) => t.name)).toEqual(['1.2.3', 'latest']);
    expect((await list({ include_referrers: true })).body.tags.map((t: any) => t.name)).toEqual(['1.2.3', 'latest', 'sha256-abc.sig']);
    expect((await list({ includeDates: 'true', includeEpochs: 'true' })).body.tags.map((t: any) => t.name))
      .toEqual(['1.2.3', '1.2.3-r4', 'latest', 'nightly-20260101']);
    const all = await list({ include_referrers: true, include_dates: true, include_epochs: true });
    expect(all.body.totalCount).toBe('5');
  });

  it('render lastUpdated as updateTime, filter by name, digest and updated_since, and Get by uid', async () => {
    const { body } = await list({ name: 'latest' });
    const tag = body.tags[0];
    expect(Object.keys(tag).sort()).toEqual(['bundles', 'deprecated', 'digest', 'name', 'uid', 'updateTime']);
    expect(tag).toMatchObject({ name: 'latest', bundles: ['base'], deprecated: false });
    expect(tag.updateTime).toMatch(TIMESTAMP_MS);
    expect(tag.uid.startsWith(`${repo}/`)).toBe(true);

    expect((await list({ digest: tag.digest })).body.tags.map((t: any) => t.name)).toEqual(['latest']);
    expect((await list({ updated_since: '2000-01-01T00:00:00Z' })).body.tags).toHaveLength(2);
    expect((await list({ updated_since: '2999-01-01T00:00:00Z' })).body.tags).toHaveLength(0);
    const bad = await list({ updated_since: 'yesterday' });
    expect(aip(bad).byType.BadRequest.fieldViolations[0].field).toBe('updated_since');

    const got = await stack.client.get(`/registry/v2beta1/tags/${tag.uid}`);
    expect(got.body).toEqual(tag);
  });

  it('are created through v1, a taken name replacing that tag in place (CreateTag is an upsert)', async () => {
    const digest = `sha256:${'a'.repeat(64)}`;
    const made = await stack.client.post(`/registry/v2beta1/tags/${repo}`, { name: 'upsert', digest, bundles: ['x'] });
    expect(made.status).toBe(200);
    const again = await stack.client.post(`/registry/v2beta1/tags/${repo}`, { name: 'upsert', digest: `sha256:${'b'.repeat(64)}` });
    expect(again.body).toMatchObject({ uid: made.body.uid, digest: `sha256:${'b'.repeat(64)}`, bundles: [] });
    expect(stack.emulator.state.listTags({ name: 'upsert' }).map((t: any) => [t.id, t.digest])).toEqual([[made.body.uid, again.body.digest]]);
    expect((await stack.client.delete(`/registry/v2beta1/tags/${made.body.uid}`)).body).toEqual({});
    expect(stack.emulator.state.listTags({ name: 'upsert' })).toEqual([]);
  });

  it('are served under the GA prefix /registry/v2 too', async () => {
    const ga = await stack.client.get('/registry/v2/tags', { 'uidp.children_of': repo, order_by: 'name' });
    expect(ga.body.tags.map((t: any) => t.name)).toEqual(['1.2.3', 'latest']);
  });
});

describe('advisories', () => {
  let scope: string;
  const made: string[] = [];

  beforeAll(() => {
    scope = stack.emulator.state.createGroup(org, { name: 'advisories' }).id;
    for (let i = 0; i < 130; i++) {
      made.push(stack.emulator.state.createAdvisory(scope, {
        artifactType: 'apk',
        artifactName: i % 2 === 0 ? `pkg-even-${i}` : `pkg-odd-${i}`,
        artifactArchitecture: 'x86_64',
        componentName: `component-${i}`,
        componentType: 'go-module',
        componentLocation: '/usr/bin/x',
        aliases: [`CVE-2026-${1000 + i}`],
        author: 'alice',
        events: [{ author: 'bob', status: 'APPROVED', detection: { scanv1: { scanner: 'grype', subpackageName: 'sub', componentName: 'comp' } } }],
      }).id);
    }
  });

  it('rename fields, enums and nested event fields', async () => {
    const id = stack.emulator.state.createAdvisory(org, {
      artifactType: 'apk', artifactName: 'renamed', componentName: 'c', legacyAdvisoryID: 'LEGACY-1', author: 'carol',
      events: [
        { author: 'dave', status: 'REQUEST_CHANGES', falsePositiveDetermination: { type: 'COMPONENT_VULNERABILITY_MISMATCH', note: 'n' } },
        { author: 'erin', status: 'PENDING', detection: { scanv1: { subpackageName: 'sp', componentName: 'cn', scanner: 'grype' } } },
      ],
    }).id;
    const { status, body } = await stack.client.get(`/vulnerabilities/v2beta1/advisories/${id}`);
    expect(status).toBe(200);
    expect(body).toMatchObject({ uid: id, artifactName: 'renamed', legacyAdvisoryId: 'LEGACY-1', author: 'carol', severities: [] });
    expect(body).not.toHaveProperty('legacyAdvisoryID');
    expect(body).not.toHaveProperty('deleteTime');
    expect(body.createTime).toMatch(TIMESTAMP_MS);
    const [fp, detection] = body.events;
    expect(fp).toMatchObject({ author: 'dave', reviewState: 'REVIEW_STATE_REQUEST_CHANGES', falsePositiveDetermination: { type: 'TYPE_COMPONENT_VULNERABILITY_MISMATCH', note: 'n' } });
    expect(fp).not.toHaveProperty('status');
    expect(fp).not.toHaveProperty('detection');
    expect(fp.createTime).toMatch(TIMESTAMP_MS);
    expect(detection.detection).toEqual({ scanv1: expect.objectContaining({ subpackage: 'sp', component: 'cn', scanner: 'grype' }) });
  });

  it('walk v1 pages: every advisory once across pages, in order, with v1’s count', async () => {
    const seen: string[] = [];
    let token: string | undefined;
    let calls = 0;
    do {
      const reply = await stack.client.get('/vulnerabilities/v2beta1/advisories', { 'uidp.children_of': scope, page_size: 40, page_token: token });
      expect(reply.status).toBe(200);
      expect(reply.body.totalCount).toBe('130');
      calls = Math.max(calls, Number(reply.headers.get('x-v2gw-v1-calls')));
      seen.push(...reply.body.advisories.map((a: any) => a.uid));
      token = reply.body.nextPageToken;
    } while (token);
    expect(seen).toEqual([...made].sort());
    // A page of 40 never needs more than the v1 page it starts in and the next one.
    expect(calls).toBeLessThanOrEqual(2);
  });

  it('map order_by onto v1’s order enum, and refuse an order v1 cannot give', async () => {
    const desc = await stack.client.get('/vulnerabilities/v2beta1/advisories', { 'uidp.children_of': scope, order_by: 'uid desc', page_size: 3 });
    expect(desc.body.advisories.map((a: any) => a.uid)).toEqual([...made].sort().reverse().slice(0, 3));
    const two = await stack.client.get('/vulnerabilities/v2beta1/advisories', { order_by: 'createTime desc, updateTime' });
    expect(aip(two).byType.BadRequest.fieldViolations[0].field).toBe('order_by');
  });

  it('send pluralised filters under v1’s names, and apply query here, paging through what it keeps', async () => {
    const byName = await stack.client.get('/vulnerabilities/v2beta1/advisories', { artifact_names: ['pkg-even-0', 'pkg-odd-1'] });
    expect(byName.body.advisories.map((a: any) => a.artifactName).sort()).toEqual(['pkg-even-0', 'pkg-odd-1']);
    const byState = await stack.client.get('/vulnerabilities/v2beta1/advisories', { 'uidp.children_of': scope, event_review_states: 'REVIEW_STATE_APPROVED', page_size: 1 });
    expect(byState.body.totalCount).toBe('130');
    const badState = await stack.client.get('/vulnerabilities/v2beta1/advisories', { event_review_states: 'APPROVED' });
    expect(badState.status).toBe(400);

    const odd: string[] = [];
    let token: string | undefined;
    do {
      const reply = await stack.client.get('/vulnerabilities/v2beta1/advisories', { 'uidp.children_of': scope, query: 'PKG-ODD', page_size: 50, page_token: token });
      // v1 cannot count what only the gateway filters, and totalCount is optional in v2.
      expect(reply.body).not.toHaveProperty('totalCount');
      odd.push(...reply.body.advisories.map((a: any) => a.artifactName));
      token = reply.body.nextPageToken;
    } while (token);
    expect(odd).toHaveLength(65);
    expect(odd.every((name) => name.startsWith('pkg-odd-'))).toBe(true);
  });

  it('skip, with a token, accumulates', async () => {
    const first = await stack.client.get('/vulnerabilities/v2beta1/advisories', { 'uidp.children_of': scope, page_size: 10, skip: 5 });
    expect(first.body.skipped).toBe(5);
    expect(first.body.advisories.map((a: any) => a.uid)).toEqual([...made].sort().slice(5, 15));
    const second = await stack.client.get('/vulnerabilities/v2beta1/advisories', { 'uidp.children_of': scope, page_size: 10, skip: 5, page_token: first.body.nextPageToken });
    expect(second.body.skipped).toBe(10);
    expect(second.body.advisories.map((a: any) => a.uid)).toEqual([...made].sort().slice(20, 30));
  });

  it('a page token is bound to its query', async () => {
    const first = await stack.client.get('/vulnerabilities/v2beta1/advisories', { 'uidp.children_of': scope, page_size: 10 });
    const replay = await stack.client.get('/vulnerabilities/v2beta1/advisories', { 'uidp.children_of': scope, page_size: 10, order_by: 'uid desc', page_token: first.body.nextPageToken });
    expect(aip(replay).byType.BadRequest.fieldViolations[0].field).toBe('page_token');
  });

  it('are served under /vulnerabilities/v2 too', async () => {
    const reply = await stack.client.get('/vulnerabilities/v2/advisories', { 'uidp.children_of': scope, page_size: 1 });
    expect(reply.body.advisories).toHaveLength(1);
  });
});
