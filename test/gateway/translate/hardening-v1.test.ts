/**
 * What a misbehaving v1 or client can do to the gateway, on real loopback ports:
 * v1 answers larger than the configured cap (read while streaming, never held
 * whole), a 200 that is not JSON, 503 and 429 with Retry-After, slow headers
 * and resets; requests the HTTP/1 parser refuses or that arrive too slowly;
 * and the pass-through's deadline. v1 is a bare node:http server here, so each
 * test decides exactly what it answers.
 */
import { once } from 'node:events';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { GrpcClient, rejected } from '../../support/grpc.ts';
import { Client, aip, captureLogs, startGateway } from '../../support/stack.ts';
import { closeLocal, listenLocal } from '../../support/local-http.ts';

const MiB = 1024 * 1024;
const CAP = 16 * MiB;
const HUGE = 100 * MiB;
const V1_TIMEOUT_MS = 1000;
const HEADERS_TIMEOUT_MS = 500;
const RECEIVE_TIMEOUT_MS = 1000;
const IDENTITY = 'c'.repeat(40);
const GROUP = 'd'.repeat(40);
const IDENTITIES = 'chainguard.platform.iam.v2beta1.IdentitiesService';

type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => void;

/** A bare HTTP server standing in for v1: each test sets `handle`; `hits` counts the requests it got. */
class FakeV1 {
  readonly server = http.createServer((req, res) => {
    this.hits++;
    this.handle(req, res);
  });
  handle: Handler = (_req, res) => res.end('{}');
  hits = 0;

  start(): Promise<string> {
    return listenLocal(this.server);
  }

  close(): Promise<void> {
    return closeLocal(this.server);
  }
}

/**
 * Answers `status` with `total` bytes, a JSON list padded with whitespace, generated as it is sent: one
 * 64 KiB buffer written again and again, respecting backpressure, so the test never holds the body.
 * Resolves with the bytes written once the exchange ends (completed or cut by the gateway).
 */
function streamHuge(res: http.ServerResponse, total: number, declareLength: boolean, status = 200): Promise<number> {
  const open = Buffer.from('{"items":[');
  const close = Buffer.from(']}');
  const filler = Buffer.alloc(64 * 1024, 0x20);
  const headers: http.OutgoingHttpHeaders = { 'content-type': 'application/json' };
  if (declareLength) headers['content-length'] = String(total);
  res.writeHead(status, headers);
  res.write(open);
  let sent = open.length;
  let stopped = false;
  const done = new Promise<number>((resolve) => res.once('close', () => resolve(sent)));
  res.once('close', () => (stopped = true));
  const pump = (): void => {
    while (!stopped && sent < total - close.length) {
      const n = Math.min(filler.length, total - close.length - sent);
      sent += n;
      if (!res.write(n === filler.length ? filler : filler.subarray(0, n))) {
        res.once('drain', pump);
        return;
      }
    }
    if (!stopped) {
      sent += close.length;
      res.end(close);
    }
  };
  pump();
  return done;
}

interface RawReply {
  status: number;
  headers: Record<string, string>;
  body: any;
  text: string;
}

/** Writes `chunks` on a fresh socket (`gapMs` apart) and reads every response until the gateway closes it. */
async function rawExchange(port: number, chunks: (string | Buffer)[], gapMs = 0): Promise<{ replies: RawReply[]; elapsedMs: number }> {
  const socket = net.connect(port, '127.0.0.1');
  socket.on('error', () => {});
  await once(socket, 'connect');
  const started = Date.now();
  const received: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => received.push(chunk));
  const closed = once(socket, 'close');
  for (const chunk of chunks) {
    if (socket.destroyed) break;
    socket.write(chunk);
    if (gapMs) await new Promise((resolve) => setTimeout(resolve, gapMs));
  }
  await closed;
  return { replies: parseResponses(Buffer.concat(received).toString('latin1')), elapsedMs: Date.now() - started };
}

