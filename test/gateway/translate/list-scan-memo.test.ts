/**
 * v1 lists read once per distinct answer (src/v1/list-scan-memo.ts), over real HTTP: a List asked again
 * is served from the reading of v1's identical answer (the metrics count the hit), and a change made in
 * v1 behind the gateway's back shows on the very next List, since v1 is asked every time.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../../src/emulator/v1/index.ts';
import { Client, startGateway } from '../../support/stack.ts';

describe('a List whose v1 answer was read before', () => {
  let emulator: RunningEmulator;
  let gateway: Awaited<ReturnType<typeof startGateway>>;
  let client: Client;
  let org: string;
  const ids: string[] = [];

  beforeAll(async () => {
    emulator = await startEmulator({ port: 0, seed: 'none' });
    gateway = await startGateway(emulator.url);
    client = new Client(gateway.url);
    org = emulator.state.createGroup(null, { name: 'scan-org' }).id;
    for (let i = 0; i < 30; i++) {
      // Named out of creation order, each created in a millisecond of its own: by name and by
      // create_time are two different orders.
      const n = (i * 7) % 30;
      ids[n] = emulator.state.createGroup(org, { name: `g-${String(n).padStart(3, '0')}` }).id;
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
  });
  afterAll(async () => {
    await gateway?.gateway.close();
    await emulator?.close();
  });

  const firstPage = async (authorization?: string) => {
    const reply = await client.get('/iam/v2beta1/groups', { 'uidp.children_of': org, page_size: '10', order_by: 'name' }, authorization ? { authorization } : {});
    expect(reply.status).toBe(200);
    return reply.body as { groups: Array<{ uid: string; name: string }>; nextPageToken: string };
  };
  const scanLookups = async (result: 'hit' | 'miss') => {
    const text = (await client.get('/metrics')).text;
    const line = text.split('\n').find((l) => l.startsWith('v2gw_cache_lookups_total{') && l.includes('cache="list_scan"') && l.includes(`result="${result}"`));
    return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : 0;
  };

  /**
   * `use` given a client of a gateway with the scan memo and one of a gateway that reads every answer
   * afresh, neither with a walk cache (so every page, the first and those after a token, is cut from v1's
   * whole list); both closed after.
   */
  const withMemoAndFresh = async (use: (memo: Client, plain: Client) => Promise<void>) => {
    const kept = await startGateway(emulator.url, ['--walk-cache-ms', '0']);
    const fresh = await startGateway(emulator.url, ['--walk-cache-ms', '0', '--list-scan-cache-bytes', '0']);
    try {
      await use(new Client(kept.url), new Client(fresh.url));
    } finally {
      await kept.gateway.close();
      await fresh.gateway.close();
    }
  };

  /** A new organisation and its `count` child groups, named `prefix-NNN` out of their creation order; their uids as created. */
  const organisation = (name: string, prefix: string, count: number, stride: number) => {
    const uid = emulator.state.createGroup(null, { name }).id;
    const members: string[] = [];
    for (let i = 0; i < count; i++) members.push(emulator.state.createGroup(uid, { name: `${prefix}-${String((i * stride) % count).padStart(3, '0')}` }).id);
    return { uid, members };
  };

  it('is served from that reading: the same page, one more hit', async () => {
    const first = await firstPage();
    const hits = await scanLookups('hit');
    const again = await firstPage();
    expect(again.groups).toEqual(first.groups);
    expect(first.groups.map((g) => g.name)).toEqual(Array.from({ length: 10 }, (_, i) => `g-${String(i).padStart(3, '0')}`));
    expect(await scanLookups('hit')).toBe(hits + 1);
  });

  it('is kept per caller: another token asking the same list has it read afresh, then kept for it', async () => {
    await firstPage();
    const misses = await scanLookups('miss');
    const hits = await scanLookups('hit');
    await firstPage('Bearer someone-else');
    expect(await scanLookups('miss')).toBe(misses + 1);
    await firstPage('Bearer someone-else');
    expect(await scanLookups('hit')).toBe(hits + 1);
  });

  it('answers every query on one v1 answer as a gateway that reads each answer afresh does', async () => {
    await withMemoAndFresh(async (memo, plain) => {
      // One v1 query (children of the org) under every order, size, skip and page: one reading, many uses.
      const queries: Array<Record<string, string>> = [{ order_by: 'name' }, { order_by: 'name desc' }, { order_by: 'create_time desc, name' }, { page_size: '7' }, { page_size: '7', skip: '3' }, {}];
      const pages = async (c: Client, query: Record<string, string>) => {
        const seen: unknown[] = [];
        let token: string | undefined;
        for (let i = 0; i < 3; i++) {
          const reply = await c.get('/iam/v2beta1/groups', { 'uidp.children_of': org, page_size: '10', ...query, ...(token ? { page_token: token } : {}) });
          expect(reply.status).toBe(200);
          seen.push({ groups: reply.body.groups, totalCount: reply.body.totalCount });
          token = reply.body.nextPageToken;
          if (!token) break;
        }
        return seen;
      };
      // Twice round, interleaved, so later queries meet what earlier ones kept with the reading.
      for (let round = 0; round < 2; round++) {
        for (const query of queries) expect(await pages(memo, query), JSON.stringify(query)).toEqual(await pages(plain, query));
      }
    });
  });

  it('answers as a gateway that reads each answer afresh does while v1\'s list changes between Lists', async () => {
    const { uid: changing, members } = organisation('changing-org', 'c', 40, 11);
    await withMemoAndFresh(async (memo, plain) => {
      const queries: Array<Record<string, string>> = [{ order_by: 'name' }, { order_by: 'name desc', page_size: '6' }, {}];
      const page = async (c: Client, query: Record<string, string>) => {
        const reply = await c.get('/iam/v2beta1/groups', { 'uidp.children_of': changing, page_size: '8', ...query });
        expect(reply.status).toBe(200);
        return { groups: reply.body.groups, totalCount: reply.body.totalCount };
      };
      // Each round a row renamed (to the front or the back of the name order), added or removed, early or late in v1's list.
      const changes = [
        () => emulator.state.updateGroup(members[3]!, { name: 'a-first' }),
        () => emulator.state.updateGroup(members[35]!, { name: 'z-last, and longer than before' }),
        () => members.push(emulator.state.createGroup(changing, { name: 'c-new' }).id),
        () => emulator.state.deleteGroup(members.splice(20, 1)[0]!),
        () => emulator.state.updateGroup(members[0]!, { name: 'c' }),
        () => emulator.state.deleteGroup(members.pop()!),
      ];
      for (const query of queries) await page(memo, query);
      for (const change of changes) {
        change();
        for (const query of queries) expect(await page(memo, query), JSON.stringify(query)).toEqual(await page(plain, query));
      }
    });
  });

  it('answers concurrent Lists of several queries as a gateway reading afresh does, v1 changing between rounds', async () => {
    const { uid: parent, members } = organisation('concurrent-org', 'k', 60, 17);
    await withMemoAndFresh(async (memo, plain) => {
      const queries: Array<Record<string, string>> = [{ order_by: 'name' }, { order_by: 'name desc', page_size: '5' }, {}, { skip: '7', page_size: '9' }, { order_by: 'create_time desc' }];
      const page = async (c: Client, query: Record<string, string>) => {
        const reply = await c.get('/iam/v2beta1/groups', { 'uidp.children_of': parent, page_size: '8', ...query });
        expect(reply.status).toBe(200);
        return { groups: reply.body.groups, totalCount: reply.body.totalCount, more: reply.body.nextPageToken !== undefined };
      };
      let serial = 0;
      for (let round = 0; round < 12; round++) {
        // Between rounds only, so every List of a round is answered from the same v1 list.
        const at = (round * 7) % members.length;
        if (round % 4 === 3) emulator.state.deleteGroup(members.splice(at, 1)[0]!);
        else if (round % 4 === 2) members.splice(at, 0, emulator.state.createGroup(parent, { name: `k-new-${serial++}` }).id);
        else emulator.state.updateGroup(members[at]!, { name: `k-renamed-${serial++}` });
        const asked = queries.flatMap((query) => [query, query]);
        const [got, want] = await Promise.all([Promise.all(asked.map((q) => page(memo, q))), Promise.all(asked.map((q) => page(plain, q)))]);
        expect(got, `round ${round}`).toEqual(want);
      }
    });
  });

  it('shows a change v1 made behind the gateway on the next List, the answer the same length', async () => {
    await firstPage();
    const misses = await scanLookups('miss');
    // Same length, so only the bytes themselves tell the answers apart.
    emulator.state.updateGroup(ids[4]!, { name: 'g-00x' });
    const changed = await firstPage();
    expect(changed.groups.map((g) => g.name)).toContain('g-00x');
    expect(changed.groups.map((g) => g.name)).not.toContain('g-004');
    expect(await scanLookups('miss')).toBe(misses + 1);
  });
});

