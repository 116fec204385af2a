/**
 * The gRPC transport as a team running the Go SDK or grpcurl meets it, and
 * what it shares with REST on the one port: deadlines and cancellation that
 * reach v1, health through the gateway, the Connect and gRPC-Web protocols,
 * REST and the v1 pass-through over h2c, the message size limit, drain on
 * close, unserved RPCs, and a parent that must not be misplaced.
 */
import http from 'node:http';
import { once } from 'node:events';
import https from 'node:https';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import { fromJson, toJson, type DescMethod } from '@bufbuild/protobuf';
import { createClient } from '@connectrpc/connect';
import { createConnectTransport, createGrpcWebTransport } from '@connectrpc/connect-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiServices } from '../../../src/contract/registry.ts';
import { unservedRpc } from '../../support/contract.ts';
import { GrpcClient, rejected } from '../../support/grpc.ts';
import { TOKEN, aip, startStack, type Stack } from '../../support/stack.ts';

const GROUPS = 'chainguard.platform.iam.v2beta1.GroupsService';
const getGroup = apiServices().find((s) => s.typeName === GROUPS)!.methods.find((m) => m.name === 'GetGroup')! as DescMethod;

let stack: Stack;
let grpc: GrpcClient;
let org: string;
beforeAll(async () => {
  stack = await startStack({ flags: ['--body-limit', '4096'] });
  grpc = new GrpcClient(stack.url);
  org = stack.emulator.state.createGroup(null, { name: 'transport-org' }).id;
});
afterAll(async () => {
  grpc.close();
  await stack.close();
});

describe('one port', () => {
  it('serves REST over h2c, the v1 pass-through over h2c, and gRPC health through the gateway', async () => {
    const session = http2.connect(stack.url);
    try {
      const get = (path: string) => new Promise<{ status: number; body: any }>((resolve, reject) => {
        const stream = session.request({ ':path': path, authorization: TOKEN });
        let status = 0;
        let text = '';
        stream.on('response', (headers) => { status = Number(headers[':status']); });
        stream.setEncoding('utf8');
        stream.on('data', (chunk) => { text += chunk; });
        stream.on('end', () => resolve({ status, body: JSON.parse(text) }));
        stream.on('error', reject);
      });
      const v2 = await get(`/iam/v2beta1/groups/${org}`);
      expect(v2).toMatchObject({ status: 200, body: { uid: org, name: 'transport-org' } });
      const v1 = await get(`/iam/v1/groups?id=${org}`);
      expect(v1.status).toBe(200);
      expect(v1.body.items[0].id).toBe(org);
    } finally {
      session.close();
    }
    const health = await grpc.call('grpc.health.v1.Health', 'Check', { service: '' }, { authorization: null });
    expect(health.status).toBe('SERVING');
    const served = await grpc.call('grpc.health.v1.Health', 'Check', { service: GROUPS }, { authorization: null });
    expect(served.status).toBe('SERVING');
  });

  it('answers the Connect protocol and gRPC-Web over HTTP/1.1 with the same message', async () => {
    const auth = [(next: any) => (req: any) => { req.header.set('authorization', TOKEN); return next(req); }];
    for (const transport of [
      createConnectTransport({ baseUrl: stack.url, httpVersion: '1.1', interceptors: auth }),
      createGrpcWebTransport({ baseUrl: stack.url, httpVersion: '1.1', interceptors: auth }),
    ]) {
      const client = createClient(getGroup.parent, transport) as any;
      const group = await client.getGroup(fromJson(getGroup.input, { uid: org }));
      expect(toJson(getGroup.output, group)).toMatchObject({ uid: org, name: 'transport-org' });
    }
  });

  it('refuses a request message over --body-limit as RESOURCE_EXHAUSTED, without reading it into a create', async () => {
    const big = await rejected(grpc.call(GROUPS, 'CreateGroup', { parent: org, group: { name: 'big', description: 'x'.repeat(8192) } }));
    expect(big.code).toBe(8);
    const children = await grpc.call(GROUPS, 'ListGroups', { uidp: { childrenOf: org } });
    expect(children.groups).toEqual([]);
  });

  it('answers an RPC of the contract it does not serve with UNIMPLEMENTED, over gRPC and REST alike', async () => {
    const unserved = unservedRpc('translate');
    if (!unserved) return;
    const failure = await rejected(grpc.call(unserved.service, unserved.method, {}));
    expect(failure.code).toBe(12);
    expect(failure.message).toContain(unserved.fullName);
    const rest = await stack.client.call(unserved.verb, unserved.path, unserved.verb === 'GET' || unserved.verb === 'DELETE' ? {} : { body: {} });
    expect(rest.status).toBe(501);
    expect(aip(rest).message).toBe(failure.message);
  });
});

