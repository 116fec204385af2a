/** List semantics in every mode: page sizes, tokens bound to their query, expiry, skip, ordering, filters, keyset stability. */
import { expect, it } from 'vitest';
import { ALL_MODES, describeModes, type ModeStack } from '../support/modes.ts';
import { aip } from '../support/stack.ts';

let clock = Date.now();
const ROWS = 120;

/** Creates `count` groups under `parent` over HTTP, a few at a time. */
async function createGroups(stack: ModeStack, parent: string, names: readonly string[]): Promise<string[]> {
  const uids: string[] = [];
  for (let i = 0; i < names.length; i += 10) {
    const replies = await Promise.all(names.slice(i, i + 10).map((name) => stack.client.post(`/iam/v2beta1/groups/${parent}`, { name })));
    for (const reply of replies) {
      if (reply.status !== 200) throw new Error(`create failed: ${reply.status} ${reply.text}`);
      uids.push(reply.body.uid);
    }
  }
  return uids;
}

describeModes('lists', (stack) => {
  let org: string;
  const names = Array.from({ length: ROWS }, (_, i) => `g-${String(i).padStart(3, '0')}`);
  const list = (query: Record<string, any>) => stack().client.get('/iam/v2beta1/groups', { 'uidp.children_of': org, ...query });

  it('set-up: an organisation with many groups', async () => {
    org = (await stack().client.post('/iam/v2beta1/groups', { name: 'paging-org' })).body.uid;
    await createGroups(stack(), org, [...names].reverse());
  });

  it('page_size defaults to 50, caps at 200, refuses negatives and non-integers, takes camelCase', async () => {
    const { body } = await list({});
    expect(body.groups).toHaveLength(50);
    expect(body.totalCount).toBe(String(ROWS));
    expect((await list({ page_size: 1000 })).body.groups).toHaveLength(ROWS);
    const negative = await list({ page_size: -1 });
    expect(negative.status).toBe(400);
    expect(aip(negative).byType.BadRequest.fieldViolations[0].field).toBe('page_size');
    expect((await list({ page_size: 'ten' })).status).toBe(400);
    expect((await list({ pageSize: 7 })).body.groups).toHaveLength(7);
  });

  it('page tokens walk every row exactly once, in order; the last page has none', async () => {
    const seen: string[] = [];
    let token: string | undefined;
    let pages = 0;
    do {
      const { body } = await list({ page_size: 25, order_by: 'name', page_token: token });
      seen.push(...body.groups.map((g: any) => g.name));
      token = body.nextPageToken;
      pages++;
      if (!token) expect(body).not.toHaveProperty('nextPageToken');
    } while (token);
    expect(pages).toBe(5);
    expect(seen).toEqual(names);
  });

  it('a page that ends exactly at the last row has no token', async () => {
    const { body } = await list({ page_size: ROWS });
    expect(body.groups).toHaveLength(ROWS);
    expect(body).not.toHaveProperty('nextPageToken');
  });

  it('tokens are refused with other filters or another order, accepted under another spelling of the same query', async () => {
    const first = await list({ page_size: 10 });
    const replay = await stack().client.get('/iam/v2beta1/groups', { 'uidp.descendants_of': org, page_size: 10, page_token: first.body.nextPageToken });
    expect(replay.status).toBe(400);
    expect(aip(replay).byType.BadRequest.fieldViolations[0].field).toBe('page_token');
    const named = await list({ page_size: 10, order_by: 'name' });
    expect((await list({ page_size: 10, order_by: 'name desc', page_token: named.body.nextPageToken })).status).toBe(400);
    const timed = await list({ page_size: 10, order_by: 'create_time desc' });
    const next = await stack().client.get('/iam/v2beta1/groups', {
      'uidp.childrenOf': org, pageSize: 10, orderBy: 'created_at desc', pageToken: timed.body.nextPageToken,
    });
    expect(next.status).toBe(200);
    expect(next.body.groups).toHaveLength(10);
  });

  it('tokens are refused when tampered with or forged', async () => {
    const token: string = (await list({ page_size: 10 })).body.nextPageToken;
    const flipped = token.slice(0, 20) + (token[20] === 'A' ? 'B' : 'A') + token.slice(21);
    expect((await list({ page_size: 10, page_token: flipped })).status).toBe(400);
    expect((await list({ page_size: 10, page_token: 'not-a-token' })).status).toBe(400);
  });

  it('a token older than three days restarts from the first page without an error', async () => {
    const first = await list({ page_size: 5, order_by: 'name' });
    expect((await list({ page_size: 5, order_by: 'name', page_token: first.body.nextPageToken })).body.groups[0].name).toBe('g-005');
    clock += 3 * 24 * 3600 * 1000 + 1000;
    try {
      const restarted = await list({ page_size: 5, order_by: 'name', page_token: first.body.nextPageToken });
      expect(restarted.status).toBe(200);
      expect(restarted.body.groups[0].name).toBe('g-000');
    } finally {
      clock = Date.now();
    }
  });

  it('skip omits rows after ordering, echoes skipped, and accumulates across pages', async () => {
    const tail = await list({ order_by: 'name', skip: ROWS - 5, page_size: 10 });
    expect(tail.body.groups.map((g: any) => g.name)).toEqual(names.slice(ROWS - 5));
    expect(tail.body.skipped).toBe(ROWS - 5);
    expect(tail.body).not.toHaveProperty('nextPageToken');
    const first = await list({ order_by: 'name', skip: 10, page_size: 5 });
    expect(first.body.groups[0].name).toBe('g-010');
    const second = await list({ order_by: 'name', skip: 10, page_size: 5, page_token: first.body.nextPageToken });
    expect(second.body.groups[0].name).toBe('g-025');
    expect(second.body.skipped).toBe(20);
    expect((await list({ skip: -3 })).status).toBe(400);
    const past = await list({ skip: 999 });
    expect(past.body.groups).toEqual([]);
    expect(past.body.totalCount).toBe(String(ROWS));
    expect(past.body).not.toHaveProperty('nextPageToken');
  });

  it('order_by refuses an unknown field and breaks ties by uid', async () => {
    const unknown = await list({ order_by: 'colour' });
    expect(unknown.status).toBe(400);
    expect(aip(unknown).message).toContain('colour');
    const twins = (await stack().client.post('/iam/v2beta1/groups', { name: 'twins' })).body.uid;
    await createGroups(stack(), twins, Array.from({ length: 6 }, () => 'same'));
    for (const order_by of ['name desc', 'name']) {
      const { body } = await stack().client.get('/iam/v2beta1/groups', { 'uidp.children_of': twins, order_by });
      const uids = body.groups.map((g: any) => g.uid);
      expect(uids).toEqual([...uids].sort());
    }
  });

  it('keeps a keyset position: rows added or removed between pages never repeat or vanish', async () => {
    const sub = (await stack().client.post('/iam/v2beta1/groups', { name: 'churn' })).body.uid;
    const stable = new Set(await createGroups(stack(), sub, Array.from({ length: 30 }, (_, i) => `s-${i}`)));
    const churned: string[] = [];
    const seen: string[] = [];
    let token: string | undefined;
    let round = 0;
    do {
      const { body } = await stack().client.get('/iam/v2beta1/groups', { 'uidp.children_of': sub, page_size: 7, page_token: token, order_by: 'name' });
      seen.push(...body.groups.map((g: any) => g.uid));
      token = body.nextPageToken;
      // Between pages: add rows on both sides of the cursor and delete some added earlier.
      churned.push(...(await createGroups(stack(), sub, [`a-${round}`, `m-${round}`, `z-${round}`])));
      if (churned.length > 4) expect((await stack().client.delete(`/iam/v2beta1/groups/${churned.shift()}`)).status).toBe(200);
      round++;
    } while (token && round < 100);
    const stableSeen = seen.filter((uid) => stable.has(uid));
    expect(new Set(stableSeen).size).toBe(stableSeen.length);
    expect(new Set(stableSeen)).toEqual(stable);
    expect(new Set(seen).size).toBe(seen.length);
  });

  it('filters: children_of and descendants_of in both spellings, exact name, UIDP checks', async () => {
    const parent = (await stack().client.post('/iam/v2beta1/groups', { name: 'tree' })).body.uid;
    const child = (await stack().client.post(`/iam/v2beta1/groups/${parent}`, { name: 'child' })).body.uid;
    await stack().client.post(`/iam/v2beta1/groups/${child}`, { name: 'grandchild' });
    expect((await stack().client.get('/iam/v2beta1/groups', { 'uidp.childrenOf': parent })).body.groups.map((g: any) => g.name)).toEqual(['child']);
    const descendants = await stack().client.get('/iam/v2beta1/groups', { 'uidp.descendants_of': parent, order_by: 'name' });
    expect(descendants.body.groups.map((g: any) => g.name)).toEqual(['child', 'grandchild']);
    const ancestors = await stack().client.get('/iam/v2beta1/groups', { 'uidp.ancestors_of': `${child}/0123456789abcdef`, order_by: 'name' });
    expect(ancestors.body.groups.map((g: any) => g.name)).toEqual(['child', 'tree']);
    const ids = await stack().client.get('/iam/v2beta1/groups', { 'uidp.ids': [parent, child], order_by: 'name' });
    expect(ids.body.groups.map((g: any) => g.name)).toEqual(['child', 'tree']);
    const bad = await stack().client.get('/iam/v2beta1/groups', { 'uidp.descendants_of': 'acme' });
    expect(bad.status).toBe(400);
    expect(aip(bad).byType.BadRequest.fieldViolations[0].field).toBe('uidp.descendants_of');
  });

  it('name filters exactly also where v1 has no such filter (identities)', async () => {
    const idOrg = (await stack().client.post('/iam/v2beta1/groups', { name: 'id-org' })).body.uid;
    for (const name of ['alpha-bot', 'beta-bot']) {
      await stack().client.post(`/iam/v2beta1/identities/${idOrg}`, { name, claimMatch: { issuer: 'https://i', subject: name } });
    }
    const { body } = await stack().client.get('/iam/v2beta1/identities', { 'uidp.children_of': idOrg, name: 'beta-bot' });
    expect(body.identities.map((i: any) => i.name)).toEqual(['beta-bot']);
    expect(body.totalCount).toBe('1');
  });
}, { now: () => clock, modes: ALL_MODES });
