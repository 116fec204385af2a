/**
 * PostgreSQL's row locks as the store hands them out (what no-escalation's
 * judgement relies on): a list with `lock: 'share'` inside a transaction
 * keeps a concurrent delete of a row it read waiting until the transaction
 * ends, and a plain list does not; and two transactions that each wait on a
 * row the other holds end with one of them ABORTED (deadlock_detected), the
 * other committed, nothing of the aborted one written.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '../../src/aip/errors.ts';
import { Code } from '../../src/rpc-status.ts';
import type { Store, StoreListQuery } from '../../src/store/types.ts';
import { waitsOnLock } from '../support/lock-wait.ts';
import { PG_URL, postgresEngine, type Place } from './engines.ts';

const KIND = 'things';
const NOW = '2026-01-01T00:00:00.000Z';

describe('PostgreSQL row locks through the store', () => {
  const engine = postgresEngine();
  let place: Place;
  let store: Store;
  /** Another replica's store on the same schema: a call through `store` inside its transaction would join it. */
  let other: Store;
  const row = (uid: string) => ({ kind: KIND, uid, parent: '', body: { uid, by: 'seed' }, createTime: NOW, updateTime: NOW });
  const byUid = (uid: string, lock?: 'share'): StoreListQuery => ({
    kind: KIND, filters: [{ field: 'uid', op: 'eq', value: uid }], order: [{ field: 'uid', desc: false }], skip: 0, limit: 1, ...(lock ? { lock } : {}),
  });

  beforeAll(async () => {
    place = await engine.fresh();
    store = await place.open();
    other = await place.open();
  });
  afterAll(async () => {
    await store?.close();
    await other?.close();
    await engine.cleanup();
  });

  /** Whether the delete of `uid`, started while a transaction holds what it listed, is still waiting once that transaction has read. */
  const deleteWaits = async (uid: string, lock: 'share' | undefined): Promise<boolean> => {
    await store.resources.insert(row(uid));
    let deleted: Promise<boolean> | undefined;
    let waited = false;
    await store.transaction(async (tx) => {
      expect((await tx.resources.list(byUid(uid, lock))).rows).toHaveLength(1);
      deleted = other.resources.delete(KIND, uid);
      waited = await waitsOnLock(PG_URL, place.options.schema!, deleted);
    });
    expect(await deleted).toBe(true);
    return waited;
  };

  it("keeps a concurrent delete of a row listed with lock 'share' waiting until the transaction ends; a plain list does not", async () => {
    expect(await deleteWaits('shared', 'share')).toBe(true);
    expect(await deleteWaits('plain', undefined)).toBe(false);
  });

  it('answers ABORTED for the one of two deadlocked transactions PostgreSQL ends; the other commits', async () => {
    await store.resources.insert(row('x'));
    await store.resources.insert(row('y'));
    let firstHoldsX!: () => void;
    let secondHoldsY!: () => void;
    const holdsX = new Promise<void>((resolve) => (firstHoldsX = resolve));
    const holdsY = new Promise<void>((resolve) => (secondHoldsY = resolve));
    const first = store.transaction(async (tx) => {
      await tx.resources.getForUpdate(KIND, 'x');
      firstHoldsX();
      await holdsY;
      await tx.resources.getForUpdate(KIND, 'y');
      await tx.resources.replace(KIND, 'x', { uid: 'x', by: 'first' }, NOW);
    });
    const second = other.transaction(async (tx) => {
      await holdsX;
      await tx.resources.getForUpdate(KIND, 'y');
      secondHoldsY();
      await tx.resources.getForUpdate(KIND, 'x');
      await tx.resources.replace(KIND, 'y', { uid: 'y', by: 'second' }, NOW);
    });
    const [a, b] = await Promise.allSettled([first, second]);
    const aborted = [a, b].filter((result) => result.status === 'rejected').map((result) => (result as PromiseRejectedResult).reason);
    expect(aborted).toHaveLength(1);
    expect(aborted[0]).toBeInstanceOf(ApiError);
    expect((aborted[0] as ApiError).code).toBe(Code.ABORTED);
    const written = [(await store.resources.get(KIND, 'x'))!.body.by, (await store.resources.get(KIND, 'y'))!.body.by];
    expect(written).toEqual(a.status === 'fulfilled' ? ['first', 'seed'] : ['seed', 'second']);
  });
});