describe('over TLS', () => {
  it('ALPN gives gRPC HTTP/2 and REST either protocol on the one port, with the same answer', async () => {
    const fixtures = new URL('../../fixtures/tls/', import.meta.url);
    const ca = readFileSync(new URL('cert.pem', fixtures));
    const secure = await startStack({ flags: ['--tls-cert', fileURLToPath(new URL('cert.pem', fixtures)), '--tls-key', fileURLToPath(new URL('key.pem', fixtures))] });
    const client = new GrpcClient(secure.url.replace('http:', 'https:').replace('127.0.0.1', 'localhost'), { ca });
    try {
      const uid = secure.emulator.state.createGroup(null, { name: 'tls-org' }).id;
      const answer = await client.call(GROUPS, 'GetGroup', { uid });
      expect(answer).toMatchObject({ uid, name: 'tls-org' });
      // REST over HTTP/1.1 with TLS on the same port: the same group.
      const rest = await new Promise<{ status: number; body: any }>((resolve, reject) => {
        https.get(`https://localhost:${new URL(secure.url).port}/iam/v2beta1/groups/${uid}`, { ca, headers: { authorization: TOKEN } }, (res) => {
          let text = '';
          res.on('data', (chunk) => (text += chunk)).on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
        }).on('error', reject);
      });
      expect(rest.status).toBe(200);
      const grpcTime = new Date(Number(answer.createTime.seconds) * 1000 + answer.createTime.nanos / 1e6).toISOString();
      expect(rest.body).toMatchObject({ uid, name: answer.name, createTime: grpcTime });
    } finally {
      client.close();
      await secure.close();
    }
  });
});

describe('a parent is never misplaced into a root organisation', () => {
  it('refuses a parent in a create body or query string that the path does not say', async () => {
    const roots = () => stack.emulator.state.listGroups({}).filter((g: any) => !g.id.includes('/')).length;
    const before = roots();
    const inBody = await stack.client.post('/iam/v2beta1/groups', { name: 'misplaced', parent: org });
    expect(inBody.status).toBe(400);
    expect(aip(inBody).byType.BadRequest.fieldViolations[0].field).toBe('parent');
    const inQuery = await stack.client.call('POST', '/iam/v2beta1/groups', { body: { name: 'misplaced' }, query: { parent: org } });
    expect(inQuery.status).toBe(400);
    expect(aip(inQuery).byType.BadRequest.fieldViolations[0].field).toBe('parent');
    expect(roots()).toBe(before);
    // Saying what the path says is harmless, and other unknown keys are discarded as protojson discards them.
    const same = await stack.client.post(`/iam/v2beta1/groups/${org}`, { name: 'placed', parent: org, colour: 'blue' });
    expect(same.status).toBe(200);
    expect(same.body.uid.startsWith(`${org}/`)).toBe(true);
  });
});

describe('a masked update whose body misspells the masked field', () => {
  // gRPC's binary names no field (an unknown number is no field of the message), so only JSON can
  // misspell one: Connect's JSON refuses the key, as REST's PATCH does (test/gateway/update.test.ts).
  it('is refused over Connect\'s JSON, and clears nothing', async () => {
    const uid = (await stack.client.post(`/iam/v2beta1/groups/${org}`, { name: 'misspelt', description: 'kept' })).body.uid;
    const reply = await fetch(`${stack.url}/chainguard.platform.iam.v2beta1.GroupsService/UpdateGroup`, {
      method: 'POST',
      headers: { authorization: TOKEN, 'content-type': 'application/json' },
      body: JSON.stringify({ group: { uid, descripton: 'x' }, updateMask: 'description' }),
    });
    expect(reply.status).toBe(400);
    expect(((await reply.json()) as { code: string }).code).toBe('invalid_argument');
    expect((await stack.client.get(`/iam/v2beta1/groups/${uid}`)).body.description).toBe('kept');
  });
});

