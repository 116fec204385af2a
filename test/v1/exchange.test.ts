/**
 * One v1 exchange (src/v1/exchange.ts) against a real HTTP server on a real port: the answer
 * collected whole, cut off at the cap, and ended by its deadline or the request's signal even when
 * undici's own timeouts would not end it (a body that keeps trickling; a call still waiting for a
 * connection).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Pool } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exchange } from '../../src/v1/exchange.ts';

let server: Server;
let origin: string;
const handlers: Record<string, (req: IncomingMessage, res: ServerResponse) => void> = {
  '/ok': (_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"a":1}'),
  // A chunk every 20 ms for ever: no gap long enough for undici's body timeout.
  '/trickle': (req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('{"a":"');
    const timer = setInterval(() => res.write('x'), 20);
    req.socket.on('close', () => clearInterval(timer));
  },
  '/big': (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write(`{"a":"${'x'.repeat(64 * 1024)}`);
    res.end(`${'y'.repeat(64 * 1024)}"}`);
  },
  '/hang': () => {},
  // A large answer of declared length, in several writes, as a v1 list arrives.
  '/large': (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': LARGE.length });
    for (let at = 0; at < LARGE.length; at += 50_000) res.write(LARGE.subarray(at, at + 50_000));
    res.end();
  },
  '/large-404': (_req, res) => res.writeHead(404, { 'content-length': LARGE.length }).end(LARGE),
};
const LARGE = Buffer.from(`{"items":[${Array.from({ length: 2000 }, (_, i) => `{"id":"row-${i}","name":"${'n'.repeat(80)}"}`).join(',')}]}`);

beforeAll(async () => {
  server = createServer((req, res) => handlers[req.url ?? '']?.(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const limits = { maxBytes: 1024 * 1024, timeoutMs: 5_000 };

describe('a v1 exchange', () => {
  it('answers v1\'s status, headers and whole body', async () => {
    const pool = new Pool(origin);
    let told = 0;
    const answer = await exchange(pool, { origin, method: 'GET', path: '/ok' }, limits, { answered: (status) => (told = status) });
    expect([answer.statusCode, answer.headers['content-type'], answer.body?.bytes().toString(), told]).toEqual([200, 'application/json', '{"a":1}', 200]);
    await pool.close();
  });

  it('ends at its own deadline while the body keeps coming, with a TimeoutError', async () => {
    const pool = new Pool(origin, { bodyTimeout: 60_000, headersTimeout: 60_000 });
    const started = performance.now();
    const failure = await exchange(pool, { origin, method: 'GET', path: '/trickle' }, { ...limits, timeoutMs: 200 }).catch((error: unknown) => error);
    expect(failure).toMatchObject({ name: 'TimeoutError', message: 'no answer within 200 ms' });
    expect(performance.now() - started).toBeLessThan(2_000);
    await pool.destroy();
  });

  it('ends at once when the request\'s signal aborts while the call waits for a connection, with its reason', async () => {
    const pool = new Pool(origin, { connections: 1, bodyTimeout: 60_000, headersTimeout: 60_000 });
    const first = exchange(pool, { origin, method: 'GET', path: '/hang' }, limits).catch((error: unknown) => error);
    const request = new AbortController();
    const second = exchange(pool, { origin, method: 'GET', path: '/ok' }, limits, { signal: request.signal }).catch((error: unknown) => error);
    setTimeout(() => request.abort('caller gone'), 50);
    const started = performance.now();
    expect(await second).toBe('caller gone');
    expect(performance.now() - started).toBeLessThan(2_000);
    await pool.destroy();
    expect(await first).toBeInstanceOf(Error);
  });

  it('answers the bytes it was told to expect when v1 sends them again, and v1\'s own bytes otherwise', async () => {
    const pool = new Pool(origin);
    const likely = Buffer.from(LARGE);
    const same = await exchange(pool, { origin, method: 'GET', path: '/large' }, limits, { likely });
    expect(same.body!.chunks).toHaveLength(1);
    expect(same.body!.chunks[0]!.buffer).toBe(likely.buffer);
    const changed = Buffer.from(LARGE);
    changed[LARGE.length >> 1] = 0x21;
    const other = await exchange(pool, { origin, method: 'GET', path: '/large' }, limits, { likely: changed });
    expect(other.body!.bytes().equals(LARGE)).toBe(true);
    // An error is never taken for the answer expected, even byte for byte.
    const failed = await exchange(pool, { origin, method: 'GET', path: '/large-404' }, limits, { likely });
    expect(failed.statusCode).toBe(404);
    expect(failed.body!.bytes().equals(LARGE)).toBe(true);
    expect(failed.body!.chunks.some((chunk) => chunk.buffer === likely.buffer)).toBe(false);
    await pool.close();
  });

  it('gives up an answer past the cap (body undefined) without holding it whole', async () => {
    const pool = new Pool(origin);
    const answer = await exchange(pool, { origin, method: 'GET', path: '/big' }, { ...limits, maxBytes: 32 * 1024 });
    expect([answer.statusCode, answer.body]).toEqual([200, undefined]);
    // The pool is still usable: the cut-off connection was dropped, not left half-read.
    const next = await exchange(pool, { origin, method: 'GET', path: '/ok' }, limits);
    expect(next.body?.bytes().toString()).toBe('{"a":1}');
    await pool.close();
  });
});
