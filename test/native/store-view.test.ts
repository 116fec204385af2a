import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/open.ts';
import type { Store } from '../../src/store/types.ts';
import { storeView } from '../../src/native/store-view.ts';

let store: Store;
beforeAll(async () => {
  store = await openStore(':memory:');
});
afterAll(() => store.close());

const row = (kind: string, uid: string) => ({ kind, uid, parent: '', body: {}, createTime: '2026-01-01T00:00:00.000Z', updateTime: '2026-01-01T00:00:00.000Z' });

describe("a custom method's view of the store: the kinds it declares, no others", () => {
  it('reads and writes the declared kinds, in a transaction too', async () => {
    const view = storeView(store, ['notes']);
    await view.resources.insert(row('notes', 'a'));
    await view.transaction(async ({ resources }) => {
      await resources.insert(row('notes', 'b'));
    });
    expect((await view.resources.list({ kind: 'notes', filters: [], order: [{ field: 'uid', desc: false }], skip: 0, limit: 10 })).rows.map((r) => r.uid)).toEqual(['a', 'b']);
  });

  it('refuses any other kind before a query, and writes nothing', async () => {
    const view = storeView(store, ['notes']);
    await expect(view.resources.get('roleBindings', 'x')).rejects.toThrow(/"roleBindings" rows, which it does not declare/);
    await expect(view.transaction(({ resources }) => resources.insert(row('roles', 'r')))).rejects.toThrow(/"roles"/);
    await expect(view.resources.countChildren('', ['notes', 'groups'])).rejects.toThrow(/"groups"/);
    expect(await store.resources.get('roles', 'r')).toBeUndefined();
  });
});
