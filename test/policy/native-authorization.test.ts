/**
 * Native mode with an issuer authorizes from the contract: capabilities at
 * the request's scope group, granted by role bindings there or above; the
 * creator of an organisation owns it; refusals come before existence; Lists
 * and their counts show only what the caller may see. REST and gRPC.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { authenticatedNative } from '../support/authenticated-native.ts';
import { rejected } from '../support/grpc.ts';
import { aip } from '../support/stack.ts';

const GROUPS = 'chainguard.platform.iam.v2beta1.GroupsService';
const ALICE = 'a'.repeat(40);
const CAROL = 'e'.repeat(40);
const DAVE = 'd'.repeat(40);

describe.each(['native', 'native-pg'] as const)('native mode authorizes (REST and gRPC) [%s]', (mode) => {
  const gateway = authenticatedNative(mode);
  const { as, call } = gateway;
  let org: string;
  let team: string;
  let sibling: string;
  let bob: string;
  let viewerBinding: string;
  let roles: { viewer: string; owner: string };

  beforeAll(async () => {
    const created = await call(ALICE, 'POST', '/iam/v2beta1/groups', { body: { name: 'alice-org' } });
    expect(created.status).toBe(200);
    org = created.body.uid;
    team = (await call(ALICE, 'POST', `/iam/v2beta1/groups/${org}`, { body: { name: 'team' } })).body.uid;
    sibling = (await call(CAROL, 'POST', '/iam/v2beta1/groups', { body: { name: 'carol-org' } })).body.uid;
    const listed = (await call(ALICE, 'GET', '/iam/v2beta1/roles')).body.roles as { uid: string; name: string }[];
    roles = { viewer: listed.find((r) => r.name === 'viewer')!.uid, owner: listed.find((r) => r.name === 'owner')!.uid };
    bob = (await call(ALICE, 'POST', `/iam/v2beta1/identities/${org}`, { body: { name: 'bob', claimMatch: { issuer: gateway.issuer.platform.url, subject: 'bob' } } })).body.uid;
    const binding = await call(ALICE, 'POST', `/iam/v2beta1/roleBindings/${org}`, { body: { identityUid: bob, roleUid: roles.viewer } });
    expect(binding.status).toBe(200);
    viewerBinding = binding.body.uid;
  });
  it("binds an organisation's creator as its owner", async () => {
    const bindings = (await call(ALICE, 'GET', '/iam/v2beta1/roleBindings', { query: { 'uidp.children_of': org } })).body.roleBindings;
    expect(bindings).toContainEqual(expect.objectContaining({ role: expect.objectContaining({ uid: roles.owner, name: 'owner' }), group: expect.objectContaining({ uid: org }) }));
    expect((await call(ALICE, 'DELETE', `/iam/v2beta1/groups/${team}`)).status).toBe(200);
    team = (await call(ALICE, 'POST', `/iam/v2beta1/groups/${org}`, { body: { name: 'team' } })).body.uid;
  });

  it('lets a viewer read the organisation and what is under it (the binding applies to descendants)', async () => {
    expect((await call(bob, 'GET', `/iam/v2beta1/groups/${org}`)).status).toBe(200);
    expect((await call(bob, 'GET', `/iam/v2beta1/groups/${team}`)).status).toBe(200);
    expect(await gateway.grpc.call(GROUPS, 'GetGroup', { uid: team }, { authorization: await as(bob) })).toMatchObject({ uid: team });
  });

  it('refuses a viewer a create, and binding itself owner (PERMISSION_DENIED, nothing written)', async () => {
    const create = await call(bob, 'POST', `/iam/v2beta1/groups/${org}`, { body: { name: 'mine' } });
    expect(create.status).toBe(403);
    expect(aip(create).byType.ErrorInfo.reason).toBe('PERMISSION_DENIED');
    const escalate = await call(bob, 'POST', `/iam/v2beta1/roleBindings/${org}`, { body: { identityUid: bob, roleUid: roles.owner } });
    expect(escalate.status).toBe(403);
    expect((await rejected(gateway.grpc.call(GROUPS, 'CreateGroup', { parent: org, group: { name: 'mine' } }, { authorization: await as(bob) }))).code).toBe(7);
    const names = (await call(ALICE, 'GET', '/iam/v2beta1/groups', { query: { 'uidp.children_of': org } })).body.groups.map((g: { name: string }) => g.name);
    expect(names).toEqual(['team']);
  });

  it("refuses a viewer a sibling organisation, and a stranger cannot tell a missing uid from a forbidden one", async () => {
    expect((await call(bob, 'GET', `/iam/v2beta1/groups/${sibling}`)).status).toBe(403);
    for (const who of [bob, DAVE]) {
      const existing = await call(who, 'GET', `/iam/v2beta1/groups/${sibling}`);
      const missing = await call(who, 'GET', `/iam/v2beta1/groups/${sibling}/0123456789abcdef`);
      const missingRoot = await call(who, 'GET', `/iam/v2beta1/groups/${'f'.repeat(40)}`);
      expect([existing.status, missing.status, missingRoot.status]).toEqual([403, 403, 403]);
      expect(aip(missing).byType.ErrorInfo.reason).toBe(aip(existing).byType.ErrorInfo.reason);
    }
    const grpcExisting = await rejected(gateway.grpc.call(GROUPS, 'GetGroup', { uid: sibling }, { authorization: await as(DAVE) }));
    const grpcMissing = await rejected(gateway.grpc.call(GROUPS, 'GetGroup', { uid: `${sibling}/0123456789abcdef` }, { authorization: await as(DAVE) }));
    expect([grpcExisting.code, grpcMissing.code]).toEqual([7, 7]);
  });

  it('filters unscoped Lists and their totalCount to what the caller may see', async () => {
    const bobs = (await call(bob, 'GET', '/iam/v2beta1/groups')).body;
    expect(bobs.groups.map((g: { uid: string }) => g.uid).sort()).toEqual([org, team].sort());
    expect(bobs.totalCount).toBe('2');
    const carols = (await call(CAROL, 'GET', '/iam/v2beta1/groups')).body;
    expect(carols.groups.map((g: { uid: string }) => g.uid)).toEqual([sibling]);
    expect(carols.totalCount).toBe('1');
    const daves = (await call(DAVE, 'GET', '/iam/v2beta1/groups', { query: { 'uidp.descendants_of': org } })).body;
    expect(daves).toMatchObject({ totalCount: '0' });
    expect(daves.groups ?? []).toEqual([]);
    const grpcList = await gateway.grpc.call(GROUPS, 'ListGroups', {}, { authorization: await as(CAROL) });
    expect(grpcList).toMatchObject({ totalCount: '1', groups: [{ uid: sibling }] });
    // The built-in roles are every caller's to read; no one else's custom roles are.
    const strangerRoles = (await call(DAVE, 'GET', '/iam/v2beta1/roles')).body.roles.map((r: { name: string }) => r.name).sort();
    expect(strangerRoles).toEqual(['editor', 'owner', 'viewer']);
    expect((await call(DAVE, 'GET', `/iam/v2beta1/roles/${roles.viewer}`)).status).toBe(200);
  });

  it('grants nothing through a page token: a page of another caller\'s walk is read with the reader\'s rights', async () => {
    const first = (await call(ALICE, 'GET', '/iam/v2beta1/groups', { query: { page_size: 1, order_by: 'name' } })).body;
    expect(first.nextPageToken).toBeTruthy();
    const borrowed = await call(DAVE, 'GET', '/iam/v2beta1/groups', { query: { page_size: 1, order_by: 'name', page_token: first.nextPageToken } });
    expect(borrowed.body.groups ?? []).toEqual([]);
    expect(borrowed.body.totalCount).toBe('0');
  });

  it('authorizes event subscriptions as any resource: a viewer lists but cannot create or delete, a stranger sees none; refusal before the sink is judged', async () => {
    const made = await call(ALICE, 'POST', `/events/v2beta1/subscriptions/${org}`, { body: { sink: 'https://hooks.example.com/alice' } });
    expect(made.status).toBe(200);
    const listed = await call(bob, 'GET', '/events/v2beta1/subscriptions', { query: { 'uidp.children_of': org } });
    expect(listed.body.subscriptions.map((s: { uid: string }) => s.uid)).toEqual([made.body.uid]);
    expect((await call(bob, 'GET', `/events/v2beta1/subscriptions/${made.body.uid}`)).status).toBe(200);
    expect((await call(bob, 'POST', `/events/v2beta1/subscriptions/${org}`, { body: { sink: 'https://hooks.example.com/bob' } })).status).toBe(403);
    // A private sink from a caller who may not create one is PERMISSION_DENIED, not a judgement of the sink.
    expect((await call(bob, 'POST', `/events/v2beta1/subscriptions/${org}`, { body: { sink: 'https://127.0.0.1/' } })).status).toBe(403);
    expect((await call(bob, 'DELETE', `/events/v2beta1/subscriptions/${made.body.uid}`)).status).toBe(403);
    expect((await call(DAVE, 'GET', '/events/v2beta1/subscriptions')).body.subscriptions ?? []).toEqual([]);
    expect((await call(DAVE, 'GET', `/events/v2beta1/subscriptions/${made.body.uid}`)).status).toBe(403);
    expect((await call(ALICE, 'GET', `/events/v2beta1/subscriptions/${made.body.uid}`)).status).toBe(200);
  });

  it("applies a change of the caller's bindings made through the gateway at once", async () => {
    expect((await call(bob, 'GET', `/iam/v2beta1/groups/${org}`)).status).toBe(200);
    expect((await call(ALICE, 'DELETE', `/iam/v2beta1/roleBindings/${viewerBinding}`)).status).toBe(200);
    expect((await call(bob, 'GET', `/iam/v2beta1/groups/${org}`)).status).toBe(403);
    expect((await call(bob, 'GET', '/iam/v2beta1/groups')).body.totalCount).toBe('0');
  });
});
