/**
 * The Subscriptions API (events v2beta1), over REST and gRPC, in every mode:
 * translate mode over v1's `/events/v1/subscriptions` (a Get is v1's List by
 * id), native mode from the store. Sinks must be https URLs; one naming a
 * loopback, link-local or private address is refused unless the deployment
 * allows private sinks.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { GrpcClient } from '../support/grpc.ts';
import { ALL_MODES, describeModes } from '../support/modes.ts';
import { aip } from '../support/stack.ts';

const SERVICE = 'chainguard.platform.events.v2beta1.SubscriptionsService';

describeModes('event subscriptions', (stack) => {
  let grpc: GrpcClient;
  let org: string;
  let team: string;
  const client = () => stack().client;
  beforeAll(async () => {
    grpc = new GrpcClient(stack().url);
    org = (await client().post('/iam/v2beta1/groups', { name: 'hooks-org' })).body.uid;
    team = (await client().post(`/iam/v2beta1/groups/${org}`, { name: 'team' })).body.uid;
  });
  afterAll(() => grpc?.close());

  it('creates, gets, lists and deletes a subscription under a group, over REST and gRPC', async () => {
    const made = await client().post(`/events/v2beta1/subscriptions/${org}`, { sink: 'https://hooks.example.com/a' });
    expect(made.status).toBe(200);
    expect(made.body.uid.startsWith(`${org}/`)).toBe(true);
    expect(made.body).toEqual({ uid: made.body.uid, sink: 'https://hooks.example.com/a' });
    const viaGrpc = await grpc.call(SERVICE, 'CreateSubscription', { parent: team, subscription: { sink: 'https://hooks.example.com/b' } });
    expect(viaGrpc.uid.startsWith(`${team}/`)).toBe(true);

    expect((await client().get(`/events/v2beta1/subscriptions/${made.body.uid}`)).body).toEqual(made.body);
    expect(await grpc.call(SERVICE, 'GetSubscription', { uid: viaGrpc.uid })).toMatchObject({ uid: viaGrpc.uid, sink: 'https://hooks.example.com/b' });

    const all = await client().get('/events/v2beta1/subscriptions', { 'uidp.descendants_of': org });
    expect(all.body.subscriptions.map((s: any) => s.uid).sort()).toEqual([made.body.uid, viaGrpc.uid].sort());
    const children = await grpc.call(SERVICE, 'ListSubscriptions', { uidp: { childrenOf: team } });
    expect(children.subscriptions.map((s: any) => s.uid)).toEqual([viaGrpc.uid]);

    expect((await client().delete(`/events/v2beta1/subscriptions/${made.body.uid}`)).status).toBe(200);
    const gone = await client().get(`/events/v2beta1/subscriptions/${made.body.uid}`);
    expect(gone.status).toBe(404);
    await grpc.call(SERVICE, 'DeleteSubscription', { uid: viaGrpc.uid });
    const afterDelete = await grpc.call(SERVICE, 'GetSubscription', { uid: viaGrpc.uid }).catch((e) => e);
    expect(afterDelete.code).toBe(5);
  });

  it('refuses a sink that is not an https URL, naming the field', async () => {
    for (const sink of ['http://hooks.example.com/', 'ftp://hooks.example.com/', 'not a url', '']) {
      const refused = await client().post(`/events/v2beta1/subscriptions/${org}`, { sink });
      expect(refused.status, sink).toBe(400);
      expect(aip(refused).byType.BadRequest.fieldViolations[0].field).toBe('sink');
    }
    const viaGrpc = await grpc.call(SERVICE, 'CreateSubscription', { parent: org, subscription: { sink: 'http://x.example.com/' } }).catch((e) => e);
    expect(viaGrpc.code).toBe(3);
  });

  it('refuses a sink on a loopback, link-local or private address', async () => {
    for (const sink of ['https://127.0.0.1/', 'https://10.1.2.3:8443/x', 'https://192.168.0.9/', 'https://172.16.5.5/', 'https://169.254.169.254/latest', 'https://[::1]/', 'https://[fe80::1]/', 'https://[fd00::1]/', 'https://localhost/', 'https://0.0.0.0/']) {
      const refused = await client().post(`/events/v2beta1/subscriptions/${org}`, { sink });
      expect(refused.status, sink).toBe(400);
      expect(aip(refused).byType.BadRequest.fieldViolations[0].field, sink).toBe('sink');
    }
    expect((await client().get('/events/v2beta1/subscriptions', { 'uidp.children_of': org })).body.subscriptions ?? []).toEqual([]);
  });
}, { modes: ALL_MODES });

describeModes('event subscriptions with private sinks allowed', (stack) => {
  it('takes a sink on a private address', async () => {
    const org = (await stack().client.post('/iam/v2beta1/groups', { name: 'lab' })).body.uid;
    const made = await stack().client.post(`/events/v2beta1/subscriptions/${org}`, { sink: 'https://127.0.0.1:9443/hook' });
    expect(made.status).toBe(200);
    expect(made.body.sink).toBe('https://127.0.0.1:9443/hook');
  });
}, { flags: ['--events-allow-private-sinks'] });
