/**
 * The one-port listener over real loopback sockets, with a small Fastify app
 * (not the gateway) as the handler: HTTP/1.1 and h2c side by side, TLS with
 * ALPN, hostile connections, and the drain on close.
 */
import { afterEach, describe, expect, it } from 'vitest';
import Fastify, { type FastifyInstance } from 'fastify';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import http2 from 'node:http2';
import https from 'node:https';
import net, { type AddressInfo } from 'node:net';
import { once } from 'node:events';
import { createListener, type ListenerOptions, type StreamHandler } from '../../src/transport/listener.ts';

const fixtures = new URL('../fixtures/tls/', import.meta.url);
const cert = readFileSync(new URL('cert.pem', fixtures));
const key = readFileSync(new URL('key.pem', fixtures));

interface Gate {
  /** Resolves when the slow route has been entered. */
  entered: Promise<void>;
  release: () => void;
}

function gate(): Gate & { enter: () => Promise<void> } {
  let entered!: () => void;
  let release!: () => void;
  const enteredPromise = new Promise<void>((resolve) => (entered = resolve));
  const released = new Promise<void>((resolve) => (release = resolve));
  return { entered: enteredPromise, release, enter: () => (entered(), released) };
}

let apps: FastifyInstance[] = [];
afterEach(async () => {
  await Promise.allSettled(apps.map((app) => app.close()));
  apps = [];
});

