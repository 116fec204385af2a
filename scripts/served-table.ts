/**
 * `npm run docs:served`: rewrites docs/api.md's "Every RPC" table between its markers from the
 * contract and the mappings (src/contract/served-table.ts makes it; test/contract/served.test.ts
 * fails while that copy is stale).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { everyRpcTable, withEveryRpcTable } from '../src/index.ts';

const path = new URL('../docs/api.md', import.meta.url);
writeFileSync(path, await withEveryRpcTable(readFileSync(path, 'utf8'), await everyRpcTable()));
