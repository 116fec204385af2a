/**
 * Cached grants are dropped by a write only: a read-only custom method (one
 * the comparison too counts read-only, contract/read-only.ts) leaves every
 * caller's cache as it was; a write drops it. Seen from outside: a binding
 * removed behind the gateway's back still counts until a write, REST and gRPC.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startIssuer, type RunningIssuer } from '../../src/emulator/issuer/index.ts';
import roleBindings from '../../mappings/role-bindings.ts';
import { GrpcClient } from '../support/grpc.ts';
import { startMode, type ModeStack } from '../support/modes.ts';

const AUDIENCE = 'https://api.v2gw.test';
const GROUPS = 'chainguard.platform.iam.v2beta1.GroupsService';
const ALICE = 'a'.repeat(40);

describe('only writes drop cached grants (REST and gRPC)', () => {
  let issuer: RunningIssuer;
  let stack: ModeStack;
  let grpc: GrpcClient;
  let org: string;
  let bob: string;
  let binding: string;
  const token = async (who: string) => `Bearer ${await issuer.apiToken(who, AUDIENCE)}`;

  beforeAll(async () => {
    issuer = await startIssuer();
    stack = await startMode('native', { flags: ['--auth-issuer', issuer.url, '--auth-audience', AUDIENCE, '--auth-grants-cache-ms', '60000'] });
    grpc = new GrpcClient(stack.url);
    const alice = await token(ALICE);
    org = (await stack.client.post('/iam/v2beta1/groups', { name: 'org' }, { authorization: alice })).body.uid;
    const viewer = (await stack.client.get('/iam/v2beta1/roles', {}, { authorization: alice })).body.roles.find((r: { name: string }) => r.name === 'viewer').uid;
    bob = (await stack.client.post(`/iam/v2beta1/identities/${org}`, { name: 'bob', claimMatch: { issuer: issuer.platform.url, subject: 'bob' } }, { authorization: alice })).body.uid;
    binding = (await stack.client.post(`/iam/v2beta1/roleBindings/${org}`, { identityUid: bob, roleUid: viewer }, { authorization: alice })).body.uid;
    expect(binding).toBeTruthy();
  });
  afterAll(async () => {
    grpc?.close();
    await stack?.close();
    await issuer?.close();
  });

  it('keeps grants across read-only custom methods, and drops them on a write', async () => {
    const bobReads = async () => (await stack.client.get(`/iam/v2beta1/groups/${org}`, {}, { authorization: await token(bob) })).status;
    expect(await bobReads()).toBe(200);
    // Removed behind the gateway's back: only a dropped cache shows it.
    expect(await stack.store!.resources.delete(roleBindings.name, binding)).toBe(true);
    const alice = await token(ALICE);
    expect((await stack.client.get('/iam/v2beta1/groups:checkEligibility', {}, { authorization: alice })).status).toBe(200);
    await grpc.call(GROUPS, 'CheckEligibility', {}, { authorization: alice });
    expect((await stack.client.get('/iam/v2beta1/groups:lookupGroup', { name: 'org' }, { authorization: alice })).status).toBeLessThan(500);
    expect(await bobReads()).toBe(200);
    await grpc.call(GROUPS, 'CreateGroup', { parent: org, group: { name: 'team' } }, { authorization: alice });
    expect(await bobReads()).toBe(403);
  });
});
