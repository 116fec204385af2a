/**
 * Preloaded into a child process (`node --import <this file> …`): records the URL of every module
 * the process loads, ESM and CommonJS alike, and writes them as a JSON array to the file named by
 * V2GW_TEST_MODULES_FILE when the process receives SIGUSR2 (a signal the gateway does not handle
 * itself). Tests assert on what a mode leaves unloaded.
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
  writeFileSync(`${file}.part`, JSON.stringify(loaded));
  renameSync(`${file}.part`, file);
});