async function start(options: ListenerOptions = {}, slow = gate(), streams?: StreamHandler) {
  const app = Fastify({ serverFactory: (handler) => createListener(handler, options, streams) });
  apps.push(app);
  app.get('/hello', async (request) => ({ hello: 'world', httpVersion: request.raw.httpVersionMajor }));
  app.get('/taken', async () => ({ answeredBy: 'the app' }));
  app.post('/echo', async (request) => ({ echo: request.body }));
  app.get('/teapot', async (_request, reply) => reply.code(418).send({ error: 'short and stout' }));
  app.get('/fails', async () => {
    throw Object.assign(new Error('bad argument'), { statusCode: 422 });
  });
  // What src/server.ts does while closing, and HTTP/1 habits illegal in HTTP/2.
  app.get('/http1-headers', async (_request, reply) => {
    reply.header('connection', 'close').header('keep-alive', 'timeout=5').header('proxy-connection', 'close');
    return { ok: true };
  });
  app.get('/request-id', async (request, reply) => reply.header('x-request-id', request.id).header('x-same-every-time', 'yes').send({ ok: true }));
  app.get('/transfer-encoding', async (_request, reply) => reply.header('transfer-encoding', 'chunked').send({ ok: true }));
  app.get('/slow', async () => {
    await slow.enter();
    return { slow: 'done' };
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as AddressInfo;
  return { app, port, slow };
}

interface H2Response {
  status: number;
  headers: http2.IncomingHttpHeaders;
  body: string;
}

function h2(session: http2.ClientHttp2Session, path: string, body?: unknown): Promise<H2Response> {
  return new Promise((resolve, reject) => {
    const headers: http2.OutgoingHttpHeaders = { ':path': path, ':method': body === undefined ? 'GET' : 'POST' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const stream = session.request(headers, { endStream: body === undefined });
    let text = '';
    let responseHeaders: http2.IncomingHttpHeaders | undefined;
    stream.setEncoding('utf8');
    stream.on('response', (h) => (responseHeaders = h));
    const noResponse = () => reject(new Error(`stream closed without a response (RST_STREAM code ${stream.rstCode})`));
    stream.on('close', () => responseHeaders ?? noResponse());
    stream.on('data', (chunk: string) => (text += chunk));
    stream.on('end', () => (responseHeaders ? resolve({ status: Number(responseHeaders[':status']), headers: responseHeaders, body: text }) : noResponse()));
    stream.on('error', reject);
    if (body !== undefined) stream.end(JSON.stringify(body));
  });
}

function connectH2(url: string, options: http2.SecureClientSessionOptions = {}): Promise<http2.ClientHttp2Session> {
  const session = http2.connect(url, options);
  return new Promise((resolve, reject) => {
    session.once('connect', () => resolve(session));
    session.once('error', reject);
  });
}

/** An HTTP/1.1 request through node:https with the test CA, reporting the negotiated protocol. */
function https1(port: number, path: string): Promise<{ status: number; body: string; alpn: string | false | null }> {
  return new Promise((resolve, reject) => {
    const request = https.get({ host: '127.0.0.1', port, path, ca: cert, servername: 'localhost', agent: false }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () => {
        const socket = response.socket as import('node:tls').TLSSocket;
        resolve({ status: response.statusCode!, body, alpn: socket.alpnProtocol });
      });
    });
    request.on('error', reject);
  });
}

describe('cleartext: HTTP/1.1 and h2c on one port', () => {
  it('serves HTTP/1.1', async () => {
    const { port } = await start();
    const response = await fetch(`http://127.0.0.1:${port}/hello`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ hello: 'world', httpVersion: 1 });
    const posted = await fetch(`http://127.0.0.1:${port}/echo`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":1}' });
    expect(await posted.json()).toEqual({ echo: { a: 1 } });
  });

  it('serves h2c with prior knowledge: GET, POST with a body, 4xx and 404', async () => {
    const { port } = await start();
    const session = await connectH2(`http://127.0.0.1:${port}`);
    try {
      const hello = await h2(session, '/hello');
      expect(hello.status).toBe(200);
      expect(JSON.parse(hello.body)).toEqual({ hello: 'world', httpVersion: 2 });

      const echo = await h2(session, '/echo', { name: 'groups/1', list: [1, 2, 3] });
      expect(echo.status).toBe(200);
      expect(JSON.parse(echo.body)).toEqual({ echo: { name: 'groups/1', list: [1, 2, 3] } });

      expect((await h2(session, '/teapot')).status).toBe(418);
      const fails = await h2(session, '/fails');
      expect(fails.status).toBe(422);
      expect(JSON.parse(fails.body).message).toBe('bad argument');
      expect((await h2(session, '/no/such/route')).status).toBe(404);
    } finally {
      session.close();
    }
  });

  it('drops HTTP/1 connection headers from HTTP/2 responses instead of crashing the process', async () => {
    const { port } = await start();
    const session = await connectH2(`http://127.0.0.1:${port}`);
    try {
      for (const path of ['/http1-headers', '/transfer-encoding']) {
        const response = await h2(session, path);
        expect(response.status).toBe(200);
        expect(response.headers['keep-alive']).toBeUndefined();
        expect(response.headers.connection).toBeUndefined();
        expect(response.headers['transfer-encoding']).toBeUndefined();
        expect(JSON.parse(response.body)).toEqual({ ok: true });
      }
    } finally {
      session.close();
    }
    // HTTP/1.1 keeps them.
    const response = await fetch(`http://127.0.0.1:${port}/http1-headers`);
    expect(response.headers.get('keep-alive')).toBe('timeout=5');
  });

  it('sends values new on every response as HPACK literals never indexed, the rest as usual', async () => {
    const { port } = await start();
    const session = await connectH2(`http://127.0.0.1:${port}`);
    try {
      const response = await h2(session, '/request-id');
      expect(response.status).toBe(200);
      expect(response.headers['x-request-id']).toBeTruthy();
      // Node reports which fields of a received header block came never indexed.
      expect((response.headers as Record<symbol, unknown>)[http2.sensitiveHeaders]).toEqual(['x-request-id']);
    } finally {
      session.close();
    }
  });

  it('serves many concurrent streams on one session', async () => {
    const { port } = await start();
    const session = await connectH2(`http://127.0.0.1:${port}`);
    try {
      const responses = await Promise.all(Array.from({ length: 200 }, (_, i) => h2(session, '/echo', { i })));
      responses.forEach((response, i) => {
        expect(response.status).toBe(200);
        expect(JSON.parse(response.body)).toEqual({ echo: { i } });
      });
    } finally {
      session.close();
    }
  });

  it('waits while the first bytes are a prefix of the HTTP/2 preface, whichever protocol follows', async () => {
    const { port } = await start();
    // A proxy that passes the client's first 30 bytes one at a time, so the listener must wait for more.
    const proxy = net.createServer({ allowHalfOpen: true }, (client) => {
      const upstream = net.connect(port, '127.0.0.1').setNoDelay(true);
      upstream.pipe(client);
      client.on('error', () => upstream.destroy());
      upstream.on('error', () => client.destroy());
      let dripped = 0;
      let queue = Promise.resolve();
      client.on('data', (chunk: Buffer) => {
        queue = queue.then(async () => {
          for (const byte of chunk) {
            upstream.write(Buffer.of(byte));
            if (++dripped < 30) await new Promise((resolve) => setTimeout(resolve, 2));
          }
        });
      });
      client.on('end', () => void queue.then(() => upstream.end()));
    });
    proxy.listen(0, '127.0.0.1');
    await once(proxy, 'listening');
    const proxyPort = (proxy.address() as AddressInfo).port;
    try {
      const session = await connectH2(`http://127.0.0.1:${proxyPort}`);
      expect(JSON.parse((await h2(session, '/echo', { dripped: true })).body)).toEqual({ echo: { dripped: true } });
      session.close();

      // "POST" starts like "PRI": HTTP/1 is only decided at the second byte. Two requests pipelined, the second with a body.
      const socket = net.connect(proxyPort, '127.0.0.1');
      let received = '';
      socket.setEncoding('utf8').on('data', (chunk: string) => (received += chunk));
      socket.end(
        'POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 7\r\n\r\n{"a":1}' +
          'POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 7\r\nConnection: close\r\n\r\n{"b":2}',
      );
      await once(socket, 'close');
      expect(received.match(/HTTP\/1\.1 200 OK/g)).toHaveLength(2);
      expect(received).toContain('{"echo":{"a":1}}');
      expect(received).toContain('{"echo":{"b":2}}');
    } finally {
      proxy.close();
    }
  });

  it('reads a large HTTP/1.1 body that follows the sniffed bytes', async () => {
    const { port } = await start();
    const big = { text: 'x'.repeat(500_000) };
    const response = await fetch(`http://127.0.0.1:${port}/echo`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(big) });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ echo: big });
  });

  it('survives a client that sends three bytes of garbage, or of the preface, and leaves', async () => {
    const { port } = await start();
    const preface = 'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n';
    for (const bytes of [Buffer.from([0x00, 0xff, 0x13]), Buffer.from('PRI'), Buffer.from(`${preface}garbage after the preface`)]) {
      const socket = net.connect(port, '127.0.0.1').resume(); // read, or its end is never seen
      socket.on('error', () => {});
      await once(socket, 'connect');
      socket.end(bytes);
      await once(socket, 'close');
    }
    // A reset mid-sniff too.
    const reset = net.connect(port, '127.0.0.1');
    reset.on('error', () => {});
    await once(reset, 'connect');
    reset.write('PRI * HT');
    reset.resetAndDestroy();
    await once(reset, 'close');

    const response = await fetch(`http://127.0.0.1:${port}/hello`);
    expect(response.status).toBe(200);
  });

  it('drops a connection that sends nothing before the sniff timeout', async () => {
    const { port } = await start({ sniffTimeoutMs: 200 });
    const socket = net.connect(port, '127.0.0.1').resume();
    socket.on('error', () => {});
    await once(socket, 'connect');
    const started = Date.now();
    await once(socket, 'close');
    const waited = Date.now() - started;
    expect(waited).toBeGreaterThanOrEqual(150);
    expect(waited).toBeLessThan(5_000);
  });

  it('forwards HTTP/1 limits to the server Fastify sees', async () => {
    const { app } = await start({ headersTimeoutMs: 1_234, requestTimeoutMs: 5_678, keepAliveTimeoutMs: 910 });
    const server = app.server as http.Server;
    expect(server).toBeInstanceOf(http.Server);
    expect([server.headersTimeout, server.requestTimeout, server.keepAliveTimeout]).toEqual([1_234, 5_678, 910]);
  });
});

