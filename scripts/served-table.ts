/**
 * `npm run docs:served`: rewrites the README's "Every RPC" table between its markers from the
 * contract and the mappings (src/contract/served-table.ts makes it; test/contract/served.test.ts
 * fails while the README's copy is stale).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { everyRpcTable, withEveryRpcTable } from '../src/index.ts';

const path = new URL('../README.md', import.meta.url);
writeFileSync(path, await withEveryRpcTable(readFileSync(path, 'utf8'), await everyRpcTable()));
