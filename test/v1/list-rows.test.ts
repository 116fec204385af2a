/**
 * V1Client.listRows over real HTTP: a list's rows streamed a batch at a time
 * (the first batch before v1 has sent the rest), v1's own pages walked, the
 * caller's size cap rather than the client's, a cut-off or refused answer
 * thrown as the client's errors, never a shorter list, and each GET in the
 * gateway's metrics as the client's other calls are.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '../../src/aip/errors.ts';
import { Code } from '../../src/rpc-status.ts';
import { V1Client } from '../../src/v1/client.ts';
import { GatewayMetrics } from '../../src/observability/metrics.ts';

type Route = (req: IncomingMessage, res: ServerResponse) => void;
const routes = new Map<string, Route>();
let server: Server;
let client: V1Client;
const seenAuthorization: string[] = [];

const rowsOf = (from: number, n: number) => Array.from({ length: n }, (_, i) => ({ id: `row-${from + i}`, name: 'x'.repeat(20) }));

/** A list v1 pages itself: three pages of three rows, asked three at a time. */
const threePages: Route = (req, res) => {
  const url = new URL(req.url!, 'http://v1');
  expect(url.searchParams.get('page_size')).toBe('3');
  const page = Number(url.searchParams.get('page_token') || '0');
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ items: rowsOf(page * 3, 3), nextPageToken: page < 2 ? String(page + 1) : '' }));
};