describe('an HTTP/2 session left silent', () => {
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  it('is sent GOAWAY once silent for the session timeout; one still in use is not', async () => {
    const { port } = await start({ sessionTimeoutMs: 300 });
    const idle = await connectH2(`http://127.0.0.1:${port}`);
    const busy = await connectH2(`http://127.0.0.1:${port}`);
    let idleAway = 0;
    let busyAway = 0;
    idle.on('goaway', () => (idleAway = Date.now()));
    busy.on('goaway', () => (busyAway = Date.now()));
    const started = Date.now();
    expect((await h2(idle, '/hello')).status).toBe(200);
    // The busy session asks every 100 ms for three times the timeout: never silent for it.
    while (Date.now() - started < 900) {
      expect((await h2(busy, '/hello')).status).toBe(200);
      await sleep(100);
    }
    await sleep(300);
    expect(idleAway).toBeGreaterThan(0);
    expect(idleAway - started).toBeGreaterThanOrEqual(300);
    expect(busyAway === 0 || busyAway - started >= 1_100).toBe(true);
    idle.destroy();
    busy.destroy();
  });

  it('is timed without a timer refreshed by every frame (the sessions are swept)', async () => {
    const { port } = await start({ sessionTimeoutMs: 60_000 });
    const session = await connectH2(`http://127.0.0.1:${port}`);
    // The first request read past the sniff, whose timeout the connection's first read refreshes once.
    expect((await h2(session, '/hello')).status).toBe(200);
    // Node's Timeout, whose refresh() its HTTP/2 session calls on every frame it reads or writes when given a timeout.
    const timeout = setTimeout(() => {}, 0);
    clearTimeout(timeout);
    const prototype = Object.getPrototypeOf(timeout) as { refresh: (this: unknown) => unknown };
    const refresh = prototype.refresh;
    let refreshed = 0;
    prototype.refresh = function (this: unknown) {
      refreshed++;
      return refresh.call(this);
    };
    try {
      for (let i = 0; i < 20; i++) expect((await h2(session, '/hello')).status).toBe(200);
    } finally {
      prototype.refresh = refresh;
    }
    expect(refreshed).toBe(0);
    session.destroy();
  });
});

