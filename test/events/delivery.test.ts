/**
 * Native mode's events, end to end: writes through the API (REST and gRPC)
 * reach an HTTPS sink as signed CloudEvents in binary mode, each verified as the
 * platform SDK's receiver verifies (test/support/event-receiver.ts). Every
 * CUSTOMER event of a workflow arrives once, with the type the contract
 * declares and the subject and `group` the platform's types define; reads,
 * failed writes and INTERNAL events send nothing; a sink that is down or
 * answers 5xx gets the same event again later; a sink that refuses (4xx) does not.
 */
import { lookup } from 'node:dns/promises';
import { hostname } from 'node:os';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { isInternalAddress } from '../../src/events/sink.ts';
import { GrpcClient } from '../support/grpc.ts';
import { jwt } from '../support/jwt.ts';
import { describeModes } from '../support/modes.ts';
import { EventReceiver, TEST_CA } from '../support/event-receiver.ts';

const SUBSCRIPTIONS = 'chainguard.platform.events.v2beta1.SubscriptionsService';

const quiet = () => new Promise((r) => setTimeout(r, 600));

describeModes('events delivered from native mode', (stack) => {
  let grpc: GrpcClient;
  let org: string;
  let receiver: EventReceiver;
  const client = () => stack().client;
  beforeAll(async () => {
    grpc = new GrpcClient(stack().url);
    org = (await client().post('/iam/v2beta1/groups', { name: 'events-org' })).body.uid;
    receiver = new EventReceiver(stack().url, org);
    await receiver.start();
  });
  afterAll(async () => {
    grpc?.close();
    await receiver?.stop();
  });

  it('publishes the issuer: discovery names this gateway exactly, and a JWKS of the signing keys', async () => {
    const discovery = (await client().get('/.well-known/openid-configuration')).body;
    expect(discovery.issuer).toBe(stack().url);
    expect(discovery.id_token_signing_alg_values_supported).toEqual(['ES256']);
    const jwks = await (await fetch(discovery.jwks_uri)).json() as { keys: any[] };
    expect(jwks.keys.length).toBeGreaterThan(0);
    expect(jwks.keys.every((k: any) => k.kid && !k.d)).toBe(true);
  });

  it('delivers each CUSTOMER event of a workflow once, typed, with its subject and group; nothing for reads, failures or INTERNAL events', async () => {
    const sub = await grpc.call(SUBSCRIPTIONS, 'CreateSubscription', { parent: org, subscription: { sink: receiver.url } });
    const team = (await client().post(`/iam/v2beta1/groups/${org}`, { name: 'team' })).body;
    await client().patch(`/iam/v2beta1/groups/${team.uid}`, { description: 'the team' });
    const role = (await client().post(`/iam/v2beta1/roles/${team.uid}`, { name: 'reader', capabilities: ['CAP_IAM_GROUPS_LIST'] })).body;
    const identity = (await client().post(`/iam/v2beta1/identities/${org}`, { name: 'ada', claimMatch: { issuer: 'https://issuer.example', subject: 'ada' } })).body;
    // The invite is made where its role is defined: a role of a sub-group cannot be granted above it.
    const invite = (await client().post(`/iam/v2beta1/groupInvites/${team.uid}`, { roleUid: role.uid, ttl: '3600s', email: 'x@example.com' }));
    expect(invite.status).toBe(200);
    // Reads, a refused write and an INTERNAL event: none of them is delivered.
    await client().get(`/iam/v2beta1/groups/${team.uid}`);
    expect((await client().post(`/iam/v2beta1/roles/${team.uid}`, { name: 'reader', capabilities: [] })).status).toBe(400);
    const metadata = await client().call('PATCH', '/iam/v2beta1/identities:updateIdentityMetadata', {
      body: { identityMetadata: { company: 'x' } },
      authorization: `Bearer ${jwt({ iss: 'https://issuer.example', sub: identity.uid })}`,
    });
    expect(metadata.status).toBe(200);
    expect((await client().delete(`/iam/v2beta1/groupInvites/${invite.body.uid}`)).status).toBe(200);
    await client().delete(`/iam/v2beta1/roles/${role.uid}`);
    expect((await client().delete(`/iam/v2beta1/groups/${team.uid}`)).status).toBe(200);

    const events = await receiver.waitFor(9);
    await quiet();
    expect(receiver.refused).toEqual([]);
    const seen = receiver.received.map((e) => [e.type, e.subject, e.extensions.group, e.extensions.bodytype]);
    expect(seen.sort()).toEqual([
      ['dev.chainguard.api.events.subscription.created.v1', sub.uid, org, 'chainguard.platform.events.v2beta1.Subscription'],
      ['dev.chainguard.api.iam.group.created.v1', team.uid, team.uid, 'chainguard.platform.iam.v2beta1.Group'],
      ['dev.chainguard.api.iam.group.deleted.v1', team.uid, org, 'chainguard.platform.iam.v2beta1.DeleteGroupRequest'],
      ['dev.chainguard.api.iam.group.updated.v1', team.uid, team.uid, 'chainguard.platform.iam.v2beta1.Group'],
      ['dev.chainguard.api.iam.group_invite.created.v1', invite.body.uid, team.uid, 'chainguard.platform.iam.v2beta1.GroupInvite'],
      ['dev.chainguard.api.iam.group_invite.deleted.v1', invite.body.uid, team.uid, 'chainguard.platform.iam.v2beta1.DeleteGroupInviteRequest'],
      ['dev.chainguard.api.iam.identity.created.v1', identity.uid, org, 'chainguard.platform.iam.v2beta1.Identity'],
      ['dev.chainguard.api.iam.roles.created.v1', role.uid, team.uid, 'chainguard.platform.iam.v2beta1.Role'],
      ['dev.chainguard.api.iam.roles.deleted.v1', role.uid, team.uid, 'chainguard.platform.iam.v2beta1.DeleteRoleRequest'],
    ].sort());
    expect(new Set(events.map((e) => e.id)).size).toBe(9);
    for (const event of events) {
      expect(event.specversion).toBe('1.0');
      expect(event.source).toBe(stack().url);
      expect(Number.isNaN(Date.parse(event.time))).toBe(false);
      expect(event.contentType).toBe('application/json');
      expect(event.claims.sub).toBe(`webhook:${org}`);
      expect(Object.keys(event.data.actor)).toEqual(['subject']);
    }
    const byType = (type: string) => events.find((e) => e.type === type)!;
    expect(byType('dev.chainguard.api.iam.group.created.v1').data.body).toMatchObject({ uid: team.uid, name: 'team' });
    expect(byType('dev.chainguard.api.iam.group.deleted.v1').data.body).toEqual({ uid: team.uid });
    // The invitation's code, email and role are redacted, as the platform redacts them.
    expect(byType('dev.chainguard.api.iam.group_invite.created.v1').data.body).toEqual({ uid: invite.body.uid, expirationTime: invite.body.expirationTime });
    expect(invite.body.code).toBeTruthy();
  });

  it('retries a sink that is down or answers 5xx, with the same event id, and gives up on a 4xx', async () => {
    const before = receiver.received.length;
    let failures = 2;
    const attempts: string[] = [];
    receiver.answer = (event) => {
      attempts.push(event.id);
      return failures-- > 0 ? 503 : 200;
    };
    const port = await receiver.stop();
    const group = (await client().post(`/iam/v2beta1/groups/${org}`, { name: 'flaky' })).body;
    await new Promise((r) => setTimeout(r, 700));
    await receiver.start(port);
    const [event] = (await receiver.waitFor(before + 1, 20_000)).slice(before);
    expect(event!.subject).toBe(group.uid);
    expect(attempts.length).toBe(3);
    expect(new Set(attempts)).toEqual(new Set([event!.id]));

    receiver.answer = (e) => {
      attempts.push(e.id);
      return 400;
    };
    await client().post(`/iam/v2beta1/groups/${org}`, { name: 'refused' });
    await new Promise((r) => setTimeout(r, 2500));
    expect(attempts.length).toBe(4);
    receiver.answer = () => 200;
    const metrics = (await client().get('/metrics')).text;
    expect(metrics).toMatch(/^v2gw_events_retried_total [1-9]/m);
    expect(metrics).toMatch(/^v2gw_events_failed_total 1$/m);
    expect(metrics).toMatch(/^v2gw_events_pending 0$/m);
  });
}, { modes: ['native', 'native-pg'], flags: ['--events-allow-private-sinks', '--events-poll-ms', '200'], events: { sinkCa: TEST_CA, backoffMs: 200 } });

