/**
 * The spec's whole workflow, as a v2beta1 client runs it, against a gateway
 * whose system of record is the v1 emulator: list, get, filter, create a
 * group, an identity and a role binding, paginate, order, skip, list repos,
 * structured errors, update with and without a mask, clean up.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT_UID, TIMESTAMP_MS, aip, startStack, type Stack } from '../../support/stack.ts';

let stack: Stack;
let org: string;

beforeAll(async () => {
  stack = await startStack({ emulator: { seed: 'demo' } });
  org = stack.emulator.demo!.orgId;
});
afterAll(() => stack.close());

describe('the v2beta1 tutorial workflow over v1', () => {
  const created: { group?: string; identity?: string; binding?: string } = {};

  it('lists the organisation and its groups in the v2 envelope', async () => {
    const { status, body } = await stack.client.get('/iam/v2beta1/groups', { 'uidp.descendants_of': org });
    expect(status).toBe(200);
    expect(Object.keys(body).sort()).toEqual(['groups', 'skipped', 'totalCount']);
    expect(body.totalCount).toBe('2');
    expect(body.skipped).toBe(0);
    for (const group of body.groups) {
      expect(Object.keys(group).sort()).toEqual(['createTime', 'description', 'kind', 'name', 'resourceLimits', 'status', 'uid', 'updateTime', 'verified']);
      expect(group.uid.startsWith(`${org}/`)).toBe(true);
      expect(group.createTime).toMatch(TIMESTAMP_MS);
      expect(group).not.toHaveProperty('id');
      expect(group).not.toHaveProperty('createdAt');
    }
  });

  it('gets the organisation by uid', async () => {
    const { status, body } = await stack.client.get(`/iam/v2beta1/groups/${org}`);
    expect(status).toBe(200);
    expect(body.uid).toBe(org);
    expect(body.uid).toMatch(ROOT_UID);
    expect(body.name).toBe('demo-org');
  });

  it('filters groups by exact name', async () => {
    const { body } = await stack.client.get('/iam/v2beta1/groups', { 'uidp.descendants_of': org, name: 'platform' });
    expect(body.groups.map((g: any) => g.name)).toEqual(['platform']);
  });

  it('creates a group under the organisation', async () => {
    const { status, body } = await stack.client.post(`/iam/v2beta1/groups/${org}`, { name: 'tutorial', description: 'made by the tutorial' });
    expect(status).toBe(200);
    expect(body.uid).toMatch(new RegExp(`^${org}/[0-9a-f]{16}$`));
    expect(body).toMatchObject({ name: 'tutorial', description: 'made by the tutorial', verified: false, resourceLimits: {} });
    expect(body.createTime).toMatch(TIMESTAMP_MS);
    created.group = body.uid;
  });

  it('creates an identity in the new group', async () => {
    const { status, body } = await stack.client.post(`/iam/v2beta1/identities/${created.group}`, {
      name: 'tutorial-bot',
      description: 'CI for the tutorial',
      claimMatch: { issuer: 'https://token.actions.githubusercontent.com', subject: 'repo:demo-org/tutorial:ref:refs/heads/main' },
    });
    expect(status).toBe(200);
    expect(body.uid.startsWith(`${created.group}/`)).toBe(true);
    expect(body.claimMatch).toMatchObject({ issuer: 'https://token.actions.githubusercontent.com', subject: 'repo:demo-org/tutorial:ref:refs/heads/main' });
    expect(body.lastSeenTime).toMatch(TIMESTAMP_MS);
    expect(body).not.toHaveProperty('staticKeys');
    created.identity = body.uid;
  });

  it('finds the built-in viewer role and binds the identity to it', async () => {
    const roles = await stack.client.get('/iam/v2beta1/roles', { name: 'viewer' });
    expect(roles.status).toBe(200);
    const viewer = roles.body.roles.find((r: any) => r.name === 'viewer');
    expect(viewer.uid).toMatch(ROOT_UID);
    expect(viewer.capabilities).toContain('CAP_IAM_GROUPS_LIST');

    const { status, body } = await stack.client.post(`/iam/v2beta1/roleBindings/${created.group}`, {
      identityUid: created.identity,
      roleUid: viewer.uid,
    });
    expect(status).toBe(200);
    expect(body.uid.startsWith(`${created.group}/`)).toBe(true);
    expect(body.identity).toEqual({
      uid: created.identity,
      name: 'tutorial-bot',
      description: 'CI for the tutorial',
      subject: 'repo:demo-org/tutorial:ref:refs/heads/main',
      issuer: 'https://token.actions.githubusercontent.com',
      email: '',
    });
    expect(body.group).toEqual({ uid: created.group, name: 'tutorial', description: 'made by the tutorial' });
    expect(body.role).toEqual({ uid: viewer.uid, name: 'viewer', description: viewer.description });
    expect(body.createTime).toMatch(TIMESTAMP_MS);
    created.binding = body.uid;
  });

  it('paginates with page_size and nextPageToken, newest first', async () => {
    for (const name of ['p-a', 'p-b', 'p-c', 'p-d', 'p-e']) {
      expect((await stack.client.post(`/iam/v2beta1/groups/${created.group}`, { name })).status).toBe(200);
      // createTime has millisecond precision; keep creations in distinct milliseconds so the order is by time, not by the uid tiebreak.
      await new Promise((resolve) => setTimeout(resolve, 3));
    }
    const query = { 'uidp.children_of': created.group, page_size: 2, order_by: 'created_at desc' };
    const first = await stack.client.get('/iam/v2beta1/groups', query);
    expect(first.body.groups.map((g: any) => g.name)).toEqual(['p-e', 'p-d']);
    expect(first.body.totalCount).toBe('5');
    expect(typeof first.body.nextPageToken).toBe('string');
    const second = await stack.client.get('/iam/v2beta1/groups', { ...query, page_token: first.body.nextPageToken });
    expect(second.body.groups.map((g: any) => g.name)).toEqual(['p-c', 'p-b']);
    const third = await stack.client.get('/iam/v2beta1/groups', { ...query, page_token: second.body.nextPageToken });
    expect(third.body.groups.map((g: any) => g.name)).toEqual(['p-a']);
    expect(third.body).not.toHaveProperty('nextPageToken');
  });

  it('orders by name both ways and skips', async () => {
    const asc = await stack.client.get('/iam/v2beta1/groups', { 'uidp.children_of': created.group, order_by: 'name' });
    expect(asc.body.groups.map((g: any) => g.name)).toEqual(['p-a', 'p-b', 'p-c', 'p-d', 'p-e']);
    const desc = await stack.client.get('/iam/v2beta1/groups', { 'uidp.children_of': created.group, order_by: 'name desc', skip: 3 });
    expect(desc.body.groups.map((g: any) => g.name)).toEqual(['p-b', 'p-a']);
    expect(desc.body.skipped).toBe(3);
    expect(desc.body.totalCount).toBe('5');
  });

  it('lists repos in the registry', async () => {
    const { status, body } = await stack.client.get('/registry/v2beta1/repos', { 'uidp.descendants_of': org, order_by: 'name' });
    expect(status).toBe(200);
    expect(body.repos.map((r: any) => r.name)).toEqual(['nginx', 'python']);
    for (const repo of body.repos) {
      expect(repo.catalogTier).toMatch(/^CATALOG_TIER_/);
      expect(repo).not.toHaveProperty('readme');
      expect(repo).toHaveProperty('sync_config');
    }
  });

  it('answers bad input with structured errors', async () => {
    const empty = await stack.client.post(`/iam/v2beta1/groups/${org}`, {});
    expect(empty.status).toBe(400);
    const e1 = aip(empty);
    expect(e1.code).toBe(3);
    expect(e1.message.startsWith('Invalid argument: ')).toBe(true);
    expect(e1.byType.ErrorInfo).toMatchObject({ reason: 'INVALID_ARGUMENT', domain: 'iam.chainguard.dev' });
    expect(e1.byType.BadRequest.fieldViolations.map((v: any) => v.field)).toEqual(['name']);

    const badName = aip(await stack.client.post(`/iam/v2beta1/groups/${org}`, { name: 'Not Valid!' }));
    expect(badName.code).toBe(3);
    expect(badName.byType.BadRequest.fieldViolations[0]).toMatchObject({ field: 'name' });
    expect(badName.message).toContain('name');

    const nonEmpty = await stack.client.delete(`/iam/v2beta1/groups/${created.group}`);
    expect(nonEmpty.status).toBe(400);
    const e2 = aip(nonEmpty);
    expect(e2.code).toBe(9);
    expect(e2.message.startsWith('Precondition failed: ')).toBe(true);
    expect(e2.byType.PreconditionFailure.violations[0].type).toBe('RESOURCE_NOT_EMPTY');

    const anonymous = await stack.client.get('/iam/v2beta1/groups', {}, { authorization: null });
    expect(anonymous.status).toBe(401);
    expect(aip(anonymous).code).toBe(16);

    const missing = await stack.client.get(`/iam/v2beta1/groups/${org}/0123456789abcdef`);
    expect(missing.status).toBe(404);
    expect(aip(missing).code).toBe(5);
  });

  it('updates with and without a field mask', async () => {
    const plain = await stack.client.patch(`/iam/v2beta1/groups/${created.group}`, { description: 'renamed by PATCH' });
    expect(plain.status).toBe(200);
    expect(plain.body).toMatchObject({ name: 'tutorial', description: 'renamed by PATCH' });

    const masked = await stack.client.patch(`/iam/v2beta1/groups/${created.group}`, { name: 'tutorial-2', description: 'ignored' }, { updateMask: 'name' });
    expect(masked.status).toBe(200);
    expect(masked.body).toMatchObject({ name: 'tutorial-2', description: 'renamed by PATCH' });

    const reread = await stack.client.get(`/iam/v2beta1/groups/${created.group}`);
    expect(reread.body).toMatchObject({ name: 'tutorial-2', description: 'renamed by PATCH' });
  });

  it('cleans up: binding, identity, child groups, group', async () => {
    expect((await stack.client.delete(`/iam/v2beta1/roleBindings/${created.binding}`)).status).toBe(200);
    expect((await stack.client.delete(`/iam/v2beta1/identities/${created.identity}`)).status).toBe(200);
    const children = await stack.client.listAll('/iam/v2beta1/groups', 'groups', { 'uidp.children_of': created.group });
    for (const child of children) expect((await stack.client.delete(`/iam/v2beta1/groups/${child.uid}`)).status).toBe(200);
    const gone = await stack.client.delete(`/iam/v2beta1/groups/${created.group}`);
    expect(gone.status).toBe(200);
    expect(gone.body).toEqual({});
    expect((await stack.client.get(`/iam/v2beta1/groups/${created.group}`)).status).toBe(404);
    expect((await stack.client.get(`/iam/v2beta1/identities/${created.identity}`)).status).toBe(404);
  });
});