describe('TLS: ALPN chooses', () => {
  it('serves HTTP/1.1 and h2 against the test certificate', async () => {
    const { port } = await start({ tls: { cert, key } });

    const http1 = await https1(port, '/hello');
    expect(http1.status).toBe(200);
    expect(http1.alpn).toBe(false); // node:https offers no ALPN: HTTP/1.1
    expect(JSON.parse(http1.body)).toEqual({ hello: 'world', httpVersion: 1 });

    const session = await connectH2(`https://localhost:${port}`, { ca: cert });
    try {
      expect(session.alpnProtocol).toBe('h2');
      const hello = await h2(session, '/hello');
      expect(JSON.parse(hello.body)).toEqual({ hello: 'world', httpVersion: 2 });
      const echo = await h2(session, '/echo', { tls: true });
      expect(JSON.parse(echo.body)).toEqual({ echo: { tls: true } });
      expect((await h2(session, '/teapot')).status).toBe(418);
      expect((await h2(session, '/nowhere')).status).toBe(404);
    } finally {
      session.close();
    }
  });
});

describe('the stream handler', () => {
  /** Takes `/taken` and answers it on the stream itself; leaves every other stream. */
  const takeOne: StreamHandler = (stream, headers) => {
    if (headers[':path'] !== '/taken') return false;
    stream.respond({ ':status': 200, 'content-type': 'application/json' });
    stream.end(JSON.stringify({ answeredBy: 'the stream handler' }));
    return true;
  };

  it.each([
    ['cleartext', {}],
    ['TLS', { tls: { cert, key } }],
  ] as const)('is offered each HTTP/2 stream first; what it leaves reaches the app, and HTTP/1.1 never reaches it (%s)', async (_name, options) => {
    const { port } = await start(options, gate(), takeOne);
    const url = 'tls' in options ? `https://localhost:${port}` : `http://127.0.0.1:${port}`;
    const session = await connectH2(url, { ca: cert });
    try {
      expect(JSON.parse((await h2(session, '/taken')).body)).toEqual({ answeredBy: 'the stream handler' });
      expect(JSON.parse((await h2(session, '/hello')).body)).toEqual({ hello: 'world', httpVersion: 2 });
      expect(JSON.parse((await h2(session, '/echo', { left: true })).body)).toEqual({ echo: { left: true } });
    } finally {
      session.close();
    }
    const http1 = 'tls' in options ? JSON.parse((await https1(port, '/taken')).body) : await (await fetch(`http://127.0.0.1:${port}/taken`)).json();
    expect(http1).toEqual({ answeredBy: 'the app' });
  });
});