describeModes('events to a sink whose name resolves to an internal address', (stack) => {
  it('are given up at delivery, never sent, when private sinks are not allowed', async () => {
    // This machine's own name: not a literal address, so the subscription is taken, but it resolves to one of the machine's own.
    const name = hostname();
    const addresses = await lookup(name, { all: true });
    expect(addresses.every((a) => isInternalAddress(a.address)), `${name} resolves to ${JSON.stringify(addresses)}`).toBe(true);
    const org = (await stack().client.post('/iam/v2beta1/groups', { name: 'inside' })).body.uid;
    const receiver = new EventReceiver(stack().url, org);
    await receiver.start();
    try {
      const sub = await stack().client.post(`/events/v2beta1/subscriptions/${org}`, { sink: receiver.url.replace('127.0.0.1', name) });
      expect(sub.status).toBe(200);
      await stack().client.post(`/iam/v2beta1/groups/${org}`, { name: 'team' });
      await new Promise((r) => setTimeout(r, 1500));
      expect(receiver.received).toEqual([]);
      const metrics = (await stack().client.get('/metrics')).text;
      expect(metrics).toMatch(/^v2gw_events_failed_total 2$/m);
      expect(metrics).toMatch(/^v2gw_events_retried_total 0$/m);
    } finally {
      await receiver.stop();
    }
  });
}, { modes: ['native'], flags: ['--events-poll-ms', '200'], events: { sinkCa: TEST_CA, backoffMs: 200 } });
