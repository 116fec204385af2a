/**
 * Native mode as real gateway processes (`node src/cli.ts --mode native …`):
 * two replicas on one PostgreSQL database see the same data and accept each
 * other's page tokens when they share the key; a gateway killed with SIGKILL
 * in the middle of a burst of writes has every acknowledged write after a
 * restart on the same data directory. PostgreSQL unreachable fails, never skips.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PG_URL, withPg } from '../../support/modes.ts';
import { exited, startGatewayProcess, stopGatewayProcess } from '../../support/gateway-process.ts';

const KEY = 'replicas-share-this-key-0123456789';

/** A native gateway process with `args`. */
const startGateway = (args: string[]) => startGatewayProcess(['--mode', 'native', '--port', '0', ...args]);
const stop = stopGatewayProcess;

describe('replicas on one PostgreSQL database', () => {
  const database = `v2gw_replicas_${process.pid}_${Date.now().toString(36)}`;
  const url = new URL(PG_URL);
  url.pathname = `/${database}`;
  beforeAll(() => withPg((client) => client.query(`create database ${database}`)));
  afterAll(() => withPg((client) => client.query(`drop database if exists ${database} with (force)`)));

  it('see the same data, and a page token minted by one is accepted by the other', { timeout: 60_000 }, async () => {
    const [a, b] = await Promise.all([startGateway(['--store', url.toString(), '--page-token-key', KEY]), startGateway(['--store', url.toString(), '--page-token-key', KEY])]);
    try {
      const org = await a.client.post('/iam/v2beta1/groups', { name: 'shared-org' });
      expect(org.status).toBe(200);
      for (let i = 0; i < 5; i++) expect((await a.client.post(`/iam/v2beta1/groups/${org.body.uid}`, { name: `g-${i}` })).status).toBe(200);

      // Written on A, read on B.
      expect((await b.client.get(`/iam/v2beta1/groups/${org.body.uid}`)).body).toEqual(org.body);
      // Built-in roles were seeded once, whichever replica got there first.
      expect((await b.client.get('/iam/v2beta1/roles', { 'uidp.in_root': true })).body.totalCount).toBe('3');

      const first = await a.client.get('/iam/v2beta1/groups', { 'uidp.children_of': org.body.uid, order_by: 'name', page_size: 2 });
      const second = await b.client.get('/iam/v2beta1/groups', { 'uidp.children_of': org.body.uid, order_by: 'name', page_size: 2, page_token: first.body.nextPageToken });
      expect(second.status).toBe(200);
      expect(second.body.groups.map((g: any) => g.name)).toEqual(['g-2', 'g-3']);

      // Updated on B, read on A; deleted on A, gone on B.
      await b.client.patch(`/iam/v2beta1/groups/${org.body.uid}`, { description: 'from b' });
      expect((await a.client.get(`/iam/v2beta1/groups/${org.body.uid}`)).body.description).toBe('from b');
      const child = first.body.groups[0].uid;
      expect((await a.client.delete(`/iam/v2beta1/groups/${child}`)).status).toBe(200);
      expect((await b.client.get(`/iam/v2beta1/groups/${child}`)).status).toBe(404);
    } finally {
      await Promise.all([stop(a), stop(b)]);
    }
  });

  it('concurrent PATCHes of one resource on two replicas lose neither change', { timeout: 60_000 }, async () => {
    const [a, b] = await Promise.all([startGateway(['--store', url.toString()]), startGateway(['--store', url.toString()])]);
    try {
      const org = (await a.client.post('/iam/v2beta1/groups', { name: 'contended' })).body.uid;
      for (let round = 0; round < 25; round++) {
        // Each replica reads, changes one field and writes the whole document back; unlocked, one would undo the other.
        const replies = await Promise.all([
          a.client.patch(`/iam/v2beta1/groups/${org}`, { description: `d-${round}` }),
          b.client.patch(`/iam/v2beta1/groups/${org}`, { name: `n-${round}` }),
        ]);
        expect(replies.map((r) => r.status)).toEqual([200, 200]);
        const { body } = await a.client.get(`/iam/v2beta1/groups/${org}`);
        expect([body.description, body.name]).toEqual([`d-${round}`, `n-${round}`]);
      }
    } finally {
      await Promise.all([stop(a), stop(b)]);
    }
  });

  it('without a shared key, a token from one replica is refused by the other', { timeout: 60_000 }, async () => {
    const [a, b] = await Promise.all([startGateway(['--store', url.toString()]), startGateway(['--store', url.toString()])]);
    try {
      const first = await a.client.get('/iam/v2beta1/roles', { page_size: 1 });
      const replay = await b.client.get('/iam/v2beta1/roles', { page_size: 1, page_token: first.body.nextPageToken });
      expect(replay.status).toBe(400);
    } finally {
      await Promise.all([stop(a), stop(b)]);
    }
  });
});

describe('durability on a data directory', () => {
  const dir = mkdtempSync(join(tmpdir(), 'v2gw-native-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps every acknowledged write through a SIGKILL in the middle of a burst', { timeout: 60_000 }, async () => {
    const first = await startGateway(['--data-dir', dir]);
    const org = (await first.client.post('/iam/v2beta1/groups', { name: 'burst' })).body.uid as string;
    const acknowledged: string[] = [];
    let killed = false;
    // 16 writers create groups as fast as they can; the gateway is killed once 150 creates have been answered.
    const writers = Array.from({ length: 16 }, async (_, w) => {
      for (let i = 0; !killed; i++) {
        try {
          const reply = await first.client.post(`/iam/v2beta1/groups/${org}`, { name: `w${w}-${i}` });
          if (reply.status === 200) acknowledged.push(reply.body.uid);
        } catch {
          return; // the connection died with the process: this write was never acknowledged
        }
        if (acknowledged.length >= 150 && !killed) {
          killed = true;
          first.child.kill('SIGKILL');
        }
      }
    });
    await Promise.all(writers);
    await exited(first.child);
    expect(first.child.signalCode).toBe('SIGKILL');
    expect(acknowledged.length).toBeGreaterThanOrEqual(150);

    const second = await startGateway(['--data-dir', dir]);
    try {
      const stored = await second.client.listAll('/iam/v2beta1/groups', 'groups', { 'uidp.children_of': org, page_size: 200 });
      const present = new Set(stored.map((g) => g.uid));
      const lost = acknowledged.filter((uid) => !present.has(uid));
      expect(lost).toEqual([]);
      // Built-in roles are not seeded twice by the restart.
      expect((await second.client.get('/iam/v2beta1/roles', { 'uidp.in_root': true })).body.totalCount).toBe('3');
    } finally {
      await stop(second);
    }
  });

  it('keeps data across an orderly restart', { timeout: 60_000 }, async () => {
    const before = await startGateway(['--data-dir', dir]);
    const created = (await before.client.post('/iam/v2beta1/groups', { name: 'survivor', description: 'still here' })).body;
    await stop(before);
    const after = await startGateway(['--data-dir', dir]);
    try {
      expect((await after.client.get(`/iam/v2beta1/groups/${created.uid}`)).body).toEqual(created);
    } finally {
      await stop(after);
    }
  });
});
