/**
 * A native store seeded for a benchmark: one organisation with `count` child
 * groups, created through the native backend itself (so each row is what
 * native mode writes), eight at a time. The store is closed afterwards, for a
 * gateway process to open.
 */
import { mappingRegistry, nativeBackend, openStore, requestContext } from '../../src/index.ts';
import { AUTHORIZATION } from './targets.ts';

export async function seedNative(location: string, count: number): Promise<{ org: string; group: string }> {
  const store = await openStore(location);
  try {
    const registry = mappingRegistry();
    const backend = await nativeBackend(store, registry);
    await backend.seed();
    const groups = registry.get('groups');
    const ctx = await requestContext({ authorization: AUTHORIZATION, requestId: 'bench-seed', budgetMs: 3_600_000 });
    const org = (await backend.create(groups, '', { name: 'bench-org' }, ctx)).row.uid;
    const uids: string[] = [];
    for (let i = 0; i < count; i += 8) {
      const made = await Promise.all(
        Array.from({ length: Math.min(8, count - i) }, (_, j) => backend.create(groups, org, { name: `group-${String(i + j).padStart(6, '0')}`, description: 'benchmark group' }, ctx)),
      );
      uids.push(...made.map((m) => m.row.uid));
    }
    // Middle of the collection, so a lookup is not the cheap first entry (as the emulator's).
    return { org, group: uids[Math.floor(uids.length / 2)]! };
  } finally {
    await store.close();
  }
}
