/** Prometheus metrics over real ports: RED for REST and gRPC, v1 calls, caches, process; on the API port and the admin listener. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GrpcClient, rejected } from '../../support/grpc.ts';
import { Client, startStack, type Stack } from '../../support/stack.ts';

const IAM = 'chainguard.platform.iam.v2beta1';
const AUTH = { authorization: 'Bearer demo' };
let stack: Stack;
let grpc: GrpcClient;
let admin: Client;
let org: string;

beforeAll(async () => {
  stack = await startStack({ emulator: { seed: 'demo' }, flags: ['--admin-port', '0'] });
  grpc = new GrpcClient(stack.url);
  admin = new Client(stack.gateway.adminAddress()!);
  org = stack.emulator.demo!.orgId;
});

afterAll(async () => {
  grpc.close();
  await stack.close();
});

/** The samples of one exposition, as `name{labels}` → value. */
async function scrape(client: Client): Promise<{ contentType: string; samples: Map<string, number>; text: string }> {
  const reply = await client.get('/metrics');
  expect(reply.status).toBe(200);
  const samples = new Map<string, number>();
  for (const line of reply.text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const at = line.lastIndexOf(' ');
    samples.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return { contentType: String(reply.headers.get('content-type')), samples, text: reply.text };
}

const sample = (samples: Map<string, number>, name: string, labels: Record<string, string>) => {
  const want = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  const matches = [...samples].filter(([key]) => key.startsWith(`${name}{`) && want.every((w) => key.includes(w)));
  return matches.reduce((sum, [, value]) => sum + value, 0);
};

describe('metrics', () => {
  it('counts REST requests by method, route template and status, never by uid', async () => {
    expect((await stack.client.get('/iam/v2beta1/groups', {}, AUTH)).status).toBe(200);
    expect((await stack.client.get(`/iam/v2beta1/groups/${org}`, {}, AUTH)).status).toBe(200);
    expect((await stack.client.get('/iam/v2beta1/groups/not-a-uidp', {}, AUTH)).status).toBe(400);
    const { contentType, samples, text } = await scrape(stack.client);
    expect(contentType).toMatch(/^text\/plain; version=0\.0\.4/);
    const routes = [...samples.keys()].filter((k) => k.startsWith('http_server_request_duration_seconds_count{')).join('\n');
    expect(sample(samples, 'http_server_request_duration_seconds_count', { http_request_method: 'GET', http_response_status_code: '200' })).toBeGreaterThanOrEqual(2);
    expect(sample(samples, 'http_server_request_duration_seconds_count', { http_request_method: 'GET', http_response_status_code: '400' })).toBe(1);
    expect(routes).toMatch(/http_route="\/iam\/v2beta1\/groups\/\{[^"]*\}"/);
    expect(text).not.toContain(org);
    expect(text).not.toContain('not-a-uidp');
  });

  it('counts gRPC calls with the names the platform\'s Go services use', async () => {
    await grpc.call(`${IAM}.GroupsService`, 'ListGroups', {});
    await rejected(grpc.call(`${IAM}.GroupsService`, 'GetGroup', { uid: 'not-a-uidp' }));
    const { samples } = await scrape(stack.client);
    const labels = { grpc_type: 'unary', grpc_service: `${IAM}.GroupsService` };
    expect(sample(samples, 'grpc_server_started_total', { ...labels, grpc_method: 'ListGroups' })).toBe(1);
    expect(sample(samples, 'grpc_server_handled_total', { ...labels, grpc_method: 'ListGroups', grpc_code: 'OK' })).toBe(1);
    expect(sample(samples, 'grpc_server_handled_total', { ...labels, grpc_method: 'GetGroup', grpc_code: 'InvalidArgument' })).toBe(1);
    expect(sample(samples, 'grpc_server_handling_seconds_count', { ...labels, grpc_method: 'GetGroup' })).toBe(1);
  });

  it('times the calls to v1 and counts them per request', async () => {
    const before = await scrape(stack.client);
    expect((await stack.client.get('/iam/v2beta1/roleBindings', { 'uidp.descendants_of': org }, AUTH)).status).toBe(200);
    const after = await scrape(stack.client);
    const calls = (s: Map<string, number>) => sample(s, 'http_client_request_duration_seconds_count', { http_request_method: 'GET', http_response_status_code: '200' });
    expect(calls(after.samples) - calls(before.samples)).toBeGreaterThanOrEqual(1);
    const perRequest = (s: Map<string, number>) => s.get('v2gw_v1_calls_per_request_sum') ?? 0;
    expect(perRequest(after.samples) - perRequest(before.samples)).toBe(calls(after.samples) - calls(before.samples));
    expect(sample(after.samples, 'v2gw_cache_lookups_total', { cache: 'hydration' })).toBeGreaterThan(0);
  });

  it('counts HTTP requests in flight: after the others ended, only the scrape itself', async () => {
    await Promise.all([stack.client.get('/iam/v2beta1/groups', {}, AUTH), stack.client.get('/healthz'), stack.client.get('/nowhere')]);
    const { samples } = await scrape(stack.client);
    expect(samples.get('http_server_active_requests')).toBe(1);
  });

  it('serves the process metrics', async () => {
    const { samples } = await scrape(stack.client);
    expect(samples.get('process_cpu_user_seconds_total')).toBeGreaterThan(0);
    expect(samples.get('nodejs_heap_size_used_bytes')).toBeGreaterThan(0);
  });

  it('serves /metrics, /healthz and /readyz on the admin listener too, and not the API there', async () => {
    expect(stack.gateway.adminAddress()).not.toBe(stack.url);
    expect((await admin.get('/healthz')).status).toBe(200);
    expect((await admin.get('/readyz')).status).toBe(200);
    const { samples } = await scrape(admin);
    expect(sample(samples, 'grpc_server_handled_total', { grpc_method: 'ListGroups' })).toBeGreaterThanOrEqual(1);
    const api = await admin.get('/iam/v2beta1/groups', {}, AUTH);
    expect(api.status).toBe(404);
    expect(api.body.code).toBe(5);
  });
});
