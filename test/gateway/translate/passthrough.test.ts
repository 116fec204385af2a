/**
 * The v1 pass-through: v1 paths reach v1 as sent and come back as v1 answered,
 * streamed both ways, beside the v2 routes on the same port. Against the real
 * emulator for v1 itself, and a raw node:http upstream for what the emulator
 * cannot show (large streamed bodies, odd statuses and headers, stalls).
 */
import { createHash, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Client, TOKEN, aip, captureLogs, startGateway, startStack, type Stack } from '../../support/stack.ts';
import { closeLocal, listenLocal } from '../../support/local-http.ts';

const MiB = 1024 * 1024;
const TIMEOUT_MS = 1000;

type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => void;

/** A bare HTTP server standing in for v1: each test sets `handle`; every request it saw is kept. */
class Upstream {
  readonly server = http.createServer((req, res) => this.handle(req, res));
  handle: Handler = (_req, res) => res.end();
  seen: { method: string; url: string; headers: http.IncomingHttpHeaders }[] = [];

  constructor() {
    this.server.prependListener('request', (req: http.IncomingMessage) => {
      this.seen.push({ method: req.method!, url: req.url!, headers: req.headers });
    });
  }

  start(): Promise<string> {
    return listenLocal(this.server);
  }

  close(): Promise<void> {
    return closeLocal(this.server);
  }
}

interface RawReply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

