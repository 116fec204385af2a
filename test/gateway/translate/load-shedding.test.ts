/** Load shedding over real ports: an overloaded gateway refuses API calls on both protocols with UNAVAILABLE and retry advice, never its probes. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GrpcClient, rejected } from '../../support/grpc.ts';
import { aip, startStack, type Stack } from '../../support/stack.ts';

const IAM = 'chainguard.platform.iam.v2beta1';
const AUTH = { authorization: 'Bearer demo' };

describe('load shedding past --shed-max-rss-bytes', () => {
  let stack: Stack;
  let grpc: GrpcClient;

  beforeAll(async () => {
    // Any process is past a 1-byte memory limit: the gateway is overloaded from its first measure on.
    stack = await startStack({ emulator: { seed: 'demo' }, flags: ['--shed-max-rss-bytes', '1'] });
    grpc = new GrpcClient(stack.url);
  });

  afterAll(async () => {
    grpc.close();
    await stack.close();
  });

  it('refuses a REST call with UNAVAILABLE, RetryInfo and Retry-After, naming the cause, without calling v1', async () => {
    const before = stack.emulator.state.counts().groups;
    const reply = await stack.client.post('/iam/v2beta1/groups', { name: 'shed' }, AUTH);
    expect(reply.status).toBe(503);
    const error = aip(reply);
    expect(error.code).toBe(14);
    expect(error.message).toMatch(/overloaded \(resident memory \d+ MiB, limit 0 MiB\)/);
    expect(error.byType.RetryInfo).toEqual(expect.objectContaining({ retryDelay: '1s' }));
    expect(reply.headers.get('retry-after')).toBe('1');
    expect(stack.emulator.state.counts().groups).toBe(before);
  });

  it('refuses the v1 pass-through too', async () => {
    expect((await stack.client.get('/iam/v1/groups', {}, AUTH)).status).toBe(503);
  });

  it('refuses a gRPC call with UNAVAILABLE and RetryInfo in the status details', async () => {
    const failure = await rejected(grpc.call(`${IAM}.GroupsService`, 'ListGroups', {}));
    expect(failure.code).toBe(14);
    expect(failure.details.map((d) => String(d['@type']).split('.').pop())).toContain('RetryInfo');
  });

  it('still answers health, readiness, metrics and gRPC health, and counts what it refused', async () => {
    expect((await stack.client.get('/healthz')).status).toBe(200);
    expect((await stack.client.get('/readyz')).status).toBe(200);
    const metrics = await stack.client.get('/metrics');
    expect(metrics.status).toBe(200);
    expect(metrics.text).toMatch(/v2gw_requests_refused_total\{code="UNAVAILABLE"\} [1-9]/);
    const health = await grpc.call('grpc.health.v1.Health', 'Check', { service: '' });
    expect(health.status).toBe('SERVING');
  });
});

describe('load shedding off', () => {
  it('serves as usual with the limits at 0', async () => {
    const stack = await startStack({ emulator: { seed: 'demo' }, flags: ['--shed-max-rss-bytes', '0', '--shed-event-loop-delay-ms', '0'] });
    try {
      expect((await stack.client.get('/iam/v2beta1/groups', {}, AUTH)).status).toBe(200);
    } finally {
      await stack.close();
    }
  });
});