/** A v1 that never answers, counting the requests whose caller gave up on them. */
async function hangingV1(): Promise<{ url: string; abandoned: () => number; close: () => Promise<void> }> {
  let abandoned = 0;
  const server = http.createServer((req, res) => {
    req.on('close', () => { if (!res.writableEnded) abandoned++; });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    abandoned: () => abandoned,
    close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

async function eventually(check: () => boolean, ms = 3000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('deadlines and cancellation', () => {
  let v1: Awaited<ReturnType<typeof hangingV1>>;
  /** Gives up on a request after 400 ms. */
  let hung: Stack;
  /** Would wait 20 s: only the caller going away can end its requests early. */
  let patient: Stack;
  beforeAll(async () => {
    v1 = await hangingV1();
    hung = await startStack({ v1Url: v1.url, flags: ['--v1-timeout-ms', '20000', '--request-timeout-ms', '400'] });
    patient = await startStack({ v1Url: v1.url, flags: ['--v1-timeout-ms', '20000', '--request-timeout-ms', '20000'] });
  });
  afterAll(async () => {
    await hung.close();
    await patient.close();
    await v1.close();
  });
  const uid = 'a'.repeat(40);

  it('a caller\'s grpc-timeout ends the request and the v1 call it was waiting on', async () => {
    const client = new GrpcClient(hung.url);
    try {
      const before = v1.abandoned();
      const failure = await rejected(client.call(GROUPS, 'GetGroup', { uid }, { deadlineMs: 150 }));
      expect(failure.code).toBe(4);
      await eventually(() => v1.abandoned() > before);
    } finally {
      client.close();
    }
  });

  it('the configured request deadline ends a gRPC call whose v1 call would wait 20 s, as DEADLINE_EXCEEDED naming it, and the v1 call with it', async () => {
    const client = new GrpcClient(hung.url);
    try {
      const before = v1.abandoned();
      // No deadline of the caller's: only the gateway's own can end the call.
      const failure = await rejected(client.call(GROUPS, 'GetGroup', { uid }));
      expect(failure.code).toBe(4);
      expect(failure.message).toContain('did not complete within its deadline of 400 ms');
      await eventually(() => v1.abandoned() > before);
    } finally {
      client.close();
    }
  });

  it('a gRPC caller that never finishes its message is refused at the request deadline (or its shorter grpc-timeout), not held open', async () => {
    /** Sends the headers and 3 of the 10 bytes a message promises, and never ends the stream. */
    const stalled = async (url: string, headers: Record<string, string> = {}) => {
      const session = http2.connect(url);
      session.on('error', () => {});
      try {
        const started = Date.now();
        const stream = session.request({ ':method': 'POST', ':path': `/${GROUPS}/GetGroup`, 'content-type': 'application/grpc', te: 'trailers', authorization: TOKEN, ...headers });
        stream.on('error', () => {});
        stream.write(Buffer.from([0, 0, 0, 0, 10, 0x0a, 0x01, 0x61]));
        const [head] = (await once(stream, 'response')) as [http2.IncomingHttpHeaders];
        const answer = { ms: Date.now() - started, status: head['grpc-status'], message: decodeURIComponent(String(head['grpc-message'] ?? '')) };
        stream.close(http2.constants.NGHTTP2_CANCEL);
        return answer;
      } finally {
        session.close();
      }
    };
    const byDeadline = await stalled(hung.url);
    expect(byDeadline).toMatchObject({ status: '4', message: expect.stringContaining('did not arrive within the deadline of 400 ms') });
    expect(byDeadline.ms).toBeGreaterThanOrEqual(350);
    const byTimeout = await stalled(patient.url, { 'grpc-timeout': '200m' });
    expect(byTimeout).toMatchObject({ status: '4', message: expect.stringContaining('deadline of 200 ms') });
  });

  it('the configured request deadline ends a REST request whose v1 call would wait 20 s, as DEADLINE_EXCEEDED naming it', async () => {
    const before = v1.abandoned();
    const reply = await hung.client.get(`/iam/v2beta1/groups/${uid}`);
    expect(reply.status).toBe(504);
    expect(aip(reply).message).toContain('deadline of 400 ms');
    await eventually(() => v1.abandoned() > before);
  });

  it('a gRPC caller that cancels, and a REST caller that goes away, cancel the v1 call', async () => {
    const client = new GrpcClient(patient.url);
    try {
      const before = v1.abandoned();
      const controller = new AbortController();
      const call = rejected(client.call(GROUPS, 'GetGroup', { uid }, { signal: controller.signal }));
      setTimeout(() => controller.abort(), 50);
      expect((await call).code).toBe(1);
      await eventually(() => v1.abandoned() > before, 2000);
      // The call the caller left still gets its access line, as CANCELLED.
      await eventually(() => patient.logs.some((line) => line.includes('"msg":"request"') && line.includes('GroupsService/GetGroup') && line.includes('"code":1,')), 2000);

      const restBefore = v1.abandoned();
      const gone = new AbortController();
      setTimeout(() => gone.abort(), 50);
      await expect(fetch(`${patient.url}/iam/v2beta1/groups/${uid}`, { headers: { authorization: TOKEN }, signal: gone.signal })).rejects.toThrow();
      await eventually(() => v1.abandoned() > restBefore, 2000);
    } finally {
      client.close();
    }
  });
});

describe('drain', () => {
  it('finishes an in-flight gRPC call when the gateway closes, then refuses new connections', async () => {
    const slow = await startStack({ emulator: { latencyMs: 300 } });
    const id = slow.emulator.state.createGroup(null, { name: 'draining' }).id;
    const client = new GrpcClient(slow.url);
    try {
      const inFlight = client.call(GROUPS, 'GetGroup', { uid: id });
      await new Promise((resolve) => setTimeout(resolve, 100));
      const closed = slow.gateway.close();
      expect((await inFlight).name).toBe('draining');
      await closed;
      const late = new GrpcClient(slow.url);
      expect((await rejected(late.call(GROUPS, 'GetGroup', { uid: id }, { deadlineMs: 2000 }))).code).toBe(14);
      late.close();
    } finally {
      client.close();
      await slow.emulator.close();
    }
  });
});
