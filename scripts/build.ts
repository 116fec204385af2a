/**
 * `npm run build` (run by `npm start` first): compiles the sources to plain JavaScript in dist/
 * (tsconfig.build.json) and copies beside them the files they read relative to their own location,
 * so `node dist/src/cli.js` runs as `node src/cli.ts` does, without Node's type stripper.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';

const ROOT = new URL('../', import.meta.url).pathname;
const OUT = `${ROOT}dist/`;
/** Read at run time through `new URL(…, import.meta.url)`: package.json (the version), the contract's descriptors. */
const ASSETS = ['package.json', 'src/contract/descriptors.binpb'];

// A clean tree: a source deleted or moved leaves no stale module behind.
rmSync(OUT, { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
execFileSync(process.execPath, [tsc, '-p', `${ROOT}tsconfig.build.json`], { stdio: 'inherit' });
for (const asset of ASSETS) copyFileSync(`${ROOT}${asset}`, `${OUT}${asset}`);