/** HTTP/1.1 responses with a Content-Length, one after the other. */
function parseResponses(text: string): RawReply[] {
  const replies: RawReply[] = [];
  let rest = text;
  while (rest.length > 0) {
    const end = rest.indexOf('\r\n\r\n');
    if (end < 0) throw new Error(`not an HTTP response: ${JSON.stringify(rest.slice(0, 200))}`);
    const [statusLine, ...lines] = rest.slice(0, end).split('\r\n');
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    const length = Number(headers['content-length'] ?? 0);
    const bodyText = rest.slice(end + 4, end + 4 + length);
    let body: any;
    try {
      body = JSON.parse(bodyText);
    } catch {
      body = undefined;
    }
    replies.push({ status: Number(statusLine!.split(' ')[1]), headers, body, text: bodyText });
    rest = rest.slice(end + 4 + length);
  }
  return replies;
}

/** Asserts an AIP-193 body answered on the socket: code, the status matching it, ErrorInfo first with the x-request-id. */
function expectRawAip(reply: RawReply | undefined, code: number, status: number, reason: string): RawReply {
  expect(reply, 'no response at all').toBeDefined();
  expect(reply!.status).toBe(status);
  expect(reply!.headers['content-type']).toMatch(/^application\/json/);
  expect(Object.keys(reply!.body).sort()).toEqual(['code', 'details', 'message']);
  expect(reply!.body.code).toBe(code);
  const info = reply!.body.details[0];
  expect(info).toMatchObject({ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason, domain: 'iam.chainguard.dev' });
  expect(reply!.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  expect(info.metadata.requestId).toBe(reply!.headers['x-request-id']);
  return reply!;
}

let v1: FakeV1;
let gateway: FastifyInstance;
let client: Client;
let port: number;
let logs: string[];

beforeAll(async () => {
  v1 = new FakeV1();
  const v1Url = await v1.start();
  const captured = captureLogs();
  logs = captured.lines;
  const started = await startGateway(v1Url, [
    '--v1-max-body-bytes', String(CAP),
    '--v1-timeout-ms', String(V1_TIMEOUT_MS),
    '--headers-timeout-ms', String(HEADERS_TIMEOUT_MS),
    '--request-receive-timeout-ms', String(RECEIVE_TIMEOUT_MS),
  ], { logStream: captured.stream });
  gateway = started.gateway;
  client = new Client(started.url);
  port = (gateway.server.address() as AddressInfo).port;
});
afterAll(async () => {
  await gateway.close();
  await v1.close();
});
beforeEach(() => {
  v1.hits = 0;
  v1.handle = (_req, res) => res.end('{}');
});

describe('a v1 answer larger than --v1-max-body-bytes', () => {
  it('is cut off once the cap is passed, never held whole: INTERNAL naming the cause, RSS far below the body', async () => {
    // A first small exchange, so that what the path costs once (code compiled, pools, buffers) is not counted.
    v1.handle = (_req, res) => void streamHuge(res, MiB, false);
    expect((await client.get(`/iam/v2beta1/groups/${GROUP}`)).status).toBe(404);
    let written: Promise<number> | undefined;
    v1.handle = (_req, res) => {
      written = streamHuge(res, HUGE, false);
    };
    v1.hits = 0;
    const before = process.memoryUsage().rss;
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 10);
    const started = Date.now();
    let reply;
    try {
      reply = await client.get(`/iam/v2beta1/groups/${GROUP}`);
    } finally {
      clearInterval(sampler);
    }
    peak = Math.max(peak, process.memoryUsage().rss);
    expect(reply.status).toBe(500);
    const error = aip(reply);
    expect(error.code).toBe(13);
    expect(error.message).toBe(`Internal error: the v1 backend answered more than ${CAP} bytes, the most the gateway reads (--v1-max-body-bytes)`);
    expect(error.byType.ErrorInfo.metadata).toMatchObject({ upstream: 'v1', upstreamStatus: '200', maxBodyBytes: String(CAP) });
    // The v1 request was aborted, not read to its end, and not retried.
    const sent = await written!;
    expect(sent).toBeLessThan(HUGE / 2);
    expect(v1.hits).toBe(1);
    expect(Date.now() - started).toBeLessThan(V1_TIMEOUT_MS);
    // v1 and the gateway share this process: the growth covers both, and must stay far below the 100 MB body.
    expect(peak - before).toBeLessThan(64 * MiB);
  });

  it('is refused before reading when its Content-Length already says so', async () => {
    let written: Promise<number> | undefined;
    v1.handle = (_req, res) => {
      written = streamHuge(res, HUGE, true);
    };
    const reply = await client.get(`/iam/v2beta1/identities/${IDENTITY}`);
    expect(reply.status).toBe(500);
    expect(aip(reply).message).toContain(`the v1 backend answered more than ${CAP} bytes`);
    expect(await written!).toBeLessThan(HUGE / 2);
    expect(v1.hits).toBe(1);
  });

  it('an error body is capped too', async () => {
    v1.handle = (_req, res) => void streamHuge(res, HUGE, false, 500);
    const reply = await client.get(`/iam/v2beta1/identities/${IDENTITY}`);
    expect(reply.status).toBe(500);
    expect(aip(reply).byType.ErrorInfo.metadata).toMatchObject({ upstreamStatus: '500', maxBodyBytes: String(CAP) });
  });

  it('an answer within the cap is read as usual', async () => {
    v1.handle = (_req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ items: [{ id: IDENTITY, name: 'fits', description: 'x'.repeat(MiB), createdAt: '2026-01-01T00:00:00Z' }] }));
    };
    const reply = await client.get(`/iam/v2beta1/identities/${IDENTITY}`);
    expect(reply.status).toBe(200);
    expect(reply.body.name).toBe('fits');
  });
});

