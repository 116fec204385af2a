/**
 * W3C trace context through the gateway to v1, and the spans it exports, over
 * real ports: a caller with a `traceparent`, the gateway exporting OTLP/JSON to
 * a receiver started here, and a v1 emulator that records the raw headers of
 * every request it gets.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildEmulator } from '../../../src/emulator/v1/index.ts';
import { GrpcClient } from '../../support/grpc.ts';
import { OtlpReceiver, type ReceivedSpan } from '../../support/otlp.ts';
import { Client, startGateway, TOKEN } from '../../support/stack.ts';
import { loadConfig } from '../../../src/config.ts';
import { buildGateway } from '../../../src/server.ts';

const IAM = 'chainguard.platform.iam.v2beta1';
const SERVER = 2;
const CLIENT = 3;

/** What v1 received: each request's path and every `traceparent` / `tracestate` header line, as sent. */
interface V1Request { path: string; traceparents: string[]; tracestates: string[] }

async function recordingV1() {
  const { app, demo } = buildEmulator({ seed: 'demo' });
  const requests: V1Request[] = [];
  app.addHook('onRequest', async (request) => {
    const raw = request.raw.rawHeaders;
    const lines = (name: string) => raw.flatMap((value, i) => (i % 2 === 1 && raw[i - 1]!.toLowerCase() === name ? [value] : []));
    requests.push({ path: request.url, traceparents: lines('traceparent'), tracestates: lines('tracestate') });
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address() as { port: number };
  return { url: `http://127.0.0.1:${address.port}`, requests, org: demo!.orgId, close: () => app.close() };
}

/** A caller's context: a fresh trace, sampled. */
function callerContext(): { traceId: string; spanId: string; traceparent: string } {
  const traceId = randomBytes(16).toString('hex');
  const spanId = randomBytes(8).toString('hex');
  return { traceId, spanId, traceparent: `00-${traceId}-${spanId}-01` };
}

/** The v1 requests of one trace. */
const ofTrace = (requests: V1Request[], traceId: string) => requests.filter((r) => r.traceparents.some((t) => t.includes(traceId)));

/** The parent id a traceparent names. */
const parentOf = (traceparent: string) => traceparent.split('-')[2];

let v1: Awaited<ReturnType<typeof recordingV1>>;
let receiver: OtlpReceiver;

beforeAll(async () => {
  v1 = await recordingV1();
  receiver = await OtlpReceiver.start();
});

afterAll(async () => {
  await v1.close();
  await receiver.close();
});

describe('tracing on (OTLP http/json)', () => {
  let gateway: Awaited<ReturnType<typeof startGateway>>;
  let client: Client;
  let grpc: GrpcClient;

  beforeAll(async () => {
    gateway = await startGateway(v1.url, [], {
      env: {
        OTEL_TRACES_EXPORTER: 'otlp',
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_SERVICE_NAME: 'v2gw-under-test',
        OTEL_BSP_SCHEDULE_DELAY: '20',
      },
    });
    client = new Client(gateway.url);
    grpc = new GrpcClient(gateway.url);
  });

  afterAll(async () => {
    grpc.close();
    await gateway.gateway.close();
  });

  /** The server span and the v1 client spans of a trace, once exported. */
  async function exported(traceId: string, v1Calls: number): Promise<{ server: ReceivedSpan; clients: ReceivedSpan[]; spans: ReceivedSpan[] }> {
    const spans = await receiver.trace(traceId, (s) => s.some((x) => x.kind === SERVER) && s.filter((x) => x.kind === CLIENT).length >= v1Calls);
    return { server: spans.find((s) => s.kind === SERVER)!, clients: spans.filter((s) => s.kind === CLIENT), spans };
  }

  /** Each v1 request of the trace carried exactly one traceparent, naming one of the gateway's client spans as its parent (never the caller's span). */
  function expectV1ParentedBy(traceId: string, callerSpanId: string, clients: ReceivedSpan[]): void {
    const received = ofTrace(v1.requests, traceId);
    expect(received.length).toBeGreaterThanOrEqual(1);
    for (const request of received) {
      expect(request.traceparents).toHaveLength(1);
      const parent = parentOf(request.traceparents[0]!);
      expect(parent).not.toBe(callerSpanId);
      expect(clients.map((c) => c.spanId)).toContain(parent);
    }
  }

  it('continues a REST caller\'s trace: the server span is its child, named by the route template, and v1 is parented by the v1 call\'s span', async () => {
    const caller = callerContext();
    const reply = await client.get(`/iam/v2beta1/groups/${v1.org}`, {}, { headers: { traceparent: caller.traceparent, tracestate: 'caller=t61rcWkgMzE' } });
    expect(reply.status).toBe(200);
    const { server, clients } = await exported(caller.traceId, 1);
    expect(server.parentSpanId).toBe(caller.spanId);
    expect(server.name).toBe('GET /iam/v2beta1/groups/{uid=**}');
    expect(server.name).not.toContain(v1.org);
    expect(server.attributes).toMatchObject({ 'http.request.method': 'GET', 'http.route': '/iam/v2beta1/groups/{uid=**}', 'http.response.status_code': 200 });
    expect(server.resource['service.name']).toBe('v2gw-under-test');
    for (const call of clients) {
      expect(call.parentSpanId).toBe(server.spanId);
      expect(call.name).toBe('GET');
      expect(call.attributes).toMatchObject({ 'http.request.method': 'GET', 'server.address': '127.0.0.1', 'http.response.status_code': 200 });
      expect(String(call.attributes['url.full'])).toMatch(new RegExp(`^${v1.url}/iam/v1/`));
      expect(String(call.attributes['url.full'])).not.toContain('?');
    }
    expectV1ParentedBy(caller.traceId, caller.spanId, clients);
    // The caller's tracestate goes on with its trace.
    for (const request of ofTrace(v1.requests, caller.traceId)) expect(request.tracestates).toEqual(['caller=t61rcWkgMzE']);
  });

  it('marks a server span failed on a 5xx only: a 404 is the caller\'s outcome', async () => {
    const caller = callerContext();
    const reply = await client.get(`/iam/v2beta1/groups/${v1.org}/${'0'.repeat(16)}`, {}, { headers: { traceparent: caller.traceparent } });
    expect(reply.status).toBe(404);
    const { server, clients } = await exported(caller.traceId, 1);
    expect(server.status).toBe(0);
    expect(server.attributes['http.response.status_code']).toBe(404);
    // The v1 lookup that found nothing is a client span; v1 answers a list (empty), so it is no failure.
    expect(clients.every((c) => c.parentSpanId === server.spanId)).toBe(true);
  });

  it('continues a gRPC caller\'s trace from its metadata, with the RPC conventions and the status code', async () => {
    const caller = callerContext();
    await grpc.call(`${IAM}.GroupsService`, 'GetGroup', { uid: v1.org }, { metadata: { traceparent: caller.traceparent } });
    const { server, clients } = await exported(caller.traceId, 1);
    expect(server.parentSpanId).toBe(caller.spanId);
    expect(server.name).toBe(`${IAM}.GroupsService/GetGroup`);
    expect(server.attributes).toMatchObject({ 'rpc.system': 'grpc', 'rpc.service': `${IAM}.GroupsService`, 'rpc.method': 'GetGroup', 'rpc.grpc.status_code': 0 });
    expect(clients.every((c) => c.parentSpanId === server.spanId)).toBe(true);
    expectV1ParentedBy(caller.traceId, caller.spanId, clients);
  });

  it('leaves a gRPC server span unfailed on a caller\'s mistake (INVALID_ARGUMENT), with its code', async () => {
    const bad = callerContext();
    await expect(grpc.call(`${IAM}.GroupsService`, 'GetGroup', { uid: 'not-a-uidp' }, { metadata: { traceparent: bad.traceparent } })).rejects.toMatchObject({ code: 3 });
    const { server } = await exported(bad.traceId, 0);
    expect(server.attributes['rpc.grpc.status_code']).toBe(3);
    expect(server.status).toBe(0);
  });

  it('sends one traceparent through the v1 pass-through: the gateway\'s call span replaces the caller\'s', async () => {
    const caller = callerContext();
    const reply = await client.get(`/iam/v1/groups`, { id: v1.org, secret_looking: 'query-value-7f3a' }, { headers: { traceparent: caller.traceparent, tracestate: 'caller=1' } });
    expect(reply.status).toBe(200);
    const { server, clients } = await exported(caller.traceId, 1);
    expect(server.parentSpanId).toBe(caller.spanId);
    expect(server.name).toBe('GET /iam/v1/*');
    expect(clients).toHaveLength(1);
    expect(clients[0]!.parentSpanId).toBe(server.spanId);
    expect(clients[0]!.attributes['http.response.status_code']).toBe(200);
    expectV1ParentedBy(caller.traceId, caller.spanId, clients);
    for (const request of ofTrace(v1.requests, caller.traceId)) expect(request.tracestates).toEqual(['caller=1']);
  });

  it('starts a trace of its own for a caller without one, and still sends v1 exactly one traceparent', async () => {
    const before = v1.requests.length;
    expect((await client.get(`/iam/v2beta1/groups/${v1.org}`)).status).toBe(200);
    const sent = v1.requests.slice(before);
    expect(sent.length).toBeGreaterThanOrEqual(1);
    for (const request of sent) expect(request.traceparents).toHaveLength(1);
    const traceId = sent[0]!.traceparents[0]!.split('-')[1]!;
    const { server } = await exported(traceId, 1);
    expect(server.parentSpanId).toBe('');
  });

  it('exports no Authorization value, no query value and no uid in a span name', async () => {
    // The tests above have run: every span they made is exported by now, and the token went to every call.
    expect(receiver.bodies.length).toBeGreaterThan(0);
    const exportedText = receiver.bodies.join('\n');
    expect(exportedText).not.toContain(TOKEN.slice('Bearer '.length));
    expect(exportedText).not.toMatch(/bearer/i);
    expect(exportedText).not.toContain('query-value-7f3a');
    expect(receiver.contentTypes.every((type) => type.startsWith('application/json'))).toBe(true);
    for (const span of receiver.spans) expect(span.name).not.toContain(v1.org);
  });
});

describe('tracing on, native mode', () => {
  it('traces the store\'s queries as children of the request, with the database conventions', async () => {
    const config = loadConfig(['--mode', 'native', '--port', '0'], {});
    const app = await buildGateway(config, {
      env: { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${receiver.url}/v1/traces`, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_BSP_SCHEDULE_DELAY: '20' },
    });
    try {
      const url = await app.listen({ port: 0, host: '127.0.0.1' });
      const caller = callerContext();
      const created = await new Client(url).post('/iam/v2beta1/groups', { name: 'traced' }, { headers: { traceparent: caller.traceparent } });
      expect(created.status).toBe(200);
      const spans = await receiver.trace(caller.traceId, (s) => s.some((x) => x.kind === SERVER) && s.some((x) => x.name === 'INSERT v2gw_resources'));
      const server = spans.find((s) => s.kind === SERVER)!;
      expect(server.name).toBe('POST /iam/v2beta1/groups/{parent=**}');
      const insert = spans.find((s) => s.name === 'INSERT v2gw_resources')!;
      expect(insert.parentSpanId).toBe(server.spanId);
      expect(insert.kind).toBe(CLIENT);
      expect(insert.attributes).toMatchObject({ 'db.system.name': 'sqlite', 'db.operation.name': 'INSERT', 'db.collection.name': 'v2gw_resources' });
      expect(JSON.stringify(spans)).not.toContain('traced');
    } finally {
      await app.close();
    }
  });
});

describe('tracing off', () => {
  let gateway: Awaited<ReturnType<typeof startGateway>>;
  let grpc: GrpcClient;

  beforeAll(async () => {
    gateway = await startGateway(v1.url, [], { env: {} });
    grpc = new GrpcClient(gateway.url);
  });

  afterAll(async () => {
    grpc.close();
    await gateway.gateway.close();
  });

  it('hands the caller\'s traceparent and tracestate to v1 unchanged, exactly once, on REST, gRPC and the pass-through', async () => {
    const client = new Client(gateway.url);
    const rest = callerContext();
    const rpc = callerContext();
    const passThrough = callerContext();
    const calls: [string, () => Promise<unknown>][] = [
      ['rest', async () => expect((await client.get(`/iam/v2beta1/groups/${v1.org}`, {}, { headers: { traceparent: rest.traceparent, tracestate: 'outer=1' } })).status).toBe(200)],
      ['grpc', () => grpc.call(`${IAM}.GroupsService`, 'GetGroup', { uid: v1.org }, { metadata: { traceparent: rpc.traceparent, tracestate: 'outer=1' } })],
      ['pass-through', async () => expect((await client.get('/iam/v1/groups', { id: v1.org }, { headers: { traceparent: passThrough.traceparent, tracestate: 'outer=1' } })).status).toBe(200)],
    ];
    const spansBefore = receiver.spans.length;
    for (const [, call] of calls) await call();
    for (const caller of [rest, rpc, passThrough]) {
      const received = ofTrace(v1.requests, caller.traceId);
      expect(received.length).toBeGreaterThanOrEqual(1);
      for (const request of received) {
        expect(request.traceparents).toEqual([caller.traceparent]);
        expect(request.tracestates).toEqual(['outer=1']);
      }
    }
    expect(receiver.spans.length).toBe(spansBefore);
  });

  it('sends v1 no traceparent when the caller sent none, or one that is not valid', async () => {
    const client = new Client(gateway.url);
    const before = v1.requests.length;
    expect((await client.get(`/iam/v2beta1/groups/${v1.org}`)).status).toBe(200);
    expect((await client.get(`/iam/v2beta1/groups/${v1.org}`, {}, { headers: { traceparent: `00-${'0'.repeat(32)}-${'1'.repeat(16)}-01` } })).status).toBe(200);
    const sent = v1.requests.slice(before);
    expect(sent.length).toBeGreaterThanOrEqual(2);
    for (const request of sent) expect(request.traceparents).toEqual([]);
  });
});