describe('a List whose v1 answer changed in some rows', () => {
  it('records when it first saw a row without its times among the rows read anew, when no row lacked them before', async () => {
    // A v1 of our own, so one row can come without the times v1 gave every row before.
    const row = (n: number, times = true) => ({
      id: `${'a'.repeat(39)}${n}`, name: `row-${n}`, description: '',
      ...(times ? { createdAt: `2024-01-0${n}T00:00:00Z`, updatedAt: '2024-02-01T00:00:00Z' } : {}),
    });
    let rows = [row(1), row(2), row(3)];
    const v1 = createServer((_request, response) => {
      response.setHeader('content-type', 'application/json');
      response.end(JSON.stringify({ items: rows }));
    });
    await new Promise<void>((resolve) => v1.listen(0, '127.0.0.1', resolve));
    const { gateway, url } = await startGateway(`http://127.0.0.1:${(v1.address() as AddressInfo).port}`, ['--walk-cache-ms', '0']);
    try {
      const client = new Client(url);
      const list = async (query: Record<string, string> = {}) => {
        const reply = await client.get('/iam/v2beta1/groups', { order_by: 'name', ...query });
        expect(reply.status).toBe(200);
        return reply.body.groups as Array<{ name: string; createTime?: string }>;
      };
      expect((await list()).map((g) => g.createTime)).toEqual(['2024-01-01T00:00:00.000Z', '2024-01-02T00:00:00.000Z', '2024-01-03T00:00:00.000Z']);
      // The middle row now comes without its times (and a longer name, so the rows after it move).
      rows = [row(1), { ...row(2, false), name: 'row-2, renamed' }, row(3)];
      // A page that does not hold it still records when the row was first seen without its times.
      const before = new Date().toISOString();
      expect((await list({ page_size: '1' })).map((g) => g.name)).toEqual(['row-1']);
      const after = new Date().toISOString();
      await new Promise((resolve) => setTimeout(resolve, 20));
      const changed = await list();
      expect(changed.map((g) => g.name)).toEqual(['row-1', 'row-2, renamed', 'row-3']);
      expect(changed[1]!.createTime! >= before.slice(0, 23) && changed[1]!.createTime! <= after, `kept ${changed[1]!.createTime}, seen between ${before} and ${after}`).toBe(true);
      expect(changed[2]!.createTime).toBe('2024-01-03T00:00:00.000Z');
    } finally {
      await gateway.close();
      await new Promise((resolve) => v1.close(resolve));
    }
  });
});