describe('what v1 says is kept, what the gateway says is clear', () => {
  it('a 200 whose body is not JSON → INTERNAL saying so', async () => {
    v1.handle = (_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"items": [');
    const reply = await client.get(`/iam/v2beta1/identities/${IDENTITY}`);
    expect(reply.status).toBe(500);
    const error = aip(reply);
    expect(error.code).toBe(13);
    expect(error.message).toBe('Internal error: the v1 backend answered 200 with a body that is not JSON');
    expect(error.message).not.toContain('502');
    expect(error.byType.ErrorInfo.metadata).toMatchObject({ upstream: 'v1', upstreamStatus: '200' });
  });

  it("v1's own message reaches the client exactly, without the gateway's prefix", async () => {
    v1.handle = (_req, res) => res.writeHead(404, { 'content-type': 'application/json' })
      .end(JSON.stringify({ code: 5, message: `parent group ${GROUP} not found`, details: [] }));
    const reply = await client.delete(`/iam/v2beta1/identities/${IDENTITY}`);
    expect(reply.status).toBe(404);
    expect(aip(reply).message).toBe(`parent group ${GROUP} not found`);
  });

  it("the gateway's own words for a v1 error keep their prefix", async () => {
    v1.handle = (_req, res) => res.writeHead(409, { 'content-type': 'text/html' }).end('<html>conflict</html>');
    const reply = await client.delete(`/iam/v2beta1/identities/${IDENTITY}`);
    expect(reply.status).toBe(409);
    expect(aip(reply).message).toBe('Aborted: v1 answered HTTP 409');
  });
});

describe("v1's Retry-After", () => {
  const busy = (status: number, code: number, message: string, retryAfter?: string): Handler => (_req, res) => {
    const headers: http.OutgoingHttpHeaders = { 'content-type': 'application/json' };
    if (retryAfter !== undefined) headers['retry-after'] = retryAfter;
    res.writeHead(status, headers).end(JSON.stringify({ code, message, details: [] }));
  };

  it('503 with delay-seconds → UNAVAILABLE with RetryInfo and a Retry-After header', async () => {
    v1.handle = busy(503, 14, 'busy', '7');
    const reply = await client.delete(`/iam/v2beta1/identities/${IDENTITY}`);
    expect(reply.status).toBe(503);
    const error = aip(reply);
    expect(error.code).toBe(14);
    expect(error.message).toBe('busy');
    expect(error.byType.RetryInfo).toEqual({ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '7s' });
    expect(reply.headers.get('retry-after')).toBe('7');
    expect(v1.hits).toBe(1); // a write is never retried
  });

  it('503 with an HTTP date, to a read → the delay until that date, and no retry sooner than v1 asked', async () => {
    const at = new Date(Date.now() + 30_000).toUTCString();
    v1.handle = busy(503, 14, 'maintenance', at);
    const reply = await client.get(`/iam/v2beta1/identities/${IDENTITY}`);
    expect(reply.status).toBe(503);
    const delay = Number(/^(\d+)s$/.exec(aip(reply).byType.RetryInfo.retryDelay)![1]);
    expect(delay).toBeGreaterThanOrEqual(28);
    expect(delay).toBeLessThanOrEqual(30);
    expect(reply.headers.get('retry-after')).toBe(String(delay));
    expect(v1.hits).toBe(1); // v1 asked for 30 s: the caller's retry is the one that waits, not the gateway's
  });

  it('503 to a read, with no Retry-After or one of 0 s → tried twice more, then v1\'s last answer', async () => {
    for (const retryAfter of [undefined, '0']) {
      v1.hits = 0;
      v1.handle = busy(503, 14, 'busy', retryAfter);
      const reply = await client.get(`/iam/v2beta1/identities/${IDENTITY}`);
      expect(reply.status).toBe(503);
      expect(v1.hits).toBe(3);
    }
  });

  it('429 → RESOURCE_EXHAUSTED with QuotaFailure and RetryInfo', async () => {
    v1.handle = busy(429, 8, 'slow down', '3');
    const reply = await client.get(`/iam/v2beta1/identities/${IDENTITY}`);
    expect(reply.status).toBe(429);
    const error = aip(reply);
    expect(error.code).toBe(8);
    expect(error.message).toBe('slow down');
    expect(error.byType.QuotaFailure.violations).toEqual([{ subject: 'v1', description: 'slow down' }]);
    expect(error.byType.RetryInfo.retryDelay).toBe('3s');
    expect(reply.headers.get('retry-after')).toBe('3');
  });

  it('429 without a body or Retry-After → QuotaFailure, and no retry advice is invented', async () => {
    v1.handle = (_req, res) => res.writeHead(429).end();
    const reply = await client.get(`/iam/v2beta1/identities/${IDENTITY}`);
    expect(reply.status).toBe(429);
    const error = aip(reply);
    expect(error.message).toBe('Resource exhausted: v1 answered HTTP 429');
    expect(error.byType.QuotaFailure.violations[0].subject).toBe('v1');
    expect(error.byType.RetryInfo).toBeUndefined();
    expect(reply.headers.get('retry-after')).toBeNull();
  });

  it('a Retry-After that is neither seconds nor a date is ignored', async () => {
    v1.handle = busy(503, 14, 'busy', 'soon');
    const reply = await client.delete(`/iam/v2beta1/identities/${IDENTITY}`);
    expect(aip(reply).byType.RetryInfo).toBeUndefined();
    expect(reply.headers.get('retry-after')).toBeNull();
  });

  it('over gRPC the same details travel in the status', async () => {
    v1.handle = busy(429, 8, 'slow down', '3');
    const grpc = new GrpcClient(`http://127.0.0.1:${port}`);
    try {
      const failure = await rejected(grpc.call(IDENTITIES, 'GetIdentity', { uid: IDENTITY }));
      expect(failure.code).toBe(8);
      expect(failure.message).toBe('slow down');
      const byType = Object.fromEntries(failure.details.map((d) => [String(d['@type']).split('.').pop(), d]));
      expect(byType.RetryInfo).toMatchObject({ retryDelay: '3s' });
      expect(byType.QuotaFailure).toMatchObject({ violations: [{ subject: 'v1', description: 'slow down' }] });
    } finally {
      grpc.close();
    }
  });
});

describe('v1 slow or gone', () => {
  it('no headers within --v1-timeout-ms → DEADLINE_EXCEEDED', async () => {
    v1.handle = (_req, res) => {
      setTimeout(() => res.end('{}'), V1_TIMEOUT_MS * 3).unref();
    };
    const started = Date.now();
    const reply = await client.delete(`/iam/v2beta1/identities/${IDENTITY}`);
    expect(reply.status).toBe(504);
    expect(aip(reply).message).toBe(`Deadline exceeded: the v1 backend did not answer within ${V1_TIMEOUT_MS} ms`);
    expect(Date.now() - started).toBeLessThan(V1_TIMEOUT_MS + 500);
  });

  it('a reset before any answer → UNAVAILABLE with RetryInfo', async () => {
    v1.handle = (req) => req.socket.resetAndDestroy();
    const reply = await client.delete(`/iam/v2beta1/identities/${IDENTITY}`);
    expect(reply.status).toBe(503);
    const error = aip(reply);
    expect(error.message).toBe('Unavailable: the v1 backend closed the connection before its answer was complete');
    expect(error.byType.RetryInfo.retryDelay).toBe('1s');
    expect(reply.headers.get('retry-after')).toBe('1');
  });

  it('a reset in the middle of the body → UNAVAILABLE, after the read was retried', async () => {
    v1.handle = (req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"items":[{"id":"');
      setTimeout(() => req.socket.resetAndDestroy(), 10);
    };
    const reply = await client.get(`/iam/v2beta1/identities/${IDENTITY}`);
    expect(reply.status).toBe(503);
    expect(aip(reply).message).toBe('Unavailable: the v1 backend closed the connection before its answer was complete');
  });
});

describe('requests the HTTP/1 parser refuses, in AIP-193 form', () => {
  it('an unknown method → UNIMPLEMENTED 501, with x-request-id', async () => {
    const { replies } = await rawExchange(port, ['FROB /iam/v2beta1/groups HTTP/1.1\r\nHost: x\r\n\r\n']);
    const reply = expectRawAip(replies[0], 12, 501, 'UNIMPLEMENTED');
    expect(reply.body.message).toBe('Unimplemented: the HTTP method FROB is not served');
    expect(logs.some((line) => line.includes(reply.headers['x-request-id']!) && line.includes('request refused before routing'))).toBe(true);
  });

  it('the domain follows the path when the request line was read', async () => {
    const { replies } = await rawExchange(port, ['FROB /registry/v2beta1/repos HTTP/1.1\r\nHost: x\r\n\r\n']);
    expect(replies[0]!.body.details[0].domain).toBe('registry.chainguard.dev');
  });

  it('a 20 KB header → INVALID_ARGUMENT 400 on headers', async () => {
    const { replies } = await rawExchange(port, [`GET /iam/v2beta1/groups HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`]);
    const reply = expectRawAip(replies[0], 3, 400, 'INVALID_ARGUMENT');
    expect(reply.body.details[1]).toEqual({
      '@type': 'type.googleapis.com/google.rpc.BadRequest',
      fieldViolations: [{ field: 'headers', description: `the request's headers exceed ${http.maxHeaderSize} bytes` }],
    });
  });

  it('bytes that are not HTTP → INVALID_ARGUMENT 400', async () => {
    const { replies } = await rawExchange(port, ['GET /iam/v2beta1/groups HTTP/1.1\r\nHo st: x\r\n\r\n']);
    expect(expectRawAip(replies[0], 3, 400, 'INVALID_ARGUMENT').body.message).toMatch(/^Invalid argument: request: the request is not valid HTTP\/1.1/);
  });

  it('a refusal after an answered request on the same connection is answered too', async () => {
    const { replies } = await rawExchange(port, ['GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n', 'FROB / HTTP/1.1\r\nHost: x\r\n\r\n'], 50);
    expect(replies.map((r) => r.status)).toEqual([200, 501]);
    expectRawAip(replies[1], 12, 501, 'UNIMPLEMENTED');
  });

  it('headers not finished within --headers-timeout-ms → DEADLINE_EXCEEDED, and the connection closes', async () => {
    const { replies, elapsedMs } = await rawExchange(port, ['GET /iam/v2beta1/groups HTTP/1.1\r\nHost: x\r\n']);
    const reply = expectRawAip(replies[0], 4, 504, 'DEADLINE_EXCEEDED');
    expect(reply.body.message).toBe(`Deadline exceeded: the request's headers were not received within ${HEADERS_TIMEOUT_MS} ms`);
    // Node checks its deadlines once a second (the listener's connectionsCheckingInterval).
    expect(elapsedMs).toBeGreaterThanOrEqual(HEADERS_TIMEOUT_MS - 50);
    expect(elapsedMs).toBeLessThan(HEADERS_TIMEOUT_MS + 2000);
  });

  it('a body not finished within --request-receive-timeout-ms → DEADLINE_EXCEEDED', async () => {
    const { replies, elapsedMs } = await rawExchange(port, [
      `POST /iam/v2beta1/groups/${GROUP} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer t\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"na`,
    ]);
    const reply = expectRawAip(replies[0], 4, 504, 'DEADLINE_EXCEEDED');
    expect(reply.body.message).toBe(`Deadline exceeded: the request was not received whole within ${RECEIVE_TIMEOUT_MS} ms`);
    expect(elapsedMs).toBeGreaterThanOrEqual(RECEIVE_TIMEOUT_MS - 50);
    expect(elapsedMs).toBeLessThan(RECEIVE_TIMEOUT_MS + 2000);
    expect(v1.hits).toBe(0);
  });

  it('a pass-through upload not finished in time → DEADLINE_EXCEEDED, and v1 sees the request end', async () => {
    let v1Closed = false;
    v1.handle = (req, res) => {
      req.resume();
      res.on('close', () => (v1Closed = true));
    };
    const { replies } = await rawExchange(port, [
      'PUT /iam/v1/groups/x HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"na',
    ]);
    expectRawAip(replies[0], 4, 504, 'DEADLINE_EXCEEDED');
    expect(v1.hits).toBe(1);
    await expect.poll(() => v1Closed).toBe(true);
  });

  it('the headers timeout cannot exceed the request timeout (a configuration error)', async () => {
    await expect(startGateway('http://127.0.0.1:9', ['--headers-timeout-ms', '5000', '--request-receive-timeout-ms', '1000']))
      .rejects.toThrow(/--headers-timeout-ms .* cannot be longer than --request-receive-timeout-ms/);
  });
});

describe('the pass-through deadline is exact', () => {
  it('no response headers → 504 within the deadline and a small margin', async () => {
    v1.handle = (_req, res) => {
      setTimeout(() => res.end('too late'), V1_TIMEOUT_MS * 3).unref();
    };
    const started = Date.now();
    const reply = await client.get('/iam/v1/groups');
    const elapsed = Date.now() - started;
    expect(reply.status).toBe(504);
    const error = aip(reply);
    expect(error.code).toBe(4);
    expect(error.message).toBe(`Deadline exceeded: the v1 backend did not answer within ${V1_TIMEOUT_MS} ms`);
    expect(elapsed).toBeGreaterThanOrEqual(V1_TIMEOUT_MS - 5);
    // undici's coarse timers used to end it about half a second late.
    expect(elapsed).toBeLessThan(V1_TIMEOUT_MS + 250);
  });

  it('with a body: counted from the moment the client finished sending it', async () => {
    let bodyEnded = 0;
    v1.handle = (req, res) => {
      req.resume().on('end', () => (bodyEnded = Date.now()));
      setTimeout(() => res.end('too late'), V1_TIMEOUT_MS * 3).unref();
    };
    // The upload itself takes 600 ms; the deadline starts after it.
    const { hostname, port: gatewayPort } = new URL(client.baseUrl);
    const req = http.request({ hostname, port: gatewayPort, method: 'PUT', path: '/iam/v1/groups/x', agent: false, headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' } });
    const response = new Promise<http.IncomingMessage>((resolve, reject) => req.on('response', resolve).on('error', reject));
    for (let i = 0; i < 3; i++) {
      req.write('{}  ');
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    req.end();
    const sentAt = Date.now();
    const res = await response;
    const elapsed = Date.now() - sentAt;
    res.resume();
    expect(res.statusCode).toBe(504);
    expect(bodyEnded).toBeGreaterThan(0);
    expect(elapsed).toBeGreaterThanOrEqual(V1_TIMEOUT_MS - 5);
    expect(elapsed).toBeLessThan(V1_TIMEOUT_MS + 250);
  });

  it('is not a cap on the response body: a slow but steady v1 body is passed through', async () => {
    v1.handle = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      let n = 0;
      const tick = setInterval(() => {
        res.write('x');
        if (++n === 6) {
          clearInterval(tick);
          res.end();
        }
      }, V1_TIMEOUT_MS / 4);
    };
    const response = await fetch(new URL('/iam/v1/trickle', client.baseUrl));
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('xxxxxx');
  });
});