/** node:http rather than fetch, to send request targets and headers exactly as written. */
function rawRequest(base: string, options: http.RequestOptions, body?: Buffer): Promise<RawReply> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const req = http.request({ hostname, port, agent: false, ...options }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

function sha256(data: Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

/** Fails with `message` unless `promise` settles within `ms`. */
async function within<T>(promise: Promise<T>, ms: number, message: () => string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(message())), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

async function waitUntil(predicate: () => boolean): Promise<void> {
  while (!predicate()) await sleep(5);
}

describe('against the v1 emulator', () => {
  let stack: Stack;
  let org: string;
  let direct: Client;

  beforeAll(async () => {
    stack = await startStack();
    org = stack.emulator.state.createGroup(null, { name: 'passthrough-org' }).id;
    stack.emulator.state.createGroup(org, { name: 'team-a' });
    stack.emulator.state.createGroup(org, { name: 'team-b' });
    direct = new Client(stack.emulator.url);
  });
  afterAll(() => stack.close());

  it('a v1 list through the gateway is byte for byte the direct answer, plus x-request-id', async () => {
    const query = { 'uidp.descendantsOf': org };
    const [via, straight] = await Promise.all([stack.client.get('/iam/v1/groups', query), direct.get('/iam/v1/groups', query)]);
    expect(via.status).toBe(200);
    expect(via.body.items).toHaveLength(2);
    expect(via.text).toBe(straight.text);
    expect(via.headers.get('content-type')).toBe(straight.headers.get('content-type'));
    expect(via.headers.get('content-length')).toBe(straight.headers.get('content-length'));
    expect(via.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('the caller x-request-id is kept', async () => {
    const reply = await stack.client.get('/iam/v1/groups', { 'uidp.descendantsOf': org }, { headers: { 'x-request-id': 'trace-me-7' } });
    expect(reply.headers.get('x-request-id')).toBe('trace-me-7');
  });

  it("v1's own errors pass through with their status, headers and body; the gateway adds no bearer check", async () => {
    for (const [path, options] of [
      ['/iam/v1/groups', { authorization: null }],
      ['/iam/v1/widgets', {}],
      ['/iam/v1/groups', { raw: '{"name": ' }],
    ] as const) {
      const method = 'raw' in options ? 'POST' : 'GET';
      const via = await stack.client.call(method, path, options);
      const straight = await direct.call(method, path, options);
      expect(via.status, path).toBe(straight.status);
      expect(via.status, path).toBeGreaterThanOrEqual(400);
      expect(via.text, path).toBe(straight.text);
      expect(via.headers.get('www-authenticate'), path).toBe(straight.headers.get('www-authenticate'));
    }
  });

  it('POST, PUT and DELETE reach v1 and change it', async () => {
    const created = await stack.client.post(`/iam/v1/groups/${org}`, { name: 'made-through-v1' });
    expect(created.status).toBe(200);
    const id = created.body.id as string;
    expect(stack.emulator.state.listGroups({ id })[0]?.name).toBe('made-through-v1');

    const updated = await stack.client.call('PUT', `/iam/v1/groups/${id}`, { body: { ...created.body, name: 'renamed-through-v1' } });
    expect(updated.status).toBe(200);
    expect(stack.emulator.state.listGroups({ id })[0]?.name).toBe('renamed-through-v1');

    const deleted = await stack.client.delete(`/iam/v1/groups/${id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.text).toBe('{}');
    expect(stack.emulator.state.listGroups({ id })).toHaveLength(0);
  });

  it('v1 and v2 side by side on one port see the same data', async () => {
    const v2 = await stack.client.get('/iam/v2beta1/groups', { 'uidp.children_of': org });
    const v1 = await stack.client.get('/iam/v1/groups', { 'uidp.childrenOf': org });
    expect(v2.body.groups.map((g: { uid: string }) => g.uid).sort()).toEqual(v1.body.items.map((g: { id: string }) => g.id).sort());
  });

  it('the Authorization header reaches v1 but no log line', async () => {
    const secret = 'Bearer pass-through-secret-4242';
    const reply = await stack.client.get('/iam/v1/groups', { 'uidp.descendantsOf': org }, { authorization: secret });
    expect(reply.status).toBe(200);
    expect(stack.logs.join('\n')).not.toContain('pass-through-secret-4242');
  });
});

describe('against a raw upstream', () => {
  const upstream = new Upstream();
  let gateway: FastifyInstance;
  let url: string;
  let client: Client;
  const logs = captureLogs();

  beforeAll(async () => {
    const started = await startGateway(await upstream.start(), ['--v1-timeout-ms', String(TIMEOUT_MS)], { logStream: logs.stream });
    gateway = started.gateway;
    url = started.url;
    client = new Client(url);
  });
  afterAll(async () => {
    await gateway.close();
    await upstream.close();
  });
  beforeEach(() => {
    upstream.seen = [];
  });

  it(`streams an ${8} MiB body up and back in lockstep, past the 1 MiB bodyLimit`, async () => {
    // v1 echoes each chunk the moment it arrives. The client sends chunk n+1 only once
    // chunk n has come all the way back: a proxy that held back either the request body
    // or the response body, even for one chunk, stalls this exchange and fails it.
    upstream.handle = (req, res) => {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      res.flushHeaders();
      req.on('data', (chunk: Buffer) => res.write(chunk));
      req.on('end', () => res.end());
    };
    const chunks = Array.from({ length: 8 }, () => randomBytes(MiB));
    const sent = Buffer.concat(chunks);
    const { hostname, port } = new URL(url);
    const req = http.request({
      hostname, port, agent: false, method: 'POST', path: '/registry/v1/echo',
      headers: { 'content-type': 'application/octet-stream', 'content-length': String(sent.length), authorization: TOKEN },
    });
    const received: Buffer[] = [];
    let receivedBytes = 0;
    const responded = new Promise<http.IncomingMessage>((resolve, reject) => {
      req.on('response', resolve);
      req.on('error', reject);
    });
    req.write(chunks[0]);
    const res = await within(responded, 5000, () => 'no response headers while the body was still being sent').catch((error) => {
      req.destroy();
      throw error;
    });
    expect(res.statusCode).toBe(200);
    res.on('data', (chunk: Buffer) => {
      received.push(chunk);
      receivedBytes += chunk.length;
    });
    const ended = once(res, 'end');
    try {
      for (let n = 0; n < chunks.length; n++) {
        if (n > 0) req.write(chunks[n]);
        await within(waitUntil(() => receivedBytes >= (n + 1) * MiB), 5000,
          () => `chunk ${n + 1} of ${chunks.length} did not come back (${receivedBytes} of ${(n + 1) * MiB} bytes): the proxy is buffering`);
      }
    } catch (error) {
      req.destroy();
      throw error;
    }
    req.end();
    await ended;
    expect(receivedBytes).toBe(sent.length);
    expect(sha256(Buffer.concat(received))).toBe(sha256(sent));
    expect(upstream.seen[0]?.headers['content-length']).toBe(String(sent.length));
  });

  it('a large upload with Content-Length and Expect: 100-continue arrives whole', async () => {
    upstream.handle = (req, res) => {
      const hash = createHash('sha256');
      let bytes = 0;
      req.on('data', (chunk: Buffer) => {
        hash.update(chunk);
        bytes += chunk.length;
      });
      req.on('end', () => {
        res.writeHead(201, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ bytes, sha256: hash.digest('hex') }));
      });
    };
    const body = randomBytes(8 * MiB + 17);
    const reply = await rawRequest(url, {
      method: 'PUT', path: '/registry/v1/blobs/big',
      headers: { 'content-length': String(body.length), expect: '100-continue', 'content-type': 'application/octet-stream' },
    }, body);
    expect(reply.status).toBe(201);
    expect(JSON.parse(reply.body.toString())).toEqual({ bytes: body.length, sha256: sha256(body) });
    expect(upstream.seen[0]?.headers.expect).toBeUndefined();
  });

  it('the v2 routes keep their bodyLimit and JSON parsing', async () => {
    const reply = await client.post('/iam/v2beta1/groups', { name: 'x'.repeat(2 * MiB) });
    expect(reply.status).toBe(400);
    expect(aip(reply).message).toContain('1048576');
    expect(upstream.seen).toHaveLength(0);
  });

  it('statuses 201, 204 and 418 and custom headers cross both ways; hop-by-hop headers do not', async () => {
    upstream.handle = (req, res) => {
      const status = Number(req.url!.split('/').pop());
      res.setHeader('x-v1-custom', 'from-v1');
      res.setHeader('set-cookie', ['a=1; Path=/', 'b=2; Path=/']);
      res.setHeader('connection', 'keep-alive, x-v1-hop');
      res.setHeader('x-v1-hop', 'only-for-the-next-hop');
      res.statusCode = status;
      res.end(status === 204 ? undefined : `status ${status}`);
    };
    for (const status of [201, 204, 418]) {
      const reply = await rawRequest(url, {
        method: 'POST', path: `/iam/v1/status/${status}`,
        headers: {
          authorization: 'Bearer abc', 'x-client-custom': 'from-client', 'content-type': 'text/plain',
          connection: 'keep-alive, x-client-hop', 'x-client-hop': 'next-hop-only', 'keep-alive': 'timeout=5', te: 'trailers',
        },
      }, Buffer.from('ping'));
      expect(reply.status).toBe(status);
      expect(reply.body.toString()).toBe(status === 204 ? '' : `status ${status}`);
      expect(reply.headers['x-v1-custom']).toBe('from-v1');
      expect(reply.headers['set-cookie']).toEqual(['a=1; Path=/', 'b=2; Path=/']);
      expect(reply.headers['x-v1-hop']).toBeUndefined();
      expect(reply.headers['x-request-id']).toBeTruthy();
    }
    for (const { headers } of upstream.seen) {
      expect(headers).toMatchObject({ authorization: 'Bearer abc', 'x-client-custom': 'from-client', 'content-type': 'text/plain' });
      expect(headers['x-client-hop']).toBeUndefined();
      expect(headers['keep-alive']).toBeUndefined();
      expect(headers.te).toBeUndefined();
    }
  });

  it('method, path and query string arrive byte for byte', async () => {
    upstream.handle = (req, res) => res.end(`${req.method} ${req.url}`);
    const targets = [
      '/registry/v1/repos/0123%2Fabcd/tags?b=2&a=1&a=%2F&x=%20+y&empty=&flag&a=3&%7E=~',
      '/vulnerabilities/v1/reports/a%2Fb%2Fc?uidp.ids=x&uidp.ids=y',
      '/iam/v1/groups/?q=%E2%9C%93&q=%e2%9c%93',
      '/advisory/v1/documents/CGA-1234?sort=-time',
    ];
    for (const method of ['GET', 'PATCH', 'OPTIONS', 'DELETE']) {
      for (const path of targets) {
        const reply = await rawRequest(url, { method, path, headers: { authorization: TOKEN } });
        expect(reply.status, `${method} ${path}`).toBe(200);
        expect(reply.body.toString()).toBe(`${method} ${path}`);
      }
    }
    const head = await rawRequest(url, { method: 'HEAD', path: targets[0] });
    expect(head.status).toBe(200);
    expect(upstream.seen.at(-1)).toMatchObject({ method: 'HEAD', url: targets[0] });
  });

  it("v1's own 503 reaches the client once, as sent: the pass-through never retries", async () => {
    upstream.handle = (_req, res) => {
      res.writeHead(503, { 'content-type': 'text/plain', 'retry-after': '0' });
      res.end('v1 is resting');
    };
    const reply = await client.get('/iam/v1/groups');
    expect(reply.status).toBe(503);
    expect(reply.text).toBe('v1 is resting');
    expect(reply.headers.get('content-type')).toBe('text/plain');
    expect(upstream.seen).toHaveLength(1);
  });

  it('only the exact v1 prefixes are forwarded', async () => {
    upstream.handle = (_req, res) => res.end('forwarded');
    for (const path of ['/iam/v1beta/groups', '/iam/v2x/groups', '/iamx/v1/groups', '/registry/v10/repos', '/vulnerabilities/v1beta1/x', '/v1/groups']) {
      const reply = await client.get(path);
      expect(reply.status, path).toBe(404);
      expect(aip(reply).byType.ErrorInfo.reason).toBe('NOT_FOUND');
    }
    expect(upstream.seen).toHaveLength(0);
  });

  it('a path that cannot travel unchanged is refused, not altered', async () => {
    upstream.handle = (_req, res) => res.end('forwarded');
    for (const path of ['/iam/v1/groups/{x}', '/iam/v1/groups/"x"', '/iam/v1/./groups', '/iam/v1/%2e%2e/v2beta1/groups', '/iam/v1/a\\b', '/iam/v1/a%2F..%2Fb', '/iam/v1/a%5C%2e%2E%5Cb']) {
      const reply = await rawRequest(url, { method: 'GET', path });
      expect(reply.status, path).toBe(400);
      expect(JSON.parse(reply.body.toString()).details[0].reason).toBe('INVALID_ARGUMENT');
    }
    expect(upstream.seen).toHaveLength(0);
  });

  it('a GET with a body is refused rather than forwarded without it', async () => {
    const reply = await rawRequest(url, { method: 'GET', path: '/iam/v1/groups', headers: { 'content-length': '2' } }, Buffer.from('{}'));
    expect(reply.status).toBe(400);
    expect(upstream.seen).toHaveLength(0);
  });

  it('a slow v1 → 504 DEADLINE_EXCEEDED in AIP-193 form', async () => {
    upstream.handle = (_req, res) => {
      setTimeout(() => res.end('too late'), TIMEOUT_MS * 3).unref();
    };
    const started = Date.now();
    const reply = await client.get('/iam/v1/groups');
    expect(reply.status).toBe(504);
    expect(Date.now() - started).toBeLessThan(TIMEOUT_MS * 2.5);
    const error = aip(reply);
    expect(error.code).toBe(4);
    expect(error.byType.ErrorInfo).toMatchObject({ reason: 'DEADLINE_EXCEEDED', domain: 'iam.chainguard.dev' });
    expect(error.byType.ErrorInfo.metadata.requestId).toBe(reply.headers.get('x-request-id'));
    expect(reply.text).not.toMatch(/at .*\.(ts|js):\d+/);
  });

  it('v1 going quiet mid-body cuts the response rather than hanging it', async () => {
    upstream.handle = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      res.write(Buffer.alloc(1024));
    };
    const response = await fetch(new URL('/iam/v1/stall', url));
    expect(response.status).toBe(200);
    await expect(within(response.arrayBuffer(), TIMEOUT_MS * 4, () => 'the stalled response hung')).rejects.toThrow(/terminated|aborted|socket/i);
  });
});

describe('with v1 down', () => {
  let gateway: FastifyInstance;
  let client: Client;

  beforeAll(async () => {
    // A port that was just free: nothing listens on it.
    const probe = http.createServer().listen(0, '127.0.0.1');
    await once(probe, 'listening');
    const port = (probe.address() as AddressInfo).port;
    await new Promise((resolve) => probe.close(resolve));
    const logs = captureLogs();
    const started = await startGateway(`http://127.0.0.1:${port}`, [], { logStream: logs.stream });
    gateway = started.gateway;
    client = new Client(started.url);
  });
  afterAll(() => gateway.close());

  it('→ 503 UNAVAILABLE in AIP-193 form with RetryInfo, for reads and for writes with a body', async () => {
    for (const reply of [
      await client.get('/registry/v1/repos'),
      await client.call('PUT', '/iam/v1/groups/abc', { raw: 'x'.repeat(64 * 1024) }),
    ]) {
      expect(reply.status).toBe(503);
      const error = aip(reply);
      expect(error.code).toBe(14);
      expect(error.byType.ErrorInfo.reason).toBe('UNAVAILABLE');
      expect(error.byType.RetryInfo).toBeDefined();
      expect(reply.headers.get('x-request-id')).toBeTruthy();
      expect(reply.text).not.toContain('ECONNREFUSED');
    }
  });
});
