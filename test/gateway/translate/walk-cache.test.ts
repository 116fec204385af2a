/**
 * A walk over an unpaged v1 list costs one full v1 fetch: the first page keeps
 * the order of every matching row (translate/walk-cache.ts), and each later page
 * fetches only its own rows by id. Checked on the v1 calls themselves (a
 * recording proxy in front of the emulator), with the keyset guarantee: a
 * group that exists throughout the walk appears exactly once, even when v1
 * changes under it; a write through the gateway drops the walk.
 */
import http from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../../src/emulator/v1/index.ts';
import { Client, startGateway } from '../../support/stack.ts';

/** Forwards to the emulator, recording each v1 request's path and query. */
async function recordingProxy(target: string): Promise<{ url: string; seen: string[]; close(): Promise<void> }> {
  const seen: string[] = [];
  const server = http.createServer((req, res) => {
    seen.push(req.url!);
    const upstream = http.request(new URL(req.url!, target), { method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode!, answer.headers);
      answer.pipe(res);
    });
    req.pipe(upstream);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen, close: () => new Promise((r) => server.close(() => r())) };
}

const fullFetches = (seen: readonly string[]) => seen.filter((url) => url.startsWith('/iam/v1/groups?') && !url.includes('uidp.ids=')).length;
const byIdFetches = (seen: readonly string[]) => seen.filter((url) => url.startsWith('/iam/v1/groups?') && url.includes('uidp.ids=')).length;

describe.each([{ walkCacheMs: '30000' }, { walkCacheMs: '0' }])('a walk of 120 groups, page_size 25, --walk-cache-ms $walkCacheMs', ({ walkCacheMs }) => {
  let emulator: RunningEmulator;
  let proxy: Awaited<ReturnType<typeof recordingProxy>>;
  let gateway: Awaited<ReturnType<typeof startGateway>>;
  let client: Client;
  let org: string;
  const cached = walkCacheMs !== '0';

  beforeAll(async () => {
    emulator = await startEmulator({ port: 0, seed: 'none' });
    proxy = await recordingProxy(emulator.url);
    gateway = await startGateway(proxy.url, ['--walk-cache-ms', walkCacheMs]);
    client = new Client(gateway.url);
    org = emulator.state.createGroup(null, { name: 'walk-org' }).id;
    for (let i = 0; i < 120; i++) emulator.state.createGroup(org, { name: `g-${String(i).padStart(3, '0')}` });
  });
  afterAll(async () => {
    await gateway?.gateway.close();
    await proxy?.close();
    await emulator?.close();
  });

  /** Walks every page; `between` runs after each page but the last. */
  const walk = async (between: (page: number) => Promise<void> = async () => {}) => {
    const names: string[] = [];
    let token: string | undefined;
    for (let page = 0; ; page++) {
      const reply = await client.get('/iam/v2beta1/groups', { 'uidp.children_of': org, page_size: 25, order_by: 'name', ...(token ? { page_token: token } : {}) });
      expect(reply.status).toBe(200);
      names.push(...reply.body.groups.map((g: any) => g.name));
      token = reply.body.nextPageToken;
      if (!token) return names;
      await between(page);
    }
  };

  it(cached ? 'costs one full v1 fetch, each later page its own rows by id' : 'costs a full v1 fetch per page with the cache off', async () => {
    proxy.seen.length = 0;
    const names = await walk();
    expect(names).toHaveLength(120);
    expect(new Set(names).size).toBe(120);
    expect(names).toEqual([...names].sort());
    expect(fullFetches(proxy.seen)).toBe(cached ? 1 : 5);
    expect(byIdFetches(proxy.seen)).toBe(cached ? 4 : 0);
  });

  it('keeps every group that exists throughout exactly once while v1 changes under the walk', async () => {
    const created: string[] = [];
    const deleted: string[] = [];
    const names = await walk(async (page) => {
      if (page !== 1) return;
      // Behind the gateway's back: one group gone from a later page, one new one.
      const victim = emulator.state.listGroups({ uidp: { childrenOf: org } }).find((g) => g.name === 'g-110')!;
      emulator.state.deleteGroup(victim.id);
      deleted.push(victim.name);
      created.push(emulator.state.createGroup(org, { name: 'g-105a' }).name);
    });
    const survivors = emulator.state.listGroups({ uidp: { childrenOf: org } }).map((g) => g.name).filter((n) => !created.includes(n));
    for (const name of survivors) expect(names.filter((n) => n === name), name).toHaveLength(1);
    expect(names).not.toContain('g-110');
    // Cached, the walk keeps its first page's membership (the README states this staleness); uncached it sees the new group.
    expect(names.includes('g-105a')).toBe(!cached);
  });

  it('drops a walk when the gateway writes to the collection, so the next page fetches afresh', async () => {
    proxy.seen.length = 0;
    const names = await walk(async (page) => {
      if (page === 0) expect((await client.post(`/iam/v2beta1/groups/${org}`, { name: 'g-100b' })).status).toBe(200);
    });
    expect(names).toContain('g-100b');
    // The first page, and (cached) the page after the write: the walk was dropped and learned again.
    expect(fullFetches(proxy.seen)).toBe(cached ? 2 : 5);
  });
});