describe('close', () => {
  it('an h2c client that vanishes mid-request ends its session, so close() resolves at once', async () => {
    const { app, port } = await start();
    const session = http2.connect(`http://127.0.0.1:${port}`);
    session.on('error', () => {});
    const stream = session.request({ ':path': '/echo', ':method': 'POST', 'content-type': 'application/json' });
    stream.on('error', () => {});
    stream.write('{"half": ');
    await new Promise((resolve) => setTimeout(resolve, 100));
    // Gone without a word, its request unfinished: no RST_STREAM, no GOAWAY, the connection just ends.
    session.destroy();
    await new Promise((resolve) => setTimeout(resolve, 100));
    // Before the fix the session waited on the half-open socket and close() never resolved (the test timed out).
    const started = Date.now();
    await app.close();
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('lets an in-flight h2 request finish, sends GOAWAY, refuses new connections, then resolves', async () => {
    const { app, port, slow } = await start();
    const session = await connectH2(`http://127.0.0.1:${port}`);
    const goaway = once(session, 'goaway');
    const inFlight = h2(session, '/slow');
    await slow.entered;

    const closed = app.close();
    await goaway;
    await expect(new Promise((resolve, reject) => {
      const socket = net.connect(port, '127.0.0.1', () => resolve('connected'));
      socket.on('error', reject);
    })).rejects.toMatchObject({ code: 'ECONNREFUSED' });

    slow.release();
    const response = await inFlight;
    expect(response.status).toBe(200);
    expect(JSON.parse(response.body)).toEqual({ slow: 'done' });
    await closed;
    expect(session.closed || session.destroyed).toBe(true);
  });

  it('lets an in-flight HTTP/1.1 keep-alive request finish and does not wait out the keep-alive timeout', async () => {
    const { app, port, slow } = await start({ keepAliveTimeoutMs: 60_000 });
    const agent = new http.Agent({ keepAlive: true });
    const get = (path: string) =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        http.get({ host: '127.0.0.1', port, path, agent }, (response) => {
          let body = '';
          response.setEncoding('utf8');
          response.on('data', (chunk: string) => (body += chunk));
          response.on('end', () => resolve({ status: response.statusCode!, body }));
        }).on('error', reject);
      });
    try {
      expect((await get('/hello')).status).toBe(200); // leaves an idle keep-alive socket
      const inFlight = get('/slow');
      await slow.entered;
      const started = Date.now();
      const closed = app.close();
      setTimeout(slow.release, 100);
      expect(await inFlight).toEqual({ status: 200, body: '{"slow":"done"}' });
      await closed;
      expect(Date.now() - started).toBeLessThan(5_000);
    } finally {
      agent.destroy();
    }
  });

  it.each([
    ['cleartext', {}],
    ['TLS', { tls: { cert, key } }],
  ] as const)('closeAllConnections drops HTTP/2 sessions too (%s)', async (_name, options) => {
    const { app, port, slow } = await start(options);
    const url = 'tls' in options ? `https://localhost:${port}` : `http://127.0.0.1:${port}`;
    const session = await connectH2(url, { ca: cert });
    session.on('error', () => {});
    const inFlight = h2(session, '/slow');
    await slow.entered;
    const sessionClosed = once(session, 'close');
    app.server.closeAllConnections();
    await sessionClosed;
    await expect(inFlight).rejects.toThrow(/closed without a response/);
    slow.release();
  });
});
