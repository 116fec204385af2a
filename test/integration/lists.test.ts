/** List semantics over v1: page sizes, tokens bound to their query, expiry, skip, filters, keyset stability. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aip, startStack, type Stack } from '../support/stack.ts';

let stack: Stack;
let clock = Date.now();
let org: string;
const names: string[] = [];

beforeAll(async () => {
  stack = await startStack({ gateway: { now: () => clock } });
  org = stack.emulator.state.createGroup(null, { name: 'paging-org' }).id;
  for (let i = 0; i < 250; i++) {
    const name = `g-${String(i).padStart(3, '0')}`;
    names.push(name);
    stack.emulator.state.createGroup(org, { name });
  }
});
afterAll(() => stack.close());

const list = (query: Record<string, any>) => stack.client.get('/iam/v2beta1/groups', { 'uidp.children_of': org, ...query });

describe('page_size', () => {
  it('defaults to 50', async () => {
    const { body } = await list({});
    expect(body.groups).toHaveLength(50);
    expect(body.totalCount).toBe('250');
  });
  it('is capped at 200', async () => {
    const { status, body } = await list({ page_size: 1000 });
    expect(status).toBe(200);
    expect(body.groups).toHaveLength(200);
  });
  it('refuses a negative size', async () => {
    const reply = await list({ page_size: -1 });
    expect(reply.status).toBe(400);
    expect(aip(reply).byType.BadRequest.fieldViolations[0].field).toBe('page_size');
  });
  it('refuses a size that is not an integer', async () => {
    expect((await list({ page_size: 'ten' })).status).toBe(400);
  });
  it('accepts the camelCase spelling', async () => {
    expect((await list({ pageSize: 7 })).body.groups).toHaveLength(7);
  });
});

describe('page tokens', () => {
  it('walk every row exactly once, in order, and the last page has no token', async () => {
    const seen: string[] = [];
    let token: string | undefined;
    let pages = 0;
    do {
      const { body } = await list({ page_size: 60, order_by: 'name', page_token: token });
      seen.push(...body.groups.map((g: any) => g.name));
      token = body.nextPageToken;
      pages++;
      if (!token) expect(body).not.toHaveProperty('nextPageToken');
    } while (token);
    expect(pages).toBe(5);
    expect(seen).toEqual(names);
  });

  it('are refused with other filters', async () => {
    const first = await list({ page_size: 10 });
    const replay = await stack.client.get('/iam/v2beta1/groups', { 'uidp.descendants_of': org, page_size: 10, page_token: first.body.nextPageToken });
    expect(replay.status).toBe(400);
    const error = aip(replay);
    expect(error.code).toBe(3);
    expect(error.byType.BadRequest.fieldViolations[0].field).toBe('page_token');
  });

  it('are refused with another order', async () => {
    const first = await list({ page_size: 10, order_by: 'name' });
    expect((await list({ page_size: 10, order_by: 'name desc', page_token: first.body.nextPageToken })).status).toBe(400);
  });

  it('accept a different spelling of the same query', async () => {
    const first = await list({ page_size: 10, order_by: 'create_time desc' });
    const next = await stack.client.get('/iam/v2beta1/groups', {
      'uidp.childrenOf': org, pageSize: 10, orderBy: 'created_at desc', pageToken: first.body.nextPageToken,
    });
    expect(next.status).toBe(200);
    expect(next.body.groups).toHaveLength(10);
  });

  it('are refused when tampered with or forged', async () => {
    const { body } = await list({ page_size: 10 });
    const token: string = body.nextPageToken;
    const flipped = token.slice(0, 20) + (token[20] === 'A' ? 'B' : 'A') + token.slice(21);
    expect((await list({ page_size: 10, page_token: flipped })).status).toBe(400);
    expect((await list({ page_size: 10, page_token: 'not-a-token' })).status).toBe(400);
    const other = await startStack();
    try {
      const foreign = await other.client.get('/iam/v2beta1/groups', { page_size: 1 });
      expect(foreign.status).toBe(200);
      // A token from a gateway with another key is as good as forged.
      const theirs = (await other.client.get('/iam/v2beta1/roles', { page_size: 1 })).body.nextPageToken;
      expect((await stack.client.get('/iam/v2beta1/roles', { page_size: 1, page_token: theirs })).status).toBe(400);
    } finally {
      await other.close();
    }
  });

  it('older than three days restart from the first page without an error', async () => {
    const first = await list({ page_size: 5, order_by: 'name' });
    const second = await list({ page_size: 5, order_by: 'name', page_token: first.body.nextPageToken });
    expect(second.body.groups[0].name).toBe('g-005');
    clock += 3 * 24 * 3600 * 1000 + 1000;
    try {
      const restarted = await list({ page_size: 5, order_by: 'name', page_token: first.body.nextPageToken });
      expect(restarted.status).toBe(200);
      expect(restarted.body.groups[0].name).toBe('g-000');
    } finally {
      clock = Date.now();
    }
  });

  it('keep a keyset position: rows added or removed between pages never repeat or vanish', async () => {
    const sub = stack.emulator.state.createGroup(null, { name: 'churn' }).id;
    const stable = new Set<string>();
    for (let i = 0; i < 40; i++) stable.add(stack.emulator.state.createGroup(sub, { name: `s-${i}` }).id);
    const churned: string[] = [];
    const seen: string[] = [];
    let token: string | undefined;
    let round = 0;
    do {
      const { body } = await stack.client.get('/iam/v2beta1/groups', { 'uidp.children_of': sub, page_size: 7, page_token: token });
      seen.push(...body.groups.map((g: any) => g.uid));
      token = body.nextPageToken;
      // Between pages: add rows on both sides of the cursor and delete some added earlier.
      for (let j = 0; j < 3; j++) churned.push(stack.emulator.state.createGroup(sub, { name: `c-${round}-${j}` }).id);
      if (churned.length > 4) stack.emulator.state.deleteGroup(churned.shift()!);
      round++;
    } while (token && round < 100);
    const stableSeen = seen.filter((uid) => stable.has(uid));
    expect(new Set(stableSeen).size).toBe(stableSeen.length);
    expect(new Set(stableSeen)).toEqual(stable);
    expect(new Set(seen).size).toBe(seen.length);
  });
});

describe('skip', () => {
  it('omits the first rows after ordering and echoes skipped', async () => {
    const { body } = await list({ order_by: 'name', skip: 245, page_size: 10 });
    expect(body.groups.map((g: any) => g.name)).toEqual(names.slice(245));
    expect(body.skipped).toBe(245);
    expect(body).not.toHaveProperty('nextPageToken');
  });
  it('accumulates across pages when sent again with the token', async () => {
    const first = await list({ order_by: 'name', skip: 10, page_size: 5 });
    expect(first.body.groups[0].name).toBe('g-010');
    const second = await list({ order_by: 'name', skip: 10, page_size: 5, page_token: first.body.nextPageToken });
    expect(second.body.groups[0].name).toBe('g-025');
    expect(second.body.skipped).toBe(20);
  });
  it('refuses a negative skip', async () => {
    expect((await list({ skip: -3 })).status).toBe(400);
  });
  it('past the end gives an empty last page', async () => {
    const { body } = await list({ skip: 999 });
    expect(body.groups).toEqual([]);
    expect(body.totalCount).toBe('250');
    expect(body).not.toHaveProperty('nextPageToken');
  });
});

describe('order_by', () => {
  it('refuses an unknown field', async () => {
    const reply = await list({ order_by: 'colour' });
    expect(reply.status).toBe(400);
    expect(aip(reply).message).toContain('colour');
  });
  it('breaks ties by uid', async () => {
    const twins = stack.emulator.state.createGroup(null, { name: 'twins' }).id;
    for (let i = 0; i < 6; i++) stack.emulator.state.createGroup(twins, { name: 'same' });
    const { body } = await stack.client.get('/iam/v2beta1/groups', { 'uidp.children_of': twins, order_by: 'name desc' });
    const uids = body.groups.map((g: any) => g.uid);
    expect(uids).toEqual([...uids].sort());
  });
});

describe('filters', () => {
  it('uidp.children_of and uidp.descendants_of in both spellings', async () => {
    const parent = stack.emulator.state.createGroup(null, { name: 'tree' }).id;
    const child = stack.emulator.state.createGroup(parent, { name: 'child' }).id;
    stack.emulator.state.createGroup(child, { name: 'grandchild' });
    const children = await stack.client.get('/iam/v2beta1/groups', { 'uidp.childrenOf': parent });
    expect(children.body.groups.map((g: any) => g.name)).toEqual(['child']);
    const descendants = await stack.client.get('/iam/v2beta1/groups', { 'uidp.descendants_of': parent, order_by: 'name' });
    expect(descendants.body.groups.map((g: any) => g.name)).toEqual(['child', 'grandchild']);
  });
  it('name filters exactly, also where v1 has no such filter (identities)', async () => {
    const idOrg = stack.emulator.state.createGroup(null, { name: 'id-org' }).id;
    stack.emulator.state.createIdentity(idOrg, { name: 'alpha-bot', claimMatch: { issuer: 'https://i', subject: 'a' } });
    stack.emulator.state.createIdentity(idOrg, { name: 'beta-bot', claimMatch: { issuer: 'https://i', subject: 'b' } });
    const { body } = await stack.client.get('/iam/v2beta1/identities', { 'uidp.children_of': idOrg, name: 'beta-bot' });
    expect(body.identities.map((i: any) => i.name)).toEqual(['beta-bot']);
    expect(body.totalCount).toBe('1');
  });
  it('refuses a uidp filter that is not a UIDP', async () => {
    const reply = await stack.client.get('/iam/v2beta1/groups', { 'uidp.descendants_of': 'acme' });
    expect(reply.status).toBe(400);
    expect(aip(reply).byType.BadRequest.fieldViolations[0].field).toBe('uidp.descendants_of');
  });
});
