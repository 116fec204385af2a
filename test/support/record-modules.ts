/**
 * Preloaded into a child process (`node --import <this file> …`): records the URL of every module
 * the process loads, ESM and CommonJS alike, and writes them as a JSON array to the file named by
 * V2GW_TEST_MODULES_FILE when the process receives SIGUSR2 (a signal the gateway does not handle
 * itself), followed by Node's own internal modules it has loaded, as `node-internal:<name>`
 * (`node-internal:internal/deps/undici/undici`). Tests assert on what a mode leaves unloaded.
 */
import { renameSync, writeFileSync } from 'node:fs';
import { registerHooks } from 'node:module';

const file = process.env.V2GW_TEST_MODULES_FILE;
if (!file) throw new Error('record-modules: V2GW_TEST_MODULES_FILE is not set');
const loaded: string[] = [];
registerHooks({
  load(url, context, next) {
    loaded.push(url);
    return next(url, context);
  },
});
// Written aside and renamed into place, so a reader never sees half a list.
process.on('SIGUSR2', () => {
  // moduleLoadList: Node's own record of the internal modules it has loaded (not in @types/node).
  const internal = (process as unknown as { moduleLoadList: string[] }).moduleLoadList.filter((entry) => entry.startsWith('NativeModule ')).map((entry) => `node-internal:${entry.slice('NativeModule '.length)}`);
  writeFileSync(`${file}.part`, JSON.stringify([...loaded, ...internal]));
  renameSync(`${file}.part`, file);
});
