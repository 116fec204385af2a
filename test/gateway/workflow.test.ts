/**
 * The spec's whole workflow as a v2beta1 client runs it over REST, in every
 * mode (translate over the v1 emulator, native on SQLite, native on
 * PostgreSQL) and over both HTTP versions the port speaks (HTTP/1.1, and h2c
 * by prior knowledge): create an organisation, groups, an identity and a role
 * binding; list, get, filter, paginate, order, skip; list repos; structured
 * errors; update with and without a mask; clean up.
 */
import { afterAll, expect, it } from 'vitest';
import { ALL_MODES, describeModes } from '../support/modes.ts';
import { Client, ROOT_UID, TIMESTAMP_MS, aip } from '../support/stack.ts';

const HTTP_VERSIONS = ['HTTP/1.1', 'HTTP/2'] as const;

for (const http of HTTP_VERSIONS) {
  describeModes(`the v2beta1 tutorial workflow over REST (${http})`, (stack) => {
    const ids: { org?: string; group?: string; identity?: string; binding?: string } = {};
    let h2: Client | undefined;
    const client = () => (http === 'HTTP/2' ? (h2 ??= new Client(stack().url, { http2: true })) : stack().client);
    afterAll(() => h2?.close());

    it(`speaks ${http} to the gateway`, async () => {
      const { status, headers } = await client().get('/iam/v2beta1/roles', { name: 'viewer' });
      expect(status).toBe(200);
      // HTTP/2 forbids connection-specific headers; an HTTP/1.1 answer on a kept-alive socket names it.
      expect(headers.get('connection')).toBe(http === 'HTTP/2' ? null : 'keep-alive');
    });

    it('creates an organisation (a root group) and groups under it', async () => {
      const org = await client().post('/iam/v2beta1/groups', { name: 'demo-org', description: 'the tutorial org' });
      expect(org.status).toBe(200);
      expect(org.body.uid).toMatch(ROOT_UID);
      expect(org.body).toMatchObject({ name: 'demo-org', description: 'the tutorial org', verified: false, resourceLimits: {} });
      ids.org = org.body.uid;
      for (const name of ['platform', 'apps']) expect((await client().post(`/iam/v2beta1/groups/${ids.org}`, { name })).status).toBe(200);
    });

    it('lists the organisation\'s groups in the v2 envelope, every field present, renamed and no v1 name left', async () => {
      const { status, body } = await client().get('/iam/v2beta1/groups', { 'uidp.descendants_of': ids.org });
      expect(status).toBe(200);
      expect(Object.keys(body).sort()).toEqual(['groups', 'skipped', 'totalCount']);
      expect(body.totalCount).toBe('2');
      expect(body.skipped).toBe(0);
      for (const group of body.groups) {
        expect(Object.keys(group).sort()).toEqual(['createTime', 'description', 'kind', 'name', 'resourceLimits', 'status', 'uid', 'updateTime', 'verified']);
        expect(group.uid.startsWith(`${ids.org}/`)).toBe(true);
        expect(group.createTime).toMatch(TIMESTAMP_MS);
        expect(group.updateTime).toMatch(TIMESTAMP_MS);
        expect(group).not.toHaveProperty('id');
        expect(group).not.toHaveProperty('createdAt');
      }
    });

    it('gets the organisation by uid', async () => {
      const { status, body } = await client().get(`/iam/v2beta1/groups/${ids.org}`);
      expect(status).toBe(200);
      expect(body.uid).toBe(ids.org);
      expect(body.uid).toMatch(ROOT_UID);
      expect(body.name).toBe('demo-org');
    });

    it('filters groups by exact name', async () => {
      const { body } = await client().get('/iam/v2beta1/groups', { 'uidp.descendants_of': ids.org, name: 'platform' });
      expect(body.groups.map((g: any) => g.name)).toEqual(['platform']);
    });

    it('creates a group under the organisation', async () => {
      const { status, body } = await client().post(`/iam/v2beta1/groups/${ids.org}`, { name: 'tutorial', description: 'made by the tutorial' });
      expect(status).toBe(200);
      expect(body.uid).toMatch(new RegExp(`^${ids.org}/[0-9a-f]{16}$`));
      expect(body).toMatchObject({ name: 'tutorial', description: 'made by the tutorial', verified: false, resourceLimits: {} });
      expect(body.createTime).toMatch(TIMESTAMP_MS);
      ids.group = body.uid;
    });

    it('creates an identity in the new group', async () => {
      const { status, body } = await client().post(`/iam/v2beta1/identities/${ids.group}`, {
        name: 'tutorial-bot',
        description: 'CI for the tutorial',
        claimMatch: { issuer: 'https://token.actions.githubusercontent.com', subject: 'repo:demo-org/tutorial:ref:refs/heads/main' },
      });
      expect(status).toBe(200);
      expect(body.uid.startsWith(`${ids.group}/`)).toBe(true);
      expect(body.claimMatch).toMatchObject({ issuer: 'https://token.actions.githubusercontent.com', subject: 'repo:demo-org/tutorial:ref:refs/heads/main' });
      expect(body.lastSeenTime).toMatch(TIMESTAMP_MS);
      expect(body).not.toHaveProperty('staticKeys');
      ids.identity = body.uid;
    });

    it('finds the built-in viewer role and binds the identity to it, hydrated', async () => {
      const roles = await client().get('/iam/v2beta1/roles', { name: 'viewer' });
      expect(roles.status).toBe(200);
      const viewer = roles.body.roles.find((r: any) => r.name === 'viewer');
      expect(viewer.uid).toMatch(ROOT_UID);
      expect(viewer.capabilities).toContain('CAP_IAM_GROUPS_LIST');

      const { status, body } = await client().post(`/iam/v2beta1/roleBindings/${ids.group}`, { identityUid: ids.identity, roleUid: viewer.uid });
      expect(status).toBe(200);
      expect(body.uid.startsWith(`${ids.group}/`)).toBe(true);
      expect(body.identity).toEqual({
        uid: ids.identity,
        name: 'tutorial-bot',
        description: 'CI for the tutorial',
        subject: 'repo:demo-org/tutorial:ref:refs/heads/main',
        issuer: 'https://token.actions.githubusercontent.com',
        email: '',
      });
      expect(body.group).toEqual({ uid: ids.group, name: 'tutorial', description: 'made by the tutorial' });
      expect(body.role).toEqual({ uid: viewer.uid, name: 'viewer', description: viewer.description });
      expect(body.createTime).toMatch(TIMESTAMP_MS);
      ids.binding = body.uid;
    });

    it('paginates with page_size and nextPageToken, newest first', async () => {
      for (const name of ['p-a', 'p-b', 'p-c', 'p-d', 'p-e']) {
        expect((await client().post(`/iam/v2beta1/groups/${ids.group}`, { name })).status).toBe(200);
        // Millisecond timestamps: keep creations apart so the order is by time, not by the uid tiebreak.
        await new Promise((resolve) => setTimeout(resolve, 3));
      }
      const query = { 'uidp.children_of': ids.group, page_size: 2, order_by: 'created_at desc' };
      const first = await client().get('/iam/v2beta1/groups', query);
      expect(first.body.groups.map((g: any) => g.name)).toEqual(['p-e', 'p-d']);
      expect(first.body.totalCount).toBe('5');
      expect(typeof first.body.nextPageToken).toBe('string');
      const second = await client().get('/iam/v2beta1/groups', { ...query, page_token: first.body.nextPageToken });
      expect(second.body.groups.map((g: any) => g.name)).toEqual(['p-c', 'p-b']);
      const third = await client().get('/iam/v2beta1/groups', { ...query, page_token: second.body.nextPageToken });
      expect(third.body.groups.map((g: any) => g.name)).toEqual(['p-a']);
      expect(third.body).not.toHaveProperty('nextPageToken');
    });

    it('orders by name both ways and skips', async () => {
      const asc = await client().get('/iam/v2beta1/groups', { 'uidp.children_of': ids.group, order_by: 'name' });
      expect(asc.body.groups.map((g: any) => g.name)).toEqual(['p-a', 'p-b', 'p-c', 'p-d', 'p-e']);
      const desc = await client().get('/iam/v2beta1/groups', { 'uidp.children_of': ids.group, order_by: 'name desc', skip: 3 });
      expect(desc.body.groups.map((g: any) => g.name)).toEqual(['p-b', 'p-a']);
      expect(desc.body.skipped).toBe(3);
      expect(desc.body.totalCount).toBe('5');
    });

    it('lists repos in the registry', async () => {
      await stack().fixtures.repo(ids.org!, { name: 'python', catalogTier: 'CATALOG_TIER_BASE' });
      await stack().fixtures.repo(ids.org!, { name: 'nginx', catalogTier: 'CATALOG_TIER_APPLICATION' });
      const { status, body } = await client().get('/registry/v2beta1/repos', { 'uidp.descendants_of': ids.org, order_by: 'name' });
      expect(status).toBe(200);
      expect(body.repos.map((r: any) => [r.name, r.catalogTier])).toEqual([['nginx', 'CATALOG_TIER_APPLICATION'], ['python', 'CATALOG_TIER_BASE']]);
      for (const repo of body.repos) {
        expect(repo.catalogTier).toMatch(/^CATALOG_TIER_/);
        expect(repo).not.toHaveProperty('readme');
        expect(repo).toHaveProperty('sync_config');
      }
    });

    it('answers bad input with structured errors', async () => {
      const empty = await client().post(`/iam/v2beta1/groups/${ids.org}`, {});
      expect(empty.status).toBe(400);
      const e1 = aip(empty);
      expect(e1.code).toBe(3);
      expect(e1.message.startsWith('Invalid argument: ')).toBe(true);
      expect(e1.byType.ErrorInfo).toMatchObject({ reason: 'INVALID_ARGUMENT', domain: 'iam.chainguard.dev' });
      expect(e1.byType.BadRequest.fieldViolations.map((v: any) => v.field)).toEqual(['name']);

      const badName = aip(await client().post(`/iam/v2beta1/groups/${ids.org}`, { name: 'Not Valid!' }));
      expect(badName.code).toBe(3);
      expect(badName.byType.BadRequest.fieldViolations[0]).toMatchObject({ field: 'name' });
      expect(badName.message).toContain('name');

      const nonEmpty = await client().delete(`/iam/v2beta1/groups/${ids.group}`);
      expect(nonEmpty.status).toBe(400);
      const e2 = aip(nonEmpty);
      expect(e2.code).toBe(9);
      expect(e2.message.startsWith('Precondition failed: ')).toBe(true);
      expect(e2.byType.PreconditionFailure.violations[0].type).toBe('RESOURCE_NOT_EMPTY');

      const anonymous = await client().get('/iam/v2beta1/groups', {}, { authorization: null });
      expect(anonymous.status).toBe(401);
      expect(aip(anonymous).code).toBe(16);

      const missing = await client().get(`/iam/v2beta1/groups/${ids.org}/0123456789abcdef`);
      expect(missing.status).toBe(404);
      expect(aip(missing).code).toBe(5);
    });

    it('updates with and without a field mask', async () => {
      const plain = await client().patch(`/iam/v2beta1/groups/${ids.group}`, { description: 'renamed by PATCH' });
      expect(plain.status).toBe(200);
      expect(plain.body).toMatchObject({ name: 'tutorial', description: 'renamed by PATCH' });
      const masked = await client().patch(`/iam/v2beta1/groups/${ids.group}`, { name: 'tutorial-2', description: 'ignored' }, { updateMask: 'name' });
      expect(masked.status).toBe(200);
      expect(masked.body).toMatchObject({ name: 'tutorial-2', description: 'renamed by PATCH' });
      const reread = await client().get(`/iam/v2beta1/groups/${ids.group}`);
      expect(reread.body).toMatchObject({ name: 'tutorial-2', description: 'renamed by PATCH' });
    });

    it('cleans up: binding, identity, child groups, group', async () => {
      expect((await client().delete(`/iam/v2beta1/roleBindings/${ids.binding}`)).status).toBe(200);
      expect((await client().delete(`/iam/v2beta1/identities/${ids.identity}`)).status).toBe(200);
      const children = await client().listAll('/iam/v2beta1/groups', 'groups', { 'uidp.children_of': ids.group });
      for (const child of children) expect((await client().delete(`/iam/v2beta1/groups/${child.uid}`)).status).toBe(200);
      const gone = await client().delete(`/iam/v2beta1/groups/${ids.group}`);
      expect(gone.status).toBe(200);
      expect(gone.body).toEqual({});
      expect((await client().get(`/iam/v2beta1/groups/${ids.group}`)).status).toBe(404);
      expect((await client().get(`/iam/v2beta1/identities/${ids.identity}`)).status).toBe(404);
    });
  }, { modes: ALL_MODES });
}