beforeAll(async () => {
  server = createServer((req, res) => {
    seenAuthorization.push(req.headers.authorization ?? '');
    const url = new URL(req.url!, 'http://v1');
    (routes.get(url.pathname) ?? ((_q, r) => r.writeHead(404).end('{"code":5,"message":"no such list"}')))(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  // The client's own cap is small: listRows takes the caller's.
  client = new V1Client({ baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, timeoutMs: 2000, maxBodyBytes: 1000 });
});

afterAll(async () => {
  await client?.close();
  await new Promise((resolve) => server?.close(resolve));
});

async function collect(list: Parameters<V1Client['listRows']>[0]): Promise<Record<string, unknown>[][]> {
  const batches: Record<string, unknown>[][] = [];
  for await (const batch of client.listRows(list)) batches.push(batch);
  return batches;
}

describe('V1Client.listRows', () => {
  it('hands on the first batch before v1 has sent the rest, and every row in order', async () => {
    let finish: () => void = () => {};
    const rest = new Promise<void>((resolve) => (finish = resolve));
    routes.set('/iam/v1/groups', (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const rows = rowsOf(0, 250);
      res.write(`{"items":[${rows.slice(0, 120).map((r) => JSON.stringify(r)).join(',')}`);
      void rest.then(() => res.end(`,${rows.slice(120).map((r) => JSON.stringify(r)).join(',')}]}`));
    });
    const reading = client.listRows({ path: '/iam/v1/groups', authorization: 'Bearer list-test', batch: 100, maxBytes: 1 << 20 });
    const first = await reading.next();
    expect(first.done).toBe(false);
    // A batch is handed on once it holds `batch` rows or more (what a chunk of v1's answer completed).
    const firstRows = first.value as Record<string, unknown>[];
    expect(firstRows.length).toBeGreaterThanOrEqual(100);
    expect(firstRows.map((r) => r.id)).toEqual(rowsOf(0, firstRows.length).map((r) => r.id));
    finish();
    const later: Record<string, unknown>[][] = [];
    for await (const batch of reading) later.push(batch);
    expect([firstRows, ...later].flat().map((r) => r.id)).toEqual(rowsOf(0, 250).map((r) => r.id));
    expect(seenAuthorization.at(-1)).toBe('Bearer list-test');
  });

  it('walks v1\'s own pages until it gives no next token', async () => {
    routes.set('/registry/v1/advisories', threePages);
    const batches = await collect({ path: '/registry/v1/advisories', authorization: 'Bearer t', batch: 2, maxBytes: 1 << 20, paging: { pageSize: 'page_size', pageToken: 'page_token', size: 3 } });
    expect(batches.flat().map((r) => r.id)).toEqual(rowsOf(0, 9).map((r) => r.id));
  });

  it('reads an answer larger than the client\'s cap when the caller allows it, and gives up one larger than the caller\'s', async () => {
    routes.set('/iam/v1/big', (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ items: rowsOf(0, 200) }));
    });
    expect((await collect({ path: '/iam/v1/big', authorization: 'Bearer t', batch: 500, maxBytes: 1 << 20 })).flat()).toHaveLength(200);
    const refused = await collect({ path: '/iam/v1/big', authorization: 'Bearer t', batch: 500, maxBytes: 4000 }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ApiError);
    expect((refused as ApiError).code).toBe(Code.INTERNAL);
    expect((refused as ApiError).message).toContain('more than 4000 bytes');
  });

  it('throws v1\'s refusal as the client does, and a cut-off answer as an error, not a shorter list', async () => {
    const missing = await collect({ path: '/iam/v1/nothing', authorization: 'Bearer t', batch: 10, maxBytes: 1 << 20 }).catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(ApiError);
    expect((missing as ApiError).code).toBe(Code.NOT_FOUND);
    expect((missing as ApiError).message).toContain('no such list');

    routes.set('/iam/v1/cut', (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(`{"items":[${rowsOf(0, 5).map((r) => JSON.stringify(r)).join(',')},`);
      setTimeout(() => res.destroy(), 20);
    });
    const cut = await collect({ path: '/iam/v1/cut', authorization: 'Bearer t', batch: 10, maxBytes: 1 << 20 }).catch((e: unknown) => e);
    expect(cut).toBeInstanceOf(ApiError);
    expect((cut as ApiError).code).toBe(Code.UNAVAILABLE);
    expect(String(cut)).not.toContain('Bearer');
  });

  it('counts each GET in the metrics the client is given, as its other calls are, by status, without the time the reader held a batch', async () => {
    const metrics = new GatewayMetrics();
    const observed = new V1Client({ baseUrl: client.baseUrl, timeoutMs: 2000, observe: (method, status, seconds) => metrics.v1Call(method, status, seconds) });
    /** One series of the exposition /metrics serves. */
    const series = async (name: string, status: number) => {
      const { body } = await metrics.exposition();
      const line = body.split('\n').find((l) => l.startsWith(`${name}{`) && l.includes('http_request_method="GET"') && l.includes(`http_response_status_code="${status}"`));
      return line === undefined ? 0 : Number(line.slice(line.lastIndexOf(' ') + 1));
    };
    try {
      // Three of v1's pages, one GET each.
      routes.set('/registry/v1/advisories', threePages);
      for await (const _batch of observed.listRows({ path: '/registry/v1/advisories', authorization: 'Bearer t', batch: 2, maxBytes: 1 << 20, paging: { pageSize: 'page_size', pageToken: 'page_token', size: 3 } }));
      expect(await series('http_client_request_duration_seconds_count', 200)).toBe(3);
      // A refusal, counted by v1's status.
      await expect((async () => { for await (const _batch of observed.listRows({ path: '/iam/v1/nothing', authorization: 'Bearer t', batch: 10, maxBytes: 1 << 20 })); })()).rejects.toBeInstanceOf(ApiError);
      expect(await series('http_client_request_duration_seconds_count', 404)).toBe(1);
      // A reader that holds its one batch half a second: the time is its own, not v1's.
      routes.set('/iam/v1/held', (_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ items: rowsOf(0, 3) })));
      const before = await series('http_client_request_duration_seconds_sum', 200);
      for await (const _batch of observed.listRows({ path: '/iam/v1/held', authorization: 'Bearer t', batch: 10, maxBytes: 1 << 20 })) await new Promise((resolve) => setTimeout(resolve, 500));
      expect(await series('http_client_request_duration_seconds_count', 200)).toBe(4);
      expect(await series('http_client_request_duration_seconds_sum', 200) - before).toBeLessThan(0.4);
    } finally {
      await observed.close();
    }
  });
});
