/**
 * A separate process for the store tests, run with the project's Node:
 *   store-child.ts write <location> <options-json>      inserts until killed, printing each uid once its commit returned
 *   store-child.ts insert <location> <options-json> <uid>  opens (migrating if needed), inserts one row, exits
 */
import { openStore } from '../../src/store/open.ts';
import type { StoredResource } from '../../src/store/types.ts';

const [mode, location, optionsJson, uid] = process.argv.slice(2);
const store = await openStore(location!, JSON.parse(optionsJson!));
const now = '2024-01-01T00:00:00.000Z';
const row = (id: string): StoredResource => ({ kind: 'groups', uid: id, parent: '', body: { name: id, pad: 'x'.repeat(200) }, createTime: now, updateTime: now });

if (mode === 'insert') {
  await store.resources.insert(row(uid!));
  await store.close();
} else if (mode === 'write') {
  process.stdout.write('ready\n');
  for (let i = 0; ; i += 1) {
    if (i % 4 === 3) {
      // A batch: acknowledged (printed) only once the whole transaction committed.
      const ids = [`w${i}a`, `w${i}b`, `w${i}c`];
      await store.transaction(async (tx) => {
        for (const id of ids) await tx.resources.insert(row(id));
      });
      process.stdout.write(`${ids.join('\n')}\n`);
    } else {
      await store.resources.insert(row(`w${i}`));
      process.stdout.write(`w${i}\n`);
    }
  }
} else {
  throw new Error(`unknown mode ${mode}`);
}
