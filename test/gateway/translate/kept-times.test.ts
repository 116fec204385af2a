/**
 * Times v1 does not supply, kept by the gateway's store: against an emulator
 * that omits group timestamps (as the public v1 does), groups still carry
 * createTime/updateTime — set by writes through the gateway, recorded at first
 * sight otherwise, stable, orderable — and the records go when the groups do.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../../src/store/open.ts';
import type { Store } from '../../../src/store/types.ts';
import { TIMESTAMP_MS, startStack, type Stack } from '../../support/stack.ts';
import { nanosOf } from '../../support/instant.ts';

let stack: Stack;
let store: Store;
let org: string;

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** True when the store holds no record of the uid (the probe leaves one behind). */
async function unrecorded(kind: string, uid: string): Promise<boolean> {
  const sentinel = '1999-01-01T00:00:00.000Z';
  return (await store.timestamps.observe(kind, [uid], sentinel)).get(uid)?.createTime === sentinel;
}

beforeAll(async () => {
  store = await openStore(':memory:');
  stack = await startStack({ emulator: { omitGroupTimestamps: true }, gateway: { store } });
  org = stack.emulator.state.createGroup(null, { name: 'kept-org' }).id;
});
afterAll(async () => {
  await stack.close();
  await store.close();
});

describe('group times over a v1 that omits them', () => {
  it('v1 really omits them', async () => {
    const direct = await fetch(`${stack.emulator.url}/iam/v1/groups?id=${org}`, { headers: { authorization: 'Bearer t' } });
    const [row] = ((await direct.json()) as { items: any[] }).items;
    expect(row.createdAt ?? null).toBeNull();
  });

  it('a group first met in a v1 answer gets the time it was first seen, stable afterwards', async () => {
    const seenAfter = new Date().toISOString();
    const first = await stack.client.get(`/iam/v2beta1/groups/${org}`);
    expect(first.body.createTime).toMatch(TIMESTAMP_MS);
    expect(nanosOf(first.body.createTime)).toBeGreaterThanOrEqual(nanosOf(seenAfter));
    expect(first.body.updateTime).toBe(first.body.createTime);
    await pause(5);
    const again = await stack.client.get('/iam/v2beta1/groups', { 'uidp.ids': org });
    expect(again.body.groups[0].createTime).toBe(first.body.createTime);
  });

  it('create through the gateway stamps both; update moves updateTime only', async () => {
    const created = (await stack.client.post(`/iam/v2beta1/groups/${org}`, { name: 'child' })).body;
    expect(created.createTime).toMatch(TIMESTAMP_MS);
    expect(created.updateTime).toBe(created.createTime);
    await pause(5);
    const patched = (await stack.client.patch(`/iam/v2beta1/groups/${created.uid}`, { description: 'later' })).body;
    expect(patched.createTime).toBe(created.createTime);
    expect(nanosOf(patched.updateTime)).toBeGreaterThan(nanosOf(created.updateTime));
    expect((await stack.client.get(`/iam/v2beta1/groups/${created.uid}`)).body).toEqual(patched);
  });

  it('order_by works on kept times', async () => {
    const names = ['first', 'second', 'third'];
    for (const name of names) {
      await stack.client.post(`/iam/v2beta1/groups/${org}`, { name });
      await pause(3);
    }
    const newest = await stack.client.get('/iam/v2beta1/groups', { 'uidp.children_of': org, order_by: 'create_time desc', page_size: 3 });
    expect(newest.body.groups.map((g: any) => g.name)).toEqual([...names].reverse());
  });

  it('deleting through the gateway drops the record; a group that vanished from v1 is forgotten', async () => {
    const deleted = (await stack.client.post(`/iam/v2beta1/groups/${org}`, { name: 'short-lived' })).body;
    expect(await unrecorded('groups', deleted.uid)).toBe(false);
    expect((await stack.client.delete(`/iam/v2beta1/groups/${deleted.uid}`)).status).toBe(200);
    expect(await unrecorded('groups', deleted.uid)).toBe(true);

    const vanished = (await stack.client.post(`/iam/v2beta1/groups/${org}`, { name: 'vanishes' })).body;
    const direct = await fetch(`${stack.emulator.url}/iam/v1/groups/${vanished.uid}`, { method: 'DELETE', headers: { authorization: 'Bearer t' } });
    expect(direct.status).toBe(200);
    expect((await stack.client.get(`/iam/v2beta1/groups/${vanished.uid}`)).status).toBe(404);
    expect(await unrecorded('groups', vanished.uid)).toBe(true);
  });

  it('a List records when it first saw every row of v1\'s answer, not only the rows of its page', async () => {
    const parent = stack.emulator.state.createGroup(org, { name: 'first-seen' }).id;
    for (const name of ['p', 'q', 'r', 's', 't']) stack.emulator.state.createGroup(parent, { name });
    const before = new Date().toISOString();
    const firstPage = await stack.client.get('/iam/v2beta1/groups', { 'uidp.children_of': parent, order_by: 'name', page_size: '2' });
    expect(firstPage.body.groups.map((g: { name: string }) => g.name)).toEqual(['p', 'q']);
    const after = new Date().toISOString();
    await pause(20);
    const all = (await stack.client.get('/iam/v2beta1/groups', { 'uidp.children_of': parent, order_by: 'create_time' })).body.groups as Array<{ name: string; createTime: string }>;
    expect(all).toHaveLength(5);
    for (const group of all) {
      expect(nanosOf(group.createTime), group.name).toBeGreaterThanOrEqual(nanosOf(before));
      expect(nanosOf(group.createTime), group.name).toBeLessThanOrEqual(nanosOf(after));
    }
  });

  it('a write that leaves v1\'s row as it was still moves updateTime, in the order of a List that v1 answers byte for byte as before', async () => {
    const parent = (await stack.client.post(`/iam/v2beta1/groups/${org}`, { name: 'same-bytes' })).body.uid;
    const a = (await stack.client.post(`/iam/v2beta1/groups/${parent}`, { name: 'a', description: 'same' })).body;
    await pause(5);
    const b = (await stack.client.post(`/iam/v2beta1/groups/${parent}`, { name: 'b', description: 'same' })).body;
    const list = async (orderBy: string) => (await stack.client.get('/iam/v2beta1/groups', { 'uidp.children_of': parent, order_by: orderBy })).body.groups as Array<{ uid: string; updateTime: string }>;
    expect((await list('update_time desc')).map((g) => g.uid)).toEqual([b.uid, a.uid]);
    expect((await list('name')).map((g) => g.uid)).toEqual([a.uid, b.uid]);
    await pause(5);
    // v1 is sent the row it has: its list answers the same bytes (it omits times), while a's updateTime moves.
    const patched = (await stack.client.patch(`/iam/v2beta1/groups/${a.uid}`, { description: 'same' })).body;
    expect(nanosOf(patched.updateTime)).toBeGreaterThan(nanosOf(b.updateTime));
    expect((await list('update_time desc')).map((g) => g.uid)).toEqual([a.uid, b.uid]);
    const byName = await list('name');
    expect(byName.map((g) => g.uid)).toEqual([a.uid, b.uid]);
    expect(byName[0]!.updateTime).toBe(patched.updateTime);
  });

  it('an unfiltered list sweeps records of groups v1 no longer has', async () => {
    const doomed = (await stack.client.post(`/iam/v2beta1/groups/${org}`, { name: 'swept' })).body;
    await fetch(`${stack.emulator.url}/iam/v1/groups/${doomed.uid}`, { method: 'DELETE', headers: { authorization: 'Bearer t' } });
    expect((await stack.client.get('/iam/v2beta1/groups')).status).toBe(200);
    expect(await unrecorded('groups', doomed.uid)).toBe(true);
  });
});

describe('when v1 supplies the times', () => {
  it('v1’s own values win and the store is not consulted', async () => {
    const local = await startStack();
    try {
      const id = local.emulator.state.createGroup(null, { name: 'v1-timed' }).id;
      const direct = await fetch(`${local.emulator.url}/iam/v1/groups?id=${id}`, { headers: { authorization: 'Bearer t' } });
      const [row] = ((await direct.json()) as { items: any[] }).items;
      const { body } = await local.client.get(`/iam/v2beta1/groups/${id}`);
      expect(body.createTime).toBe(new Date(row.createdAt).toISOString());
    } finally {
      await local.close();
    }
  });
});
